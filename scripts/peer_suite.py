#!/usr/bin/env python3
"""Runs the peers' own kernel test suites against cujit, renaming imports only.

    python scripts/peer_suite.py SOURCE [SOURCE ...] [options] [-- pytest args]

SOURCE is a folder of peer test files (peer/cupy/jit_tests, CuPy's
tests/cupyx_tests/jit_tests; peer/numba/cudapy, numba-cuda's
numba/cuda/tests/cudapy: scripts/fetch_peer_tests.py fetches both), or
``numba`` for the copy of numba.cuda.tests.cudapy installed with numba-cuda,
``numba-doc`` for its numba.cuda.tests.doc_examples (the documentation's
examples, each a test).

Each folder is copied to a temporary package and its imports are renamed:
``from cupyx import jit`` -> ``from cujit import jit``, ``from numba import
cuda`` -> ``from cujit import cuda``, ``cupyx.jit.X`` -> ``cujit.jit.X``, and
so on (``rewrite`` below).  A name cujit lacks (``from numba import float32``,
``from cupyx.jit import cub``) stays the peer's: its tests then fail or pass on
what cujit does with the peer's object, and the table lists those names.  The
peers' test helpers (numba.cuda.testing, cupy.testing) are imported from the
installed peers, so run this where CuPy and numba-cuda are installed.

pytest runs once per test file, in its own process (a crash loses one file),
``--jobs`` at a time; a conftest.py of ours writes one JSON line per test
report (crash-safe), and a junit XML per file goes beside them.  Then a table:
per file, passed / failed / errors / skipped; per failure its first error line
and a class:

  feature      a language or runtime feature cujit lacks or gets wrong
  errors       the test expects an exception, message or warning that cujit
               gives differently (or not at all)
  types        the test uses Numba's type objects (numba.float32, types.int32,
               signatures built from them)
  internals    the test inspects the peer's internals: IR, LLVM / NVVM, typing,
               dispatcher objects, compiler options, config
  environment  the machine: no GPU, a missing optional package

On a machine without a GPU, --fakecuda runs them on tests/fakecuda's driver
(numba-cuda's bindings load it too): kernels compile for real and launches do
nothing, so every compile error shows as on a GPU and a test that gets as far
as checking its results fails there.

The classes come from patterns in the error and its traceback (CLASSES): a
guide for reading the table, not a verdict.  --json writes everything.
"""
import argparse
import ast
import concurrent.futures
import fnmatch
import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# the peers' packages of test files: their imports of each other are renamed
# to our copy's package
PEER_PACKAGES = ("numba.cuda.tests.cudapy", "numba.cuda.tests.doc_examples",
                 "cupyx_tests.jit_tests")

# peer module -> cujit module, for names cujit has
MODULES = {"numba.cuda": "cujit.cuda", "cupyx.jit": "cujit.jit",
           "numba.cuda.random": "cujit.random",
           "numba.cuda.vector_types": "cujit.cuda",         # vector_types (the dict)
           "numba.cuda.libdevicefuncs": "cujit._libdevicefuncs",
           # CudaDriverError (a forked child's error), CudaSupportError
           "numba.cuda.cudadrv.error": "cujit.cuda",
           "numba.cuda.misc.special": "cujit.cuda", "numba.cuda.kernels.transpose": "cujit.cuda",
           "numba.cuda.np": "cujit.cuda",
           "numba.cuda.np.numpy_support": "cujit.cuda",     # carray, farray
           # bfloat16: the type and cuda_bf16.h's functions, both modules' names
           "numba.cuda.bf16": "cujit.bf16", "numba.cuda._internal.cuda_bf16": "cujit.bf16",
           # cuda.compile_ptx and friends; TypingError (cujit.CompileTypeError)
           "numba.cuda.compiler": "cujit.cuda", "numba.cuda.core.errors": "cujit.cuda",
           "numba.core.errors": "cujit.cuda",
           # the high-level extension API (@overload): numba-cuda's, and numba's own
           # that its tests use with target="cuda"
           "numba.cuda.extending": "cujit.extending", "numba.extending": "cujit.extending",
           "numba.core.extending": "cujit.extending",
           # the struct-model declarations: numba.cuda.cudaimpl's lower (cujit/_structs.py)
           "numba.cuda.cudaimpl": "cujit.extending",
           # CCCL's cuda.coop (block and warp collectives), old and new names
           "cuda.cooperative.experimental": "cujit.cooperative", "cuda.coop": "cujit.cooperative"}
