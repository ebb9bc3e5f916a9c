"""gen.py - the fuzzer's kernels and arguments.

A unit is one kernel (with the device functions it calls) as Python source,
how to wrap it (device / boundscheck flags), the globals it runs in and the
arguments inspect_cuda gets.  make_unit(seed, idx) is deterministic in its
two numbers, so a unit that crashed a worker is made again by the driver.

Two kinds of unit:
  grown    -- kernels grown from the grammar of the kernel language (every
              statement and expression form, builtins with right and wrong
              arity, literals at the limits of every dtype, deep nesting,
              statements the language does not support);
  mutated  -- the kernels of tests/kernels, tests/golden, tests/errors and
              examples/, parsed with ast and mutated (operators, names,
              literals, arity, attributes, statements, nesting), with their
              own example arguments or random ones.
Arguments: arrays of every dtype with 0-4 dimensions, C / F / strided views,
NumPy and Python scalars in and out of range, None, strings, objects, lists,
and signature strings (some of them mangled)."""
import ast
import glob
import importlib.util
import os
import random

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the share of units written in the cuda.jit spelling (typed by Numba's rules)
NUMBA_SHARE = 1 / 3
# of those, the share grown by Typed (kernels meant to type; the rest grown or
# mutated as the other units, with their share of nonsense)
TYPED_SHARE = 0.5
# of the rest, the share mutated from the project's Numba-spelled kernels
# (tests/unseen/numba_*.py, tests/negidx_cases.py: gen.NUMBA_CORPORA)
CORPUS_SHARE = 0.6
# cuda.jit's options, one picked per unit
NUMBA_OPTIONS = [{}, {}, {}, {"fastmath": True}, {"boundscheck": True},
                 {"debug": True, "opt": False}, {"lineinfo": True}]

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

INT_LIMITS = [0, 1, -1, 2, 7, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, 65535,
              65536, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 2**53 + 1,
              2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 10**30, -10**30]
FLOAT_LIMITS = ["0.0", "-0.0", "1.0", "0.5", "1e308", "1.7976931348623157e308", "5e-324",
                "1e-45", "3.4028235e38", "3.5e38", "65504.0", "65520.0", "1e999", "-1e999",
                "6.1e-5", "2.0**0.5"]
COMPLEX_LIMITS = ["1j", "-1j", "1e308j", "(1+2j)", "(0.5-1e999j)"]

# the builtins, with the arities the language takes (the fuzzer also tries others)
JIT_CALLS = {
    "grid": [1, 2, 3], "gridsize": [1, 2, 3], "laneid": [0], "syncthreads": [0],
    "syncwarp": [0, 1], "threadfence": [0], "threadfence_block": [0],
    "threadfence_system": [0], "atomic_add": [3], "atomic_sub": [3], "atomic_max": [3],
    "atomic_min": [3], "atomic_exch": [3], "atomic_and": [3], "atomic_or": [3],
    "atomic_xor": [3], "atomic_inc": [3], "atomic_dec": [3], "atomic_cas": [4],
    "shfl_sync": [3, 4], "shfl_up_sync": [3, 4], "shfl_down_sync": [3, 4],
    "shfl_xor_sync": [3, 4], "all_sync": [2], "any_sync": [2], "ballot_sync": [2],
    "activemask": [0], "popc": [1], "clz": [1], "ffs": [1], "brev": [1],
    "shared_memory": [2], "local_memory": [2],
}
MATH_CALLS = {n: [1] for n in ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin",
                               "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                               "asinh", "acosh", "atanh", "floor", "ceil", "trunc", "fabs",
                               "erf", "erfc", "gamma", "lgamma", "isnan", "isinf",
                               "isfinite"]}
MATH_CALLS.update({"pow": [2], "atan2": [2], "hypot": [2], "fmod": [2], "copysign": [2],
                   "log": [1, 2]})
PY_CALLS = {"abs": [1], "min": [2, 3], "max": [2, 3], "round": [1, 2], "int": [1],
            "float": [1], "bool": [1], "complex": [1, 2], "len": [1], "range": [1, 2, 3],
            "print": [1, 2]}
# the cuda.jit spelling (cujit.cuda, Numba's names): its calls with their arities
CUDA_CALLS = {
    "grid": [1, 2, 3], "gridsize": [1, 2, 3], "syncthreads": [0], "syncwarp": [0, 1],
    "syncthreads_count": [1], "syncthreads_and": [1], "syncthreads_or": [1],
    "threadfence": [0], "threadfence_block": [0], "threadfence_system": [0],
    "atomic.add": [3], "atomic.sub": [3], "atomic.max": [3], "atomic.min": [3],
    "atomic.exch": [3], "atomic.and_": [3], "atomic.or_": [3], "atomic.xor": [3],
    "atomic.inc": [3], "atomic.dec": [3], "atomic.cas": [4], "atomic.compare_and_swap": [3],
    "atomic.nanmax": [3], "atomic.nanmin": [3],
    "shfl_sync": [3], "shfl_up_sync": [3], "shfl_down_sync": [3], "shfl_xor_sync": [3],
    "all_sync": [2], "any_sync": [2], "eq_sync": [2], "ballot_sync": [2], "activemask": [0],
    "popc": [1], "clz": [1], "ffs": [1], "brev": [1], "fma": [3], "cbrt": [1], "selp": [3],
    "local.array": [2], "shared.array": [2],
}
# NumPy's scalar types as casts (np.float32(x)) and as dtypes of local / shared arrays
NP_TYPES = ["bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
            "float16", "float32", "float64", "complex64", "complex128"]
