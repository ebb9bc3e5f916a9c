/* dtype.c - dtypes as the outside world spells them: CAI typestrs, buffer
 * formats, DLPack codes, NumPy dtype objects, torch dtypes, names; NumPy's
 * structured dtypes as record dtypes; and Python numbers as the bytes of
 * one element. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "rt_impl.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "cujit's runtime assumes a little-endian host"
#endif

static const char *const typestrs[DT_COUNT] = {
    [DT_BOOL] = "|b1", [DT_I8] = "|i1", [DT_I16] = "<i2", [DT_I32] = "<i4", [DT_I64] = "<i8",
    [DT_U8] = "|u1", [DT_U16] = "<u2", [DT_U32] = "<u4", [DT_U64] = "<u8",
    [DT_F16] = "<f2", [DT_F32] = "<f4", [DT_F64] = "<f8", [DT_C64] = "<c8", [DT_C128] = "<c16",
    [DT_BF16] = "<V2",      /* as ml_dtypes' arrays give it: NumPy has no bfloat16 code */
};

const char *
rt_dtype_typestr(DType dt)
{
    return cj_is_record(dt) ? rt_record_typestr(dt) : typestrs[dt];
}

static int
from_kind_size(char kind, int size, DType *out)
{
    for (int i = 0; i < DT_COUNT; i++) {
        if (cj_dtypes[i].kind == kind && cj_dtypes[i].size == size) {
            *out = (DType)i;
            return 0;
        }
    }
    return -1;
}

/* "<M8[D]", "<m8[s]", "<M8": a datetime64 / timedelta64 typestr (a CuPy
 * array's), read as its int64 counts as NumPy's arrays are (no exception) */
static int
datetime_typestr(const char *s, DType *out)
{
    if ((s[0] != 'M' && s[0] != 'm') || s[1] != '8') {
        return -1;
    }
    s += 2;
    if (*s == '[') {
        s += strcspn(s, "]");
        s += *s == ']';
    }
    if (*s) {
        return -1;
    }
    *out = DT_I64;
    return 0;
}

/* "<f4", "|b1", "=i8", "f4" (no exception) */
static int
parse_typestr(const char *s, DType *out)
{
    char kind;
    int size = 0;
    if (*s == '<' || *s == '|' || *s == '=') {
        s++;
    } else if (*s == '>') {
        if (s[2] != '1' || s[3] != '\0') {
            return -1;          /* big-endian data */
        }
        s++;
    }
    if (datetime_typestr(s, out) == 0) {
        return 0;
    }
    kind = *s++;
    if (kind == '?') {
        kind = 'b';
        size = 1;
    }
    if (*s < '1' || *s > '9') {
        if (*s || !size) {
            return -1;
        }
    }
    while (*s >= '0' && *s <= '9' && size < 1000) {
        size = size * 10 + (*s++ - '0');
    }
    if (*s) {
        return -1;
    }
    return from_kind_size(kind, size, out);
}

int
rt_dtype_from_typestr(const char *s, DType *out)
{
    if (parse_typestr(s, out) < 0) {
        PyErr_Format(PyExc_TypeError, "unsupported array typestr '%s'", s);
        return -1;
    }
    return 0;
}

int
rt_dtype_from_format(const char *fmt, Py_ssize_t itemsize, DType *out)
{
    const char *f = fmt ? fmt : "B";
    char kind = 0;
    if (*f == '@' || *f == '=' || *f == '<') {
        f++;
    } else if ((*f == '>' || *f == '!') && itemsize > 1) {
        goto bad;
    } else if (*f == '>' || *f == '!') {
        f++;
    }
    switch (*f) {
    case '?':
        kind = 'b';
        break;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        kind = 'i';
        break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
        kind = 'u';
        break;
    case 'e': case 'f': case 'd':
        kind = 'f';
        break;
    case 'Z':
        f++;
        kind = *f == 'e' || *f == 'f' || *f == 'd' ? 'c' : 0;
        break;
    default:
        break;
    }
    if (!kind || f[1] != '\0' || from_kind_size(kind, (int)itemsize, out) < 0) {
        goto bad;
    }
    return 0;
bad:
    PyErr_Format(PyExc_TypeError, "unsupported buffer format '%s' (itemsize %zd)", fmt, itemsize);
    return -1;
}

