#!/bin/sh
# setup.sh - installs what building and testing cujit needs, and nothing that
# is already there (safe to run again).  Debian / Ubuntu:
#   C compiler and make         build-essential   (apt)
#   Python.h for $PYTHON        python3-dev       (apt)
#   venv for $PYTHON            python3-venv      (apt)
#   CUnit (C unit tests)        libcunit1-dev     (apt; tests are skipped without it)
# then makes the virtual environment $VENV (default .venv) from $PYTHON and
# pip-installs into it what building and testing the package need:
#   setuptools>=64, wheel, build, numpy>=2, pytest (and ml_dtypes, optional:
#   the bfloat16 tests skip without it)
# (`make install` then installs cujit itself there; the tests run from it).
# apt runs as root, or through sudo when it needs no password; otherwise (or
# offline) this says what to install and goes on.  re2c is not needed: the
# generated lexer is committed.  The CUDA driver and NVRTC are found at run
# time; none is needed to build.
set -u

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
VPY=$VENV/bin/python
missing_apt=""
fatal=0

say() {
    echo "setup: $*"
}

have() {
    command -v "$1" >/dev/null 2>&1
}

# true when the C compiler finds <CUnit/CUnit.h>
have_cunit() {
    printf '#include <CUnit/CUnit.h>\n' | ${CC:-cc} -E -x c - >/dev/null 2>&1
}

# true when $PYTHON's include directory holds Python.h
have_python_h() {
    "$PYTHON" -c "import os, sysconfig, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
        2>/dev/null
}

# true when $PYTHON is the system interpreter apt's python3-dev serves
is_system_python() {
    "$PYTHON" -c "import sys; sys.exit(sys.base_prefix != '/usr')" 2>/dev/null
}

# runs apt-get as root or through password-less sudo; 1 when it cannot
apt() {
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get "$@"
    elif have sudo && sudo -n true 2>/dev/null; then
        sudo DEBIAN_FRONTEND=noninteractive apt-get "$@"
    else
        return 1
    fi
}

install_apt() {
    if ! have apt-get; then
        say "no apt-get here; please install:$missing_apt"
        return 1
    fi
    if [ "$(id -u)" != 0 ] && ! { have sudo && sudo -n true 2>/dev/null; }; then
        say "not root and no password-less sudo; please run: sudo apt-get install$missing_apt"
        return 1
    fi
    say "apt-get install$missing_apt"
    if ! apt update -qq >/dev/null 2>&1; then
        say "apt-get update failed (offline?); skipping:$missing_apt"
        return 1
    fi
    # shellcheck disable=SC2086
    apt install -y -qq --no-install-recommends $missing_apt >/dev/null
}

# true when $PYTHON can make a virtual environment with pip in it
have_venv() {
    "$PYTHON" -c "import venv, ensurepip" 2>/dev/null
}

# pip install into the virtual environment
pip_install() {
    say "pip install $* (into $VENV)"
    "$VPY" -m pip install -q "$@"
}

if ! have "$PYTHON"; then
    say "$PYTHON not found; install Python 3.10 or newer first"
    exit 1
fi

if ! have cc && ! have gcc || ! have make; then
    missing_apt="$missing_apt build-essential"
fi
if ! have_python_h; then
    if is_system_python; then
        missing_apt="$missing_apt python3-dev"
    else
        say "$PYTHON ($("$PYTHON" -c 'import sys; print(sys.prefix)')) has no Python.h and is not"
        say "the system Python: install its development headers with the tool that installed it"
        fatal=1
    fi
fi
if ! have_cunit; then
    missing_apt="$missing_apt libcunit1-dev"
fi
if ! have_venv; then
    if is_system_python; then
        missing_apt="$missing_apt python3-venv"
    else
        say "$PYTHON cannot make a virtual environment (no venv / ensurepip module):"
        say "reinstall it with those, or use a Python that has them"
        fatal=1
    fi
fi

if [ -n "$missing_apt" ]; then
    install_apt || true
fi

if ! have_python_h; then
    say "Python.h is still missing for $PYTHON: the extension cannot be built"
    fatal=1
fi
if ! have_cunit; then
    say "CUnit is missing: 'make test' will skip the C unit tests"
fi

if [ ! -x "$VPY" ]; then
    if have_venv; then
        say "$PYTHON -m venv $VENV"
        "$PYTHON" -m venv "$VENV" || fatal=1
    else
        say "no virtual environment: $PYTHON cannot make one"
        fatal=1
    fi
fi
if [ ! -x "$VPY" ]; then
    say "$VENV is missing: 'make test' cannot run"
    exit 1
fi

# what building (setuptools, wheel, build) and testing (numpy, pytest) need
# in the venv; only what is missing, so an offline re-run works
"$VPY" -c "import setuptools, sys
sys.exit(int(setuptools.__version__.split('.')[0]) < 64)" 2>/dev/null \
    || pip_install "setuptools>=64" || true
# ml_dtypes: optional (the bfloat16 tests skip without it)
for mod in wheel build numpy pytest ml_dtypes; do
    if ! "$VPY" -I -c "import $mod" 2>/dev/null; then
        case $mod in numpy) spec="numpy>=2" ;; *) spec=$mod ;; esac
        pip_install "$spec" || true
    fi
done
if ! "$VPY" -c "import numpy" 2>/dev/null; then
    say "numpy is missing in $VENV and could not be installed"
    fatal=1
fi
if ! "$VPY" -c "import pytest, setuptools" 2>/dev/null; then
    say "pytest or setuptools is missing in $VENV: 'make test' will fail"
fi

if [ "$fatal" = 0 ]; then
    say "ready ($VENV: $("$VPY" -c 'import sys, numpy; print("Python %d.%d, numpy %s" % (sys.version_info[:2] + (numpy.__version__,)))'))"
fi
exit "$fatal"