THREAD_ATTRS = ["threadIdx", "blockIdx", "blockDim", "gridDim"]
ARRAY_ATTRS = ["size", "shape", "ndim", "strides", "real", "imag", "dtype", "T", "nbytes"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"]
CMPOPS = ["<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"]
AUGOPS = ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^="]

# statements and expressions outside the language (each must be refused cleanly)
UNSUPPORTED_STMTS = [
    "with open('x') as f:\n    pass", "try:\n    pass\nexcept Exception:\n    pass",
    "del {n}", "global G", "import os", "from math import sqrt", "class C:\n    pass",
    "raise ValueError('x')", "{n} = lambda q: q", "{n} = [q for q in range(3)]",
    "{n} = {{1: 2}}", "{n} = {{1, 2}}", "{n} = f'{{{n}}}'", "{n} = [1, 2]", "{n}: int = 1",
    "x: int", "def inner():\n    pass", "for q in [1, 2]:\n    pass", "assert {n}, 'msg'",
    "assert {n}, {n}", "{n} = (yield)", "{n} = *{n},", "{n} = ...", "{n} = b'x'",
    "if ({n} := 3):\n    pass", "for q in range(3):\n    pass\nelse:\n    pass",
    "while False:\n    pass\nelse:\n    pass", "{n}.attr = 1", "{n}[::2] = 1",
    "{n} = not_defined_anywhere", "{n} = np.zeros(3)", "{n} = math.pi", "{n} = np.float32",
    "{n} = jit", "{n} = jit.grid", "print({n}, sep='', end='')", "print({n}, file=None)",
    "{n} = {n} if {n} else {n}", "{n} = ({n}, {n})[5]", "{n} = ()", "{n} = ((),)",
    "{n}, {n} = {n}", "{n} = np.float32({n})", "{n} = np.int8(300)", "{n} = np.uint64(-1)",
    "{n} = np.complex64({n})", "{n} = np.bool_(1)", "{n} = int('3')",
]


def _rng(seed, idx):
    return random.Random((seed * 1000003) ^ (idx * 7919) ^ 0x5EED)


# ---- literals ----

def literal(r):
    k = r.random()
    if k < 0.45:
        v = r.choice(INT_LIMITS)
        return str(v) if v >= 0 else "(%d)" % v
    if k < 0.7:
        return r.choice(FLOAT_LIMITS)
    if k < 0.75:
        return r.choice(COMPLEX_LIMITS)
    if k < 0.82:
        return r.choice(["True", "False", "None"])
    if k < 0.95:
        dt = r.choice(DTYPES)
        v = r.choice(INT_LIMITS[:16] + [1.5, -2.5])
        return "np.%s(%r)" % (dt if dt != "bool" else "bool_", v)
    return r.choice(["'s'", "math.pi", "math.inf", "math.nan", "math.e", "np.float32",
                     "np.int64", "float('nan')", "float('inf')"])


# ---- kernels grown from the grammar ----

class Grower:
    """Grows a kernel: params, locals and loop depth tracked so most of what
    it writes is meaningful, with a share of deliberate nonsense.  numba:
    the cuda.jit spelling (cuda.* builtins, Numba's forms: casts, indices
    negative at run time, names rebound with other types)."""

    def __init__(self, r, name, nparams, device=False, numba=False):
        self.r = r
        self.numba = numba
        self.ns = "cuda" if numba else "jit"
        self.name = name
        self.params = ["p%d" % k for k in range(nparams)]
        self.arrays = [p for p in self.params if r.random() < 0.7]
        self.locals = []
        self.loops = 0
        self.device = device
        self.devfns = []            # (name, arity) of device functions it may call
        self.budget = r.randint(3, 30)
        self.index = "i" if not device else (self.params[0] if self.params else "0")
        self.rank = 1               # the number of components of self.index
        self.loopvars = []          # the loop variables in scope (numba's indices)

    def name_(self):
        """a scalar: a scalar parameter, a local, i, an element; rarely anything"""
        r = self.r
        k = r.random()
        if k < 0.015:
            return r.choice(["undefined_name", "np", "math", self.ns, "cujit", "len", "G"]
                            + self.params)
        if k < 0.45 and self.arrays:
            return "%s[%s]" % (r.choice(self.arrays), self.index)
        pool = [p for p in self.params if p not in self.arrays] + self.locals
        if not self.device:
            pool.append("i")
        return r.choice(pool) if pool else literal(r)

    def array(self):
        r = self.r
        if self.arrays and r.random() < 0.9:
            return r.choice(self.arrays)
        return self.name_()

    def index_(self, d):
        r = self.r
        if self.numba and not self.device and r.random() < 0.3:
            return self.nb_index()
        k = r.random()
        if k < 0.6 or self.device:
            return self.index
        if k < 0.65:
            return ", ".join(self.expr(d + 1) for _ in range(r.randint(1, 4)))
        if k < 0.8:
            return "%s %s %s" % (self.index, r.choice("+-*%"), self.expr(d + 1))
        if k < 0.85:
            return r.choice([":", "::2", "1:", "...", "None", "0.5", "-1", "()", "i, ..."])
        return self.expr(d + 1)

    def call(self, d):
        r = self.r
        k = r.random()
        if k < 0.3 and self.numba:
            return self.nb_call(d)
        if k < 0.3:
            fam, table = "jit.", JIT_CALLS
        elif k < 0.6:
            fam, table = "math.", MATH_CALLS
        elif k < 0.85:
            fam, table = "", PY_CALLS
        elif self.devfns:
            fname, arity = r.choice(self.devfns)
            n = arity if r.random() < 0.85 else r.randint(0, arity + 2)
            return "%s(%s)" % (fname, ", ".join(self.expr(d + 1) for _ in range(n)))
        else:
            fam, table = "", PY_CALLS
        fname = r.choice(sorted(table))
        n = r.choice(table[fname]) if r.random() < 0.85 else r.randint(0, 5)
        args = [self.expr(d + 1) for _ in range(n)]
        if fname.startswith("atomic") and args:
            args[0] = self.array()
        if fname in ("shared_memory", "local_memory") and n == 2:
            args = [r.choice(["np.float32", "np.int32", "np.float64", "np.complex64",
                              "np.bool_", "np.int8", "3", "'f4'"]),
                    r.choice(["32", "(4, 4)", "0", "-1", "2**40", "n", "(2, 0)", "1.5"])]
        if r.random() < 0.05:
            args.append(r.choice(["axis=0", "sep=''", "end=''", "foo=1"]))
        return "%s%s(%s)" % (fam, fname, ", ".join(args))

    def expr(self, d=0):
        r = self.r
        if d > 4 or r.random() < 0.25:
            k = r.random()
            if k < 0.65:
                return self.name_()
            return literal(r) if k < 0.8 else r.choice(["0", "1", "2", "3", "0.5", "2.0"])
        k = r.random()
        if k < 0.25:
            return "(%s %s %s)" % (self.expr(d + 1), r.choice(BINOPS[:12] if r.random() < .98
                                                               else BINOPS), self.expr(d + 1))
        if k < 0.32:
            return "(%s%s)" % (r.choice(["-", "+", "~", "not "]), self.expr(d + 1))
        if k < 0.42:
            n = r.randint(1, 3)
            parts = [self.expr(d + 1)]
            for _ in range(n):
                parts += [r.choice(CMPOPS[:6] if r.random() < .95 else CMPOPS),
                          self.expr(d + 1)]
            return "(%s)" % " ".join(parts)
        if k < 0.47:
            return "(%s %s %s)" % (self.expr(d + 1), r.choice(["and", "or"]), self.expr(d + 1))
        if k < 0.5:
            return "(%s if %s else %s)" % (self.expr(d + 1), self.expr(d + 1), self.expr(d + 1))
        if k < 0.68:
            return "%s[%s]" % (self.array(), self.index_(d))
        if k < 0.76:
            a = r.choice(ARRAY_ATTRS[:5] if r.random() < 0.95 else ARRAY_ATTRS)
            s = "(%s).%s" % (self.array(), a)
            if a in ("shape", "strides") and r.random() < 0.8:
                s += "[%s]" % r.choice(["0", "1", "2", "-1", "5", "i"])
            return s
        if k < 0.8:
            if self.numba and r.random() < 0.5:
                return self.nb_expr(d)
            return "%s.%s.%s" % (self.ns, r.choice(THREAD_ATTRS), r.choice("xyzxyzw"))
        if k < 0.83:
            return "(%s,)" % ", ".join(self.expr(d + 1) for _ in range(r.randint(1, 3)))
        if k < 0.85:
            # deep nesting: a long chain of unary operators or calls
            depth = r.choice([10, 50, 200, 900])
            return r.choice(["-", "+", "~"]) * depth + self.name_()
        return self.call(d)

    # ---- the cuda.jit spelling's own forms (numba=True) ----

    def nb_index(self):
        """an index that may be negative at run time, as Numba users write
        them (a[i - 1], a[i - n], a[-1], a[2 - i], a[k - 1]), one per
        component of the kernel's index"""
        r = self.r
        out = []
        for c in self.index.split(", "):
            k = r.random()
            if k < 0.1 and self.loopvars:
                c = r.choice(self.loopvars)
            k = r.random()
            if k < 0.45:
                out.append("%s - %d" % (c, r.randint(1, 3)))
            elif k < 0.55 and self.arrays:
                out.append("%s - %s.shape[0]" % (c, r.choice(self.arrays)))
            elif k < 0.65:
                out.append("-%d" % r.randint(1, 3))
            elif k < 0.75:
                out.append("%d - %s" % (r.randint(0, 3), c))
            elif k < 0.82:
                out.append("%s + %d" % (c, r.randint(1, 3)))
            elif k < 0.88:
                out.append("(%s - 1) %% %s" % (c, r.choice(["4", "7", "3"])))
            elif k < 0.94:
                out.append("%s - %s" % (c, self.name_()))
            else:
                out.append(c)
        return ", ".join(out)

    def nb_call(self, d):
        """a call of cuda.* (Numba's names), right arities mostly"""
        r = self.r
        name = r.choice(sorted(CUDA_CALLS))
        n = r.choice(CUDA_CALLS[name]) if r.random() < 0.9 else r.randint(0, 4)
        args = [self.expr(d + 1) for _ in range(n)]
        if name.startswith("atomic.") and n >= 1:
            args[0] = self.array()
            if n >= 2 and name != "atomic.compare_and_swap" and r.random() < 0.8:
                idx = self.index_(d + 1)
                args[1] = "(%s)" % idx if "," in idx and r.random() < 0.5 else idx
        if name.endswith("_sync") and n >= 1 and r.random() < 0.8:
            args[0] = r.choice(["0xffffffff", "cuda.activemask()", "0xFFFF", "-1"])
        if name in ("local.array", "shared.array") and n == 2:
            args = [self.nb_shape(), self.nb_dtype()]
            if r.random() < 0.3:
                args = ["shape=" + args[0], "dtype=" + args[1]]
        return "cuda.%s(%s)" % (name, ", ".join(args))

    def nb_shape(self):
        r = self.r
        if r.random() < 0.9:
            return r.choice(["4", "32", "(4, 4)", "(2, 3)", "1", "(8,)"])
        return r.choice(["0", "-1", "2**40", "i", "(2, 0)", "1.5", "()"])

    def nb_dtype(self):
        r = self.r
        k = r.random()
        if k < 0.8:
            return "np." + r.choice(NP_TYPES)
        if k < 0.9:
            return r.choice(["np.float32", "np.int32", "np.float64", "np.int64"]) + "[:]"
        return r.choice(["'float32'", "float", "int", "np.dtype('f4')", "3", "None"])

    def nb_cast(self, d):
        return "np.%s(%s)" % (self.r.choice(NP_TYPES), self.expr(d + 1))

    def nb_expr(self, d):
        """Numba's idioms: casts, Python numbers meeting narrow values,
        max / min of floats, int() / float(), booleans counted"""
        r = self.r
        k = r.random()
        if k < 0.25:
            return self.nb_cast(d)
        if k < 0.45:
            return "(%s %s %s)" % (self.name_(), r.choice(["+", "-", "*", "/", "//", "%", "**",
                                                          "<<", ">>", "&", "|", "^"]),
                                   r.choice(["1", "2", "3", "0.5", "1.5", "2.0", "-1", "255",
                                             "2**31", "2**40", "2**63 - 1", "True", "1e-3"]))
        if k < 0.6:
            return "%s(%s, %s)" % (r.choice(["max", "min"]), self.expr(d + 1),
                                   r.choice(["0.0", "1.0", "-1.5", "np.float32(0)", "0",
                                             self.name_(), "math.nan", "math.inf"]))
        if k < 0.72:
            return "%s(%s)" % (r.choice(["int", "float", "abs", "round", "bool"]),
                               self.expr(d + 1))
        if k < 0.8:
            return "((%s > 0) + (%s < 0))" % (self.name_(), self.name_())
        if k < 0.88:
            return r.choice(["cuda.laneid", "cuda.warpsize", "cuda.gridsize(1)",
                             "cuda.blockDim.x * cuda.gridDim.x", "cuda.threadIdx.x - 1"])
        if k < 0.94 and self.arrays:
            return "%s[%s]" % (r.choice(self.arrays), self.nb_index())
        return "math.%s(%s)" % (r.choice(sorted(MATH_CALLS)), self.expr(d + 1))

    def local(self):
        v = "v%d" % self.r.randint(0, 5)
        if v not in self.locals:
            self.locals.append(v)
        return v

    def elem(self):
        """an element to store into: an array at an index that may be negative"""
        r = self.r
        if not self.arrays:
            return self.local()
        return "%s[%s]" % (r.choice(self.arrays), self.nb_index() if r.random() < 0.5
                           else self.index_(2))

    def nb_stmt(self, ind, d):
        """Numba's statement idioms: a name rebound by a loop or an if after
        it was read (another type each time), accumulators started from a
        Python number, stores of wider values into narrow arrays"""
        r = self.r
        pad = "    " * ind
        k = r.random()
        if k < 0.2:
            # a loop that rebinds a name read before it, changing its type
            v, kv = self.local(), "k%d" % d
            init = r.choice(["0", "0.0", "np.int32(0)", "np.float32(0)", "False", "np.uint8(1)",
                             "1j", self.expr(2)])
            out = [pad + "%s = %s" % (v, init),
                   pad + "for %s in range(%s):" % (kv, r.choice(["4", "3", "%s.size" % self.array(),
                                                          self.expr(3)]))]
            self.loopvars.append(kv)
            self.locals.append(kv)
            upd = r.choice(["%s += %s", "%s = %s * 0.5 + %s" % ("%s", v, "%s"),
                            "%s -= %s", "%s = max(%s, %s)" % ("%s", v, "%s"),
                            "%s = %s // 2 + %s" % ("%s", v, "%s")])
            self.loops += 1
            out.append(pad + "    " + upd % (v, self.expr(2)))
            if r.random() < 0.5:
                out += self.block(ind + 1, d + 1)
            self.loops -= 1
            self.loopvars.pop()
            out.append(pad + "%s = %s" % (self.elem(), v))
            return out
        if k < 0.4:
            # an if that rebinds a name read before it
            v = self.local()
            out = [pad + "%s = %s" % (v, self.expr(2)),
                   pad + "if %s:" % self.expr(2),
                   pad + "    %s = %s %s %s" % (v, v, r.choice(["+", "*", "-", "/", "//"]),
                                                r.choice(["1", "1.5", "np.float32(2)",
                                                          self.expr(3)]))]
            if r.random() < 0.4:
                out += [pad + "else:", pad + "    %s = %s" % (v, self.expr(2))]
            out.append(pad + "%s = %s" % (self.elem(), v))
            return out
        if k < 0.5:
            # a while loop rebinding a name read before it
            v, w = self.local(), "w%d" % d
            self.locals.append(w)
            return [pad + "%s = %s" % (v, self.expr(2)),
                    pad + "%s = 0" % w,
                    pad + "while %s < %d:" % (w, r.randint(1, 4)),
                    pad + "    %s = %s * 2 + %s" % (v, v, r.choice(["1", "0.5", "True"])),
                    pad + "    %s += 1" % w,
                    pad + "%s = %s" % (self.elem(), v)]
        if k < 0.65:
            # a store of a wider or Python value into an element
            return [pad + "%s %s %s" % (self.elem(), r.choice(["=", "=", "+=", "-=", "*=",
                                                                "//=", "|="]),
                                        self.nb_expr(2) if r.random() < 0.7 else
                                        self.expr(2))]
        if k < 0.72:
            # straight-line rebinding with another type
            v = self.local()
            return [pad + "%s = %s" % (v, self.expr(2)),
                    pad + "%s = %s" % (v, r.choice([self.nb_cast(2), "%s * 0.5" % v,
                                                    "%s + 1" % v, "float(%s)" % v,
                                                    "int(%s)" % v, "%s > 0" % v])),
                    pad + "%s = %s" % (self.elem(), v)]
        if k < 0.8:
            # a loop over an array's range with indices from the end
            kv = "k%d" % d
            self.locals.append(kv)
            self.loopvars.append(kv)
            a = self.array()
            out = [pad + "for %s in range(%s):" % (kv, r.choice(["%s.shape[0]" % a, "len(%s)" % a,
                                                                   "3", "-2, 2"])),
                   pad + "    %s = %s" % (self.elem(), "%s[%s - 1]" % (a, kv)
                                          if r.random() < 0.5 else self.expr(2))]
            self.loopvars.pop()
            return out
        if k < 0.85:
            # tuple swap of values of two types
            a, b = self.local(), self.local()
            return [pad + "%s, %s = %s, %s" % (a, b, self.expr(2), self.nb_expr(2)),
                    pad + "%s, %s = %s, %s" % (a, b, b, a)]
        if k < 0.92:
            return [pad + self.nb_call(2)]
        return [pad + "%s = %s" % (self.local(), self.nb_expr(1))]

    def prologue(self):
        """a cuda.jit kernel's shared and local arrays (numba=True), of the
        kernel's rank, joined to its arrays"""
        r = self.r
        if not self.numba:
            return []
        out = []
        for k in range(r.choice([0, 0, 1, 1, 2])):
            name = "%s%d" % (r.choice(["sh", "loc"]), k)
            kind = "shared" if name.startswith("sh") else "local"
            shape = r.choice(["32", "64", "4"]) if self.rank == 1 else r.choice(["(8, 8)",
                                                                                   "(4, 2)"])
            if r.random() < 0.1:
                shape = self.nb_shape()
            out.append("    %s = cuda.%s.array(%s, %s)" % (name, kind, shape, self.nb_dtype()))
            if r.random() < 0.5:
                out.append("    %s[%s] = %s" % (name, self.index if r.random() < 0.5
                                                else self.nb_index(), self.expr(2)))
            if kind == "shared" and r.random() < 0.5:
                out.append("    cuda.syncthreads()")
            self.arrays.append(name)
        return out

    def target(self):
        r = self.r
        k = r.random()
        if k < 0.45 and self.arrays:
            return "%s[%s]" % (self.array(), self.index_(2))
        if k < 0.93 or not self.locals:
            v = "v%d" % r.randint(0, 5)
            if v not in self.locals:
                self.locals.append(v)
            return v
        return r.choice(self.locals + ["i"])

    def stmt(self, ind, d):
        r = self.r
        self.budget -= 1
        pad = "    " * ind
        k = r.random()
        if d > 6 or self.budget <= 0:
            k = min(k, 0.3)
        if k < 0.22:
            value = self.expr()         # before the target: no use before assignment
            return [pad + "%s = %s" % (self.target(), value)]
        if k < 0.3:
            n = r.randint(2, 3)
            ts = [self.target() for _ in range(n)]
            if r.random() < 0.5:
                return [pad + "%s = %s" % (", ".join(ts), ", ".join(self.expr() for _ in ts))]
            return [pad + " = ".join(ts) + " = " + self.expr()]
        if k < 0.37:
            return [pad + "%s %s %s" % (self.target(), r.choice(AUGOPS), self.expr())]
        if k < 0.45:
            out = [pad + "if %s:" % self.expr()] + self.block(ind + 1, d + 1)
            while r.random() < 0.3:
                out += [pad + "elif %s:" % self.expr()] + self.block(ind + 1, d + 1)
            if r.random() < 0.4:
                out += [pad + "else:"] + self.block(ind + 1, d + 1)
            return out
        if k < 0.52:
            v = "k%d" % d
            self.locals.append(v)
            n = r.randint(1, 3)
            args = ", ".join(self.expr(3) if r.random() < 0.5 else str(r.randint(-3, 5))
                             for _ in range(n))
            self.loops += 1
            out = [pad + "for %s in range(%s):" % (v, args)] + self.block(ind + 1, d + 1)
            self.loops -= 1
            return out
        if k < 0.56:
            v = "w%d" % d
            self.locals.append(v)
            self.loops += 1
            out = ([pad + "%s = 0" % v, pad + "while %s < %s:" % (v, r.randint(0, 4)),
                    pad + "    %s += 1" % v] + self.block(ind + 1, d + 1))
            self.loops -= 1
            return out
        if k < 0.59 and self.loops:
            return [pad + r.choice(["break", "continue"])]
        if k < 0.65:
            return [pad + self.call(0)]
        if k < 0.68:
            if self.numba and r.random() < 0.7:
                return self.nb_stmt(ind, d)
            return [pad + "%s.syncthreads()" % self.ns]
        if k < 0.71:
            return [pad + "return" + ("" if r.random() < 0.6 else " " + self.expr())]
        if k < 0.74:
            return [pad + "assert %s" % self.expr() + (", 'm'" if r.random() < 0.5 else "")]
        if k < 0.77:
            return [pad + "print(%s)" % ", ".join(self.expr(2) for _ in range(r.randint(0, 3)))]
        if k < 0.8:
            return [pad + "pass"]
        if k < 0.86:
            s = r.choice(UNSUPPORTED_STMTS).format(n=self.name_())
            return [pad + line for line in s.split("\n")]
        if k < 0.89:
            # deep nesting of blocks
            out, depth = [], r.randint(3, 18)
            for j in range(depth):
                out.append("    " * (ind + j) + r.choice(["if %s:" % self.expr(3),
                                                          "while False:",
                                                          "for q%d in range(2):" % j]))
            out.append("    " * (ind + depth) + "%s = %s" % (self.target(), self.expr()))
            return out
        if self.numba and k < 0.95:
            return self.nb_stmt(ind, d)
        return [pad + "%s = %s" % (self.target(), self.expr())]

    def block(self, ind, d):
        out = []
        for _ in range(self.r.randint(1, 3)):
            out += self.stmt(ind, d)
        return out

    def kernel(self):
        r = self.r
        head = ["def %s(%s):" % (self.name, ", ".join(self.params))]
        if self.device:
            body = self.block(1, 1)
            body.append("    return %s" % self.expr() if r.random() < 0.8 else "    return")
            return head + body
        shape = r.random()
        if shape < 0.45 and self.arrays:
            # the elementwise shape, which also gets a coarsened entry
            a = r.choice(self.arrays)
            cond = r.choice(["i < %s.size" % a, "i < %s.shape[0]" % a, "i < len(%s)" % a,
                             "i < %s.size and i < %s" % (a, self.expr(3)), "i < 100",
                             "%s" % self.expr(2)])
            body = ["    i = %s.grid(1)" % self.ns] + self.prologue() + ["    if %s:" % cond]
            for _ in range(r.randint(1, 4)):
                k = r.random()
                if k < 0.5 and self.arrays:
                    ts = [r.choice(self.arrays) + "[i]" for _ in range(r.randint(1, 3))]
                    sep = " = " if r.random() < 0.3 else ", "
                    if sep == ", ":
                        body.append("        %s = %s" % (", ".join(ts),
                                                         ", ".join(self.expr(2) for _ in ts)))
                    else:
                        body.append("        %s = %s" % (sep.join(ts), self.expr(2)))
                elif k < 0.65 and self.arrays:
                    body.append("        %s[i] %s %s" % (r.choice(self.arrays),
                                                         r.choice(AUGOPS), self.expr(2)))
                else:
                    body += self.stmt(2, 2)
            return head + body
        ns = self.ns
        if shape < 0.6:
            self.index, self.rank = "i, j", 2
            body = ["    i, j = %s.grid(2)" % ns]
        elif shape < 0.7:
            body = ["    i = %s.threadIdx.x + %s.blockIdx.x * %s.blockDim.x" % (ns, ns, ns)]
        else:
            body = ["    i = %s.grid(1)" % ns]
        self.locals.append("i")
        return head + body + self.prologue() + self.block(1, 1)


def grown_unit(r, uname, numba=False):
    """-> (functions, parameter kinds, the kernel's index rank)"""
    devs = []
    lines = []
    for k in range(r.choice([0, 0, 0, 1, 2])):
        g = Grower(r, "%s_d%d" % (uname, k), r.randint(0, 3), device=True, numba=numba)
        for fname, arity in devs:
            g.devfns.append((fname, arity))
        src = g.kernel()
        devs.append((g.name, len(g.params)))
        lines.append(("device", g.name, src))
    g = Grower(r, uname, r.randint(0, 5), numba=numba)
    g.devfns = list(devs)
    lines.append(("kernel", uname, g.kernel()))
    kinds = [("array" if p in g.arrays else "scalar") for p in g.params]
    return lines, kinds, g.rank


# ---- cuda.jit kernels grown to type (most of them reach codegen and NVRTC) ----

KIND_OF = {"bool": "b", "int8": "i", "uint8": "u", "int16": "i", "uint16": "u", "int32": "i",
           "uint32": "u", "int64": "i", "uint64": "u", "float16": "f", "float32": "f",
           "float64": "f", "complex64": "c", "complex128": "c"}
# atomics and the array dtypes they take (cujit's and Numba's)
ATOMICS = {"add": "int32 uint32 int64 uint64 float32 float64",
           "sub": "int32 uint32 int64 uint64 float32 float64",
           "max": "int32 uint32 int64 uint64 float32 float64",
           "min": "int32 uint32 int64 uint64 float32 float64",
           "exch": "int32 uint32 int64 uint64 float32 float64",
           "and_": "int32 uint32 int64 uint64", "or_": "int32 uint32 int64 uint64",
           "xor": "int32 uint32 int64 uint64", "inc": "uint32 uint64", "dec": "uint32 uint64",
           "nanmax": "int32 uint32 int64 uint64 float32 float64",
           "nanmin": "int32 uint32 int64 uint64 float32 float64"}
FLOAT_MATH = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
              "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
              "floor", "ceil", "trunc", "fabs", "erf", "erfc", "gamma", "lgamma"]