/* 1 when o (an array or a NumPy scalar) has a datetime64 or timedelta64
 * dtype (kind 'M' or 'm'); never an exception */
int
rt_is_datetime(PyObject *o)
{
    PyObject *d = PyObject_GetAttrString(o, "dtype");
    PyObject *k = d ? PyObject_GetAttrString(d, "kind") : NULL;
    int r = k && PyUnicode_Check(k) && (PyUnicode_CompareWithASCIIString(k, "M") == 0
                                        || PyUnicode_CompareWithASCIIString(k, "m") == 0);
    Py_XDECREF(d);
    Py_XDECREF(k);
    PyErr_Clear();
    return r;
}

/* NumPy's datetime64 / timedelta64 arrays export no buffer ("cannot include
 * dtype 'M' in a buffer"); cujit reads them as their int64 counts, a view
 * of the same memory (so results written in place come back).  Called
 * where o's buffer failed: the view (new reference), or NULL with the
 * buffer's own error again when o is not such an array. */
PyObject *
rt_datetime_counts(PyObject *o)
{
    Py_buffer v;
    PyErr_Clear();
    if (rt_is_datetime(o)) {
        return PyObject_CallMethod(o, "view", "s", "int64");
    }
    if (rt_is_bfloat16(o)) {
        return PyObject_CallMethod(o, "view", "s", "uint16");
    }
    if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) == 0) {
        PyBuffer_Release(&v);
        PyErr_Format(PyExc_TypeError, "the buffer of a %s failed once", Py_TYPE(o)->tp_name);
    }
    return NULL;
}

/* d is ml_dtypes' bfloat16 dtype (its name; NumPy calls it '<V2'); never
 * an exception */
static int
is_bf16_dtype(PyObject *d)
{
    PyObject *n = PyObject_GetAttrString(d, "name");
    int r = n && PyUnicode_Check(n) && PyUnicode_CompareWithASCIIString(n, "bfloat16") == 0;
    Py_XDECREF(n);
    PyErr_Clear();
    return r;
}

int
rt_is_bfloat16(PyObject *o)
{
    PyObject *d = PyObject_GetAttrString(o, "dtype");
    int r = d && is_bf16_dtype(d);
    Py_XDECREF(d);
    PyErr_Clear();
    return r;
}

/* a fixed-width string's buffer format: "12s" (S12), "12w" (U12) */
static int
string_format(const char *fmt)
{
    size_t n = fmt ? strspn(fmt, "0123456789") : 0;
    return fmt && (fmt[n] == 's' || fmt[n] == 'w') && fmt[n + 1] == '\0';
}

int
rt_buffer_dtype(PyObject *o, const char *fmt, Py_ssize_t itemsize, DType *out)
{
    if (!fmt || ((fmt[0] != 'T' || fmt[1] != '{') && !string_format(fmt))) {
        return rt_dtype_from_format(fmt, itemsize, out);
    }
    PyObject *d = PyObject_GetAttrString(o, "dtype");
    int r = d ? rt_dtype_from_obj(d, out) : -1;
    Py_XDECREF(d);
    if (r == 0 && cj_dtypes[*out].size != itemsize) {
        PyErr_Format(PyExc_TypeError, "the buffer's items (%zd bytes) are not its dtype's "
                     "(%d bytes)", itemsize, cj_dtypes[*out].size);
        r = -1;
    }
    return r;
}

int
rt_dtype_from_dlpack(int code, int bits, int lanes, DType *out)
{
    static const char kinds[] = {[0] = 'i', [1] = 'u', [2] = 'f', [5] = 'c', [6] = 'b'};
    char kind = code >= 0 && code < (int)sizeof kinds ? kinds[code] : 0;
    if (code == 4 && bits == 16 && lanes == 1) {
        *out = DT_BF16;     /* kDLBfloat */
        return 0;
    }
    if (lanes != 1 || !kind || bits % 8 || from_kind_size(kind, bits / 8, out) < 0) {
        PyErr_Format(PyExc_TypeError, "unsupported DLPack dtype (code %d, bits %d, lanes %d)",
                     code, bits, lanes);
        return -1;
    }
    return 0;
}