# from <peer package> import <name> -> (cujit module, name) for names cujit has
TOP_NAMES = {
    "numba": {"cuda": ("cujit", "cuda"), "vectorize": ("_peer_shims", "vectorize"),
              "guvectorize": ("_peer_shims", "guvectorize"), "errors": ("_peer_shims", "errors")},
    # the errors module: Numba's, with cujit's TypingError (_peer_shims)
    "numba.core": {"errors": ("_peer_shims", "errors")},
    "numba.cuda.core": {"errors": ("_peer_shims", "errors")},
    # cuda-python's driver error, which numba-cuda raises: cujit's is cujit.CudaError
    "cuda.core._utils.cuda_utils": {"CUDAError": ("cujit", "CudaError")},
    "cupyx": {"jit": ("cujit", "jit")},
    "cuda": {"coop": ("cujit", "cooperative")},
}
# Numba's type objects: from numba import float32 takes cujit.cuda's where it
# has one (numba.jit, numba.njit ... are the CPU compiler's: they stay)
NUMBA_TYPES = (r"u?int(8|16|32|64|p)|float(16|32|64)|complex(64|128)|boolean|void|"
               r"double|b1|[fiuc][1248]|c16|types")

# numba.vectorize / guvectorize compile for the CPU unless target="cuda": the
# peers' tests use the CPU ones as references, so only target="cuda" is cujit's
SHIMS = '''\
"""Written by cujit's scripts/peer_suite.py: Numba's top-level vectorize and
guvectorize, cujit's for target="cuda" and Numba's own for the CPU."""
import cujit
import numba


def vectorize(*args, **kwargs):
    if kwargs.get("target") in ("cuda", "gpu"):
        return cujit.vectorize(*args, **kwargs)
    return numba.vectorize(*args, **kwargs)


def guvectorize(*args, **kwargs):
    if kwargs.get("target") in ("cuda", "gpu"):
        return cujit.guvectorize(*args, **kwargs)
    return numba.guvectorize(*args, **kwargs)


def _errors():
    """numba's errors module with cujit's TypingError (cujit.CompileTypeError)
    in place of Numba's: what `errors.TypingError` catches in the tests"""
    import types
    import cujit.cuda
    try:
        from numba.cuda.core import errors as peer
    except ImportError:
        from numba.core import errors as peer
    mod = types.ModuleType(peer.__name__)
    mod.__dict__.update(peer.__dict__)
    mod.TypingError = cujit.cuda.TypingError
    mod.NumbaPerformanceWarning = cujit.cuda.NumbaPerformanceWarning
    mod.NumbaInvalidConfigWarning = cujit.cuda.NumbaInvalidConfigWarning
    mod.NumbaWarning = getattr(cujit.cuda, "NumbaWarning", peer.NumbaWarning)
    return mod


errors = _errors()
'''

# numba.cuda.testing imports filecheck (a test dependency of numba-cuda) at
# import; where it is missing, a stand-in lets the tests import, and the
# FileCheck assertions (of LLVM / PTX text: internals) fail saying why
FILECHECK = {
    "__init__.py": '''"""peer_suite's stand-in for the filecheck package."""


class Missing:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("FileCheck: the filecheck package is not installed "
                                  "(peer_suite's stand-in)")


def pattern_for_opts(*args, **kwargs):
    Missing()
''',
    "matcher.py": "from filecheck import Missing as Matcher  # noqa\n",
    "options.py": "from filecheck import Missing as Options  # noqa\n",
    "parser.py": "from filecheck import Missing as Parser, pattern_for_opts  # noqa\n",
    "finput.py": "from filecheck import Missing as FInput  # noqa\n",
}

