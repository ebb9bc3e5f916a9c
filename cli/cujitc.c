/* cujitc - prints the CUDA C++ (or PTX, or writes the CUBIN) that cujit makes
 * of the kernels in a Python file.  Needs no GPU.
 *
 *   cujitc FILE.py [--kernel NAME]... [--sig SIG] [--ptx | --cubin -o OUT]
 *          [--arch sm_XY] [-o OUT]
 *
 * It embeds CPython, puts the repository root (the directory holding this
 * executable) first on sys.path, imports cujit, runs FILE.py with
 * runpy.run_path and asks each cujit.Kernel found in its namespace for
 * inspect_cuda / inspect_ptx / inspect_cubin.  Exit status: 0 done, 1 an
 * error in the file or a compile error (printed as Python prints a
 * SyntaxError), 2 a usage error. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KERNELS 64

typedef enum { OUT_CUDA, OUT_PTX, OUT_CUBIN } OutKind;

typedef struct {
    const char *file;
    const char *kernels[MAX_KERNELS];   /* --kernel, none: all */
    int nkernels;
    const char *sig;
    const char *arch;
    const char *out;
    OutKind what;
} Options;

/* one kernel and one signature to print */
typedef struct {
    const char *name;
    PyObject *kernel;       /* borrowed from the namespace */
    PyObject *sig;          /* a str, or a tuple of arguments; owned */
} Job;

static const char usage_text[] =
    "usage: cujitc FILE.py [--kernel NAME]... [--sig SIGNATURE] [--ptx | --cubin]\n"
    "              [--arch sm_XY] [-o OUT]\n"
    "\n"
    "Prints the CUDA C++ cujit generates for the kernels in FILE.py.\n"
    "\n"
    "  --kernel NAME   only this kernel (repeatable; default: every kernel)\n"
    "  --sig SIG       argument types, e.g. \"(float32, float32[:], int64)\";\n"
    "                  without it, the signatures the file already compiled\n"
    "  --ptx           print PTX (NVRTC) instead of CUDA C++\n"
    "  --cubin         write the CUBIN to OUT (needs -o and one kernel)\n"
    "  --arch sm_XY    target architecture for --ptx / --cubin\n"
    "  -o OUT          write to OUT instead of standard output\n"
    "  -h, --help      this text\n";

static void
usage_error(const char *fmt, const char *arg)
{
    fputs("cujitc: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n\n", stderr);
    fputs(usage_text, stderr);
}

/* the value of an option that takes one: "--sig X" or "--sig=X" */
static const char *
option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (argv[*i][n] == '=') {
        return argv[*i] + n + 1;
    }
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static int
is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* where the value of option `arg` goes; NULL if it is not one */
static const char **
valued_slot(Options *o, const char *arg, const char **name)
{
    if (is_option(arg, "--kernel") && o->nkernels < MAX_KERNELS) {
        *name = "--kernel";
        return &o->kernels[o->nkernels++];
    }
    static const char *const names[] = {"--sig", "--arch", "-o"};
    const char **slots[] = {&o->sig, &o->arch, &o->out};
    for (int k = 0; k < 3; k++) {
        if (is_option(arg, names[k])) {
            *name = names[k];
            return slots[k];
        }
    }
    return NULL;
}

/* one option with a value; 0, or 2 for a usage error */
static int
parse_valued(int argc, char **argv, int *i, Options *o)
{
    const char *name;
    const char **slot = valued_slot(o, argv[*i], &name);
    if (!slot) {
        usage_error("unknown option (or too many --kernel): '%s'", argv[*i]);
        return 2;
    }
    *slot = option_value(argc, argv, i, name);
    return *slot ? 0 : 2;
}

