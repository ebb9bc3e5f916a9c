"""cujit's command line.

    python -m cujit compile FILE.py [--kernel NAME]... [--sig SIG] [--ptx | --cubin]
                                    [--arch sm_XY] [-o OUT]
    python -m cujit info
    python -m cujit warmup [--dtypes ...] [--ops ...] [--jobs N] [--list] [--quiet]
    python -m cujit prebuild [--archs sm_90,...] [--out DIR] [--jobs N] [--list]

`compile` (installed as the `cujitc` command too) prints the CUDA C++, PTX
or CUBIN cujit makes of the kernels in FILE.py, as cli/cujitc.c does from a
source tree: it runs the file (its module-level code, not its
`if __name__ == "__main__":` block) and asks each cujit.Kernel in its
namespace for inspect_cuda / inspect_ptx / inspect_cubin.  Exit status: 0
done, 1 an error in the file or a compile error (printed as Python prints a
SyntaxError), 2 a usage error.  `info` prints cujit.show_config().
`warmup` compiles the stdlib's common specialisations into the disk cache
(cujit/_warmup.py); `prebuild` into the package's prebuilt store, for named
architectures and without a GPU (cujit/_prebuild.py).

Nothing here imports cujit before it is needed, so this file also runs as a
script over a stand-in cujit package (tests/test_cujitc.py does so).
"""
import argparse
import linecache
import os
import runpy
import sys
import traceback