CONFTEST = '''\
"""Written by cujit's scripts/peer_suite.py: one JSON line per test report
(crash-safe: a line per start too), and a time limit per test."""
import json
import os
import signal

import pytest

_OUT = open(os.environ["PEER_SUITE_REPORT"], "a", buffering=1)
_LIMIT = int(os.environ.get("PEER_SUITE_TEST_TIMEOUT", "0"))


def _write(**kw):
    _OUT.write(json.dumps(kw) + "\\n")


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    if isinstance(report.longrepr, tuple):       # a skip: (path, line, reason)
        return str(report.longrepr[2])
    return str(report.longrepr or "")


def pytest_runtest_logstart(nodeid, location):
    _write(event="start", nodeid=nodeid)


def pytest_runtest_logreport(report):
    if report.when != "call" and report.outcome == "passed":
        return
    _write(event="report", nodeid=report.nodeid, when=report.when,
           outcome=report.outcome, message=_message(report),
           text=report.longreprtext[-6000:] if report.outcome == "failed" else "",
           wasxfail=hasattr(report, "wasxfail"))


def pytest_collectreport(report):
    if report.outcome != "passed":
        _write(event="collect", nodeid=report.nodeid, outcome=report.outcome,
               message=_message(report), text=report.longreprtext[-6000:])


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    """numba-cuda's test classes use this fixture of its own conftest (not
    installed with the package): it sets one option of its FileCheck helper."""
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False


def pytest_configure(config):
    for name in ("requires_cc_min", "requires_cc_exact"):
        config.addinivalue_line("markers", name + ": numba-cuda's compute capability marks")
    _forward_config()


def _forward_config():
    """numba-cuda's config switches, which its tests set (override_config,
    CUDATestCase.setUp), reach cujit's (cujit.cuda.config): the peer's config
    module forwards what is assigned to it"""
    try:
        from numba.cuda.core import config as peer
        import cujit.cuda
    except Exception:
        return
    mine = cujit.cuda.config

    class Forwarding(type(peer)):
        def __setattr__(self, name, value):
            super().__setattr__(name, value)
            if name in mine.NAMES:
                setattr(mine, name, value)
    peer.__class__ = Forwarding
    for name in mine.NAMES:
        if hasattr(peer, name):
            setattr(mine, name, getattr(peer, name))


def pytest_runtest_setup(item):
    """numba-cuda's requires_cc_min / requires_cc_exact marks, on cujit's device."""
    marks = [(m, op) for name, op in (("requires_cc_min", "min"), ("requires_cc_exact", "eq"))
             for m in item.iter_markers(name)]
    if not marks:
        return
    try:
        import cujit
        cc = tuple(cujit.get_device().compute_capability)
    except Exception:
        return
    for m, op in marks:
        want = tuple(m.args[0]) if m.args else ()
        if want and ((op == "min" and cc < want) or (op == "eq" and cc != want)):
            pytest.skip("needs compute capability %s %s" % (op, want))


def _on_alarm(signum, frame):
    raise TimeoutError("peer_suite: the test ran over %d s" % _LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _LIMIT:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(_LIMIT)
    try:
        yield
    finally:
        if _LIMIT:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
'''

# (class, pattern over the error message and its traceback), the first match wins
CLASSES = [
    ("environment", r"ModuleNotFoundError|No module named|CUDA_ERROR_NO_DEVICE|"
                    r"CudaSupportError|Error at driver init|"
                    r"cudaErrorNoDevice|cudaErrorInsufficientDriver|no CUDA-capable|"
                    r"cannot be imported|needs a GPU|CUDA driver .*not (found|available)"),
    ("internals", r"numba\.(cuda\.)?(core|typing|compiler|cudadrv|np|extending|flags|"
                  r"cudaimpl|codegen|dispatcher|descriptor|target|lowering|typeconv|misc|"
                  r"_internal|cext|memory_management|utils|simulator|debuginfo)\b|"
                  r"\bllvm|LLVM|NVVM|nvvm|FileCheck|assertFileCheck|inspect_llvm|"
                  r"inspect_types|inspect_sass|TypingError|Numba\w*Warning|"
                  r"get_regs_per_thread|get_local_mem_per_thread|get_shared_mem_per_block|"
                  r"get_const_mem_size|get_max_threads_per_block|max_cooperative_grid_blocks|"
                  r"\.library\b|_dispatcher|\bir\.|run_frontend|compile_ptx|compile_for_|"
                  r"\bconfig\.[A-Z]|override_config|cupyx\.jit\._|jit\._interface|"
                  r"cupy\._core|\.overloads\[|has no attribute '_|_compile_|cached_code|"
                  r"\bextending\b|@overload|@intrinsic|lower_builtin|type_callable|"
                  r"cuda\.(current_context|get_current_device\(\)\.|gpus|cudadrv|"
                  r"driver|external_stream|require_context|declare_device)"),
    ("types", r"\bnumba\.(types|float|int|uint|void|boolean|complex)|\btypes\.\w+|"
              r"Signature\b|\bvoid\(|\b(float|int|uint)(8|16|32|64)\[|"
              r"from_dtype|numba\.cuda\.types"),
    ("errors", r"DID NOT RAISE|not raised|DID NOT WARN|Regex pattern did not match|"
               r"pytest\.raises|assertRaises|assertWarns|pytest\.warns|"
               r"does not match|Pattern '.*' does not"),
]