class Typed:
    """Grows a cuda.jit kernel whose every expression has a kind it tracks
    (b bool, i / u integers, f floats, c complex) and whose arrays have
    dtypes it picks, so that most of what it writes types: Numba's forms
    (Python numbers meeting narrow values, casts, int() / float(), max / min
    of floats, math.*, atomics, shared and local arrays), indices that may
    be negative at run time, names rebound by loops and ifs with another
    kind, device functions of scalars."""

    def __init__(self, r, name):
        self.r = r
        self.name = name
        self.rank = r.choice([1, 1, 1, 2])
        self.idx = ["i", "j"][:self.rank]
        self.arrays = {}            # name -> dtype
        self.scalars = {}           # name -> kind (parameters)
        self.locals = {}            # name -> kind
        self.loopvars = []
        self.devfns = []            # (name, arity, kind)
        self.budget = r.randint(4, 24)
        self.params = []

    # -- leaves --

    def literal(self, kind):
        r = self.r
        if kind == "b":
            return r.choice(["True", "False"])
        if kind in "iu":
            v = r.choice([0, 1, 2, 3, 7, 255, 256, -1, -128, 2**31, 2**40, 2**63 - 1, 10])
            if r.random() < 0.2:
                t = r.choice(NP_TYPES[1:9])
                return "np.%s(%d)" % (t, abs(v) % 100)
            return str(v) if v >= 0 else "(%d)" % v
        if kind == "f":
            if r.random() < 0.2:
                return "np.%s(%s)" % (r.choice(["float16", "float32", "float64"]),
                                      r.choice(["0.5", "2", "-1.25", "1e-3"]))
            return r.choice(["0.5", "1.0", "2.0", "-1.5", "0.0", "1e-3", "3.25", "1e30",
                             "math.pi", "math.inf"])
        return r.choice(["1j", "(1+2j)", "(0.5-1j)", "np.complex64(1j)", "complex(1, 2)"])

    def elem(self, kinds=None):
        """an element of an array of one of these kinds, or None"""
        r = self.r
        names = [a for a, dt in self.arrays.items() if kinds is None or KIND_OF[dt] in kinds]
        if not names:
            return None
        return "%s[%s]" % (r.choice(names), self.index())

    def leaf(self, kind):
        r = self.r
        pool = [v for v, k in list(self.locals.items()) + list(self.scalars.items())
                if k == kind or (kind == "i" and k == "u")]
        if kind in "iu":
            pool += self.idx + self.loopvars
        k = r.random()
        if k < 0.4:
            e = self.elem(kind if kind != "i" else "iu")
            if e:
                return e
        if k < 0.75 and pool:
            return r.choice(pool)
        if kind in "iu" and k < 0.85 and self.arrays:
            a = r.choice(sorted(self.arrays))
            return r.choice(["%s.shape[0]" % a, "%s.size" % a, "len(%s)" % a,
                             "cuda.threadIdx.x", "cuda.blockDim.x", "cuda.laneid"])
        return self.literal(kind)

    def index(self):
        """one component per dimension: the thread's index, a loop's, or one
        that may be negative at run time (i - 1, -1, 2 - i, i - n)"""
        r = self.r
        out = []
        ints = [v for v, k in self.locals.items() if k == "i"]
        for c in self.idx:
            if self.loopvars and r.random() < 0.15:
                c = r.choice(self.loopvars)
            elif ints and r.random() < 0.1:
                c = r.choice(ints)
            k = r.random()
            if k < 0.05:
                out.append(r.choice(["np.uint32(%s)", "np.int8(%s) - 1", "(%s - 3) // 2",
                                     "int(%s * 0.5) - 1", "np.uint8(%s) - np.uint8(1)",
                                     "-%s - 1"]) % c)
            elif k < 0.55:
                out.append(c)
            elif k < 0.75:
                out.append("%s - %d" % (c, r.randint(1, 3)))
            elif k < 0.8:
                out.append("-%d" % r.randint(1, 2))
            elif k < 0.85:
                out.append("%d - %s" % (r.randint(0, 2), c))
            elif k < 0.9 and self.arrays:
                out.append("%s - %s.shape[0]" % (c, r.choice(sorted(self.arrays))))
            elif k < 0.95:
                out.append("%s + %d" % (c, r.randint(1, 2)))
            else:
                out.append("(%s - 1) %% %d" % (c, r.randint(2, 8)))
        return ", ".join(out)

    # -- expressions of a kind --

    def ex(self, kind, d=0):
        r = self.r
        if d > 3 or r.random() < 0.3:
            return self.leaf(kind)
        return getattr(self, "ex_" + ("i" if kind == "u" else kind))(d + 1)

    def num(self, d):
        return self.ex(self.r.choice("iiuffb"), d)

    def ex_b(self, d):
        r = self.r
        k = r.random()
        if k < 0.5:
            a = self.r.choice("iif")
            return "(%s %s %s)" % (self.ex(a, d), r.choice(["<", "<=", ">", ">=", "==", "!="]),
                                   self.ex(r.choice([a, "i", "f"]), d))
        if k < 0.6:
            return "(not %s)" % self.ex("b", d)
        if k < 0.75:
            return "(%s %s %s)" % (self.ex("b", d), r.choice(["and", "or", "&", "|", "^"]),
                                   self.ex("b", d))
        if k < 0.85:
            return "math.%s(%s)" % (r.choice(["isnan", "isinf", "isfinite"]), self.ex("f", d))
        if k < 0.92:
            return "bool(%s)" % self.num(d)
        return "(%s < %s < %s)" % (self.ex("i", d), self.ex("i", d), self.ex("i", d))

    def ex_i(self, d):
        r = self.r
        k = r.random()
        if k < 0.4:
            op = r.choice(["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "+", "-", "*"])
            return "(%s %s %s)" % (self.ex(r.choice("iiub"), d), op, self.ex(r.choice("iiub"), d))
        if k < 0.48:
            return "(%s%s)" % (r.choice(["-", "~", "+"]), self.ex(r.choice("iu"), d))
        if k < 0.58:
            return "int(%s)" % self.ex(r.choice("iifb"), d)
        if k < 0.66:
            return "np.%s(%s)" % (r.choice(NP_TYPES[1:9]), self.ex(r.choice("iifb"), d))
        if k < 0.72:
            return "%s(%s, %s)" % (r.choice(["min", "max"]), self.ex("i", d), self.ex("i", d))
        if k < 0.77:
            return "abs(%s)" % self.ex("i", d)
        if k < 0.82:
            return "round(%s)" % self.ex("f", d)
        if k < 0.87:
            return "cuda.%s(%s)" % (r.choice(["popc", "clz", "ffs", "brev"]), self.ex("i", d))
        if k < 0.92:
            return "(%s if %s else %s)" % (self.ex("i", d), self.ex("b", d), self.ex("i", d))
        if k < 0.96 and self.devfns:
            return self.devcall(d)
        return "((%s > 0) + (%s < 0))" % (self.ex("i", d), self.ex("f", d))

    def ex_f(self, d):
        r = self.r
        k = r.random()
        if k < 0.35:
            op = r.choice(["+", "-", "*", "/", "**", "//", "%", "+", "*"])
            a, b = r.choice(["ff", "fi", "if", "ii", "fb", "uf"])
            if op == "/" and r.random() < 0.3:
                a, b = "i", "i"
            return "(%s %s %s)" % (self.ex(a, d), op, self.ex(b, d))
        if k < 0.5:
            return "math.%s(%s)" % (r.choice(FLOAT_MATH), self.ex(r.choice("ffi"), d))
        if k < 0.55:
            return "math.%s(%s, %s)" % (r.choice(["pow", "atan2", "hypot", "fmod", "copysign"]),
                                        self.ex("f", d), self.ex(r.choice("fi"), d))
        if k < 0.63:
            return "np.%s(%s)" % (r.choice(["float16", "float32", "float32", "float64"]),
                                  self.ex(r.choice("fib"), d))
        if k < 0.68:
            return "float(%s)" % self.ex(r.choice("fib"), d)
        if k < 0.76:
            return "%s(%s, %s)" % (r.choice(["max", "min"]), self.ex("f", d),
                                   self.ex(r.choice("ffi"), d))
        if k < 0.8:
            return "abs(%s)" % self.ex(r.choice("fc"), d)
        if k < 0.84:
            return "cuda.%s" % r.choice(["fma(%s, %s, %s)" % (self.ex("f", d), self.ex("f", d),
                                                                self.ex("f", d)),
                                         "cbrt(%s)" % self.ex("f", d)])
        if k < 0.88:
            return "(%s if %s else %s)" % (self.ex("f", d), self.ex("b", d), self.ex("f", d))
        if k < 0.91:
            return "(%s).%s" % (self.ex("c", d), r.choice(["real", "imag"]))
        if k < 0.95 and self.devfns:
            return self.devcall(d)
        return "(-%s)" % self.ex("f", d)

    def ex_c(self, d):
        r = self.r
        k = r.random()
        if k < 0.5:
            return "(%s %s %s)" % (self.ex(r.choice("cf"), d), r.choice(["+", "-", "*", "/"]),
                                   self.ex(r.choice("cfi"), d))
        if k < 0.7:
            return "complex(%s, %s)" % (self.ex("f", d), self.ex("f", d))
        if k < 0.8:
            return "np.%s(%s)" % (r.choice(["complex64", "complex128"]), self.ex("fc"[k < .75], d))
        if k < 0.9:
            return "(%s).conjugate()" % self.ex("c", d)
        return "(-%s)" % self.ex("c", d)

    def devcall(self, d):
        name, arity, _, takes_array = self.r.choice(self.devfns)
        args = [self.num(d) for _ in range(arity)]
        if takes_array:
            names = [a for a, dt in sorted(self.arrays.items()) if KIND_OF[dt] != "c"]
            if not names:
                return self.literal("i")
            a = self.r.choice(names)
            args.insert(0, a if self.rank == 1 else "%s[%s]" % (a, self.idx[0]))
        return "%s(%s)" % (name, ", ".join(args))

    # -- statements --

    def store_kind(self, dtype):
        """the kind of a value stored into an element of dtype"""
        k = KIND_OF[dtype]
        if k == "c":
            return self.r.choice("cfi")
        return self.r.choice([k, k, "i", "f", "b"])

    def bind(self, kind):
        """a local (new, or rebound with this kind)"""
        v = "v%d" % self.r.randint(0, 5)
        old = self.locals.get(v)
        self.locals[v] = kind if old is None else max(old, kind, key="bifuc".index)
        return v

    def stmt(self, ind, d):
        r = self.r
        self.budget -= 1
        pad = "    " * ind
        k = r.random()
        if d > 4 or self.budget <= 0:
            k = min(k, 0.34)
        if k < 0.2 and self.arrays:
            a = r.choice(sorted(self.arrays))
            op = r.choice(["=", "=", "=", "+=", "-=", "*="])
            kind = self.store_kind(self.arrays[a])
            if op != "=" and KIND_OF[self.arrays[a]] == "b":
                op = "="
            return [pad + "%s[%s] %s %s" % (a, self.index(), op, self.ex(kind))]
        if k < 0.35:
            kind = r.choice("bifffc" if r.random() < 0.9 else "iu")
            value = self.ex(kind)
            return [pad + "%s = %s" % (self.bind(kind), value)]
        if k < 0.42 and self.locals:
            v = r.choice(sorted(self.locals))
            kind = self.locals[v]
            if kind == "b":
                return [pad + "%s = %s or %s" % (v, v, self.ex("b"))]
            ops = ["+=", "-=", "*="] + (["//=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                                        if kind in "iu" else ["/="] if kind in "fc" else [])
            rhs = self.ex(kind if kind != "u" else "i")
            return [pad + "%s %s %s" % (v, r.choice(ops), rhs)]
        if k < 0.52:
            # an if that rebinds a name read before it, maybe with another kind
            out = [pad + "if %s:" % self.ex("b")] + self.block(ind + 1, d + 1)
            if self.locals and r.random() < 0.6:
                v = r.choice(sorted(self.locals))
                kind = r.choice([self.locals[v], "f", "i"])
                if self.locals[v] == "c":
                    kind = "c"
                out.append(pad + "    %s = %s %s %s" % (v, v, r.choice(["+", "*", "-"]),
                                                        self.ex(kind, 2)))
                self.locals[v] = max(self.locals[v], kind, key="bifuc".index)
            if r.random() < 0.3:
                out += [pad + "elif %s:" % self.ex("b")] + self.block(ind + 1, d + 1)
            if r.random() < 0.4:
                out += [pad + "else:"] + self.block(ind + 1, d + 1)
            return out
        if k < 0.64:
            # a loop, maybe rebinding an accumulator started from a Python number
            kv = "k%d" % d
            stop = r.choice(["3", "4", "%s.shape[0]" % r.choice(sorted(self.arrays))
                             if self.arrays else "5", "%s, %s" % (self.ex("i", 3),
                                                                  self.ex("i", 3)),
                             "-2, 3", "10, 0, -3"])
            out = []
            acc = None
            if r.random() < 0.6:
                acc = "acc%d" % d
                init = r.choice(["0", "0.0", "np.float32(0)", "np.int32(0)", "False", "0j",
                                 "np.uint8(0)"])
                out.append(pad + "%s = %s" % (acc, init))
            out.append(pad + "for %s in range(%s):" % (kv, stop))
            self.loopvars.append(kv)
            if acc:
                kind = r.choice("iffc" if "j" in init else "iffb")
                out.append(pad + "    %s %s %s" % (acc, r.choice(["+=", "-=", "= %s * 0.5 +" % acc,
                                                                  "= %s + " % acc]),
                                                   self.ex(kind, 1)))
                self.locals[acc] = "f"
            out += self.block(ind + 1, d + 1)
            if r.random() < 0.15:
                out.append(pad + "    if %s:" % self.ex("b", 2))
                out.append(pad + "        %s" % r.choice(["break", "continue"]))
            self.loopvars.pop()
            return out
        if k < 0.7:
            w = "w%d" % d
            first = self.ex("i")
            v = self.bind(r.choice("if"))
            out = [pad + "%s = 0" % w, pad + "while %s < %d:" % (w, r.randint(1, 4)),
                   pad + "    %s = %s * 2 + %s" % (v, v, r.choice(["1", "0.5", "True", w])),
                   pad + "    %s += 1" % w]
            self.locals[v] = max(self.locals[v], "f", key="bifuc".index)
            return [pad + "%s = %s" % (v, first)] + out
        if k < 0.8:
            return self.atomic(pad)
        if k < 0.85:
            x, y = self.ex("i"), self.ex("f")
            a, b = self.bind("i"), self.bind("f")
            return [pad + "%s, %s = %s, %s" % (a, b, x, y),
                    pad + "%s, %s = %s, %s" % (a, b, b, a)]
        if k < 0.86:
            return [pad + "cuda.syncthreads()"]
        if k < 0.88 and self.idx:
            value = r.choice(["%s - %d" % (self.idx[0], r.randint(1, 3)), "-1", "%s - %s" % (
                self.idx[0], self.ex("i", 3)), "%d - %s" % (r.randint(0, 3), self.idx[0])])
            return [pad + "%s = %s" % (self.bind("i"), value)]
        if k < 0.92 and self.arrays and self.idx:
            return self.view(pad)
        kind = "f" if k < 0.95 else "i"
        value = self.ex(kind)
        return [pad + "%s = %s" % (self.bind(kind), value)]

    def view(self, pad):
        """a row of a 2-d array or a slice of a 1-d one, with indices that may
        be negative, read and written"""
        r = self.r
        a = r.choice(sorted(self.arrays))
        dt = self.arrays[a]
        if self.rank == 2:
            v = "row%d" % r.randint(0, 2)
            out = [pad + "%s = %s[%s]" % (v, a, r.choice([self.idx[0], "%s - 1" % self.idx[0],
                                                            "-1", "%d - %s" % (1, self.idx[0])]))]
            ix = r.choice([self.idx[1], "%s - 1" % self.idx[1], "-1", "-%s" % self.idx[1]])
        else:
            v = "sl%d" % r.randint(0, 2)
            out = [pad + "%s = %s[%s]" % (v, a, r.choice(["%s - 2:" % self.idx[0], "-3:", ":-1",
                                                          "::-1", "%s:" % self.idx[0],
                                                          "-4:%s" % self.idx[0]]))]
            ix = r.choice(["0", "-1", "%s - 1" % self.idx[0], "1 - %s" % self.idx[0]])
        if r.random() < 0.5:
            out.append(pad + "%s[%s] = %s" % (v, ix, self.ex(self.store_kind(dt), 2)))
        else:
            out.append(pad + "%s = %s[%s]" % (self.bind(KIND_OF[dt]), v, ix))
        if r.random() < 0.2 and self.rank == 1:
            out.append(pad + "%s[%s] = %s" % (a, r.choice(["-3:", "%s - 2:" % self.idx[0], ":"]),
                                               r.choice([self.ex(self.store_kind(dt), 2), v])))
        return out

    def atomic(self, pad):
        r = self.r
        op = r.choice(sorted(ATOMICS))
        names = [a for a, dt in self.arrays.items() if dt in ATOMICS[op].split()]
        if not names:
            return [pad + "cuda.syncthreads()"]
        a = r.choice(names)
        kind = KIND_OF[self.arrays[a]]
        call = "cuda.atomic.%s(%s, (%s), %s)" % (op, a, self.index(),
                                                 self.ex(kind if kind != "u" else "i", 2))
        if r.random() < 0.5:
            return [pad + call]
        return [pad + "%s = %s" % (self.bind(kind), call)]

    def block(self, ind, d):
        """statements of a nested block: the names it binds first are not
        read after it (they may not be bound there)"""
        before = set(self.locals)
        out = []
        for _ in range(self.r.randint(1, 3)):
            out += self.stmt(ind, d)
        for v in set(self.locals) - before:
            del self.locals[v]
        return out

    # -- the unit --

    def device_fn(self, name):
        """a device function of scalars (or of a 1-d array, indexed by its
        first scalar, maybe from the end): its parameters, a body, returns
        (of two kinds on two paths, which Numba unifies)"""
        r = self.r
        arity = r.randint(1, 3)
        saved = self.arrays, self.locals, self.scalars, self.idx, self.rank
        self.arrays, self.locals, self.idx, self.rank = {}, {}, [], 1
        self.scalars = {"x%d" % k: r.choice("iif") for k in range(arity)}
        takes_array = r.random() < 0.3
        params = list(self.scalars)
        if takes_array:
            self.arrays = {"arr": "float64"}       # whatever its caller passes
            self.scalars["x0"] = "i"
            self.idx = ["x0"]
            params = ["arr"] + params
        kind = r.choice("iff")
        body = self.block(1, 2) if r.random() < 0.5 else []
        if r.random() < 0.25:
            body += ["    if %s:" % self.ex("b"), "    " * 2 + "return %s" % self.ex(
                r.choice("if"))]
        ret = "    return %s" % self.ex(kind)
        lines = ["def %s(%s):" % (name, ", ".join(params))] + body + [ret]
        self.arrays, self.locals, self.scalars, self.idx, self.rank = saved
        self.devfns.append((name, arity, kind, takes_array))
        return lines

    def kernel(self):
        r = self.r
        dts = []
        for k in range(r.randint(1, 4)):
            dt = r.choice(DTYPES)
            self.arrays["a%d" % k] = dt
            dts.append(dt)
        for k in range(r.choice([0, 0, 1, 2])):
            self.scalars["s%d" % k] = r.choice("iif")
        self.params = sorted(self.arrays) + sorted(self.scalars)
        head = ["def %s(%s):" % (self.name, ", ".join(self.params))]
        body = ["    %s = cuda.grid(%d)" % (", ".join(self.idx), self.rank)]
        for k in range(r.choice([0, 0, 1, 2])):
            kind = r.choice(["shared", "local"])
            dt = r.choice(DTYPES[1:])
            shape = r.choice(["32", "64", "4"]) if self.rank == 1 else r.choice(["(8, 8)",
                                                                                   "(4, 2)"])
            name = "%s%d" % (kind[:2], k)
            body.append("    %s = cuda.%s.array(%s, %s)" % (name, kind, shape,
                                                            "np." + dt if dt != "bool"
                                                            else "np.bool_"))
            body.append("    %s[%s] = %s" % (name, self.index(), self.ex(self.store_kind(dt))))
            self.arrays[name] = dt
        if r.random() < 0.6:
            a = r.choice(sorted(dts and [p for p in self.params if p.startswith("a")]))
            body.append("    if %s:" % " and ".join("%s < %s.shape[%d]" % (c, a, k)
                                                     for k, c in enumerate(self.idx)))
            body += self.block(2, 1)
        else:
            body += self.block(1, 1)
        return head + body

    def args(self):
        """the kernel's arguments: arrays of its dtypes and rank, numbers of
        its scalars' kinds"""
        r = self.r
        out = []
        for p in self.params:
            if p in self.arrays:
                out.append(rand_array(r, self.arrays[p], self.rank))
            else:
                out.append(r.choice({"i": [3, -2, np.int32(5), np.uint8(7), np.int64(2**40)],
                                     "f": [0.5, np.float32(1.5), np.float16(2), -3.0]}
                                    [self.scalars[p]]))
        return tuple(out)


def typed_unit(r, uname):
    """a cuda.jit unit grown by Typed: its functions and arguments"""
    g = Typed(r, uname)
    funcs = []
    for k in range(r.choice([0, 0, 1, 2])):
        name = "%s_d%d" % (uname, k)
        funcs.append(("device", name, g.device_fn(name)))
    funcs.append(("kernel", uname, g.kernel()))
    return funcs, g.args()


# ---- mutations of the test kernels ----

_SEEDS = None


def _is_kernel_def(node):
    return isinstance(node, ast.FunctionDef) and any(
        "rawkernel" in ast.unparse(d) for d in node.decorator_list)


def _load_module(path, k):
    spec = importlib.util.spec_from_file_location("_fuzz_seed_%d" % k, path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception:
        return None
    return mod


def seeds():
    """[(FunctionDef, module globals, [example argument tuples], is_device)]"""
    global _SEEDS
    if _SEEDS is not None:
        return _SEEDS
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.py"))
                   + glob.glob(os.path.join(ROOT, "tests", "golden", "*.py"))
                   + glob.glob(os.path.join(ROOT, "tests", "errors", "*.py"))
                   + glob.glob(os.path.join(ROOT, "examples", "*.py")))
    out = []
    for k, path in enumerate(files):
        if os.path.basename(path).startswith("_"):
            continue
        try:
            tree = ast.parse(open(path).read())
        except SyntaxError:
            continue
        if "kernels" in path.split(os.sep)[-2:-1]:
            try:
                import kernels
                mod = kernels.load(os.path.basename(path)[:-3])
            except Exception:
                mod = None
        else:
            mod = _load_module(path, k)
        if mod is None:
            continue
        examples = {}
        for case in getattr(mod, "CASES", []):
            kname = getattr(getattr(case[0], "__wrapped__", None), "__name__", None)
            for nm, obj in vars(mod).items():
                if obj is case[0]:
                    kname = nm
            examples.setdefault(kname, []).append(tuple(case[1]))
        for nm, a in getattr(mod, "ARGS", {}).items():
            examples.setdefault(nm, []).append(tuple(a))
        for nm, a in getattr(mod, "SIGS", {}).items():
            examples.setdefault(nm, []).append(tuple(a))
        for node in tree.body:
            if _is_kernel_def(node):
                dev = any("device=True" in ast.unparse(d) for d in node.decorator_list)
                out.append((node, vars(mod), examples.get(node.name, []), dev))
    _SEEDS = out
    return out


class Mutator(ast.NodeTransformer):
    def __init__(self, r, names, grower):
        self.r = r
        self.names = names
        self.g = grower
        self.p = 0.08
        self.grow = 24          # statements it may still add: mutation stays linear

    def hit(self):
        return self.r.random() < self.p

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if self.hit():
            node.op = self.r.choice([ast.Add(), ast.Sub(), ast.Mult(), ast.Div(),
                                     ast.FloorDiv(), ast.Mod(), ast.Pow(), ast.LShift(),
                                     ast.RShift(), ast.BitOr(), ast.BitXor(), ast.BitAnd(),
                                     ast.MatMult()])
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if self.hit():
            node.ops = [self.r.choice([ast.Lt(), ast.LtE(), ast.Gt(), ast.GtE(), ast.Eq(),
                                       ast.NotEq(), ast.Is(), ast.In()]) for _ in node.ops]
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if self.hit():
            node.op = self.r.choice([ast.USub(), ast.UAdd(), ast.Invert(), ast.Not()])
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if self.hit():
            node.op = self.r.choice([ast.And(), ast.Or()])
        return node

    def visit_Constant(self, node):
        if self.hit():
            return ast.parse(literal(self.r), mode="eval").body
        return node

    def visit_Name(self, node):
        if self.hit() and isinstance(node.ctx, ast.Load):
            wild = ["undefined_name", "np", "math", "jit", "range", "len", "print"]
            node.id = self.r.choice(self.names if self.names and self.r.random() < 0.8 else wild)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if self.hit():
            node.attr = self.r.choice(["x", "y", "z", "w", "size", "shape", "ndim", "real",
                                       "imag", "T", "grid", "atomic_add", "float32", "sqrt",
                                       "strides", "nope"])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.hit():
            k = self.r.random()
            if k < 0.4 and node.args:
                node.args.pop(self.r.randrange(len(node.args)))
            elif k < 0.8:
                node.args.append(ast.parse(self.g.expr(2), mode="eval").body)
            else:
                node.keywords.append(ast.keyword(arg=self.r.choice(["axis", "sep", "x"]),
                                                 value=ast.Constant(1)))
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if self.hit():
            node.slice = ast.parse("_[%s]" % self.g.index_(1), mode="eval").body.slice
        return node

    def stmts(self, body):
        r = self.r
        out = []
        for s in body:
            k = r.random()
            if k < 0.03:
                continue                                     # dropped
            out.append(s)
            if k >= 0.12 or self.grow <= 0:
                continue
            self.grow -= 1
            if k < 0.06:
                out.append(s)                                # duplicated
            elif k < 0.1:
                src = "\n".join(self.g.stmt(0, 3))
                try:
                    out.extend(ast.parse(src).body)
                except SyntaxError:
                    pass
            elif k < 0.12:                                   # nested deeper
                out[-1] = ast.If(test=ast.Constant(True), body=[s], orelse=[])
        return out or [ast.Pass()]

    def generic_visit(self, node):
        for field in ("body", "orelse"):
            val = getattr(node, field, None)
            if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
                setattr(node, field, self.stmts(val))
        return super().generic_visit(node)


def mutated_unit(r, uname):
    node, globs, examples, dev = r.choice(seeds())
    tree = ast.parse(ast.unparse(node))          # a fresh copy
    fn = tree.body[0]
    fn.decorator_list = []
    fn.name = uname
    names = [a.arg for a in fn.args.args] + sorted({n.id for n in ast.walk(fn)
                                                    if isinstance(n, ast.Name)})
    g = Grower(r, uname, 0)
    g.params = [a.arg for a in fn.args.args] or ["i"]
    g.arrays = list(g.params)
    g.locals = names
    m = Mutator(r, names, g)
    m.p = r.choice([0.01, 0.02, 0.04, 0.1])
    for _ in range(r.randint(1, 3)):
        tree.body[0] = m.visit(tree.body[0])    # the function only: nothing at module level
    ast.fix_missing_locations(tree)
    src = ast.unparse(tree).split("\n")
    nargs = len(fn.args.args)
    example = r.choice(examples) if examples and r.random() < 0.7 else None
    return [("device" if dev else "kernel", uname, src)], globs, example, nargs


# ---- mutations of Numba-spelled kernels (the cuda.jit units) ----

# the project's corpora of kernels written as numba.cuda users write them
NUMBA_CORPORA = ["tests/unseen/numba_api.py", "tests/unseen/numba_fp.py",
                 "tests/unseen/numba_int.py", "tests/unseen/numba_science.py",
                 "tests/negidx_cases.py"]
_NUMBA_SEEDS = None


def _is_cuda_jit(node):
    return isinstance(node, ast.FunctionDef) and any(
        "cuda.jit" in ast.unparse(d) for d in node.decorator_list)


def _consts(fn):
    """NAME = literal assignments of an enclosing function (the constants its
    nested kernels read as closure variables)"""
    out = {}
    for s in fn.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], ast.Name):
            try:
                out[s.targets[0].id] = ast.literal_eval(s.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    return out


def _case_examples(mod, top):
    """kernel name -> its example arguments, where the case gives them
    (numba_api's Case: kernel, make(rng))"""
    try:
        case = getattr(mod, top.name)()
        fn = getattr(getattr(case, "kernel", None), "py_func", None)
        args = case.make(np.random.default_rng(0))
    except Exception:
        return {}
    if fn is None or not isinstance(args, (list, tuple)):
        return {}
    if not all(isinstance(a, (np.ndarray, np.generic, int, float, complex, bool)) for a in args):
        return {}
    return {fn.__name__: tuple(args)}


def numba_seeds():
    """[(kernel FunctionDef, [device FunctionDefs beside it], globals, [example
    argument tuples])]: every cuda.jit kernel of NUMBA_CORPORA, with the module
    loaded for cujit.cuda and its enclosing function's constants"""
    global _NUMBA_SEEDS
    if _NUMBA_SEEDS is not None:
        return _NUMBA_SEEDS
    from cujit import cuda
    out = []
    for k, rel in enumerate(NUMBA_CORPORA):
        path = os.path.join(ROOT, rel)
        try:
            mod = _load_module(path, 1000 + k).load(cuda, "fuzz_%d" % k)
            tree = ast.parse(open(path).read())
        except Exception:
            continue
        for top in tree.body:
            if not isinstance(top, ast.FunctionDef):
                continue
            defs = [n for n in ast.walk(top) if _is_cuda_jit(n) and n is not top]
            devs = [n for n in defs if any("device=True" in ast.unparse(d)
                                           for d in n.decorator_list)]
            if not defs:
                continue
            consts = _consts(top)
            examples = _case_examples(mod, top) if hasattr(mod, "Case") else {}
            globs = dict(vars(mod))
            globs.update(consts)
            for n in defs:
                if n not in devs:
                    ex = examples.get(n.name)
                    out.append((n, [d for d in devs if d.name != n.name], globs,
                                [ex] if ex else []))
    _NUMBA_SEEDS = out
    return out


def _param_kinds(fn):
    """(kind, ndim) of each parameter as the body uses it: an array of the
    rank of its subscripts (or of its .shape[k]), else a scalar"""
    ndim = {a.arg: 0 for a in fn.args.args}
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) \
                and n.value.id in ndim:
            d = len(n.slice.elts) if isinstance(n.slice, ast.Tuple) else 1
            ndim[n.value.id] = max(ndim[n.value.id], d)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) \
                and n.value.attr == "shape" and isinstance(n.value.value, ast.Name) \
                and n.value.value.id in ndim and isinstance(n.slice, ast.Constant) \
                and isinstance(n.slice.value, int):
            ndim[n.value.value.id] = max(ndim[n.value.value.id], n.slice.value + 1)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id in ndim and n.attr in ("size", "shape", "ndim"):
            ndim[n.value.id] = max(ndim[n.value.id], 1)
    return [ndim[a.arg] for a in fn.args.args]


def _grid_index(fn):
    """the names the kernel gives its index (x = cuda.grid(1), x, y =
    cuda.grid(2)) as an index text and its rank; ("0", 1) if none"""
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) \
                and ast.unparse(n.value.func) == "cuda.grid":
            t = n.targets[0]
            names = [e.id for e in t.elts if isinstance(e, ast.Name)] \
                if isinstance(t, ast.Tuple) else [t.id] if isinstance(t, ast.Name) else []
            if names:
                return ", ".join(names), len(names)
    return "0", 1


