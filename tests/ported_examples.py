"""The kernel examples of Numba's CUDA documentation and of cupyx.jit's user
guide, ported to cujit in our own words, each written in both spellings
where the peer's API has the construct: Numba's (``from cujit import cuda``,
names ``nb_*``) and cupyx.jit's (``from cujit import jit``, names ``cp_*``).

Numba's examples: increment by one (1-d and 2-d grids), the grid-stride
loop, vector addition through the host API, matrix multiplication (plain and
with shared-memory tiles), a block sum in shared memory with syncthreads and
an atomic, atomics (histogram, max with a tuple index), sessionization (in
two launches: Numba's uses a grid sync), a CPU/GPU-compatible function, dynamic
shared memory, a warp sum with shuffles, local arrays, vectorize /
guvectorize with target='cuda', cuda.reduce.  cupyx.jit's: the elementwise
copy (both launch forms), shared memory (static and dynamic), device
functions, atomics, warp shuffles.

What cujit lacks for the rest of those pages (Numba's Monte Carlo example
needs numba.cuda.random, its Laplace and 1-d heat examples cooperative
groups' grid sync, its ufunc example NumPy ufuncs inside kernels) is listed
in README.md (migration guide).

tests/test_ported_examples.py compiles each kernel to PTX here;
tests/gpu/test_ported_examples_gpu.py runs them against NumPy."""
import math

import numpy as np

from cujit import cuda, guvectorize, jit, vectorize

TPB = 16            # tile side of the shared-memory matrix multiply
BLOCK = 128         # threads per block of the block sums
GAP = 30.0          # seconds of silence that end a session


# ---- increment by one ----

@cuda.jit
def nb_increment(a):
    pos = cuda.grid(1)
    if pos < a.size:
        a[pos] += 1


@jit.rawkernel()
def cp_increment(a):
    pos = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if pos < a.size:
        a[pos] += 1


@cuda.jit
def nb_increment_2d(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@jit.rawkernel()
def cp_increment_2d(a):
    x, y = jit.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# ---- grid-stride loops: Numba's gridsize, cupyx.jit's elementwise copy ----

@cuda.jit
def nb_scale_stride(x, out, factor):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, x.shape[0], step):
        out[i] = x[i] * factor


@jit.rawkernel()
def cp_elementwise_copy(x, y, size):
    tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    ntid = jit.gridDim.x * jit.blockDim.x
    for i in range(tid, size, ntid):
        y[i] = x[i]


@jit.rawkernel()
def cp_scale_stride(x, out, factor):
    for i in range(jit.grid(1), x.shape[0], jit.gridsize(1)):
        out[i] = x[i] * factor


# ---- vector addition ----

@cuda.jit
def nb_vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@jit.rawkernel()
def cp_vecadd(a, b, c):
    i = jit.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


# ---- matrix multiplication ----

@cuda.jit
def nb_matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@jit.rawkernel()
def cp_matmul(a, b, c):
    i, j = jit.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@cuda.jit
