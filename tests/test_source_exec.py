"""Kernels no file holds: built by exec() / compile() from a string, or
defined in `python -c`.  cujit's audit hook keeps the texts Python compiles
from strings (frontend/srcstore.c); a function is found in them only when a
code object compiled from the text equals its own.  Errors point into the
text, with its line and caret."""
import __future__
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

RNG = np.random.default_rng()


def exec_text(src, filename="<string>", **glob):
    ns = {"cuda": cuda, "jit": jit, "np": np}
    ns.update(glob)
    exec(compile(textwrap.dedent(src), filename, "exec"), ns)
    return ns


def run_py(args, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable] + args, env=e, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_exec_raises_the_compile_event():
    """What the store rests on: exec(str), eval(str) and compile(str) raise
    the `compile` audit event with the text (as bytes or str) and the file
    name.  Checked in a child: an audit hook cannot be removed."""
    prog = textwrap.dedent("""\
        import sys
        seen = []
        def hook(event, args):
            if event == "compile" and isinstance(args[0], (bytes, str)):
                t = args[0].decode() if isinstance(args[0], bytes) else args[0]
                seen.append((t, args[1]))
        sys.addaudithook(hook)
        exec("a = 1 + 2")
        eval("3 * 4")
        compile("def f(): pass", "<made>", "exec")
        want = [("a = 1 + 2", "<string>"), ("3 * 4", "<string>"), ("def f(): pass", "<made>")]
        assert all(w in seen for w in want), seen
        print("events ok")
        """)
    r = run_py(["-c", prog])
    assert r.returncode == 0 and "events ok" in r.stdout, r.stderr


def test_exec_built_kernel_compiles():
    ns = exec_text("""
        @cuda.jit
        def scale(x, a):
            i = cuda.grid(1)
            if i < x.size:
                x[i] = x[i] * a
        """)
    src = ns["scale"].inspect_cuda("(float32[::1], float32)")
    assert "__global__" in src
    assert '"<string>"' in src            # the #line marks name the text's file


def test_compile_filename_is_kept():
    ns = exec_text("""
        @jit.rawkernel()
        def k(x):
            x[0] = 7
        """, filename="<generated kernels>")
    assert "<generated kernels>" in ns["k"].inspect_cuda("(int32[:],)")


def test_error_caret_points_into_the_text():
    ns = exec_text("""
        @cuda.jit
        def bad(x):
            i = cuda.grid(1)
            x[i] = missing_name + 1
        """)
    with pytest.raises(cujit.CompileError) as ei:
        ns["bad"].inspect_cuda("(float32[::1],)")
    e = ei.value
    assert e.filename == "<string>"
    assert e.lineno == 5                  # the dedented text starts with a blank line
    assert e.text.strip() == "x[i] = missing_name + 1"
    assert e.text[e.offset - 1:].startswith("missing_name")


def test_error_in_a_device_function_of_another_text():
    """Two texts under one name ('<string>'): the error's line comes from the
    text of the function it is in, not from the kernel's."""
    dev = exec_text("""
        @cuda.jit(device=True)
        def dev(a):
            return a.no_such_attribute
        """)["dev"]
    ns = exec_text("""


        @cuda.jit
        def k(x):
            x[0] = dev(x[0])
        """, dev=dev)
    with pytest.raises(cujit.CompileError) as ei:
        ns["k"].inspect_cuda("(float32[::1],)")
    assert ei.value.lineno == 4
    assert ei.value.text.strip() == "return a.no_such_attribute"


def test_same_name_same_line_different_bodies():
    """numba's _make_ufunc_usecase: one name, one line, many texts: each
    function gets its own text (the code objects differ), never a guess."""
    made = {}
    for fn in ("sin", "cos", "exp"):
        made[fn] = exec_text(f"def fn(x):\n    x[0] = math.{fn}(x[1])\n",
                             math=__import__("math"))["fn"]
    for fn, f in made.items():
        src = cuda.jit(f).inspect_cuda("(float64[::1],)")
        others = {"sin", "cos", "exp"} - {fn}
        assert f"{fn}(" in src and not any(f"{o}(" in src for o in others), (fn, src)


def test_function_defined_inside_and_lambda():
    ns = exec_text("""
        twice = lambda v: v * 2
        @cuda.jit
        def k(x):
            def plus_one(z):
                return z + 1
            i = cuda.grid(1)
            if i < x.size:
                x[i] = plus_one(twice_dev(x[i]))
        """)
    ns["twice_dev"] = cuda.jit(device=True)(ns["twice"])
    assert "__global__" in ns["k"].inspect_cuda("(float32[::1],)")


def test_future_flags_of_the_text():
    """A text compiled with `from __future__ import annotations`: the function's
    flags say how its text was compiled, and the store compiles it again so."""
    ns = {"cuda": cuda}
    flags = __future__.annotations.compiler_flag
    exec(compile("@cuda.jit\ndef k(x: 'ignored'):\n    x[0] = 3\n", "<ann>", "exec",
                 flags=flags, dont_inherit=True), ns)
    assert "__global__" in ns["k"].inspect_cuda("(int32[:],)")


def test_never_a_guess():
    """A function whose code matches no stored text (here its first line
    moved) is an error that says what to do."""
    f = exec_text("def moved(x):\n    x[0] = 1\n")["moved"]
    f.__code__ = f.__code__.replace(co_firstlineno=40)
    with pytest.raises(cujit.CompileError) as ei:
        jit.rawkernel()(f).inspect_cuda("(float32[:],)")
    msg = str(ei.value)
    assert "could not find the source of function 'moved'" in msg
    assert "Define the kernel in a file" in msg and "exec()" in msg


