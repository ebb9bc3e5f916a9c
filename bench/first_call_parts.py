"""Where a first @vectorize call's time goes in a new process (run on the GPU
machine with CUJIT_LOG=1 and an empty CUJIT_CACHE_DIR).  NO_CUPY=1: the
input comes from cujit.to_device and CuPy is never imported."""
import os
import time

import numpy as np

t0 = time.perf_counter()
if not os.environ.get("NO_CUPY"):
    import cupy                             # noqa: E402
import cujit                                # noqa: E402
t1 = time.perf_counter()
if os.environ.get("NO_CUPY"):
    x = cujit.to_device(np.random.rand(1 << 20).astype(np.float32))
else:
    x = cupy.random.rand(1 << 20, dtype=cupy.float32)
cujit.synchronize()
t2 = time.perf_counter()
e = cujit.empty(16, dtype=np.float32)
cujit.synchronize()
t3 = time.perf_counter()


@cujit.vectorize
def f(a, b):
    return a * b + 1.0


r = f(x, x)
cujit.synchronize()
t4 = time.perf_counter()
r = f(x, x)
cujit.synchronize()
t5 = time.perf_counter()
print(f"imports {1e3 * (t1 - t0):.1f} ms, input array {1e3 * (t2 - t1):.1f} ms, "
      f"a cujit alloc {1e3 * (t3 - t2):.1f} ms, first vectorize call {1e3 * (t4 - t3):.1f} ms, "
      f"second call {1e3 * (t5 - t4):.2f} ms")
