/* kernel.h - what kernel.c (the Kernel type: compiled signatures and
 * inspection) and launch.c (launch configurations, the launch, Launcher)
 * share inside module/. */
#ifndef KERNEL_H
#define KERNEL_H

#include "module.h"

/* the number of positional parameters; -1 for *args, **kwargs or keyword-only
 * ones, which the frontend reports at their line */
int fixed_params(KernelObject *k);
/* the compiled entry for these argument keys, compiled now if new */
Entry *get_entry(KernelObject *k, const ArgKey *keys, int n, int idx32);
/* loads e for device dev (NVRTC or the caches); -1 with an exception */
int load_entry(KernelObject *k, Entry *e, int dev);

/* the Kernel type's launch slots: k[grid, block, ...], k(grid, block, args) */
PyObject *kernel_getitem(PyObject *self, PyObject *key);
PyObject *kernel_call(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames);

#endif