def fail(msg):
    sys.exit("peer_suite: " + msg)


# ---- finding the files ----

def resolve_source(src):
    """A folder of test files, from a path or ``numba`` (the installed copy)."""
    if os.path.isdir(src):
        return os.path.abspath(src)
    if src in ("numba", "numba-doc"):
        pkg = "numba.cuda.tests." + ("cudapy" if src == "numba" else "doc_examples")
        try:
            spec = importlib.util.find_spec(pkg)
        except Exception as e:       # numba is there but numba.cuda is not
            spec, why = None, f"{type(e).__name__}: {e}"
        else:
            why = f"{pkg} not found"
        if spec is None or not spec.submodule_search_locations:
            fail(f"numba-cuda's tests are not installed here ({why}): give the folder "
                 "peer/numba/cudapy that scripts/fetch_peer_tests.py makes")
        return list(spec.submodule_search_locations)[0]
    if src == "cupy":
        fail("CuPy's wheels ship no tests: run scripts/fetch_peer_tests.py (on a machine "
             "with network) and give peer/cupy/jit_tests")
    fail(f"{src}: no such folder (give a folder of peer test files, 'numba' or 'numba-doc')")


def package_name(folder, taken):
    base = re.sub(r"\W", "_", os.path.basename(folder.rstrip(os.sep))) or "tests"
    name = "peer_" + base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


# ---- the rewriting ----

def cujit_names(module):
    """The public names a cujit module has (functions, objects, namespaces;
    not the modules it imported)."""
    mod = importlib.import_module(module)
    return {n for n in dir(mod) if not n.startswith("_")
            and not isinstance(getattr(mod, n), type(sys))} | (
        {"cuda", "jit"} if module == "cujit" else set())


