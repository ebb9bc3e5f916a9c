"""`make test-gpu`: every GPU-marked test, spread over the machine's cores.

With an empty kernel cache most of the run is NVRTC compiling the stdlib's
kernels, one compilation per core at a time, so the tests run in parallel:
- with pytest-xdist installed: one pytest, `-n WORKERS`, tests handed out
  one at a time to whichever worker is free (`--dist worksteal`; `load` on
  xdist older than 3.2);
- without it: the tests are collected once and dealt round-robin into
  WORKERS shards (a file's tests spread over every shard, so the stdlib's
  compilations are too), each shard one pytest process, all at once.
WORKERS: $CUJIT_TEST_WORKERS, else 12 or the number of CPUs less 2 where
that is fewer.  The processes share the disk cache ($CUJIT_CACHE_DIR or
the default), which takes concurrent writers; a kernel two workers need at
once may be compiled twice.

Prints each process's result line, the failures' output, the reasons of
every skipped test (pytest -rs, summed over processes), then the totals;
exits non-zero if any process failed.  Extra arguments go to pytest (e.g.
-x, -k expr).  The pytests run in tests/, where the source tree's cujit/ is
not on sys.path: they test the cujit that sys.executable imports (make
test-gpu: the one installed in the venv)."""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
BASE = [sys.executable, "-m", "pytest", "-q", "-rfEs", "-m", "gpu", "-p", "no:cacheprovider"]
RUN = ["--durations=8", "--durations-min=5"]   # the slow tests bound the run: named
SKIP_LINE = re.compile(r"^SKIPPED \[(\d+)\] (.*)$")
SLOW_LINE = re.compile(r"^(\d+\.\d+)s (call|setup|teardown) +(.*)$")


def workers():
    n = os.environ.get("CUJIT_TEST_WORKERS")
    if n:
        return max(1, int(n))
    return max(1, min(12, (os.cpu_count() or 2) - 2))


def xdist_dist():
    """the --dist mode of the installed pytest-xdist, None without it"""
    if importlib.util.find_spec("xdist") is None:
        return None
    try:
        from importlib.metadata import version
        major, minor = (int(v) for v in version("pytest-xdist").split(".")[:2])
    except Exception:           # noqa: BLE001
        return "load"
    return "worksteal" if (major, minor) >= (3, 2) else "load"


def is_path(arg):
    return not arg.startswith("-") and os.path.exists(os.path.join(TESTS, arg.split("::")[0]))


def local_id(nodeid):
    """a node id (pytest writes them from its rootdir, the repository) from
    tests/, where the shards run"""
    path, sep, rest = nodeid.partition("::")
    for k in range(path.count("/") + 1):
        tail = path.split("/", k)[-1]
        if os.path.exists(os.path.join(TESTS, tail)):
            return tail + sep + rest
    return nodeid


def collect(extra):
    """the GPU tests' node ids, in collection order"""
    r = subprocess.run(BASE + ["--collect-only"] + extra, cwd=TESTS, capture_output=True,
                       text=True)
    ids = [local_id(ln.strip()) for ln in r.stdout.splitlines()
           if "::" in ln and not ln.startswith(" ")]
    if r.returncode not in (0, 5) or (not ids and r.returncode != 5):
        print(r.stdout[-4000:] + r.stderr[-2000:])
        raise SystemExit("run_all: collecting the GPU tests failed")
    return ids


def groups(extra, n):
    """(name, pytest arguments) of each process to run"""
    dist = xdist_dist()
    if dist and n > 1:
        return [("pytest -n %d --dist %s" % (n, dist), ["-n", str(n), "--dist", dist] + extra)]
    ids = collect(extra)
    if not ids:
        return [("pytest", extra)]
    opts = [a for a in extra if not is_path(a)]     # the shards name their tests
    n = min(n, len(ids))
    return [("shard %d/%d (%d tests)" % (k + 1, n, len(ids[k::n])), ids[k::n] + opts)
            for k in range(n)]


def skipped_summary(outs):
    """the SKIPPED lines of every process, counts summed per place and reason"""
    counts = {}
    for out in outs:
        for ln in out.splitlines():
            m = SKIP_LINE.match(ln.strip())
            if m:
                counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
    return ["SKIPPED [%d] %s" % (c, what) for what, c in sorted(counts.items())]


def slowest(outs, n=10):
    """the slowest test phases of every process (pytest --durations)"""
    rows = []
    for out in outs:
        for ln in out.splitlines():
            m = SLOW_LINE.match(ln.strip())
            if m:
                rows.append((float(m.group(1)), m.group(2), m.group(3)))
    return ["%7.1f s %-8s %s" % r for r in sorted(rows, reverse=True)[:n]]


def main():
    extra = sys.argv[1:]
    n = workers()
    t0 = time.time()
    procs = []
    for name, args in groups(extra, n):
        log = tempfile.TemporaryFile(mode="w+")
        procs.append((name, subprocess.Popen(BASE + RUN + args, cwd=TESTS, stdout=log,
                                             stderr=subprocess.STDOUT), log))
    totals, rc, outs = {}, 0, []
    for name, p, log in procs:
        code = p.wait()
        log.seek(0)
        out = log.read()
        outs.append(out)
        lines = [ln for ln in out.splitlines() if ln.strip()]
        last = lines[-1] if lines else "(no output)"
        if code not in (0, 5):          # 5: nothing collected
            rc = 1
            print(out[-8000:])
        print("%-40s %s" % (name, last.strip("= ")))
        for k, what in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)", last):
            totals[what] = totals.get(what, 0) + int(k)
    slow = slowest(outs)
    if slow:
        print("slowest tests (5 s and over):")
        for ln in slow:
            print("  " + ln)
    skips = skipped_summary(outs)
    if skips:
        print("skipped tests, by reason:")
        for ln in skips:
            print("  " + ln)
    print("all GPU tests: %s in %.0f s (%d processes)" % (
        ", ".join("%d %s" % (v, k) for k, v in totals.items()), time.time() - t0, len(procs)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