# The store is the process's: the tests that fill it run in a child, so that
# they evict nothing another test of this process exec'd.
BOUNDS = """\
import cujit
from cujit import jit

def made(text):
    ns = {}
    exec(compile(text, "<string>", "exec"), ns)
    return ns

def found(f):
    try:
        jit.rawkernel()(f).inspect_cuda("(float32[:],)")
        return True
    except cujit.CompileError as e:
        assert "Python keeps no text" in str(e), e
        return False

# by count: 1100 texts after it
f = made("def oldest(x):\\n    x[0] = 2\\n")["oldest"]
for i in range(1100):
    made(f"v{i} = {i}\\n")
assert not found(f)

# by bytes: 9 MiB through a store of 8
f = made("def before_big(x):\\n    x[0] = 3\\n")["before_big"]
big = "#" + "x" * (1 << 20) + "\\n"
for i in range(9):
    made(big + f"w = {i}\\n")
assert not found(f)

# a text compiled again moves to the newest place
text = "def again(x):\\n    x[0] = 4\\n"
f = made(text)["again"]
for i in range(900):
    made(f"u{i} = {i}\\n")
made(text)
for i in range(900):
    made(f"t{i} = {i}\\n")
assert found(f)
print("bounds ok")
"""


def test_the_store_is_bounded(tmp_path):
    r = run_py(["-c", BOUNDS], env={"CUJIT_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0 and "bounds ok" in r.stdout, r.stderr


def test_docstring_with_open_brackets_in_a_file():
    """The function's text is cut where its block ends; brackets inside a
    triple-quoted docstring do not count (numba's FileCheck docstrings)."""
    @cuda.jit
    def k(x):
        """
        CHECK: call void @"llvm.dbg.value"(metadata i1 %[[VAL_1]], metadata ![[VAL_4:
        CHECK: [[STORE5]] = !DILocation(
        """
        x[0] = 5

    def after():
        return 1

    assert "__global__" in k.inspect_cuda("(int32[:],)")
    assert after() == 1


def test_python_c_program_launches(fake_driver, tmp_path):  # noqa: F811
    """`python -c`: the program is sys.orig_argv's; the kernel compiles,
    loads and launches (on the fake driver, which runs nothing)."""
    nvrtc_or_skip()
    prog = textwrap.dedent("""\
        import numpy as np
        from cujit import cuda

        @cuda.jit
        def add_one(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] += 1

        x = cuda.to_device(np.zeros(64, dtype=np.float32))
        add_one[1, 64](x)
        cuda.synchronize()
        print("launched")
        """)
    env = {"CUJIT_CACHE_DIR": str(tmp_path), "CUJIT_LOG": "1",
           "LD_LIBRARY_PATH": fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")}
    r = run_py(["-c", prog], env=env)
    assert r.returncode == 0, r.stderr
    assert "launched" in r.stdout
    assert "add_one" in r.stderr              # CUJIT_LOG's line for the kernel


def test_python_c_program_error_has_a_caret(tmp_path):
    prog = ("from cujit import cuda\n"
            "@cuda.jit\n"
            "def k(x):\n"
            "    x[0] = nowhere\n"
            "k.inspect_cuda('(float32[:],)')\n")
    r = run_py(["-c", prog], env={"CUJIT_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 1
    assert 'File "<string>", line 4' in r.stderr
    assert "    x[0] = nowhere" in r.stderr and "^" in r.stderr
    assert "unknown name 'nowhere'" in r.stderr


def test_libdevice_template_kernels():
    """numba's test_libdevice.py: a kernel per libdevice function, built from
    a template by exec, typed by numba.cuda.libdevicefuncs' signatures (here
    cujit's, in cujit._libdevicefuncs), compiled to PTX."""
    nvrtc_or_skip()
    from cujit import _libdevicefuncs as ldf
    from cujit import _ntypes
    template = ("from cujit.cuda import libdevice\n\n"
                "def pyfunc(%(pyargs)s):\n"
                "    ret = libdevice.%(func)s(%(funcargs)s)\n"
                "    %(retvars)s = ret\n")
    for name in ("__nv_sin", "__nv_sincosf", "__nv_frexp", "__nv_remquof", "__nv_sad"):
        retty, args = ldf.functions[name]
        sig = ldf.create_signature(retty, args)
        funcargs = ", ".join("a%d" % i for i, a in enumerate(args) if not a.is_ptr)
        if isinstance(sig.return_type, _ntypes.BaseTuple):
            n = len(sig.return_type)
            pyargs = ", ".join("r%d" % i for i in range(n)) + ", " + funcargs
            retvars = ", ".join("r%d[0]" % i for i in range(n))
            rets = [t[::1] for t in sig.return_type]
        else:
            pyargs, retvars, rets = "r0, " + funcargs, "r0[0]", [sig.return_type[::1]]
        ns = {}
        exec(template % dict(func=name[5:], pyargs=pyargs, funcargs=funcargs,
                             retvars=retvars), ns)
        ptx, _ = cuda.compile_ptx(ns["pyfunc"], tuple(rets + list(sig.args)))
        assert "ld.param" in ptx and "st.global" in ptx, name


def test_store_can_be_turned_off(tmp_path):
    """CUJIT_SOURCE_STORE=0: no audit hook, and an exec-built kernel has no
    source (the error says what to do)."""
    prog = ("import cujit\n"
            "ns = {}\n"
            "exec('from cujit import jit\\n@jit.rawkernel()\\ndef k(x):\\n    x[0] = 1\\n', ns)\n"
            "ns['k'].inspect_cuda('(float32[:],)')\n")
    r = run_py(["-c", prog], env={"CUJIT_SOURCE_STORE": "0", "CUJIT_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 1
    assert "could not find the source of function 'k'" in r.stderr
