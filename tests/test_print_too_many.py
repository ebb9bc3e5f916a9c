"""print() of more than 32 values (CUDA's printf takes 32): the kernel prints
its format instead and compiling warns, as numba-cuda does (numba's
test_print.py::test_too_many_args); the warning comes in every process, so
such a kernel is never recorded in the front-key index.  The printed text
is checked on the CPU by tests/kernels/printing.py (test_kernels_host.py)."""
import os
import subprocess
import sys
import textwrap

WARNING = ("CUDA print() cannot print more than 32 items. The raw format string will be "
           "emitted by the kernel instead.")

PROGRAM = textwrap.dedent("""\
    from cujit import cuda

    @cuda.jit
    def print_too_many(r):
        print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
              r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
              r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
              r[31], r[32])

    @cuda.jit
    def print_32(r):
        print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
              r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
              r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
              r[31])

    src = print_too_many.inspect_cuda("(int64[::1],)")
    assert 'printf("%s", "' + " ".join(["%lld"] * 33) in src, src
    src = print_32.inspect_cuda("(int64[::1],)")
    assert 'printf("' + " ".join(["%lld"] * 32) in src, src
    print("ok")
    """)


def test_warns_in_every_process(tmp_path):
    path = tmp_path / "too_many.py"
    path.write_text(PROGRAM)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):          # the second run would be a front-key hit if recorded
        r = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "ok"
        assert r.stderr.count(WARNING) == 1, r.stderr
