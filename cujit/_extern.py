"""Numba's foreign device functions: ``cuda.declare_device`` and the code
objects ``link=`` takes (``cuda.CUSource`` and friends).

    times2 = cuda.declare_device("times2", "int32(int32)", link="times2.cu")

    @cuda.jit
    def k(r, x):
        r[0] = times2(x[0])

A declared function is called from kernels and device functions like a
device function.  cujit compiles the CUDA C++ sources it links (a ``.cu``
file, a ``CUSource``) into the calling kernel's own NVRTC program (so NVRTC
may inline them).  Compiled code (``.ptx``, ``.cubin``, ``.fatbin``, ``.o``,
``.a``, ``.ltoir`` files, ``PTXSource``, ``Cubin``, ``Fatbin``, ``Object``,
``Archive``, ``LTOIR``) is linked: the kernel is compiled as relocatable code
(``-rdc=true``) that declares the function ``extern "C"``, and the driver's
JIT linker joins it with the code (nvJitLink where LTO-IR is linked:
runtime/link.c); ``cuda.jit(link=...)`` links code into a
kernel the same way, for the functions it calls that were declared without
``link=``.  Either way the function is called through a small wrapper:

- ``abi="numba"`` (the default): ``int name(ret *out, args...)``, Numba's
  calling convention: the result is written through the first pointer (a
  ``void *`` for a void function) and the int status returned is ignored;
- ``abi="c"``: ``ret name(args...)``, a plain C function.

Arguments are numbers (converted to the declared types) and raw pointers
(``types.CPointer(dtype)``: a CPointer parameter of the kernel, or
``ffi.from_buffer(array)`` of a cffi ``FFI``).

The frontend reads a declared function through its ``__cujit_extern__``
tuple: (name, signature text, abi is "c", use_cooperative, source texts),
the files read again at every compile, so a changed ``.cu`` compiles again
(the front key hashes the tuple).  The text of compiled code is its marker
line, ``//@cujit-link <kind> <hash> <name>``: its bytes are kept by the
runtime, and its hash keys the linked binary, so a changed ``.ptx`` links
again.  NVRTC finds a source's ``#include``
files in its own directory and in ``CUDA_NVRTC_EXTRA_SEARCH_PATHS``
(``cuda.config``, or the environment's ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS``),
besides the toolkit's; the headers found there are digested into the text,
so editing one compiles again too."""
import hashlib
import io
import os
import re

from cujit import _ntypes

__all__ = ["declare_device", "LinkableCode", "CUSource", "PTXSource", "Fatbin", "Cubin",
           "Archive", "Object", "LTOIR", "ExternFunction"]


class LinkableCode:
    """Code to link from memory: ``data`` (str, bytes, StringIO or BytesIO)
    and a ``name`` for messages."""

    kind = None
    default_name = "<unnamed>"

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None,
                 nrt=False):
        if setup_callback and not callable(setup_callback):
            raise TypeError("setup_callback must be callable")
        if teardown_callback and not callable(teardown_callback):
            raise TypeError("teardown_callback must be callable")
        self._data = data
        self._name = name
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback
        self.nrt = nrt

    @property
    def name(self):
        return self._name or self.default_name

    @property
    def data(self):
        if isinstance(self._data, (io.StringIO, io.BytesIO)):
            return self._data.getvalue()
        return self._data

    @staticmethod
    def from_path(path):
        """The code object of a file, by its extension."""
        root, ext = os.path.splitext(path)
        cls = _KINDS.get(ext.lower())
        if cls is None:
            raise ValueError(f"Don't know how to link {path!r}: its extension {ext!r} is none "
                             f"of {', '.join(sorted(_KINDS))}")
        with open(path, "r" if cls in (CUSource, PTXSource) else "rb") as f:
            return cls(f.read(), name=os.path.basename(root))

    @classmethod
    def from_path_or_obj(cls, path_or_obj):
        if isinstance(path_or_obj, (str, os.PathLike)):
            return cls.from_path(os.fspath(path_or_obj))
        return path_or_obj

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r})"


