"""Runs every RUN entry of tests/kernels/ on the GPU and compares the output
arrays with the module's NumPy / pure-Python reference.

Each entry runs with the arguments as NumPy host arrays (cujit copies them in
and back), as cujit.to_device arrays, as CuPy arrays and as PyTorch tensors
(the last two when those packages import).  Strided views keep their strides
on the device where the array library can express them.  tests/conftest.py
skips this module, with the reason, when cujit sees no GPU."""
import copy
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kernels  # noqa: E402  (tests/kernels)

pytestmark = pytest.mark.gpu

try:
    import cupy
except Exception:       # not installed, or no usable CUDA for it
    cupy = None
try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except Exception:
    torch = None

KINDS = ["numpy", "cujit", "cupy", "torch"]

# rtol, atol per dtype kind and size
TOLERANCE = {
    np.dtype(np.float16): (2e-3, 2e-3),
    np.dtype(np.float32): (1e-5, 1e-5),
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.complex64): (1e-5, 1e-5),
    np.dtype(np.complex128): (1e-12, 1e-12),
}
TORCH_UNSUPPORTED = {np.dtype(t) for t in (np.uint16, np.uint32, np.uint64)}


def _entries():
    out = []
    for name in kernels.module_names():
        mod = kernels.load(name)
        for idx, entry in enumerate(getattr(mod, "RUN", [])):
            kname = kernels.kernel_name(mod, entry[0])
            out.append(pytest.param(entry, id="%s.%s-%d" % (name, kname, idx)))
    return out


ENTRIES = _entries()


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _strided_parts(a):
    """(flat contiguous root, element offset, element strides) of a view, or
    None when its layout cannot be rebuilt on the device as a view."""
    root = _root(a)
    isz = a.dtype.itemsize
    if (not root.flags.c_contiguous or root.dtype != a.dtype or a.size == 0
            or any(s < 0 or s % isz for s in a.strides)):
        return None
    off = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if off % isz:
        return None
    return root.reshape(-1), off // isz, tuple(s // isz for s in a.strides)


class Converter:
    """Moves NumPy arguments to one array kind and reads results back."""

    def __init__(self, kind):
        self.kind = kind

    def to(self, a):
        if not isinstance(a, np.ndarray):
            return a
        if self.kind == "numpy":
            return a
        if self.kind == "cujit":
            import cujit
            return cujit.to_device(a)
        if self.kind == "cupy":
            return self._cupy(a)
        return self._torch(a)

    def _cupy(self, a):
        if a.flags.c_contiguous or a.flags.f_contiguous:
            return cupy.asarray(a, order="K" if a.flags.f_contiguous else "C")
        parts = _strided_parts(a)
        if parts is None:
            return cupy.asarray(np.ascontiguousarray(a))
        flat, off, st = parts
        d = cupy.asarray(flat)[off:]
        isz = a.dtype.itemsize
        return cupy.lib.stride_tricks.as_strided(d, a.shape, tuple(s * isz for s in st))

    def _torch(self, a):
        dev = torch.device("cuda")
        if a.flags.c_contiguous or a.flags.f_contiguous:
            return torch.from_numpy(a.copy(order="K")).to(dev)     # dense: strides kept
        parts = _strided_parts(a)
        if parts is None:
            return torch.from_numpy(np.ascontiguousarray(a)).to(dev)
        flat, off, st = parts
        base = torch.from_numpy(np.array(flat)).to(dev)
        return torch.as_strided(base, a.shape, st, off)

    def back(self, d):
        if self.kind == "numpy":
            return d
        if self.kind == "cujit":
            import cujit
            return np.asarray(cujit.asnumpy(d))
        if self.kind == "cupy":
            return cupy.asnumpy(d)
        return d.cpu().numpy()


