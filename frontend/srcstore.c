/* srcstore.c - the source of a function that has no file: one built by
 * exec() / eval() / compile() from a string, or defined in `python -c`.
 *
 * Python keeps no text of such code (linecache has nothing for '<string>').
 * An audit hook, installed when cujit is imported (fe_store_install), sees
 * every `compile` event, which CPython raises with the text and its file
 * name whenever it parses a string.  Texts compiled under a name that is no
 * file on disk are kept in a ring, newest last, bounded by STORE_MAX texts
 * and STORE_BYTES bytes (the oldest go first; a text compiled again moves
 * to the newest place).  `python -c`'s program is sys.orig_argv's.
 *
 * A function whose lines linecache cannot give is looked for there, newest
 * first (fe_store_find): each text of its co_filename that names it is
 * compiled again, with the function's future flags, and accepted only when
 * a code object inside is equal to the function's (CPython's code equality:
 * name, first line, flags, bytecode, constants, names, line and column
 * table), never on a guess. */
#include "fe_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STORE_MAX FE_STORE_TEXTS          /* texts kept at most */
#define STORE_BYTES (8 << 20)           /* their bytes at most */
#define WALK_DEPTH 64                   /* code objects nested in code objects */

typedef struct {
    PyObject *text;     /* bytes (the audit event's) or str */
    PyObject *file;     /* str */
    Py_ssize_t size;
} Entry;

static Entry ring[STORE_MAX];
static int head, count;                 /* the oldest at ring[head] */
static Py_ssize_t bytes;
static int quiet;                       /* > 0 while cujit compiles text itself */

/* text's UTF-8 (bytes as they are) in *p, *n; 0, or -1 (no error left) */
static int
text_of(PyObject *text, const char **p, Py_ssize_t *n)
{
    if (PyBytes_Check(text)) {
        *p = PyBytes_AS_STRING(text);
        *n = PyBytes_GET_SIZE(text);
        return 0;
    }
    *p = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, n) : NULL;
    if (!*p) {
        PyErr_Clear();
        return -1;
    }
    return 0;
}

static Entry *
at(int i)
{
    return &ring[(head + i) % STORE_MAX];
}

/* drops the i-th oldest entry, closing the gap */
static void
drop(int i)
{
    Entry e = *at(i);
    for (int k = i; k < count - 1; k++) {
        *at(k) = *at(k + 1);
    }
    count--;
    bytes -= e.size;
    Py_DECREF(e.text);
    Py_DECREF(e.file);
}

static void
drop_all(void)
{
    while (count > 0) {
        drop(count - 1);
    }
    head = 0;
}

/* is this the name of a file on disk (then linecache reads it) */
static int
names_a_file(PyObject *file)
{
    const char *s = PyUnicode_AsUTF8(file);
    if (!s) {
        PyErr_Clear();
        return 0;
    }
    struct stat st;
    return s[0] != '<' && stat(s, &st) == 0 && S_ISREG(st.st_mode);
}

/* the index of the entry holding this text under this name, or -1 */
static int
find_same(const char *p, Py_ssize_t n, PyObject *file)
{
    for (int i = count - 1; i >= 0; i--) {
        const char *q;
        Py_ssize_t m;
        Entry *e = at(i);
        if (e->size == n && text_of(e->text, &q, &m) == 0 && memcmp(p, q, (size_t)n) == 0
            && PyUnicode_Compare(e->file, file) == 0) {
            return i;
        }
    }
    PyErr_Clear();
    return -1;
}

/* keeps `text` compiled under `file` as the newest entry */
static void
store_add(PyObject *text, PyObject *file)
{
    const char *p;
    Py_ssize_t n;
    if (text_of(text, &p, &n) < 0 || n > STORE_BYTES || names_a_file(file)) {
        return;
    }
    int same = find_same(p, n, file);
    if (same >= 0) {
        drop(same);
    }
    while (count == STORE_MAX || (count > 0 && bytes + n > STORE_BYTES)) {
        drop(0);
    }
    Entry *e = at(count++);
    e->text = Py_NewRef(text);
    e->file = Py_NewRef(file);
    e->size = n;
    bytes += n;
}

/* compile := (source, filename): a text parsed by CPython.  Every other
 * event costs one comparison.  Interpreter shutdown clears the hooks
 * (and the store's references with them). */