class CUSource(LinkableCode):
    """CUDA C++ source: compiled into the kernel's own NVRTC program."""
    kind = "cu"
    default_name = "<unnamed-cu>"


class PTXSource(LinkableCode):
    kind = "ptx"
    default_name = "<unnamed-ptx>"


class Fatbin(LinkableCode):
    kind = "fatbin"
    default_name = "<unnamed-fatbin>"


class Cubin(LinkableCode):
    kind = "cubin"
    default_name = "<unnamed-cubin>"


class Archive(LinkableCode):
    kind = "a"
    default_name = "<unnamed-archive>"


class Object(LinkableCode):
    kind = "o"
    default_name = "<unnamed-object>"


class LTOIR(LinkableCode):
    kind = "ltoir"
    default_name = "<unnamed-ltoir>"


_KINDS = {".cu": CUSource, ".ptx": PTXSource, ".fatbin": Fatbin, ".cubin": Cubin,
          ".a": Archive, ".lib": Archive, ".o": Object, ".obj": Object, ".ltoir": LTOIR}


def _label(item):
    """How a link item is named in messages"""
    if isinstance(item, (str, os.PathLike)):
        return os.fspath(item)
    return getattr(item, "name", None) or type(item).__name__


def _check_item(item, what):
    """A link item cujit can link: a path (.cu, .ptx, .cubin, .fatbin, .o,
    .a) or a code object; anything else is an error saying what to give."""
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        ext = os.path.splitext(path)[1].lower()
        kind = _KINDS.get(ext)
        if kind is None:
            raise ValueError(f"{what}: don't know how to link {path!r}: give a file ending in "
                             f"one of {', '.join(sorted(_KINDS))}, or a cuda.CUSource")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what}: link file {path!r} does not exist")
        return
    if isinstance(item, type) or not isinstance(item, LinkableCode):
        got = item.__name__ if isinstance(item, type) else type(item).__name__
        raise TypeError(f"{what}: link items are paths or code objects (cuda.CUSource, "
                        f"cuda.PTXSource, ...), got {got}")
    text = isinstance(item, (CUSource, PTXSource))
    if not isinstance(item.data, (str, bytes) if text else (bytes, bytearray, memoryview)):
        raise TypeError(f"{what}: {type(item).__name__} {item.name!r} holds "
                        f"{type(item.data).__name__}, not "
                        f"{'text (str or bytes)' if text else 'bytes'}")
    if not item.data:
        raise ValueError(f"{what}: {type(item).__name__} {item.name!r} is empty")
    if not isinstance(item, CUSource):
        _check_kind(type(item).kind, _bytes(item.data), item.name)


# what each kind of compiled code starts with (or, for PTX, holds)
_SIGNS = {"cubin": (b"\x7fELF",), "o": (b"\x7fELF",), "a": (b"!<arch>\n",),
          "fatbin": (b"\x50\xed\x55\xba",), "ltoir": (b"\xed\x43\x4e\x7f",)}
_WHAT = {"ptx": "PTX", "cubin": "a cubin (ELF)", "o": "an object file (ELF)",
         "a": "an archive (ar)", "fatbin": "a fatbin", "ltoir": "LTO-IR"}


def _bytes(data):
    return data.encode() if isinstance(data, str) else bytes(data)


def _check_kind(kind, data, name):
    """ValueError unless data (bytes) looks like compiled code of its kind"""
    ok = b".version" in data and b".target" in data if kind == "ptx" else \
        data.startswith(_SIGNS[kind])
    if not ok:
        raise ValueError(f"cannot link {name!r}: it is not {_WHAT[kind]}; give "
                         f"{'nvcc -ptx output' if kind == 'ptx' else 'nvcc output'} of that "
                         "kind, or the file under its right extension")


def _marker(kind, data, name):
    """The marker line naming compiled code to link (runtime/link.c keeps
    its bytes), after checking that data is of its kind"""
    data = _bytes(data)
    _check_kind(kind, data, name)
    if kind == "ptx":
        data = data.rstrip(b"\0")
    from cujit import _cujit
    return _cujit._link_blob(kind, data, str(name))


