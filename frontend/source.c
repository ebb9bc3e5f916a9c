/* source.c - finds a function's or a lambda's source text through
 * linecache (or, for a function no file holds, the source store:
 * srcstore.c) and parses it to an AST; source lines for diagnostics. */
#include "fe_impl.h"

#include <string.h>
#include <time.h>

/* a monotonic clock in ms, for the frontend's part of CUJIT_LOG */
static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
indent_of(const char *s)
{
    int k = 0;
    while (s[k] == ' ' || s[k] == '\t') {
        k++;
    }
    return k;
}

/* Where a scan of the lines stands between two lines: the bracket depth,
 * and the quote of a string still open (only a triple-quoted one can be). */
typedef struct {
    int depth;
    char quote;
    int triple;
} Scan;

/* s opens a string: sets the scan's quote; returns the characters taken */
static int
open_string(Scan *sc, const char *s)
{
    sc->quote = *s;
    sc->triple = s[1] == *s && s[2] == *s;
    return sc->triple ? 3 : 1;
}

/* s (inside a string) closes it: returns the characters taken, or 0 */
static int
closes_string(const Scan *sc, const char *s)
{
    if (*s != sc->quote) {
        return 0;
    }
    if (!sc->triple) {
        return 1;
    }
    return s[1] == sc->quote && s[2] == sc->quote ? 3 : 0;
}

/* One line into the scan: brackets counted outside strings and comments,
 * strings followed across lines when triple-quoted (a docstring holding
 * an unmatched bracket). */
static void
scan_line(Scan *sc, const char *s)
{
    while (*s) {
        int k;
        if (sc->quote) {
            if (*s == '\\' && s[1]) {
                s += 2;
            } else if ((k = closes_string(sc, s)) > 0) {
                sc->quote = 0;
                s += k;
            } else {
                s++;
            }
            continue;
        }
        if (*s == '#') {
            break;
        }
        if (*s == '\'' || *s == '"') {
            s += open_string(sc, s);
            continue;
        }
        sc->depth += *s == '(' || *s == '[' || *s == '{';
        sc->depth -= (*s == ')' || *s == ']' || *s == '}') && sc->depth > 0;
        s++;
    }
    if (!sc->triple) {
        sc->quote = 0;      /* a one-quote string ends with its line */
    }
}

static int
blank_or_comment(const char *s)
{
    s += indent_of(s);
    return *s == '\0' || *s == '\n' || *s == '\r' || *s == '#';
}

/* Appends line `l` less `k` columns of indentation (less all of it if it
 * has fewer), ending in a newline. */
static void
put_dedented(Buf *b, const char *l, int k)
{
    buf_puts(b, indent_of(l) >= k ? l + k : l + indent_of(l));
    if (b->len == 0 || b->s[b->len - 1] != '\n') {
        buf_putc(b, '\n');
    }
}

/* The text cut from lines [from, ...) dedented by k, copied into the arena;
 * AST locations in it map back to the file through f->line0 and f->dedent. */
static const char *
cut_source(Fe *f, Buf *b, int from, int k)
{
    f->line0 = from;
    f->dedent = k;
    char *s = cj_strdup(f->cx->arena, b->s ? b->s : "");
    buf_free(b);
    return s;
}

/* The function's block (decorators, def and body) cut from the file's lines
 * and dedented, as Python source; sets f->line0 and f->dedent. */
const char *
fe_function_source(Fe *f, PyObject *lines, int first)
{
    double t0 = now_ms();
    Py_ssize_t nl = PyList_GET_SIZE(lines);
    Buf b;
    buf_init(&b);
    const char *l0 = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, first));
    int k = l0 ? indent_of(l0) : 0;
    int seen_def = 0;
    Scan sc = {0, 0, 0};
    for (Py_ssize_t i = first; i < nl; i++) {
        const char *l = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, i));
        if (!l) {
            PyErr_Clear();
            break;
        }
        int code = sc.depth == 0 && !sc.quote;     /* not inside brackets or a string */
        if (i > first && code && seen_def && !blank_or_comment(l) && indent_of(l) <= k) {
            break;
        }
        const char *t = l + indent_of(l);
        if (code && (strncmp(t, "def ", 4) == 0 || strncmp(t, "async def ", 10) == 0)) {
            seen_def = 1;
        }
        scan_line(&sc, l);
        put_dedented(&b, l, k);
    }
    const char *src = cut_source(f, &b, first, k);
    f->cx->ms_source += now_ms() - t0;
    return src;
}

/* module := [decorators] 'def' name '(' params ')' ':' block
 * The function's cut source parsed to an AST; returns its FunctionDef
 * (an async def is refused). */