/* Fills o from argv; returns 0, 2 for a usage error, -1 after --help. */
static int
parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return -1;
        } else if (strcmp(a, "--ptx") == 0) {
            o->what = OUT_PTX;
        } else if (strcmp(a, "--cubin") == 0) {
            o->what = OUT_CUBIN;
        } else if (a[0] == '-' && a[1] != '\0') {
            if (parse_valued(argc, argv, &i, o)) {
                return 2;
            }
        } else if (o->file) {
            usage_error("one FILE.py only (got another: '%s')", a);
            return 2;
        } else {
            o->file = a;
        }
    }
    if (!o->file) {
        usage_error("no FILE.py given%s", "");
        return 2;
    }
    if (o->what == OUT_CUBIN && !o->out) {
        usage_error("--cubin writes a binary: give the file with -o OUT%s", "");
        return 2;
    }
    return 0;
}

/* the directory holding this executable (via /proc/self/exe) */
static int
exe_dir(const char *argv0, char *out, size_t n)
{
    char path[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    if (len > 0) {
        path[len] = '\0';
    } else if (!realpath(argv0, path)) {
        return -1;
    }
    char *slash = strrchr(path, '/');
    if (!slash) {
        return -1;
    }
    *slash = '\0';
    snprintf(out, n, "%s", path[0] ? path : "/");
    return 0;
}

/* an embedded interpreter with sys.argv = [file]; site-packages as usual */
static int
init_python(const char *argv0, const char *file)
{
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.parse_argv = 0;
    char *args[] = {(char *)file};
    PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, argv0);
    if (!PyStatus_Exception(st)) {
        st = PyConfig_SetBytesArgv(&config, 1, args);
    }
    if (!PyStatus_Exception(st)) {
        st = Py_InitializeFromConfig(&config);
    }
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st)) {
        fprintf(stderr, "cujitc: cannot start Python: %s\n", st.err_msg ? st.err_msg : "?");
        return -1;
    }
    return 0;
}

/* sys.path.insert(pos, dir) */
static int
sys_path_insert(int pos, const char *dir)
{
    PyObject *path = PySys_GetObject("path");   /* borrowed */
    PyObject *d = PyUnicode_DecodeFSDefault(dir);
    int r = (path && d) ? PyList_Insert(path, pos, d) : -1;
    Py_XDECREF(d);
    return r;
}

/* repository root first on sys.path, then the file's directory */
static int
setup_path(const char *argv0, const char *file)
{
    char root[PATH_MAX], fdir[PATH_MAX];
    if (exe_dir(argv0, root, sizeof root) < 0) {
        fprintf(stderr, "cujitc: cannot find the directory of this executable\n");
        return -1;
    }
    if (!realpath(file, fdir)) {
        fprintf(stderr, "cujitc: %s: %s\n", file, strerror(errno));
        return -1;
    }
    *strrchr(fdir, '/') = '\0';
    if (sys_path_insert(0, root) < 0 || sys_path_insert(1, fdir[0] ? fdir : "/") < 0) {
        return -1;
    }
    return 0;
}

/* a CompileError's text, if missing, from the file it names */
static void
fill_source_line(PyObject *exc)
{
    PyObject *text = PyObject_GetAttrString(exc, "text");
    if (text && text != Py_None) {
        Py_DECREF(text);
        return;
    }
    Py_XDECREF(text);
    PyErr_Clear();
    PyObject *lc = PyImport_ImportModule("linecache");
    PyObject *fn = PyObject_GetAttrString(exc, "filename");
    PyObject *ln = PyObject_GetAttrString(exc, "lineno");
    PyObject *line = NULL;
    if (lc && fn && ln && fn != Py_None && ln != Py_None) {
        line = PyObject_CallMethod(lc, "getline", "OO", fn, ln);
    }
    if (line && PyUnicode_Check(line) && PyUnicode_GetLength(line) > 0) {
        PyObject_SetAttrString(exc, "text", line);
    }
    PyErr_Clear();
    Py_XDECREF(line);
    Py_XDECREF(ln);
    Py_XDECREF(fn);
    Py_XDECREF(lc);
}

