"""Section 12: memory.  cujit's pool is created exportable (a POSIX fd
handle type) so that any array can be shared with CUDA IPC; this section
checks what that costs and what opening a handle costs, beside CuPy and
numba-cuda.  Each case runs in a process of its own (bench/memory_child.py),
the variants taking turns round by round (the order alternating), medians
over the rounds:

a. host microseconds per allocation and free of 4 KiB and of 64 MiB:
   cujit (exportable pool), cujit with CUJIT_IPC=0 (a plain pool), CuPy
   (its memory pool) and numba-cuda (cuMemAlloc, frees deferred);
b. microseconds per `x + y` of 2^20 float32, a new array each time: cujit
   exportable and plain, CuPy;
c. CUDA IPC: milliseconds for a spawned process (CUDA already initialised
   there) to open a 1 MiB array's handle and copy it to the host, the first
   handle (cold: cujit fetches the pool's fd over its socket and imports
   the pool) and later ones (warm), cujit beside numba-cuda (cuIpcOpenMemHandle),
   each result checked against the exporter's data."""
import os

from benchlib import RESULTS, child_env, cp, cuda, cujit, err, fmt, log, median, run_script

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory_child.py")


def variants(case):
    out = []
    if cujit is not None:
        out.append(("cujit", "cujit (exportable pool)", {"MEM_LIB": "cujit"}))
        if case != "ipc":
            out.append(("cujit_plain", "cujit, CUJIT_IPC=0", {"MEM_LIB": "cujit",
                                                              "CUJIT_IPC": "0"}))
    if cp is not None and case != "ipc":
        out.append(("cupy", "CuPy", {"MEM_LIB": "cupy"}))
    if cuda is not None and case != "add":
        out.append(("numba", "numba-cuda", {"MEM_LIB": "numba"}))
    return out


def rounds(case, extra, nrounds, timeout):
    """{key: [the RESULT fields of each round]} over rounds taking turns"""
    got = {}
    vs = variants(case)
    for r in range(nrounds):
        for key, name, env in (vs if r % 2 == 0 else vs[::-1]):
            try:
                _, m = run_script(f"memory/{case}/{key}", CHILD,
                                  child_env(MEM_CASE=case, **env, **extra), timeout)
                got.setdefault(key, []).append([float(v) for v in m[1:]])
            except Exception as e:  # noqa: BLE001
                err(f"memory/{case}/{key}", e)
    return got, {key: name for key, name, _ in vs}


def report(title, case, extra, nrounds, unit, fields, res):
    got, names = rounds(case, extra, nrounds, 300)
    log(f"  {title}")
    for key, runs in got.items():
        meds = [median([run[i] for run in runs]) for i in range(len(fields))]
        res.setdefault(case, {}).setdefault(extra.get("MEM_BYTES", "-"), {})[key] = dict(
            zip(fields, meds), rounds=runs)
        text = ", ".join(f"{f} {fmt(v, 2)} {unit}" for f, v in zip(fields, meds))
        log(f"    {names[key]:<26} {text}")


def section_memory(args):
    log("\n== 12. memory: the exportable pool's cost, CUDA IPC open ==")
    res = RESULTS.setdefault("memory", {})
    nrounds = 2 if args.quick else 5
    reps = "200" if args.quick else "2000"
    for nbytes in (4096, 64 << 20):
        report(f"a. allocation + free of {nbytes} bytes", "alloc",
               {"MEM_BYTES": str(nbytes), "MEM_REPS": reps}, nrounds, "us", ["per call"], res)
    report("b. x + y of 2^20 float32 (a new array each)", "add", {"MEM_REPS": reps}, nrounds,
           "us", ["per call"], res)
    report("c. CUDA IPC: a spawned process opens a 1 MiB array and copies it", "ipc", {},
           nrounds, "ms", ["cold", "warm"], res)