def numba_mutated_unit(r, uname):
    """a kernel of NUMBA_CORPORA (with the device functions beside it),
    mutated with cuda.* spellings; its example arguments (70 %) or
    arguments of the ranks its body uses, of any dtype"""
    node, devs, globs, examples = r.choice(numba_seeds())
    funcs = []
    for dv in devs:
        fn = ast.parse(ast.unparse(dv)).body[0]
        fn.decorator_list = []
        funcs.append(("device", fn.name, ast.unparse(fn).split("\n")))
    tree = ast.parse(ast.unparse(node))
    fn = tree.body[0]
    fn.decorator_list = []
    fn.name = uname
    names = [a.arg for a in fn.args.args] + sorted({n.id for n in ast.walk(fn)
                                                    if isinstance(n, ast.Name)})
    g = Grower(r, uname, 0, numba=True)
    g.index, g.rank = _grid_index(fn)
    g.params = [a.arg for a in fn.args.args] or ["i"]
    g.arrays = list(g.params)
    g.locals = names
    m = Mutator(r, names, g)
    m.p = r.choice([0.0, 0.01, 0.02, 0.04, 0.1])
    for _ in range(r.randint(1, 2)):
        tree.body[0] = m.visit(tree.body[0])
    ast.fix_missing_locations(tree)
    funcs.append(("kernel", uname, ast.unparse(tree).split("\n")))
    if examples and r.random() < 0.7:
        args = r.choice(examples)
    else:
        args = tuple(rand_array(r, ndim=d) if d else rand_scalar(r) if r.random() < 0.2
                     else r.choice([3, 0.5, np.float32(1.5), np.int32(7), np.uint8(2)])
                     for d in _param_kinds(node))
    return funcs, globs, args