void
rt_dtype_to_dlpack(DType dt, uint8_t *code, uint8_t *bits)
{
    switch (cj_dtypes[dt].kind) {
    case 'b':
        *code = 6;      /* kDLBool */
        break;
    case 'i':
        *code = 0;      /* kDLInt */
        break;
    case 'u':
        *code = 1;      /* kDLUInt */
        break;
    case 'f':
        *code = dt == DT_BF16 ? 4 : 2;      /* kDLBfloat, kDLFloat */
        break;
    default:
        *code = 5;      /* kDLComplex */
        break;
    }
    *bits = (uint8_t)(cj_dtypes[dt].size * 8);
}

PyObject *
rt_numpy(void)
{
    static PyObject *np;
    if (!np) {
        np = PyImport_ImportModule("numpy");
    }
    return np;
}

/* numpy.dtype(ml_dtypes.bfloat16): NumPy has no bfloat16 of its own */
static PyObject *
bf16_dtype_object(void)
{
    PyObject *np = rt_numpy(), *ml = np ? PyImport_ImportModule("ml_dtypes") : NULL, *r = NULL;
    if (!ml) {
        if (np && PyErr_ExceptionMatches(PyExc_ImportError)) {
            PyErr_SetString(PyExc_TypeError, "bfloat16 arrays on the host need the ml_dtypes "
                            "package (pip install ml_dtypes), whose dtype NumPy uses");
        }
        return NULL;
    }
    PyObject *t = PyObject_GetAttrString(ml, "bfloat16");
    r = t ? PyObject_CallMethod(np, "dtype", "O", t) : NULL;
    Py_XDECREF(t);
    Py_DECREF(ml);
    return r;
}

PyObject *
rt_dtype_object(DType dt)
{
    static PyObject *cache[DT_COUNT];
    if (cj_is_record(dt)) {
        return rt_record_dtype_object(dt);
    }
    if (dt == DT_BF16 && !cache[dt]) {
        cache[dt] = bf16_dtype_object();
        return cache[dt] ? Py_NewRef(cache[dt]) : NULL;
    }
    if (!cache[dt]) {
        PyObject *np = rt_numpy();
        if (!np) {
            PyErr_Clear();
            return PyUnicode_FromString(cj_dtypes[dt].name);
        }
        cache[dt] = PyObject_CallMethod(np, "dtype", "s", cj_dtypes[dt].name);
        if (!cache[dt]) {
            return NULL;
        }
    }
    return Py_NewRef(cache[dt]);
}

/* ---- record dtypes: a NumPy structured dtype's fields (names, dtypes,
 * offsets, sub-array shapes, nested records), itemsize and alignment read
 * into common/recdtype.c's table; the dtype object is kept for each, so that
 * arrays copied back to the host and __cuda_array_interface__ give the same
 * dtype again ---- */

static PyObject *rec_objects[CJ_MAXREC];        /* the first dtype object of each layout */
static char rec_typestrs[CJ_MAXREC][16];        /* "|V24" */

static int
int_attr(PyObject *o, const char *name, int *out)
{
    PyObject *v = PyObject_GetAttrString(o, name);
    long x = v ? PyLong_AsLong(v) : -1;
    Py_XDECREF(v);
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* ('u1', (5,)) of a sub-array field: its base dtype and shape into f */
static int
sub_array(PyObject *sub, CjField *f, PyObject **base)
{
    PyObject *shape = PyTuple_GET_ITEM(sub, 1);
    if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > CJ_MAXSUB) {
        PyErr_Format(PyExc_TypeError, "record field '%s': a sub-array of more than %d "
                     "dimensions is not supported", f->name, CJ_MAXSUB);
        return -1;
    }
    f->nsub = (int)PyTuple_GET_SIZE(shape);
    for (int d = 0; d < f->nsub; d++) {
        long n = PyLong_AsLong(PyTuple_GET_ITEM(shape, d));
        if (n == -1 && PyErr_Occurred()) {
            return -1;
        }
        f->sub[d] = (int)n;
        f->count *= (int)n;
    }
    *base = PyTuple_GET_ITEM(sub, 0);
    return 0;
}

