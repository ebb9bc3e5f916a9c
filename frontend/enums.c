/* enums.c - Enum and IntEnum members in kernels: a member read as a global
 * or closure value (Color.red, Color["red"]) is a constant of its value
 * that carries its class (Const.enm, Type.enm), so that `is`, == between
 * classes and .value keep Python's meaning.  Members whose values are not
 * numbers are refused where they are read. */
#include <string.h>

#include "fe_impl.h"

/* enum.Enum, or NULL when the enum module cannot be imported */
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

int
fe_is_enum_class(PyObject *obj)
{
    PyObject *base = enum_base();
    return base && PyType_Check(obj) && obj != base
           && PyType_IsSubtype((PyTypeObject *)obj, (PyTypeObject *)base);
}

/* the class's tag (Type.enm): 'I' for an int subclass (IntEnum), else 'E',
 * then module.qualname */
static const char *
enum_tag(Fe *f, PyObject *cls)
{
    PyObject *mod = fe_keep(f, PyObject_GetAttrString(cls, "__module__"));
    PyObject *qn = fe_keep(f, PyObject_GetAttrString(cls, "__qualname__"));
    PyErr_Clear();
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : "?";
    const char *q = qn && PyUnicode_Check(qn) ? PyUnicode_AsUTF8(qn) : "?";
    PyErr_Clear();
    int is_int = PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type);
    return cj_aprintf(f->cx->arena, "%c%s.%s", is_int ? 'I' : 'E', m ? m : "?", q ? q : "?");
}

/* An Enum member as the constant of its value, tagged with its class; NULL
 * when obj is not a member.  A value that is not a number fails at loc. */
Node *
fe_enum_const(Fe *f, PyObject *obj, Loc loc)
{
    PyObject *cls = (PyObject *)Py_TYPE(obj);
    if (!fe_is_enum_class(cls)) {
        return NULL;
    }
    PyObject *v = fe_keep(f, PyObject_GetAttrString(obj, "_value_"));
    PyErr_Clear();
    Node *n = v && !PyTuple_Check(v) && !PyUnicode_Check(v) && !fe_is_enum_class(
        (PyObject *)Py_TYPE(v)) ? fe_object_const(f, v, loc) : NULL;
    if (!n || n->kind != ND_CONST || (n->cval.kind != CK_INT && n->cval.kind != CK_UINT
                                      && n->cval.kind != CK_FLOAT && n->cval.kind != CK_BOOL)) {
        fe_fail_kind(f, loc, CE_TYPE, "%s.%s has a value of type %s: kernels use Enum members "
                     "whose values are ints, floats or bools", ((PyTypeObject *)cls)->tp_name,
                     fe_utf8(f, fe_keep(f, PyObject_GetAttrString(obj, "_name_"))),
                     v ? Py_TYPE(v)->tp_name : "?");
    }
    n->cval.weak = 0;       /* a member is typed as its class's value, never weak */
    n->cval.enm = enum_tag(f, cls);
    return n;
}

/* enum_item := EnumClass '[' constant name ']' (Color["red"]): the member;
 * 0 if e does not index an Enum class */
int
fe_enum_item(Fe *f, PyObject *e, Resolved *out, Loc loc)
{
    Resolved rb;
    PyObject *base = fe_get(f, e, S_value);
    if (!(fe_is(base, A_Name) || fe_is(base, A_Attribute)) || !fe_resolve(f, base, &rb)
        || rb.kind == R_CONST || !rb.obj || !fe_is_enum_class(rb.obj)) {
        return 0;
    }
    PyObject *sl = fe_get(f, e, S_slice);
    PyObject *key = fe_is(sl, A_Constant) ? fe_get(f, sl, S_value) : NULL;
    if (!key || !PyUnicode_Check(key)) {
        fe_fail_kind(f, loc, CE_TYPE, "an Enum class is indexed by a member's name as a "
                     "constant string (Color[\"red\"]) in kernels");
    }
    PyObject *m = fe_keep(f, PyObject_GetItem(rb.obj, key));
    if (!m) {
        PyErr_Clear();
        fe_fail_kind(f, loc, CE_TYPE, "%s has no member '%s'",
                     ((PyTypeObject *)rb.obj)->tp_name, fe_utf8(f, key));
    }
    memset(out, 0, sizeof *out);
    out->kind = R_CONST;
    out->obj = m;
    out->value = m;
    out->node = fe_enum_const(f, m, loc);
    return 1;
}
