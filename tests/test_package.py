"""The installed package: where cujit is imported from, its version, the files
it ships, `python -m cujit info` / show_config(), `cujitc` and `python -m
cujit compile` from any directory, NVRTC from a pip wheel with the CUDA
toolkit hidden (CUJIT_SYSTEM_CUDA=0), and kernels whose source lives only in
linecache (IPython cells) or in no file (python -c, exec)."""
import importlib.metadata
import io
import linecache
import os
import subprocess
import sys
import textwrap

import pytest

import cujit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.dirname(os.path.abspath(cujit.__file__))
SAXPY = os.path.join(ROOT, "examples", "saxpy.py")
SAXPY_SIG = "(float32, float32[::1], float32[::1], float32[::1])"


def run_py(args, cwd, **env):
    e = dict(os.environ)
    for k, v in env.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return subprocess.run([sys.executable] + args, cwd=cwd, env=e, capture_output=True,
                          text=True, timeout=300)


def nvrtc_or_skip():
    try:
        return cujit._cujit._nvrtc_version()
    except cujit.CudaError as e:
        pytest.skip("NVRTC not available: %s" % e)


# ---- the package ----

def test_imported_from_the_installed_package():
    """make test runs against the package pip installed in the venv, not the
    source tree: a file missing from the wheel must fail the tests."""
    if not os.environ.get("CUJIT_TEST_INSTALLED"):
        pytest.skip("CUJIT_TEST_INSTALLED is not set (make test sets it)")
    assert PKG != os.path.join(ROOT, "cujit"), "cujit imported from the source tree: " + PKG
    assert os.path.commonpath([PKG, sys.prefix]) == sys.prefix, (PKG, sys.prefix)


def test_version_matches_metadata():
    try:
        meta = importlib.metadata.version("cujit")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cujit is not installed (run from the source tree)")
    assert cujit.__version__ == meta
    with open(os.path.join(ROOT, "common", "cj.h")) as f:
        assert '#define CJ_VERSION "%s"' % meta in f.read()


def test_package_holds_its_run_time_files():
    if not os.environ.get("CUJIT_TEST_INSTALLED"):
        pytest.skip("CUJIT_TEST_INSTALLED is not set (make test sets it)")
    kernels = os.path.join(PKG, "_stdlib", "kernels")
    for name in ("elementwise", "reductions", "scan", "creation"):
        assert os.path.isfile(os.path.join(kernels, name + ".py")), name
    for name in ("__init__.py", "__main__.py", "_cli.py", "_config.py", "jit.py"):
        assert os.path.isfile(os.path.join(PKG, name)), name


# ---- python -m cujit info, show_config() ----

