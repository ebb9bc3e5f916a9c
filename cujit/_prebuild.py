"""`python -m cujit prebuild`: the stdlib's common specialisations built
ahead of time into the prebuilt store inside the installed package
(cujit/_prebuilt/), for the architecture of each GPU present or the ones
named, without launching anything.

    python -m cujit prebuild [--archs sm_90,sm_80] [--out DIR] [--jobs N]
                             [--ops sum,argmax,...] [--dtypes ...] [--list]

The architectures: --archs, else CUJIT_PREBUILD_ARCHS, else those of the
GPUs the driver reports.  With none of them (no GPU, no variable) it stops at
once and says so in one line, exit status 0.  `pip install .` and
`make install` run it from setup.py's build (into the build tree, so that
the store ships with the package); run it again after changing GPUs.

For each architecture a child process runs the operations of OPS on small
arrays of each dtype, on cujit's stand-in driver (CUJIT_PREBUILD_ARCH,
runtime/nodriver.c: device memory in host memory, launches that do
nothing), from a pool of threads: NVRTC lets go of the GIL, so kernels
compile in parallel.  Every binary it compiles goes to the store under the
key the same kernel has at run time (runtime/prebuilt.c), so the binaries
are what the run-time pipeline would build: the same forms, plans,
pl_transpile and NVRTC options.  At run time a binary the user's disk cache
lacks is read from the store before NVRTC runs; CUJIT_LOG=1 says
"prebuilt hit", CUJIT_NO_PREBUILT=1 turns the store off.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ENV_ARCHS = "CUJIT_PREBUILD_ARCHS"
DTYPES = ("float32", "float64", "int32", "int64", "bool")

# the reductions' forms: (suffix, the array, axis); "m" is 1024 x 1024, "o"
# 1000 x 999, whose rows are no whole number of 16-byte packs (other kernels)
_AXES = (("", "x", None), ("_axis_last", "m", -1), ("_axis0", "m", 0),
         ("_axis_last_odd", "o", -1), ("_axis0_odd", "o", 0))


def _ops():
    """name -> the operation on cujit (L) and the arrays of one dtype (a: x, y
    1-d, m and o 2-d)"""
    ops = {
        "add": lambda L, a: a["x"] + a["y"],
        "subtract": lambda L, a: a["x"] - a["y"],
        "multiply": lambda L, a: a["x"] * a["y"],
        "true_divide": lambda L, a: a["x"] / a["y"],
        "scale": lambda L, a: a["x"] * 2.0,
        "add_int": lambda L, a: a["x"] + 1,
        "greater": lambda L, a: a["x"] > a["y"],
        "where": lambda L, a: L.where(a["x"] > a["y"], a["x"], a["y"]),
    }
    for f in ("sum", "prod", "min", "max", "mean", "argmax", "argmin", "cumsum"):
        for suffix, arr, axis in _AXES:
            if f == "cumsum" and axis == 0:
                continue
            kw = {} if axis is None else {"axis": axis}
            ops[f + suffix] = (lambda f, arr, kw: lambda L, a: getattr(L, f)(a[arr], **kw))(
                f, arr, kw)
    return ops


OPS = _ops()


def _arrays(L, np, dtype):
    """x, y of 2^20 elements, m of 1024 x 1024 and o of 1000 x 999 (the
    multi-block paths); their contents do not matter: nothing runs"""
    n = 1 << 20
    h = np.arange(n).astype(dtype)
    return {"x": L.to_device(h), "y": L.to_device(h[::-1].copy()),
            "m": L.to_device(h.reshape(1024, 1024)),
            "o": L.to_device(h[:1000 * 999].reshape(1000, 999))}


def _child(jobs, dtypes, ops):
    """In a process on the stand-in driver: every (dtype, op) once, from a pool
    of `jobs` threads; prints a JSON line {ran, failed}."""
    import numpy as np
    import cujit as L
    from concurrent.futures import ThreadPoolExecutor
    from cujit import _warmup
    _warmup._load_kernel_modules()
    arrays = {d: _arrays(L, np, d) for d in dtypes}
    failed = []

    def run(task):
        d, op = task
        try:
            OPS[op](L, arrays[d])
        except Exception as e:          # noqa: BLE001 - NumPy refuses some (bool - bool)
            failed.append("%s %s: %s: %s" % (d, op, type(e).__name__, str(e)[:200]))

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(run, [(d, op) for d in dtypes for op in ops]))
    L.synchronize()
    print(json.dumps({"ran": len(dtypes) * len(ops), "failed": failed}))


def _default_jobs():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_store():
    """the store the installed package reads (CUJIT_PREBUILT_DIR, else
    <package>/_prebuilt)"""
    pkg = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("CUJIT_PREBUILT_DIR") or os.path.join(pkg, "_prebuilt")


def _check_arch(a):
    import re
    if not re.fullmatch(r"sm_[1-9][0-9]{1,2}[af]?", a):
        raise ValueError("%r is not an architecture: give names such as sm_90 or sm_80" % a)
    return a


def target_archs(archs=None):
    """(architectures, where they came from): archs (a list or a comma-separated
    string), else CUJIT_PREBUILD_ARCHS, else the GPUs' (read through the
    driver, nothing launched); ([], why) when there are none."""
    if archs is None:
        archs = os.environ.get(ENV_ARCHS, "")
        where = ENV_ARCHS
    else:
        where = "--archs"
    if isinstance(archs, str):
        archs = [a for a in archs.replace(" ", ",").split(",") if a]
    if archs:
        return list(dict.fromkeys(_check_arch(a.strip()) for a in archs)), where
    try:
        import cujit
        n = cujit.device_count()
        found = [cujit.Device(i).arch for i in range(n)]
    except Exception as e:          # noqa: BLE001 - no driver, no GPU: nothing to build
        return [], "no GPU (%s) and no %s" % (str(e).split(" (")[0], ENV_ARCHS)
    if not found:
        return [], "no GPU and no %s" % ENV_ARCHS
    return list(dict.fromkeys(found)), "the GPUs present"


def _check_writable(out):
    """OSError saying what to do when the store's folder cannot be written"""
    try:
        os.makedirs(out, mode=0o755, exist_ok=True)
        ok = os.access(out, os.W_OK | os.X_OK)
    except OSError as e:
        ok, why = False, e.strerror
    else:
        why = "not writable by this user"
    if not ok:
        raise OSError("cannot write the prebuilt store %s (%s): run this as the user who "
                      "installed cujit, or give --out DIR and set CUJIT_PREBUILT_DIR=DIR "
                      "when running" % (out, why))


