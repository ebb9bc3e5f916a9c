"""What the first-call sections (2, 5, 6) share: one timing script per case,
each run in a fresh process; rounds that take the cases in turn, so that a
drift of the machine touches every case alike; medians.

A case's script prints `RESULT <ms> <True|False> ...` (the time from just
before the decorator or the operation to its synchronized result, and whether
the result was right) and `NOTE <text>` lines.  Every process gets its own
cache folders: cujit's, CuPy's, numba's and the driver's PTX JIT cache
(CUDA_CACHE_PATH), fresh for an empty-cache run, and kept from a first
filling run for a warm-cache run."""
import os
import tempfile
import time

from benchlib import RESULTS, child_env, err, median, run_script

CACHE_VARS = ("CUJIT_CACHE_DIR", "CUPY_CACHE_DIR", "NUMBA_CACHE_DIR", "CUDA_CACHE_PATH")


def cache_env(root, extra):
    """the environment of a process whose every cache lives under root"""
    env = child_env(PYTHONUNBUFFERED="1")
    for var in CACHE_VARS:
        d = os.path.join(root, var.lower())
        os.makedirs(d, exist_ok=True)
        env[var] = d
    env.update(extra or {})
    return env


class Case:
    """one library's script for one measurement, and what its runs gave"""

    def __init__(self, key, script, extra=None):
        self.key, self.script, self.extra = key, script, extra
        self.empty, self.warm, self.notes = [], [], set()
        self.ok, self.error, self.fill_ms, self.root = True, None, None, None

    def run(self, root, timeout, where):
        """one process with its caches under root; its ms, None if it failed"""
        if self.error:
            return None
        try:
            out, m = run_script(f"{where} {self.key}", self.script, cache_env(root, self.extra),
                                timeout)
        except Exception as e:  # noqa: BLE001
            self.error = f"{type(e).__name__}: {e}"
            err(f"{where}/{self.key}", e)
            return None
        self.ok &= m[2] == "True"
        self.notes.update(ln[5:] for ln in out.splitlines() if ln.startswith("NOTE "))
        return float(m[1])

    def summary(self):
        return {"empty_ms": median(self.empty), "empty_runs_ms": self.empty,
                "warm_ms": median(self.warm), "warm_runs_ms": self.warm,
                "fill_ms": self.fill_ms, "correct": self.ok, "notes": sorted(self.notes),
                **({"error": self.error} if self.error else {})}


def write_cases(work, scripts, prelude, extras=None):
    """{key: script text} written under work, as Cases"""
    cases = []
    for key, body in scripts.items():
        path = os.path.join(work, f"case_{len(cases)}.py")
        with open(path, "w") as f:
            f.write(prelude + body)
        cases.append(Case(key, path, (extras or {}).get(key)))
    return cases


def alternate(cases, rounds, budget, timeout, work, where, warm=True):
    """Runs every case `rounds` times with empty caches and (warm) as often
    with the caches one filling run left, the cases in turn within each round;
    stops early when `budget` seconds are spent (noted)."""
    deadline = time.perf_counter() + budget
    if warm:
        for c in cases:
            c.root = tempfile.mkdtemp(dir=work)
            c.fill_ms = c.run(c.root, timeout, where)
    for r in range(rounds):
        if time.perf_counter() > deadline:
            RESULTS["notes"].append(f"{where}: {r} of {rounds} rounds (time budget spent)")
            break
        for c in cases:
            ms = c.run(tempfile.mkdtemp(dir=work), timeout, where)
            if ms is not None:
                c.empty.append(ms)
            if warm and c.root:
                ms = c.run(c.root, timeout, where)
                if ms is not None:
                    c.warm.append(ms)
    return cases


def runs_text(v, nd=1):
    return "[" + ", ".join(f"{x:.{nd}f}" for x in v) + "]"