static int field_of_entry(PyObject *entry, PyObject *name, CjField *f);

/* one field: (dtype, offset[, title]) from dtype.fields */
static int
read_field(PyObject *fields, PyObject *name, CjField *f)
{
    PyObject *entry = PyObject_GetItem(fields, name);     /* a mappingproxy */
    if (!entry || !PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 2) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "record field %R has no (dtype, offset)", name);
        }
        Py_XDECREF(entry);
        return -1;
    }
    int r = field_of_entry(entry, name, f);
    Py_DECREF(entry);
    return r;
}

static int
field_of_entry(PyObject *entry, PyObject *name, CjField *f)
{
    f->name = PyUnicode_AsUTF8(name);
    f->offset = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 1));
    f->count = 1;
    if (!f->name || PyErr_Occurred()) {
        return -1;
    }
    PyObject *fd = PyTuple_GET_ITEM(entry, 0), *base = fd;
    PyObject *sub = PyObject_GetAttrString(fd, "subdtype");
    int r = sub ? 0 : -1;
    if (sub && sub != Py_None && PyTuple_Check(sub) && PyTuple_GET_SIZE(sub) == 2) {
        r = sub_array(sub, f, &base);
    }
    if (r == 0 && rt_dtype_from_obj(base, &f->dt) < 0) {
        r = -1;
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        PyErr_Format(PyExc_TypeError, "record field '%s' has dtype %R, which kernels cannot "
                     "hold: fields must be numbers (bool, int, float, complex), fixed-width "
                     "strings (S12, U12), sub-arrays of numbers or records", f->name, base);
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(tb);
    }
    Py_XDECREF(sub);
    return r;
}

/* fields sorted by offset must not overlap: the C++ struct lays them out in turn */
static int
check_overlap(const CjRecord *r)
{
    for (int i = 0; i < r->nfields; i++) {
        const CjField *a = &r->fields[i];
        int aend = a->offset + a->count * cj_dtypes[a->dt].size;
        for (int j = 0; j < r->nfields; j++) {
            const CjField *b = &r->fields[j];
            if (i != j && b->offset >= a->offset && b->offset < aend
                && (b->offset > a->offset || j > i)) {
                PyErr_Format(PyExc_TypeError, "record fields '%s' and '%s' overlap, which "
                             "kernels do not support", a->name, b->name);
                return -1;
            }
        }
    }
    return 0;
}

static int
read_record(PyObject *d, PyObject *names, CjRecord *r, DType *out)
{
    PyObject *fields = PyObject_GetAttrString(d, "fields");
    int ret = -1;
    r->nfields = (int)PyTuple_GET_SIZE(names);
    r->fields = PyMem_Calloc((size_t)(r->nfields ? r->nfields : 1), sizeof(CjField));
    if (!fields || !r->fields) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    for (int i = 0; i < r->nfields; i++) {
        if (read_field(fields, PyTuple_GET_ITEM(names, i), &r->fields[i]) < 0) {
            goto done;
        }
    }
    if (int_attr(d, "itemsize", &r->itemsize) < 0 || check_overlap(r) < 0
        || int_attr(d, "isalignedstruct", &r->np_aligned) < 0) {
        goto done;
    }
    char msg[256];
    if (cj_record_intern(r, out, msg, sizeof msg) < 0) {
        PyErr_Format(PyExc_TypeError, "record dtype %R: %s", d, msg);
        goto done;
    }
    ret = 0;
done:
    Py_XDECREF(fields);
    PyMem_Free(r->fields);
    return ret;
}

