/* intrin.c - the intrinsics: functions a kernel calls by name that map one to
 * one to a C++ function, typed by a signature of letters (cj.h): Numba's
 * cuda.fp16 (cuda_fp16.h's names, on cujit's own float16), cuda.bf16
 * (cuda_bf16.h's, on cujit's own bfloat16), the math
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
    /* cuda.bf16: cuda_bf16.h's functions of bfloat16 (prelude.c's cj_bf_*);
     * Numba's other spellings (float32_to_bfloat16 ...) are cujit/bf16.py's */
    {"bf16.hadd", "cj_bf_hadd", "yyy"}, {"bf16.hsub", "cj_bf_hsub", "yyy"},
    {"bf16.hmul", "cj_bf_hmul", "yyy"}, {"bf16.hdiv", "cj_bf_hdiv", "yyy"},
    {"bf16.hadd_sat", "cj_bf_hadd_sat", "yyy"}, {"bf16.hsub_sat", "cj_bf_hsub_sat", "yyy"},
    {"bf16.hmul_sat", "cj_bf_hmul_sat", "yyy"}, {"bf16.hmax", "cj_bf_hmax", "yyy"},
    {"bf16.hmin", "cj_bf_hmin", "yyy"}, {"bf16.hmax_nan", "cj_bf_hmax_nan", "yyy"},
    {"bf16.hmin_nan", "cj_bf_hmin_nan", "yyy"}, {"bf16.hadd_rn", "cj_bf_hadd", "yyy"},
    {"bf16.hsub_rn", "cj_bf_hsub", "yyy"}, {"bf16.hmul_rn", "cj_bf_hmul", "yyy"},
    {"bf16.hfma", "cj_bf_hfma", "yyyy"}, {"bf16.hfma_sat", "cj_bf_hfma_sat", "yyyy"},
    {"bf16.hfma_relu", "cj_bf_hfma_relu", "yyyy"}, {"bf16.hneg", "cj_bf_hneg", "yy"},
    {"bf16.habs", "cj_bf_habs", "yy"}, {"bf16.heq", "cj_bf_heq", "byy"},
    {"bf16.hne", "cj_bf_hne", "byy"}, {"bf16.hlt", "cj_bf_hlt", "byy"},
    {"bf16.hle", "cj_bf_hle", "byy"}, {"bf16.hgt", "cj_bf_hgt", "byy"},
    {"bf16.hge", "cj_bf_hge", "byy"}, {"bf16.hequ", "cj_bf_hequ", "byy"},
    {"bf16.hneu", "cj_bf_hneu", "byy"}, {"bf16.hltu", "cj_bf_hltu", "byy"},
    {"bf16.hleu", "cj_bf_hleu", "byy"}, {"bf16.hgtu", "cj_bf_hgtu", "byy"},
    {"bf16.hgeu", "cj_bf_hgeu", "byy"}, {"bf16.hisnan", "cj_bf_hisnan", "by"},
    {"bf16.hisinf", "cj_bf_hisinf", "iy"}, {"bf16.bfloat162float", "cj_bf_to_float", "fy"},
    {"bf16.float2bfloat16", "cj_bf_of_float", "yf"},
    {"bf16.double2bfloat16", "cj_bf_of_double", "yd"},
    {"bf16.float2bfloat16_rn", "cj_bf_of_float_rn", "yf"},
    {"bf16.float2bfloat16_rz", "cj_bf_of_float_rz", "yf"},
    {"bf16.float2bfloat16_rd", "cj_bf_of_float_rd", "yf"},
    {"bf16.float2bfloat16_ru", "cj_bf_of_float_ru", "yf"},
    {"bf16.bfloat162char_rz", "cj_bf_to_i8_rz", "cy"},
    {"bf16.bfloat162uchar_rz", "cj_bf_to_u8_rz", "Cy"},
    {"bf16.short2bfloat16_rn", "cj_bf_of_ll_rn", "ys"},
    {"bf16.bfloat162short_rn", "cj_bf_to_i16_rn", "sy"},
    {"bf16.short2bfloat16_rz", "cj_bf_of_ll_rz", "ys"},
    {"bf16.bfloat162short_rz", "cj_bf_to_i16_rz", "sy"},
    {"bf16.short2bfloat16_rd", "cj_bf_of_ll_rd", "ys"},
    {"bf16.bfloat162short_rd", "cj_bf_to_i16_rd", "sy"},
    {"bf16.short2bfloat16_ru", "cj_bf_of_ll_ru", "ys"},
    {"bf16.bfloat162short_ru", "cj_bf_to_i16_ru", "sy"},
    {"bf16.ushort2bfloat16_rn", "cj_bf_of_ull_rn", "yw"},
    {"bf16.bfloat162ushort_rn", "cj_bf_to_u16_rn", "wy"},
    {"bf16.ushort2bfloat16_rz", "cj_bf_of_ull_rz", "yw"},
    {"bf16.bfloat162ushort_rz", "cj_bf_to_u16_rz", "wy"},
    {"bf16.ushort2bfloat16_rd", "cj_bf_of_ull_rd", "yw"},
    {"bf16.bfloat162ushort_rd", "cj_bf_to_u16_rd", "wy"},
    {"bf16.ushort2bfloat16_ru", "cj_bf_of_ull_ru", "yw"},
    {"bf16.bfloat162ushort_ru", "cj_bf_to_u16_ru", "wy"},
    {"bf16.int2bfloat16_rn", "cj_bf_of_ll_rn", "yi"},
    {"bf16.bfloat162int_rn", "cj_bf_to_i32_rn", "iy"},
    {"bf16.int2bfloat16_rz", "cj_bf_of_ll_rz", "yi"},
    {"bf16.bfloat162int_rz", "cj_bf_to_i32_rz", "iy"},
    {"bf16.int2bfloat16_rd", "cj_bf_of_ll_rd", "yi"},
    {"bf16.bfloat162int_rd", "cj_bf_to_i32_rd", "iy"},
    {"bf16.int2bfloat16_ru", "cj_bf_of_ll_ru", "yi"},
    {"bf16.bfloat162int_ru", "cj_bf_to_i32_ru", "iy"},
    {"bf16.uint2bfloat16_rn", "cj_bf_of_ull_rn", "yu"},
    {"bf16.bfloat162uint_rn", "cj_bf_to_u32_rn", "uy"},
    {"bf16.uint2bfloat16_rz", "cj_bf_of_ull_rz", "yu"},
    {"bf16.bfloat162uint_rz", "cj_bf_to_u32_rz", "uy"},
    {"bf16.uint2bfloat16_rd", "cj_bf_of_ull_rd", "yu"},
    {"bf16.bfloat162uint_rd", "cj_bf_to_u32_rd", "uy"},
    {"bf16.uint2bfloat16_ru", "cj_bf_of_ull_ru", "yu"},
    {"bf16.bfloat162uint_ru", "cj_bf_to_u32_ru", "uy"},
    {"bf16.ll2bfloat16_rn", "cj_bf_of_ll_rn", "yl"},
    {"bf16.bfloat162ll_rn", "cj_bf_to_i64_rn", "ly"},
    {"bf16.ll2bfloat16_rz", "cj_bf_of_ll_rz", "yl"},
    {"bf16.bfloat162ll_rz", "cj_bf_to_i64_rz", "ly"},
    {"bf16.ll2bfloat16_rd", "cj_bf_of_ll_rd", "yl"},
    {"bf16.bfloat162ll_rd", "cj_bf_to_i64_rd", "ly"},
    {"bf16.ll2bfloat16_ru", "cj_bf_of_ll_ru", "yl"},
    {"bf16.bfloat162ll_ru", "cj_bf_to_i64_ru", "ly"},
    {"bf16.ull2bfloat16_rn", "cj_bf_of_ull_rn", "yL"},
    {"bf16.bfloat162ull_rn", "cj_bf_to_u64_rn", "Ly"},
    {"bf16.ull2bfloat16_rz", "cj_bf_of_ull_rz", "yL"},
    {"bf16.bfloat162ull_rz", "cj_bf_to_u64_rz", "Ly"},
    {"bf16.ull2bfloat16_rd", "cj_bf_of_ull_rd", "yL"},
    {"bf16.bfloat162ull_rd", "cj_bf_to_u64_rd", "Ly"},
    {"bf16.ull2bfloat16_ru", "cj_bf_of_ull_ru", "yL"},
    {"bf16.bfloat162ull_ru", "cj_bf_to_u64_ru", "Ly"},
    {"bf16.bfloat16_as_short", "cj_bf_as_short", "sy"},
    {"bf16.bfloat16_as_ushort", "cj_bf_as_ushort", "wy"},
    {"bf16.short_as_bfloat16", "cj_bf_short_as", "ys"},
    {"bf16.ushort_as_bfloat16", "cj_bf_ushort_as", "yw"},
    {"bf16.htrunc", "cj_bf_htrunc", "yy"}, {"bf16.hceil", "cj_bf_hceil", "yy"},
    {"bf16.hfloor", "cj_bf_hfloor", "yy"}, {"bf16.hrint", "cj_bf_hrint", "yy"},
    {"bf16.hsqrt", "cj_bf_hsqrt", "yy"}, {"bf16.hrsqrt", "cj_bf_hrsqrt", "yy"},
    {"bf16.hrcp", "cj_bf_hrcp", "yy"}, {"bf16.hlog", "cj_bf_hlog", "yy"},
    {"bf16.hlog2", "cj_bf_hlog2", "yy"}, {"bf16.hlog10", "cj_bf_hlog10", "yy"},
    {"bf16.hcos", "cj_bf_hcos", "yy"}, {"bf16.hsin", "cj_bf_hsin", "yy"},
    {"bf16.htanh", "cj_bf_htanh", "yy"}, {"bf16.hexp", "cj_bf_hexp", "yy"},
    {"bf16.hexp2", "cj_bf_hexp2", "yy"}, {"bf16.hexp10", "cj_bf_hexp10", "yy"},
    {"bf16.htanh_approx", "cj_bf_htanh", "yy"},
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
