/* argenum.c - Enum and IntEnum members as kernel arguments: typed by their
 * class (interned as an RtEnum; the key's dtype is the value's) and passed
 * as their value.  See argdesc.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "rt_impl.h"

#define MAXENUMS 65535          /* numbers fit ndim | flags << 8 */

static RtEnum **enums;
static int nenums, ecap;

const RtEnum *
rt_enum_of(ArgKey k)
{
    int id = k.ndim | k.flags << 8;
    return k.kind == RT_KEY_ENUM && id >= 1 && id <= nenums ? enums[id - 1] : NULL;
}

/* enum.Enum, or NULL */
static PyObject *
enum_base(void)
{
    static PyObject *base;
    if (!base) {
        PyObject *m = PyImport_ImportModule("enum");
        base = m ? PyObject_GetAttrString(m, "Enum") : NULL;
        Py_XDECREF(m);
        PyErr_Clear();
    }
    return base;
}

/* the class's tag: as the frontend makes it (frontend/enums.c) */
static char *
enum_tag(PyObject *cls)
{
    PyObject *mod = PyObject_GetAttrString(cls, "__module__");
    PyObject *qn = PyObject_GetAttrString(cls, "__qualname__");
    PyErr_Clear();
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
    const char *q = qn && PyUnicode_Check(qn) ? PyUnicode_AsUTF8(qn) : NULL;
    PyErr_Clear();
    m = m ? m : "?";
    q = q ? q : "?";
    size_t n = strlen(m) + strlen(q) + 3;
    char *s = malloc(n);
    if (s) {
        snprintf(s, n, "%c%s.%s", PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type) ? 'I' : 'E',
                 m, q);
    }
    Py_XDECREF(mod);
    Py_XDECREF(qn);
    return s;
}

/* the number of cls in the table, added when new; 0 with an exception */
static int
intern(PyObject *cls)
{
    for (int i = 0; i < nenums; i++) {
        if (enums[i]->cls == cls) {
            return i + 1;
        }
    }
    if (nenums >= MAXENUMS) {
        PyErr_SetString(PyExc_TypeError, "too many Enum classes in kernel arguments (65535)");
        return 0;
    }
    if (nenums == ecap) {
        int cap = ecap ? 2 * ecap : 8;
        RtEnum **ne = realloc(enums, sizeof(RtEnum *) * (size_t)cap);
        if (!ne) {
            PyErr_NoMemory();
            return 0;
        }
        enums = ne;
        ecap = cap;
    }
    RtEnum *e = calloc(1, sizeof *e);
    char *tag = e ? enum_tag(cls) : NULL;
    if (!tag) {
        free(e);
        PyErr_NoMemory();
        return 0;
    }
    e->cls = Py_NewRef(cls);
    e->tag = tag;
    enums[nenums++] = e;
    return nenums;
}

int
rt_enum_key(PyObject *o, ArgKey *key)
{
    PyObject *base = enum_base(), *cls = (PyObject *)Py_TYPE(o);
    if (!base || !PyType_IsSubtype(Py_TYPE(o), (PyTypeObject *)base)) {
        return 0;
    }
    PyObject *v = PyObject_GetAttrString(o, "_value_");
    DType dt;
    int ok = v && !PyObject_TypeCheck(v, (PyTypeObject *)base) && rt_scalar_dtype(v, &dt)
             && cj_dtypes[dt].kind != 'c' && !cj_is_record(dt);
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "argument: %s members have values of type %s: kernels "
                     "take Enum members whose values are ints, floats or bools",
                     Py_TYPE(o)->tp_name, v ? Py_TYPE(v)->tp_name : "?");
        Py_XDECREF(v);
        return -1;
    }
    Py_DECREF(v);
    int id = intern(cls);
    if (!id) {
        return -1;
    }
    key->kind = RT_KEY_ENUM;
    key->dtype = (unsigned char)dt;
    key->ndim = (unsigned char)(id & 0xff);
    key->flags = (unsigned char)(id >> 8);
    return 1;
}

int
rt_pack_enum(unsigned char *buf, size_t *off, PyObject *o, DType dt)
{
    PyObject *v = PyObject_GetAttrString(o, "_value_");
    int r = v ? rt_pack_scalar(buf, off, v, dt) : -1;
    Py_XDECREF(v);
    return r;
}
