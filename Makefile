# cujit - one Makefile.  `make` builds the extension in place (through
# setup.py, the one way the extension is built) and the C CLI.
#
#   make example   set up, install into .venv, run examples/saxpy.py
#   make check     set up, install into .venv, run every test (what CI runs)
#   make test      C unit tests (CUnit) and pytest against the package installed
#                  in $(VENV); test-unit / test-gpu alone
#   make install   pip install . into $(VENV) (WHEEL=path: that wheel instead)
#   make dist      sdist and wheel in dist/ (python -m build)
#   make asan      C unit tests under AddressSanitizer + UBSan (build/asan)
#   make asan-py   the extension under the sanitizers, with the no-GPU pytest suites
#   make fuzz      the fuzzer (fuzz/) against that build: 10^5 kernels; fuzz-short: 40 s
#   make regen     common/sig.c from common/sig.re (needs re2c)
#   make bench-transpile, make bench, make clean, make distclean
PYTHON  ?= python3
# the virtual environment the tests run in (made by scripts/setup.sh)
VENV    ?= .venv
VPY     := $(abspath $(VENV))/bin/python
# what runs setup.py for the in-place build: the venv's Python once it exists
PY      := $(if $(wildcard $(VPY)),$(VPY),$(PYTHON))
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-parameter
DEPS    := -MMD -MP
PYINC   := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PYEMBED := $(shell $(PYTHON)-config --ldflags --embed 2>/dev/null || $(PYTHON) -c "import sysconfig as s; v=s.get_config_var; print('-L'+v('LIBDIR'), '-lpython'+v('LDVERSION'), '-Wl,-rpath,'+v('LIBDIR'))")
BUILD   := build

