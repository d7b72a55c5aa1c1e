"""The dummy-sized training config shared by the training tests (a module with its own name, so it is
not confused with the other test folders' conftest.py)."""


def tiny_config(**changes) -> dict:
    """A training config small enough for a test: 4 Cartpole worlds, 8-step rollouts, short episodes."""
    cfg = {
        "task": "Newton/Cartpole-v0",
        "num_envs": 4,
        "seed": 0,
        "timesteps": 4 * 8 * 6,
        "minutes": 0.0,
        "checkpoint_every": 2,
        "env": {"max_episode_steps": 12},
        "ppo": {"rollouts": 8, "learning_epochs": 2, "mini_batches": 2},
        "policy": {"hidden": [16, 16]},
    }
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    return cfg


#: backend -> the sections of a tiny TOML training run (4 worlds, 8-step rollouts, 16-step episodes,
#: 16 x 16 networks): skrl on Newton/Ant-v0, rsl_rl on Newton/Go1-Flat-v0.
TINY_SECTIONS = {
    "skrl": """
[env]
max_episode_steps = 16
[ppo]
rollouts = 8
learning_epochs = 1
mini_batches = 1
[policy]
hidden = [16, 16]
""",
    "rsl_rl": """
[env]
max_episode_steps = 16
[rsl_rl]
num_steps_per_env = 8
num_learning_epochs = 1
num_mini_batches = 1
actor_hidden_dims = [16, 16]
critic_hidden_dims = [16, 16]
""",
}
TINY_TASKS = {"skrl": "Newton/Ant-v0", "rsl_rl": "Newton/Go1-Flat-v0"}


def tiny_toml(backend: str, **top) -> str:
    """A tiny TOML training run of ``backend`` with top-level keys ``top`` (e.g. ``timesteps=96``)."""
    lines = [f'task = "{TINY_TASKS[backend]}"', "num_envs = 4", "minutes = 0.0"]
    if backend == "rsl_rl":
        lines.append('backend = "rsl_rl"')
    lines += [f"{key} = {str(value).lower() if isinstance(value, bool) else value}" for key, value in top.items()]
    return "\n".join(lines) + "\n" + TINY_SECTIONS[backend]


def train_cli(*args, wait_for: str | None = None, timeout: float = 120.0, env: dict | None = None):
    """Run ``newton-gym train`` in a subprocess (repository root, one OpenMP thread, no progress bar, no
    evaluation); with ``wait_for``, SIGINT it once that file exists. Returns (exit status, stdout, stderr)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, **(env or {}), OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "newton_gym.cli", "train", "--no-progress", "--eval-episodes", "0", *args]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if wait_for is not None:
            deadline = time.monotonic() + timeout
            while not os.path.exists(wait_for):
                assert proc.poll() is None, proc.communicate()[1][-3000:]
                assert time.monotonic() < deadline, f"no {wait_for} after {timeout} s"
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err
