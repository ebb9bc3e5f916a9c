"""Numba's struct-model extension types in kernels on the GPU (cujit/_structs.py),
against NumPy on fresh random data: constructors typed by type_callable and
built by a @lower body, local and shared arrays of the struct, attribute
reads and writes, instances passed as kernel arguments.  The declarations
are the ones Numba's own tests use (extensions_usecases.py), written anew,
plus a struct of mixed member types whose layout has padding."""
import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import cgutils, float64, int32, types
from cujit.cuda.cudaimpl import lower
from cujit.cuda.extending import (core_models, make_attribute_wrapper, register_model,
                                  type_callable, typeof_impl)

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


class Pair:
    """a Python class whose instances kernels take and build"""

    def __init__(self, x, y):
        self.x = x
        self.y = y


class PairType(types.Type):
    def __init__(self):
        super().__init__(name="PairType")


pair_t = PairType()


@typeof_impl.register(Pair)
def typeof_pair(val, c):
    return pair_t


@register_model(PairType)
class PairModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", int32), ("y", int32)])


make_attribute_wrapper(PairType, "x", "x")
make_attribute_wrapper(PairType, "y", "y")


@type_callable(Pair)
def type_pair(context):
    def typer(x, y):
        if isinstance(x, types.Integer) and isinstance(y, types.Integer):
            return pair_t
    return typer


@lower(Pair, types.Integer, types.Integer)
def lower_pair(context, builder, sig, args):
    obj = cgutils.create_struct_proxy(pair_t)(context, builder)
    obj.x = args[0]
    obj.y = args[1]
    return obj._getvalue()


class Mixed:
    """members of three sizes: the struct has padding (int8, float64, int32)"""


class MixedType(types.Type):
    def __init__(self):
        super().__init__(name="MixedType")


mixed_t = MixedType()


@register_model(MixedType)
class MixedModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("tag", types.int8), ("val", float64),
                                        ("n", int32)])


make_attribute_wrapper(MixedType, "val", "value")      # read as m.value


@type_callable(Mixed)
def type_mixed(context):
    def typer(v, n):
        if isinstance(v, types.Float) and isinstance(n, types.Integer):
            return mixed_t
    return typer


@lower(Mixed, types.Float, types.Integer)
def lower_mixed(context, builder, sig, args):
    m = cgutils.create_struct_proxy(mixed_t)(context, builder)
    m.val = args[0]
    m.n = args[1]
    m.tag = context.get_constant(types.int8, 7)
    return m._getvalue()


def test_local_array_of_structs():
    @cuda.jit
    def k(a, b, outx, outy):
        arr = cuda.local.array(16, dtype=pair_t)
        for i in range(16):
            arr[i] = Pair(a[i], b[i])
        for i in range(16):
            outx[i] = arr[15 - i].x
            outy[i] = arr[15 - i].y

    a = rng.integers(-1000, 1000, 16).astype(np.int32)
    b = rng.integers(-1000, 1000, 16).astype(np.int32)
    ox = np.zeros(16, np.int32)
    oy = np.zeros(16, np.int32)
    k[1, 1](a, b, ox, oy)
    np.testing.assert_array_equal(ox, a[::-1])
    np.testing.assert_array_equal(oy, b[::-1])


def test_shared_array_of_structs_reversed():
    n = 64

    @cuda.jit
    def k(a, b, outx, outy):
        arr = cuda.shared.array(n, dtype=pair_t)
        i = cuda.grid(1)
        obj = Pair(a[i], b[i] * 2)
        arr[i] = obj
        cuda.syncthreads()
        outx[i] = arr[n - i - 1].x
        outy[i] = arr[n - i - 1].y

    a = rng.integers(-10**6, 10**6, n).astype(np.int32)
    b = rng.integers(-10**6, 10**6, n).astype(np.int32)
    ox = np.zeros(n, np.int32)
    oy = np.zeros(n, np.int32)
    k[1, n](a, b, ox, oy)
    np.testing.assert_array_equal(ox, a[::-1])
    np.testing.assert_array_equal(oy, (b * 2)[::-1])


def test_struct_writes_and_padding():
    @cuda.jit
    def k(v, n, out_v, out_n, out_tag):
        i = cuda.grid(1)
        if i < v.size:
            loc = cuda.local.array(1, dtype=mixed_t)
            loc[0] = Mixed(v[i], n[i])
            loc[0].n = loc[0].n + 1             # a member written
            out_v[i] = loc[0].value
            out_n[i] = loc[0].n
            out_tag[i] = loc[0].tag

    size = 200
    v = rng.standard_normal(size)
    n = rng.integers(-1000, 1000, size).astype(np.int32)
    ov = np.zeros(size)
    on = np.zeros(size, np.int32)
    ot = np.zeros(size, np.int8)
    k[4, 64](v, n, ov, on, ot)
    np.testing.assert_array_equal(ov, v)
    np.testing.assert_array_equal(on, n + 1)
    np.testing.assert_array_equal(ot, np.full(size, 7, np.int8))


def test_instance_as_argument():
    @cuda.jit
    def k(p, a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * p.x + p.y

    x, y = (int(v) for v in rng.integers(-50, 50, 2))
    a = rng.integers(-1000, 1000, 300).astype(np.int32)
    out = np.zeros(300, np.int64)
    k[3, 128](Pair(x, y), a, out)
    np.testing.assert_array_equal(out, a.astype(np.int64) * x + y)


def test_device_array_of_structs():
    """an array of the struct's record dtype made on the host, filled by a
    kernel constructing each element"""
    dt = pair_t.__cujit_dtype__

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = Pair(a[i], b[i])

    a = rng.integers(-1000, 1000, 100).astype(np.int32)
    b = rng.integers(-1000, 1000, 100).astype(np.int32)
    out = cuda.to_device(np.zeros(100, dt))
    k[1, 128](a, b, out)
    host = out.copy_to_host()
    np.testing.assert_array_equal(host["x"], a)
    np.testing.assert_array_equal(host["y"], b)