# Pure C: never includes Python.h (compiled without the Python include path,
# so a stray #include <Python.h> fails the build); the CUnit tests link these
# through a static library, which pulls in only the objects they use.
PURE_SRC := $(sort $(wildcard common/*.c typeinfer/*.c codegen/*.c))
UNIT_SRC := $(wildcard tests/unit/*.c)

PURE_OBJ := $(PURE_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
PURE_LIB := $(BUILD)/libcjpure.a
# CC and CFLAGS reach setup.py only when given to make (else it uses its own -O2 -g)
SETUP_ENV := $(if $(filter command line environment,$(origin CFLAGS)),CFLAGS='$(CFLAGS)') \
             $(if $(filter command line environment,$(origin CC)),CC='$(CC)')

# 1 when <CUnit/CUnit.h> compiles (evaluated only where used)
HAVE_CUNIT = $(shell printf '\043include <CUnit/CUnit.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)

all: ext cujitc

# the extension in place (cujit/_cujit*.so) for the source tree's tools (./cujitc,
# bench/, asan-py); setuptools rebuilds it when a source or header is newer
ext:
	$(SETUP_ENV) $(PY) setup.py -q build_ext --inplace

$(PURE_OBJ) $(UNIT_OBJ): $(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEPS) -fPIC -Icommon -c $< -o $@

$(PURE_LIB): $(PURE_OBJ)
	@rm -f $@
	ar rcs $@ $^

cujitc: cli/cujitc.c
	$(CC) $(CFLAGS) $(WARN) -I$(PYINC) -o $@ cli/cujitc.c $(PYEMBED)

-include $(PURE_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# the package, non-editable, into $(VENV): the tests import it from there, so a
# file the wheel lacks fails them.  No build isolation: setup.sh put setuptools
# in the venv (and a machine without network can build).  Stale build/lib*
# (an older layout's files) would end up in the wheel: removed first.
install: $(VPY)
	rm -rf $(BUILD)/lib.* $(BUILD)/bdist.* cujit.egg-info
	$(SETUP_ENV) $(VPY) -m pip install -q --no-deps --no-build-isolation --force-reinstall \
	  $(if $(WHEEL),$(WHEEL),.)

$(VPY):
	@echo "no virtual environment at $(VENV): run 'make setup' (or VENV=path)"; exit 1

dist: $(VPY)
	rm -rf $(BUILD)/lib.* $(BUILD)/bdist.* cujit.egg-info
	$(VPY) -m build --no-isolation --outdir dist .

# re2c output is committed; only this target needs re2c
regen:
	re2c -W --no-generation-date --no-version -i -o common/sig.c common/sig.re

$(BUILD)/unit: $(UNIT_OBJ) $(PURE_LIB)
	$(CC) $(CFLAGS) -o $@ $(UNIT_OBJ) $(PURE_LIB) -lcunit -lm

# pytest from tests/: the source tree's cujit/ is not on sys.path there, and
# CUJIT_TEST_INSTALLED makes tests/test_package.py check that
test: all install
	@$(MAKE) --no-print-directory test-unit
	cd tests && CUJIT_TEST_INSTALLED=1 $(VPY) -m pytest -q -p no:cacheprovider .

test-unit:
	@if [ "$(HAVE_CUNIT)" = 1 ]; then \
	  $(MAKE) --no-print-directory $(BUILD)/unit && $(BUILD)/unit; \
	else \
	  echo "test-unit: skipped, CUnit is not installed (apt-get install libcunit1-dev)"; \
	fi

test-gpu: install
	cd tests && CUJIT_TEST_INSTALLED=1 $(VPY) gpu/run_all.py

# GCC 12 misreads vsnprintf(NULL, 0, ...) under the sanitizers: -Wno-format-truncation
asan:
	@if [ "$(HAVE_CUNIT)" = 1 ]; then \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)/asan \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-format-truncation" \
	    $(BUILD)/asan/unit && $(BUILD)/asan/unit; \
	else \
	  echo "asan: skipped, CUnit is not installed (apt-get install libcunit1-dev)"; \
	fi

# the extension itself under AddressSanitizer + UBSan (a copy in build/asan-py),
# running the tests that need no GPU (the fake-driver scenarios among them)
SAN_LIBS = $(shell $(CC) -print-file-name=libasan.so):$(shell $(CC) -print-file-name=libubsan.so)
SAN_ENV  = ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	   LD_PRELOAD=$(SAN_LIBS)
asan-py-build:
	rm -rf $(BUILD)/asan-py && mkdir -p $(BUILD)/asan-py
	cp -r Makefile setup.py pyproject.toml pytest.ini common frontend typeinfer codegen \
	  pipeline runtime module cli cujit tests $(BUILD)/asan-py/
	rm -f $(BUILD)/asan-py/cujit/_cujit*.so
	$(MAKE) --no-print-directory -C $(BUILD)/asan-py BUILD=build PY=$(PY) \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-format-truncation" \
	  ext

asan-py: asan-py-build
	cd $(BUILD)/asan-py && $(SAN_ENV) PYTHONPATH=$(abspath $(BUILD)/asan-py) $(PY) -m pytest -q -p no:cacheprovider \
	  tests/test_runtime_nogpu.py tests/test_stdlib_nogpu.py tests/test_vectorize_nogpu.py \
	  tests/test_gufunc_nogpu.py tests/test_fuse_nogpu.py tests/test_features.py tests/test_errors.py \
	  tests/test_fuzz_regressions.py tests/test_coarsen_writes.py tests/test_faults_nogpu.py \
	  tests/test_compat_names.py tests/test_warmup_nogpu.py tests/test_collectives.py \
	  tests/test_cg.py tests/test_prebuilt_nogpu.py tests/test_numba_host_api.py \
	  tests/test_numba_forms_nogpu.py tests/test_bf16_nogpu.py tests/test_link_nogpu.py

# what README.md tells a new user to run
setup:
	@PYTHON=$(PYTHON) VENV=$(VENV) sh scripts/setup.sh

example: setup
	@$(MAKE) --no-print-directory install
	$(VPY) examples/saxpy.py

check: setup
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory fuzz-short

# the fuzzer (fuzz/README.md) against the extension under ASan + UBSan:
# fuzz-short a bounded run (make check), fuzz a long one of FUZZ_N sources
FUZZ_N ?= 100000
FUZZ_ARGS ?=
fuzz: asan-py-build
	$(SAN_ENV) PYTHONPATH=$(abspath $(BUILD)/asan-py) $(PY) fuzz/fuzz.py -n $(FUZZ_N) $(FUZZ_ARGS)

fuzz-short: asan-py-build
	$(SAN_ENV) PYTHONPATH=$(abspath $(BUILD)/asan-py) $(PY) fuzz/fuzz.py -n 1000000 --seconds 40 \
	  --seed 1 $(FUZZ_ARGS)

bench-transpile: all
	PYTHONPATH=. $(PYTHON) bench/transpile.py

bench: all
	PYTHONPATH=. $(PYTHON) bench/bench.py

clean:
	rm -rf $(BUILD) dist cujit.egg-info cujit/_cujit*.so cujitc

distclean: clean
	rm -rf $(VENV)

.PHONY: all ext install dist test test-unit test-gpu regen clean distclean bench bench-transpile \
	asan asan-py asan-py-build fuzz fuzz-short setup example check
