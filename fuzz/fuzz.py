"""fuzz.py - the fuzzer's driver: worker processes run many generated kernels
each (fuzz/gen.py) through cujit's transpiler, and a sample of those that
transpile through NVRTC (inspect_ptx); the driver counts the outcomes,
restarts a worker that crashed or hung, saves the unit that did it, and exits
1 when it saw a bug.  See fuzz/README.md.

    python3 fuzz/fuzz.py -n 100000            # a long run (make fuzz)
    python3 fuzz/fuzz.py --seconds 45         # a bounded one (make check)
    python3 fuzz/fuzz.py --replay SEED IDX    # one unit, in this process

Outcomes: transpiled; clean (CompileError with a message, a file and a line
inside the source; TypeError / ValueError / OverflowError with a message);
notpy (the generator made text Python itself rejects; not run); and the bugs:
exception (any other exception, or a clean type without its message or
location), crash, hang, nvrtc (NVRTC rejected CUDA cujit generated)."""
import argparse
import json
import linecache
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

BUGS = ("exception", "crash", "hang", "nvrtc")
MODES = ("jit", "cuda.jit")     # jit.rawkernel's dialect, cuda.jit's (Numba's typing)
BATCH = 64
HEADER = ("import math\nimport numpy as np\nimport cujit\nfrom cujit import jit\n"
          "from cujit import cuda\n\n")


# ---- one unit ----

def where_ok(e, ranges):
    """A CompileError's location: a real file, a line inside it, and inside the
    unit when the file is the unit's batch file."""
    fname, line = getattr(e, "filename", None), getattr(e, "lineno", None)
    if not fname or not isinstance(line, int) or line < 1:
        return False
    if fname in ranges:
        lo, hi = ranges[fname]
        return lo <= line <= hi
    if not os.path.isfile(fname):
        return False
    return line <= len(linecache.getlines(fname))


def classify(e, ranges):
    import cujit
    msg = str(e.args[0]) if getattr(e, "args", None) else ""
    if isinstance(e, cujit.CompileError):
        if "NVRTC" in msg:
            return "nvrtc"
        return "clean" if msg.strip() and where_ok(e, ranges) else "exception"
    if type(e) in (TypeError, ValueError, OverflowError):
        return "clean" if msg.strip() else "exception"
    return "exception"


def build(unit, ns, jit, cuda):
    """the unit's kernel, its device functions wrapped into its globals:
    jit.rawkernel, or cuda.jit for a unit in Numba's spelling"""
    g = ns
    if unit["globals"] is not None:
        g = dict(unit["globals"])
        g.setdefault("cuda", cuda)
    fns = {}
    for kind, name, _ in unit["funcs"]:
        fns[name] = types.FunctionType(ns[name].__code__, g, name)
    kernel = None
    for kind, name, _ in unit["funcs"]:
        if kind == "device" and name != unit["funcs"][-1][1]:
            dev = cuda.jit(device=True) if unit["numba"] else jit.rawkernel(device=True)
            g[name] = dev(fns[name])
        elif unit["numba"]:
            kernel = cuda.jit(**unit["options"])(fns[name])
        else:
            kernel = jit.rawkernel(boundscheck=unit["boundscheck"])(fns[name])
    return kernel


def run_unit(unit, ns, ranges, ptx_rate):
    """-> (outcome, detail)"""
    from cujit import jit, cuda
    try:
        kernel = build(unit, ns, jit, cuda)
        if not isinstance(kernel.inspect_cuda(*unit["args"]), str):
            kernel.inspect_ptx(*unit["args"])   # no arguments: what compiles is inspect_ptx()
            return "ptx", ""
    except RecursionError as e:
        return "exception", "RecursionError: %s" % e
    except Exception as e:
        kind = classify(e, ranges)
        return kind, "%s: %s" % (type(e).__name__, e) if kind != "clean" else type(e).__name__
    if unit["ptx_roll"] >= ptx_rate:
        return "transpiled", ""
    try:
        kernel.inspect_ptx(*unit["args"])
    except Exception as e:
        kind = classify(e, ranges)
        if kind == "clean":     # a clean error from inspect_ptx after inspect_cuda worked
            kind = "exception"
        return kind, "inspect_ptx: %s: %s" % (type(e).__name__, e)
    return "ptx", ""