class Rewriter:
    """One file's import renames, as edits of source spans."""

    def __init__(self, src, package, names):
        self.src = src
        self.lines = src.splitlines(keepends=True)
        self.package = package
        self.names = names          # cujit module -> set of names it has
        self.edits = []             # (line, col, end_line, end_col, text)
        self.kept = set()           # peer names left to the peer
        self.renamed = []           # what was renamed, for --show
        self.need_header = False

    def has(self, module, name):
        return name in self.names[module]

    def peer_package(self, module):
        for p in PEER_PACKAGES:
            if module == p or module.startswith(p + "."):
                return self.package + module[len(p):]
        return None

    @staticmethod
    def alias(a):
        return a.name + (f" as {a.asname}" if a.asname else "")

    def import_from(self, node):
        """from M import a, b: split into the names cujit has and the rest."""
        if node.level or node.module is None:
            return None
        mod = node.module
        ours = self.peer_package(mod)
        if ours is not None:
            return f"from {ours} import " + ", ".join(self.alias(a) for a in node.names)
        groups = {}                 # module -> [aliases]
        for a in node.names:
            target = mod
            if mod in TOP_NAMES and a.name in TOP_NAMES[mod]:
                cmod, cname = TOP_NAMES[mod][a.name]
                target = cmod
                a = ast.alias(cname, a.asname or (a.name if cname != a.name else None))
            elif mod in MODULES and a.name != "*" and self.has(MODULES[mod], a.name):
                target = MODULES[mod]
            elif (mod == "numba" and re.fullmatch(NUMBA_TYPES, a.name)
                  and self.has("cujit.cuda", a.name)):
                target = "cujit.cuda"           # Numba's type objects, where cujit has them
            elif mod in MODULES or mod in TOP_NAMES:
                self.kept.add(f"{mod}.{a.name}")
            groups.setdefault(target, []).append(self.alias(a))
        if list(groups) == [mod]:
            return None
        return "; ".join(f"from {m} import " + ", ".join(names) for m, names in groups.items())

    def import_(self, node):
        """import cupyx.jit as j -> import cujit.jit as j (a plain
        ``import cupyx.jit`` binds cupyx: its uses are renamed instead)."""
        out, changed = [], False
        for a in node.names:
            ours = self.peer_package(a.name)
            if ours is not None:
                out.append(ours + (f" as {a.asname}" if a.asname else ""))
                changed = True
            elif a.name in MODULES and a.asname:
                out.append(f"{MODULES[a.name]} as {a.asname}")
                changed = True
            else:
                out.append(self.alias(a))
        return ("import " + ", ".join(out)) if changed else None

    def attribute(self, node):
        """cupyx.jit.X -> cujit.jit.X (every X: cujit's error says what it
        lacks), numba.cuda.X -> cujit.cuda.X where cujit has X."""
        inner = node.value
        if not (isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)):
            return
        dotted = f"{inner.value.id}.{inner.attr}"
        if dotted not in MODULES:
            return
        if dotted == "numba.cuda" and not self.has("cujit.cuda", node.attr):
            self.kept.add(f"{dotted}.{node.attr}")
            return
        self.edit(inner, MODULES[dotted])
        self.need_header = True

    def program(self, node):
        """A triple-quoted string holding a Python program that imports the
        peer (test_print's `python -c` programs, run in a child): the same
        renames inside it, in place, so the literal keeps its lines.  One with
        escapes, or that is no program, is left as it is."""
        text = node.value
        if "import" not in text or not any(m.split(".")[0] in text for m in TOP_NAMES):
            return
        seg = ast.get_source_segment(self.src, node)
        if seg is None or seg[:3] not in ('"""', "'''") or not seg.endswith(seg[:3]):
            return
        quote, body = seg[:3], seg[3:-3]
        lead = "\\\n" if body.startswith("\\\n") else ""
        if body[len(lead):] != text:
            return
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return
        new = Rewriter(text, self.package, self.names).run(tree)
        if new != text and quote not in new and "\\" not in new:
            self.edit(node, quote + lead + new + quote)

    def edit(self, node, text):
        self.edits.append((node.lineno, node.col_offset, node.end_lineno,
                           node.end_col_offset, text))
        self.renamed.append(f"{node.lineno}: {ast.get_source_segment(self.src, node)!s:.60}"
                            f" -> {text}")

    def run(self, tree):
        for node in ast.walk(tree):
            text = None
            if isinstance(node, ast.ImportFrom):
                text = self.import_from(node)
            elif isinstance(node, ast.Import):
                text = self.import_(node)
            elif isinstance(node, ast.Attribute):
                self.attribute(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                self.program(node)
            if text is not None:
                self.edit(node, text)
        if self.need_header:
            self.header(tree)
        return self.apply()

    def header(self, tree):
        """``import cujit.cuda, cujit.jit`` on the line of the first statement
        after the docstring and __future__ imports, so that line numbers stay."""
        body = tree.body
        i = 0
        while i < len(body) and (
                (isinstance(body[i], ast.Expr) and isinstance(body[i].value, ast.Constant))
                or (isinstance(body[i], ast.ImportFrom) and body[i].module == "__future__")):
            i += 1
        text = "import cujit.cuda, cujit.jit"
        simple = (ast.Import, ast.ImportFrom, ast.Assign, ast.Expr, ast.AnnAssign, ast.Pass)
        if i < len(body) and isinstance(body[i], simple):
            s = body[i]
            self.edits.append((s.lineno, s.col_offset, s.lineno, s.col_offset, text + "; "))
        elif i > 0:
            s = body[i - 1]
            self.edits.append((s.end_lineno, s.end_col_offset, s.end_lineno,
                               s.end_col_offset, "; " + text))
        else:
            self.edits.append((1, 0, 1, 0, text + "\n"))

    def apply(self):
        lines = list(self.lines)
        for line, col, end_line, end_col, text in sorted(self.edits, reverse=True):
            # ast columns are UTF-8 byte offsets
            first = lines[line - 1].encode()
            last = lines[end_line - 1].encode()
            merged = (first[:col].decode() + text + last[end_col:].decode())
            lines[line - 1:end_line] = [merged]
        return "".join(lines)


def rewrite(src, package, names, path=""):
    """The source with its imports renamed; (text, kept names, renames)."""
    tree = ast.parse(src, path)
    r = Rewriter(src, package, names)
    out = r.run(tree)
    ast.parse(out, path)            # a rename that breaks the file is our bug: fail loudly
    return out, sorted(r.kept), r.renamed


def link_test_data(dest):
    """numba's test data (tests/data: .cu files that tests link) beside the
    copied packages, where tests that find it from their own __file__ look
    (test_cooperative_groups: dirname(dirname(__file__))/data)"""
    where = os.path.join(dest, "data")
    for top, sub in (("numba_cuda", "numba/cuda/tests/data"), ("numba", "cuda/tests/data")):
        spec = importlib.util.find_spec(top)        # finds, imports nothing
        for loc in (spec.submodule_search_locations or []) if spec else []:
            data = os.path.join(loc, sub)
            if os.path.isdir(data) and not os.path.exists(where):
                os.symlink(data, where)


def copy_suite(folder, dest, package, names, select):
    """Copies folder into dest/package with renamed imports; returns the test
    files selected and, per file, the names kept from the peer."""
    target = os.path.join(dest, package)
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    with open(os.path.join(target, "__init__.py"), "w") as f:
        f.write("")                 # numba's load_tests is unittest's, not pytest's
    link_test_data(dest)
    tests, kept, renamed = [], {}, {}
    for root, _, files in os.walk(target):
        for fn in sorted(files):
            if not fn.endswith(".py") or fn == "__init__.py":
                continue
            path = os.path.join(root, fn)
            with open(path, encoding="utf-8") as f:
                src = f.read()
            try:
                out, k, ren = rewrite(src, package, names, path)
            except SyntaxError as e:
                print(f"peer_suite: {fn}: not rewritten ({e})", file=sys.stderr)
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(out)
            rel = os.path.relpath(path, dest)
            kept[rel], renamed[rel] = k, ren
            if fn.startswith("test_") and any(fnmatch.fnmatch(fn, p) for p in select):
                tests.append(rel)
    return sorted(tests), kept, renamed


# ---- running ----

def run_file(dest, rel, args, pytest_args):
    """pytest on one file in its own process; returns (rel, returncode, seconds,
    output tail)."""
    stem = rel.replace(os.sep, "__")
    env = dict(os.environ, PEER_SUITE_REPORT=os.path.join(dest, "reports", stem + ".jsonl"),
               PEER_SUITE_TEST_TIMEOUT=str(args.test_timeout), PYTHONDONTWRITEBYTECODE="1")
    if env.get("PYTHONPATH"):       # pytest runs in dest: PYTHONPATH=. meant here
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) if p else p
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN",
           "--rootdir", dest, "-c", os.path.join(dest, "pytest.ini"),
           "--junitxml", os.path.join(dest, "reports", stem + ".xml"), rel] + pytest_args
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True,
                           timeout=args.file_timeout)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
    return rel, rc, time.monotonic() - t0, out[-3000:]