def nb_matmul_tiled(a, b, c):
    # each block computes a TPB x TPB tile of c from tiles of a and b staged
    # in shared memory; the threads of the block load one element each
    ta = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    tb = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    row, col = cuda.grid(2)
    tr = cuda.threadIdx.x
    tc = cuda.threadIdx.y
    acc = np.float32(0)
    for tile in range((a.shape[1] + TPB - 1) // TPB):
        k0 = tile * TPB
        ta[tr, tc] = a[row, k0 + tc] if row < a.shape[0] and k0 + tc < a.shape[1] else 0
        tb[tr, tc] = b[k0 + tr, col] if col < b.shape[1] and k0 + tr < b.shape[0] else 0
        cuda.syncthreads()
        for k in range(TPB):
            acc += ta[tr, k] * tb[k, tc]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@jit.rawkernel()
def cp_matmul_tiled(a, b, c):
    # cupyx.jit's shared memory is 1-d: the tile is indexed row * TPB + col
    ta = jit.shared_memory(np.float32, TPB * TPB)
    tb = jit.shared_memory(np.float32, TPB * TPB)
    row, col = jit.grid(2)
    tr = jit.threadIdx.x
    tc = jit.threadIdx.y
    acc = np.float32(0)
    for tile in range((a.shape[1] + TPB - 1) // TPB):
        k0 = tile * TPB
        ta[tr * TPB + tc] = a[row, k0 + tc] if row < a.shape[0] and k0 + tc < a.shape[1] else 0
        tb[tr * TPB + tc] = b[k0 + tr, col] if col < b.shape[1] and k0 + tr < b.shape[0] else 0
        jit.syncthreads()
        for k in range(TPB):
            acc += ta[tr * TPB + k] * tb[k * TPB + tc]
        jit.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


# ---- a block sum in shared memory, blocks combined with an atomic ----

@cuda.jit
def nb_sum_shared(x, total):
    buf = cuda.shared.array(BLOCK, np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    half = BLOCK // 2
    while half > 0:
        if t < half:
            buf[t] += buf[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        cuda.atomic.add(total, 0, buf[0])


@jit.rawkernel()
def cp_sum_shared(x, total):
    buf = jit.shared_memory(np.int32, BLOCK)
    t = jit.threadIdx.x
    i = jit.grid(1)
    buf[t] = x[i] if i < x.size else 0
    jit.syncthreads()
    half = BLOCK // 2
    while half > 0:
        if t < half:
            buf[t] += buf[t + half]
        jit.syncthreads()
        half //= 2
    if t == 0:
        jit.atomic_add(total, 0, buf[0])


# ---- atomics ----

@cuda.jit
def nb_histogram(x, lo, width, hist):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        b = np.int32((x[i] - lo) / width)
        if b >= 0 and b < hist.shape[0]:
            cuda.atomic.add(hist, b, 1)


@jit.rawkernel()
def cp_histogram(x, lo, width, hist):
    for i in range(jit.grid(1), x.shape[0], jit.gridsize(1)):
        b = np.int32((x[i] - lo) / width)
        if b >= 0 and b < hist.shape[0]:
            jit.atomic_add(hist, b, 1)


@cuda.jit
def nb_max_2d(values, result):
    # the largest value of each row of values goes to result[row, 1]
    r, c = cuda.grid(2)
    if r < values.shape[0] and c < values.shape[1]:
        cuda.atomic.max(result, (r, 1), values[r, c])


@jit.rawkernel()
def cp_max_2d(values, result):
    r, c = jit.grid(2)
    if r < values.shape[0] and c < values.shape[1]:
        jit.atomic_max(result, (r, 1), values[r, c])


# ---- sessionization: a new session where the user changes or after GAP s ----

@cuda.jit
def nb_session_starts(user, t, start):
    i = cuda.grid(1)
    if i < user.size:
        start[i] = i == 0 or user[i] != user[i - 1] or t[i] - t[i - 1] > GAP


@cuda.jit
def nb_session_ids(start, sid):
    i = cuda.grid(1)
    if i < start.size:
        j = i
        while start[j] == 0:
            j -= 1
        sid[i] = j


@jit.rawkernel()
def cp_session_starts(user, t, start):
    i = jit.grid(1)
    if i < user.size:
        start[i] = i == 0 or user[i] != user[i - 1] or t[i] - t[i - 1] > GAP


@jit.rawkernel()
def cp_session_ids(start, sid):
    i = jit.grid(1)
    if i < start.size:
        j = i
        while start[j] == 0:
            j -= 1
        sid[i] = j


# ---- one function for the CPU and the GPU ----

def business_logic(x, y, z):
    """Plain Python: the reference calls it on the CPU; the kernels call its
    device-function versions."""
    return 4 * z * (2 * x - (4 * y) / 2 * math.pi)


nb_business_logic = cuda.jit(device=True)(business_logic)
cp_business_logic = jit.rawkernel(device=True)(business_logic)


@cuda.jit
def nb_apply_logic(x, y, z, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = nb_business_logic(x[i], y[i], z[i])


@jit.rawkernel()
def cp_apply_logic(x, y, z, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = cp_business_logic(x[i], y[i], z[i])


# ---- device functions ----

@cuda.jit(device=True)
def nb_clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def nb_clamp_all(x, lo, hi, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = nb_clamp(x[i], lo, hi)


@jit.rawkernel(device=True)
def cp_clamp(v, lo, hi):
    return min(max(v, lo), hi)


@jit.rawkernel()
def cp_clamp_all(x, lo, hi, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = cp_clamp(x[i], lo, hi)


# ---- shared memory: each block reverses its part of x ----

@cuda.jit
def nb_reverse_static(x, out):
    buf = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[BLOCK - 1 - t]


@cuda.jit
def nb_reverse_dynamic(x, out):
    buf = cuda.shared.array(0, dtype=np.float32)     # size given at launch
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[n - 1 - t]


@jit.rawkernel()
def cp_reverse_static(x, out):
    buf = jit.shared_memory(np.float32, BLOCK)
    t = jit.threadIdx.x
    i = jit.grid(1)
    buf[t] = x[i]
    jit.syncthreads()
    out[i] = buf[BLOCK - 1 - t]


@jit.rawkernel()
def cp_reverse_dynamic(x, out):
    buf = jit.shared_memory(np.float32, None)        # size given at launch
    t = jit.threadIdx.x
    n = jit.blockDim.x
    i = jit.grid(1)
    buf[t] = x[i]
    jit.syncthreads()
    out[i] = buf[n - 1 - t]


# ---- warp shuffles: a sum per warp ----

@cuda.jit
def nb_warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@jit.rawkernel()
def cp_warp_sum(x, out):
    i = jit.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += jit.shfl_down_sync(0xffffffff, v, offset)
        offset //= 2
    if jit.laneid() == 0:
        out[i // 32] = v


# ---- local arrays (Numba's; cujit's jit.local_memory is its cupyx-side
# spelling, cupyx.jit itself has none) ----

@cuda.jit
def nb_moving_sum(x, out):
    # the sum of x[i-3 .. i] (zeros before the start), through a local window
    win = cuda.local.array(4, np.float64)
    i = cuda.grid(1)
    if i < x.size:
        for k in range(4):
            win[k] = x[i - k] if i - k >= 0 else 0.
        s = 0.
        for k in range(4):
            s += win[k]
        out[i] = s


@jit.rawkernel()
def cp_moving_sum(x, out):
    win = jit.local_memory(np.float64, 4)
    i = jit.grid(1)
    if i < x.size:
        for k in range(4):
            win[k] = x[i - k] if i - k >= 0 else 0.
        s = 0.
        for k in range(4):
            s += win[k]
        out[i] = s


# ---- forms: vectorize, guvectorize, reduce (Numba's; cupyx.jit has none) ----

@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def nb_rel_diff(a, b):
    return abs(a - b) / (abs(a) + abs(b) + 1)


@cuda.vectorize(["float64(float64)"])
def nb_gauss(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


@guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])"], "(m,n),(n,p)->(m,p)",
             target="cuda")
def nb_gu_matmul(a, b, c):
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            acc = 0.
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc


@cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def nb_gu_norm(x, out):
    acc = 0.
    for i in range(x.shape[0]):
        acc += x[i] * x[i]
    out[0] = math.sqrt(acc)


nb_sum_reduce = cuda.reduce(lambda a, b: a + b)


@cuda.reduce
def nb_max_reduce(a, b):
    return max(a, b)


# ---- the kernels and a signature each, for compiling to PTX without a GPU ----

F4, F8, I4 = "float32", "float64", "int32"
KERNELS = [
    (nb_increment, f"({F4}[::1])"), (cp_increment, f"({F4}[::1])"),
    (nb_increment_2d, f"({F8}[:, ::1])"), (cp_increment_2d, f"({F8}[:, ::1])"),
    (nb_scale_stride, f"({F4}[::1], {F4}[::1], {F4})"),
    (cp_scale_stride, f"({F4}[::1], {F4}[::1], {F4})"),
    (cp_elementwise_copy, f"({F4}[::1], {F4}[::1], uint32)"),
    (nb_vecadd, f"({F4}[::1], {F4}[::1], {F4}[::1])"),
    (cp_vecadd, f"({F4}[::1], {F4}[::1], {F4}[::1])"),
    (nb_matmul, f"({F4}[:, ::1], {F4}[:, ::1], {F4}[:, ::1])"),
    (cp_matmul, f"({F4}[:, ::1], {F4}[:, ::1], {F4}[:, ::1])"),
    (nb_matmul_tiled, f"({F4}[:, ::1], {F4}[:, ::1], {F4}[:, ::1])"),
    (cp_matmul_tiled, f"({F4}[:, ::1], {F4}[:, ::1], {F4}[:, ::1])"),
    (nb_sum_shared, f"({I4}[::1], {I4}[::1])"), (cp_sum_shared, f"({I4}[::1], {I4}[::1])"),
    (nb_histogram, f"({F4}[::1], {F4}, {F4}, {I4}[::1])"),
    (cp_histogram, f"({F4}[::1], {F4}, {F4}, {I4}[::1])"),
    (nb_max_2d, f"({I4}[:, ::1], {I4}[:, ::1])"), (cp_max_2d, f"({I4}[:, ::1], {I4}[:, ::1])"),
    (nb_session_starts, f"({I4}[::1], {F8}[::1], uint8[::1])"),
    (cp_session_starts, f"({I4}[::1], {F8}[::1], uint8[::1])"),
    (nb_session_ids, f"(uint8[::1], {I4}[::1])"), (cp_session_ids, f"(uint8[::1], {I4}[::1])"),
    (nb_apply_logic, f"({F8}[::1], {F8}[::1], {F8}[::1], {F8}[::1])"),
    (cp_apply_logic, f"({F8}[::1], {F8}[::1], {F8}[::1], {F8}[::1])"),
    (nb_clamp_all, f"({F4}[::1], {F4}, {F4}, {F4}[::1])"),
    (cp_clamp_all, f"({F4}[::1], {F4}, {F4}, {F4}[::1])"),
    (nb_reverse_static, f"({F4}[::1], {F4}[::1])"), (cp_reverse_static, f"({F4}[::1], {F4}[::1])"),
    (nb_reverse_dynamic, f"({F4}[::1], {F4}[::1])"),
    (cp_reverse_dynamic, f"({F4}[::1], {F4}[::1])"),
    (nb_warp_sum, f"({I4}[::1], {I4}[::1])"), (cp_warp_sum, f"({I4}[::1], {I4}[::1])"),
    (nb_moving_sum, f"({F8}[::1], {F8}[::1])"), (cp_moving_sum, f"({F8}[::1], {F8}[::1])"),
]

# the gufuncs and a signature each (vectorize and reduce compile at their
# first call, on the GPU)
GUFUNCS = [
    (nb_gu_matmul, "void(float32[:,:], float32[:,:], float32[:,:])"),
    (nb_gu_norm, "void(float64[:], float64[:])"),
]