# ---- the worker ----

def write_batch(units, tmp, tag):
    """One module file holding the batch's units; their line ranges."""
    path = os.path.join(tmp, "fz_%s.py" % tag)
    text, line, ranges = [HEADER], HEADER.count("\n") + 1, []
    for u in units:
        import gen
        src = gen.unit_source(u)
        try:
            compile(src, "<unit>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            ranges.append(None)
            continue
        n = src.count("\n")
        ranges.append((line, line + n - 1))
        text.append(src)
        line += n
    with open(path, "w") as f:
        f.write("".join(text))
    return path, ranges


def define(unit, rg, path, ns):
    """Runs the unit's definitions, compiled with their lines in the batch
    file; False when the generator made something Python rejects."""
    import gen
    src = "\n" * (rg[0] - 1) + gen.unit_source(unit)
    try:
        exec(compile(src, path, "exec"), ns)
    except Exception:
        return False
    return True


def safe_unit(seed, idx):
    """the generator's unit, or an empty one where the generator itself failed
    (its bug, not cujit's: counted with the sources that are not Python)"""
    import gen
    try:
        return gen.make_unit(seed, idx)
    except Exception:
        return {"funcs": [("kernel", "broken", ["def broken(:"])], "globals": None,
                "args": (), "boundscheck": False, "origin": "generator failed",
                "ptx_roll": 1.0, "numba": False, "options": {}}


def worker(args):
    import gen
    warnings.simplefilter("ignore")
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)                         # kernels' print() and the like
    idx = args.start
    while idx < args.stop:
        ids = list(range(idx, min(idx + BATCH, args.stop)))
        units, gen_s = [], []
        for i in ids:
            t0 = time.monotonic()
            units.append(safe_unit(args.seed, i))
            gen_s.append(time.monotonic() - t0)
        path, ranges = write_batch(units, args.tmp, "%d_%d" % (os.getpid(), idx))
        ns = {"__name__": "fz_batch", "__file__": path}
        exec(HEADER, ns)
        for i, u, rg, secs in zip(ids, units, ranges, gen_s):
            t0 = time.monotonic()
            if rg is not None and not define(u, rg, path, ns):
                rg = None
            mode = "cuda.jit" if u["numba"] else "jit"
            if rg is None:
                proto.write(json.dumps(["R", i, "notpy", "", mode, secs]) + "\n")
                continue
            proto.write(json.dumps(["S", i]) + "\n")
            kind, detail = run_unit(u, ns, {path: rg}, args.ptx_rate)
            secs += time.monotonic() - t0       # made, defined and run
            proto.write(json.dumps(["R", i, kind, detail[:2000], mode, secs]) + "\n")
        os.unlink(path)
        linecache.clearcache()
        idx = ids[-1] + 1
    proto.write(json.dumps(["D"]) + "\n")


# ---- the driver ----

class Worker:
    def __init__(self, d, start, stop):
        self.d = d
        self.stop = stop
        self.spawn(start)

    def spawn(self, start):
        d = self.d
        self.start = start
        self.next = start               # the first unit not yet reported
        self.current = None
        self.since = self.last = time.monotonic()
        self.log = tempfile.TemporaryFile(dir=d.tmp)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--seed", str(d.seed),
               "--start", str(start), "--stop", str(self.stop), "--ptx-rate",
               str(d.ptx_rate), "--tmp", d.tmp]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log,
                                  start_new_session=True)
        self.buf = b""
        d.sel.register(self.p.stdout, selectors.EVENT_READ, self)

    def lines(self, data):
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            yield json.loads(line)

    def stderr_tail(self):
        self.log.seek(0)
        return self.log.read()[-6000:].decode("utf-8", "replace")