def _store_size(out):
    try:
        files = [f for f in os.listdir(out) if f.endswith(".cjc")]
    except OSError:
        return 0, 0
    return len(files), sum(os.path.getsize(os.path.join(out, f)) for f in files)


def _child_env(arch, out):
    env = dict(os.environ, CUJIT_PREBUILD_ARCH=arch, CUJIT_PREBUILT_DIR=out, CUJIT_CACHE="0")
    for v in ("CUJIT_NO_PREBUILT", "CUJIT_LOG", "CUJIT_DUMP", "CUJIT_PARALLEL_COMPILE"):
        env.pop(v, None)
    return env


def prebuild(archs=None, out=None, jobs=None, dtypes=None, ops=None, say=print, where=None):
    """Builds the store for each architecture (target_archs); returns a dict:
    archs, where, per-arch {kernels, seconds, failed}, files, bytes, out.
    Raises ValueError for bad arguments, RuntimeError when a build fails."""
    archs, found = target_archs(archs)
    where = where or found
    out = os.path.abspath(out or default_store())
    dtypes = list(dtypes or DTYPES)
    ops = list(ops or OPS)
    bad = [o for o in ops if o not in OPS]
    if bad:
        raise ValueError("unknown operation%s %s; --list shows them"
                         % ("s" if len(bad) > 1 else "", ", ".join(bad)))
    if archs:
        _check_writable(out)
    result = {"archs": archs, "where": where, "out": out, "per_arch": {}}
    jobs = jobs or _default_jobs()
    for arch in archs:
        before = _store_size(out)[0]
        t0 = time.perf_counter()
        cmd = [sys.executable, "-c", "import sys, cujit._prebuild as p; "
               "p._child(int(sys.argv[1]), sys.argv[2].split(','), sys.argv[3].split(','))",
               str(jobs), ",".join(dtypes), ",".join(ops)]
        r = subprocess.run(cmd, env=_child_env(arch, out), capture_output=True, text=True)
        secs = time.perf_counter() - t0
        line = r.stdout.strip().splitlines()[-1:] if r.stdout else []
        if r.returncode != 0 or not line:
            raise RuntimeError("building the prebuilt store for %s failed:\n%s"
                               % (arch, (r.stderr or r.stdout)[-3000:]))
        child = json.loads(line[0])
        kernels = _store_size(out)[0] - before
        result["per_arch"][arch] = {"kernels": kernels, "seconds": secs,
                                    "failed": child["failed"]}
        say("cujit prebuild: %s: %d kernels built in %.1f s (%d threads)"
            % (arch, kernels, secs, jobs))
    result["files"], result["bytes"] = _store_size(out)
    return result