def read_reports(dest, rel):
    path = os.path.join(dest, "reports", rel.replace(os.sep, "__") + ".jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def classify(text):
    for name, pattern in CLASSES:
        if re.search(pattern, text):
            return name
    return "feature"


def first_line(message, text=""):
    """The error's first line.  Where that is a header (pytest's import-error
    header, or a SyntaxError's ``File "...", line n``: cujit's CompileError),
    the exception's own line from the traceback's ``E`` lines."""
    head = message.strip().splitlines()[0].strip() if message.strip() else ""
    if not head or head.startswith(("ImportError while importing", 'File "')):
        errs = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
        typed = [e for e in errs if re.match(r"[\w.]+(Error|Exception|Warning|Exit)\b", e)]
        if typed or errs:
            return (typed or errs)[-1][:160]
    return head[:160] or "(no message)"


def summarize(rel, rc, out, events):
    """One file's counts and failures from its report lines."""
    row = {"file": rel, "passed": 0, "failed": 0, "errors": 0, "skipped": 0,
           "xfailed": 0, "returncode": rc, "failures": [], "skips": {}}
    started, finished = [], set()
    for ev in events:
        if ev["event"] == "start":
            started.append(ev["nodeid"])
            continue
        finished.add(ev["nodeid"])
        outcome, when = ev["outcome"], ev.get("when", "collect")
        if outcome == "skipped":
            key = "xfailed" if ev.get("wasxfail") else "skipped"
            row[key] += 1
            reason = first_line(ev["message"])
            row["skips"][reason] = row["skips"].get(reason, 0) + 1
            continue
        if outcome == "passed":
            row["passed"] += 1
            continue
        kind = "failed" if when == "call" else "errors"
        row[kind] += 1
        row["failures"].append({
            "test": ev["nodeid"], "when": when,
            "first_line": first_line(ev["message"], ev.get("text", "")),
            "class": classify(ev["message"] + "\n" + ev.get("text", "") + "\n" + rel)})
    lost = [n for n in started if n not in finished]
    collect_failed = any(ev["event"] == "collect" for ev in events)
    # 1: tests failed, 2: collection failed (reported above), 5: nothing collected
    if rc not in (0, 1, 5) and not (rc == 2 and collect_failed) or lost:
        crash = f"the pytest process ended with {rc}"
        tail = [line for line in out.splitlines() if line.strip()][-1:] or [""]
        row["errors"] += 1
        row["failures"].append({"test": lost[-1] if lost else rel, "when": "crash",
                                "first_line": f"{crash}: {tail[0][:120]}",
                                "class": "feature"})
    return row


def print_table(rows, kept):
    width = max([len(r["file"]) for r in rows] + [20])
    print(f"\n{'file':<{width}} {'pass':>5} {'fail':>5} {'error':>5} {'skip':>5} {'xfail':>5}")
    tot = {k: 0 for k in ("passed", "failed", "errors", "skipped", "xfailed")}
    for r in rows:
        print(f"{r['file']:<{width}} {r['passed']:>5} {r['failed']:>5} {r['errors']:>5} "
              f"{r['skipped']:>5} {r['xfailed']:>5}")
        for k in tot:
            tot[k] += r[k]
    print(f"{'total':<{width}} {tot['passed']:>5} {tot['failed']:>5} {tot['errors']:>5} "
          f"{tot['skipped']:>5} {tot['xfailed']:>5}")
    classes = {}
    for r in rows:
        for f in r["failures"]:
            classes[f["class"]] = classes.get(f["class"], 0) + 1
    if classes:
        print("\nfailures and errors by class: " +
              ", ".join(f"{k} {v}" for k, v in sorted(classes.items(), key=lambda kv: -kv[1])))
    for cls in ("feature", "errors", "types", "internals", "environment"):
        items = [f for r in rows for f in r["failures"] if f["class"] == cls]
        if not items:
            continue
        print(f"\n[{cls}]")
        if cls == "environment":            # the machine, not cujit: one line per cause
            causes = {}
            for f in items:
                causes[f["first_line"]] = causes.get(f["first_line"], 0) + 1
            for line, n in sorted(causes.items(), key=lambda kv: -kv[1]):
                print(f"  {n:4d} tests: {line}")
            continue
        for f in items:
            where = f["test"].split("/")[-1]
            print(f"  {where}{'' if f['when'] == 'call' else ' (' + f['when'] + ')'}\n"
                  f"      {f['first_line']}")
    skips = {}
    for r in rows:
        for reason, n in r["skips"].items():
            skips[reason] = skips.get(reason, 0) + n
    if skips:
        print("\nskip reasons:")
        for reason, n in sorted(skips.items(), key=lambda kv: -kv[1])[:15]:
            print(f"  {n:4d}  {reason}")
    kept_any = {f: k for f, k in kept.items() if k}
    if kept_any:
        print("\nnames left to the peer (cujit has no such name):")
        for f, k in sorted(kept_any.items()):
            print(f"  {f}: {', '.join(k)}")


def main():
    argv = sys.argv[1:]
    pytest_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="pytest arguments go after --")
    ap.add_argument("sources", nargs="+", metavar="SOURCE",
                    help="a folder of peer test files, 'numba' or 'numba-doc' (the installed copies)")
    ap.add_argument("--files", default="test_*.py",
                    help="comma-separated patterns of test files to run (default test_*.py)")
    ap.add_argument("--jobs", "-j", type=int, default=min(4, os.cpu_count() or 1),
                    help="pytest processes at a time (default min(4, CPUs))")
    ap.add_argument("--test-timeout", type=int, default=120,
                    help="seconds one test may run (SIGALRM; 0: none; default 120)")
    ap.add_argument("--file-timeout", type=int, default=900,
                    help="seconds one file's pytest may run (default 900)")
    ap.add_argument("--keep", metavar="DIR",
                    help="build the renamed copy and the reports in DIR and keep them")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    ap.add_argument("--fakecuda", action="store_true",
                    help="no GPU here: build tests/fakecuda/fakecuda.c as libcuda.so.1 and run "
                         "on it (kernels compile for real, launches do nothing, so a test that "
                         "gets as far as checking its results fails there: read compile errors only)")
    ap.add_argument("--show-renames", action="store_true",
                    help="print each file's renamed imports and exit without running")
    args = ap.parse_args(argv)
    if args.fakecuda:
        use_fake_driver()
    select = [p.strip() for p in args.files.split(",") if p.strip()]

    try:
        names = {m: cujit_names(m) for m in ("cujit", "cujit.cuda", "cujit.jit", "cujit.random",
                                             "cujit._libdevicefuncs")}
        names = {m: cujit_names(m) for m in {"cujit", "cujit.cuda"} | set(MODULES.values())}
    except Exception as e:
        fail(f"cujit cannot be imported here ({type(e).__name__}: {e}): install it first")
    import cujit
    print(f"cujit {cujit.__version__} from {os.path.dirname(cujit.__file__)}")
    dest = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="peer_suite_")
    if args.keep:
        shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "reports"))
    with open(os.path.join(dest, "conftest.py"), "w") as f:
        f.write(CONFTEST)
    with open(os.path.join(dest, "_peer_shims.py"), "w") as f:
        f.write(SHIMS)
    if importlib.util.find_spec("filecheck") is None:
        os.makedirs(os.path.join(dest, "filecheck"))
        for name, text in FILECHECK.items():
            with open(os.path.join(dest, "filecheck", name), "w") as f:
                f.write(text)
    with open(os.path.join(dest, "pytest.ini"), "w") as f:
        f.write("[pytest]\naddopts =\n")
    tests, kept, renamed, taken = [], {}, {}, set()
    try:
        for src in args.sources:
            folder = resolve_source(src)
            t, k, ren = copy_suite(folder, dest, package_name(folder, taken), names, select)
            tests += t
            kept.update(k)
            renamed.update(ren)
            print(f"{folder}: {len(t)} test files -> {dest}")
        if args.show_renames:
            for f in sorted(renamed):
                print(f"{f}:")
                for line in renamed[f]:
                    print(f"  {line}")
                if kept[f]:
                    print(f"  left to the peer: {', '.join(kept[f])}")
            return
        if not tests:
            fail(f"no test files match {args.files}")
        rows = run_all(dest, tests, args, pytest_args)
        print_table(rows, {f: kept[f] for f in tests})
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"sources": args.sources, "files": rows, "kept": kept}, f, indent=1)
            print(f"\nresults: {args.json}")
        if args.keep:
            print(f"renamed copy and reports (JSON lines, junit XML): {dest}/")
    finally:
        if not args.keep:
            shutil.rmtree(dest, ignore_errors=True)


