"""The ported examples of Numba's and cupyx.jit's documentation
(tests/ported_examples.py) compile to PTX for sm_90 here, in both spellings,
and the two spellings of one example generate the same kernel body where
they are written alike.  tests/gpu/test_ported_examples_gpu.py runs them."""
import re

import pytest

import cujit
import ported_examples as pe


def _name(k):
    return k.__name__


@pytest.mark.parametrize("kernel, sig", pe.KERNELS, ids=[_name(k) for k, _ in pe.KERNELS])
def test_kernel_compiles_to_ptx(kernel, sig):
    ptx = kernel.inspect_ptx(sig, arch="sm_90")
    assert ".visible .entry" in ptx and ".target sm_90" in ptx


@pytest.mark.parametrize("gufunc, sig", pe.GUFUNCS, ids=[_name(g) for g, _ in pe.GUFUNCS])
def test_gufunc_compiles_to_ptx(gufunc, sig):
    assert ".visible .entry" in gufunc.inspect_ptx(sig, arch="sm_90")


def _body(src):
    src = src[src.index("__global__"):]
    src = src[src.index("{"):]
    src = re.sub(r"#line \d+.*\n", "", src)
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"\b(nb|cp)_", "", src)            # the examples' own names
    return re.sub(r"\bcj_\w+", "F", src)            # names of device functions


@pytest.mark.parametrize("name", ["increment_2d", "vecadd", "matmul", "sum_shared",
                                  "histogram", "max_2d", "session_starts",
                                  "session_ids", "apply_logic", "clamp_all",
                                  "reverse_static", "reverse_dynamic", "warp_sum",
                                  "moving_sum"])
def test_both_spellings_same_kernel(name):
    sigs = dict((_name(k), s) for k, s in pe.KERNELS)
    nb, cp = getattr(pe, "nb_" + name), getattr(pe, "cp_" + name)
    # one compiler: the cupyx.jit spelling compiled with Numba's typing (which
    # cuda.jit's spelling takes) gives the same CUDA
    cp = cujit.Kernel(cp.py_func, numba=True)
    assert _body(nb.inspect_cuda(sigs["nb_" + name])) == \
        _body(cp.inspect_cuda(sigs["cp_" + name]))


def test_every_example_has_both_spellings_or_says_why():
    nb = {n[3:] for n in dir(pe) if n.startswith("nb_")}
    cp = {n[3:] for n in dir(pe) if n.startswith("cp_")}
    # Numba's forms have no cupyx.jit version; cupyx.jit's elementwise copy
    # is the grid-stride loop both have (scale_stride)
    assert nb - cp == {"rel_diff", "gauss", "gu_matmul", "gu_norm", "sum_reduce",
                       "max_reduce"}
    assert cp - nb == {"elementwise_copy"}


def test_forms_are_cujits():
    assert isinstance(pe.nb_rel_diff.form, cujit.Vectorize)    # in Numba's rules
    assert isinstance(pe.nb_gu_matmul.form, cujit.GUFunc)
    assert pe.nb_gu_norm.signature == "(n)->()"
