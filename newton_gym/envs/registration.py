"""Gymnasium registration of the newton_gym tasks (ids ``Newton/<Task>-v0``)."""

from __future__ import annotations

import gymnasium as gym

__all__ = ["TASKS", "register_envs", "make_single", "make_vector"]

# id -> (module, task class, episode steps)
TASKS = {
    "Newton/Ant-v0": ("newton_gym.envs.ant", "AntTask", 1000),
    "Newton/Humanoid-v0": ("newton_gym.envs.humanoid", "HumanoidTask", 1000),
    "Newton/Cartpole-v0": ("newton_gym.envs.cartpole", "CartpoleTask", 1000),
    "Newton/Go1-Flat-v0": ("newton_gym.envs.go1", "Go1Task", 1000),
    "Newton/Go1-Rough-v0": ("newton_gym.envs.go1_rough", "Go1RoughTask", 1000),
    "Newton/G1-Flat-v0": ("newton_gym.envs.g1", "G1Task", 1000),
}


def task_class(env_id: str):
    import importlib

    module, name, _ = TASKS[env_id]
    return getattr(importlib.import_module(module), name)


def make_single(task: str, **kwargs):
    """Entry point of ``gym.make``: a NewtonEnv."""
    from .single_env import NewtonEnv

    return NewtonEnv(task_class(task), **kwargs)


def make_vector(task: str, num_envs: int = 1, **kwargs):
    """Vector entry point of ``gym.make_vec``: a NewtonVectorEnv."""
    from .vector_env import NewtonVectorEnv

    # gym.make_vec injects the registered episode length; a config file's own value must win over it.
    if kwargs.get("config") is not None and kwargs.get("max_episode_steps") == TASKS[task][2]:
        kwargs.pop("max_episode_steps")
    return NewtonVectorEnv(task_class(task), num_envs=num_envs, **kwargs)


def register_envs():
    """Register every task, and the MuJoCo reference tasks ``MuJoCo/Ant-v5`` / ``MuJoCo/Humanoid-v5``
    (:mod:`newton_gym.interop.mujoco_reference`), idempotently. Called by ``import newton_gym``."""
    for task in ("Ant-v5", "Humanoid-v5"):
        if f"MuJoCo/{task}" not in gym.registry:
            gym.register(
                id=f"MuJoCo/{task}",
                vector_entry_point="newton_gym.interop.mujoco_reference:make_vector",
                kwargs={"task": task},
            )
    for env_id, (_, _, steps) in TASKS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point=make_single,
            vector_entry_point=make_vector,
            max_episode_steps=steps,
            kwargs={"task": env_id},
        )
