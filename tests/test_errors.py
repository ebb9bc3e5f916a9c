"""Every bad kernel in tests/errors/ raises cujit.CompileError at the line
marked `# ERROR: <message substring>`, with the file name, a column, the
source line and a message holding the substring (case-insensitive).

Each file is one independent case: it is imported on its own and its kernel
compiled with the example arguments of its ARGS dict.  A decorator that
compiles eagerly and raises at import is accepted as well."""
import glob
import importlib.util
import os
import re
import sys

import pytest

import cujit

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR_DIR = os.path.join(HERE, "errors")
FILES = sorted(p for p in glob.glob(os.path.join(ERROR_DIR, "*.py"))
               if not os.path.basename(p).startswith("_"))
MARK = re.compile(r"#\s*ERROR:\s*(.*?)\s*$")


def annotation(path):
    """(line number, message substring, source line) of the one marked line."""
    found = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = MARK.search(line)
            if m:
                found.append((n, m.group(1), line.rstrip("\n")))
    assert len(found) == 1, "%s: needs exactly one '# ERROR:' line, has %d" % (path, len(found))
    return found[0]


def check(err, path, lineno, sub, line):
    name = os.path.basename(path)
    where = "%s: %s (line %s, expected %d)" % (name, err, err.lineno, lineno)
    assert err.lineno == lineno, where
    assert err.filename and str(err.filename).endswith(name), "filename %r" % err.filename
    assert err.offset is not None and err.offset >= 1, "offset %r" % err.offset
    assert (err.text or "").strip() == line.strip(), "text %r" % err.text
    msg = str(err.msg if err.msg is not None else err)
    assert sub.lower() in msg.lower(), "%r is not in the message %r" % (sub, msg)


def load(path):
    modname = "cujit_error_case_" + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p)[:-3] for p in FILES])
def test_error(path):
    lineno, sub, line = annotation(path)
    try:
        mod = load(path)
    except cujit.CompileError as e:          # an eager decorator: fine
        check(e, path, lineno, sub, line)
        return
    finally:
        sys.modules.pop("cujit_error_case_" + os.path.basename(path)[:-3], None)
    assert len(mod.ARGS) == 1, "one kernel per file"
    (name, args), = mod.ARGS.items()
    kernel = getattr(mod, name)
    kind = getattr(mod, "KIND", cujit.CompileError)
    with pytest.raises(cujit.CompileError) as info:
        kernel.inspect_cuda(*args)
    check(info.value, path, lineno, sub, line)
    assert isinstance(info.value, kind), "%r is not a %s" % (info.value, kind.__name__)
    with pytest.raises(cujit.CompileError) as info:
        kernel.inspect_ptx(*args)
    check(info.value, path, lineno, sub, line)


def test_enough_cases():
    assert len(FILES) >= 60
