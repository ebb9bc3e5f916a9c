/* base.c - the bottom of the runtime, which every runtime file may use and
 * which uses none: the exception objects (created by rt_add_types) and the
 * reading of environment switches. */
#include <string.h>
#include <strings.h>

#include "rt_impl.h"

PyObject *rt_CudaError;
PyObject *rt_OutOfMemoryError;

/* "0", "false", "no", "off" (any case): a switch turned off */
int
rt_env_off(const char *v)
{
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0
                 || strcasecmp(v, "off") == 0);
}
