/* kernel.h - what kernel.c (the Kernel type: compiled signatures and
 * inspection) and launch.c (launch configurations, the launch, Launcher)
 * share inside module/. */
#ifndef KERNEL_H
#define KERNEL_H

#include "module.h"

/* the number of positional parameters; -1 for *args, **kwargs or keyword-only
 * ones, which the frontend reports at their line (inline: every launch asks) */
static inline int
fixed_params(KernelObject *k)
{
    PyCodeObject *co = (PyCodeObject *)PyFunction_GET_CODE(k->pyfunc);
    if ((co->co_flags & (CO_VARARGS | CO_VARKEYWORDS)) || co->co_kwonlyargcount) {
        return -1;
    }
    return co->co_argcount;
}

/* the compiled entry for these argument keys, or NULL (inline: the launch
 * path's lookup) */
static inline Entry *
find_entry(KernelObject *k, const ArgKey *keys, int n, int idx32)
{
    for (Entry *e = k->entries; e; e = e->next) {
        if (e->nargs != n || e->idx32 != idx32) {
            continue;
        }
        int i = 0;
        while (i < n && e->keys[i].kind == keys[i].kind && e->keys[i].dtype == keys[i].dtype
               && e->keys[i].ndim == keys[i].ndim && e->keys[i].flags == keys[i].flags) {
            i++;
        }
        if (i == n) {
            return e;
        }
    }
    return NULL;
}

/* the compiled entry for these argument keys, compiled now if new */
Entry *get_entry(KernelObject *k, const ArgKey *keys, int n, int idx32);
/* the entry for keys find_entry did not find, compiled now */
Entry *add_entry(KernelObject *k, const ArgKey *keys, int n, int idx32);
/* loads e for device dev (NVRTC or the caches); -1 with an exception */
int load_entry(KernelObject *k, Entry *e, int dev);

/* raise.c: sets the exception of a kernel's raise (error record kind 3; desc:
 * the raise's message, "module\nqualname\nrepr(args)") */
void raise_from_kernel(const char *desc, const char *kname, const char *file,
                       const CjErrorRecord *rec);

/* the Kernel type's launch slots: k[grid, block, ...], k(grid, block, args) */
PyObject *kernel_getitem(PyObject *self, PyObject *key);
PyObject *kernel_call(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames);

#endif
