"""``import newton_gym`` asks torch's OpenMP workers to sleep between operations (OMP_WAIT_POLICY=PASSIVE)
where it still can, and a multi-thread CPU env warns where torch came first."""

import os
import subprocess
import sys

import pytest

from newton_gym import openmp_wait

_PROBE = "import os; {before}import newton_gym.openmp_wait as o; print(os.environ.get('OMP_WAIT_POLICY'), o.spinning())"


def _run(before: str, **env) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    environ.update(env)
    code = _PROBE.format(before=before)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_import_sets_passive_before_torch_and_keeps_a_users_choice():
    assert _run("") == "PASSIVE False"
    assert _run("", OMP_WAIT_POLICY="ACTIVE") == "ACTIVE False"
    assert _run("import torch; ") == "None True"  # too late: torch's runtime has read the environment


def test_spinning_workers_warn_once_for_multi_thread_cpu_solvers(monkeypatch):
    monkeypatch.setattr(openmp_wait, "_state", {"spinning": True, "warned": False})
    openmp_wait.warn_if_spinning(1)  # one solver thread: nothing to take
    with pytest.warns(UserWarning, match="OMP_WAIT_POLICY=PASSIVE"):
        openmp_wait.warn_if_spinning(2)
    openmp_wait.warn_if_spinning(2)  # once per process
    assert openmp_wait._state["warned"]
