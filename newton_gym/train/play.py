"""Run a trained policy deterministically in one world and record the rollout.

Records every control step into a time-sampled USD (``UsdRecorder``; open it in usdview) and every
``gif_every``-th step as a GIF frame from the headless Warp ray caster with a camera tracking the robot
(the environment's ``rgb_array`` render). No OpenGL needed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import torch

from .checkpoint import load_policy

__all__ = ["PlayResult", "play"]


@dataclass
class PlayResult:
    """Episode returns and lengths, and the files written."""

    returns: list = field(default_factory=list)
    lengths: list = field(default_factory=list)
    usd: str = ""
    gif: str = ""


def _make_env(meta: dict, task: str | None, seed: int, record: bool):
    import gymnasium as gym

    import newton_gym  # noqa: F401  (registers the ids)

    env_overrides = dict(meta.get("train_config", {}).get("env", {}))
    env_overrides["seed"] = seed
    return gym.make_vec(
        task or meta["task"], num_envs=1, device="cpu", render_mode="rgb_array" if record else None, **env_overrides
    )


def play(
    checkpoint: str,
    out_dir: str | None = None,
    task: str | None = None,
    episodes: int = 1,
    max_steps: int = 0,
    seed: int = 0,
    gif_every: int = 2,
    log=print,
) -> PlayResult:
    """Run ``episodes`` episodes of the checkpoint's policy (mean actions) and record them.

    Args:
        checkpoint: a checkpoint ``newton-gym train`` wrote (either backend) or a shipped policy.
        out_dir: where ``rollout.usda`` and ``rollout.gif`` go (None: record nothing).
        task: task id (default: the one the checkpoint was trained on).
        episodes: number of episodes.
        max_steps: stop after this many steps in all (0: only when the episodes end).
        seed: reset seed.
        gif_every: keep every n-th step as a GIF frame.
        log: prints one line per episode.
    """
    policy = load_policy(checkpoint)
    meta = policy.meta
    env = _make_env(meta, task, seed, record=out_dir is not None)
    result = PlayResult()
    recorder, frames, dt = None, [], env.sim.dt
    if out_dir is not None:
        from ..render import UsdRecorder

        os.makedirs(out_dir, exist_ok=True)
        result.usd = os.path.join(out_dir, "rollout.usda")
        recorder = UsdRecorder(env.sim.model, result.usd, world=0, fps=1.0 / dt)
    obs, _ = env.reset(seed=seed)
    step = 0
    while len(result.returns) < episodes and (max_steps <= 0 or step < max_steps):
        if recorder is not None:
            recorder.record(env.sim.state, time=step * dt)
            if step % max(gif_every, 1) == 0:
                frames.append(env.render())
        with torch.no_grad():
            obs, _, _, _, info = env.step(policy(obs))
        step += 1
        if "newton_episode" in info:
            result.returns.append(float(info["newton_episode"]["r"][0]))
            result.lengths.append(int(info["newton_episode"]["l"][0]))
            log(f"episode {len(result.returns)}: return {result.returns[-1]:.1f} ({result.lengths[-1]} steps)")
    if not result.returns:  # cut by max_steps before any episode ended: report the partial one
        result.returns.append(float(env.episode_return[0]))
        result.lengths.append(int(env.episode_length[0]))
        log(f"partial episode: return {result.returns[-1]:.1f} ({result.lengths[-1]} steps, max_steps reached)")
    if recorder is not None:
        from ..render import write_gif

        recorder.save()
        result.gif = write_gif(frames, os.path.join(out_dir, "rollout.gif"), fps=1.0 / (dt * max(gif_every, 1)))
    env.close()
    return result
