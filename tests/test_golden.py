"""Golden tests: kernels in tests/golden/*.py against the CUDA C++ checked in
beside them (tests/golden/<module>.<kernel>.cu).  The expected files were
read line by line when they were written; after a deliberate change to the
generated code, rewrite them with CUJIT_REGEN_GOLDEN=1 and read the diff."""
import importlib
import os
import pathlib

import pytest

import cujit  # noqa: F401

HERE = pathlib.Path(__file__).parent / "golden"
MODULES = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))


def cases():
    for name in MODULES:
        mod = importlib.import_module(f"golden.{name}")
        for kname, args in mod.SIGS.items():
            yield pytest.param(mod, kname, args, id=f"{name}.{kname}")


def normalise(src):
    # file paths differ between checkouts
    return src.replace(str(HERE), "@GOLDEN@")


@pytest.mark.parametrize("mod,kname,args", list(cases()))
def test_golden(mod, kname, args):
    kernel = getattr(mod, kname)
    got = normalise(kernel.inspect_cuda(*args))
    path = HERE / f"{mod.__name__.rsplit('.', 1)[1]}.{kname}.cu"
    if os.environ.get("CUJIT_REGEN_GOLDEN"):
        path.write_text(got)
    assert path.exists(), f"missing golden file {path}"
    assert got == path.read_text()
    assert ".version" in kernel.inspect_ptx(*args, arch="sm_90")
