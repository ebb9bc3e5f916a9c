/* main.c - runs every CUnit suite in UNIT_SUITES; exits 1 on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "unit.h"

enum { MAX_STRINGS = 256 };

static char *strings[MAX_STRINGS];
static int nstrings;
static Arena arena;

Arena *
unit_arena(void)
{
    return &arena;
}

static const char *
keep(Buf *b)
{
    char *s = buf_steal(b);
    if (nstrings == MAX_STRINGS) {
        fputs("unit: too many strings in one test\n", stderr);
        abort();
    }
    strings[nstrings++] = s;
    return s;
}

const char *
unit_type_str(const Type *t)
{
    Buf b;
    buf_init(&b);
    cj_type_str(&b, t);
    return keep(&b);
}

const char *
unit_type_mangle(const Type *t)
{
    Buf b;
    buf_init(&b);
    cj_type_mangle(&b, t);
    return keep(&b);
}

void
unit_assert_str(const char *got, const char *want, unsigned line, const char *file)
{
    char cond[1024];
    int ok = got && want && strcmp(got, want) == 0;
    snprintf(cond, sizeof cond, "got \"%s\", want \"%s\"", got ? got : "(null)",
             want ? want : "(null)");
    CU_assertImplementation(ok, line, cond, file, "", CU_FALSE);
}

/* after every test: free its strings and its arena */
static void
test_cleanup(void)
{
    for (int i = 0; i < nstrings; i++) {
        free(strings[i]);
    }
    nstrings = 0;
    cj_arena_free(&arena);
}

static void
test_setup(void)
{
    cj_arena_init(&arena);
}

void
unit_add_suite(const char *name, const UnitTest *tests)
{
    CU_pSuite s = CU_add_suite_with_setup_and_teardown(name, NULL, NULL, test_setup,
                                                       test_cleanup);
    if (!s) {
        fprintf(stderr, "unit: cannot add suite %s: %s\n", name, CU_get_error_msg());
        exit(2);
    }
    for (const UnitTest *t = tests; t->name; t++) {
        if (!CU_add_test(s, t->name, t->fn)) {
            fprintf(stderr, "unit: cannot add test %s: %s\n", t->name, CU_get_error_msg());
            exit(2);
        }
    }
}

int
main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "unit: %s\n", CU_get_error_msg());
        return 2;
    }
#define UNIT_ADD(name) add_##name##_suite();
    UNIT_SUITES(UNIT_ADD)
#undef UNIT_ADD
    CU_basic_set_mode(argc > 1 && argv[1][0] == '-' && argv[1][1] == 'q' ? CU_BRM_NORMAL
                                                                           : CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
