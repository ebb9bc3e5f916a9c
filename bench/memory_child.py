"""Section 12's child (bench/s12_memory.py): one library's memory case in a
process of its own, printing `RESULT <value> ...`.

    MEM_LIB=cujit|cupy|numba MEM_CASE=alloc|add|ipc python bench/memory_child.py

alloc: host microseconds per allocation and free of MEM_BYTES bytes (the
       median of 5 batches of MEM_REPS, a synchronize ending each batch);
add:   microseconds per `x + y` of 2^20 float32 (a new array each time),
       a synchronize ending each batch;
ipc:   milliseconds for a spawned process to open a 1 MiB array's IPC handle
       and copy it to the host: the first handle of this process (cold: the
       pool's descriptor fetched and imported for cujit) and a later one
       (warm); the values checked.
cujit's pool is exportable unless the parent set CUJIT_IPC=0."""
import concurrent.futures
import multiprocessing as mp
import os
import statistics
import time

import numpy as np

LIB = os.environ.get("MEM_LIB", "cujit")
CASE = os.environ.get("MEM_CASE", "alloc")
NBYTES = int(os.environ.get("MEM_BYTES", 4096))
REPS = int(os.environ.get("MEM_REPS", 2000))


def library():
    if LIB == "cujit":
        from cujit import cuda
        return cuda
    if LIB == "numba":
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack        # numba-cuda 0.30 under NumPy 2.5
        from numba import cuda
        return cuda
    import cupy
    return cupy


def sync(lib):
    if LIB == "cupy":
        lib.cuda.Device().synchronize()
    else:
        lib.synchronize()


def alloc_case(lib):
    def one():
        if LIB == "cupy":
            return lib.empty(NBYTES, np.uint8)
        return lib.device_array(NBYTES, np.uint8)
    for _ in range(50):
        one()
    sync(lib)
    per = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(REPS):
            a = one()
            del a
        sync(lib)
        per.append((time.perf_counter() - t0) / REPS * 1e6)
    return statistics.median(per)


def add_case(lib):
    h = np.random.default_rng().random((2, 1 << 20)).astype(np.float32)
    if LIB == "cupy":
        x, y = lib.asarray(h[0]), lib.asarray(h[1])
        got = (x + y).get()
    else:
        x, y = lib.to_device(h[0]), lib.to_device(h[1])
        got = (x + y).copy_to_host()
    if not np.array_equal(got, h[0] + h[1]):
        raise AssertionError("x + y is wrong")
    per = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(REPS):
            z = x + y
            del z
        sync(lib)
        per.append((time.perf_counter() - t0) / REPS * 1e6)
    return statistics.median(per)


# ---- ipc: run in the spawned process ----

def warm_up():
    lib = library()
    lib.to_device(np.zeros(4)).copy_to_host()       # CUDA initialised, kernels none
    return os.getpid()


def open_and_read(handle):
    t0 = time.perf_counter()
    with handle as arr:
        out = arr.copy_to_host()
    return (time.perf_counter() - t0) * 1e3, out


def ipc_case(lib):
    ctx = mp.get_context("spawn")
    rng = np.random.default_rng()
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as ex:
        ex.submit(warm_up).result(timeout=120)
        times = []
        for _ in range(3):
            h = rng.random(1 << 17)                 # 1 MiB of float64
            d = lib.to_device(h)
            ms, out = ex.submit(open_and_read, d.get_ipc_handle()).result(timeout=120)
            if not np.array_equal(out, h):
                raise AssertionError("the opened array differs")
            times.append(ms)
    return times[0], statistics.median(times[1:])


def main():
    lib = library()
    if CASE == "alloc":
        print("RESULT", alloc_case(lib))
    elif CASE == "add":
        print("RESULT", add_case(lib))
    else:
        cold, warm = ipc_case(lib)
        print("RESULT", cold, warm)


if __name__ == "__main__":
    main()
