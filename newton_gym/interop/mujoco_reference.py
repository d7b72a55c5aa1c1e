"""MujocoVectorEnv: gymnasium's own MuJoCo tasks (``Ant-v5``, ``Humanoid-v5``) behind the same vector
interface as newton_gym's tasks, so the trainer can learn a policy in MuJoCo C for the reverse sim-to-sim
check (trained in MuJoCo, run in newton_gym).

It steps ``num_envs`` gymnasium environments on the CPU (in ``threads`` contiguous groups side by side:
MuJoCo releases the GIL inside mj_step) and returns torch tensors with
Gymnasium's SAME_STEP autoreset: a finished episode's last observation is in ``info["final_obs"]``
(masked by ``info["_final_obs"]``) and its return / length in ``info["newton_episode"]`` (``"r"``, ``"l"``,
masked by ``"_r"``), which is what :class:`~newton_gym.train.skrl_env.SkrlVecEnv` and the training log
read. The observation options are newton_gym's: no ``cfrc_ext`` (Ant) and none of the four optional
blocks (Humanoid).

Registered as ``MuJoCo/Ant-v5`` and ``MuJoCo/Humanoid-v5`` (vector only, :func:`make_vector`) by
``import newton_gym``.
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from ..errors import ConfigError

__all__ = ["MujocoVectorEnv", "REFERENCE_TASKS", "make_vector", "set_integrator"]

# gymnasium id -> make() options that give newton_gym's observation layout.
REFERENCE_TASKS = {
    "Ant-v5": {"include_cfrc_ext_in_observation": False},
    "Humanoid-v5": {
        "include_cinert_in_observation": False,
        "include_cvel_in_observation": False,
        "include_qfrc_actuator_in_observation": False,
        "include_cfrc_ext_in_observation": False,
    },
}


class MujocoVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` copies of gymnasium's MuJoCo task ``task`` (a key of :data:`REFERENCE_TASKS`).

    Args:
        task: gymnasium id, e.g. "Ant-v5".
        num_envs: environments stepped in turn.
        device: torch device of the returned tensors.
        seed: seed of the first ``reset()`` (env i gets seed + i).
        max_episode_steps: episode length (gymnasium's registered one by default).
        threads: groups of environments stepped side by side (0: one per available CPU core).
        integrator: None keeps the task file's (Ant-v5 and Humanoid-v5: RK4); "implicitfast" or "euler"
            sets MuJoCo's integrator, e.g. to train with newton_gym's integrator.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        task: str,
        num_envs: int = 1,
        device="cpu",
        seed: int | None = None,
        max_episode_steps: int | None = None,
        threads: int = 0,
        integrator: str | None = None,
    ):
        if task not in REFERENCE_TASKS:
            raise ConfigError(f"MujocoVectorEnv: task must be one of {sorted(REFERENCE_TASKS)}, got {task!r}")
        self.envs = [
            gym.make(task, max_episode_steps=max_episode_steps, **REFERENCE_TASKS[task]) for _ in range(int(num_envs))
        ]
        if integrator is not None:
            set_integrator(self.envs, integrator)
        self.num_envs = int(num_envs)
        self.device = torch.device(device)
        self.seed = seed
        single = self.envs[0]
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = gym.vector.utils.batch_space(single.observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(single.action_space, self.num_envs)
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        threads = max(1, min(int(threads) or cores, self.num_envs))
        cuts = np.linspace(0, self.num_envs, threads + 1).astype(int)
        self._groups = [range(cuts[k], cuts[k + 1]) for k in range(threads)]
        self._pool = ThreadPoolExecutor(threads, "mujoco-reference") if threads > 1 else None

    def _tensor(self, x, dtype=torch.float32):
        return torch.as_tensor(np.asarray(x), dtype=dtype, device=self.device)

    def reset(self, *, seed=None, options=None):
        seed = self.seed if seed is None else seed
        obs = [env.reset(seed=None if seed is None else seed + i)[0] for i, env in enumerate(self.envs)]
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return self._tensor(np.stack(obs)), {}

    def _step_group(self, group, actions, obs, rewards, terminated, truncated, final_obs):
        for i in group:
            o, r, term, trunc, _ = self.envs[i].step(actions[i].astype(np.float64))
            rewards[i], terminated[i], truncated[i] = r, term, trunc
            if term or trunc:
                final_obs[i] = o
                o, _ = self.envs[i].reset()
            obs[i] = o

    def step(self, actions):
        actions = actions.detach().cpu().numpy() if isinstance(actions, torch.Tensor) else np.asarray(actions)
        n = self.num_envs
        rewards = np.zeros(n)
        terminated, truncated = np.zeros(n, bool), np.zeros(n, bool)
        obs = np.zeros((n,) + self.single_observation_space.shape)
        final_obs = np.zeros_like(obs)
        args = (actions, obs, rewards, terminated, truncated, final_obs)
        if self._pool is None:
            self._step_group(range(n), *args)
        else:
            for future in [self._pool.submit(self._step_group, g, *args) for g in self._groups]:
                future.result()
        self._returns += rewards
        self._lengths += 1
        done = terminated | truncated
        info = {}
        if done.any():
            info["final_obs"] = self._tensor(final_obs)
            info["_final_obs"] = torch.as_tensor(done, device=self.device)
            info["newton_episode"] = {
                "r": self._tensor(np.where(done, self._returns, 0.0)),
                "l": self._tensor(np.where(done, self._lengths, 0), torch.int64),
                "_r": torch.as_tensor(done, device=self.device),
            }
            info["_newton_episode"] = torch.as_tensor(done, device=self.device)
            self._returns[done] = 0.0
            self._lengths[done] = 0
        return (
            self._tensor(obs),
            self._tensor(rewards),
            torch.as_tensor(terminated, device=self.device),
            torch.as_tensor(truncated, device=self.device),
            info,
        )

    def close(self, **kwargs):
        if self._pool is not None:
            self._pool.shutdown()
        for env in self.envs:
            env.close()


def set_integrator(envs, integrator: str):
    """Set MuJoCo's integrator ("euler", "implicitfast", "implicit", "rk4") of gymnasium MuJoCo envs."""
    import mujoco

    names = {
        "euler": mujoco.mjtIntegrator.mjINT_EULER,
        "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
        "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
        "rk4": mujoco.mjtIntegrator.mjINT_RK4,
    }
    if integrator not in names:
        raise ConfigError(f"integrator must be one of {sorted(names)}, got {integrator!r}")
    for env in envs:
        env.unwrapped.model.opt.integrator = names[integrator]


def make_vector(
    task: str,
    num_envs: int = 1,
    device="cpu",
    seed: int | None = None,
    max_episode_steps: int | None = None,
    threads: int = 0,
    integrator: str | None = None,
    **options,
):
    """Vector entry point of the ``MuJoCo/<task>`` ids (registered by :mod:`newton_gym.envs.registration`).
    Options meant for newton_gym's tasks (``sim``, ``randomization``, ...) do not apply and are reported."""
    if options:
        warnings.warn(f"MuJoCo/{task}: options {sorted(options)} apply to newton_gym tasks only; ignored", stacklevel=3)
    return MujocoVectorEnv(
        task,
        num_envs=num_envs,
        device=device or "cpu",
        seed=seed,
        max_episode_steps=max_episode_steps,
        threads=threads,
        integrator=integrator,
    )