def use_fake_driver():
    """Builds the fake driver in a temporary folder and puts it first on
    LD_LIBRARY_PATH for the pytest processes (and for this one's cujit)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, "tests", "fakecuda")
    out = tempfile.mkdtemp(prefix="peer_fakecuda_")
    cmd = ["cc", "-shared", "-fPIC", "-O1", "-I", src, "-o", os.path.join(out, "libcuda.so.1"),
           os.path.join(src, "fakecuda.c"), "-ldl"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        fail(f"building the fake driver failed: {' '.join(cmd)}\n{r.stderr}")
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (out, os.environ.get("LD_LIBRARY_PATH")) if p)
    print(f"fake driver: {out}/libcuda.so.1 (launches do nothing: read compile errors only)")


def run_all(dest, tests, args, pytest_args):
    rows = {}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(run_file, dest, rel, args, pytest_args) for rel in tests]
        for fut in concurrent.futures.as_completed(futs):
            rel, rc, secs, out = fut.result()
            row = summarize(rel, rc, out, read_reports(dest, rel))
            row["seconds"] = round(secs, 1)
            rows[rel] = row
            print(f"  {rel}: {row['passed']} passed, {row['failed']} failed, "
                  f"{row['errors']} errors, {row['skipped']} skipped ({secs:.0f} s)",
                  flush=True)
    print(f"{len(tests)} files in {time.monotonic() - t0:.0f} s")
    return [rows[rel] for rel in tests]


if __name__ == "__main__":
    main()
