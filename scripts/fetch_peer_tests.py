#!/usr/bin/env python3
"""Fetches the peers' own kernel test files into peer/ (ignored by git), for
scripts/peer_suite.py to run against cujit.

Run it on a machine that reaches PyPI; carry peer/ to the GPU machine (which
has no network).  The files are the peers' (CuPy: MIT, numba-cuda: BSD): we
run them, we do not commit them.

    python scripts/fetch_peer_tests.py [--out peer] [--cupy 14.*] [--numba-cuda VERSION]

What it fetches, through pip (the ordinary client):
- CuPy's sdist (pip download --no-binary cupy; the wheels carry no tests),
  from which tests/cupyx_tests/jit_tests/ goes to peer/cupy/jit_tests/;
- numba-cuda's wheel (its wheels ship numba/cuda/tests), from which
  numba/cuda/tests/cudapy/ goes to peer/numba/cudapy/.  Give the version
  installed on the GPU machine with --numba-cuda, so that the tests match the
  test helpers (numba.cuda.testing) they import there; on that machine
  peer_suite.py can also take the installed copy (``numba``) directly.

peer/VERSIONS.txt records what was fetched.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

CUPY_DIR = "tests/cupyx_tests/jit_tests/"
NUMBA_DIR = "numba/cuda/tests/cudapy/"


def pip_download(spec, dest, sdist):
    """Downloads one distribution (no dependencies) and returns its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", dest]
    if sdist:
        cmd += ["--no-binary", spec.split("=")[0].split("<")[0].split(">")[0]]
    cmd.append(spec)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    files = [os.path.join(dest, f) for f in os.listdir(dest)]
    if len(files) != 1:
        sys.exit(f"fetch_peer_tests: expected one file from pip download, got {files}")
    return files[0]


def extract(members, inner, out):
    """Writes each (name, read) pair whose name lies under a folder ending in
    inner into out, keeping the path below inner; returns the count."""
    n = 0
    for name, read in members:
        at = name.find(inner)
        if at < 0 or name.endswith("/"):
            continue
        rel = name[at + len(inner):]
        if not rel or ".." in rel.split("/") or "__pycache__" in rel:
            continue
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(read())
        n += 1
    return n


def fetch_cupy(version, out, work):
    path = pip_download(f"cupy=={version}", os.path.join(work, "cupy"), sdist=True)
    with tarfile.open(path) as tar:
        members = [(m.name, (lambda m=m: tar.extractfile(m).read()))
                   for m in tar.getmembers() if m.isfile()]
        n = extract(members, CUPY_DIR, os.path.join(out, "cupy", "jit_tests"))
    return os.path.basename(path), n


def fetch_numba(version, out, work):
    spec = "numba-cuda" + (f"=={version}" if version else "")
    path = pip_download(spec, os.path.join(work, "numba"), sdist=False)
    with zipfile.ZipFile(path) as z:
        members = [(name, (lambda name=name: z.read(name))) for name in z.namelist()]
        n = extract(members, NUMBA_DIR, os.path.join(out, "numba", "cudapy"))
    return os.path.basename(path), n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="peer", help="where to put the files (default peer/)")
    ap.add_argument("--cupy", default="14.*", help="CuPy version (default 14.*)")
    ap.add_argument("--numba-cuda", default="", help="numba-cuda version (default: latest)")
    ap.add_argument("--skip", choices=("cupy", "numba"), action="append", default=[],
                    help="leave one peer out")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lines = []
    with tempfile.TemporaryDirectory() as work:
        for peer, fetch, version in (("cupy", fetch_cupy, args.cupy),
                                     ("numba", fetch_numba, args.numba_cuda)):
            if peer in args.skip:
                continue
            shutil.rmtree(os.path.join(args.out, peer), ignore_errors=True)
            name, n = fetch(version, args.out, work)
            if n == 0:
                sys.exit(f"fetch_peer_tests: no test files found in {name}")
            lines.append(f"{peer}: {name} ({n} files)")
            print(lines[-1])
    with open(os.path.join(args.out, "VERSIONS.txt"), "a" if args.skip else "w") as f:
        f.write("".join(line + "\n" for line in lines))
    print(f"done: carry {args.out}/ to the GPU machine and run "
          f"scripts/peer_suite.py {args.out}/cupy/jit_tests (or {args.out}/numba/cudapy)")


if __name__ == "__main__":
    main()