static int
audit_hook(const char *event, PyObject *args, void *data)
{
    (void)data;
    if (event[0] != 'c') {
        return 0;
    }
    if (strcmp(event, "compile") == 0 && !quiet && PyTuple_Check(args)
        && PyTuple_GET_SIZE(args) >= 2 && PyUnicode_Check(PyTuple_GET_ITEM(args, 1))) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);        /* the store never changes the error state */
        store_add(PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1));
        PyErr_Restore(type, value, tb);
    } else if (strcmp(event, "cpython._PySys_ClearAuditHooks") == 0) {
        drop_all();
    }
    return 0;
}

/* CUJIT_SOURCE_STORE=0 leaves the hook out (the cost of any audit hook:
 * ARCHITECTURE.md); such functions then have no source, as before. */
void
fe_store_install(void)
{
    static int installed;
    const char *env = getenv("CUJIT_SOURCE_STORE");
    if (env && strcmp(env, "0") == 0) {
        return;
    }
    if (!installed && PySys_AddAuditHook(audit_hook, NULL) == 0) {
        installed = 1;
    }
    PyErr_Clear();      /* another hook refused ours: no store, as before */
}

/* Text parsed by cujit itself (a function's cut source), not stored. */
PyObject *
fe_compile_quiet(const char *src, PyObject *file, int start, PyCompilerFlags *flags)
{
    quiet++;
    PyObject *r = Py_CompileStringObject(src, file, start, flags, -1);
    quiet--;
    return r;
}

/* Does `mod` (a code object) hold `code`, at any depth? */
static int
holds(PyObject *mod, PyCodeObject *code, int depth)
{
    PyObject *consts = ((PyCodeObject *)mod)->co_consts;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++) {
        PyObject *k = PyTuple_GET_ITEM(consts, i);
        if (!PyCode_Check(k)) {
            continue;
        }
        PyCodeObject *c = (PyCodeObject *)k;
        if (c->co_firstlineno == code->co_firstlineno
            && PyUnicode_Compare(c->co_name, code->co_name) == 0
            && PyObject_RichCompareBool(k, (PyObject *)code, Py_EQ) == 1) {
            return 1;
        }
        if (depth < WALK_DEPTH && holds(k, code, depth + 1)) {
            return 1;
        }
    }
    return 0;
}

/* text's lines (ends kept) when, compiled under `file`, it holds `code`;
 * NULL otherwise, with no error left */
static PyObject *
lines_if_holds(PyObject *text, PyObject *file, PyCodeObject *code)
{
    const char *p;
    Py_ssize_t n;
    if (text_of(text, &p, &n) < 0) {
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(code->co_name);
    const char *word = name && strcmp(name, "<lambda>") == 0 ? "lambda" : name;
    if (!word || !strstr(p, word)) {
        PyErr_Clear();
        return NULL;
    }
    PyCompilerFlags cf = _PyCompilerFlags_INIT;
    cf.cf_flags = (code->co_flags & PyCF_MASK) | PyCF_SOURCE_IS_UTF8;
    PyObject *mod = fe_compile_quiet(p, file, Py_file_input, &cf);
    int found = mod && holds(mod, code, 0);
    Py_XDECREF(mod);
    PyObject *str = found ? PyUnicode_DecodeUTF8(p, n, "replace") : NULL;
    PyObject *lines = str ? PyUnicode_Splitlines(str, 1) : NULL;
    Py_XDECREF(str);
    PyErr_Clear();
    return lines;
}

/* `python -c PROGRAM`: PROGRAM (borrowed), or NULL */
static PyObject *
command_text(void)
{
    PyObject *argv = PySys_GetObject("orig_argv");
    if (!argv || !PyList_Check(argv)) {
        return NULL;
    }
    for (Py_ssize_t i = 1; i + 1 < PyList_GET_SIZE(argv); i++) {
        PyObject *a = PyList_GET_ITEM(argv, i);
        if (PyUnicode_Check(a) && PyUnicode_CompareWithASCIIString(a, "-c") == 0) {
            return PyList_GET_ITEM(argv, i + 1);
        }
    }
    return NULL;
}

PyObject *
fe_store_find(PyObject *code)
{
    PyCodeObject *co = (PyCodeObject *)code;
    PyObject *file = co->co_filename;
    for (int i = count - 1; i >= 0; i--) {
        Entry *e = at(i);
        if (PyUnicode_Compare(e->file, file) == 0) {
            PyObject *text = Py_NewRef(e->text);    /* compiling may store texts */
            PyObject *lines = lines_if_holds(text, file, co);
            Py_DECREF(text);
            if (lines) {
                return lines;
            }
        }
        PyErr_Clear();
    }
    PyObject *cmd = command_text();
    if (cmd && PyUnicode_CompareWithASCIIString(file, "<string>") == 0) {
        return lines_if_holds(cmd, file, co);
    }
    return NULL;
}
