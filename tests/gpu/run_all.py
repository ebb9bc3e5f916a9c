"""`make test-gpu`: every GPU-marked test, in three pytest processes at once
(the stdlib's tests, the NumPy-protocol tests, everything else).  With an
empty kernel cache the stdlib's tests spend minutes in NVRTC on one core;
side by side the whole run takes as long as its longest group.  Prints each
group's result line, then the totals; exits non-zero if any group failed.
Extra arguments go to every pytest (e.g. -x, -k expr).  The pytests run in
tests/, where the source tree's cujit/ is not on sys.path: they test the
cujit that sys.executable imports (make test-gpu: the one installed in the
venv)."""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
SEPARATE = ["gpu/test_stdlib_gpu.py", "gpu/test_numpy_protocols_gpu.py"]


def main():
    extra = sys.argv[1:]
    groups = [[f] for f in SEPARATE] + [["."] + ["--ignore=" + f for f in SEPARATE]]
    procs = []
    t0 = time.time()
    for g in groups:
        log = tempfile.TemporaryFile(mode="w+")
        cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-m", "gpu", "-p",
               "no:cacheprovider"] + g + extra
        procs.append((g[0], subprocess.Popen(cmd, cwd=TESTS, stdout=log,
                                             stderr=subprocess.STDOUT), log))
    totals, rc = {}, 0
    for name, p, log in procs:
        code = p.wait()
        log.seek(0)
        out = log.read()
        lines = [ln for ln in out.splitlines() if ln.strip()]
        last = lines[-1] if lines else "(no output)"
        if code not in (0, 5):          # 5: nothing collected
            rc = 1
            print(out[-6000:])
        print("%-40s %s" % (name, last.strip("= ")))
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)", last):
            totals[what] = totals.get(what, 0) + int(n)
    print("all GPU tests: %s in %.0f s" % (", ".join("%d %s" % (v, k) for k, v in totals.items()),
                                           time.time() - t0))
    return rc


if __name__ == "__main__":
    sys.exit(main())
