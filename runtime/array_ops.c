/* array_ops.c - DeviceArray as a Python number: the operators and stdlib
 * methods forwarded to cujit._stdlib, the conversions to Python scalars
 * (item, int, float, bool), and __array__ (refused, or Numba's copy). */
#include <string.h>

#include "rt_impl.h"

/* ---- item access ---- */

static PyObject *
element_object(const unsigned char *p, DType dt)
{
    long long i = 0;
    unsigned long long u = 0;
    switch (dt) {
    case DT_BOOL:
        return PyBool_FromLong(p[0] != 0);
    case DT_I8: case DT_I16: case DT_I32: case DT_I64:
        memcpy(&i, p, (size_t)cj_dtypes[dt].size);
        i = cj_dtypes[dt].size == 8 ? i : (i << (64 - 8 * cj_dtypes[dt].size))
                                             >> (64 - 8 * cj_dtypes[dt].size);
        return PyLong_FromLongLong(i);
    case DT_U8: case DT_U16: case DT_U32: case DT_U64:
        memcpy(&u, p, (size_t)cj_dtypes[dt].size);
        return PyLong_FromUnsignedLongLong(u);
    case DT_F16:
#if PY_VERSION_HEX >= 0x030B0000
        return PyFloat_FromDouble(PyFloat_Unpack2((const char *)p, 1));
#else
        return PyFloat_FromDouble(_PyFloat_Unpack2(p, 1));
#endif
    case DT_F32: {
        float f;
        memcpy(&f, p, 4);
        return PyFloat_FromDouble(f);
    }
    case DT_BF16: {
        uint32_t b = 0;
        float f;
        memcpy((char *)&b + 2, p, 2);       /* float32's upper half (little-endian) */
        memcpy(&f, &b, 4);
        return PyFloat_FromDouble(f);
    }
    case DT_F64: {
        double d;
        memcpy(&d, p, 8);
        return PyFloat_FromDouble(d);
    }
    case DT_C64: {
        float c[2];
        memcpy(c, p, 8);
        return PyComplex_FromDoubles(c[0], c[1]);
    }
    case DT_C128: {
        double c[2];
        memcpy(c, p, 16);
        return PyComplex_FromDoubles(c[0], c[1]);
    }
    case DT_COUNT:
        break;
    }
    PyErr_SetString(PyExc_SystemError, "bad dtype");
    return NULL;
}

PyObject *
rt_DeviceArray_item(RtDeviceArray *self, PyObject *noargs)
{
    unsigned char buf[16];
    int pushed;
    if (self->size != 1) {
        PyErr_SetString(PyExc_ValueError, "can only convert an array of size 1 to a Python scalar");
        return NULL;
    }
    if (rt_enter_device(self, &pushed, "item") < 0) {
        return NULL;
    }
    int r = rt_dtoh(buf, self->ptr, (size_t)cj_dtypes[self->dtype].size, self->stream);
    rt_ctx_leave(pushed);
    return r < 0 ? NULL : element_object(buf, self->dtype);
}

static PyObject *
DeviceArray_float(RtDeviceArray *self)
{
    PyObject *v = rt_DeviceArray_item(self, NULL), *f;
    if (!v) {
        return NULL;
    }
    f = PyComplex_Check(v) ? PyFloat_FromDouble(PyComplex_RealAsDouble(v)) : PyNumber_Float(v);
    Py_DECREF(v);
    return f;
}

static PyObject *
DeviceArray_int(RtDeviceArray *self)
{
    PyObject *v = rt_DeviceArray_item(self, NULL), *i;
    if (!v) {
        return NULL;
    }
    i = PyComplex_Check(v) ? NULL : PyNumber_Long(v);
    if (PyComplex_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "cannot convert a complex array to int");
    }
    Py_DECREF(v);
    return i;
}