# ---- arguments ----

def rand_array(r, dtype=None, ndim=None):
    dt = np.dtype(dtype or r.choice(DTYPES))
    ndim = r.choice([0, 1, 1, 1, 2, 2, 3, 4]) if ndim is None else ndim
    shape = tuple(r.choice([1, 2, 3, 4, 8, 0]) if r.random() < 0.1 else r.choice([2, 3, 4, 8])
                  for _ in range(ndim))
    order = r.choice("CCF")
    a = np.zeros(shape, dt, order=order)
    k = r.random()
    if ndim and k < 0.15:
        a = np.zeros(tuple(s * 2 for s in shape), dt, order=order)[(slice(None, None, 2),) * ndim]
    elif ndim and k < 0.2:
        a = a[(slice(None, None, -1),) * ndim]
    elif ndim > 1 and k < 0.3:
        a = a.T
    elif 0.3 <= k < 0.31:
        a = a.view(a.dtype.newbyteorder()) if dt.itemsize > 1 else a
    return a


def rand_scalar(r):
    k = r.random()
    if k < 0.3:
        return r.choice(INT_LIMITS)
    if k < 0.5:
        return r.choice([0.0, -0.0, 1.5, 1e308, float("inf"), float("nan"), 5e-324])
    if k < 0.55:
        return r.choice([True, False, 1j, complex(1e308, -1)])
    if k < 0.85:
        dt = np.dtype(r.choice(DTYPES))
        v = r.choice([0, 1, -1, 3])
        try:
            return dt.type(v)
        except (OverflowError, ValueError):
            return dt.type(0)
    return r.choice([None, "x", object(), [1, 2], (1, 2), {}, np.float32, b"x", 2**100,
                     np.datetime64("2020-01-01"), np.str_("x"), np.zeros(3, "U1"),
                     np.zeros(2, [("a", "f4")]), np.zeros(3, object)])


