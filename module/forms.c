/* forms.c - the two forms' shared parts: the cache of compiled forms (a
 * key of bytes -> compiled CUDA and its loaded kernels), operands, grid
 * sizes, the scalar function behind an argument, and the types' setup. */
#include "forms.h"

#include <stdlib.h>
#include <string.h>

Form *
form_find(Form *list, const Key *k)
{
    for (Form *f = list; f; f = f->next) {
        if (f->keylen == k->n && memcmp(f->key, k->b, k->n) == 0) {
            return f;
        }
    }
    return NULL;
}

Form *
form_new(const Key *key)
{
    Form *f = calloc(1, sizeof(Form));
    if (!f) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(f->key, key->b, key->n);
    f->keylen = key->n;
    return f;
}

void
form_free(Form *f)
{
    pl_compiled_free(&f->c);
    Py_XDECREF(f->keep);
    free(f);
}

int
form_load(Form *f, const char *second)
{
    int dev = mod_device();
    if (dev < 0) {
        return -1;
    }
    if (!f->loaded[dev]) {
        if (pl_load(&f->c, second, &f->rk[dev], &f->rk2[dev]) < 0) {
            return -1;
        }
        f->loaded[dev] = 1;
    }
    return dev;
}

int
operand(PyObject *o, Operand *op, void *stream, const char *what)
{
    memset(op, 0, sizeof *op);
    op->obj = o;
    if (rt_scalar_dtype(o, &op->dt)) {
        op->weak = PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyComplex_CheckExact(o);
        return 0;
    }
    if (rt_get_array(o, &op->a, stream, what) < 0) {
        return -1;
    }
    op->is_array = 1;
    op->dt = op->a.dtype;
    return 0;
}

int
release(Operand *ops, int n, void *stream, int copy_back)
{
    int ret = 0;
    for (int i = 0; i < n; i++) {
        if (ops[i].is_array && rt_array_release(&ops[i].a, stream, copy_back) < 0) {
            ret = -1;
        }
    }
    return ret;
}

ArgKey
operand_key(const Operand *op)
{
    ArgKey k = rt_scalar_key(op->dt);
    if (op->weak) {
        k.kind = PL_WEAK;
    }
    return k;
}

unsigned
grid_for(int64_t work, int block)
{
    int sms = rt_multiprocessor_count();
    if (sms < 0) {
        return 0;               /* the device's count cannot be read: exception set */
    }
    int64_t g = (work + block - 1) / block;
    int64_t cap = (int64_t)(sms > 0 ? sms : 132) * 32;
    if (g > cap) {
        g = cap;
    }
    return (unsigned)(g < 1 ? 1 : g);
}

int
param_count(PyObject *func)
{
    PyObject *code = PyFunction_GET_CODE(func);
    return ((PyCodeObject *)code)->co_argcount;
}

void
forms_free(Form **list)
{
    while (*list) {
        Form *f = *list;
        *list = f->next;
        form_free(f);
    }
}

PyObject *
forms_sources(Form *list)
{
    PyObject *l = PyList_New(0);
    for (Form *f = list; l && f; f = f->next) {
        if (f->c.src && mod_list_append_str(l, f->c.src) < 0) {
            Py_CLEAR(l);
        }
    }
    return l;
}

PyObject *
scalar_function(PyObject *o)
{
    if (PyObject_TypeCheck(o, &VectorizeType)) {
        return ((VectorizeObject *)o)->pyfunc;
    }
    if (PyObject_TypeCheck(o, &ReduceType)) {
        return ((ReduceObject *)o)->pyfunc;
    }
    int dev;
    PyObject *k = mod_kernel_function(o, &dev);
    if (k) {
        if (!dev) {
            PyErr_SetString(PyExc_TypeError, "a kernel cannot be used as a scalar function; "
                            "use @jit.rawkernel(device=True)");
            return NULL;
        }
        return k;
    }
    if (PyFunction_Check(o)) {
        return o;
    }
    PyErr_Format(PyExc_TypeError, "expected a Python function (def or lambda), a vectorize or "
                 "a device function, got %s", Py_TYPE(o)->tp_name);
    return NULL;
}

int
forms_add_types(PyObject *m)
{
    if (PyType_Ready(&VectorizeType) < 0 || PyType_Ready(&ReduceType) < 0
        || PyType_Ready(&GUFuncType) < 0) {
        return -1;
    }
    if (PyModule_AddObjectRef(m, "Vectorize", (PyObject *)&VectorizeType) < 0
        || PyModule_AddObjectRef(m, "Reduce", (PyObject *)&ReduceType) < 0
        || PyModule_AddObjectRef(m, "GUFunc", (PyObject *)&GUFuncType) < 0) {
        return -1;
    }
    return 0;
}