def test_info_without_driver(tmp_path):
    r = run_py(["-m", "cujit", "info"], tmp_path, CUJIT_CACHE_DIR=str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("cujit ") and cujit.__version__ in out
    for key in ("extension", "Python", "numpy", "CUDA driver", "NVRTC", "kernel cache",
                "prebuilt store"):
        assert "\n" + key in out, (key, out)
    assert "(not read: CUJIT_NO_PREBUILT)" in out       # tests/conftest.py turns it off
    assert "kernel cache  " in out and str(tmp_path / "c") in out
    assert "$CUJIT_CACHE_DIR" in out                   # the environment in effect
    if not cujit.is_available():
        assert "CUDA driver" in out and "not available" in out


def test_show_config_prints_the_same_rows():
    buf = io.StringIO()
    cujit.show_config(buf)
    keys = [line.split()[0] for line in buf.getvalue().splitlines()]
    assert keys[:2] == ["cujit", "extension"] and "NVRTC" in keys


def test_info_lists_gpus_of_the_fake_driver(tmp_path):
    from test_runtime_nogpu import build_shared
    fake = build_shared(_Factory(tmp_path), "the fake libcuda", "fakecuda.c", "libcuda.so.1")
    r = run_py(["-m", "cujit", "info"], tmp_path, CUJIT_PRELOAD_NVRTC="0",
               LD_LIBRARY_PATH=fake + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    assert r.returncode == 0, r.stderr
    rows = [line.split(None, 1) for line in r.stdout.splitlines()]
    gpus = [v for k, v in rows if k == "GPU"]
    assert gpus[0].split(None, 1)[1] == "Fake GPU 0, sm_90, 80.0 GiB, 132 SMs", r.stdout
    assert "version 13.0 (13000)" in r.stdout and fake in r.stdout


class _Factory:
    """tmp_path_factory's mktemp over one test's tmp_path"""

    def __init__(self, base):
        self.base = base

    def mktemp(self, name):
        d = self.base / name
        d.mkdir()
        return d


def test_main_usage(tmp_path):
    r = run_py(["-m", "cujit", "bogus"], tmp_path)
    assert r.returncode == 2 and "usage: python -m cujit" in r.stderr
    r = run_py(["-m", "cujit", "--help"], tmp_path)
    assert r.returncode == 0 and "compile FILE.py" in r.stdout


# ---- cujitc and python -m cujit compile, from another directory ----

def test_cujitc_console_script(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "cujitc")
    if not os.path.exists(exe):
        pytest.skip("no cujitc console script beside %s (cujit not pip-installed)"
                    % sys.executable)
    r = subprocess.run([exe, SAXPY, "--sig", SAXPY_SIG], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "__global__" in r.stdout and "cj_saxpy" in r.stdout


def test_python_m_cujit_compile_ptx(tmp_path):
    nvrtc_or_skip()
    out = tmp_path / "saxpy.ptx"
    r = run_py(["-m", "cujit", "compile", SAXPY, "--kernel", "saxpy", "--sig", SAXPY_SIG,
                "--ptx", "--arch", "sm_80", "-o", str(out)], tmp_path,
               CUJIT_CACHE_DIR=str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    assert ".target sm_80" in ptx and ".entry cj_saxpy" in ptx


# ---- NVRTC from a pip wheel, the toolkit hidden ----

PTX_SCRIPT = textwrap.dedent('''
    import cujit
    from cujit import jit

    @jit.rawkernel()
    def saxpy(a, x, y, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    print("NVRTC %d.%d" % cujit._cujit._nvrtc_version())
    ptx = saxpy.inspect_ptx("(float32, float32[::1], float32[::1], float32[::1])",
                            arch="sm_80")
    print(".entry cj_saxpy" in ptx and ".target sm_80" in ptx)
''')


def toolkit_nvrtc_files(tmp_path):
    """The NVRTC library and its builtins as this process's NVRTC loads them."""
    code = ("import cujit\n"
            "cujit._cujit._nvrtc_compile('extern \"C\" __global__ void k() {}', 'k')\n"
            "for l in open('/proc/self/maps'):\n"
            "    p = l.split(None, 5)[-1].strip()\n"
            "    if os.path.basename(p).startswith('libnvrtc'): print(p)\n")
    r = run_py(["-c", "import os\n" + code], tmp_path)
    assert r.returncode == 0, r.stderr
    return sorted(set(r.stdout.split()))


def test_system_cuda_hidden_without_wheel(tmp_path):
    """CUJIT_SYSTEM_CUDA=0 and no wheel: NVRTC is missing, and says why."""
    script = tmp_path / "p.py"
    script.write_text(PTX_SCRIPT)
    r = run_py([str(script)], tmp_path, CUJIT_SYSTEM_CUDA="0", CUDA_HOME=None, CUDA_PATH=None,
               PYTHONPATH=None, CUJIT_CACHE_DIR=str(tmp_path / "c"))
    if r.returncode == 0:
        pytest.skip("an nvidia-cuda-nvrtc wheel is installed here: " + r.stdout)
    assert "CUJIT_SYSTEM_CUDA=0 and no nvidia-cuda-nvrtc wheel on sys.path" in r.stderr
    r = run_py(["-m", "cujit", "info"], tmp_path, CUJIT_SYSTEM_CUDA="0")
    assert r.returncode == 0 and "NVRTC" in r.stdout and "CUJIT_SYSTEM_CUDA=0" in r.stdout


def test_nvrtc_from_a_wheel_layout(tmp_path):
    """The toolkit's NVRTC laid out as the nvidia-cuda-nvrtc wheel lays it
    out (nvidia/cu13/lib, or nvidia/cuda_nvrtc/lib for 12) in a folder on
    PYTHONPATH: with the toolkit hidden, cujit finds it there and makes PTX."""
    nvrtc_or_skip()
    files = toolkit_nvrtc_files(tmp_path)
    main = [f for f in files if ".so.1" in f and "builtins" not in f]
    if not main:
        pytest.skip("cannot tell which libnvrtc was loaded: %s" % files)
    major = main[0].rsplit(".so.", 1)[1].split(".")[0]
    site = tmp_path / "site"
    lib = site / "nvidia" / ("cu13" if major == "13" else "cuda_nvrtc") / "lib"
    lib.mkdir(parents=True)
    for f in files:
        os.symlink(f, lib / os.path.basename(f))
    script = tmp_path / "p.py"
    script.write_text(PTX_SCRIPT)
    r = run_py([str(script)], tmp_path, CUJIT_SYSTEM_CUDA="0", CUDA_HOME=None, CUDA_PATH=None,
               PYTHONPATH=str(site), CUJIT_CACHE_DIR=str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[1] == "True", r.stdout


# ---- where the kernel's source comes from ----

def test_kernel_without_source_file_compiles(tmp_path):
    """python -c keeps no file: cujit finds the text in sys.orig_argv (and
    exec'd texts in its source store: tests/test_source_exec.py).  A text
    exec'd before cujit was imported (here the text imports it) was parsed
    before the store existed: the error says what to do."""
    code = ("from cujit import jit\n"
            "@jit.rawkernel()\n"
            "def k(x):\n"
            "    x[0] = 1\n"
            "print('__global__' in k.inspect_cuda('(float32[:],)'))\n")
    r = run_py(["-c", code], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
    r = run_py(["-c", "exec(%r)" % code], tmp_path)
    assert r.returncode == 1
    assert "cujit.CompileError: cujit could not find the source of function 'k'" in r.stderr
    assert "after `import cujit`" in r.stderr


def test_kernel_in_an_ipython_cell():
    """IPython compiles each cell under a made-up file name and keeps its
    source in linecache (CachingCompiler.cache); a kernel defined there
    compiles as one in a file does."""
    src = ("from cujit import jit\n"
           "@jit.rawkernel()\n"
           "def cell_kernel(x):\n"
           "    i = jit.grid(1)\n"
           "    if i < x.size:\n"
           "        x[i] = x[i] * 2\n")
    name = "<ipython-input-7-0123456789ab>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        ns = {}
        exec(compile(src, name, "exec"), ns)
        cuda = ns["cell_kernel"].inspect_cuda("(float32[::1],)")
    finally:
        linecache.cache.pop(name, None)
    assert "__global__" in cuda and name in cuda        # the #line marks name the cell


def test_kernel_in_a_real_ipython_cell():
    try:
        from IPython.core.interactiveshell import InteractiveShell
    except ImportError:
        pytest.skip("IPython is not installed")
    shell = InteractiveShell.instance()
    res = shell.run_cell("from cujit import jit\n"
                         "@jit.rawkernel()\n"
                         "def ip_kernel(x):\n"
                         "    x[0] = 3\n"
                         "_src = ip_kernel.inspect_cuda('(int32[:],)')\n")
    assert res.success, res.error_in_exec
    assert "__global__" in shell.user_ns["_src"]

