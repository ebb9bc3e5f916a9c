"""CUDA IPC, managed and mapped memory, fork safety and the interface's
stream rules, on the fake driver: tests/fakecuda/ipc_scenarios.py, each
scenario in a fresh process."""
import os
import subprocess
import sys

import pytest

from test_runtime_nogpu import FAKE_DIR, fake_driver  # noqa: F401


def run(fake_driver, name, tmp_path, **env):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_IPC", None)
    e.update(env)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "ipc_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout, r.stderr)
    assert "%s ok" % name in r.stdout
    return r


@pytest.mark.parametrize("name", ["ipc", "ipc_errors", "managed", "mapped", "fork",
                                  "fork_before_init", "cai_streams"])
def test_scenario(fake_driver, tmp_path, name):  # noqa: F811
    run(fake_driver, name, tmp_path)


@pytest.mark.parametrize("env, why", [({"CUJIT_IPC": "0"}, "CUJIT_IPC is off"),
                                      ({"FAKECUDA_NOIPC": "1"}, "no POSIX file descriptor")])
def test_pool_not_exportable(fake_driver, tmp_path, env, why):  # noqa: F811
    run(fake_driver, "ipc_off", tmp_path, WHY=why, **env)
