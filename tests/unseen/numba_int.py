"""Integer, bit, byte and image kernels written the way numba.cuda users
write them (uint8 pixels: grayscale, thresholds, blur, sharpen, Sobel,
morphology, histograms and their equalization; hashes and hand-written
PRNGs; popcount, bit reversal, Morton and Gray codes, bit-packed arrays;
radix digits, scans, bitonic and odd-even sorts; BFS, label propagation,
triangles, COO/CSR; edit distance and LCS on byte strings; fixed point,
modular arithmetic, Python's floor division of negatives), run unchanged
under cujit and under numba-cuda.

The references compute what *compiled* Numba computes: an integer operator
works in at least 64 bits (uint8 + uint8 is uint64, uint32 << 13 keeps its
high bits, a variable assigned uint64 and int64 becomes float64), which is
not what NumPy's scalars (and so numba-cuda's simulator) do.  Cases where
the two differ say so in a comment marked "Numba:"; their references were
checked against numba's CPU compiler (the same typing) on the same helpers.

The module imports neither API: load(api, tag) gives a copy of it in which
the global `cuda` is the API module (`cujit.cuda`, `numba.cuda`, or Numba's
simulator), as after a user's `from numba import cuda`.  CASES lists
functions that take no argument and return a Case (as in numba_science.py):
    make(rng)      the host inputs (a tuple), from a seeded default_rng
    run(*inputs)   the host code a user writes: the results, a tuple
    ref(*inputs)   NumPy's results (same tuple), or None where check judges
    check(got, want, inputs)  where not the default exact comparison
    coop           the kernels need the threads of a block to run together

tests/gpu/test_unseen_numba_int.py runs every case on the GPU (under cujit,
and under numba-cuda where it is installed); tests/test_unseen_numba_int_nogpu.py
compiles and runs every case on the fake driver, checking values on the
host (one host thread per CUDA thread where coop)."""
import math

import numpy as np

import corpus  # tests/unseen is on sys.path
from corpus import ExactCase as Case, blocks_for  # noqa: F401  (exact unless tolerances given)

try:
    cuda  # noqa: B018  (set by load() before the module's code runs)
except NameError:
    class _Unloaded:
        """a plain import (the tests read CASES' names): module-level
        `@cuda.jit(device=True)` leaves the function as it is"""
        @staticmethod
        def jit(*args, **kwargs):
            if args and callable(args[0]):
                return args[0]
            return lambda fn: fn
    cuda = _Unloaded()

CASES, case = corpus.registry()

# cases where cujit knowingly differs from Numba: xfail(strict=True) under cujit
CUJIT_XFAIL = {}

# cases numba-cuda's simulator gets wrong, because it computes with NumPy's
# scalars (uint8 + uint8 wraps, a Python int is weak) where compiled Numba
# works in 64 bits; their kernels, run as numba.njit functions (the same
# typing), gave the references' values
SIM_DIFFERS = {
    "gray_average_uint8", "saturating_add_sub_uint8", "box_blur_clamped_border",
    "sharpen_clamp_laplacian", "sobel_l1_uint8_no_casts", "rgba_pack_unpack_uint32",
    "xorshift32_unmasked_numba_widening", "minstd_lcg_int32_state", "morton2d_encode_decode",
    "coo_spmv_int32_into_int64", "caesar_shift_floor_mod", "q16_16_lerp_int32",
    "int8_int16_uint16_store_wraps", "int32_products_and_grid_index_mixing",
    "base64_encode_lookup", "hash_table_cas_linear_probing", "clamp_device_fn_mixed_returns",
}
# and one it cannot run (no warp shuffles there): warp_inclusive_scan_shfl_up_int

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def load(api, tag):
    """A fresh copy of this module whose kernels see `api` as the global
    `cuda`; each API gets its own copy"""
    return corpus.load(__file__, "%s_%s" % (__name__, tag), api)


def grid2(shape, tpb=(16, 16)):
    """blocks for a 2-d launch over (rows, cols) with x along columns"""
    return (blocks_for(shape[1], tpb[0]), blocks_for(shape[0], tpb[1]))


def image(rng, h, w, c=None):
    shape = (h, w) if c is None else (h, w, c)
    return rng.integers(0, 256, shape, dtype=np.uint8)


def _i64(a):
    return np.asarray(a).astype(np.int64)


