"""Does the CPU a launch loop runs on explain section 1's two states?
(run on the GPU machine)

Section 1 of bench.py (session 3) saw cujit's repetitions switch between
about 3.1 and 4.1 us per launch for several repetitions at a time while the
C floor, measured between them, stayed at 2.7 us.  This pairs the C floor
with cujit's cases (bench.py's servers) under three placements: the
scheduler's (unpinned), both processes pinned to one CPU, and each pinned
to a CPU of its own.  Each repetition reports the CPU it ended on.

  PYTHONPATH=$PWD python bench/launch_pin.py [--pairs 20] [--cpu 3 --cpu2 5]
"""
import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--cpu", type=int, default=3)
    ap.add_argument("--cpu2", type=int, default=5)
    ap.add_argument("--places", default="unpinned,one cpu,two cpus")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    sys.argv = [sys.argv[0]]
    sys.path.insert(0, HERE)
    import s1_launch

    class Args:
        launches, warm = a.launches, 1000
    print("cpus:", os.cpu_count(), "allowed:", sorted(os.sched_getaffinity(0)), flush=True)
    for place, fc, cc in (("unpinned", None, None), ("one cpu", {a.cpu}, {a.cpu}),
                          ("two cpus", {a.cpu}, {a.cpu2})):
        if place not in a.places.split(","):
            continue
        floor = s1_launch.floor_server(a.launches, fc)
        child = s1_launch.child_server("cujit", Args, cc)
        try:
            ready = json.loads(child.expect("READY ")[6:])
            floor.ask("go", "rep ")
            got = {k: [] for k in ready}
            for _ in range(a.pairs):
                for k in ready:
                    f = float(re.search(r"rep \d+: ([0-9.]+) us",
                                        floor.ask("go", "rep ")).group(1))
                    t, cpu = child.ask(k, "T ")[2:].split()
                    got[k].append((f, float(t), int(cpu)))
            for k, v in got.items():
                ratios = [t / f for f, t, _ in v]
                print(f"{a.label}{place:9s} {k:16s} floor {statistics.median(f for f, _, _ in v):6.3f} "
                      f"case {statistics.median(t for _, t, _ in v):6.3f} "
                      f"paired ratio {statistics.median(ratios):5.2f}  "
                      f"{[(round(t, 2), c) for _, t, c in v]}", flush=True)
        finally:
            floor.close()
            child.close()


if __name__ == "__main__":
    main()
