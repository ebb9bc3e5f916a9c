"""Section 1: host time per launch, each library's process (s1_child)
paired with the C floor process (bench/launch_floor.c), which this module
builds; Served drives either one line by line."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

from benchlib import HERE, INC_CUDA, LIBS, RESULTS, ROOT, child_env, cp, err, log, median


class Served:
    """A process that runs one timed repetition per line it reads and
    answers with a line: the C floor in serve mode or a library's
    --launch-child.  Every wait has a deadline (the process is killed)."""

    def __init__(self, argv, env, what, cpus=None):
        self.what = what
        self.err = tempfile.TemporaryFile(mode="w+")
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1, env=env, cwd=ROOT,
                                  preexec_fn=pin)

    def expect(self, prefixes, timeout=180):
        """the next line starting with one of prefixes (others are skipped)"""
        timer = threading.Timer(timeout, self.p.kill)
        timer.start()
        try:
            while True:
                ln = self.p.stdout.readline()
                if not ln:
                    self.err.seek(0)
                    raise RuntimeError(f"{self.what} ended (rc {self.p.poll()}): "
                                       f"{self.err.read().strip()[-800:]}")
                if ln.startswith(prefixes):
                    return ln.rstrip("\n")
        finally:
            timer.cancel()

    def ask(self, line, prefixes, timeout=180):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.expect(prefixes, timeout)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        self.err.close()


def floor_server(N, cpus=None):
    global FLOOR_EXE
    if FLOOR_EXE is None:
        exe, needs_module = build_launch_floor()
        FLOOR_EXE = [exe] + ([floor_module_file()] if needs_module else [])
    env = dict(os.environ)
    dirs, _ = cuda_lib_dirs()
    env["LD_LIBRARY_PATH"] = ":".join(dirs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
    return Served([FLOOR_EXE[0], str(N), "serve"] + FLOOR_EXE[1:], env, "C floor", cpus)


def child_server(lib, args, cpus=None):
    return Served([sys.executable, os.path.join(HERE, "bench.py"), "--launch-child", lib,
                   "--launches", str(args.launches)], child_env(), f"{lib} launch process", cpus)


def section_launch(args):
    log("\n== 1. host time per launch (1 int32 array + 1 int, grid 1 x 32) ==")
    log(f"  each library in a process of its own (importing only itself and CuPy) beside the C "
        f"floor process (bench/launch_floor.c), both alive; every repetition of "
        f"{args.launches} launches of a case comes right after one of the C floor, "
        f"{args.pairs} such pairs per case (this machine's launch cost drifts by 10-20 % over "
        "seconds); medians of the times and of the paired ratios")
    res = RESULTS.setdefault("launch", {})
    res["N"], res["pairs"] = args.launches, args.pairs
    libs = [lib for lib, mod in LIBS if mod is not None]
    floor_all, got = [], {}     # key -> {name, us, floor, correct}
    floor_ok = True
    for lib in libs:
        floor = child = None
        try:
            if floor_ok:
                try:
                    floor = floor_server(args.launches)
                    floor.ask("go", "rep ")     # a first repetition, untimed
                except Exception as e:  # noqa: BLE001
                    err("launch/c_floor", e)
                    floor_ok = False
                    if floor is not None:
                        floor.close()
                    floor = None
            child = child_server(lib, args)
            ready = json.loads(child.expect("READY ")[len("READY "):])
            for _ in range(args.pairs):
                for key in list(ready):
                    f = None
                    if floor is not None:
                        f = float(re.search(r"rep \d+: ([0-9.]+) us",
                                            floor.ask("go", "rep ")).group(1))
                    a = child.ask(key, ("T ", "E "))
                    if a.startswith("E "):
                        err(f"launch/{key}", RuntimeError(a[2:]))
                        del ready[key]
                        continue
                    g = got.setdefault(key, {"name": ready[key], "us": [], "floor": [],
                                             "correct": False})
                    g["us"].append(float(a[2:].split()[0]))
                    if f is not None:
                        g["floor"].append(f)
                        floor_all.append(f)
            r = json.loads(child.ask("quit", "LAUNCH_JSON ")[len("LAUNCH_JSON "):])
            for where, msg in r["errors"].items():
                RESULTS["errors"][f"launch/{lib}/{where}"] = msg
            for key, c in r["cases"].items():
                if key in got:
                    got[key]["correct"] = c["correct"]
            if floor is not None:
                floor.p.stdin.write("quit\n")
                floor.p.stdin.flush()
                tail = floor.p.stdout.read()
                if floor.p.wait(timeout=60) != 0 or "check ok" not in tail:
                    floor.err.seek(0)
                    raise RuntimeError("C floor: " + (tail + floor.err.read()).strip()[-500:])
        except Exception as e:  # noqa: BLE001
            err(f"launch/{lib}", e)
        finally:
            for sv in (floor, child):
                if sv is not None:
                    sv.close()
    if floor_all:
        res["c_floor"] = {"us": median(floor_all), "reps_us": floor_all}
        log(f"  {'C floor cuLaunchKernel (bench/launch_floor.c)':<44} {median(floor_all):8.3f} "
            f"us/launch   (all {len(floor_all)} repetitions)")
    for key, g in got.items():
        ratios = [u / f for u, f in zip(g["us"], g["floor"]) if f > 0]
        res[key] = {"us": median(g["us"]), "reps_us": g["us"], "floor_us": g["floor"],
                    "ratio": median(ratios), "correct": g["correct"]}
        if not g["correct"]:
            RESULTS["notes"].append(f"{g['name']}: WRONG RESULT")
        pair = (f"paired C floor {median(g['floor']):6.3f}   ratio {median(ratios):5.2f}x   "
                if ratios else "")
        log(f"  {g['name']:<44} {median(g['us']):8.3f} us/launch   {pair}"
            f"reps {[round(p, 2) for p in g['us']]}{'' if g['correct'] else '   WRONG RESULT'}")


def cuda_lib_dirs():
    """Folders that may hold libcuda / libnvrtc, existing ones only."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    cands = [os.path.join(home, "lib64"), os.path.join(home, "targets/x86_64-linux/lib"),
             "/usr/local/cuda/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
             "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/wsl/lib"]
    out = []
    for d in cands:
        if os.path.isdir(d) and d not in out:
            out.append(d)
    return out, home