int
rt_record_from_dtype(PyObject *d, PyObject *names, DType *out)
{
    CjRecord r;
    memset(&r, 0, sizeof r);
    if (!PyTuple_Check(names)) {
        PyErr_Format(PyExc_TypeError, "record dtype %R: its names are not a tuple", d);
        return -1;
    }
    if (read_record(d, names, &r, out) < 0) {
        return -1;
    }
    int k = (int)*out - DT_COUNT;
    if (!rec_objects[k]) {
        rec_objects[k] = Py_NewRef(d);
        snprintf(rec_typestrs[k], sizeof rec_typestrs[k], "|V%d", cj_dtypes[*out].size);
    }
    return 0;
}

/* S12 / U12: a string entry of the record table (no fields), kept as a
 * record's is; its typestr is NumPy's */
static int
string_from_dtype(PyObject *d, char kind, DType *out)
{
    CjRecord r;
    char msg[256];
    memset(&r, 0, sizeof r);
    r.strkind = kind;
    if (int_attr(d, "itemsize", &r.itemsize) < 0) {
        return -1;
    }
    if (r.itemsize <= 0 || cj_record_intern(&r, out, msg, sizeof msg) < 0) {
        PyErr_Format(PyExc_TypeError, "string dtype %R: %s", d,
                     r.itemsize <= 0 ? "an empty string dtype has no elements" : msg);
        return -1;
    }
    int k = (int)*out - DT_COUNT;
    if (!rec_objects[k]) {
        rec_objects[k] = Py_NewRef(d);
        snprintf(rec_typestrs[k], sizeof rec_typestrs[k], kind == 'S' ? "|S%d" : "<U%d",
                 kind == 'S' ? r.itemsize : r.itemsize / 4);
    }
    return 0;
}

PyObject *
rt_record_dtype_object(DType dt)
{
    return Py_NewRef(rec_objects[(int)dt - DT_COUNT]);
}

const char *
rt_record_typestr(DType dt)
{
    return rec_typestrs[(int)dt - DT_COUNT];
}

/* names NumPy accepts that are not a dtype's own name or typestr */
static const struct {
    const char *name;
    DType dt;
} aliases[] = {
    {"float", DT_F64}, {"int", DT_I64}, {"complex", DT_C128}, {"bool_", DT_BOOL},
    {"half", DT_F16}, {"single", DT_F32}, {"double", DT_F64}, {"csingle", DT_C64},
    {"cdouble", DT_C128}, {"byte", DT_I8}, {"ubyte", DT_U8}, {"short", DT_I16},
    {"ushort", DT_U16}, {"intc", DT_I32}, {"uintc", DT_U32}, {"long", DT_I64},
    {"ulong", DT_U64}, {"longlong", DT_I64}, {"ulonglong", DT_U64}, {"intp", DT_I64},
    {"uintp", DT_U64}, {"uint", DT_U64}, {"?", DT_BOOL}, {"b", DT_I8}, {"B", DT_U8},
    {"h", DT_I16}, {"H", DT_U16}, {"i", DT_I32}, {"I", DT_U32}, {"l", DT_I64}, {"L", DT_U64},
    {"q", DT_I64}, {"Q", DT_U64}, {"p", DT_I64}, {"P", DT_U64}, {"e", DT_F16}, {"f", DT_F32},
    {"d", DT_F64}, {"F", DT_C64}, {"D", DT_C128},
};

