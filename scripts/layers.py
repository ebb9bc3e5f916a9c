"""layers.py - draws cujit's structure from the code itself and checks it.

For every folder of C code it lists the folders it uses, read two ways: the
headers its files #include, and the symbols its object files (in build/)
take from another folder's objects (nm).  It then checks the layering that
ARCHITECTURE.md describes: each folder uses only folders below it, so there
is no circle and no call from a lower stage into a higher one.  Exit status
1 when a folder uses one it may not.

    python3 scripts/layers.py [build-dir]      (after `make`)

The objects are looked for in build-dir/<folder>/ and in setuptools'
build-dir/temp.*/<folder>/ (where `make` builds them); without objects only
the #include lines are read.
"""
import collections
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# what each folder may use (the layering of ARCHITECTURE.md)
ALLOWED = {
    "common": set(),
    "frontend": {"common"},
    "typeinfer": {"common"},
    "codegen": {"common"},
    "runtime": {"common"},
    "pipeline": {"common", "frontend", "typeinfer", "codegen", "runtime"},
    "module": {"common", "pipeline", "runtime"},
}


def includes():
    uses = collections.defaultdict(set)
    for folder in ALLOWED:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as f:
                for m in re.finditer(r'#include\s+"\.\./(\w+)/', f.read()):
                    if m.group(1) != folder:
                        uses[folder].add(m.group(1))
    return uses


def object_dirs(build, folder):
    return [d for d in [os.path.join(build, folder)]
            + sorted(glob.glob(os.path.join(build, "temp.*", folder))) if os.path.isdir(d)]


def symbols(build):
    defined, undefined = {}, collections.defaultdict(set)
    for folder in ALLOWED:
        dirs = object_dirs(build, folder)
        if not dirs:
            continue
        d = dirs[-1]
        for name in sorted(os.listdir(d)):
            if not name.endswith(".o"):
                continue
            out = subprocess.run(["nm", os.path.join(d, name)], capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined[folder].add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBR":
                    defined[parts[2]] = folder
    uses = collections.defaultdict(dict)
    for folder, syms in undefined.items():
        for s in sorted(syms):
            owner = defined.get(s)
            if owner and owner != folder:
                uses[folder].setdefault(owner, []).append(s)
    return uses


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    inc, sym = includes(), symbols(build)
    if not sym:
        print("(no object files under %s: the #include lines only)" % build)
    bad = 0
    for folder in ALLOWED:
        used = inc.get(folder, set()) | set(sym.get(folder, {}))
        wrong = sorted(used - ALLOWED[folder])
        print("%-10s uses %s" % (folder, ", ".join(sorted(used)) or "-"))
        for w in wrong:
            bad += 1
            print("  NOT ALLOWED: %s -> %s (includes: %s; symbols: %s)" % (
                folder, w, "yes" if w in inc.get(folder, ()) else "no",
                ", ".join(sym.get(folder, {}).get(w, [])[:8]) or "-"))
    print("layering: %s" % ("ok" if not bad else "%d violation(s)" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
