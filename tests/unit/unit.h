/* unit.h - CUnit tests of the pure-C parts of cujit.
 *
 * To add a suite: write tests/unit/test_<name>.c exporting
 * `void add_<name>_suite(void)` (usually one call to unit_add_suite) and add
 * X(<name>) to UNIT_SUITES below; main.c runs every suite listed there. */
#ifndef UNIT_H
#define UNIT_H

#include <CUnit/CUnit.h>

#include "cj.h"

#define UNIT_SUITES(X) \
    X(promote) X(weak) X(unify) X(type_str) X(mangle) X(dtype_names) X(signature) X(codegen)

#define UNIT_DECLARE(name) void add_##name##_suite(void);
UNIT_SUITES(UNIT_DECLARE)
#undef UNIT_DECLARE

typedef struct {
    const char *name;
    CU_TestFunc fn;
} UnitTest;

/* registers a suite; tests ends with {NULL, NULL} */
void unit_add_suite(const char *name, const UnitTest *tests);

/* CU_ASSERT_STRING_EQUAL that shows both strings when they differ */
#define UNIT_ASSERT_STR(got, want) unit_assert_str((got), (want), __LINE__, __FILE__)
void unit_assert_str(const char *got, const char *want, unsigned line, const char *file);

/* cj_type_str / cj_type_mangle of t into a buffer the caller frees
 * through unit_free_strings() (called after every test) */
const char *unit_type_str(const Type *t);
const char *unit_type_mangle(const Type *t);
/* an arena for the current test, freed after it */
Arena *unit_arena(void);

#endif
