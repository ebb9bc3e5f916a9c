"""@guvectorize without a GPU: layouts parsed as NumPy parses gufunc
signatures, eager signatures checked against the layout, the CUDA and PTX
of a dot product and a matmul, and, against the fake libcuda
(tests/fakecuda/gufunc_scenarios.py, each in a fresh process), NumPy's
errors for core dimensions and the GPU test cases run with the kernels
compiled for the host."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import jit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")
DOT_SIG = "void(float32[:], float32[:], float32[:])"
MATMUL_SIG = "void(float32[:,:], float32[:,:], float32[:,:])"


def dot(a, b, out):
    acc = a[0] * b[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


def matmul(a, b, c):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = a[i, 0] * b[0, j]
            for k in range(1, a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@pytest.mark.parametrize("layout", ["(n),(n)->()", "(m,n),(n,p)->(m,p)", "()->()",
                                    "(i,j),(j),()->(i),(j,3)", " ( m , n ) , (n)->( m )"])
def test_layout_parsing(layout):
    from numpy.lib._function_base_impl import _parse_gufunc_signature
    nin = len(_parse_gufunc_signature(layout.replace(" ", ""))[0])
    nout = len(_parse_gufunc_signature(layout.replace(" ", ""))[1])
    args = ", ".join("x%d" % i for i in range(nin + nout))
    ns = {}
    exec("def f(%s):\n    pass\n" % args, ns)
    g = cujit.guvectorize(layout)(ns["f"])
    assert isinstance(g, cujit.GUFunc)
    assert g.signature == layout and g.nin == nin and g.nout == nout
    assert g.core_dims == _parse_gufunc_signature(layout.replace(" ", ""))


@pytest.mark.parametrize("layout", ["(n),(n)", "(n)->", "->()", "(n,)->()", "(n)(n)->()",
                                    "(n-1)->()", "(n)->()x", "n->()"])
def test_bad_layout(layout):
    with pytest.raises(ValueError, match="not a valid gufunc signature: "):
        cujit.guvectorize(layout)(dot)


def test_decorator_forms():
    assert cujit.guvectorize([DOT_SIG], "(n),(n)->()")(dot).nin == 2
    assert cujit.guvectorize(DOT_SIG, "(n),(n)->()")(dot).nout == 1
    assert cujit.guvectorize("(n),(n)->()", target="cuda")(dot).__name__ == "dot"
    assert cujit.guvectorize(signature="(n),(n)->()")(dot).py_func is dot
    with pytest.raises(ValueError, match="target='cuda' only"):
        cujit.guvectorize("(n),(n)->()", target="cpu")
    with pytest.raises(TypeError, match="takes 3 arguments but its layout"):
        cujit.guvectorize("(n)->()")(dot)


@pytest.mark.parametrize("sig", ["void(float32[:,:], float32[:], float32[:])",
                                 "void(float32[:], float32[:])",
                                 "float32(float32[:], float32[:], float32[:])",
                                 "void(float32[:], float32[:], float32)",
                                 "void(float32[:], float32[:], flaot32[:])"])
def test_bad_signature(sig):
    with pytest.raises(TypeError, match="guvectorize signature 1: "):
        cujit.guvectorize([sig], "(n),(n)->()")(dot)


def test_dot_cuda_and_ptx():
    g = cujit.guvectorize([DOT_SIG], "(n),(n)->()")(dot)
    src = g.inspect_cuda(0)
    assert src == g.inspect_cuda(DOT_SIG)
    assert src in g.inspect_cuda()
    assert ("static __device__ __forceinline__ void cj_dev_dot_f4a1A_f4a1A_f4a1A("
            "cj_array<float, 1, int> a, cj_array<float, 1, int> b, "
            "cj_array<float, 1, int> out)") in src
    assert ('extern "C" __global__ void cj_guf_dot_f4a1A_f4a1A_f4a1A_l1('
            "cj_array<float, 2, int> op0, cj_array<float, 2, int> op1, "
            "cj_array<float, 2, int> op2, int n)") in src
    assert "v2.shape[0] = op2.shape[1];" in src
    assert "cj_dev_dot_f4a1A_f4a1A_f4a1A(v0, v1, v2);" in src
    nvrtc_or_skip()
    ptx = g.inspect_ptx(0, arch="sm_90")
    assert ".visible .entry cj_guf_dot_f4a1A_f4a1A_f4a1A_l1(" in ptx
    assert ".target sm_90" in ptx


def test_staged_entry_cuda_and_ptx():
    g = cujit.guvectorize([DOT_SIG, "void(complex128[:], complex128[:], complex128[:])"],
                          "(n),(n)->()")(dot)
    assert g.stage == "auto" and g.last_launch is None
    src = g.inspect_cuda(0)
    # both entries in one program: the launch picks one from the operands
    assert ('extern "C" __global__ void cj_guf_dot_f4a1A_f4a1A_f4a1A_l1_st('
            "cj_array<float, 2, int> op0, cj_array<float, 2, int> op1, "
            "cj_array<float, 2, int> op2, int n, cj_gu_plan pl)") in src
    assert "unsigned off[3], len[3], pitch[3], magic[3];" in src
    assert "extern __shared__ __align__(16) char cj_gu_smem[];" in src
    # before the copies in, after them, and before the copies out when an
    # output is staged (the launch stages outputs it allocates with a core)
    assert src.count("__syncthreads();") == 3
    assert "v0.data = (float *)(cj_gu_smem + pl.off[0] + threadIdx.x * pl.pitch[0] * 4);" in src
    assert "v1.data = (float *)(cj_gu_smem + pl.off[1]" in src
    assert "cj_gu_unstage((unsigned *)op2.data + (unsigned long long)base * pl.len[2]," in src
    assert "cj_dev_dot_f4a1A_f4a1A_f4a1A(v0, v1, v2);" in src
    nvrtc_or_skip()
    for sig in (0, 1):
        ptx = g.inspect_ptx(sig, arch="sm_90")
        assert ptx.count(".visible .entry ") == 2
        assert ".extern .shared .align 16 .b8 cj_gu_smem[];" in ptx
        assert "bar.sync" in ptx
        assert "ld.global.v4.u32" in ptx                # 16-byte loads
        assert ".local" not in ptx                      # nothing spilled
    g.stage = "off"
    assert g.stage == "off" and "_st(" not in g.inspect_cuda(0)
    assert ".extern .shared" not in g.inspect_ptx(0)
    for v, want in [(True, "auto"), ("always", "always"), (False, "off")]:
        g.stage = v
        assert g.stage == want
    for bad in ["yes", 1, None]:
        with pytest.raises(ValueError, match="must be 'auto', 'off' or 'always'"):
            g.stage = bad


def test_staged_entry_not_for_numbers_or_shared_memory():
    # no array input with core dimensions: nothing to stage
    def scale(x, out):
        out[0] = x * 2
    g = cujit.guvectorize(["void(float32, float32[:])"], "()->()")(scale)
    assert "_st(" not in g.inspect_cuda(0)

    # a function using dynamic shared memory itself keeps the plain entry
    def shared(a, out):
        s = jit.shared_memory(np.float32, None)
        s[0] = a[0]
        out[0] = s[0]
    g = cujit.guvectorize(["void(float32[:], float32[:])"], "(n)->()")(shared)
    src = g.inspect_cuda(0)
    assert "_st(" not in src and "cj_gu_smem" not in src


def test_stage_environment(tmp_path):
    code = ("import cujit\n"
            "g = cujit.guvectorize('(n)->()')(lambda a, out: None)\n"
            "print(g.stage)\n")
    for env, want in [("0", "off"), ("off", "off"), ("always", "always"), ("1", "auto")]:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, CUJIT_GU_STAGE=env), cwd=str(tmp_path))
        assert r.stdout.strip() == want, (env, r.stdout, r.stderr[-2000:])


def test_matmul_cuda_and_ptx():
    g = cujit.guvectorize("(m,n),(n,p)->(m,p)")(matmul)    # lazy: any signature inspects
    src = g.inspect_cuda(MATMUL_SIG)
    assert ('extern "C" __global__ void cj_guf_matmul_f4a2A_f4a2A_f4a2A_l1('
            "cj_array<float, 3, int> op0, cj_array<float, 3, int> op1, "
            "cj_array<float, 3, int> op2, int n)") in src
    assert "v0.strides[1] = op0.strides[2];" in src
    src64 = g.inspect_cuda("void(float64[:,:], float64[:,:], float64[:,:])")
    assert "cj_array<double, 2, int> v2;" in src64
    nvrtc_or_skip()
    ptx = g.inspect_ptx(MATMUL_SIG)
    assert ".visible .entry cj_guf_matmul_f4a2A_f4a2A_f4a2A_l1(" in ptx


def test_scalar_input_cuda():
    def scale(x, a, out):
        for i in range(x.shape[0]):
            out[i] = a * x[i]
    g = cujit.guvectorize(["void(float32[:], float64, float32[:])"], "(n),()->(n)")(scale)
    src = g.inspect_cuda(0)
    # a () input over the loop: one element per instance, passed by value
    assert "cj_array<double, 1, int> op1" in src
    assert "(double)cj_at(op1.data, o1)" in src


def test_function_must_not_return():
    def bad(a, out):
        return a[0]
    g = cujit.guvectorize(["void(float32[:], float32[:])"], "(n)->()")(bad)
    with pytest.raises(cujit.CompileError, match="returns nothing"):
        g.inspect_cuda(0)


def run_scenario(fake_driver, name, tmp_path):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "gufunc_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-4000:],
                                                                r.stderr[-4000:])
    assert "%s ok" % name in r.stdout


def test_core_dimension_errors(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, "errors", tmp_path)


@pytest.mark.skipif(not (shutil.which(os.environ.get("CXX") or "g++") or shutil.which("clang++")),
                    reason="no host C++ compiler to run the kernels on")
def test_cases_on_host(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, "run_cases", tmp_path)
    # again in a new process over the same disk cache: every kernel is found by
    # its front key (no compiler work), and each variant (modes, dtypes, core
    # ranks, loop dimensions, with or without the staged entry) must still get
    # its own kernel
    run_scenario(fake_driver, "run_cases_auto", tmp_path)
    assert [f for f in os.listdir(tmp_path) if f.endswith(".cjr")]