static int
from_name(const char *s, DType *out)
{
    if (strncmp(s, "torch.", 6) == 0) {
        s += 6;
    }
    for (int i = 0; i < DT_COUNT; i++) {
        if (strcmp(s, cj_dtypes[i].name) == 0) {
            *out = (DType)i;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(s, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return 0;
        }
    }
    if (strcmp(s, "half") == 0) {
        *out = DT_F16;
        return 0;
    }
    return parse_typestr(s, out);
}

/* dtype arguments seen before (dtype objects, scalar types), by identity */
#define DT_CACHE 32
static PyObject *seen_obj[DT_CACHE];
static DType seen_dt[DT_CACHE];
static int nseen;

static int
from_numpy(PyObject *o, DType *out)
{
    PyObject *np = rt_numpy(), *d = NULL, *s = NULL;
    int ret = -1;
    if (!np) {
        return -1;
    }
    d = PyObject_CallMethod(np, "dtype", "O", o);
    if (!d) {
        return -1;
    }
    s = PyObject_GetAttrString(d, "names");
    if (s && s != Py_None) {
        ret = rt_record_from_dtype(d, s, out);
        goto done;
    }
    Py_CLEAR(s);
    PyErr_Clear();
    if (is_bf16_dtype(d)) {
        *out = DT_BF16;
        ret = 0;
        goto done;
    }
    s = PyObject_GetAttrString(d, "kind");
    const char *kind = s ? PyUnicode_AsUTF8(s) : NULL;
    if (!kind) {
        goto done;
    }
    if ((kind[0] == 'S' || kind[0] == 'U') && !kind[1]) {
        ret = string_from_dtype(d, kind[0], out);
        goto done;
    }
    Py_CLEAR(s);
    s = PyObject_GetAttrString(d, "str");
    if (!s) {
        goto done;
    }
    const char *ts = PyUnicode_AsUTF8(s);
    if (!ts) {
        goto done;
    }
    if (parse_typestr(ts, out) < 0) {
        PyErr_Format(PyExc_TypeError, "cujit does not support dtype %R", d);
        goto done;
    }
    ret = 0;
done:
    Py_XDECREF(s);
    Py_DECREF(d);
    return ret;
}

int
rt_dtype_from_obj(PyObject *o, DType *out)
{
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s) {
            return -1;
        }
        if (from_name(s, out) == 0) {
            return 0;
        }
        return from_numpy(o, out);
    }
    if (o == (PyObject *)&PyFloat_Type) {
        *out = DT_F64;
        return 0;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *out = DT_I64;
        return 0;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *out = DT_BOOL;
        return 0;
    }
    if (o == (PyObject *)&PyComplex_Type) {
        *out = DT_C128;
        return 0;
    }
    for (int i = 0; i < nseen; i++) {
        if (seen_obj[i] == o) {
            *out = seen_dt[i];
            return 0;
        }
    }
    /* torch.float32 and friends print as "torch.float32" */
    const char *tn = Py_TYPE(o)->tp_name;
    if (strcmp(tn, "torch.dtype") == 0) {
        PyObject *s = PyObject_Str(o);
        const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
        int bad = !c || from_name(c, out) < 0;
        if (c && bad) {
            PyErr_Format(PyExc_TypeError, "cujit does not support dtype %s", c);
        }
        Py_XDECREF(s);
        if (bad) {
            return -1;
        }
    } else if (from_numpy(o, out) < 0) {
        return -1;
    }
    if (nseen < DT_CACHE) {
        seen_obj[nseen] = Py_NewRef(o);
        seen_dt[nseen++] = *out;
    }
    return 0;
}

int
rt_dtype_of(PyObject *o, DType *out)
{
    return rt_dtype_from_obj(o, out);
}

/* ---- numbers to element bytes ---- */

static int
int_fits(long long v, DType dt)
{
    switch (dt) {
    case DT_I8:
        return v >= INT8_MIN && v <= INT8_MAX;
    case DT_I16:
        return v >= INT16_MIN && v <= INT16_MAX;
    case DT_I32:
        return v >= INT32_MIN && v <= INT32_MAX;
    case DT_U8:
        return v >= 0 && v <= UINT8_MAX;
    case DT_U16:
        return v >= 0 && v <= UINT16_MAX;
    case DT_U32:
        return v >= 0 && v <= (long long)UINT32_MAX;
    case DT_U64:
        return v >= 0;
    default:
        return 1;
    }
}

static void
put_int(unsigned long long v, int size, unsigned char *out)
{
    memcpy(out, &v, (size_t)size);     /* little-endian: the low bytes */
}

/* x as bfloat16's bits, rounded to nearest even once: x rounded to float32
 * to odd first (the last bit kept set when bits were lost), which rounding
 * to 8 bits again cannot spoil */
