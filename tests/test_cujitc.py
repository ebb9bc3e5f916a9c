"""cujitc, the command-line tool: options, exit statuses and how it prints
compile errors, for both of its forms: the C program (cli/cujitc.c, built
here with cc into a temporary directory beside a stand-in `cujit` package;
cujitc puts its own directory first on sys.path) and the Python one
(cujit/_cli.py, the installed `cujitc` and `python -m cujit compile`, run as
a script with the stand-in first on PYTHONPATH).  So these tests run without
the extension or a GPU; the last test runs the real ./cujitc when `make` has
built it."""
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAKE_CUJIT = '''
class CompileError(SyntaxError):
    pass

class CudaError(RuntimeError):
    pass

class Kernel:
    def __init__(self, f, device=False):
        self.f = f
        self.device = device
        self.signatures = []

    def inspect_cuda(self, *sig):
        if sig and sig[0] == "bad":
            co = self.f.__code__
            e = CompileError("name 'q' is not defined")
            e.filename, e.lineno, e.offset = co.co_filename, co.co_firstlineno + 3, 16
            raise e
        return "// cuda %s %s\\n" % (self.f.__name__, list(sig))

    def inspect_ptx(self, sig, arch=None):
        return "// ptx %s %s %s" % (self.f.__name__, sig, arch)

    def inspect_cubin(self, sig, arch=None):
        return b"\\x7fELF" + arch.encode()

    def __call__(self, *args):
        self.signatures.append("(int64)")

class jit:
    @staticmethod
    def rawkernel(device=False):
        return lambda f: Kernel(f, device)
'''

KERNELS = '''
from cujit import jit

@jit.rawkernel(device=True)
def helper(a):
    return a

@jit.rawkernel()
def saxpy(a, x):
    i = 1
    x[i] = a + q

alias = saxpy

@jit.rawkernel()
def other(a):
    pass

other(1)
if __name__ == "__main__":
    raise SystemExit("the file's main block must not run")
'''


def embed_flags():
    cfg = shutil.which(os.path.basename(sys.executable) + "-config") or shutil.which("python3-config")
    if cfg:
        r = subprocess.run([cfg, "--ldflags", "--embed"], capture_output=True, text=True)
        if r.returncode == 0:
            return shlex.split(r.stdout)
    v = sysconfig.get_config_var
    return ["-L" + v("LIBDIR"), "-lpython" + v("LDVERSION"), "-Wl,-rpath," + v("LIBDIR")]


# the command line that runs each form, by its test directory
COMMANDS = {}


def python_cli():
    """cujit/_cli.py of the cujit under test (installed, or the source tree's)."""
    import importlib.util
    return importlib.util.find_spec("cujit._cli").origin


@pytest.fixture(scope="module", params=["c", "python"])
def cli(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("cujitc_" + request.param)
    if request.param == "c":
        cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if not cc:
            pytest.skip("no C compiler")
        exe = d / "cujitc"
        r = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Wshadow",
                            "-Wmissing-prototypes", "-Werror", "-Wno-unused-parameter",
                            "-I" + sysconfig.get_paths()["include"], "-o", str(exe),
                            os.path.join(ROOT, "cli", "cujitc.c"), *embed_flags()],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        COMMANDS[str(d)] = [str(exe)]
    else:
        COMMANDS[str(d)] = [sys.executable, python_cli()]
    (d / "cujit").mkdir()
    (d / "cujit" / "__init__.py").write_text(FAKE_CUJIT)
    (d / "k.py").write_text(KERNELS)
    return d


def run(cli, *args):
    env = dict(os.environ, PYTHONPATH=str(cli))
    return subprocess.run(COMMANDS[str(cli)] + list(args), cwd=cli, capture_output=True,
                          text=True, env=env)


def test_sig_for_every_kernel(cli):
    r = run(cli, "k.py", "--sig", "(float32, float32[:])")
    assert r.returncode == 0, r.stderr
    assert "// ---- kernel saxpy, signature (float32, float32[:]) ----" in r.stdout
    assert "// cuda saxpy ['(float32, float32[:])']" in r.stdout
    assert "// cuda other" in r.stdout
    assert r.stdout.count("cuda saxpy") == 1          # the alias is the same kernel


def test_compiled_signatures_without_sig(cli):
    r = run(cli, "k.py", "--kernel", "other")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "// cuda other ['(int64)']\n"


def test_uncompiled_kernel_needs_sig(cli):
    r = run(cli, "k.py")
    assert r.returncode == 2
    assert "kernel 'saxpy' was not compiled in k.py" in r.stderr


def test_ptx_with_arch(cli):
    r = run(cli, "k.py", "--ptx", "--arch=sm_80", "--kernel", "other")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "// ptx other (int64) sm_80\n"


def test_cubin(cli):
    out = cli / "o.cubin"
    r = run(cli, "k.py", "--cubin", "--kernel", "other", "--arch", "sm_90", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == b"\x7fELFsm_90"
    assert run(cli, "k.py", "--cubin", "--sig", "(f4)").returncode == 2          # no -o
    assert run(cli, "k.py", "--cubin", "--sig", "(f4)", "-o", str(out)).returncode == 2


def test_output_file(cli):
    out = cli / "o.cu"
    r = run(cli, "k.py", "--kernel", "other", "-o", str(out))
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text() == "// cuda other ['(int64)']\n"


def test_compile_error_printed_like_python(cli):
    r = run(cli, "k.py", "--kernel", "saxpy", "--sig", "bad")
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[:3] == ['  File "k.py", line 11', "    x[i] = a + q", "               ^"]
    assert "CompileError: name 'q' is not defined" in r.stderr
    assert "Traceback" not in r.stderr


def test_error_in_file(cli):
    (cli / "broken.py").write_text("import cujit\nraise ValueError('boom')\n")
    r = run(cli, "broken.py")
    assert r.returncode == 1
    assert "ValueError: boom" in r.stderr


def test_usage_errors(cli):
    for args in ([], ["--bogus", "k.py"], ["k.py", "k.py"], ["k.py", "--sig"],
                 ["missing.py"], ["k.py", "--kernel", "nope", "--sig", "(f4)"]):
        r = run(cli, *args)
        assert r.returncode == 2, (args, r.stderr)
    assert "usage: cujitc" in run(cli, "--bogus").stderr
    r = run(cli, "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: cujitc")


def test_no_kernels(cli):
    (cli / "empty.py").write_text("x = 1\n")
    r = run(cli, "empty.py")
    assert r.returncode == 1 and "no cujit kernels" in r.stderr


def test_real_cujitc_on_saxpy():
    exe = os.path.join(ROOT, "cujitc")
    if not os.path.exists(exe):
        pytest.skip("./cujitc not built (make)")
    r = subprocess.run([exe, os.path.join(ROOT, "examples", "saxpy.py"),
                        "--sig", "(float32, float32[:], float32[:], float32[:])"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "saxpy" in r.stdout and "__global__" in r.stdout


def test_device_functions_skipped_unless_named(cli):
    r = run(cli, "k.py", "--sig", "(f4)")
    assert r.returncode == 0 and "helper" not in r.stdout
    r = run(cli, "k.py", "--kernel", "helper", "--sig", "(f4)")
    assert r.returncode == 0 and r.stdout == "// cuda helper ['(f4)']\n"
