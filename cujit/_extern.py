"""Numba's foreign device functions: ``cuda.declare_device`` and the code
objects ``link=`` takes (``cuda.CUSource`` and friends).

    times2 = cuda.declare_device("times2", "int32(int32)", link="times2.cu")

    @cuda.jit
    def k(r, x):
        r[0] = times2(x[0])

A declared function is called from kernels and device functions like a
device function.  cujit compiles the CUDA C++ sources it links (a ``.cu``
file, a ``CUSource``) into the calling kernel's own NVRTC program (so NVRTC
may inline them) and calls the function through a small wrapper:

- ``abi="numba"`` (the default): ``int name(ret *out, args...)``, Numba's
  calling convention: the result is written through the first pointer (a
  ``void *`` for a void function) and the int status returned is ignored;
- ``abi="c"``: ``ret name(args...)``, a plain C function.

Arguments are numbers (converted to the declared types) and raw pointers
(``types.CPointer(dtype)``: a CPointer parameter of the kernel, or
``ffi.from_buffer(array)`` of a cffi ``FFI``).  PTX, LTO-IR, cubin, fatbin,
object and archive files cannot be linked (cujit has no link step): each is
a clear error when declared.

The frontend reads a declared function through its ``__cujit_extern__``
tuple: (name, signature text, abi is "c", use_cooperative, source texts),
the files read again at every compile, so a changed ``.cu`` compiles again
(the front key hashes the tuple)."""
import io
import os

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
    """A link item cujit can compile: a .cu path or a CUSource; anything
    else is an error saying what cujit does instead."""
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        ext = os.path.splitext(path)[1].lower()
        if ext == ".cu":
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{what}: link file {path!r} does not exist")
            return
        kind = _KINDS.get(ext)
        if kind is None:
            raise ValueError(f"{what}: don't know how to link {path!r}: give a .cu file or a "
                             "cuda.CUSource")
        item = kind
    elif isinstance(item, CUSource):
        if not isinstance(item.data, (str, bytes)):
            raise TypeError(f"{what}: CUSource {item.name!r} holds "
                            f"{type(item.data).__name__}, not CUDA C++ text")
        return
    elif not isinstance(item, LinkableCode) and not (isinstance(item, type)
                                                     and issubclass(item, LinkableCode)):
        raise TypeError(f"{what}: link items are paths or cuda.CUSource objects, got "
                        f"{type(item).__name__}")
    kind = item.kind if isinstance(item, type) else type(item).kind
    raise NotImplementedError(
        f"{what}: cujit cannot link {_label(item)!r} ({kind}): it compiles CUDA C++ sources "
        "(.cu files, cuda.CUSource) into the kernel's NVRTC program and has no link step for "
        "PTX, LTO-IR, cubin, fatbin, object or archive files; link the .cu source instead")


def _text(item):
    """The CUDA C++ of a link item, after a #line naming it"""
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        with open(path, "r") as f:
            data = f.read()
        name = path
    else:
        data = item.data
        data = data.decode() if isinstance(data, bytes) else data
        name = item.name
    # named for NVRTC's messages; pipeline/errors.c knows the mark
    name = str(name).replace("\\", "/").replace('"', "'")
    return f'#line 1 "{name} (linked CUDA C++)"\n{data}\n'


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
    (a string or a signature object), defined in the CUDA C++ ``link``
    gives (a .cu path, a cuda.CUSource, or a list of them).  ``abi``:
    "numba" (``int name(ret *out, args...)``) or "c" (``ret name(args...)``);
    ``use_cooperative``: kernels calling it are launched cooperatively."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}: give abi='numba' or abi='c'")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"declare_device: the name must be a C identifier, got {name!r}")
    items = link_items(link, f"declare_device({name!r})")
    return ExternFunction(name, sig, items, use_cooperative, abi)
