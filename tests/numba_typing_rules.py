"""Numba's types for operators in cuda.jit kernels, written from its rules, not
read from a compiler: numba-cuda's integer typing (an operator of two integers
computes in at least 64 bits, signed when either operand is; a shift keeps its
left operand's signedness), its casting table for an integer that meets a
float, and Python numbers typed int64 / float64.  tests/test_numba_typing_nogpu.py
compares cujit's cuda.jit with these; tests/gpu/test_numba_typing_peer.py
compares both with numba-cuda where it is installed."""

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]
INTS = DTYPES[:9]
FLOATS = DTYPES[9:]

BINOPS = {"add": "a + b", "sub": "a - b", "mul": "a * b", "floordiv": "a // b",
          "mod": "a % b", "truediv": "a / b", "pow": "a ** b", "and": "a & b",
          "or": "a | b", "xor": "a ^ b", "lshift": "a << b", "rshift": "a >> b"}
UNARY = {"neg": "-a", "pos": "+a", "inv": "~a", "lit_add": "a + 1", "lit_rsub": "1 - a",
         "lit_shl": "a << 2", "lit_and": "a & 255", "flit_mul": "a * 2.0", "int": "int(a)"}

# the float an integer meets a float as (Numba's casting rules: bool and int8
# fit float16 exactly, uint8 and int16 float32, the rest float64)
_FLOAT_OF_INT = {"bool": "float16", "int8": "float16", "uint8": "float32", "int16": "float32"}


def _wider_float(x, y):
    return x if FLOATS.index(x) >= FLOATS.index(y) else y


def _int_result(op, a, b):
    if op in ("and", "or", "xor") and a == b == "bool":
        return "bool"
    if op == "truediv":
        return "float64"
    if op in ("lshift", "rshift"):
        return "uint64" if a.startswith("uint") else "int64"
    return "uint64" if a.startswith("uint") and b.startswith("uint") else "int64"


def binop(op, a, b):
    """the result type of `a op b`, or None where Numba refuses it (bit
    operators of floats)"""
    if a in INTS and b in INTS:
        return _int_result(op, a, b)
    if op in ("and", "or", "xor", "lshift", "rshift"):
        return None
    if a in FLOATS and b in INTS and op == "pow":
        f = a                                   # a float ** an integer keeps the float
    elif a in FLOATS and b in FLOATS:
        f = _wider_float(a, b)
    else:
        fl, it = (a, b) if a in FLOATS else (b, a)
        f = _wider_float(fl, _FLOAT_OF_INT.get(it, "float64"))
    if f == "float16" and op in ("floordiv", "mod", "pow"):
        f = "float32"
    return f


def unary(op, a):
    """the result type of UNARY[op] with `a` of dtype a; None where refused"""
    wide = "uint64" if a.startswith("uint") else "int64"
    if op in ("neg", "pos"):
        return wide if a in INTS else a
    if op == "inv":
        return ("bool" if a == "bool" else wide) if a in INTS else None
    if op in ("lit_add", "lit_rsub"):           # the literal is an int64
        return "int64" if a in INTS else "float64"
    if op == "lit_shl":
        return wide if a in INTS else None
    if op == "lit_and":
        return "int64" if a in INTS else None
    if op == "flit_mul":
        return "float64"
    if op == "int":
        return "int64" if a in ("bool",) or a in FLOATS else a
    raise KeyError(op)


def function(expr, nargs):
    """a device function returning expr of its parameters a (and b)"""
    ns = {}
    exec("def f(%s):\n    return %s\n" % ("a, b" if nargs == 2 else "a", expr), ns)
    return ns["f"]