def search_paths():
    """CUDA_NVRTC_EXTRA_SEARCH_PATHS (cuda.config, or the environment's
    NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS): directories, colon-separated"""
    from cujit._warnings import config
    value = config.CUDA_NVRTC_EXTRA_SEARCH_PATHS or ""
    return [os.path.abspath(d) for d in value.split(":") if d]


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def _resolve(name, quoted, here, dirs):
    """The file an #include names: "x" beside the including file first, then
    (like <x>) in dirs; None where it is not there (the toolkit's headers:
    NVRTC finds those, and they are not keyed)"""
    for d in ([here] if quoted and here else []) + dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def _headers_digest(data, here, dirs):
    """A digest of the files data #includes from here and dirs, followed
    recursively: a changed header changes the text, so both cache keys"""
    h = hashlib.sha256()
    seen, todo = set(), [(data.encode() if isinstance(data, str) else data, here)]
    while todo:
        text, at = todo.pop()
        for m in _INCLUDE.finditer(text):
            name = m.group(2).decode(errors="replace").strip()
            path = _resolve(name, m.group(1) == b'"', at, dirs)
            if path is None or path in seen:
                continue
            seen.add(path)
            with open(path, "rb") as f:
                body = f.read()
            h.update(path.encode() + b"\0" + body + b"\0")
            todo.append((body, os.path.dirname(path)))
    return h.hexdigest()[:32] if seen else None


def _text(item):
    """A link item as the kernel's program holds it: the marker line of
    compiled code (read now), or CUDA C++ after a #line naming it.  Before
    the CUDA C++, one `//cujit-include: DIR` line per directory NVRTC
    searches for its #include files (the file's own, then
    CUDA_NVRTC_EXTRA_SEARCH_PATHS; pipeline/pipeline.c gives them as -I),
    and the digest of the headers it includes from there"""
    here = None
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        cls = _KINDS[os.path.splitext(path)[1].lower()]
        with open(path, "r" if cls is CUSource else "rb") as f:
            data = f.read()
        name, kind = path, cls.kind
        here = os.path.dirname(os.path.abspath(path))
    else:
        data, name, kind = item.data, item.name, type(item).kind
    if kind != "cu":
        return _marker(kind, data, name)
    data = data.decode() if isinstance(data, bytes) else data
    dirs = search_paths()
    marks = ""
    for d in ([here] if here else []) + dirs:
        if "\n" in d or "\r" in d:
            raise ValueError(f"include directory {d!r}: a path with a line break cannot be "
                             "given to NVRTC")
        marks += f"//cujit-include: {d}\n"
    digest = _headers_digest(data, here, dirs)
    if digest:
        marks += f"//cujit-headers: {digest}\n"
    # named for NVRTC's messages; pipeline/errors.c knows the mark
    name = str(name).replace("\\", "/").replace('"', "'")
    return f'\n{marks}#line 1 "{name} (linked CUDA C++)"\n{data}\n'


def link_items(link, what):
    """link= as a tuple of checked items (one item, or a list, tuple or set)"""
    if link is None:
        return ()
    items = tuple(link) if isinstance(link, (list, tuple, set, frozenset)) else (link,)
    for item in items:
        _check_item(item, what)
    # a path read at each compile: taken from where it was declared
    return tuple(os.path.abspath(os.fspath(i)) if isinstance(i, (str, os.PathLike)) else i
                 for i in items)


def link_texts(items):
    """The CUDA C++ texts of link items, read now"""
    return tuple(_text(item) for item in items)


def _namespace():
    """the names a signature string may use: Numba's type names, ``types``
    and ``CPointer`` (Numba's numba.core.types, eval'd the same way)"""
    ns = dict(_ntypes.EXPORTED)
    ns["types"] = _ntypes.TYPES
    ns["CPointer"] = _ntypes.CPointer
    return ns