def _skip_reason(kind, args):
    if kind == "cupy" and cupy is None:
        return "CuPy is not installed or cannot reach the GPU"
    if kind in ("cupy", "torch") and any(isinstance(a, np.ndarray) and a.dtype.fields
                                         for a in args):
        return "%s holds no arrays of records" % ("CuPy" if kind == "cupy" else "PyTorch")
    if kind == "torch":
        if torch is None:
            return "PyTorch with CUDA is not installed"
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype in TORCH_UNSUPPORTED:
                return "PyTorch has no %s tensors on CUDA" % a.dtype
    return None


def launch(kernel, grid, block, args, shared_mem=0):
    if shared_mem:
        kernel[grid, block, 0, shared_mem](*args)
    else:
        kernel[grid, block](*args)


def compare(name, actual, expected, opts):
    """Raises AssertionError when `actual` (read back) differs from `expected`."""
    if callable(expected):
        expected(actual)
        return
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, "%s: shape %s, expected %s" % (
        name, actual.shape, expected.shape)
    dt = actual.dtype
    if dt.kind in "fc":
        rtol, atol = TOLERANCE[dt]
        rtol = opts.get("rtol", rtol)
        atol = opts.get("atol", atol)
        np.testing.assert_allclose(actual, expected.astype(dt), rtol=rtol, atol=atol,
                                   err_msg=name)
    else:
        np.testing.assert_array_equal(actual, expected.astype(dt), err_msg=name)


def run_entry(entry, kind, capfd=None, launcher=launch):
    kernel, grid, block, factory, reference = entry[:5]
    opts = entry[5] if len(entry) > 5 else {}
    args = factory()
    expected = reference(*copy.deepcopy(args))
    conv = Converter(kind)
    dev_args = [conv.to(a) for a in args]
    if capfd is not None:
        capfd.readouterr()
    launcher(kernel, grid, block, dev_args, opts.get("shared_mem", 0))
    if kind != "numpy":
        import cujit
        if kind == "cupy":
            cupy.cuda.runtime.deviceSynchronize()
        elif kind == "torch":
            torch.cuda.synchronize()
        cujit.synchronize()
    for pos, exp in expected.items():
        compare("argument %d" % pos, conv.back(dev_args[pos]), exp, opts)
    if "stdout" in opts and capfd is not None:
        out, _ = capfd.readouterr()
        opts["stdout"](out)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("entry", ENTRIES)
def test_run(entry, kind, capfd):
    opts = entry[5] if len(entry) > 5 else {}
    if "kinds" in opts and kind not in opts["kinds"]:
        pytest.skip("this entry runs only with " + ", ".join(opts["kinds"]))
    reason = _skip_reason(kind, entry[3]())
    if reason:
        pytest.skip(reason)
    run_entry(entry, kind, capfd)


def test_compile_then_launch():
    """k.compile(*sig) ahead of the first launch, then a launch that uses it."""
    from kernels import typing_rules
    from kernels._common import poison, rand
    x = rand(16, np.float32)
    out = poison(16, np.float32)
    typing_rules.nep50_float32.compile(x, out)
    typing_rules.nep50_float32[1, 16](x, out)
    np.testing.assert_allclose(out, x * np.float32(2.5) + np.float32(1.0), rtol=1e-6)


def test_failed_assert_is_reported():
    """A kernel assert that fails on the device raises on the host."""
    from kernels import statements
    from kernels._common import poison
    x = np.array([1.0, -1.0, 4.0], np.float32)
    with pytest.raises(Exception) as info:
        statements.with_assert[1, 32](x, poison(3, np.float32))
    assert "non-negative" in str(info.value) or "assert" in str(info.value).lower()


def test_boundscheck_reports_out_of_range():
    """boundscheck=True: an index past the end raises on the host instead of
    reading or writing out of bounds."""
    from kernels import compare
    from kernels._common import poison
    x = np.ones(8, np.float32)
    with pytest.raises(Exception) as info:
        compare.out_of_range_read[1, 32](x, poison(32, np.int32))
    assert "index" in str(info.value).lower() or "bound" in str(info.value).lower()
