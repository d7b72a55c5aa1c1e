"""Deterministic returns of a policy in newton_gym and in gymnasium's MuJoCo task of the same name (sim to sim).

Training reports the return of the exploring (stochastic) policy; what transfers is the mean action, so
``newton-gym train`` ends with :func:`evaluate` and ``scripts/sim2sim.py`` runs it for any checkpoint.
A newton_gym task and its MuJoCo counterpart share observation, action and reward definitions
(``Newton/Ant-v0`` <-> ``Ant-v5`` without ``cfrc_ext``, ``Newton/Humanoid-v0`` <-> ``Humanoid-v5``
without the four optional blocks), so one checkpoint runs unchanged in both.

| function | returns |
|---|---|
| ``run_newton(policy, task, episodes, ...)`` | first-episode returns of ``episodes`` worlds stepped together |
| ``run_mujoco(policy, task, episodes, ...)`` | returns of ``episodes`` episodes of gymnasium's MuJoCo task |
| ``evaluate(policy, task, episodes, ...)`` | {simulator name: returns} for both |
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["MUJOCO_TWIN", "NEWTON_TWIN", "run_newton", "run_mujoco", "evaluate"]

# newton_gym task -> gymnasium MuJoCo task, and back (MuJoCo/<id> is the trainer's id of the latter).
MUJOCO_TWIN = {"Newton/Ant-v0": "Ant-v5", "Newton/Humanoid-v0": "Humanoid-v5"}
NEWTON_TWIN = {f"MuJoCo/{v}": k for k, v in MUJOCO_TWIN.items()}


def run_newton(
    policy, task: str, episodes: int, seed: int = 0, max_steps: int = 1000, reset_noise_scale: float | None = None
) -> list[float]:
    """Returns of the first episode of each of ``episodes`` worlds of newton_gym's ``task`` (reset noise
    as the task defines it, or ``reset_noise_scale``)."""
    import gymnasium as gym

    import newton_gym  # noqa: F401

    noise = {} if reset_noise_scale is None else {"reset_noise_scale": float(reset_noise_scale)}
    env = gym.make_vec(task, num_envs=episodes, device="cpu", seed=seed, max_episode_steps=max_steps, **noise)
    obs, _ = env.reset(seed=seed)
    returns = torch.full((episodes,), float("nan"), dtype=torch.float64)
    with torch.no_grad():
        while torch.isnan(returns).any():
            obs, _, _, _, info = env.step(policy(obs))
            if "newton_episode" in info:
                first = info["newton_episode"]["_r"] & torch.isnan(returns)
                returns[first] = info["newton_episode"]["r"][first].double()
    env.close()
    return returns.tolist()


def run_mujoco(
    policy,
    task: str,
    episodes: int,
    seed: int = 0,
    max_steps: int = 1000,
    integrator: str | None = None,
    reset_noise_scale: float | None = None,
) -> list[float]:
    """Returns of ``episodes`` episodes of gymnasium's MuJoCo ``task`` (e.g. "Ant-v5") with newton_gym's
    observation options, under the task file's integrator or ``integrator``."""
    import gymnasium as gym

    from ..interop.mujoco_reference import REFERENCE_TASKS, set_integrator

    noise = {} if reset_noise_scale is None else {"reset_noise_scale": float(reset_noise_scale)}
    env = gym.make(task, max_episode_steps=max_steps, **REFERENCE_TASKS[task], **noise)
    if integrator is not None:
        set_integrator([env], integrator)
    returns = []
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy.act_numpy(obs).astype(np.float64))
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return returns


def evaluate(
    policy, task: str, episodes: int = 8, seed: int = 0, max_steps: int = 1000, reset_noise_scale: float | None = None
) -> dict:
    """{"<newton task>": returns, "<mujoco task> (MuJoCo <integrator>)": returns, ...} of the
    deterministic ``policy`` trained on ``task`` (a newton_gym id or its ``MuJoCo/<id>`` twin); ``{}`` when
    the task has no twin. A policy trained in MuJoCo runs there under its training integrator; one trained
    in newton_gym runs under the task file's (RK4 for Ant-v5 and Humanoid-v5) and under implicitfast,
    newton_gym's. ``reset_noise_scale`` 0 starts every episode from the same state in both simulators."""
    newton = NEWTON_TWIN.get(task, task)
    if newton not in MUJOCO_TWIN:
        return {}
    mujoco_task = MUJOCO_TWIN[newton]
    if task in NEWTON_TWIN:
        trained = (policy.meta.get("train_config", {}).get("env", {}) or {}).get("integrator")
        integrators = [trained or "rk4"]
    else:
        integrators = ["rk4", "implicitfast"]
    out = {newton: run_newton(policy, newton, episodes, seed, max_steps, reset_noise_scale)}
    for integrator in integrators:
        out[f"{mujoco_task} (MuJoCo {integrator})"] = run_mujoco(
            policy, mujoco_task, episodes, seed, max_steps, integrator, reset_noise_scale
        )
    return out