def _signature(sig):
    """(Signature of cujit.cuda's types or numba's, cujit's signature text)"""
    if isinstance(sig, str):
        try:
            value = eval(sig, {"__builtins__": {}}, _namespace())     # Numba does the same
        except Exception as e:
            raise TypeError(f"declare_device: cannot read the signature {sig!r}: {e}") from None
        sig = value
    if isinstance(sig, (tuple, list)) or not _ntypes.is_signature(sig) \
            or sig.return_type is None:
        raise TypeError("Return type must be provided for device declarations: give a "
                        "signature such as 'int32(float32[:])' or int32(float32[:]), not "
                        f"{sig!r}")
    return sig, _ntypes.signature_string(sig)


class ExternFunction:
    """A declared foreign device function: call it from kernels and device
    functions.  ``name``, ``sig`` (``sig.return_type``, ``sig.args``),
    ``link``, ``abi``, ``use_cooperative``."""

    def __init__(self, name, sig, link, use_cooperative, abi):
        self.name = name
        self.sig, self._text = _signature(sig)
        self.link = link
        self.use_cooperative = bool(use_cooperative)
        self.abi = abi

    @property
    def __cujit_extern__(self):
        return (self.name, self._text, self.abi == "c", self.use_cooperative,
                link_texts(self.link))

    def __call__(self, *args):
        raise TypeError(f"{self.name} is a declared foreign device function: call it from a "
                        "kernel or a device function")

    def __repr__(self):
        return f"<declared device function {self.name}: {self._text}, abi={self.abi!r}>"


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declares the foreign device function ``name`` of signature ``sig``
    (a string or a signature object), defined in the code ``link`` gives (a
    path of a .cu, .ptx, .cubin, .fatbin, .o, .a or .ltoir file, a code object such
    as cuda.CUSource or cuda.PTXSource, or a list of them; or none, when
    the kernels calling it link it with cuda.jit(link=...)).  ``abi``:
    "numba" (``int name(ret *out, args...)``) or "c" (``ret name(args...)``);
    ``use_cooperative``: kernels calling it are launched cooperatively."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}: give abi='numba' or abi='c'")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"declare_device: the name must be a C identifier, got {name!r}")
    items = link_items(link, f"declare_device({name!r})")
    return ExternFunction(name, sig, items, use_cooperative, abi)


class NvrtcModule:
    """cuda.cudadrv.nvrtc: NVRTC's version and compute capabilities, and
    ``compile`` of CUDA C++ to PTX or LTO-IR (Numba's functions of those
    names; cujit's own NVRTC, opened by the runtime)."""

    def get_version(self):
        from cujit import _cujit
        return _cujit._nvrtc_version()

    def get_supported_ccs(self):
        """(major, minor) of each compute capability NVRTC compiles for"""
        from cujit import _cujit
        return tuple((a // 10, a % 10) for a in _cujit._nvrtc_supported_archs())

    def find_closest_arch(self, cc):
        """The newest supported compute capability not above cc"""
        ccs = self.get_supported_ccs()
        cc = tuple(cc[:2])
        if not ccs:
            return cc
        if cc < ccs[0]:
            raise RuntimeError(f"GPU compute capability {cc[0]}.{cc[1]} is not supported by "
                               f"NVRTC (it needs {ccs[0][0]}.{ccs[0][1]} or newer)")
        return max(c for c in ccs if c <= cc)

    def compile(self, src, name, cc, ltoir=False, lineinfo=False, debug=False):
        """(PTX str or LTO-IR bytes, log) of CUDA C++ src for cc=(major, minor),
        relocatable (-rdc=true) as Numba compiles linked sources, with
        CUDA_NVRTC_EXTRA_SEARCH_PATHS as -I"""
        from cujit import _cujit
        from cujit.cuda.options import _build_options
        src = src.decode() if isinstance(src, bytes) else src
        options = ["-rdc=true"] + [f"-I{d}" for d in search_paths()]
        options += _build_options(debug=debug, lineinfo=lineinfo)
        arch = f"sm_{cc[0]}{cc[1]}{cc[2] if len(cc) > 2 else ''}"
        base = os.path.splitext(os.path.basename(str(name)))[0] or "program"
        ptx, blob, _ = _cujit._nvrtc_compile(src, base, arch, 2 if ltoir else 0, options)
        return (blob if ltoir else ptx), ""

    def __repr__(self):
        return "<cujit.cuda.cudadrv.nvrtc>"
