"""The layering of ARCHITECTURE.md holds in the code: scripts/layers.py reads
every folder's #include lines and, from the objects `make` built, the symbols
each folder takes from another, and fails on a use that goes up or sideways
(a circle between folders, a lower stage calling a higher one)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_layering():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "layers.py"),
                        os.path.join(ROOT, "build")], capture_output=True, text=True)
    assert r.returncode == 0 and "layering: ok" in r.stdout, r.stdout + r.stderr
    # the driver is the only folder that reaches the three stages
    uses = dict(line.split(" uses ") for line in r.stdout.splitlines() if " uses " in line)
    assert {k.strip() for k, v in uses.items() if "frontend" in v} == {"pipeline"}, r.stdout