static int
DeviceArray_bool(RtDeviceArray *self)
{
    if (self->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "the truth value of an array with other than one element is ambiguous");
        return -1;
    }
    PyObject *v = rt_DeviceArray_item(self, NULL);
    if (!v) {
        return -1;
    }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

/* an array made through cujit.cuda converts as Numba's does: a copy to the
 * host (copy=False cannot be honoured); cujit's own arrays refuse, as CuPy's */
static PyObject *
numba_array(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:__array__", kwlist, &dtype, &copy)) {
        return NULL;
    }
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError, "__array__(copy=False): a device array cannot be "
                        "seen as host memory without a copy; a copy is always made");
        return NULL;
    }
    PyObject *h = PyObject_CallMethod((PyObject *)self, "copy_to_host", NULL);
    if (!h || dtype == Py_None) {
        return h;
    }
    PyObject *r = PyObject_CallMethod(h, "astype", "O", dtype);
    Py_DECREF(h);
    return r;
}

PyObject *
rt_DeviceArray_array(RtDeviceArray *self, PyObject *args, PyObject *kw)
{
    if (self->numba_rules) {
        return numba_array(self, args, kw);
    }
    PyErr_SetString(PyExc_TypeError,
                    "implicit conversion of a cujit.DeviceArray to a NumPy array is not "
                    "allowed: use .copy_to_host() or cujit.asnumpy()");
    return NULL;
}

/* ---- operators and stdlib methods: forwarded to Python ----
 *
 * The arithmetic, comparisons and methods such as sum() are written in
 * Python over bundled kernels (cujit/_stdlib/, its kernels/).  That package
 * registers one callable per name through _set_array_ops(dict) when it is
 * imported.  The runtime never imports it by name (it sits above the
 * runtime): `import cujit` registers a loader, _set_array_ops(callable),
 * which the first use here calls, so `import cujit` pays nothing for them.  A binary slot calls ops[name](a, b) (either operand may
 * be the DeviceArray); a method calls ops[name](self, *args, **kwargs);
 * NumPy's protocols __array_ufunc__ and __array_function__ are methods too;
 * writes the driver cannot do alone call ops["assign"](a, value, stream). */


static const char *const op_names[AOP_COUNT] = {
#define AOP_NAME(e, name) name,
    ARRAY_OPS(AOP_NAME)
#undef AOP_NAME
};

static PyObject *op_fns[AOP_COUNT];     /* strong references; NULL: not provided */
static int ops_registered;
static PyObject *ops_loader;            /* called once to register them */

/* _set_array_ops(dict): the callables behind operators and methods;
 * _set_array_ops(callable): what registers them, called at the first use */
PyObject *
rt_py_set_array_ops(PyObject *self, PyObject *ops)
{
    PyObject *fns[AOP_COUNT];
    if (!PyDict_Check(ops) && PyCallable_Check(ops)) {
        Py_XSETREF(ops_loader, Py_NewRef(ops));
        Py_RETURN_NONE;
    }
    if (!PyDict_Check(ops)) {
        PyErr_SetString(PyExc_TypeError, "_set_array_ops() takes a dict or a callable");
        return NULL;
    }
    for (int i = 0; i < AOP_COUNT; i++) {
        PyObject *f = PyDict_GetItemString(ops, op_names[i]);    /* borrowed */
        if (f && !PyCallable_Check(f)) {
            PyErr_Format(PyExc_TypeError, "_set_array_ops(): '%s' is not callable", op_names[i]);
            return NULL;
        }
        fns[i] = f;
    }
    for (int i = 0; i < AOP_COUNT; i++) {
        Py_XSETREF(op_fns[i], Py_XNewRef(fns[i]));
    }
    ops_registered = 1;
    Py_RETURN_NONE;
}

/* the callable for op (borrowed), calling the registered loader on first
 * use; NULL without an exception when none is registered */