/* prints a SyntaxError-like exception as Python does: file:line, source,
 * caret, message (no frames of cujitc's own calls) */
static void
print_compile_error(PyObject *exc)
{
    fill_source_line(exc);
    PyObject *tb = PyImport_ImportModule("traceback");
    PyObject *lines = tb ? PyObject_CallMethod(tb, "format_exception_only", "OO",
                                               (PyObject *)Py_TYPE(exc), exc) : NULL;
    PyObject *sep = PyUnicode_FromString("");
    PyObject *text = (lines && sep) ? PyUnicode_Join(sep, lines) : NULL;
    if (text) {
        fputs(PyUnicode_AsUTF8(text), stderr);
    } else {
        PyErr_Print();
    }
    Py_XDECREF(text);
    Py_XDECREF(sep);
    Py_XDECREF(lines);
    Py_XDECREF(tb);
}

/* the pending exception, normalised, its traceback attached; cleared */
static PyObject *
take_exception(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb) {
        PyException_SetTraceback(value, tb);
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

/* Prints the pending exception: a compile error (cujit.CompileError is a
 * SyntaxError) as Python prints a SyntaxError, without cujitc's frames;
 * anything else with its traceback.  Returns 1, the exit status. */
static int
report_error(void)
{
    PyObject *exc = take_exception();
    if (!exc) {
        return 1;
    }
    if (PyObject_IsInstance(exc, PyExc_SyntaxError) == 1) {
        print_compile_error(exc);
        Py_DECREF(exc);
    } else {
        PyObject *type = (PyObject *)Py_TYPE(exc);
        Py_INCREF(type);
        PyErr_Restore(type, exc, PyException_GetTraceback(exc));
        PyErr_Print();
    }
    fflush(stderr);
    return 1;
}

/* the namespace FILE.py leaves behind */
static PyObject *
run_file(const char *file)
{
    PyObject *runpy = PyImport_ImportModule("runpy");
    if (!runpy) {
        return NULL;
    }
    PyObject *ns = PyObject_CallMethod(runpy, "run_path", "s", file);
    Py_DECREF(runpy);
    return ns;
}

/* was `name` asked for with --kernel (or were none asked for)? */
static int
wanted(const Options *o, const char *name)
{
    if (o->nkernels == 0) {
        return 1;
    }
    for (int i = 0; i < o->nkernels; i++) {
        if (strcmp(o->kernels[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* the signatures a kernel compiled while the file ran: k.signatures; a
 * kernel without that attribute gets [()]: inspect_cuda() with no argument */
static PyObject *
compiled_signatures(PyObject *k)
{
    PyObject *sigs = PyObject_GetAttrString(k, "signatures");
    if (!sigs) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return NULL;
        }
        PyErr_Clear();
        return Py_BuildValue("[()]");
    }
    PyObject *list = PySequence_List(sigs);
    Py_DECREF(sigs);
    return list;
}

static int
add_job(Job *jobs, int *njobs, const char *name, PyObject *k, PyObject *sig)
{
    if (*njobs == MAX_KERNELS * 8) {
        fprintf(stderr, "cujitc: too many kernels and signatures\n");
        return -1;
    }
    Py_INCREF(sig);
    jobs[*njobs] = (Job){name, k, sig};
    ++*njobs;
    return 0;
}

/* one job per signature of kernel k: --sig, or what the file compiled */
static int
kernel_jobs(const Options *o, const char *name, PyObject *k, Job *jobs, int *njobs)
{
    if (o->sig) {
        PyObject *s = PyUnicode_FromString(o->sig);
        int r = s ? add_job(jobs, njobs, name, k, s) : -1;
        Py_XDECREF(s);
        return r;
    }
    PyObject *sigs = compiled_signatures(k);
    if (!sigs) {
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(sigs);
    if (n == 0) {
        fprintf(stderr, "cujitc: kernel '%s' was not compiled in %s: give its argument types "
                "with --sig \"(float32, float32[:], ...)\"\n", name, o->file);
        Py_DECREF(sigs);
        return -2;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (add_job(jobs, njobs, name, k, PyList_GET_ITEM(sigs, i)) < 0) {
            Py_DECREF(sigs);
            return -1;
        }
    }
    Py_DECREF(sigs);
    return 0;
}

/* a device function (k.device): compiled into the kernels calling it */
static int
is_device_function(PyObject *k)
{
    PyObject *d = PyObject_GetAttrString(k, "device");
    int r = d ? PyObject_IsTrue(d) == 1 : 0;
    Py_XDECREF(d);
    PyErr_Clear();
    return r;
}

/* the kernels in ns, in definition order, each once; device functions only
 * when named with --kernel */
static int
collect_jobs(const Options *o, PyObject *ns, PyObject *ktype, Job *jobs, int *njobs)
{
    PyObject *key, *val, *seen = PySet_New(NULL);
    Py_ssize_t pos = 0;
    int r = 0;
    while (seen && r == 0 && PyDict_Next(ns, &pos, &key, &val)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name || PyObject_IsInstance(val, ktype) != 1 || !wanted(o, name)
            || (o->nkernels == 0 && is_device_function(val))
            || PySet_Contains(seen, val) == 1) {
            PyErr_Clear();
            continue;
        }
        r = PySet_Add(seen, val) < 0 ? -1 : kernel_jobs(o, name, val, jobs, njobs);
    }
    Py_XDECREF(seen);
    return seen ? r : -1;
}

/* every --kernel NAME must be in the file */
static int
check_names(const Options *o, const Job *jobs, int njobs)
{
    for (int i = 0; i < o->nkernels; i++) {
        int found = 0;
        for (int j = 0; j < njobs && !found; j++) {
            found = strcmp(jobs[j].name, o->kernels[i]) == 0;
        }
        if (!found) {
            fprintf(stderr, "cujitc: no cujit kernel named '%s' in %s\n", o->kernels[i], o->file);
            return 2;
        }
    }
    return 0;
}

/* k.inspect_cuda(sig) / inspect_ptx(sig, arch=) / inspect_cubin(sig, arch=) */
static PyObject *
inspect(const Options *o, const Job *j)
{
    static const char *const methods[] = {"inspect_cuda", "inspect_ptx", "inspect_cubin"};
    int want_kw = o->arch && o->what != OUT_CUDA;
    PyObject *meth = PyObject_GetAttrString(j->kernel, methods[o->what]);
    PyObject *args = PyTuple_Check(j->sig) ? Py_NewRef(j->sig) : PyTuple_Pack(1, j->sig);
    PyObject *kw = want_kw ? Py_BuildValue("{ss}", "arch", o->arch) : NULL;
    PyObject *res = NULL;
    if (meth && args && (kw || !want_kw)) {
        res = PyObject_Call(meth, args, kw);
    }
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_XDECREF(meth);
    return res;
}

/* the bytes of a str (UTF-8) or bytes result */
static int
result_bytes(PyObject *res, const char **p, Py_ssize_t *n)
{
    if (PyUnicode_Check(res)) {
        *p = PyUnicode_AsUTF8AndSize(res, n);
        return *p ? 0 : -1;
    }
    if (PyBytes_Check(res)) {
        *p = PyBytes_AS_STRING(res);
        *n = PyBytes_GET_SIZE(res);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "cujitc: inspect returned %.100s, not str or bytes",
                 Py_TYPE(res)->tp_name);
    return -1;
}

/* a "// kernel NAME, signature SIG" line before each of several outputs */
static void
print_header(FILE *f, const Job *j)
{
    PyObject *s = PyObject_Str(j->sig);
    fprintf(f, "// ---- kernel %s, signature %s ----\n", j->name, s ? PyUnicode_AsUTF8(s) : "?");
    Py_XDECREF(s);
    PyErr_Clear();
}

/* runs every job, writing to f; 0 or -1 with an exception */
static int
run_jobs(const Options *o, const Job *jobs, int njobs, FILE *f)
{
    for (int i = 0; i < njobs; i++) {
        PyObject *res = inspect(o, &jobs[i]);
        const char *p;
        Py_ssize_t n;
        if (!res || result_bytes(res, &p, &n) < 0) {
            Py_XDECREF(res);
            return -1;
        }
        if (njobs > 1) {
            print_header(f, &jobs[i]);
        }
        fwrite(p, 1, (size_t)n, f);
        if (o->what != OUT_CUBIN && (n == 0 || p[n - 1] != '\n')) {
            fputc('\n', f);
        }
        Py_DECREF(res);
    }
    return 0;
}

/* writes the outputs to -o OUT or stdout; 0, 1 on an error */
static int
write_outputs(const Options *o, const Job *jobs, int njobs)
{
    FILE *f = o->out ? fopen(o->out, o->what == OUT_CUBIN ? "wb" : "w") : stdout;
    if (!f) {
        fprintf(stderr, "cujitc: cannot write %s: %s\n", o->out, strerror(errno));
        return 1;
    }
    int r = run_jobs(o, jobs, njobs, f);
    if (o->out && fclose(f) != 0 && r == 0) {
        fprintf(stderr, "cujitc: cannot write %s: %s\n", o->out, strerror(errno));
        return 1;
    }
    fflush(stdout);
    return r < 0 ? report_error() : 0;
}

/* gathers the jobs from the file's namespace and runs them; the exit status */
static int
process(const Options *o, PyObject *cujit, PyObject *ns)
{
    static Job jobs[MAX_KERNELS * 8];
    int njobs = 0, status;
    PyObject *ktype = PyObject_GetAttrString(cujit, "Kernel");
    if (!ktype) {
        return report_error();
    }
    int r = collect_jobs(o, ns, ktype, jobs, &njobs);
    Py_DECREF(ktype);
    if (r == -1) {
        status = report_error();
    } else if (r == -2) {
        status = 2;
    } else if ((status = check_names(o, jobs, njobs)) == 0) {
        if (njobs == 0) {
            fprintf(stderr, "cujitc: no cujit kernels in %s\n", o->file);
            status = 1;
        } else if (o->what == OUT_CUBIN && njobs > 1) {
            fprintf(stderr, "cujitc: --cubin writes one kernel and signature; choose them "
                    "with --kernel and --sig\n");
            status = 2;
        } else {
            status = write_outputs(o, jobs, njobs);
        }
    }
    for (int i = 0; i < njobs; i++) {
        Py_DECREF(jobs[i].sig);
    }
    return status;
}

/* import cujit, run the file, print; the exit status */
static int
run(const Options *o, const char *argv0)
{
    if (setup_path(argv0, o->file) < 0) {
        if (PyErr_Occurred()) {
            PyErr_Print();
        }
        return 1;
    }
    PyObject *cujit = PyImport_ImportModule("cujit");
    if (!cujit) {
        report_error();
        fprintf(stderr, "cujitc: cannot import cujit (is the extension built? run make)\n");
        return 1;
    }
    PyObject *ns = run_file(o->file);
    int status = ns ? process(o, cujit, ns) : report_error();
    Py_XDECREF(ns);
    Py_DECREF(cujit);
    return status;
}

int
main(int argc, char **argv)
{
    Options o;
    int r = parse_args(argc, argv, &o);
    if (r != 0) {
        return r < 0 ? 0 : r;
    }
    if (access(o.file, R_OK) != 0) {
        fprintf(stderr, "cujitc: %s: %s\n", o.file, strerror(errno));
        return 2;
    }
    if (init_python(argv[0], o.file) < 0) {
        return 1;
    }
    int status = run(&o, argv[0]);
    if (Py_FinalizeEx() < 0 && status == 0) {
        status = 1;
    }
    return status;
}