PyObject *
fe_parse_source(Fe *f, const char *src, PyObject *filename)
{
    PyCompilerFlags flags = _PyCompilerFlags_INIT;
    flags.cf_flags = PyCF_ONLY_AST;
    double t0 = now_ms();
    PyObject *mod = fe_compile_quiet(src, filename, Py_file_input, &flags);
    f->cx->ms_parse += now_ms() - t0;
    if (!mod) {
        Loc l = {f->line0 + 1, 0, 0};
        fe_fail_py(f, l, "cujit could not parse the function's source");
    }
    fe_keep(f, mod);
    PyObject *body = fe_get(f, mod, S_body);
    if (PyList_GET_SIZE(body) >= 1 && fe_is(PyList_GET_ITEM(body, 0), A_AsyncFunctionDef)) {
        fe_fail(f, fe_loc_of(f, PyList_GET_ITEM(body, 0)), "async functions are not supported "
                "as kernels; use a plain def");
    }
    if (PyList_GET_SIZE(body) < 1 || (!fe_is(PyList_GET_ITEM(body, 0), A_FunctionDef))) {
        Loc l = {f->line0 + 1, 0, 0};
        fe_fail(f, l, "cujit could not find the function's definition in its source");
    }
    return PyList_GET_ITEM(body, 0);
}

/* Notes where a function's lines came from when no file holds them: by
 * its code (a device function read again, functions defined in it) and by
 * the address of its Func's file name (the caret of an error there). */
static void
note_text(Fe *f, PyObject *code, PyObject *lines)
{
    PyObject *at = fe_keep(f, PyLong_FromVoidPtr((void *)f->file));
    if (!at || PyDict_SetItem(f->cx->texts, code, lines) < 0
        || PyDict_SetItem(f->cx->texts, at, lines) < 0) {
        Loc none = {0, 0, 0};
        fe_fail_py(f, none, "cujit");
    }
    f->text_lines = lines;
}

/* The lines of a function no file holds: seen before in this compilation,
 * or found in the source store (srcstore.c). */
static PyObject *
text_lines(Fe *f, PyObject *code)
{
    Loc none = {0, 0, 0};
    if (!f->cx->texts && !(f->cx->texts = fe_keep(f, PyDict_New()))) {
        fe_fail_py(f, none, "cujit");
    }
    PyObject *lines = PyDict_GetItemWithError(f->cx->texts, code);
    if (!lines && !PyErr_Occurred()) {
        lines = fe_keep(f, fe_store_find(code));
    }
    if (!lines) {
        PyErr_Clear();
        fe_fail(f, none, "cujit could not find the source of function '%s' in '%s': Python keeps "
                "no text of it. Define the kernel in a file, or build it with exec() or "
                "compile() from a string after `import cujit` (cujit keeps the last %d such "
                "texts); code read from standard input (the >>> prompt, `python -`) has none",
                f->fn->name, f->file, FE_STORE_TEXTS);
    }
    note_text(f, code, lines);
    return lines;
}

/* Finds the function's lines through linecache (what inspect does, without
 * tokenizing the whole file), else in the texts Python compiled from strings. */
PyObject *
fe_source_lines(Fe *f, PyObject *code, PyObject *filename, int *first)
{
    double t0 = now_ms();
    PyObject *lines = PyObject_CallFunctionObjArgs(fe_linecache_getlines, filename,
                                                   f->globals, NULL);
    Loc none = {0, 0, 0};
    if (!lines) {
        fe_fail_py(f, none, "cujit could not read the kernel's source");
    }
    fe_keep(f, lines);
    *first = fe_get_int(f, code, S_co_firstlineno) - 1;
    if (!PyList_Check(lines) || *first < 0 || *first >= PyList_GET_SIZE(lines)) {
        lines = text_lines(f, code);
    }
    f->cx->ms_source += now_ms() - t0;
    if (*first < 0 || *first >= PyList_GET_SIZE(lines)) {
        fe_fail(f, none, "cujit could not find line %d of '%s', where function '%s' starts",
                *first + 1, f->file, f->fn->name);
    }
    return lines;
}

/* Lines [from, from + n) dedented by the first one's indentation. */
static const char *
chunk(Fe *f, PyObject *lines, int from, int n)
{
    Buf b;
    buf_init(&b);
    const char *l0 = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, from));
    int k = l0 ? indent_of(l0) : 0;
    for (int i = from; i < from + n && i < PyList_GET_SIZE(lines); i++) {
        const char *l = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, i));
        if (!l) {
            PyErr_Clear();
            break;
        }
        put_dedented(&b, l, k);
    }
    return cut_source(f, &b, from, k);
}