static PyObject *
op_function(int op)
{
    if (!ops_registered) {
        PyObject *r = ops_loader ? PyObject_CallNoArgs(ops_loader) : NULL;
        if (!r && ops_loader) {
            return NULL;
        }
        Py_XDECREF(r);
        if (!ops_registered) {
            PyErr_SetString(PyExc_ImportError, "the array operations are not registered: "
                            "import cujit (it registers cujit._stdlib)");
            return NULL;
        }
    }
    return op_fns[op];
}

static PyObject *
forward(int op, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *f = op_function(op);
    if (!f) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyObject_Vectorcall(f, args, (size_t)nargs, NULL);
}

/* see "writes" above: ops["assign"](a, value, stream handle or None) */
int
rt_stdlib_assign(RtDeviceArray *a, PyObject *value, CUstream s)
{
    PyObject *so = s ? PyLong_FromVoidPtr(s) : Py_NewRef(Py_None), *r;
    if (!so) {
        return -1;
    }
    PyObject *args[3] = {(PyObject *)a, value, so};
    r = forward(AOP_ASSIGN, args, 3);
    Py_DECREF(so);
    if (!r) {
        return -1;
    }
    if (r == Py_NotImplemented) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ImportError, "cujit._stdlib did not register 'assign'");
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

static PyObject *
forward2(int op, PyObject *a, PyObject *b)
{
    PyObject *args[2] = {a, b};
    return forward(op, args, 2);
}

static PyObject *
forward1(int op, PyObject *a)
{
    return forward(op, &a, 1);
}

#define BINARY_SLOT(fname, op) \
    static PyObject *fname(PyObject *a, PyObject *b) { return forward2(op, a, b); }
BINARY_SLOT(DeviceArray_add, AOP_ADD)
BINARY_SLOT(DeviceArray_sub, AOP_SUB)
BINARY_SLOT(DeviceArray_mul, AOP_MUL)
BINARY_SLOT(DeviceArray_truediv, AOP_TRUEDIV)
BINARY_SLOT(DeviceArray_floordiv, AOP_FLOORDIV)
BINARY_SLOT(DeviceArray_mod, AOP_MOD)
BINARY_SLOT(DeviceArray_divmod, AOP_DIVMOD)
BINARY_SLOT(DeviceArray_lshift, AOP_LSHIFT)
BINARY_SLOT(DeviceArray_rshift, AOP_RSHIFT)
BINARY_SLOT(DeviceArray_and, AOP_AND)
BINARY_SLOT(DeviceArray_or, AOP_OR)
BINARY_SLOT(DeviceArray_xor, AOP_XOR)
BINARY_SLOT(DeviceArray_iadd, AOP_IADD)
BINARY_SLOT(DeviceArray_isub, AOP_ISUB)
BINARY_SLOT(DeviceArray_imul, AOP_IMUL)
BINARY_SLOT(DeviceArray_itruediv, AOP_ITRUEDIV)
BINARY_SLOT(DeviceArray_ifloordiv, AOP_IFLOORDIV)
BINARY_SLOT(DeviceArray_imod, AOP_IMOD)
BINARY_SLOT(DeviceArray_ilshift, AOP_ILSHIFT)
BINARY_SLOT(DeviceArray_irshift, AOP_IRSHIFT)
BINARY_SLOT(DeviceArray_iand, AOP_IAND)
BINARY_SLOT(DeviceArray_ior, AOP_IOR)
BINARY_SLOT(DeviceArray_ixor, AOP_IXOR)
#undef BINARY_SLOT

/* pow(a, b, mod): three-argument pow is not an array operation */
static PyObject *
DeviceArray_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(AOP_POW, a, b);
}

static PyObject *
DeviceArray_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(AOP_IPOW, a, b);
}

#define UNARY_SLOT(fname, op) \
    static PyObject *fname(PyObject *a) { return forward1(op, a); }
