# cujit - one Makefile.  `make` builds the extension in place and the CLI.
#
#   make example   set up, build, run examples/saxpy.py
#   make check     set up, build, run every test (what CI runs)
#   make test      C unit tests (CUnit) and pytest; test-unit / test-gpu alone
#   make asan      C unit tests under AddressSanitizer + UBSan (build/asan)
#   make asan-py   the extension under the sanitizers, with the no-GPU pytest suites
#   make regen     common/sig.c from common/sig.re (needs re2c)
#   make bench-transpile, make bench, make clean
PYTHON  ?= python3
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-parameter
DEPS    := -MMD -MP
PYINC   := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])")
EXT     := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
PYEMBED := $(shell $(PYTHON)-config --ldflags --embed 2>/dev/null || $(PYTHON) -c "import sysconfig as s; v=s.get_config_var; print('-L'+v('LIBDIR'), '-lpython'+v('LDVERSION'), '-Wl,-rpath,'+v('LIBDIR'))")
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) /usr/local/cuda)
BUILD   := build

# Pure C: never includes Python.h (compiled without the Python include path,
# so a stray #include <Python.h> fails the build); the CUnit tests link these
# through a static library, which pulls in only the objects they use.
PURE_SRC := $(sort $(wildcard common/*.c typeinfer/*.c codegen/*.c))
# The C API: reading ast objects, the runtime and the module glue.
PY_SRC   := $(wildcard frontend/*.c pipeline/*.c runtime/*.c module/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)

PURE_OBJ := $(PURE_SRC:%.c=$(BUILD)/%.o)
PY_OBJ   := $(PY_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
PURE_LIB := $(BUILD)/libcjpure.a
TARGET   := cujit/_cujit$(EXT)

# 1 when <CUnit/CUnit.h> compiles (evaluated only where used)
HAVE_CUNIT = $(shell printf '\043include <CUnit/CUnit.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)

all: $(TARGET) cujitc

$(PURE_OBJ) $(UNIT_OBJ): $(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEPS) -fPIC -Icommon -c $< -o $@

$(PY_OBJ): $(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEPS) -fPIC -I$(PYINC) -Icommon -DCUJIT_CUDA_HOME='"$(CUDA_HOME)"' -c $< -o $@

$(PURE_LIB): $(PURE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TARGET): $(PURE_OBJ) $(PY_OBJ)
	$(CC) -shared $(CFLAGS) -o $@ $^ -ldl -lpthread -lm

cujitc: cli/cujitc.c $(TARGET)
	$(CC) $(CFLAGS) $(WARN) -I$(PYINC) -o $@ cli/cujitc.c $(PYEMBED)

-include $(PURE_OBJ:.o=.d) $(PY_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# re2c output is committed; only this target needs re2c
regen:
	re2c -W --no-generation-date --no-version -i -o common/sig.c common/sig.re

$(BUILD)/unit: $(UNIT_OBJ) $(PURE_LIB)
	$(CC) $(CFLAGS) -o $@ $(UNIT_OBJ) $(PURE_LIB) -lcunit -lm

test: all
	@$(MAKE) --no-print-directory test-unit
	PYTHONPATH=. $(PYTHON) -m pytest -q tests

test-unit:
	@if [ "$(HAVE_CUNIT)" = 1 ]; then \
	  $(MAKE) --no-print-directory $(BUILD)/unit && $(BUILD)/unit; \
	else \
	  echo "test-unit: skipped, CUnit is not installed (apt-get install libcunit1-dev)"; \
	fi

test-gpu: all
	PYTHONPATH=. $(PYTHON) tests/gpu/run_all.py

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
asan-py:
	rm -rf $(BUILD)/asan-py && mkdir -p $(BUILD)/asan-py
	cp -r Makefile common frontend typeinfer codegen pipeline runtime module cli cujit tests $(BUILD)/asan-py/
	rm -f $(BUILD)/asan-py/cujit/_cujit*.so
	$(MAKE) --no-print-directory -C $(BUILD)/asan-py BUILD=build \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-format-truncation" \
	  cujit/_cujit$(EXT)
	cd $(BUILD)/asan-py && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LD_PRELOAD=$(SAN_LIBS) PYTHONPATH=. $(PYTHON) -m pytest -q -p no:cacheprovider \
	  tests/test_runtime_nogpu.py tests/test_stdlib_nogpu.py tests/test_vectorize_nogpu.py \
	  tests/test_features.py tests/test_errors.py

# what README.md tells a new user to run
setup:
	@PYTHON=$(PYTHON) sh scripts/setup.sh

example: setup
	@$(MAKE) --no-print-directory all
	PYTHONPATH=. $(PYTHON) examples/saxpy.py

check: setup
	@$(MAKE) --no-print-directory test

bench-transpile: all
	PYTHONPATH=. $(PYTHON) bench/transpile.py

bench: all
	PYTHONPATH=. $(PYTHON) bench/bench.py

clean:
	rm -rf $(BUILD) cujit/_cujit*.so cujitc

.PHONY: all test test-unit test-gpu regen clean bench bench-transpile asan asan-py setup example check
