/* intrin.c - the intrinsics: functions a kernel calls by name that map one to
 * one to a C++ function, typed by a signature of letters (cj.h): Numba's
 * cuda.fp16 (cuda_fp16.h's names, on cujit's own float16), the math
 * functions that have no builtin of their own, and cuda.libdevice (every
 * function of NVIDIA's libdevice, called as __nv_<name>; libdevice.inc). */
#include <string.h>

#include "cj.h"

#define CJ_LIBDEVICE(name, sig) {"libdevice." name, "__nv_" name, sig},

const CjIntrin cj_intrins[] = {
    /* cuda.fp16: arithmetic, comparisons and math of float16 (prelude.c's
     * cj_h* functions; add, sub, mul, fma, neg, abs and the comparisons
     * are the f16 instructions) */
    {"fp16.hadd", "cj_hadd", "hhh"}, {"fp16.hsub", "cj_hsub", "hhh"},
    {"fp16.hmul", "cj_hmul", "hhh"}, {"fp16.hdiv", "cj_hdiv", "hhh"},
    {"fp16.hfma", "cj_hfma", "hhhh"}, {"fp16.hneg", "cj_hneg", "hh"},
    {"fp16.habs", "cj_habs", "hh"}, {"fp16.hmax", "cj_hmax", "hhh"},
    {"fp16.hmin", "cj_hmin", "hhh"},
    {"fp16.heq", "cj_heq", "bhh"}, {"fp16.hne", "cj_hne", "bhh"},
    {"fp16.hlt", "cj_hlt", "bhh"}, {"fp16.hle", "cj_hle", "bhh"},
    {"fp16.hgt", "cj_hgt", "bhh"}, {"fp16.hge", "cj_hge", "bhh"},
    {"fp16.hsqrt", "cj_hsqrt", "hh"}, {"fp16.hrsqrt", "cj_hrsqrt", "hh"},
    {"fp16.hrcp", "cj_hrcp", "hh"}, {"fp16.hexp", "cj_hexp", "hh"},
    {"fp16.hexp2", "cj_hexp2", "hh"}, {"fp16.hexp10", "cj_hexp10", "hh"},
    {"fp16.hlog", "cj_hlog", "hh"}, {"fp16.hlog2", "cj_hlog2", "hh"},
    {"fp16.hlog10", "cj_hlog10", "hh"}, {"fp16.hsin", "cj_hsin", "hh"},
    {"fp16.hcos", "cj_hcos", "hh"}, {"fp16.hceil", "cj_hceil", "hh"},
    {"fp16.hfloor", "cj_hfloor", "hh"}, {"fp16.hrint", "cj_hrint", "hh"},
    {"fp16.htrunc", "cj_htrunc", "hh"},
    /* math functions without a builtin of their own (CUDA's math API) */
    {"math.exp2", "exp2", "FF"}, {"math.remainder", "remainder", "FFF"},
    {"math.nextafter", "nextafter", "FFF"}, {"math.ldexp", "ldexp", "FFi"},
    {"math.frexp", "frexp", "FF*i"}, {"math.modf", "modf", "FF*F"},
    {"math.degrees", "cj_degrees", "FF"}, {"math.radians", "cj_radians", "FF"},
#include "libdevice.inc"
};

const int cj_nintrins = (int)(sizeof cj_intrins / sizeof cj_intrins[0]);

int
cj_intrin_find(const char *name)
{
    for (int i = 0; i < cj_nintrins; i++) {
        if (strcmp(cj_intrins[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

int
cj_intrin_is_libdevice(int row)
{
    return strncmp(cj_intrins[row].cname, "__nv_", 5) == 0;
}
