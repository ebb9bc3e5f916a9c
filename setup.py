"""setup.py - builds cujit's C extension (cujit._cujit) for setuptools.

The one way the extension is built: `pip install .`, `pip install -e .`,
`python -m build` and the Makefile's `make` (`setup.py build_ext --inplace`)
all come here.  The metadata is in pyproject.toml; the version is CJ_VERSION
in common/cj.h, which the extension also reports as cujit.__version__.

The C sources are every *.c of the folders in C_DIRS (a folder that does not
exist is skipped), so files added to or split in those folders need no change
here.  common/sig.c is re2c's output, committed: re2c is not needed.
Building needs a C11 compiler and the Python headers; no CUDA toolkit (NVRTC
and libcuda are opened at run time).  CFLAGS from the environment replace
cujit's -O2 -g (as they do in the Makefile); the warnings stay.
"""
import glob
import os
import re
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
C_DIRS = ["common", "typeinfer", "codegen", "frontend", "runtime", "module", "pipeline"]
WARN = ["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wmissing-prototypes",
        "-Wno-unused-parameter"]


def version():
    """CJ_VERSION from common/cj.h: the one place the version is written."""
    with open(os.path.join(HERE, "common", "cj.h"), encoding="utf-8") as f:
        m = re.search(r'^#define CJ_VERSION "([^"]+)"', f.read(), re.M)
    if not m:
        sys.exit("setup.py: no '#define CJ_VERSION \"...\"' in common/cj.h")
    return m.group(1)


def c_files(pattern):
    """The files of C_DIRS matching pattern, relative to this directory
    (as setuptools wants them), sorted."""
    found = []
    for d in C_DIRS:
        found += sorted(glob.glob(os.path.join(d, pattern), root_dir=HERE))
    return found


def cuda_home():
    """The toolkit compiled in as one more place to look for NVRTC."""
    return os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def build_problem(compiler):
    """Why this machine cannot build the extension, or None."""
    inc = sysconfig.get_paths()["include"]
    py = "%d.%d" % sys.version_info[:2]
    if not os.path.exists(os.path.join(inc, "Python.h")):
        return ("Python.h is missing (looked in %s): install the development headers of "
                "Python %s (Debian/Ubuntu: apt-get install python%s-dev, or python3-dev; "
                "Fedora/RHEL: dnf install python3-devel; conda: they come with python)"
                % (inc, py, py))
    cc = compiler.compiler_so[0] if getattr(compiler, "compiler_so", None) else "cc"
    try:
        ok = subprocess.run([cc, "--version"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        ok = False
    if not ok:
        return ("no working C compiler (tried '%s'): install one (Debian/Ubuntu: apt-get "
                "install build-essential; Fedora/RHEL: dnf install gcc), or set CC" % cc)
    return None


class BuildExt(build_ext):
    """build_ext that says in one message what is missing, and compiles the
    sources in parallel (one job per CPU unless -j says otherwise)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        problem = build_problem(self.compiler)
        if problem:
            line = "*" * 72
            raise SystemExit("\n%s\ncujit cannot be built: %s\n%s\n" % (line, problem, line))
        super().build_extensions()


class Build(build):
    """build, then the prebuilt store (cujit/_prebuild.py): the stdlib's
    binaries for the GPUs present or $CUJIT_PREBUILD_ARCHS, built with the
    package just built (build/lib*) into its cujit/_prebuilt/, which the
    wheel then carries.  With no GPU and no variable it says so in one line;
    a failure is reported and never fails the install (the kernels then
    compile at their first use, as without a store).  CUJIT_PREBUILD=0 skips
    it."""

    def run(self):
        super().run()
        if os.environ.get("CUJIT_PREBUILD", "1").lower() in ("0", "false", "no", "off"):
            print("cujit prebuild: skipped (CUJIT_PREBUILD=0)")
            return
        lib = os.path.abspath(self.build_lib)
        out = os.path.join(lib, "cujit", "_prebuilt")
        env = dict(os.environ, PYTHONPATH=lib + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("CUJIT_PREBUILT_DIR", None)
        try:
            r = subprocess.run([sys.executable, "-m", "cujit", "prebuild", "--out", out],
                               env=env, cwd=lib, capture_output=True, text=True)
        except OSError as e:
            print("cujit prebuild: not run (%s); `python -m cujit prebuild` builds it later"
                  % e)
            return
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            print("cujit prebuild: failed, the install goes on without it (`python -m cujit "
                  "prebuild` tries again): %s" % r.stderr.strip()[-2000:])


def packages():
    """cujit and its subpackages (cujit._stdlib)."""
    found = []
    for root, dirs, files in os.walk(os.path.join(HERE, "cujit")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        if "__init__.py" in files:
            found.append(os.path.relpath(root, HERE).replace(os.sep, "."))
    return sorted(found)


opt = [] if os.environ.get("CFLAGS") else ["-O2", "-g"]

setup(
    version=version(),
    packages=packages(),
    include_package_data=False,     # package data is listed here
    # the array stdlib's kernel sources: a plain folder (no __init__.py) that
    # cujit/_stdlib/_load.py loads by path
    package_data={"cujit._stdlib": ["kernels/*.py"]},
    ext_modules=[Extension(
        "cujit._cujit",
        sources=c_files("*.c"),
        depends=c_files("*.h"),
        include_dirs=["common"],
        define_macros=[("CUJIT_CUDA_HOME", c_string(cuda_home()))],
        extra_compile_args=opt + WARN,
        libraries=["dl", "pthread", "m"],
    )],
    cmdclass={"build": Build, "build_ext": BuildExt},
)