/* does this Lambda node take the code object's parameters? */
static int
lambda_matches(Fe *f, PyObject *lam, PyObject *code)
{
    PyObject *args = fe_get(f, fe_get(f, lam, S_args), S_args);
    PyObject *varnames = fe_get(f, code, S_co_varnames);
    int argc = fe_get_int(f, code, S_co_argcount);
    if (PyList_GET_SIZE(args) != argc || PyTuple_GET_SIZE(varnames) < argc) {
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        int eq = PyObject_RichCompareBool(fe_get(f, PyList_GET_ITEM(args, i), S_arg),
                                          PyTuple_GET_ITEM(varnames, i), Py_EQ);
        if (eq != 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* do two code objects hold the same bytecode, names and constants? */
static int
code_equal(PyObject *k, PyObject *code)
{
    static const char *const attrs[] = {"co_code", "co_names", "co_consts"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        PyObject *a = PyObject_GetAttrString(k, attrs[i]);
        PyObject *b = PyObject_GetAttrString(code, attrs[i]);
        int eq = a && b && PyObject_RichCompareBool(a, b, Py_EQ) == 1;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (!eq) {
            return 0;
        }
    }
    return 1;
}

/* Several lambdas with these parameters on one line: the one whose compiled
 * code is the function's. */
static int
same_code(Fe *f, PyObject *lam, PyObject *code, PyObject *filename)
{
    int same = 0;
    PyObject *astmod = PyImport_ImportModule("ast");
    PyObject *ex = astmod ? PyObject_CallMethod(astmod, "Expression", "O", lam) : NULL;
    PyObject *fixed = ex ? PyObject_CallMethod(astmod, "fix_missing_locations", "O", ex) : NULL;
    PyObject *builtins = PyImport_ImportModule("builtins");
    PyObject *c = fixed && builtins ? PyObject_CallMethod(builtins, "compile", "OOs", fixed,
                                                         filename, "eval") : NULL;
    PyObject *consts = c ? PyObject_GetAttrString(c, "co_consts") : NULL;
    if (consts && PyTuple_Check(consts)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts) && !same; i++) {
            PyObject *k = PyTuple_GET_ITEM(consts, i);
            if (PyCode_Check(k)) {
                same = code_equal(k, code);
            }
        }
    }
    Py_XDECREF(consts);
    Py_XDECREF(c);
    Py_XDECREF(builtins);
    Py_XDECREF(fixed);
    Py_XDECREF(ex);
    Py_XDECREF(astmod);
    PyErr_Clear();
    (void)f;
    return same;
}

/* The Lambda node of a lambda function: the smallest run of lines around
 * its first line that parses, searched for a lambda with its parameters. */
PyObject *
fe_find_lambda(Fe *f, PyObject *lines, int first, PyObject *code, PyObject *filename)
{
    PyCompilerFlags flags = _PyCompilerFlags_INIT;
    flags.cf_flags = PyCF_ONLY_AST;
    for (int back = 0; back <= 10 && first - back >= 0; back++) {
        for (int n = back + 1; n <= back + 40 && first - back + n <= PyList_GET_SIZE(lines); n++) {
            const char *src = chunk(f, lines, first - back, n);
            double t0 = now_ms();
            PyObject *mod = fe_compile_quiet(src, filename, Py_file_input, &flags);
            f->cx->ms_parse += now_ms() - t0;
            if (!mod) {
                PyErr_Clear();
                continue;
            }
            fe_keep(f, mod);
            PyObject *it = PyObject_CallOneArg(fe_ast_walk, mod);
            PyObject *list = it ? PySequence_List(it) : NULL;
            Py_XDECREF(it);
            if (!list) {
                Loc l = {first + 1, 0, 0};
                fe_fail_py(f, l, "cujit could not read the lambda's source");
            }
            fe_keep(f, list);
            PyObject *found = NULL;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
                PyObject *node = PyList_GET_ITEM(list, i);
                if (fe_is(node, A_Lambda) && lambda_matches(f, node, code)) {
                    if (!found || same_code(f, node, code, filename)) {
                        found = node;
                    }
                }
            }
            if (found) {
                f->fn->src_hash = cj_hash64(src, strlen(src), 0);
                return found;
            }
            break;      /* it parsed but holds no such lambda: look further back */
        }
    }
    Loc l = {first + 1, 0, 0};
    fe_fail(f, l, "cujit could not find the source of this lambda; define the function with def");
}

/* Line `line` of `file` (1-based, through linecache) into out[n]; -1 and an
 * empty string when there is none.  Never leaves a Python error set. */
int
fe_source_line(const char *file, int line, char *out, size_t n)
{
    out[0] = '\0';
    if (fe_init() < 0) {
        PyErr_Clear();
        return -1;
    }
    PyObject *lines = PyObject_CallFunction(fe_linecache_getlines, "s", file);
    if (!lines) {
        PyErr_Clear();
        return -1;
    }
    int ok = PyList_Check(lines) && line >= 1 && line <= PyList_GET_SIZE(lines);
    if (ok) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, line - 1));
        if (s) {
            snprintf(out, n, "%s", s);
        } else {
            PyErr_Clear();
        }
    }
    Py_DECREF(lines);
    return ok ? 0 : -1;
}

/* Line `line` of `file` for the caret of an error in this compilation:
 * from the lines of a function no file holds (note_text) when `file` is
 * that function's name, else through linecache. */
int
fe_error_line(const FeCtx *cx, const char *file, int line, char *out, size_t n)
{
    PyObject *at = cx->texts ? PyLong_FromVoidPtr((void *)file) : NULL;
    PyObject *lines = at ? PyDict_GetItemWithError(cx->texts, at) : NULL;
    Py_XDECREF(at);
    PyErr_Clear();
    if (!lines) {
        return fe_source_line(file, line, out, n);
    }
    out[0] = '\0';
    if (line < 1 || line > PyList_GET_SIZE(lines)) {
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(lines, line - 1));
    if (!s) {
        PyErr_Clear();
        return -1;
    }
    snprintf(out, n, "%s", s);
    return 0;
}
