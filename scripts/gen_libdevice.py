#!/usr/bin/env python3
"""Writes common/libdevice.inc, the table of cuda.libdevice's functions, from
NVIDIA's libdevice bitcode itself (its `define` lines, through llvm-dis):

    python3 scripts/gen_libdevice.py [/usr/local/cuda/nvvm/libdevice/libdevice.10.bc]

Each row is CJ_LIBDEVICE(name, sig): `name` is the function without __nv_,
`sig` the result then the arguments, one letter each (common/intrin.c):
v void, i int32, u uint32, l int64, L uint64, w uint16, f float32, d float64;
a '*' before a letter marks a pointer the function writes (a result that
cuda.libdevice returns in a tuple, after the return value).

LLVM IR has no signed and unsigned integers: the libdevice User's Guide's
prototypes are unsigned where the name says so (umax, usad, uint2float_rn,
double2ull_rz, ...), for brev and byte_perm, for popc's argument and for sad's
third argument and result; those rules are below.  Functions that take a
string (nan) or read an array (norm, rnorm) are left out, as are the
__internal_ helpers."""
import re
import subprocess
import sys

LL = {"void": "v", "i32": "i", "i64": "l", "i16": "w", "float": "f", "double": "d"}
SKIP = {"nan", "nanf", "norm", "rnorm", "normf", "rnormf"}


def unsigned(name, sig):
    """Signedness from the User's Guide's naming: sig with i/l turned u/L."""
    s = list(sig)

    def u(k):
        s[k] = {"i": "u", "l": "L"}.get(s[k], s[k])

    whole = re.fullmatch(r"u(min|max|mulhi|mul64hi|mul24|hadd|rhadd|sad)|ull(min|max)|"
                         r"brev(ll)?|byte_perm", name)
    if whole:
        for k in range(len(s)):
            u(k)
    if re.search(r"2u(int|ll)_", name):
        u(0)                                # double2uint_rn: the result
    if re.match(r"u(int|ll)2", name) or name in ("uint_as_float",):
        u(1)                                # uint2float_rn: the argument
    if name == "float_as_uint":
        u(0)
    if name == "popc" or name == "popcll":
        u(1)
    if name == "sad":
        u(0)
        u(3)
    return "".join(s)


def rows(bc):
    text = subprocess.run(["llvm-dis", bc, "-o", "-"], check=True, capture_output=True,
                          text=True).stdout
    out = []
    for m in re.finditer(r"^define (?:zeroext |signext )?(\w+) @__nv_(\w+)\((.*)\)", text, re.M):
        ret, name, params = m.groups()
        if name in SKIP:
            continue
        sig = LL[ret]
        for p in filter(None, (x.strip() for x in params.split(","))):
            ty = p.split()[0]
            sig += "*" + LL[ty[:-1]] if ty.endswith("*") else LL[ty]
        out.append((name, unsigned(name, sig)))
    return sorted(out)


def main():
    bc = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
    lines = ["/* libdevice.inc - cuda.libdevice's functions: CJ_LIBDEVICE(name, sig).",
             " * Written by scripts/gen_libdevice.py from libdevice.10.bc; do not edit. */"]
    for name, sig in rows(bc):
        lines.append(f'CJ_LIBDEVICE("{name}", "{sig}")')
    with open("common/libdevice.inc", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"common/libdevice.inc: {len(lines) - 2} functions")


if __name__ == "__main__":
    main()
