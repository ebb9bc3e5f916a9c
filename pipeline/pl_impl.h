/* pl_impl.h - what the pipeline's files share: the front key (frontkey.c)
 * and the front-key index records (record.c) that let pl_transpile skip
 * frontend, typeinfer and codegen for a request compiled before. */
#ifndef PL_IMPL_H
#define PL_IMPL_H

#include "pipeline.h"
#include "../frontend/fe.h"

/* pl_raise_compile_error for an error of the compilation cx: the caret's
 * line of a function no file holds comes from the text the frontend found */
void pl_raise_frame_error(const CjError *e, const FeCtx *cx);

/* the kernel type's recognizer given to pl_init */
extern PlKernelFunction pl_kernel_function;

/* The front key of rq: a 128-bit hash of everything its CUDA C++ and
 * PlCompiled's metadata follow from (the functions' code and source file
 * identity, the values of the globals and closure cells they read, device
 * functions recursively, the request's fields, cujit's version and build).
 * Returns 1 with key set; 0 when something cannot be keyed safely (a
 * global that is an arbitrary object, a source not in a file ...), with
 * *why saying what (static text).  Never raises. */
int pl_front_key(const PlRequest *rq, uint64_t key[2], const char **why);
/* what the key reads once per process (the extension's identity), at pl_init */
void pl_front_init(void);

/* c as the bytes of a record (malloc'd into *data); -1: no memory */
int pl_record_encode(const PlCompiled *c, char **data, size_t *len);
/* a record's bytes into *c (zeroed first); -1: malformed (c left empty) */
int pl_record_decode(const char *data, size_t len, PlCompiled *c);

#endif