def _shifted(a, pad_value):
    """the 9 views of a 3x3 neighbourhood of a 2-d array padded by one"""
    p = np.pad(a, 1, constant_values=pad_value)
    h, w = a.shape
    return [p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


# ---- images on raw uint8 pixels ----

@case
def gray_average_uint8():
    # Numba: r + g + b of uint8 pixels is uint64, so no wrap at 256 (NumPy's
    # scalars, and the simulator, wrap)
    @cuda.jit
    def to_gray(img, gray):
        x, y = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            r = img[y, x, 0]
            g = img[y, x, 1]
            b = img[y, x, 2]
            gray[y, x] = (r + g + b) // 3

    def make(rng):
        return (image(rng, 37, 53, 3),)

    def run(img):
        gray = np.zeros(img.shape[:2], dtype=np.uint8)
        to_gray[grid2(img.shape), (16, 16)](img, gray)
        return gray

    return Case(make, run, lambda img: (_i64(img).sum(axis=2) // 3).astype(np.uint8))


@case
def gray_luma_weighted_round():
    @cuda.jit
    def luma(rgb, out):
        i = cuda.grid(1)
        if i >= out.size:
            return
        v = 0.299 * rgb[i, 0] + 0.587 * rgb[i, 1] + 0.114 * rgb[i, 2]
        v = int(v + 0.5)
        if v > 255:
            v = 255
        out[i] = v

    def make(rng):
        return (image(rng, 4000, 3),)

    def run(rgb):
        d_out = cuda.device_array(rgb.shape[0], dtype=np.uint8)
        luma[blocks_for(rgb.shape[0], 256), 256](cuda.to_device(rgb), d_out)
        return d_out.copy_to_host()

    def ref(rgb):
        f = rgb.astype(np.float64)
        v = np.floor(0.299 * f[:, 0] + 0.587 * f[:, 1] + 0.114 * f[:, 2] + 0.5)
        return np.minimum(v, 255).astype(np.uint8)

    # a contracted multiply-add may move a value at .5 by one ulp
    return Case(make, run, ref, atol=1)


THRESH = 128


@case
def threshold_module_constant():
    @cuda.jit
    def threshold(gray, out, inverse):
        row, col = cuda.grid(2)
        if row < gray.shape[0] and col < gray.shape[1]:
            v = gray[row, col]
            if inverse:
                out[row, col] = 0 if v > THRESH else 255
            else:
                out[row, col] = 255 if v > THRESH else 0

    def make(rng):
        return (image(rng, 61, 45),)

    def run(gray):
        d_gray = cuda.to_device(gray)
        a = cuda.device_array_like(d_gray)
        b = cuda.device_array_like(d_gray)
        blocks = (blocks_for(gray.shape[0], 8), blocks_for(gray.shape[1], 32))
        threshold[blocks, (8, 32)](d_gray, a, False)
        threshold[blocks, (8, 32)](d_gray, b, True)
        return a.copy_to_host(), b.copy_to_host()

    def ref(gray):
        a = np.where(gray > THRESH, 255, 0).astype(np.uint8)
        return a, (255 - a).astype(np.uint8)

    return Case(make, run, ref)


@case
def saturating_add_sub_uint8():
    # Numba: a[i] + b[i] is uint64 and s, assigned both it and 255, is
    # float64; the values are exact (the simulator's uint8 wraps)
    @cuda.jit
    def saturate(a, b, add, sub):
        i = cuda.grid(1)
        if i < a.size:
            s = a[i] + b[i]
            if s > 255:
                s = 255
            add[i] = s
            if a[i] > b[i]:
                d = a[i] - b[i]
            else:
                d = 0
            sub[i] = d

    def make(rng):
        return (rng.integers(0, 256, 3000, dtype=np.uint8),
                rng.integers(0, 256, 3000, dtype=np.uint8))

    def run(a, b):
        add = np.zeros_like(a)
        sub = np.zeros_like(a)
        saturate[12, 256](a, b, add, sub)
        return add, sub

    def ref(a, b):
        return (np.minimum(_i64(a) + b, 255).astype(np.uint8),
                np.maximum(_i64(a) - b, 0).astype(np.uint8))

    return Case(make, run, ref)


@case
def brightness_contrast_clamp():
    @cuda.jit
    def adjust(img, out, alpha, beta):
        y, x = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            for c in range(img.shape[2]):
                v = alpha * img[y, x, c] + beta
                out[y, x, c] = np.uint8(min(max(v, 0.0), 255.0))

    def make(rng):
        return image(rng, 40, 33, 3), float(rng.choice([0.5, 0.75, 1.25, 1.5])), \
            int(rng.integers(-60, 60))

    def run(img, alpha, beta):
        out = cuda.device_array_like(img)
        adjust[(blocks_for(img.shape[0], 16), blocks_for(img.shape[1], 16)), (16, 16)](
            cuda.to_device(img), out, alpha, beta)
        return out.copy_to_host()

    def ref(img, alpha, beta):
        return np.clip(alpha * img.astype(np.float64) + beta, 0, 255).astype(np.uint8)

    return Case(make, run, ref)


LEVELS = 4


@case
def invert_posterize():
    @cuda.jit
    def invert(img, inv, post):
        i, j = cuda.grid(2)
        h, w = img.shape
        if i < h and j < w:
            v = img[i, j]
            inv[i, j] = 255 - v
            step = 256 // LEVELS
            post[i, j] = (v // step) * step + step // 2

    def make(rng):
        return (image(rng, 30, 70),)

    def run(img):
        inv = np.empty_like(img)
        post = np.empty_like(img)
        invert[(blocks_for(30, 16), blocks_for(70, 16)), (16, 16)](img, inv, post)
        return inv, post

    def ref(img):
        step = 256 // LEVELS
        return (255 - img).astype(np.uint8), ((img // step) * step + step // 2).astype(np.uint8)

    return Case(make, run, ref)


@case
def box_blur_clamped_border():
    # Numba: acc, 0 then acc + uint8, is int64 (the simulator's weak 0 makes
    # it uint8, which wraps)
    @cuda.jit
    def blur(img, out):
        x, y = cuda.grid(2)
        h, w = img.shape
        if x >= w or y >= h:
            return
        acc = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy = min(max(y + dy, 0), h - 1)
                xx = min(max(x + dx, 0), w - 1)
                acc += img[yy, xx]
        out[y, x] = acc // 9

    def make(rng):
        return (image(rng, 45, 38),)

    def run(img):
        out = cuda.device_array(img.shape, dtype=np.uint8)
        blur[grid2(img.shape), (16, 16)](cuda.to_device(img), out)
        return out.copy_to_host()

    def ref(img):
        p = np.pad(_i64(img), 1, mode="edge")
        h, w = img.shape
        s = sum(p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3))
        return (s // 9).astype(np.uint8)

    return Case(make, run, ref)


@case
def sharpen_clamp_laplacian():
    # Numba: 5 * img[i, j] is int64, so the sum goes negative and is clamped
    # (the simulator's uint8 wraps)
    @cuda.jit
    def sharpen(img, out):
        i, j = cuda.grid(2)
        h, w = img.shape
        if i < h and j < w:
            if i == 0 or j == 0 or i == h - 1 or j == w - 1:
                out[i, j] = img[i, j]
                return
            v = 5 * img[i, j] - img[i - 1, j] - img[i + 1, j] - img[i, j - 1] - img[i, j + 1]
            out[i, j] = min(255, max(0, v))

    def make(rng):
        return (image(rng, 33, 47),)

    def run(img):
        out = np.zeros_like(img)
        sharpen[(blocks_for(33, 8), blocks_for(47, 8)), (8, 8)](img, out)
        return out

    def ref(img):
        out = img.copy()
        a = _i64(img)
        v = 5 * a[1:-1, 1:-1] - a[:-2, 1:-1] - a[2:, 1:-1] - a[1:-1, :-2] - a[1:-1, 2:]
        out[1:-1, 1:-1] = np.clip(v, 0, 255)
        return out

    return Case(make, run, ref)


@case
def sobel_l1_uint8_no_casts():
    # Numba: 2 * img[...] is int64 and the sums with it are too, so gx, gy
    # are signed without any int() (the simulator's uint8 wraps)
    @cuda.jit
    def sobel(img, out):
        y, x = cuda.grid(2)
        h, w = img.shape
        if y >= h or x >= w:
            return
        if y == 0 or x == 0 or y == h - 1 or x == w - 1:
            out[y, x] = 0
            return
        gx = (img[y - 1, x + 1] + 2 * img[y, x + 1] + img[y + 1, x + 1]) - \
             (img[y - 1, x - 1] + 2 * img[y, x - 1] + img[y + 1, x - 1])
        gy = (img[y + 1, x - 1] + 2 * img[y + 1, x] + img[y + 1, x + 1]) - \
             (img[y - 1, x - 1] + 2 * img[y - 1, x] + img[y - 1, x + 1])
        mag = abs(gx) + abs(gy)
        out[y, x] = 255 if mag > 255 else mag

    def make(rng):
        return (image(rng, 41, 36),)

    def run(img):
        out = cuda.device_array_like(img)
        sobel[(blocks_for(41, 16), blocks_for(36, 16)), (16, 16)](cuda.to_device(img), out)
        return out.copy_to_host()

    def ref(img):
        a = _i64(img)
        gx = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
        gy = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
        out = np.zeros_like(img)
        out[1:-1, 1:-1] = np.minimum(np.abs(gx) + np.abs(gy), 255)
        return out

    return Case(make, run, ref)


@case
def erode_dilate_skip_outside():
    @cuda.jit
    def morph(img, eroded, dilated):
        i, j = cuda.grid(2)
        h, w = img.shape
        if i >= h or j >= w:
            return
        lo = 255
        hi = 0
        for di in range(-1, 2):
            ii = i + di
            if ii < 0 or ii >= h:
                continue
            for dj in range(-1, 2):
                jj = j + dj
                if jj < 0 or jj >= w:
                    continue
                v = img[ii, jj]
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
        eroded[i, j] = lo
        dilated[i, j] = hi

    def make(rng):
        return ((rng.random((35, 29)) < 0.6).astype(np.uint8) * 255,)

    def run(img):
        d = cuda.to_device(img)
        e = cuda.device_array_like(d)
        dl = cuda.device_array_like(d)
        morph[(blocks_for(35, 8), blocks_for(29, 8)), (8, 8)](d, e, dl)
        return e.copy_to_host(), dl.copy_to_host()

    def ref(img):
        return (np.minimum.reduce(_shifted(img, 255)).astype(np.uint8),
                np.maximum.reduce(_shifted(img, 0)).astype(np.uint8))

    return Case(make, run, ref)


@case
def median3x3_local_insertion_sort():
    @cuda.jit
    def median3(img, out):
        i, j = cuda.grid(2)
        h, w = img.shape
        if i >= h or j >= w:
            return
        if i == 0 or j == 0 or i == h - 1 or j == w - 1:
            out[i, j] = img[i, j]
            return
        win = cuda.local.array(9, dtype=np.uint8)
        k = 0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                win[k] = img[i + di, j + dj]
                k += 1
        for a in range(1, 9):
            key = win[a]
            b = a - 1
            while b >= 0 and win[b] > key:
                win[b + 1] = win[b]
                b -= 1
            win[b + 1] = key
        out[i, j] = win[4]

    def make(rng):
        return (image(rng, 27, 31),)

    def run(img):
        out = np.zeros_like(img)
        median3[(blocks_for(27, 16), blocks_for(31, 16)), (16, 16)](img, out)
        return out

    def ref(img):
        out = img.copy()
        out[1:-1, 1:-1] = np.median(np.stack(_shifted(img, 0)), axis=0)[1:-1, 1:-1]
        return out

    return Case(make, run, ref)


@case
def histogram_uint32_grid_stride():
    @cuda.jit
    def hist(pixels, bins):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, pixels.shape[0], stride):
            cuda.atomic.add(bins, pixels[i], 1)

    def make(rng):
        return (rng.binomial(255, 0.4, 20000).astype(np.uint8),)

    def run(pixels):
        bins = cuda.to_device(np.zeros(256, dtype=np.uint32))
        hist[16, 128](cuda.to_device(pixels), bins)
        return bins.copy_to_host()

    return Case(make, run, lambda p: np.bincount(p, minlength=256).astype(np.uint32))


NBINS = 256


@case
def histogram_shared_privatized_2d():
    @cuda.jit
    def hist_shared(img, bins):
        local = cuda.shared.array(NBINS, dtype=np.int32)
        t = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x
        nthreads = cuda.blockDim.x * cuda.blockDim.y
        for k in range(t, NBINS, nthreads):
            local[k] = 0
        cuda.syncthreads()
        x, y = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            cuda.atomic.add(local, img[y, x], 1)
        cuda.syncthreads()
        for k in range(t, NBINS, nthreads):
            if local[k] > 0:
                cuda.atomic.add(bins, k, local[k])

    def make(rng):
        return (image(rng, 50, 70),)

    def run(img):
        bins = cuda.to_device(np.zeros(NBINS, dtype=np.int32))
        hist_shared[grid2(img.shape, (16, 8)), (16, 8)](cuda.to_device(img), bins)
        return bins.copy_to_host()

    return Case(make, run, lambda img: np.bincount(img.ravel(), minlength=256).astype(np.int32),
                coop=True)


@case
def histogram_equalization_lut():
    @cuda.jit
    def histogram(img, hist):
        x, y = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            cuda.atomic.add(hist, img[y, x], 1)

    @cuda.jit
    def build_lut(cdf, cdf_min, total, lut):
        v = cuda.grid(1)
        if v < lut.shape[0]:
            num = (cdf[v] - cdf_min) * 255
            den = total - cdf_min
            lut[v] = max(0, min(255, num // den))

    @cuda.jit
    def apply_lut(img, lut, out):
        x, y = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            out[y, x] = lut[img[y, x]]

    def make(rng):
        return (rng.integers(40, 180, (48, 64)).astype(np.uint8),)

    def run(img):
        d_img = cuda.to_device(img)
        d_hist = cuda.to_device(np.zeros(256, dtype=np.int32))
        blocks = grid2(img.shape)
        histogram[blocks, (16, 16)](d_img, d_hist)
        cdf = np.cumsum(d_hist.copy_to_host()).astype(np.int32)
        cdf_min = int(cdf[cdf > 0].min())
        d_lut = cuda.device_array(256, dtype=np.uint8)
        build_lut[1, 256](cuda.to_device(cdf), cdf_min, img.size, d_lut)
        out = cuda.device_array_like(d_img)
        apply_lut[blocks, (16, 16)](d_img, d_lut, out)
        return out.copy_to_host()

    def ref(img):
        cdf = np.cumsum(np.bincount(img.ravel(), minlength=256)).astype(np.int64)
        cmin = cdf[cdf > 0].min()
        lut = np.clip((cdf - cmin) * 255 // (img.size - cmin), 0, 255).astype(np.uint8)
        return lut[img]

    return Case(make, run, ref)


@case
def rgba_pack_unpack_uint32():
    # Numba: a << 24 of a uint8 is uint64 (the simulator's uint8 shifts out)
    @cuda.jit
    def pack(rgba, packed):
        i = cuda.grid(1)
        if i < packed.shape[0]:
            r, g, b, a = rgba[i, 0], rgba[i, 1], rgba[i, 2], rgba[i, 3]
            packed[i] = (a << 24) | (b << 16) | (g << 8) | r

    @cuda.jit
    def unpack_bgra(packed, out):
        i = cuda.grid(1)
        if i < packed.shape[0]:
            p = packed[i]
            out[i, 0] = (p >> 16) & 0xFF
            out[i, 1] = (p >> 8) & 0xFF
            out[i, 2] = p & 0xFF
            out[i, 3] = p >> 24

    def make(rng):
        return (image(rng, 1500, 4),)

    def run(rgba):
        d_packed = cuda.device_array(rgba.shape[0], dtype=np.uint32)
        pack[blocks_for(1500, 128), 128](cuda.to_device(rgba), d_packed)
        out = cuda.device_array(rgba.shape, dtype=np.uint8)
        unpack_bgra[blocks_for(1500, 128), 128](d_packed, out)
        return d_packed.copy_to_host(), out.copy_to_host()

    def ref(rgba):
        c = rgba.astype(np.uint32)
        packed = (c[:, 3] << 24) | (c[:, 2] << 16) | (c[:, 1] << 8) | c[:, 0]
        return packed, rgba[:, [2, 1, 0, 3]].copy()

    return Case(make, run, ref)


# ---- hashes and hand-written generators ----

FNV32_OFFSET = 2166136261
FNV32_PRIME = 16777619


def _fnv1a32(row):
    h = FNV32_OFFSET
    for b in row:
        h = ((h ^ int(b)) * FNV32_PRIME) & M32
    return h


@case
def fnv1a32_rows_of_bytes():
    # Numba: h ^ byte is uint64, so h is uint64 and the product wraps at 64
    # bits; its low 32 bits, stored, are FNV-1a's
    @cuda.jit
    def fnv1a(rows, lengths, out):
        r = cuda.grid(1)
        if r >= rows.shape[0]:
            return
        h = np.uint32(FNV32_OFFSET)
        for j in range(lengths[r]):
            h ^= rows[r, j]
            h *= np.uint32(FNV32_PRIME)
        out[r] = h

    def make(rng):
        return image(rng, 300, 40), rng.integers(0, 41, 300).astype(np.int32)

    def run(rows, lengths):
        out = np.zeros(rows.shape[0], dtype=np.uint32)
        fnv1a[blocks_for(300, 64), 64](rows, lengths, out)
        return out

    return Case(make, run, lambda rows, n: np.array([_fnv1a32(r[:k]) for r, k in zip(rows, n)],
                                                   dtype=np.uint32))


@case
def fnv1a64_iterate_row_view():
    @cuda.jit
    def fnv64(data, out):
        r = cuda.grid(1)
        if r < data.shape[0]:
            h = np.uint64(0xCBF29CE484222325)
            prime = np.uint64(0x100000001B3)
            for b in data[r]:
                h = (h ^ b) * prime
            out[r] = h

    def make(rng):
        return (image(rng, 200, 24),)

    def run(data):
        out = cuda.device_array(data.shape[0], dtype=np.uint64)
        fnv64[4, 64](cuda.to_device(data), out)
        return out.copy_to_host()

    def ref(data):
        res = []
        for row in data:
            h = 0xCBF29CE484222325
            for b in row:
                h = ((h ^ int(b)) * 0x100000001B3) & M64
            res.append(h)
        return np.array(res, dtype=np.uint64)

    return Case(make, run, ref)


U32_MASK = np.uint64(0xFFFFFFFF)


@cuda.jit(device=True)
def fmix32(h):
    h ^= h >> 16
    h = (h * np.uint64(0x85EBCA6B)) & U32_MASK
    h ^= h >> 13
    h = (h * np.uint64(0xC2B2AE35)) & U32_MASK
    h ^= h >> 16
    return h


@cuda.jit(device=True)
def fmix32_unmasked(h):
    h ^= h >> 16
    h *= np.uint64(0x85EBCA6B)
    h ^= h >> 13
    h *= np.uint64(0xC2B2AE35)
    h ^= h >> 16
    return h


def _fmix32(h, mask):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    return h ^ (h >> 16)


@case
def murmur_fmix32_uint64_masks():
    # Numba: keys[i] ^ seeds[...] of uint32s is uint64; with np.uint64
    # constants and masks everything stays uint64 and the result is murmur3's
    # fmix32.  Without masks (fmix32_unmasked) the state is 64 bits wide and
    # h >> 13 brings the product's high bits down: not fmix32, and the
    # reference follows.  (Written with Python int constants, h * 0x85EBCA6B
    # would be uint64 * int64, an int64 past 2**63: signed overflow, which
    # Numba's `mul nsw` leaves undefined, so no case relies on it.)
    @cuda.jit
    def hash_keys(keys, seeds, out, wide):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            k = keys[i] ^ seeds[i % seeds.shape[0]]
            out[i] = fmix32(k)
            wide[i] = fmix32_unmasked(k)

    def make(rng):
        return (rng.integers(0, 1 << 32, 2000, dtype=np.uint32),
                rng.integers(0, 1 << 32, 7, dtype=np.uint32))

    def run(keys, seeds):
        out = np.zeros_like(keys)
        wide = np.zeros(keys.size, dtype=np.uint64)
        hash_keys[blocks_for(2000, 256), 256](keys, seeds, out, wide)
        return out, wide

    def ref(keys, seeds):
        ks = [int(k) ^ int(seeds[i % 7]) for i, k in enumerate(keys)]
        return (np.array([_fmix32(k, M32) for k in ks], dtype=np.uint32),
                np.array([_fmix32(k, M64) for k in ks], dtype=np.uint64))

    return Case(make, run, ref)


@case
def xorshift32_unmasked_numba_widening():
    # Numba: x << 13 of a uint32 is uint64 and x, a loop variable, is
    # uint64: the state is 64 bits wide and x >> 17 brings its high bits
    # down; the stored values are the low 32 bits of that 64-bit state (not
    # Marsaglia's xorshift32, which the masked case below computes)
    @cuda.jit
    def xorshift_fill(seeds, out):
        i = cuda.grid(1)
        if i >= seeds.shape[0]:
            return
        x = seeds[i]
        for k in range(out.shape[1]):
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            out[i, k] = x

    def make(rng):
        return (rng.integers(1, 1 << 32, 500, dtype=np.uint32),)

    def run(seeds):
        out = np.zeros((seeds.size, 12), dtype=np.uint32)
        xorshift_fill[blocks_for(500, 128), 128](seeds, out)
        return out

    def ref(seeds):
        x = seeds.astype(np.uint64)
        out = np.zeros((seeds.size, 12), dtype=np.uint32)
        for k in range(12):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(17)
            x ^= x << np.uint64(5)
            out[:, k] = x.astype(np.uint32)
        return out

    return Case(make, run, ref)


MASK32 = 0xFFFFFFFF


@cuda.jit(device=True)
def xorshift32(x):
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    return x


@case
def xorshift32_masked_uniforms():
    @cuda.jit
    def uniform_fill(state, out):
        i = cuda.grid(1)
        if i < state.shape[0]:
            s = state[i]
            for k in range(out.shape[1]):
                s = xorshift32(s)
                out[i, k] = s / 4294967296.0
            state[i] = s

    def make(rng):
        return (rng.integers(1, 1 << 32, 700, dtype=np.uint32),)

    def run(state):
        d_state = cuda.to_device(state)
        d_out = cuda.device_array((state.size, 10), dtype=np.float64)
        uniform_fill[blocks_for(700, 64), 64](d_state, d_out)
        return d_state.copy_to_host(), d_out.copy_to_host()

    def ref(state):
        out = np.zeros((state.size, 10))
        last = []
        for i, s in enumerate(state):
            x = int(s)
            for k in range(10):
                x ^= (x << 13) & M32
                x ^= x >> 17
                x ^= (x << 5) & M32
                out[i, k] = x / 4294967296.0
            last.append(x)
        return np.array(last, dtype=np.uint32), out

    return Case(make, run, ref)


@cuda.jit(device=True)
def splitmix64(z):
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    return z ^ (z >> 31)


@case
def splitmix64_uint64_constants():
    # Numba: an integer literal above 2**63 - 1 is uint64, so z stays uint64
    @cuda.jit
    def keyed(seed, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = splitmix64(seed + np.uint64(i) * np.uint64(0x9E3779B97F4A7C15))

    def make(rng):
        return (np.uint64(rng.integers(0, 1 << 63)),)

    def run(seed):
        out = cuda.device_array(3000, dtype=np.uint64)
        keyed[blocks_for(3000, 256), 256](seed, out)
        return out.copy_to_host()

    def ref(seed):
        res = []
        for i in range(3000):
            z = (int(seed) + i * 0x9E3779B97F4A7C15) & M64
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            res.append(z ^ (z >> 31))
        return np.array(res, dtype=np.uint64)

    return Case(make, run, ref)


@case
def minstd_lcg_int32_state():
    # Numba: int32 * 48271 is int64 (no overflow); the simulator's int32 wraps
    @cuda.jit
    def minstd(seeds, out):
        i = cuda.grid(1)
        if i < seeds.shape[0]:
            x = seeds[i]
            for k in range(out.shape[1]):
                x = (x * 48271) % 2147483647
                out[i, k] = x

    def make(rng):
        return (rng.integers(1, 2147483647, 400).astype(np.int32),)

    def run(seeds):
        out = np.zeros((400, 8), dtype=np.int32)
        minstd[4, 128](seeds, out)
        return out

    def ref(seeds):
        out = np.zeros((400, 8), dtype=np.int32)
        x = seeds.astype(np.int64)
        for k in range(8):
            x = (x * 48271) % 2147483647
            out[:, k] = x
        return out

    return Case(make, run, ref)


# ---- bit tricks ----

FOLD_LIMIT = 1 << 20


@case
def key_fields_read_before_conditional_rebind():
    # Numba: v = keys[i] is a uint32 where v >> 16 (a uint64) reads it; the
    # if rebinds v to v - FOLD_LIMIT, an int64, and only the version after
    # the if (Numba's phi) is int64, so hi & 0xFF is uint64 & int64
    @cuda.jit
    def fold(keys, fields, folded):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            v = keys[i]
            hi = v >> 16
            lo = v & 0xFFFF
            if v >= FOLD_LIMIT:
                v = v - FOLD_LIMIT
            fields[i] = (hi & 0xFF) * 65536 + lo
            folded[i] = v

    def make(rng):
        return (rng.integers(0, 1 << 32, 1500, dtype=np.uint32) >> rng.integers(
            0, 20, 1500).astype(np.uint32),)

    def run(keys):
        fields = np.zeros(keys.size, dtype=np.int64)
        folded = np.zeros(keys.size, dtype=np.int64)
        fold[blocks_for(keys.size, 128), 128](keys, fields, folded)
        return fields, folded

    def ref(keys):
        k = _i64(keys)
        return ((k >> 16) & 0xFF) * 65536 + (k & 0xFFFF), np.where(k >= FOLD_LIMIT, k - FOLD_LIMIT, k)

    return Case(make, run, ref)


@case
def popcount_three_ways():
    @cuda.jit
    def popcounts(words, hw, loop, kernighan):
        i = cuda.grid(1)
        if i < words.size:
            w = words[i]
            hw[i] = cuda.popc(w)
            c = 0
            v = w
            while v:
                c += v & 1
                v >>= 1
            loop[i] = c
            k = 0
            while w != 0:
                w &= w - 1
                k += 1
            kernighan[i] = k

    def make(rng):
        w = rng.integers(0, 1 << 32, 1000, dtype=np.uint32)
        w[:3] = (0, 0xFFFFFFFF, 0x80000000)
        return (w,)

    def run(words):
        outs = [np.zeros(words.size, dtype=np.int32) for _ in range(3)]
        popcounts[blocks_for(words.size, 128), 128](words, *outs)
        return tuple(outs)

    def ref(words):
        c = np.bitwise_count(words).astype(np.int32)
        return c, c, c

    return Case(make, run, ref)


@case
def bit_reverse_masks_and_brev():
    @cuda.jit
    def reverse_bits(x, manual, hw):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = x[i]
            v = ((v >> 1) & 0x55555555) | ((v & 0x55555555) << 1)
            v = ((v >> 2) & 0x33333333) | ((v & 0x33333333) << 2)
            v = ((v >> 4) & 0x0F0F0F0F) | ((v & 0x0F0F0F0F) << 4)
            v = ((v >> 8) & 0x00FF00FF) | ((v & 0x00FF00FF) << 8)
            v = (v >> 16) | (v << 16)
            manual[i] = v
            hw[i] = cuda.brev(x[i])

    def make(rng):
        return (rng.integers(0, 1 << 32, 1200, dtype=np.uint32),)

    def run(x):
        a = np.zeros_like(x)
        b = np.zeros_like(x)
        reverse_bits[blocks_for(x.size, 256), 256](x, a, b)
        return a, b

    def ref(x):
        r = np.array([int("{:032b}".format(int(v))[::-1], 2) for v in x], dtype=np.uint32)
        return r, r

    return Case(make, run, ref)


@cuda.jit(device=True)
def part1by1(n):
    n &= 0x0000FFFF
    n = (n | (n << 8)) & 0x00FF00FF
    n = (n | (n << 4)) & 0x0F0F0F0F
    n = (n | (n << 2)) & 0x33333333
    n = (n | (n << 1)) & 0x55555555
    return n


@cuda.jit(device=True)
def compact1by1(n):
    n &= 0x55555555
    n = (n ^ (n >> 1)) & 0x33333333
    n = (n ^ (n >> 2)) & 0x0F0F0F0F
    n = (n ^ (n >> 4)) & 0x00FF00FF
    n = (n ^ (n >> 8)) & 0x0000FFFF
    return n


@case
def morton2d_encode_decode():
    # Numba: n & 0x0000FFFF of a uint16 is int64, so n << 8 keeps its bits
    # (the simulator's uint16 refuses the mask 0x00FF00FF)
    @cuda.jit
    def morton(xs, ys, codes, xs_back, ys_back):
        i = cuda.grid(1)
        if i < codes.shape[0]:
            code = (part1by1(ys[i]) << 1) | part1by1(xs[i])
            codes[i] = code
            xs_back[i] = compact1by1(code)
            ys_back[i] = compact1by1(code >> 1)

    def make(rng):
        return (rng.integers(0, 1 << 16, 900, dtype=np.uint16),
                rng.integers(0, 1 << 16, 900, dtype=np.uint16))

    def run(xs, ys):
        codes = np.zeros(900, dtype=np.uint32)
        xb = np.zeros_like(xs)
        yb = np.zeros_like(ys)
        morton[blocks_for(900, 128), 128](xs, ys, codes, xb, yb)
        return codes, xb, yb

    def ref(xs, ys):
        codes = np.zeros(900, dtype=np.uint32)
        for b in range(16):
            codes |= ((xs.astype(np.uint32) >> b) & 1) << (2 * b)
            codes |= ((ys.astype(np.uint32) >> b) & 1) << (2 * b + 1)
        return codes, xs.copy(), ys.copy()

    return Case(make, run, ref)


@case
def gray_code_encode_decode_int32():
    @cuda.jit
    def gray_codes(n, enc, dec):
        i = cuda.grid(1)
        if i < n.shape[0]:
            v = n[i]
            g = v ^ (v >> 1)
            enc[i] = g
            b = g
            shift = 1
            while shift < 32:
                b ^= b >> shift
                shift <<= 1
            dec[i] = b

    def make(rng):
        return (rng.integers(0, 1 << 31, 800).astype(np.int32),)

    def run(n):
        enc = np.zeros_like(n)
        dec = np.zeros_like(n)
        gray_codes[blocks_for(800, 128), 128](n, enc, dec)
        return enc, dec

    return Case(make, run, lambda n: (n ^ (n >> 1), n.copy()))


@case
def clz_ffs_log2():
    @cuda.jit
    def log2_bits(x, floor_log2, ceil_log2, lowest):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = x[i]
            fl = 31 - cuda.clz(v)
            floor_log2[i] = fl
            ceil_log2[i] = fl if (v & (v - 1)) == 0 else fl + 1
            lowest[i] = cuda.ffs(v)

    def make(rng):
        x = rng.integers(1, 1 << 32, 1000, dtype=np.uint32) >> rng.integers(0, 32, 1000).astype(
            np.uint32)
        x = np.maximum(x, 1).astype(np.uint32)
        x[:4] = (1, 2, 1 << 31, 0xFFFFFFFF)
        return (x,)

    def run(x):
        outs = [np.zeros(x.size, dtype=np.int32) for _ in range(3)]
        log2_bits[blocks_for(x.size, 128), 128](x, *outs)
        return tuple(outs)

    def ref(x):
        fl = np.array([int(v).bit_length() - 1 for v in x], dtype=np.int32)
        pow2 = (x & (x - np.uint32(1))) == 0
        low = np.array([(int(v) & -int(v)).bit_length() for v in x], dtype=np.int32)
        return fl, np.where(pow2, fl, fl + 1).astype(np.int32), low

    return Case(make, run, ref)


@case
def bitpacked_flags_atomic_or():
    @cuda.jit
    def pack_bits(flags, words):
        i = cuda.grid(1)
        if i < flags.shape[0] and flags[i]:
            cuda.atomic.or_(words, i // 32, 1 << (i % 32))

    @cuda.jit
    def test_bits(words, idx, out):
        k = cuda.grid(1)
        if k < idx.shape[0]:
            i = idx[k]
            out[k] = (words[i >> 5] >> (i & 31)) & 1

    def make(rng):
        return rng.random(3000) < 0.3, rng.integers(0, 3000, 500)

    def run(flags, idx):
        words = cuda.to_device(np.zeros((flags.size + 31) // 32, dtype=np.uint32))
        pack_bits[blocks_for(flags.size, 256), 256](cuda.to_device(flags), words)
        out = cuda.device_array(idx.size, dtype=np.uint8)
        test_bits[blocks_for(idx.size, 128), 128](words, cuda.to_device(idx), out)
        return words.copy_to_host(), out.copy_to_host()

    def ref(flags, idx):
        padded = np.zeros(((flags.size + 31) // 32) * 32, dtype=bool)
        padded[:flags.size] = flags
        words = np.packbits(padded, bitorder="little").view(np.uint32)
        return words, flags[idx].astype(np.uint8)

    return Case(make, run, ref)


@case
def bitset_jaccard_popc_uint64():
    @cuda.jit
    def jaccard(a, b, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < b.shape[0]:
            inter = 0
            union = 0
            for w in range(a.shape[1]):
                inter += cuda.popc(a[i, w] & b[j, w])
                union += cuda.popc(a[i, w] | b[j, w])
            out[i, j] = inter / union if union > 0 else 1.0

    def make(rng):
        a = rng.integers(0, 1 << 63, (40, 4), dtype=np.uint64) & rng.integers(
            0, 1 << 63, (40, 4), dtype=np.uint64)
        b = rng.integers(0, 1 << 63, (30, 4), dtype=np.uint64) << np.uint64(1)
        a[0] = 0
        b[0] = 0
        return a, b

    def run(a, b):
        out = np.zeros((40, 30))
        jaccard[(3, 2), (16, 16)](a, b, out)
        return out

    def ref(a, b):
        inter = np.bitwise_count(a[:, None, :] & b[None, :, :]).sum(-1).astype(np.int64)
        union = np.bitwise_count(a[:, None, :] | b[None, :, :]).sum(-1).astype(np.int64)
        return np.where(union > 0, inter / np.maximum(union, 1), 1.0)

    return Case(make, run, ref)


# ---- sorting and scans on integer keys ----

RADIX_BITS = 4
RADIX = 1 << RADIX_BITS


@case
def radix_sort_lsd_digit_passes():
    @cuda.jit
    def digit_counts(keys, shift, counts):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            d = (keys[i] >> shift) & (RADIX - 1)
            cuda.atomic.add(counts, (cuda.blockIdx.x, d), 1)

    @cuda.jit
    def scatter(keys, shift, offsets, out):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            d = (keys[i] >> shift) & (RADIX - 1)
            start = cuda.blockIdx.x * cuda.blockDim.x
            rank = 0
            for j in range(start, i):
                if (keys[j] >> shift) & (RADIX - 1) == d:
                    rank += 1
            out[offsets[cuda.blockIdx.x, d] + rank] = keys[i]

    def make(rng):
        return (rng.integers(0, 1 << 32, 1000, dtype=np.uint32),)

    def run(keys):
        tpb = 128
        nb = blocks_for(keys.size, tpb)
        d_a = cuda.to_device(keys)
        d_b = cuda.device_array_like(d_a)
        for shift in range(0, 32, RADIX_BITS):
            d_counts = cuda.to_device(np.zeros((nb, RADIX), dtype=np.int32))
            digit_counts[nb, tpb](d_a, shift, d_counts)
            counts = d_counts.copy_to_host()
            flat = counts.T.ravel()
            offsets = (np.cumsum(flat) - flat).reshape(RADIX, nb).T.copy()
            scatter[nb, tpb](d_a, shift, cuda.to_device(offsets), d_b)
            d_a, d_b = d_b, d_a
        return d_a.copy_to_host()

    return Case(make, run, lambda keys: np.sort(keys))


SCAN_TPB = 128


@case
def block_scan_int32_int64_totals():
    @cuda.jit
    def block_scan(x, out, block_sums, total):
        tmp = cuda.shared.array(SCAN_TPB, dtype=np.int32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        tmp[t] = x[i] if i < x.shape[0] else 0
        cuda.syncthreads()
        offset = 1
        while offset < SCAN_TPB:
            v = tmp[t - offset] if t >= offset else 0
            cuda.syncthreads()
            tmp[t] += v
            cuda.syncthreads()
            offset *= 2
        if i < x.shape[0]:
            out[i] = tmp[t]
        if t == SCAN_TPB - 1:
            block_sums[cuda.blockIdx.x] = tmp[t]
            cuda.atomic.add(total, 0, tmp[t])

    @cuda.jit
    def add_offsets(out, block_offsets):
        i = cuda.grid(1)
        if i < out.shape[0] and cuda.blockIdx.x > 0:
            out[i] += block_offsets[cuda.blockIdx.x - 1]

    def make(rng):
        return (rng.integers(0, 1_000_000, 5000).astype(np.int32),)

    def run(x):
        nb = blocks_for(x.size, SCAN_TPB)
        d_out = cuda.device_array(x.size, dtype=np.int64)
        d_sums = cuda.device_array(nb, dtype=np.int32)
        d_total = cuda.to_device(np.zeros(1, dtype=np.int64))
        block_scan[nb, SCAN_TPB](cuda.to_device(x), d_out, d_sums, d_total)
        offsets = np.cumsum(d_sums.copy_to_host(), dtype=np.int64)
        add_offsets[nb, SCAN_TPB](d_out, cuda.to_device(offsets))
        return d_out.copy_to_host(), d_total.copy_to_host()

    return Case(make, run, lambda x: (np.cumsum(x, dtype=np.int64),
                                      np.array([x.sum(dtype=np.int64)])), coop=True)


@case
def bitonic_sort_global_steps():
    @cuda.jit
    def bitonic_step(keys, j, k):
        i = cuda.grid(1)
        ixj = i ^ j
        if ixj > i and ixj < keys.shape[0]:
            up = (i & k) == 0
            a = keys[i]
            b = keys[ixj]
            if (up and a > b) or (not up and a < b):
                keys[i] = b
                keys[ixj] = a

    def make(rng):
        return (rng.integers(-50000, 50000, 1024).astype(np.int32),)

    def run(keys):
        n = keys.size
        d = cuda.to_device(keys)
        k = 2
        while k <= n:
            j = k // 2
            while j > 0:
                bitonic_step[n // 256, 256](d, j, k)
                j //= 2
            k *= 2
        return d.copy_to_host()

    return Case(make, run, lambda keys: np.sort(keys))


@case
def odd_even_transposition_int64():
    @cuda.jit
    def odd_even_phase(a, phase):
        k = cuda.grid(1)
        i = 2 * k + phase
        if i + 1 < a.shape[0]:
            if a[i] > a[i + 1]:
                a[i], a[i + 1] = a[i + 1], a[i]

    def make(rng):
        return (rng.integers(-(1 << 40), 1 << 40, 301),)

    def run(a):
        d = cuda.to_device(a)
        for p in range(a.size):
            odd_even_phase[2, 128](d, p % 2)
        return d.copy_to_host()

    return Case(make, run, lambda a: np.sort(a))


@case
def rank_sort_int16_stable():
    @cuda.jit
    def rank_sort(keys, out):
        i = cuda.grid(1)
        n = keys.shape[0]
        if i < n:
            mine = keys[i]
            rank = 0
            for j in range(n):
                other = keys[j]
                if other < mine or (other == mine and j < i):
                    rank += 1
            out[rank] = mine

    def make(rng):
        return (rng.integers(-300, 300, 777).astype(np.int16),)

    def run(keys):
        out = np.zeros_like(keys)
        rank_sort[blocks_for(keys.size, 128), 128](keys, out)
        return out

    return Case(make, run, lambda keys: np.sort(keys, kind="stable"))


# ---- graphs and sparse matrices on integer index arrays ----

def _random_graph(rng, n, m):
    """an undirected simple graph: COO (src, dst) of both directions and its
    CSR (rowptr, colidx sorted in each row), int32"""
    a = rng.integers(0, n, m)
    b = rng.integers(0, n, m)
    keep = a != b
    pairs = np.unique(np.sort(np.stack([a[keep], b[keep]], 1), axis=1), axis=0)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int32)
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]]).astype(np.int32)
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    rowptr = np.zeros(n + 1, dtype=np.int32)
    np.add.at(rowptr, src + 1, 1)
    return src, dst, np.cumsum(rowptr).astype(np.int32), dst.copy()


@case
def bfs_levels_csr_frontier():
    @cuda.jit
    def bfs_level(rowptr, colidx, level, depth, changed):
        v = cuda.grid(1)
        if v < level.shape[0] and level[v] == depth:
            for e in range(rowptr[v], rowptr[v + 1]):
                u = colidx[e]
                if level[u] == -1:
                    level[u] = depth + 1
                    changed[0] = 1

    def make(rng):
        _, _, rowptr, colidx = _random_graph(rng, 500, 700)
        return rowptr, colidx, int(rng.integers(0, 500))

    def run(rowptr, colidx, source):
        n = rowptr.size - 1
        level = np.full(n, -1, dtype=np.int32)
        level[source] = 0
        d_level = cuda.to_device(level)
        d_rp, d_ci = cuda.to_device(rowptr), cuda.to_device(colidx)
        changed = cuda.device_array(1, dtype=np.int32)
        depth = 0
        while True:
            changed.copy_to_device(np.zeros(1, dtype=np.int32))
            bfs_level[blocks_for(n, 128), 128](d_rp, d_ci, d_level, depth, changed)
            if changed.copy_to_host()[0] == 0:
                break
            depth += 1
        return d_level.copy_to_host()

    def ref(rowptr, colidx, source):
        level = np.full(rowptr.size - 1, -1, dtype=np.int32)
        level[source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for v in frontier:
                for u in colidx[rowptr[v]:rowptr[v + 1]]:
                    if level[u] == -1:
                        level[u] = level[v] + 1
                        nxt.append(u)
            frontier = nxt
        return level

    return Case(make, run, ref)


@case
def connected_components_label_propagation():
    @cuda.jit
    def propagate(src, dst, labels, changed):
        e = cuda.grid(1)
        if e < src.shape[0]:
            a = src[e]
            b = dst[e]
            la = labels[a]
            lb = labels[b]
            if la < lb:
                old = cuda.atomic.min(labels, b, la)
                if la < old:
                    changed[0] = 1
            elif lb < la:
                old = cuda.atomic.min(labels, a, lb)
                if lb < old:
                    changed[0] = 1

    def make(rng):
        src, dst, _, _ = _random_graph(rng, 400, 300)
        return src, dst

    def run(src, dst):
        labels = cuda.to_device(np.arange(400, dtype=np.int32))
        d_src, d_dst = cuda.to_device(src), cuda.to_device(dst)
        flag = cuda.to_device(np.ones(1, dtype=np.int32))
        rounds = 0
        while flag.copy_to_host()[0] and rounds < 1000:
            flag.copy_to_device(np.zeros(1, dtype=np.int32))
            propagate[blocks_for(src.size, 128), 128](d_src, d_dst, labels, flag)
            rounds += 1
        return labels.copy_to_host()

    def ref(src, dst):
        parent = list(range(400))

        def find(v):
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v
        for a, b in zip(src, dst):
            ra, rb = find(int(a)), find(int(b))
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        return np.array([find(v) for v in range(400)], dtype=np.int32)

    return Case(make, run, ref)


@case
def triangle_count_sorted_csr():
    @cuda.jit
    def triangles(rowptr, colidx, count):
        u = cuda.grid(1)
        if u >= rowptr.shape[0] - 1:
            return
        local = 0
        for e in range(rowptr[u], rowptr[u + 1]):
            v = colidx[e]
            if v <= u:
                continue
            p, pe = rowptr[u], rowptr[u + 1]
            q, qe = rowptr[v], rowptr[v + 1]
            while p < pe and q < qe:
                a = colidx[p]
                b = colidx[q]
                if a == b:
                    if a > v:
                        local += 1
                    p += 1
                    q += 1
                elif a < b:
                    p += 1
                else:
                    q += 1
        cuda.atomic.add(count, 0, local)

    def make(rng):
        _, _, rowptr, colidx = _random_graph(rng, 120, 900)
        return rowptr, colidx

    def run(rowptr, colidx):
        count = np.zeros(1, dtype=np.int64)
        triangles[1, 128](rowptr, colidx, count)
        return count

    def ref(rowptr, colidx):
        n = rowptr.size - 1
        adj = np.zeros((n, n), dtype=np.int64)
        for u in range(n):
            adj[u, colidx[rowptr[u]:rowptr[u + 1]]] = 1
        return np.array([np.trace(adj @ adj @ adj) // 6])

    return Case(make, run, ref)


@case
def coo_spmv_int32_into_int64():
    # Numba: vals[k] * x[...] of int32s is int64 (no overflow past 2**31)
    @cuda.jit
    def coo_spmv(rows, cols, vals, x, y):
        k = cuda.grid(1)
        if k < vals.shape[0]:
            cuda.atomic.add(y, rows[k], vals[k] * x[cols[k]])

    def make(rng):
        nnz = 2500
        return (rng.integers(0, 300, nnz).astype(np.int32), rng.integers(0, 200, nnz).astype(np.int32),
                rng.integers(-100000, 100000, nnz).astype(np.int32),
                rng.integers(-100000, 100000, 200).astype(np.int32))

    def run(rows, cols, vals, x):
        y = cuda.to_device(np.zeros(300, dtype=np.int64))
        coo_spmv[blocks_for(vals.size, 256), 256](rows, cols, vals, x, y)
        return y.copy_to_host()

    def ref(rows, cols, vals, x):
        y = np.zeros(300, dtype=np.int64)
        np.add.at(y, rows, _i64(vals) * x[cols])
        return y

    return Case(make, run, ref)


@cuda.jit(device=True)
def row_argmax(indptr, indices, data, r):
    best = -1
    best_col = -1
    for k in range(indptr[r], indptr[r + 1]):
        if best_col < 0 or data[k] > best:
            best = data[k]
            best_col = indices[k]
    return best_col, best


@case
def csr_row_argmax_tuple_return():
    @cuda.jit
    def row_stats(indptr, indices, data, cols, vals, nnz):
        r = cuda.grid(1)
        if r < indptr.shape[0] - 1:
            c, v = row_argmax(indptr, indices, data, r)
            cols[r] = c
            vals[r] = v
            nnz[r] = indptr[r + 1] - indptr[r]

    def make(rng):
        dense = rng.integers(-1000, 1000, (60, 40)).astype(np.int16)
        dense[rng.random((60, 40)) < 0.8] = 0
        dense[5] = 0
        return (dense,)

    def run(dense):
        nz = dense != 0
        indptr = np.concatenate([[0], np.cumsum(nz.sum(1))]).astype(np.int32)
        indices = np.nonzero(nz)[1].astype(np.int32)
        data = dense[nz]
        cols = np.zeros(60, dtype=np.int32)
        vals = np.zeros(60, dtype=np.int16)
        nnz = np.zeros(60, dtype=np.int32)
        row_stats[1, 64](indptr, indices, data, cols, vals, nnz)
        return cols, vals, nnz

    def ref(dense):
        nz = dense != 0
        masked = np.where(nz, dense.astype(np.int64), -(1 << 40))
        cols = np.where(nz.any(1), masked.argmax(1), -1).astype(np.int32)
        vals = np.where(nz.any(1), masked.max(1), -1).astype(np.int16)
        return cols, vals, nz.sum(1).astype(np.int32)

    return Case(make, run, ref)


# ---- dynamic programming and byte strings ----

ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)


def _edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]


@case
def edit_distance_anti_diagonals():
    @cuda.jit
    def edit_diag(a, b, D, d):
        k = cuda.grid(1)
        n = a.shape[0]
        m = b.shape[0]
        i = max(1, d - m) + k
        j = d - i
        if i > n or j < 1:
            return
        cost = 0 if a[i - 1] == b[j - 1] else 1
        D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)

    def make(rng):
        return ACGT[rng.integers(0, 4, 60)], ACGT[rng.integers(0, 4, 47)]

    def run(a, b):
        n, m = a.size, b.size
        D = np.zeros((n + 1, m + 1), dtype=np.int32)
        D[:, 0] = np.arange(n + 1)
        D[0, :] = np.arange(m + 1)
        d_D = cuda.to_device(D)
        d_a, d_b = cuda.to_device(a), cuda.to_device(b)
        for d in range(2, n + m + 1):
            edit_diag[1, 64](d_a, d_b, d_D, d)
        return d_D.copy_to_host()[n, m]

    return Case(make, run, lambda a, b: np.int32(_edit_distance(list(a), list(b))))


MAXLEN = 32
LCS_ROW = MAXLEN + 1    # numba-cuda wants a local array's shape a constant, not MAXLEN + 1


@case
def lcs_batched_local_rows():
    @cuda.jit
    def lcs_batch(s, slen, t, tlen, out):
        p = cuda.grid(1)
        if p >= s.shape[0]:
            return
        prev = cuda.local.array(LCS_ROW, dtype=np.int16)
        cur = cuda.local.array(LCS_ROW, dtype=np.int16)
        n = slen[p]
        m = tlen[p]
        for j in range(m + 1):
            prev[j] = 0
        for i in range(1, n + 1):
            cur[0] = 0
            ci = s[p, i - 1]
            for j in range(1, m + 1):
                if ci == t[p, j - 1]:
                    cur[j] = prev[j - 1] + 1
                elif prev[j] >= cur[j - 1]:
                    cur[j] = prev[j]
                else:
                    cur[j] = cur[j - 1]
            for j in range(m + 1):
                prev[j] = cur[j]
        out[p] = prev[m]

    def make(rng):
        return (ACGT[rng.integers(0, 4, (150, MAXLEN))], rng.integers(0, MAXLEN + 1, 150).astype(np.int32),
                ACGT[rng.integers(0, 4, (150, MAXLEN))], rng.integers(0, MAXLEN + 1, 150).astype(np.int32))

    def run(s, slen, t, tlen):
        out = np.zeros(150, dtype=np.int32)
        lcs_batch[3, 64](s, slen, t, tlen, out)
        return out

    def ref(s, slen, t, tlen):
        res = []
        for p in range(150):
            a, b = s[p, :slen[p]], t[p, :tlen[p]]
            L = np.zeros((len(a) + 1, len(b) + 1), dtype=np.int64)
            for i in range(1, len(a) + 1):
                for j in range(1, len(b) + 1):
                    L[i, j] = L[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else max(L[i - 1, j],
                                                                                    L[i, j - 1])
            res.append(L[-1, -1])
        return np.array(res, dtype=np.int32)

    return Case(make, run, ref)


LOWER_A, LOWER_Z = ord("a"), ord("z")
UPPER_A, UPPER_Z = ord("A"), ord("Z")
DIGIT_0, DIGIT_9 = ord("0"), ord("9")
SPACE = ord(" ")


def _text(rng, n):
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                             b"      .,;!?-", dtype=np.uint8)
    return alphabet[rng.integers(0, alphabet.size, n)]


@case
def ascii_upper_and_class_counts():
    @cuda.jit
    def text_stats(text, upper, counts):
        i = cuda.grid(1)
        if i < text.shape[0]:
            c = text[i]
            if LOWER_A <= c <= LOWER_Z:
                upper[i] = c - 32
                cuda.atomic.add(counts, 0, 1)
            elif UPPER_A <= c <= UPPER_Z:
                upper[i] = c
                cuda.atomic.add(counts, 1, 1)
            elif DIGIT_0 <= c <= DIGIT_9:
                upper[i] = c
                cuda.atomic.add(counts, 2, 1)
            else:
                upper[i] = c
                if c == SPACE:
                    cuda.atomic.add(counts, 3, 1)

    def make(rng):
        return (_text(rng, 5000),)

    def run(text):
        upper = np.zeros_like(text)
        counts = np.zeros(4, dtype=np.int32)
        text_stats[blocks_for(text.size, 256), 256](text, upper, counts)
        return upper, counts

    def ref(text):
        b = text.tobytes()
        counts = [sum(ch.islower() for ch in b.decode()), sum(ch.isupper() for ch in b.decode()),
                  sum(ch.isdigit() for ch in b.decode()), b.count(b" ")]
        return np.frombuffer(b.upper(), dtype=np.uint8).copy(), np.array(counts, dtype=np.int32)

    return Case(make, run, ref)


@case
def word_starts_count_int64():
    @cuda.jit
    def word_starts(text, starts, total):
        i = cuda.grid(1)
        if i < text.shape[0]:
            is_start = text[i] != SPACE and (i == 0 or text[i - 1] == SPACE)
            starts[i] = is_start
            if is_start:
                cuda.atomic.add(total, 0, 1)

    def make(rng):
        return (_text(rng, 4000),)

    def run(text):
        starts = cuda.device_array(text.size, dtype=np.bool_)
        total = cuda.to_device(np.zeros(1, dtype=np.int64))
        word_starts[blocks_for(text.size, 128), 128](cuda.to_device(text), starts, total)
        return starts.copy_to_host(), total.copy_to_host()

    def ref(text):
        sp = text == SPACE
        prev_sp = np.concatenate([[True], sp[:-1]])
        s = ~sp & prev_sp
        return s, np.array([s.sum()], dtype=np.int64)

    return Case(make, run, ref)


@case
def caesar_shift_floor_mod():
    # Numba: c - base is int64 and % is Python's (never negative here); the
    # simulator's uint8 - int wraps
    @cuda.jit
    def caesar(text, shift, out):
        i = cuda.grid(1)
        if i < text.shape[0]:
            c = text[i]
            if LOWER_A <= c <= LOWER_Z:
                out[i] = (c - LOWER_A - shift) % 26 + LOWER_A
            elif UPPER_A <= c <= UPPER_Z:
                out[i] = (c - UPPER_A - shift) % 26 + UPPER_A
            else:
                out[i] = c

    def make(rng):
        return _text(rng, 3000), int(rng.integers(1, 80))

    def run(text, shift):
        out = np.zeros_like(text)
        caesar[blocks_for(text.size, 128), 128](text, shift, out)
        return out

    def ref(text, shift):
        t = _i64(text)
        out = t.copy()
        lo = (t >= LOWER_A) & (t <= LOWER_Z)
        up = (t >= UPPER_A) & (t <= UPPER_Z)
        out[lo] = (t[lo] - LOWER_A - shift) % 26 + LOWER_A
        out[up] = (t[up] - UPPER_A - shift) % 26 + UPPER_A
        return out.astype(np.uint8)

    return Case(make, run, ref)


# ---- integer arithmetic as Numba computes it ----

@case
def floor_div_mod_negative_int32():
    @cuda.jit
    def floor_ops(a, b, q, r, q7, r7):
        i = cuda.grid(1)
        if i < a.shape[0]:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]
            q7[i] = a[i] // -7
            r7[i] = a[i] % 7

    def make(rng):
        a = rng.integers(-100000, 100000, 2000).astype(np.int32)
        b = rng.integers(1, 50, 2000).astype(np.int32) * rng.choice([-1, 1], 2000).astype(np.int32)
        return a, b

    def run(a, b):
        outs = [np.zeros_like(a) for _ in range(4)]
        floor_ops[blocks_for(a.size, 256), 256](a, b, *outs)
        return tuple(outs)

    return Case(make, run, lambda a, b: (a // b, a % b, (a // -7).astype(np.int32),
                                         (a % 7).astype(np.int32)))


Q = 15


@case
def q15_fixed_point_saturating_mul():
    @cuda.jit
    def q15_mul(a, b, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            p = (np.int32(a[i]) * np.int32(b[i]) + (1 << (Q - 1))) >> Q
            if p > 32767:
                p = 32767
            elif p < -32768:
                p = -32768
            out[i] = p

    def make(rng):
        a = rng.integers(-32768, 32768, 3000).astype(np.int16)
        b = rng.integers(-32768, 32768, 3000).astype(np.int16)
        a[:2] = -32768
        b[:2] = (-32768, 32767)
        return a, b

    def run(a, b):
        out = np.zeros_like(a)
        q15_mul[blocks_for(a.size, 256), 256](a, b, out)
        return out

    def ref(a, b):
        p = (_i64(a) * b + (1 << (Q - 1))) >> Q
        return np.clip(p, -32768, 32767).astype(np.int16)

    return Case(make, run, ref)


ONE_Q16 = 1 << 16


@case
def q16_16_lerp_int32():
    # Numba: (b - a) * t of int32s is int64, so no overflow before >> 16
    @cuda.jit
    def lerp(a, b, t, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + (((b[i] - a[i]) * t[i]) >> 16)

    def make(rng):
        return (rng.integers(-(1 << 24), 1 << 24, 2500).astype(np.int32),
                rng.integers(-(1 << 24), 1 << 24, 2500).astype(np.int32),
                rng.integers(0, ONE_Q16 + 1, 2500).astype(np.int32))

    def run(a, b, t):
        out = cuda.device_array(a.size, dtype=np.int32)
        lerp[blocks_for(a.size, 128), 128](cuda.to_device(a), cuda.to_device(b),
                                           cuda.to_device(t), out)
        return out.copy_to_host()

    return Case(make, run, lambda a, b, t: (a + (((_i64(b) - a) * t) >> 16)).astype(np.int32))


MERSENNE31 = 2147483647


@cuda.jit(device=True)
def mod_pow(base, exp, mod):
    result = 1
    base %= mod
    while exp > 0:
        if exp & 1:
            result = (result * base) % mod
        base = (base * base) % mod
        exp >>= 1
    return result


@case
def modpow_uint64_square_multiply():
    @cuda.jit
    def pow_kernel(bases, exps, mod, out):
        i = cuda.grid(1)
        if i < bases.shape[0]:
            out[i] = mod_pow(bases[i], exps[i], mod)

    def make(rng):
        return (rng.integers(0, 1 << 62, 1000, dtype=np.uint64),
                rng.integers(0, 1 << 40, 1000, dtype=np.uint64))

    def run(bases, exps):
        out = np.zeros(1000, dtype=np.uint64)
        pow_kernel[blocks_for(1000, 128), 128](bases, exps, np.uint64(MERSENNE31), out)
        return out

    return Case(make, run, lambda b, e: np.array([pow(int(x), int(y), MERSENNE31)
                                                 for x, y in zip(b, e)], dtype=np.uint64))


@cuda.jit(device=True)
def gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b:
        a, b = b, a % b
    return a


@case
def gcd_lcm_int64_tuple_swap():
    @cuda.jit
    def gcd_lcm(x, y, g, lcm):
        i = cuda.grid(1)
        if i < x.shape[0]:
            d = gcd(x[i], y[i])
            g[i] = d
            lcm[i] = 0 if d == 0 else abs(x[i] // d * y[i])

    def make(rng):
        x = rng.integers(-10**6, 10**6, 1500) * rng.integers(1, 30, 1500)
        y = rng.integers(-10**5, 10**5, 1500) * rng.integers(1, 30, 1500)
        x[:3] = (0, 0, 12)
        y[:3] = (0, 5, 0)
        return x, y

    def run(x, y):
        g = np.zeros_like(x)
        lcm = np.zeros_like(x)
        gcd_lcm[blocks_for(x.size, 128), 128](x, y, g, lcm)
        return g, lcm

    return Case(make, run, lambda x, y: (np.gcd(x, y), np.lcm(x, y)))


@case
def int8_int16_uint16_store_wraps():
    # Numba: int8 + int16 and int8 * 3 are int64, uint16 * uint16 uint64;
    # storing into a narrower array keeps the low bits (C's conversion); the
    # simulator's uint16 product wraps at 16 bits
    @cuda.jit
    def small_ints(a8, b16, c16u, s16, prod32, wrap8):
        i = cuda.grid(1)
        if i < a8.shape[0]:
            s16[i] = a8[i] + b16[i]
            prod32[i] = c16u[i] * c16u[i]
            wrap8[i] = a8[i] * 3

    def make(rng):
        a8 = rng.integers(-128, 128, 2000).astype(np.int8)
        b16 = rng.integers(-32768, 32768, 2000).astype(np.int16)
        b16[:2] = (32767, -32768)
        a8[:2] = (100, -100)
        return a8, b16, rng.integers(0, 65536, 2000).astype(np.uint16)

    def run(a8, b16, c16u):
        s16 = np.zeros(2000, dtype=np.int16)
        prod32 = np.zeros(2000, dtype=np.uint32)
        wrap8 = np.zeros(2000, dtype=np.int8)
        small_ints[blocks_for(2000, 256), 256](a8, b16, c16u, s16, prod32, wrap8)
        return s16, prod32, wrap8

    def ref(a8, b16, c16u):
        return ((_i64(a8) + b16).astype(np.int16), (c16u.astype(np.uint64) ** 2).astype(np.uint32),
                (_i64(a8) * 3).astype(np.int8))

    return Case(make, run, ref)


OFFSET = 1 << 20


@case
def int32_products_and_grid_index_mixing():
    # Numba: int32 * int32 is int64, and cuda.grid(1) an int64 index
    @cuda.jit
    def wide(a, b, prod, lin):
        i = cuda.grid(1)
        if i < a.shape[0]:
            prod[i] = a[i] * b[i]
            lin[i] = i * 3_000_000_000 + OFFSET - a[i]

    def make(rng):
        a = rng.integers(-(1 << 31), 1 << 31, 1500).astype(np.int32)
        b = rng.integers(-(1 << 31), 1 << 31, 1500).astype(np.int32)
        return a, b

    def run(a, b):
        prod = np.zeros(1500, dtype=np.int64)
        lin = np.zeros(1500, dtype=np.int64)
        wide[blocks_for(1500, 128), 128](a, b, prod, lin)
        return prod, lin

    return Case(make, run, lambda a, b: (_i64(a) * b,
                                         np.arange(1500, dtype=np.int64) * 3_000_000_000 + OFFSET - a))


@case
def uint64_keys_signed_sentinel():
    # Numba: best, assigned -1 (int64) and a uint64 key, is float64; keys
    # below 2**53 come through exactly (a uint64 `best` would make -1 the
    # largest key)
    @cuda.jit
    def max_key(keys, valid, out):
        r = cuda.grid(1)
        if r < keys.shape[0]:
            best = -1
            for j in range(keys.shape[1]):
                if valid[r, j] and keys[r, j] > best:
                    best = keys[r, j]
            out[r] = best

    def make(rng):
        valid = rng.random((300, 9)) < 0.5
        valid[:4] = False
        return rng.integers(0, 1 << 50, (300, 9), dtype=np.uint64), valid

    def run(keys, valid):
        out = np.zeros(300, dtype=np.int64)
        max_key[blocks_for(300, 64), 64](keys, valid, out)
        return out

    def ref(keys, valid):
        k = np.where(valid, keys.astype(np.int64), -1)
        return k.max(1)

    return Case(make, run, ref)


@case
def negate_invert_in_own_width():
    # Numba: -x and ~x of a narrow integer are 64-bit results, but Numba
    # negates or inverts in the operand's own width first ("before
    # upcasting"): -uint8(217) is 39, ~uint8(7) 248, -int8(-128) -128
    @cuda.jit
    def neg_inv(a8u, b8, c16u, neg_u, inv_u, neg_s, inv16):
        i = cuda.grid(1)
        if i < a8u.shape[0]:
            neg_u[i] = -a8u[i]
            inv_u[i] = ~a8u[i]
            neg_s[i] = -b8[i]
            inv16[i] = ~c16u[i]

    def make(rng):
        b8 = rng.integers(-128, 128, 1000).astype(np.int8)
        b8[:2] = (-128, 127)
        a8u = image(rng, 1000, 1).ravel()
        a8u[:2] = (0, 255)
        return a8u, b8, rng.integers(0, 65536, 1000).astype(np.uint16)

    def run(a8u, b8, c16u):
        outs = (np.zeros(1000, np.uint64), np.zeros(1000, np.uint64), np.zeros(1000, np.int64),
                np.zeros(1000, np.uint64))
        neg_inv[blocks_for(1000, 128), 128](a8u, b8, c16u, *outs)
        return outs

    def ref(a8u, b8, c16u):
        return ((256 - _i64(a8u)) % 256).astype(np.uint64), (255 - _i64(a8u)).astype(np.uint64), \
            np.negative(b8).astype(np.int64), (65535 - _i64(c16u)).astype(np.uint64)

    return Case(make, run, ref)


KNUTH = np.uint64(2654435761)


@case
def uint32_mix_with_python_ints_and_negation():
    # Numba: -x of a uint32 is uint64 (wraps at 64 bits), x - 1 with an int64
    # is int64, x * KNUTH (a module's np.uint64) uint64; stored into uint32
    # arrays the low 32 bits.  (x * 2654435761, an int64 that may pass
    # 2**63, is signed overflow, which Numba's `mul nsw` leaves undefined:
    # not used)
    @cuda.jit
    def mix(x, neg, dec, knuth, hi):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = x[i]
            neg[i] = -v
            dec[i] = v - 1
            knuth[i] = v * KNUTH
            hi[i] = (v * KNUTH) >> 32

    def make(rng):
        x = rng.integers(0, 1 << 32, 1000, dtype=np.uint32)
        x[:2] = (0, 0xFFFFFFFF)
        return (x,)

    def run(x):
        outs = [np.zeros(1000, dtype=np.uint32) for _ in range(3)] + [np.zeros(1000, dtype=np.int64)]
        mix[blocks_for(1000, 128), 128](x, *outs)
        return tuple(outs)

    def ref(x):
        v = [int(a) for a in x]
        return (np.array([(-a) & M32 for a in v], dtype=np.uint32),
                np.array([(a - 1) & M32 for a in v], dtype=np.uint32),
                np.array([(a * 2654435761) & M32 for a in v], dtype=np.uint32),
                np.array([(a * 2654435761) >> 32 for a in v], dtype=np.int64))

    return Case(make, run, ref)


# ---- tables, searches and more integer idioms ----

def _crc_table():
    t = np.zeros(256, dtype=np.uint32)
    for n in range(256):
        c = n
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else (c >> 1)
        t[n] = c
    return t


CRC_TABLE = _crc_table()


@case
def crc32_global_table():
    # Numba: CRC_TABLE[...] ^ (crc >> 8) is uint64, so crc is a uint64 that
    # never passes 2**32; ~crc & 0xFFFFFFFF is an int64
    @cuda.jit
    def crc32_rows(data, lengths, out):
        r = cuda.grid(1)
        if r < data.shape[0]:
            crc = np.uint32(0xFFFFFFFF)
            for j in range(lengths[r]):
                crc = CRC_TABLE[(crc ^ data[r, j]) & 0xFF] ^ (crc >> 8)
            out[r] = ~crc & 0xFFFFFFFF

    def make(rng):
        return image(rng, 200, 50), rng.integers(0, 51, 200).astype(np.int32)

    def run(data, lengths):
        out = cuda.device_array(200, dtype=np.uint32)
        crc32_rows[4, 64](cuda.to_device(data), cuda.to_device(lengths), out)
        return out.copy_to_host()

    def ref(data, lengths):
        import zlib
        return np.array([zlib.crc32(row[:n].tobytes()) for row, n in zip(data, lengths)],
                        dtype=np.uint32)

    return Case(make, run, ref)


B64_ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                             dtype=np.uint8)


@case
def base64_encode_lookup():
    # Numba: a << 16 of a uint8 is uint64 (the simulator's uint8 shifts out)
    @cuda.jit
    def b64encode(src, dst):
        g = cuda.grid(1)
        if g < src.shape[0] // 3:
            a, b, c = src[3 * g], src[3 * g + 1], src[3 * g + 2]
            triple = (a << 16) | (b << 8) | c
            for k in range(4):
                dst[4 * g + k] = B64_ALPHABET[(triple >> (18 - 6 * k)) & 0x3F]

    def make(rng):
        return (rng.integers(0, 256, 3 * 700, dtype=np.uint8),)

    def run(src):
        dst = np.zeros(4 * 700, dtype=np.uint8)
        b64encode[blocks_for(700, 128), 128](src, dst)
        return dst

    def ref(src):
        import base64
        return np.frombuffer(base64.b64encode(src.tobytes()), dtype=np.uint8).copy()

    return Case(make, run, ref)


EMPTY = -1


@case
def hash_table_cas_linear_probing():
    # Numba: k * 2654435761 of an int32 key is int64 (keys below 2**30: no
    # signed overflow); the simulator's int32 refuses the constant
    @cuda.jit
    def insert(keys, table_keys, table_counts):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            k = keys[i]
            size = table_keys.shape[0]
            slot = (k * 2654435761) % size
            while True:
                prev = cuda.atomic.cas(table_keys, slot, EMPTY, k)
                if prev == EMPTY or prev == k:
                    cuda.atomic.add(table_counts, slot, 1)
                    break
                slot = (slot + 1) % size

    def make(rng):
        return (rng.integers(0, 1 << 30, 300).astype(np.int32)[rng.integers(0, 300, 1000)],)

    def run(keys):
        tk = cuda.to_device(np.full(1024, EMPTY, dtype=np.int32))
        tc = cuda.to_device(np.zeros(1024, dtype=np.int32))
        insert[blocks_for(keys.size, 128), 128](cuda.to_device(keys), tk, tc)
        return tk.copy_to_host(), tc.copy_to_host()

    def check(got, want, inputs):
        tk, tc = got
        used = tk != EMPTY
        assert (tc[~used] == 0).all()
        uniq, counts = np.unique(inputs[0], return_counts=True)
        order = np.argsort(tk[used])
        assert np.array_equal(tk[used][order], uniq)
        assert np.array_equal(tc[used][order], counts)
        # linear probing: every slot from a key's home slot to its own is taken
        for slot in np.flatnonzero(used):
            home = int(tk[slot]) * 2654435761 % 1024
            assert all(used[(home + j) % 1024] for j in range((slot - home) % 1024 + 1))

    return Case(make, run, check=check)


@case
def collatz_steps_loop_widening():
    # Numba: n // 2 and 3 * n + 1 of a uint32 are int64, so the loop's n is
    # an int64 (no wrap at 32 bits on the way up)
    @cuda.jit
    def collatz(starts, steps, peak):
        i = cuda.grid(1)
        if i < starts.shape[0]:
            n = starts[i]
            c = 0
            top = n
            while n != 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                c += 1
                top = max(top, n)
            steps[i] = c
            peak[i] = top

    def make(rng):
        s = rng.integers(1, 200000, 600).astype(np.uint32)
        s[:2] = (1, 77671)
        return (s,)

    def run(starts):
        steps = np.zeros(600, dtype=np.int32)
        peak = np.zeros(600, dtype=np.int64)
        collatz[blocks_for(600, 128), 128](starts, steps, peak)
        return steps, peak

    def ref(starts):
        steps, peak = [], []
        for s in starts:
            n, c, top = int(s), 0, int(s)
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                c += 1
                top = max(top, n)
            steps.append(c)
            peak.append(top)
        return np.array(steps, dtype=np.int32), np.array(peak, dtype=np.int64)

    return Case(make, run, ref)


@cuda.jit(device=True)
def lower_bound(arr, x):
    lo = 0
    hi = arr.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if arr[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@case
def binary_search_device_function():
    @cuda.jit
    def searchsorted(sorted_arr, queries, out):
        i = cuda.grid(1)
        if i < queries.shape[0]:
            out[i] = lower_bound(sorted_arr, queries[i])

    def make(rng):
        return (np.sort(rng.integers(-5000, 5000, 700)).astype(np.int32),
                rng.integers(-6000, 6000, 900).astype(np.int32))

    def run(arr, q):
        out = np.zeros(q.size, dtype=np.int64)
        searchsorted[blocks_for(q.size, 128), 128](arr, q, out)
        return out

    return Case(make, run, lambda arr, q: np.searchsorted(arr, q, side="left").astype(np.int64))


@case
def sieve_mark_multiples():
    @cuda.jit
    def sieve_pass(is_comp, p):
        k = cuda.grid(1)
        m = p * p + k * p
        if m < is_comp.shape[0]:
            is_comp[m] = 1

    def make(rng):
        return (int(rng.integers(3000, 6000)),)

    def run(n):
        d = cuda.to_device(np.zeros(n, dtype=np.uint8))
        p = 2
        while p * p < n:
            sieve_pass[blocks_for(n // p, 128), 128](d, p)
            p += 1
        flags = d.copy_to_host()
        flags[:2] = 1
        return np.flatnonzero(flags == 0)

    def ref(n):
        return np.array([q for q in range(2, n) if all(q % d for d in range(2, int(q ** 0.5) + 1))])

    return Case(make, run, ref)


@cuda.jit(device=True)
def clamp_u8(v):
    if v < 0:
        return 0
    if v > 255:
        return 255
    return v


@case
def clamp_device_fn_mixed_returns():
    # Numba: clamp_u8 of a uint64 (uint8 + uint8) returns int64 and uint64,
    # which meet in float64; of an int64 it returns int64; the values stored
    # are exact either way
    @cuda.jit
    def adjust(img, bias, gain, summed, scaled):
        i = cuda.grid(1)
        if i < img.shape[0]:
            summed[i] = clamp_u8(img[i] + bias[i])
            scaled[i] = clamp_u8(img[i] * gain - 40)

    def make(rng):
        return image(rng, 2000, 1).ravel(), image(rng, 2000, 1).ravel(), int(rng.integers(1, 4))

    def run(img, bias, gain):
        summed = np.zeros_like(img)
        scaled = np.zeros_like(img)
        adjust[blocks_for(2000, 256), 256](img, bias, gain, summed, scaled)
        return summed, scaled

    def ref(img, bias, gain):
        return (np.clip(_i64(img) + bias, 0, 255).astype(np.uint8),
                np.clip(_i64(img) * gain - 40, 0, 255).astype(np.uint8))

    return Case(make, run, ref)


@case
def narrowing_casts_and_float_to_int():
    @cuda.jit
    def casts(x, f, a, b, c, d):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a[i] = np.uint8(x[i])
            b[i] = np.int16(x[i] * 100)
            c[i] = int(f[i])
            d[i] = math.floor(f[i])

    def make(rng):
        return rng.integers(-1000, 1000, 1500), rng.uniform(-1e5, 1e5, 1500)

    def run(x, f):
        outs = (np.zeros(1500, np.uint8), np.zeros(1500, np.int16), np.zeros(1500, np.int64),
                np.zeros(1500, np.int64))
        casts[blocks_for(1500, 128), 128](x, f, *outs)
        return outs

    def ref(x, f):
        return (x.astype(np.uint8), (x * 100).astype(np.int16), np.trunc(f).astype(np.int64),
                np.floor(f).astype(np.int64))

    return Case(make, run, ref)


@cuda.jit(device=True)
def egcd(a, b):
    x0, x1 = 1, 0
    while b != 0:
        q = a // b
        a, b = b, a - q * b
        x0, x1 = x1, x0 - q * x1
    return a, x0


@case
def modular_inverse_extended_euclid():
    @cuda.jit
    def modinv(vals, m, out):
        i = cuda.grid(1)
        if i < vals.shape[0]:
            g, x = egcd(vals[i], m)
            out[i] = x % m if g == 1 else -1

    def make(rng):
        return rng.integers(1, 1_000_000, 800), int(rng.choice([1_000_003, 1_000_000]))

    def run(vals, m):
        out = np.zeros(800, dtype=np.int64)
        modinv[blocks_for(800, 128), 128](vals, m, out)
        return out

    def ref(vals, m):
        res = []
        for v in vals:
            try:
                res.append(pow(int(v), -1, m))
            except ValueError:
                res.append(-1)
        return np.array(res, dtype=np.int64)

    return Case(make, run, ref)


@case
def warp_inclusive_scan_shfl_up_int():
    @cuda.jit
    def warp_scan(x, out):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i] if i < x.shape[0] else 0
        d = 1
        while d < 32:
            t = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
            if lane >= d:
                v += t
            d *= 2
        if i < x.shape[0]:
            out[i] = v

    def make(rng):
        return (rng.integers(-(1 << 30), 1 << 30, 1000).astype(np.int32),)

    def run(x):
        out = np.zeros(1000, dtype=np.int64)
        warp_scan[blocks_for(1000, 128), 128](x, out)
        return out

    def ref(x):
        pad = np.zeros(1024, dtype=np.int64)
        pad[:1000] = x
        return np.cumsum(pad.reshape(32, 32), axis=1).ravel()[:1000]

    return Case(make, run, ref, coop=True)


@case
def stream_compaction_nonzero_bytes():
    @cuda.jit
    def compact_nonzero(src, dst, count):
        i = cuda.grid(1)
        if i < src.shape[0] and src[i] != 0:
            pos = cuda.atomic.add(count, 0, 1)
            dst[pos] = src[i]

    def make(rng):
        v = rng.integers(1, 256, 4000).astype(np.uint8)
        v[rng.random(4000) < 0.6] = 0
        return (v,)

    def run(src):
        dst = cuda.to_device(np.zeros_like(src))
        count = cuda.to_device(np.zeros(1, dtype=np.uint32))
        compact_nonzero[blocks_for(src.size, 256), 256](cuda.to_device(src), dst, count)
        n = int(count.copy_to_host()[0])
        return np.sort(dst.copy_to_host()[:n]), n

    return Case(make, run, lambda src: (np.sort(src[src != 0]), int((src != 0).sum())))