def sig_string(r, args):
    parts = []
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind in "biufc":
            name = a.dtype.name if a.dtype.name != "bool" else "bool"
            dims = ", ".join([":"] * a.ndim)
            if a.ndim and a.flags.c_contiguous and r.random() < 0.6:
                dims = ", ".join([":"] * (a.ndim - 1) + ["::1"])
            parts.append("%s[%s]" % (name, dims) if a.ndim else name)
        else:
            parts.append(r.choice(["float32", "int64", "f8", "<i4", "bool", "complex64",
                                   "u1", "double"]))
    s = ("void" if r.random() < 0.2 else "") + "(" + ", ".join(parts) + ")"
    if r.random() < 0.25:                       # mangled
        s = list(s)
        for _ in range(r.randint(1, 4)):
            j = r.randrange(len(s) + 1)
            op = r.random()
            if op < 0.4 and s:
                del s[min(j, len(s) - 1)]
            else:
                s.insert(j, r.choice("()[]:,: 0123456789abfiuxv<>=.!\x00\xe9"))
        s = "".join(s)
    return (s,)


def args_for(r, kinds, rank=None):
    """arguments of these kinds; rank: most arrays have the kernel's index
    rank (the cuda.jit units, whose forms want to reach codegen)"""
    out = []
    for kind in kinds:
        if r.random() < 0.08:
            out.append(rand_scalar(r) if kind == "array" else rand_array(r))
        elif kind == "array":
            out.append(rand_array(r, ndim=rank if rank and r.random() < 0.75 else None))
        else:
            out.append(rand_scalar(r))
    if r.random() < 0.05:                       # wrong count
        if out and r.random() < 0.5:
            out.pop()
        else:
            out.append(rand_array(r))
    if r.random() < 0.15:
        return sig_string(r, out)
    return tuple(out)


