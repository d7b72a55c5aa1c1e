"""PPORunner: trains skrl's PPO on a newton_gym task, with logging, checkpoints and a learning curve.

The loop is skrl's sequential trainer loop (act, step, record_transition, post_interaction) written out
here for one reason: skrl's trainer bootstraps truncated episodes from the step's returned observation,
which after an autoreset belongs to the next episode. The runner passes the finished episode's final
observation instead (``info["bootstrap_obs"]`` of :class:`~newton_gym.train.skrl_env.SkrlVecEnv`).

Outputs in ``out_dir``: TensorBoard events (skrl's losses, rewards, learning rate, plus the mean episode
return and every named reward term), ``checkpoints/agent_<iteration>.pt`` and ``checkpoints/final.pt``,
``learning_curve.png`` and ``learning_curve.csv`` (mean episode return vs env steps), ``config.json``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass

import torch

from .config import TrainCfg, to_dict
from .distributed import all_reduce_mean, any_rank, init_distributed, sync_running_scaler
from .episode_log import EpisodeLog
from .progress import Progress

__all__ = ["PPORunner", "TrainResult"]


@dataclass
class TrainResult:
    """What a run achieved (means over processes under torchrun)."""

    start_return: float
    end_return: float
    env_steps: int
    iterations: int
    seconds: float
    checkpoint: str
    curve_png: str


class PPORunner:
    """Builds the environment and agent of ``cfg`` and trains.

    Args:
        cfg: a validated TrainCfg.
        out_dir: run directory (created).
        progress: draw the tqdm bar (rank 0 only).
        log: function printing one line (rank 0 only).
    """

    def __init__(self, cfg: TrainCfg, out_dir: str, progress: bool = True, log=print):
        self.t0 = time.perf_counter()
        self.cfg = cfg
        self.dist, self.device = init_distributed(cfg.device)
        self.out_dir = os.path.abspath(out_dir)
        self.log = log if self.dist.is_main else (lambda *a, **k: None)
        self.show_progress = progress and self.dist.is_main
        if cfg.torch_threads > 0:
            torch.set_num_threads(cfg.torch_threads)
        self.seed = cfg.seed + self.dist.rank
        torch.manual_seed(self.seed)
        self.env = self._make_env()
        self.agent = self._make_agent()
        self.episodes = EpisodeLog(cfg.num_envs)
        self.env_steps = 0
        self.iteration = 0
        self._start_logged = False

    # ------------------------------------------------------------------ construction
    def _make_env(self):
        import gymnasium as gym

        import newton_gym  # noqa: F401  (registers the ids)

        from .skrl_env import SkrlVecEnv

        overrides = dict(self.cfg.env)
        overrides["seed"] = self.seed
        self.vec = gym.make_vec(self.cfg.task, num_envs=self.cfg.num_envs, device=self.device, **overrides)
        return SkrlVecEnv(self.vec, seed=self.seed, scale_actions=self.cfg.policy.scale_actions)

    def _make_agent(self):
        from .agent import build_agent

        log_dir = self.out_dir if self.dist.is_main else None
        agent = build_agent(
            self.cfg, self.env.observation_space, self.env.action_space, self.cfg.num_envs, self.env.device, log_dir
        )
        agent.init(trainer_cfg=None)
        agent.enable_training_mode(True)
        return agent

    def meta(self) -> dict:
        """Checkpoint metadata (see :mod:`newton_gym.train.checkpoint`)."""
        vec = self.vec
        return {
            "task": self.cfg.task,
            "observation_size": int(vec.single_observation_space.shape[0]),
            "action_size": int(vec.single_action_space.shape[0]),
            "action_low": vec.single_action_space.low.tolist(),
            "action_high": vec.single_action_space.high.tolist(),
            "scale_actions": self.cfg.policy.scale_actions,
            "hidden": list(self.cfg.policy.hidden),
            "activation": self.cfg.policy.activation,
            "train_config": to_dict(self.cfg),
            "env_steps": self.env_steps,
            "iteration": self.iteration,
            "mean_return": self.episodes.mean_return,
        }

    # ------------------------------------------------------------------ training
    def _steps_per_iteration(self) -> int:
        return self.cfg.num_envs * self.cfg.ppo.rollouts * self.dist.world_size

    def _planned_iterations(self) -> int:
        if self.cfg.timesteps > 0:
            return max(1, math.ceil(self.cfg.timesteps / self._steps_per_iteration()))
        return 10**9  # time-limited: _should_stop ends the run

    def _should_stop(self, iterations: int, requested: bool = False) -> bool:
        out_of_time = self.cfg.minutes > 0 and time.perf_counter() - self.t0 >= self.cfg.minutes * 60.0
        # Every rank must leave the loop at the same iteration, or the next all-reduce would hang.
        return self.iteration >= iterations or any_rank(out_of_time or requested)

    def _collect(self, obs, timestep: int, timesteps: int):
        """One rollout of ``ppo.rollouts`` vector steps (the agent updates after the last one)."""
        agent, env = self.agent, self.env
        for _ in range(self.cfg.ppo.rollouts):
            agent.pre_interaction(timestep=timestep, timesteps=timesteps)
            with torch.no_grad():
                actions, _ = agent.act(obs, None, timestep=timestep, timesteps=timesteps)
                next_obs, reward, terminated, truncated, info = env.step(actions)
                self.episodes.on_step(info, reward)
                agent.record_transition(
                    observations=obs,
                    states=None,
                    actions=actions,
                    rewards=reward,
                    next_observations=info["bootstrap_obs"],
                    next_states=None,
                    terminated=terminated,
                    truncated=truncated,
                    infos=info,
                    timestep=timestep,
                    timesteps=timesteps,
                )
            agent.post_interaction(timestep=timestep, timesteps=timesteps)
            obs = next_obs
            timestep += 1
        return obs, timestep

    def train(self, on_iteration=None) -> TrainResult:
        """Run until ``timesteps`` env steps or ``minutes`` of wall-clock; returns a TrainResult.

        Args:
            on_iteration: optional callback ``f(runner) -> bool`` called after every update; True stops
                the run (e.g. a return threshold reached; see benchmarks/bench_ppo.py).
        """
        iterations = self._planned_iterations()
        timesteps = iterations * self.cfg.ppo.rollouts if self.cfg.timesteps > 0 else 10**12
        self._write_config()
        self.log(
            f"training {self.cfg.task}: {self.cfg.num_envs} worlds x {self.dist.world_size} process(es), "
            f"{self._steps_per_iteration()} env steps per iteration, out: {self.out_dir}"
        )
        progress = Progress(
            self.cfg.timesteps, self.cfg.minutes * 60.0 - (time.perf_counter() - self.t0), enabled=self.show_progress
        )
        obs, _ = self.env.reset()
        timestep, stop = 0, False
        try:
            while not self._should_stop(iterations, stop):
                obs, timestep = self._collect(obs, timestep, timesteps)
                self._after_update()
                progress.update(self.env_steps, self.episodes.mean_return)
                self._log_start_return(progress)
                stop = bool(on_iteration(self)) if on_iteration is not None else False
        finally:
            progress.close()
        return self._finish()

    def _log_start_return(self, progress):
        if not self._start_logged and len(self.episodes.first_returns) >= self.cfg.num_envs:
            self._start_logged = True
            progress.write(
                self.log, f"return at start (first {self.cfg.num_envs} episodes): {self.episodes.start_return:.1f}"
            )

    def _after_update(self):
        self.iteration += 1
        self.env_steps += self._steps_per_iteration()
        sync_running_scaler(getattr(self.agent, "_observation_preprocessor", None))
        sync_running_scaler(getattr(self.agent, "_value_preprocessor", None))
        scalars = self.episodes.end_iteration(self.env_steps)
        writer = getattr(self.agent, "writer", None)
        if writer is not None and self.dist.is_main:
            for tag, value in scalars.items():
                writer.add_scalar(tag=tag, value=value, timestep=self.env_steps)
        if self.cfg.checkpoint_every > 0 and self.iteration % self.cfg.checkpoint_every == 0:
            self._checkpoint(f"agent_{self.iteration}.pt")

    def _checkpoint(self, name: str) -> str:
        from .checkpoint import save_checkpoint

        path = os.path.join(self.out_dir, "checkpoints", name)
        if self.dist.is_main:
            save_checkpoint(path, self.agent, self.meta())
        return path

    def _write_config(self):
        if self.dist.is_main:
            os.makedirs(self.out_dir, exist_ok=True)
            with open(os.path.join(self.out_dir, "config.json"), "w") as f:
                json.dump(to_dict(self.cfg), f, indent=2)

    def _finish(self) -> TrainResult:
        from .plotting import plot_learning_curve

        checkpoint = self._checkpoint("final.pt")
        png = os.path.join(self.out_dir, "learning_curve.png")
        if self.dist.is_main:
            self.episodes.write_csv(os.path.join(self.out_dir, "learning_curve.csv"))
            plot_learning_curve(self.episodes.curve, png, title=f"{self.cfg.task} PPO (skrl)")
            writer = getattr(self.agent, "writer", None)
            if writer is not None:
                writer.flush()
        result = TrainResult(
            all_reduce_mean(self.episodes.start_return),
            all_reduce_mean(self.episodes.mean_return),
            self.env_steps,
            self.iteration,
            time.perf_counter() - self.t0,
            checkpoint,
            png,
        )
        self.log(
            f"return at start: {result.start_return:.1f}   at end: {result.end_return:.1f}   "
            f"({result.env_steps} env steps, {result.iterations} iterations, {result.seconds:.0f} s)"
        )
        return result

    def close(self):
        self.env.close()
