"""Every way of writing an array is seen by the coarsening analysis
(codegen/coarsen.c): in the multi-element entry <kernel>_x<vec> an array the
body writes is a writable pack stored back (or not packed at all), never a
`const` pack, and NVRTC accepts the CUDA (inspect_ptx, no GPU needed).  An
NVRTC rejection names the Python line whose generated code it rejected.
Issue 14; the GPU runs of these kernels are in tests/gpu/test_coarsen_gpu.py."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

import cujit
from cujit import jit

F4 = "float32[::1]"


def sig(n, t=F4):
    return "(" + ", ".join([t] * n) + ")"


@jit.rawkernel()
def tuple_targets(a, b, c, d):
    i = jit.grid(1)
    if i < a.size:
        c[i], d[i] = a[i] * 2, b[i] + 1


@jit.rawkernel()
def nested_tuple_targets(a, c, d, e):
    i = jit.grid(1)
    if i < a.size:
        (c[i], (d[i], e[i])) = (a[i], (a[i] + 1, a[i] + 2))


@jit.rawkernel()
def tuple_from_value(a, c, d):
    i = jit.grid(1)
    if i < a.size:
        t = (a[i], a[i] * 3)
        c[i], d[i] = t


@jit.rawkernel()
def swap(c, d):
    i = jit.grid(1)
    if i < c.size:
        c[i], d[i] = d[i], c[i]


@jit.rawkernel()
def chained(a, c, d):
    i = jit.grid(1)
    if i < a.size:
        c[i] = d[i] = a[i] - 1


@jit.rawkernel()
def augmented(a, c):
    i = jit.grid(1)
    if i < a.size:
        c[i] += a[i]


@jit.rawkernel()
def conditional_tuple(a, c, d):
    i = jit.grid(1)
    if i < a.size:
        if a[i] > 0:
            c[i], d[i] = a[i], -a[i]


@jit.rawkernel()
def atomic_writer(a, c):
    i = jit.grid(1)
    if i < a.size:
        jit.atomic_add(c, i, a[i])


@jit.rawkernel(device=True)
def store_twice(arr, i, v):
    arr[i] = v * 2


@jit.rawkernel()
def device_writer(a, c):
    i = jit.grid(1)
    if i < a.size:
        store_twice(c, i, a[i])


@jit.rawkernel()
def attribute_read(a, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a[i].real + a[i].imag


# kernel, signature, arrays written, whether a coarsened entry is expected
CASES = [
    (tuple_targets, sig(4), ["c", "d"], True),
    (nested_tuple_targets, sig(4), ["c", "d", "e"], True),
    (tuple_from_value, sig(3), ["c", "d"], True),
    (swap, sig(2), ["c", "d"], True),
    (chained, sig(3), ["c", "d"], True),
    (augmented, sig(2), ["c"], True),
    (conditional_tuple, sig(3), ["c", "d"], True),
    (atomic_writer, sig(2), ["c"], True),
    (device_writer, sig(2), ["c"], False),
    (attribute_read, "(complex64[::1], float32[::1])", ["out"], True),
]


def coarse_entry(src):
    m = re.search(r'extern "C" __global__ void \w+_x\d+\(.*', src, re.S)
    return m.group(0) if m else None


@pytest.mark.parametrize("kernel,s,written,coarse", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_written_arrays_stay_writable(kernel, s, written, coarse):
    src = kernel.inspect_cuda(s)
    entry = coarse_entry(src)
    assert (entry is not None) == coarse, src
    for name in written:
        assert not re.search(r"const cj_pack<[^>]*> %s_v\b" % name, src), src
        if entry and re.search(r"\b%s_v\b" % name, entry):
            # a packed written array is stored back in one piece
            assert re.search(r"\*\(cj_pack<[^>]*> \*\)\(%s\.data \+ cj_i0\) = %s_v;" % (name, name),
                             entry), entry
    ptx = kernel.inspect_ptx(s)
    assert ".entry" in ptx
    assert bool(re.search(r"\.entry \w+_x\d+\(", ptx)) == coarse


def test_tuple_targets_are_packed():
    """the fixed case still gets its packs: c and d written, a and b read"""
    entry = coarse_entry(tuple_targets.inspect_cuda(sig(4)))
    for name in "cd":
        assert re.search(r"\n\s*cj_pack<float, 4> %s_v;" % name, entry), entry
    for name in "ab":
        assert "const cj_pack<float, 4> %s_v = " % name in entry, entry


def test_atomic_target_is_not_packed():
    entry = coarse_entry(atomic_writer.inspect_cuda(sig(2)))
    assert "c_v" not in entry and "cj_atomic_add(&c.data[i]" in entry


def test_attribute_of_element_reads_the_pack():
    entry = coarse_entry(attribute_read.inspect_cuda("(complex64[::1], float32[::1])"))
    assert "const cj_pack<cj_complex64, 2> a_v = " in entry, entry


BAD = '''\
from cujit import jit


@jit.rawkernel()
def k(a, c, d):
    i = jit.grid(1)
    if i < a.size:
        c[i], d[i] = a[i] * 2, a[i] + 1
        c[i] += 1


@jit.rawkernel()
def after(a):
    pass
'''


@pytest.mark.parametrize("macro", ["cj_t1", "cj_t2"])
def test_nvrtc_rejection_names_the_line(tmp_path, macro):
    """A rejection inside a statement that spans several lines of CUDA (the
    tuple assignment on line 8: `{`, two temporaries, two stores) is reported
    on line 8, not on a line further down (here the decorator of `after`).
    The rejection is forced by defining a temporary's name as a number."""
    (tmp_path / "badmod.py").write_text(BAD)
    code = textwrap.dedent("""
        import cujit, badmod
        try:
            badmod.k.inspect_ptx("(float32[::1], float32[::1], float32[::1])")
        except cujit.CompileError as e:
            print("LINE", e.lineno, e.filename, e.msg)
        else:
            print("ACCEPTED")
    """)
    env = dict(os.environ, CUJIT_NVRTC_OPTIONS="-D%s=42" % macro, CUJIT_CACHE="0",
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.dirname(os.path.dirname(
                   os.path.abspath(cujit.__file__)))]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    if "NVRTC" in out.stdout + out.stderr and "not available" in out.stdout + out.stderr:
        pytest.skip("NVRTC not available")
    m = re.search(r"LINE (\d+) (\S+) (.*)", out.stdout)
    assert m, out.stdout + out.stderr
    assert m.group(1) == "8", out.stdout
    assert m.group(2).endswith("badmod.py") and "NVRTC rejected" in m.group(3)