def mode_of(seed, idx):
    import gen
    return "cuda.jit" if gen.is_numba(seed, idx) else "jit"


class Driver:
    def __init__(self, a):
        self.seed, self.ptx_rate = a.seed, a.ptx_rate
        self.out = a.out
        os.makedirs(self.out, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="cujit-fuzz-")
        os.environ.setdefault("CUJIT_CACHE", "0")       # no disk cache for throwaway kernels
        self.sel = selectors.DefaultSelector()
        self.counts = {k: 0 for k in ("transpiled", "ptx", "clean", "notpy", "stalled") + BUGS}
        self.modes = {m: {k: 0 for k in self.counts} for m in MODES}
        self.mode_s = {m: 0.0 for m in MODES}      # workers' seconds making and running units
        self.clean_types = {}
        self.reports = []
        self.hang_s = a.hang

    def save(self, kind, idx, detail):
        import gen
        u = gen.make_unit(self.seed, idx)
        path = os.path.join(self.out, "%s-%d-%d.py" % (kind, self.seed, idx))
        with open(path, "w") as f:
            f.write("# cujit fuzz: %s (seed %d, unit %d, %s); replay with\n"
                    "#   python3 fuzz/fuzz.py --replay %d %d\n# args: %s\n# %s\n"
                    % (kind, self.seed, idx, u["origin"], self.seed, idx,
                       gen.describe_args(u["args"]), describe_wrap(u)))
            f.write("".join("# " + line + "\n" for line in detail.splitlines()[-60:]))
            f.write(HEADER + gen.unit_source(u))
        self.reports.append((kind, idx, detail.splitlines()[0] if detail else "", path))

    def record(self, w, msg):
        w.last = time.monotonic()
        if msg[0] == "S":
            w.current, w.since = msg[1], time.monotonic()
        elif msg[0] == "R":
            _, idx, kind, detail, mode, secs = msg
            w.current = None
            w.next = idx + 1
            self.counts[kind] += 1
            self.modes[mode][kind] += 1
            self.mode_s[mode] += secs
            if kind == "clean":
                self.clean_types[detail] = self.clean_types.get(detail, 0) + 1
            if kind in BUGS:
                self.save(kind, idx, detail)

    def stalled(self, w):
        """the generator itself stuck on a batch (no unit running): the batch
        is skipped and counted, not a cujit bug"""
        self.sel.unregister(w.p.stdout)
        os.killpg(w.p.pid, signal.SIGKILL)
        w.p.wait()
        skip = min(w.next + BATCH, w.stop)
        self.counts["stalled"] += skip - w.next
        self.reports.append(("stalled", w.next, "generator stalled on units %d-%d"
                             % (w.next, skip - 1), ""))
        if skip < w.stop:
            w.spawn(skip)
            return True
        return False

    def finish(self, w, kind):
        """a worker ended: done, crashed or hung; restart it past its unit"""
        self.sel.unregister(w.p.stdout)
        if kind == "hang":
            os.killpg(w.p.pid, signal.SIGKILL)
        rc = w.p.wait()
        if kind == "crash" and rc == 0:
            kind = "done"
        if kind != "done" and w.current is not None:
            self.counts[kind] += 1
            self.modes[mode_of(self.seed, w.current)][kind] += 1
            self.save(kind, w.current, "exit status %s\n%s" % (rc, w.stderr_tail()))
            nxt = w.current + 1
            if nxt < w.stop:
                w.spawn(nxt)
                return True
        elif kind != "done":            # died between units: start where it left off
            self.counts["crash"] += 1
            self.reports.append(("crash", -1, "worker died outside a unit: %s" % rc, ""))
        return False

    def run(self, n, jobs, seconds):
        t0 = time.monotonic()
        per = (n + jobs - 1) // jobs
        live = [Worker(self, j * per, min(n, (j + 1) * per)) for j in range(jobs)]
        while live:
            for key, _ in self.sel.select(timeout=1.0):
                w = key.data
                data = os.read(w.p.stdout.fileno(), 65536)
                if not data:
                    if not self.finish(w, "crash"):
                        live.remove(w)
                    continue
                for msg in w.lines(data):
                    self.record(w, msg)
            now = time.monotonic()
            for w in list(live):
                if w.current is not None and now - w.since > self.hang_s:
                    if not self.finish(w, "hang"):
                        live.remove(w)
                elif w.current is None and now - w.last > self.hang_s:
                    if not self.stalled(w):
                        live.remove(w)
            if seconds and now - t0 > seconds:
                for w in live:
                    self.sel.unregister(w.p.stdout)
                    os.killpg(w.p.pid, signal.SIGKILL)
                    w.p.wait()
                break
        return time.monotonic() - t0

    def summary(self, elapsed):
        c = self.counts
        total = sum(c.values())
        print("cujit fuzz: seed %d, %d sources in %.1f s (%.0f per second)"
              % (self.seed, total, elapsed, total / max(elapsed, 1e-9)))
        print("  transpiled %d (of which through NVRTC: %d), clean errors %d, not Python %d%s"
              % (c["transpiled"] + c["ptx"], c["ptx"], c["clean"], c["notpy"],
                 ", skipped (generator stalled) %d" % c["stalled"] if c["stalled"] else ""))
        for m in MODES:
            cm = self.modes[m]
            n = sum(cm.values())
            print("  %-8s %d sources: transpiled %d (through NVRTC %d), clean errors %d, "
                  "not Python %d, bugs %d; %.0f per minute of one worker"
                  % (m, n, cm["transpiled"] + cm["ptx"], cm["ptx"], cm["clean"], cm["notpy"],
                     sum(cm[k] for k in BUGS), 60 * n / max(self.mode_s[m], 1e-9)))
        print("  clean error types: " + ", ".join("%s %d" % kv for kv in
                                                  sorted(self.clean_types.items())))
        print("  bugs: unexpected exceptions %d, crashes %d, hangs %d, NVRTC rejections %d"
              % (c["exception"], c["crash"], c["hang"], c["nvrtc"]))
        for kind, idx, first, path in self.reports[:40]:
            print("  %s unit %d: %s  [%s]" % (kind, idx, first[:200], path))
        return sum(c[k] for k in BUGS)


