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

/* the number of (cls, vkey) in the table, added when new; 0 with an
 * exception */
static int
intern(PyObject *cls, ArgKey vkey)
{
    for (int i = 0; i < nenums; i++) {
        if (enums[i]->cls == cls && memcmp(&enums[i]->vkey, &vkey, sizeof vkey) == 0) {
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
    e->vkey = vkey;
    enums[nenums++] = e;
    return nenums;
}

/* the key of a member's value: a number or a tuple of numbers (no
 * arrays); -1 with TypeError */
static int
value_key(PyObject *o, PyObject *v, PyObject *base, ArgKey *vkey)
{
    DType dt;
    int ok = v && !PyObject_TypeCheck(v, (PyTypeObject *)base);
    if (ok && PyTuple_Check(v)) {
        RtLeaves lv = {NULL, 0, 0};
        int idx32 = 1;
        ok = rt_tuple_key(v, &lv, 0, NULL, vkey, &idx32) == 0 && lv.n == 0;
        PyMem_Free(lv.a);
        for (int i = 0; ok && i < rt_tuple_of(*vkey)->n; i++) {
            ok = rt_tuple_of(*vkey)->elems[i].kind == 1;        /* numbers only */
        }
    } else if (ok) {
        ok = rt_scalar_dtype(v, &dt) && cj_dtypes[dt].kind != 'c' && !cj_is_record(dt);
        *vkey = ok ? rt_scalar_key(dt) : *vkey;
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "argument: %s members have values of type %s: kernels "
                     "take Enum members whose values are ints, floats, bools or tuples of "
                     "them", Py_TYPE(o)->tp_name, v ? Py_TYPE(v)->tp_name : "?");
        return -1;
    }
    return 0;
}

int
rt_enum_key(PyObject *o, ArgKey *key)
{
    PyObject *base = enum_base(), *cls = (PyObject *)Py_TYPE(o);
    if (!base || !PyType_IsSubtype(Py_TYPE(o), (PyTypeObject *)base)) {
        return 0;
    }
    PyObject *v = PyObject_GetAttrString(o, "_value_");
    ArgKey vkey = {0, 0, 0, 0};
    int r = value_key(o, v, base, &vkey);
    Py_XDECREF(v);
    int id = r < 0 ? 0 : intern(cls, vkey);
    if (!id) {
        return -1;
    }
    key->kind = RT_KEY_ENUM;
    key->dtype = vkey.kind == 1 ? vkey.dtype : 0;
    key->ndim = (unsigned char)(id & 0xff);
    key->flags = (unsigned char)(id >> 8);
    return 1;
}

int
rt_pack_enum(unsigned char *buf, size_t *off, PyObject *o, ArgKey key)
{
    ArgKey vk = rt_enum_of(key)->vkey;
    PyObject *v = PyObject_GetAttrString(o, "_value_");
    const RtArray *none = NULL;
    int r = !v ? -1 : vk.kind == RT_KEY_TUPLE ? rt_pack_tuple(buf, off, v, rt_tuple_of(vk), &none, 1)
                    : rt_pack_scalar(buf, off, v, (DType)vk.dtype);
    Py_XDECREF(v);
    return r;
}