def is_numba(seed, idx):
    """whether unit idx is in the cuda.jit spelling: NUMBA_SHARE of them, drawn
    from a generator of its own so the other units stay what they were"""
    return random.Random((seed * 999983) ^ (idx * 104729) ^ 0xC0DA).random() < NUMBA_SHARE


def make_unit(seed, idx):
    """{'funcs': [(kind, name, lines)], 'globals': dict or None, 'args': tuple,
    'boundscheck': bool, 'origin': str, 'numba': bool, 'options': dict}
    (options: cuda.jit's, for a numba unit)"""
    numba = is_numba(seed, idx)
    r = _rng(seed, idx)
    uname = "u%d_%d" % (seed, idx)
    mutated = None
    if numba and r.random() < TYPED_SHARE:
        funcs, args = typed_unit(r, uname)
        unit = {"funcs": funcs, "globals": None, "args": args, "boundscheck": False,
                "origin": "typed", "ptx_roll": r.random(), "numba": True}
        unit["options"] = r.choice(NUMBA_OPTIONS)
        return unit
    if numba and r.random() < CORPUS_SHARE and numba_seeds():
        try:
            funcs, globs, args = numba_mutated_unit(r, uname)
        except (RecursionError, SyntaxError, ValueError):
            (funcs, args), globs = typed_unit(r, uname), None   # too deep for ast
        return {"funcs": funcs, "globals": globs, "args": args, "boundscheck": False,
                "origin": "mutated Numba corpus", "ptx_roll": r.random(), "numba": True,
                "options": r.choice(NUMBA_OPTIONS)}
    if r.random() < 0.5 and seeds():
        try:
            mutated = mutated_unit(r, uname)
        except (RecursionError, SyntaxError, ValueError):
            mutated = None          # a mutation too deep for ast itself: grow one instead
    if mutated:
        funcs, globs, example, nargs = mutated
        if example is not None:
            args = example
        else:
            args = args_for(r, [r.choice(["array", "array", "scalar"]) for _ in range(nargs)])
        origin = "mutated"
    else:
        funcs, kinds, rank = grown_unit(r, uname, numba)
        globs = None
        args = args_for(r, kinds, rank if numba else None)
        origin = "grown"
    boundscheck = r.random() < 0.1
    unit = {"funcs": funcs, "globals": globs, "args": args, "boundscheck": boundscheck,
            "origin": origin, "ptx_roll": r.random(), "numba": numba, "options": {}}
    if numba:
        unit["origin"] += " cuda.jit"
        unit["options"] = r.choice(NUMBA_OPTIONS)
    return unit


def unit_source(unit):
    """The unit's functions as module text (no decorators: the worker wraps)."""
    out = []
    for _, _, lines in unit["funcs"]:
        out += lines + [""]
    return "\n".join(out) + "\n"


def describe_args(args):
    def one(a):
        if isinstance(a, np.ndarray):
            return "np.ndarray(shape=%r, dtype=%r, strides=%r)" % (a.shape, str(a.dtype),
                                                                    a.strides)
        return repr(a)
    return "(" + ", ".join(one(a) for a in args) + ("," if len(args) == 1 else "") + ")"


if __name__ == "__main__":
    import sys
    u = make_unit(int(sys.argv[1]), int(sys.argv[2]))
    print(unit_source(u))
    print("# args:", describe_args(u["args"]))