def _parser(prog):
    p = argparse.ArgumentParser(
        prog=prog, allow_abbrev=False,
        description="Builds the stdlib's common kernels into the prebuilt store of the "
                    "installed package, for this machine's GPUs or named architectures, "
                    "without launching anything.")
    p.add_argument("--archs", default=None,
                   help="comma-separated architectures (sm_90,sm_80); default: $%s, "
                        "else the GPUs present" % ENV_ARCHS)
    p.add_argument("--out", default=None, help="the store (default: %s)" % default_store())
    p.add_argument("--jobs", type=int, default=0, help="compiler threads (default: the CPUs)")
    p.add_argument("--dtypes", default=",".join(DTYPES), help="default: %(default)s")
    p.add_argument("--ops", default="", help="comma-separated operations (default: all)")
    p.add_argument("--list", action="store_true", help="list the operations and exit")
    p.add_argument("--verbose", action="store_true",
                   help="also list the operations NumPy refuses for a dtype (bool - bool)")
    return p


def main(argv, prog="python -m cujit prebuild"):
    """The exit status: 0 built or nothing to build, 1 a build failed, 2 a usage error."""
    p = _parser(prog)
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return e.code
    if a.list:
        print("\n".join(OPS))
        return 0
    try:
        import numpy as np
        dtypes = [np.dtype(d.strip()).name for d in a.dtypes.split(",") if d.strip()]
        ops = [o.strip() for o in a.ops.split(",") if o.strip()]
        archs, where = target_archs(a.archs)
        if not archs:
            print("cujit prebuild: skipped: %s (set %s=sm_90,... to build for named "
                  "architectures)" % (where, ENV_ARCHS))
            return 0
        r = prebuild(archs, a.out, a.jobs or None, dtypes, ops or None, where=where)
    except ImportError as e:
        print("cujit prebuild: skipped: %s (run `python -m cujit prebuild` once NumPy is "
              "installed)" % e)
        return 0
    except (TypeError, ValueError) as e:
        sys.stderr.write("%s: %s\n" % (prog, e))
        return 2
    except (RuntimeError, OSError) as e:
        sys.stderr.write("%s: %s\n" % (prog, e))
        return 1
    for arch, v in r["per_arch"].items():
        if a.verbose:
            for f in v["failed"]:
                print("cujit prebuild: %s: not built: %s" % (arch, f))
    print("cujit prebuild: %s (%s): store %s: %d files, %.1f MiB"
          % (", ".join(r["archs"]), r["where"], r["out"], r["files"], r["bytes"] / 2**20))
    return 0
