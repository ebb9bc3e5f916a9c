"""The spelling tables' edges, without a GPU: a peer's name that cujit has no
version of fails where a kernel calls it with the table's message at the
user's line (not a generic "cannot call an object" message), whether its
arguments are locals or constants; cupyx.jit's rawkernel(mode=...);
numba.cuda's vectorize and guvectorize."""
import pytest

import cujit
from cujit import cuda, jit

SIG = "(float32[::1],)"

# a stand-in for an entry of cuda.UNSUPPORTED (those entries go as cujit
# gains them): the same class, so the same path through the compiler
not_here = cuda.kernelnames._Unsupported("widget.frob", "use cuda.atomic.add instead")


def test_unsupported_name_with_local_arguments():
    @cuda.jit
    def k(x):
        x[0] = not_here(x, 0)
    with pytest.raises(cujit.CompileError) as e:
        k.inspect_cuda(SIG)
    msg = str(e.value)
    assert "cuda.widget.frob is not supported by cujit: use cuda.atomic.add instead" in msg
    assert "cannot call an object" not in msg
    assert e.value.lineno == k.py_func.__code__.co_firstlineno + 2


def test_unsupported_name_with_constant_arguments():
    @cuda.jit
    def k(x):
        x[0] = not_here(1, 2)       # would otherwise run in Python at compile time
    with pytest.raises(cujit.CompileError, match="cuda.widget.frob is not supported"):
        k.inspect_cuda(SIG)


def test_unsupported_name_called_from_python():
    with pytest.raises(NotImplementedError, match="cuda.widget.frob is not supported"):
        not_here(1)


def test_every_unsupported_entry_says_so_in_a_kernel():
    for name in cuda.UNSUPPORTED:
        obj = cuda
        for part in name.split("."):
            obj = getattr(obj, part)
        assert obj.__cujit_unsupported__.startswith(f"cuda.{name} is not supported")


def test_rawkernel_mode():
    @jit.rawkernel(mode="python")
    def k(x):
        x[0] = 7 // 2
    assert "__global__" in k.inspect_cuda(SIG)
    with pytest.raises(ValueError, match="mode='cuda'.*Python's semantics"):
        jit.rawkernel(mode="cuda")


def test_numba_cuda_vectorize_and_guvectorize():
    @cuda.vectorize(["float32(float32)"])
    def sq(v):
        return v * v
    assert isinstance(sq.form, cujit.Vectorize)      # Numba's rules around it

    @cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")
    def total(a, out):
        acc = 0.
        for i in range(a.shape[0]):
            acc += a[i]
        out[0] = acc
    assert isinstance(total.form, cujit.GUFunc)
    assert ".visible .entry" in total.inspect_ptx("void(float32[:], float32[:])")
    assert "vectorize" in cuda.__all__ and "guvectorize" in cuda.__all__
    with pytest.raises(ValueError, match="target"):
        cuda.vectorize(["float32(float32)"], target="cpu")


def test_tuple_of_argument_types_is_one_signature():
    # Numba: cuda.jit((t1, t2)) is one signature, cuda.jit([s1, s2]) two
    @cuda.jit(("float32[::1]", "int32"))
    def k(x, n):
        x[0] = n
    assert k.signatures == ["(float32[::1], int32)"]
