"""cujit beside CuPy RawKernel, cupyx.jit and numba-cuda, measured in one run.

    make bench                      # or: PYTHONPATH=. python3 bench/bench.py
    PYTHONPATH=. python3 bench/bench.py --quick          # smoke test, small N and sizes
    CUJIT_BENCH_OUT=/tmp/bench.json make bench           # also write every number as JSON

Sections (DESIGN.md section 5 has the figures and goals):

1. host time per launch: 1 int32 array + 1 int, 1 block of 32 threads, body
   `if i < n: x[i] = x[i] + 1`.  N launches timed with perf_counter, one
   synchronize after the clock stops; beside a C program
   (bench/launch_floor.c) that calls cuLaunchKernel N times.  Each library
   runs in a process of its own, as the C program does, importing only
   itself and CuPy.  This machine's launch cost drifts by 10-20 % over
   seconds, so the C program and the library's process stay alive side by
   side and every repetition of a case comes right after one of the C
   program (a pair); the goal is checked on the median of the paired ratios,
   and the medians of the times are printed too.
2. first call in a new process: saxpy (n = 2^20), timed from just before the
   decorator / kernel creation to after the first launch and a synchronize,
   imports and array creation excluded; empty and warm disk caches; median of
   several processes.
3. saxpy bandwidth on 2^28 float32 (3 x 1 GiB moved per launch), CUDA events
   around each launch, median; against a device-to-device copy measured here.
   cujit twice: `i = jit.grid(1)` / `if i < out.size`, and the spelling of
   CUDA and Numba code, `i = blockIdx.x * blockDim.x + threadIdx.x` / `if i < n`.
4. elementwise and reduction forms on 2^28 float32, as % of the copy bandwidth
   (section 3's figure, or measured again), fewest bytes counted: vectorize
   x * y + 1.0 (cupy.vectorize, numba vectorize), sum of squares (cujit map=,
   ReductionKernel, numba cuda.reduce on x*x), sum (cupy.sum), sum(axis=0/1)
   of a 16384 x 16384 matrix, and cujit's stdlib DeviceArray x + y and x.sum();
   each result checked once, then CUDA events around each of 20 runs, median.
5. first call of a vectorize (x * y + 1.0, 2^20 float32 on the device) in a
   new process with every cache empty (cujit's, CuPy's, numba's, the driver's
   PTX cache) and with the caches a first run left, beside cupy.vectorize,
   cupy.ElementwiseKernel and numba vectorize; median of 3.
6. first use of stdlib operations (x + y, x * 2.0, x.sum(), x.sum(axis=1),
   argmax, cumsum, where; float32 and int64) in a new process with every cache
   empty, cujit beside CuPy; median of 3.
7. Numba's spelling: one Numba-spelled script run with `from cujit import
   cuda` and with `from numba import cuda` (launch time per call, first call
   with empty and warm caches, new processes, rounds alternating, medians);
   guvectorize "(n),(n)->()" dot products of 2^20 x 64 float32, cujit's
   beside numba-cuda's target='cuda' (ms per call, % of copy bandwidth).
8. block collectives: a per-block sum and an exclusive block scan of 2^24
   float32 (blocks of 256) in a new process with every cache empty: the
   first call (CUB's headers at NVRTC time for cupyx.jit.cub and cuda.coop)
   and the kernels' device time, beside cupyx.jit.cub and numba-cuda +
   cuda.coop; rounds taking turns, median of 3.
9. @cujit.fuse beside cupy.fuse, CuPy's unfused expression and cujit's unfused
   stdlib: sum(x * y, axis=-1) of a 2^14 x 2^14 float32 pair and sum(x * y)
   of a flat 2^28 pair (bytes read once), exp(a*sin(x)+cos(y))*z-1 on 2^28
   float32, the libraries taking turns round by round; the first fused call
   in a new process with empty caches, cujit and cupy.fuse alternating.
10. cooperative groups: a kernel that synchronises its grid 100 times per
    launch (one block per SM), device time per grid.sync(), and the first
    call of a new grid-sync kernel, beside cupyx.jit.cg and numba's cuda.cg.
12. memory: allocation + free and x + y with cujit's exportable pool and a
    plain one (CUJIT_IPC=0) beside CuPy and numba-cuda; the time a spawned
    process takes to open a CUDA IPC handle, beside numba-cuda.
13. linking foreign code: the first call of a kernel calling a foreign
    device function given as CUDA C++ (compiled in) or as PTX (linked by the
    driver's JIT linker), empty and warm caches, beside numba-cuda's same two
    links and a CuPy RawKernel with the function pasted in.
14. negative indices counted from the end (cuda.jit, Numba's semantics): the
    device time of a periodic stencil (wraps kept), a guarded one (proven
    non-negative: none) and one reading u[i - off] (one wrap), cujit.cuda
    beside numba-cuda and CuPy RawKernel, rounds taking turns, medians.

Sections 2, 5 and 6 run each measurement in a fresh process, the libraries
taking turns within each round (bench/firstlib.py); their figures make the
FIRST CALLS tables printed after the summary.

Every section and every library is guarded: a failure is printed and the run
goes on.  The last lines printed are a summary table and the ratios.

This file is the entry point (arguments, the sections in turn, the JSON);
each section is a module beside it: s1_launch.py (with s1_child.py, the
--launch-child side), s2_first.py, s3_saxpy.py, s4_forms.py, s5_first_vec.py,
s6_first_stdlib.py, s7_numba.py,
s8_collectives.py, s9_fuse.py,
s10_cg.py, s11_thrust.py, s12_memory.py (with memory_child.py), s13_link.py, s14_negidx.py, s15_typing.py; benchlib.py holds what they share (firstlib.py
what the first-call sections share), report.py the summary.
"""
import argparse
import json
import os