static unsigned short
bf16_bits(double x)
{
    float f = (float)x;
    uint32_t u;
    if (f == f && !isinf(f) && (double)f != x) {
        f = fabs((double)f) > fabs(x) ? nextafterf(f, 0.0f) : f;
        memcpy(&u, &f, 4);
        u |= 1;
        memcpy(&f, &u, 4);
    }
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (unsigned short)((u >> 16) | 0x40);      /* a quiet NaN */
    }
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static int
put_float(double x, DType dt, unsigned char *out)
{
    if (dt == DT_BF16) {
        unsigned short b = bf16_bits(x);
        memcpy(out, &b, 2);
        return 0;
    }
    if (dt == DT_F16) {
#if PY_VERSION_HEX >= 0x030B0000
        return PyFloat_Pack2(x, (char *)out, 1);
#else
        return _PyFloat_Pack2(x, out, 1);
#endif
    }
    if (dt == DT_F32) {
        float f = (float)x;
        memcpy(out, &f, 4);
    } else {
        memcpy(out, &x, 8);
    }
    return 0;
}

/* an integer value into any dtype */
static int
from_pyint(PyObject *v, DType dt, unsigned char *out)
{
    char kind = cj_dtypes[dt].kind;
    int size = cj_dtypes[dt].size;
    int overflow = 0;
    if (kind == 'f' || kind == 'c') {
        double x = PyLong_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        if (kind == 'c') {
            memset(out, 0, (size_t)size);
            return put_float(x, dt == DT_C64 ? DT_F32 : DT_F64, out);
        }
        return put_float(x, dt, out);
    }
    if (kind == 'b') {
        int t = PyObject_IsTrue(v);
        if (t < 0) {
            return -1;
        }
        out[0] = (unsigned char)t;
        return 0;
    }
    long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (s == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow > 0 && dt == DT_U64) {
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            goto range;
        }
        put_int(u, 8, out);
        return 0;
    }
    if (overflow || !int_fits(s, dt)) {
        goto range;
    }
    put_int((unsigned long long)s, size, out);
    return 0;
range:
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for %s", v,
                 cj_dtypes[dt].name);
    return -1;
}

int
rt_scalar_to_bytes(PyObject *v, DType dt, unsigned char out[16])
{
    char kind = cj_dtypes[dt].kind;
    memset(out, 0, 16);
    if (PyBool_Check(v) || PyLong_Check(v)) {
        return from_pyint(v, dt, out);
    }
    if (kind == 'c') {
        Py_complex c = PyComplex_AsCComplex(v);
        if (c.real == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        DType part = dt == DT_C64 ? DT_F32 : DT_F64;
        put_float(c.real, part, out);
        return put_float(c.imag, part, out + cj_dtypes[part].size);
    }
    if (kind == 'b') {
        int t = PyObject_IsTrue(v);
        if (t < 0) {
            return -1;
        }
        out[0] = (unsigned char)t;
        return 0;
    }
    if (PyIndex_Check(v) && !PyFloat_Check(v)) {
        PyObject *i = PyNumber_Index(v);        /* NumPy integer scalars */
        if (i) {
            int r = from_pyint(i, dt, out);
            Py_DECREF(i);
            return r;
        }
        PyErr_Clear();
    }
    /* NumPy drops the imaginary part of a complex (with a warning) */
    double x = PyComplex_Check(v) ? PyComplex_RealAsDouble(v) : PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    if (kind == 'f') {
        return put_float(x, dt, out);
    }
    /* float into an integer dtype: truncation, as NumPy's cast */
    if (!isfinite(x) || x <= -9223372036854775809.0 || x >= 18446744073709551616.0) {
        PyErr_Format(PyExc_OverflowError, "cannot convert %R to %s", v, cj_dtypes[dt].name);
        return -1;
    }
    x = trunc(x);
    if (kind == 'u' && x >= 9223372036854775808.0) {
        put_int((unsigned long long)x, cj_dtypes[dt].size, out);
        return 0;
    }
    long long s = (long long)x;
    if (!int_fits(s, dt)) {
        PyErr_Format(PyExc_OverflowError, "cannot convert %R to %s", v, cj_dtypes[dt].name);
        return -1;
    }
    put_int((unsigned long long)s, cj_dtypes[dt].size, out);
    return 0;
}
