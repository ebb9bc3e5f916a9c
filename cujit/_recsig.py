"""Record (structured) dtypes named in signatures: Numba's ``from_dtype(dt)[:]``
type objects and Numba's text of them (``Record(a[type=int32;offset=0],
b[type=float64;offset=8];16;True)[:]``) become cujit's signature name of the
dtype, ``rec_<12 hex>`` (a hash of the layout, the same in every process), which
the extension interns so that its signature parser finds it.

As in Numba, a record type named in a signature must have its fields at
multiples of their alignment (Numba refuses a kernel reading such a field of
it: 'type float64 is not aligned'); kernels compiled for the arrays they are
given take packed dtypes and read their fields byte by byte."""
import re

import numpy as np

_NAME = re.compile(r"[A-Za-z_]\w*")
_INT = re.compile(r"-?\d+")


def check_aligned(dt, what):
    """a TypeError naming the first field (nested ones too) that is not at a
    multiple of its alignment: Numba's rule for a record type it is given"""
    for name in dt.names:
        fd, off = dt.fields[name][:2]
        base = fd.subdtype[0] if fd.subdtype else fd
        if base.names is not None:
            check_aligned(base, what)
        al = base.alignment
        if off % al:
            raise TypeError(f"{what}: field '{name}' of type {base} is not aligned (offset {off}, "
                            f"not a multiple of {al}): a record type named in a signature must "
                            "be aligned, as in Numba; make the dtype with align=True, or leave "
                            "the signature out (a kernel compiled for the arrays it is given "
                            "reads packed fields byte by byte)")


_NAMED = {}     # a signature's spelling of a record (its code, its text) -> the dtype


def sig_name(dt, what=None):
    """cujit's signature name of the record dtype dt, checked aligned"""
    from cujit import _cujit
    dt = np.dtype(dt)
    check_aligned(dt, what or f"record dtype {dt}")
    code, text = _cujit._record_code(dt)
    _NAMED[code] = _NAMED[text] = dt
    return code


def dtype_of(name):
    """the record dtype a compiled signature's text names (Kernel.signatures
    print it as Record(a: int32, b: float64; 16 bytes)); None if unknown"""
    return _NAMED.get(name)


class _Text:
    """Numba's str() of a Record, read back into a NumPy dtype:
    record := 'Record(' field {',' field} ';' size ';' aligned ')'
    field  := name '[type=' type ';offset=' int [';' key '=' value] ']'
    type   := record | 'nestedarray(' type ', (' dims ')' ')' | scalar name"""

    def __init__(self, s, pos):
        self.s, self.pos = s, pos

    def fail(self, expected):
        raise TypeError(f"signature {self.s!r}: expected {expected} at column {self.pos + 1} "
                        "in Numba's text of a Record type")

    def eat(self, lit):
        if not self.s.startswith(lit, self.pos):
            self.fail(repr(lit))
        self.pos += len(lit)

    def match(self, rx, expected):
        m = rx.match(self.s, self.pos)
        if not m:
            self.fail(expected)
        self.pos = m.end()
        return m.group(0)

    def record(self):
        self.eat("Record(")
        names, formats, offsets = [], [], []
        while True:
            names.append(self.match(_NAME, "a field name"))
            self.eat("[type=")
            formats.append(self.type())
            self.eat(";offset=")
            offsets.append(int(self.match(_INT, "an offset")))
            while self.s.startswith(";", self.pos):     # ;alignment=... ;title=...
                end = self.s.find("]", self.pos)
                self.pos = end if end > 0 else self.fail("']'")
            self.eat("]")
            if not self.s.startswith(",", self.pos):
                break
            self.pos += 1
        self.eat(";")
        size = int(self.match(_INT, "the record's size"))
        self.eat(";")
        aligned = self.match(re.compile(r"True|False"), "True or False") == "True"
        self.eat(")")
        return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                         "itemsize": size, "aligned": aligned})

    def type(self):
        if self.s.startswith("Record(", self.pos):
            return self.record()
        if self.s.startswith("nestedarray(", self.pos):
            self.eat("nestedarray(")
            base = self.type()
            self.eat(", (")
            end = self.s.find(")", self.pos)
            if end < 0:
                self.fail("')'")
            dims = tuple(int(d) for d in self.s[self.pos:end].split(",") if d.strip())
            self.pos = end
            self.eat("))")
            return np.dtype((base, dims))
        name = self.match(_NAME, "a field type")
        try:
            return np.dtype("bool" if name == "boolean" else name)
        except TypeError:
            self.pos -= len(name)
            self.fail("a number type")


def rewrite(text):
    """a signature string with each Record(...) text (Numba's, or one of
    Kernel.signatures) replaced by its name"""
    out, at = [], 0
    while True:
        k = text.find("Record(", at)
        if k < 0 or (k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_")):
            if k < 0:
                return "".join(out) + text[at:]
            out.append(text[at:k + 7])
            at = k + 7
            continue
        known = next((n for n in _NAMED if n.startswith("Record(") and text.startswith(n, k)),
                     None)
        if known:                       # a compiled signature's text, given back
            out.append(text[at:k] + sig_name(_NAMED[known]))
            at = k + len(known)
            continue
        p = _Text(text, k)
        dt = p.record()
        out.append(text[at:k] + sig_name(dt, text[k:p.pos]))
        at = p.pos