class _Usage(Exception):
    """A usage error: printed with the usage text, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(message)


def _compile_parser(prog):
    p = _Parser(prog=prog, allow_abbrev=False,
                description="Prints the CUDA C++ cujit generates for the kernels in FILE.py.")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--kernel", action="append", default=[], metavar="NAME",
                   help="only this kernel (repeatable; default: every kernel)")
    p.add_argument("--sig", metavar="SIG",
                   help='argument types, e.g. "(float32, float32[:], int64)"; without it, '
                        "the signatures the file already compiled")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--ptx", action="store_const", dest="what", const="ptx",
                      help="print PTX (NVRTC) instead of CUDA C++")
    what.add_argument("--cubin", action="store_const", dest="what", const="cubin",
                      help="write the CUBIN to OUT (needs -o and one kernel)")
    p.add_argument("--arch", metavar="sm_XY", help="target architecture for --ptx / --cubin")
    p.add_argument("-o", dest="out", metavar="OUT", help="write to OUT instead of standard output")
    p.set_defaults(what="cuda")
    return p


def _print_error(exc):
    """A compile error (cujit.CompileError is a SyntaxError) as Python prints
    a SyntaxError, without frames; anything else with its traceback."""
    if isinstance(exc, SyntaxError):
        if not exc.text and exc.filename and exc.lineno:
            exc.text = linecache.getline(exc.filename, exc.lineno) or None
        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
    else:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    sys.stderr.flush()
    return 1


def _signatures(opts, name, k):
    """The signatures to print for kernel k: --sig, else those it compiled
    while the file ran ([()]: inspect with no argument, if it has none)."""
    if opts.sig is not None:
        return [opts.sig]
    sigs = list(getattr(k, "signatures", [()]))
    if not sigs:
        raise _Usage("kernel '%s' was not compiled in %s: give its argument types with "
                     '--sig "(float32, float32[:], ...)"' % (name, opts.file))
    return sigs


def _jobs(opts, ns, kernel_type):
    """(name, kernel, signature) for the kernels of ns, in definition order,
    each once; device functions only when named with --kernel."""
    jobs, seen = [], set()
    for name, k in ns.items():
        if (not isinstance(k, kernel_type) or id(k) in seen
                or (opts.kernel and name not in opts.kernel)
                or (not opts.kernel and getattr(k, "device", False))):
            continue
        seen.add(id(k))
        jobs += [(name, k, sig) for sig in _signatures(opts, name, k)]
    for name in opts.kernel:
        if not any(j[0] == name for j in jobs):
            raise _Usage("no cujit kernel named '%s' in %s" % (name, opts.file))
    return jobs


def _inspect(opts, k, sig):
    meth = getattr(k, {"cuda": "inspect_cuda", "ptx": "inspect_ptx",
                       "cubin": "inspect_cubin"}[opts.what])
    args = sig if isinstance(sig, tuple) else (sig,)
    kw = {"arch": opts.arch} if opts.arch and opts.what != "cuda" else {}
    return meth(*args, **kw)


def _write(opts, jobs, f):
    for name, k, sig in jobs:
        res = _inspect(opts, k, sig)
        if len(jobs) > 1:
            f.write("// ---- kernel %s, signature %s ----\n" % (name, sig))
        if isinstance(res, str):
            res = res.encode()
        f.write(res)
        if opts.what != "cubin" and not res.endswith(b"\n"):
            f.write(b"\n")


class _TextToBytes:
    """stdout taking the bytes of the results and the str of the headers."""

    def __init__(self, stream):
        self.buf = stream.buffer

    def write(self, data):
        self.buf.write(data.encode() if isinstance(data, str) else data)


def _run_compile(opts, prog):
    if not os.access(opts.file, os.R_OK):
        raise _Usage("%s: cannot read it" % opts.file)
    if opts.what == "cubin" and not opts.out:
        raise _Usage("--cubin writes a binary: give the file with -o OUT")
    try:
        import cujit
    except Exception as e:
        _print_error(e)
        print("%s: cannot import cujit (is it installed? pip install cujit)" % prog,
              file=sys.stderr)
        return 1
    sys.argv = [opts.file]
    sys.path.insert(0, os.path.dirname(os.path.abspath(opts.file)))
    try:
        ns = runpy.run_path(opts.file)
        jobs = _jobs(opts, ns, cujit.Kernel)
    except _Usage:
        raise
    except Exception as e:
        return _print_error(e)
    if not jobs:
        print("%s: no cujit kernels in %s" % (prog, opts.file), file=sys.stderr)
        return 1
    if opts.what == "cubin" and len(jobs) > 1:
        raise _Usage("--cubin writes one kernel and signature; choose them with "
                     "--kernel and --sig")
    try:
        if opts.out:
            try:
                with open(opts.out, "wb") as f:
                    _write(opts, jobs, f)
            except OSError as e:
                print("%s: cannot write %s: %s" % (prog, opts.out, e.strerror), file=sys.stderr)
                return 1
        else:
            sys.stdout.flush()
            _write(opts, jobs, _TextToBytes(sys.stdout))
            sys.stdout.buffer.flush()
    except Exception as e:
        sys.stdout.flush()
        return _print_error(e)
    return 0


def compile_main(argv, prog="cujitc"):
    """`cujitc ARGS` / `python -m cujit compile ARGS`; the exit status."""
    parser = _compile_parser(prog)
    try:
        return _run_compile(parser.parse_args(argv), prog)
    except _Usage as e:
        print("%s: %s\n" % (prog, e), file=sys.stderr)
        parser.print_usage(sys.stderr)
        return 2


def cujitc():
    """The `cujitc` console script."""
    return compile_main(sys.argv[1:])


_USAGE = """usage: python -m cujit COMMAND ...

commands:
  compile FILE.py [options]   print the CUDA C++ / PTX / CUBIN of the file's kernels
                              (the same as `cujitc`; `python -m cujit compile -h`)
  info                        cujit's configuration: versions, CUDA libraries, GPUs,
                              cache, environment (cujit.show_config())
  warmup [options]            compile the stdlib's common operations into the disk
                              cache, in parallel (`python -m cujit warmup -h`)
  prebuild [options]          build the stdlib's binaries into the package's prebuilt
                              store for this GPU or named architectures, without
                              launching anything (`python -m cujit prebuild -h`)
"""


def main(argv=None):
    """`python -m cujit COMMAND ...`; the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        (sys.stdout if argv else sys.stderr).write(_USAGE)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "compile":
        return compile_main(rest, prog="python -m cujit compile")
    if cmd == "warmup":
        from cujit import _warmup
        return _warmup.main(rest)
    if cmd == "prebuild":
        from cujit import _prebuild
        return _prebuild.main(rest)
    if cmd == "info" and not rest:
        import cujit
        cujit.show_config()
        return 0
    sys.stderr.write("python -m cujit: unknown command or arguments: %s\n\n%s"
                     % (" ".join(argv), _USAGE))
    return 2


if __name__ == "__main__":
    sys.exit(cujitc())