from benchlib import RESULTS, err, log
from report import environment, summary
from s1_child import launch_child
from s1_launch import section_launch
from s2_first import section_first
from s3_saxpy import section_saxpy
from s4_forms import section_forms
from s5_first_vec import section_first_vec
from s6_first_stdlib import section_first_stdlib
from s7_numba import section_numba
from s8_collectives import section_collectives
from s9_fuse import section_fuse
from s10_cg import section_cg
from s11_thrust import section_thrust
from s12_memory import section_memory
from s13_link import section_link
from s14_negidx import section_negidx
from s15_typing import section_typing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small N and sizes: a smoke test")
    ap.add_argument("--sections", default="1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
                    help="which sections, e.g. 1,3")
    ap.add_argument("--launches", type=int, default=0, help="launches per repetition (section 1)")
    ap.add_argument("--launch-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    cli_launches = args.launches
    if args.quick:
        args.launches, args.warm, args.pairs = 1000, 100, 3
        args.first_runs, args.first_budget, args.first_timeout = 1, 150.0, 90
        args.n, args.bw_warm, args.bw_iters = 1 << 22, 2, 5
        args.side, args.fv_budget, args.fv_timeout = 2048, 60.0, 45
        args.nb_rounds, args.nb_launches, args.nb_reps = 2, 1000, 3
        args.nb_budget, args.nb_rows = 120.0, 1 << 16
        args.fs_runs, args.fs_budget, args.fs_timeout = 1, 135.0, 60
    else:
        args.launches, args.warm, args.pairs = 5000, 1000, 40
        args.first_runs, args.first_budget, args.first_timeout = 3, 170.0, 90
        args.n, args.bw_warm, args.bw_iters = 1 << 28, 3, 20
        args.side, args.fv_budget, args.fv_timeout = 16384, 120.0, 45
        args.nb_rounds, args.nb_launches, args.nb_reps = 5, 5000, 5
        args.nb_budget, args.nb_rows = 240.0, 1 << 20
        args.fs_runs, args.fs_budget, args.fs_timeout = 3, 270.0, 60
    if cli_launches:
        args.launches, args.warm = cli_launches, min(args.warm, cli_launches)
    if args.launch_child:
        launch_child(args)
        return
    RESULTS["args"] = {k: v for k, v in vars(args).items()}
    want = {s.strip() for s in args.sections.split(",")}
    environment()
    for key, fn in (("1", section_launch), ("2", section_first), ("3", section_saxpy),
                    ("4", section_forms), ("5", section_first_vec),
                    ("6", section_first_stdlib), ("7", section_numba),
                    ("8", section_collectives), ("9", section_fuse),
                    ("10", section_cg), ("11", section_thrust), ("12", section_memory),
                    ("13", section_link), ("14", section_negidx), ("15", section_typing)):
        if key not in want:
            continue
        try:
            fn(args)
        except Exception as e:  # noqa: BLE001
            err(f"section {key}", e)
    try:
        summary()
    except Exception as e:      # noqa: BLE001
        err("summary", e)
    path = os.environ.get("CUJIT_BENCH_OUT")
    if path:
        try:
            with open(path, "w") as f:
                json.dump(RESULTS, f, indent=1, default=str)
            log(f"wrote {path}")
        except Exception as e:  # noqa: BLE001
            err("json out", e)


if __name__ == "__main__":
    main()