def build_launch_floor():
    """Compiles bench/launch_floor.c; returns (exe, needs_module_file)."""
    dirs, home = cuda_lib_dirs()
    inc = [f"-I{os.path.join(home, 'include')}", "-I/usr/local/cuda/include"]
    libs = [f"-L{d}" for d in dirs] + [f"-Wl,-rpath,{d}" for d in dirs]
    stubs = os.path.join(home, "lib64", "stubs")
    if os.path.isdir(stubs):
        libs.append(f"-L{stubs}")   # link-time only, last: the driver's libcuda wins at run time
    exe = os.path.join(tempfile.gettempdir(), "launch_floor")
    src = os.path.join(HERE, "launch_floor.c")
    tries = [(["-lcuda", "-lnvrtc"], [], False), (["-lcuda"], ["-DFLOOR_NO_NVRTC"], True)]
    last = ""
    for ldlibs, defs, needs_module in tries:
        cmd = ["gcc", "-O2", src, *defs, *inc, *libs, *ldlibs, "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            log(f"  built {exe}: {' '.join(cmd)}")
            return exe, needs_module
        last = p.stderr.strip()[-1500:]
        log(f"  build failed ({' '.join(ldlibs + defs)}): {last.splitlines()[-1] if last else ''}")
    raise RuntimeError("cannot build launch_floor.c: " + last)


def floor_module_file():
    """A CUBIN of the inc kernel through nvcc, for a launch_floor built without NVRTC."""
    _, home = cuda_lib_dirs()
    nvcc = shutil.which("nvcc") or os.path.join(home, "bin", "nvcc")
    d = tempfile.mkdtemp(prefix="cujit_floor_")
    cu = os.path.join(d, "inc.cu")
    with open(cu, "w") as f:
        f.write(INC_CUDA)
    arch = "native"
    if cp is not None:
        try:
            cc = cp.cuda.Device().compute_capability
            arch = f"sm_{cc}"
        except Exception:   # noqa: BLE001
            pass
    out = os.path.join(d, "inc.cubin")
    p = subprocess.run([nvcc, "-cubin", f"-arch={arch}", cu, "-o", out],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("nvcc -cubin failed: " + p.stderr.strip()[-500:])
    return out


FLOOR_EXE = None