UNARY_SLOT(DeviceArray_neg, AOP_NEG)
UNARY_SLOT(DeviceArray_pos, AOP_POS)
UNARY_SLOT(DeviceArray_abs, AOP_ABS)
UNARY_SLOT(DeviceArray_invert, AOP_INVERT)
#undef UNARY_SLOT

/* self is always the DeviceArray: CPython swaps the operator for reflected
 * comparisons (3 < x calls x > 3) */
PyObject *
rt_DeviceArray_richcompare(PyObject *self, PyObject *other, int cmp)
{
    int op;
    switch (cmp) {
    case Py_LT:
        op = AOP_LT;
        break;
    case Py_LE:
        op = AOP_LE;
        break;
    case Py_EQ:
        op = AOP_EQ;
        break;
    case Py_NE:
        op = AOP_NE;
        break;
    case Py_GT:
        op = AOP_GT;
        break;
    case Py_GE:
        op = AOP_GE;
        break;
    default:
        Py_RETURN_NOTIMPLEMENTED;
    }
    return forward2(op, self, other);
}

/* a method: ops[name](self, *args, **kwargs) */
PyObject *
rt_forward_method(int op, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    PyObject *small[8], **all = small, *r;
    PyObject *f = op_function(op);
    if (!f) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_AttributeError, "cujit.DeviceArray.%s() is not available",
                         op_names[op]);
        }
        return NULL;
    }
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    if (n + 1 > (Py_ssize_t)(sizeof small / sizeof small[0])) {
        all = PyMem_Malloc(sizeof(PyObject *) * (size_t)(n + 1));
        if (!all) {
            return PyErr_NoMemory();
        }
    }
    all[0] = self;
    for (Py_ssize_t i = 0; i < n; i++) {
        all[i + 1] = args[i];
    }
    r = PyObject_Vectorcall(f, all, (size_t)(nargs + 1), kwnames);
    if (all != small) {
        PyMem_Free(all);
    }
    return r;
}

PyNumberMethods rt_DeviceArray_as_number = {
    .nb_add = DeviceArray_add,
    .nb_subtract = DeviceArray_sub,
    .nb_multiply = DeviceArray_mul,
    .nb_remainder = DeviceArray_mod,
    .nb_divmod = DeviceArray_divmod,
    .nb_power = DeviceArray_pow,
    .nb_negative = DeviceArray_neg,
    .nb_positive = DeviceArray_pos,
    .nb_absolute = DeviceArray_abs,
    .nb_bool = (inquiry)DeviceArray_bool,
    .nb_invert = DeviceArray_invert,
    .nb_lshift = DeviceArray_lshift,
    .nb_rshift = DeviceArray_rshift,
    .nb_and = DeviceArray_and,
    .nb_xor = DeviceArray_xor,
    .nb_or = DeviceArray_or,
    .nb_int = (unaryfunc)DeviceArray_int,
    .nb_float = (unaryfunc)DeviceArray_float,
    .nb_inplace_add = DeviceArray_iadd,
    .nb_inplace_subtract = DeviceArray_isub,
    .nb_inplace_multiply = DeviceArray_imul,
    .nb_inplace_remainder = DeviceArray_imod,
    .nb_inplace_power = DeviceArray_ipow,
    .nb_inplace_lshift = DeviceArray_ilshift,
    .nb_inplace_rshift = DeviceArray_irshift,
    .nb_inplace_and = DeviceArray_iand,
    .nb_inplace_xor = DeviceArray_ixor,
    .nb_inplace_or = DeviceArray_ior,
    .nb_floor_divide = DeviceArray_floordiv,
    .nb_true_divide = DeviceArray_truediv,
    .nb_inplace_floor_divide = DeviceArray_ifloordiv,
    .nb_inplace_true_divide = DeviceArray_itruediv,
};

/* cujit.cuda's constructors mark what they return with Numba's host rules */
PyObject *
rt_DeviceArray_numba_rules(RtDeviceArray *self, PyObject *noargs)
{
    self->numba_rules = 1;
    return Py_NewRef(self);
}