def describe_wrap(u):
    """how the unit's kernel is wrapped, as its decorator"""
    if u["numba"]:
        return "@cuda.jit(%s)" % ", ".join("%s=%r" % kv for kv in sorted(u["options"].items()))
    return "@jit.rawkernel(boundscheck=%s)" % u["boundscheck"]


def replay(a):
    import gen
    u = gen.make_unit(*a.replay)
    path, ranges = write_batch([u], tempfile.mkdtemp(prefix="cujit-fuzz-"), "replay")
    print(open(path).read())
    print("# args:", gen.describe_args(u["args"]))
    print("#", describe_wrap(u))
    if ranges[0] is None:
        print("outcome: notpy")
        return
    ns = {"__name__": "fz_batch", "__file__": path}
    exec(compile(open(path).read(), path, "exec"), ns)
    try:
        print("outcome:", *run_unit(u, ns, {path: ranges[0]}, 1.0))
    except BaseException:
        traceback.print_exc()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=100000, help="sources to run")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ptx-rate", type=float, default=0.01,
                    help="share of the sources that transpile sent through NVRTC")
    ap.add_argument("--hang", type=float, default=60, help="seconds for one source")
    ap.add_argument("--out", default=os.path.join(HERE, "out"), help="where bugs are saved")
    ap.add_argument("--replay", type=int, nargs=2, metavar=("SEED", "UNIT"),
                    help="run this unit here and print it")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--tmp", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    # the workers' limit everywhere: make_unit's mutations hit RecursionError at
    # the same depth in the driver (which saves a unit) and a replay
    sys.setrecursionlimit(10000)
    if a.worker:
        worker(a)
        return 0
    if a.replay is not None:
        replay(a)
        return 0
    d = Driver(a)
    elapsed = d.run(a.n, a.jobs, a.seconds)
    bugs = d.summary(elapsed)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
