"""PPORunner: trains skrl's PPO on a newton_gym task, with logging, checkpoints and a learning curve.

The loop is skrl's sequential trainer loop (act, step, record_transition, post_interaction) written out
here for one reason: skrl's trainer bootstraps truncated episodes from the step's returned observation,
which after an autoreset belongs to the next episode. The runner passes the finished episode's final
observation instead (``info["bootstrap_obs"]`` of :class:`~newton_gym.train.skrl_env.SkrlVecEnv`).

Outputs in ``out_dir``: TensorBoard events (skrl's losses, rewards, learning rate, plus the mean episode
return and every named reward term), ``checkpoints/agent_<iteration>.pt`` and ``checkpoints/final.pt``,
``learning_curve.csv`` (mean episode return vs env steps; rewritten with every checkpoint),
``learning_curve.png`` and ``config.json``.

Stopping and resuming. Under SIGINT or SIGTERM (:class:`~newton_gym.train.interrupt.StopSignals`) the
run drops the rollout in progress (an update in progress finishes), writes
``checkpoints/agent_<iteration>.pt``, the curve and the config, logs one line saying where, and returns
a result with ``interrupted`` set. Under torchrun the processes agree on the stop at the end of an
iteration (the rollout in progress is finished, as the update's all-reduce needs every rank). A
:class:`~newton_gym.train.resume.ResumePoint` given to the runner continues such a checkpoint (see
:mod:`newton_gym.train.resume`); rank 0's RNG state is the one saved, and under torchrun the other
ranks continue from seeds of their rank and the iteration.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass

import torch

from ..errors import CheckpointError
from .checkpoint_io import write_text
from .config import TrainCfg, to_dict
from .distributed import all_reduce_mean, any_rank, init_distributed, shutdown_distributed, sync_running_scaler
from .episode_log import EpisodeLog
from .interrupt import StopSignals, interrupted_line
from .progress import Progress
from .resume import NO_RESUME_STATE
from .rng_state import capture_rng, restore_rng

__all__ = ["PPORunner", "TrainResult"]


@dataclass
class TrainResult:
    """What a run achieved (means over processes under torchrun).

    Attributes:
        start_return, end_return: mean return of the first and of the last finished episodes.
        env_steps, iterations: done over the whole run (before a resume included).
        seconds: wall-clock of the whole run [s].
        checkpoint: the last checkpoint written (``final.pt``, or ``agent_<iteration>.pt`` if interrupted).
        curve_png, curve_csv: the learning curve files.
        interrupted: the run stopped on SIGINT / SIGTERM.
    """

    start_return: float
    end_return: float
    env_steps: int
    iterations: int
    seconds: float
    checkpoint: str
    curve_png: str
    curve_csv: str = ""
    interrupted: bool = False


class PPORunner:
    """Builds the environment and agent of ``cfg`` and trains.

    Args:
        cfg: a validated TrainCfg.
        out_dir: run directory (created).
        progress: draw the tqdm bar (rank 0 only).
        log: function printing one line (rank 0 only).
        resume: continue from this checkpoint (its run directory should be ``out_dir``).
    """

    def __init__(self, cfg: TrainCfg, out_dir: str, progress: bool = True, log=print, resume=None):
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
        self.seconds_before = 0.0  # wall-clock of the sessions before a resume [s]
        self.resumed_from = None
        self._start_logged = False
        if resume is not None:
            self._resume(resume)

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
            "seconds": self.seconds(),
            "mean_return": self.episodes.mean_return,
        }

    def seconds(self) -> float:
        """Wall-clock of the whole run so far, set-up and earlier sessions included [s]."""
        return self.seconds_before + time.perf_counter() - self.t0

    def _training_state(self) -> dict:
        """Checkpoint entries besides the agent's modules: the schedule, RNG state and episode log."""
        extra = {"resume": {"rng": capture_rng(self.vec), "episodes": self.episodes.state_dict()}}
        scheduler = getattr(self.agent, "scheduler", None)
        if scheduler is not None:
            extra["learning_rate_scheduler"] = scheduler.state_dict()
        return extra

    def _resume(self, point):
        """Load the agent's modules, schedule, progress, episode log and RNG state of ``point``."""
        data = point.data
        modules = {name: m for name, m in self.agent.checkpoint_modules.items() if hasattr(m, "load_state_dict")}
        missing = [name for name in modules if name not in data]
        if missing:
            raise CheckpointError(f"cannot be resumed with this config: it lacks {missing}", point.checkpoint)
        for name, module in modules.items():
            module.load_state_dict(data[name])
        scheduler = getattr(self.agent, "scheduler", None)
        if scheduler is not None and "learning_rate_scheduler" in data:
            scheduler.load_state_dict(data["learning_rate_scheduler"])
        meta = point.meta
        self.iteration, self.env_steps = int(meta["iteration"]), int(meta["env_steps"])
        self.seconds_before = float(meta.get("seconds", 0.0))
        state = data.get("resume")
        if state is not None:
            self.episodes.load_state_dict(state["episodes"])
            self._start_logged = len(self.episodes.first_returns) >= self.cfg.num_envs
        else:
            self.log(NO_RESUME_STATE)
        if state is not None and self.dist.is_main:
            restore_rng(state["rng"], self.vec)
        else:  # only rank 0's state is saved
            torch.manual_seed(self.seed + 7919 * self.iteration)
        self.resumed_from = point.checkpoint

    # ------------------------------------------------------------------ training
    def _steps_per_iteration(self) -> int:
        return self.cfg.num_envs * self.cfg.ppo.rollouts * self.dist.world_size

    def _planned_iterations(self) -> int:
        if self.cfg.timesteps > 0:
            return max(1, math.ceil(self.cfg.timesteps / self._steps_per_iteration()))
        return 10**9  # time-limited: _should_stop ends the run

    def _seconds_left(self) -> float:
        return self.cfg.minutes * 60.0 - self.seconds()

    def _should_stop(self, iterations: int, requested: bool = False) -> bool:
        out_of_time = self.cfg.minutes > 0 and self._seconds_left() <= 0.0
        # Every rank must leave the loop at the same iteration, or the next all-reduce would hang.
        return self.iteration >= iterations or any_rank(out_of_time or requested)

    def _collect(self, obs, timestep: int, timesteps: int, signals: StopSignals | None = None):
        """One rollout of ``ppo.rollouts`` vector steps (the agent updates after the last one); returns
        (obs, timestep, complete). With ``signals``, a stop request drops the rollout (complete False)."""
        agent, env = self.agent, self.env
        for _ in range(self.cfg.ppo.rollouts):
            if signals is not None and signals.requested:
                return obs, timestep, False
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
        return obs, timestep, True

    def train(self, on_iteration=None) -> TrainResult:
        """Run until ``timesteps`` env steps or ``minutes`` of wall-clock (both counted over the whole run)
        or a stop signal; returns a TrainResult.

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
        if self.resumed_from:
            self.log(
                f"resuming {self.resumed_from}: iteration {self.iteration}, {self.env_steps} env steps, "
                f"{self.seconds_before:.0f} s so far"
            )
        total = iterations * self._steps_per_iteration() if self.cfg.timesteps > 0 else 0
        progress = Progress(total, self._seconds_left(), self.env_steps, enabled=self.show_progress)
        obs, _ = self.env.restart() if self.resumed_from else self.env.reset()
        timestep = self.iteration * self.cfg.ppo.rollouts  # skrl's step count, TensorBoard's axis of its scalars
        stop, start_iteration = False, self.iteration
        with StopSignals() as signals:
            try:
                # under torchrun a rollout is never cut: every rank must reach the update's all-reduce
                local = None if self.dist.enabled else signals
                while not self._should_stop(iterations, stop or signals.requested):
                    obs, timestep, complete = self._collect(obs, timestep, timesteps, local)
                    if not complete:
                        break
                    self._after_update()
                    progress.update(self.env_steps, self.episodes.mean_return)
                    self._log_start_return(progress)
                    stop = bool(on_iteration(self)) if on_iteration is not None else False
            finally:
                progress.close()
            interrupted = any_rank(signals.requested)
            if self.iteration == start_iteration and not interrupted:
                self.log(f"the run's budget was already reached at iteration {self.iteration}; give a larger one")
            return self._finish(interrupted, signals.signal_name)

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
        """Write ``checkpoints/<name>`` and the learning curve CSV (rank 0); returns the checkpoint path."""
        from .checkpoint import save_checkpoint

        path = os.path.join(self.out_dir, "checkpoints", name)
        if self.dist.is_main:
            save_checkpoint(path, self.agent, self.meta(), self._training_state())
            self.episodes.write_csv(os.path.join(self.out_dir, "learning_curve.csv"))
        return path

    def _write_config(self):
        if self.dist.is_main:
            write_text(os.path.join(self.out_dir, "config.json"), json.dumps(to_dict(self.cfg), indent=2))

    def _finish(self, interrupted: bool = False, signal_name: str | None = None) -> TrainResult:
        from .plotting import plot_learning_curve

        checkpoint = self._checkpoint(f"agent_{self.iteration}.pt" if interrupted else "final.pt")
        png = os.path.join(self.out_dir, "learning_curve.png")
        csv = os.path.join(self.out_dir, "learning_curve.csv")
        if self.dist.is_main:
            plot_learning_curve(self.episodes.curve, png, title=f"{self.cfg.task} PPO (skrl)")
            writer = getattr(self.agent, "writer", None)
            if writer is not None:
                writer.flush()
        result = TrainResult(
            start_return=all_reduce_mean(self.episodes.start_return),
            end_return=all_reduce_mean(self.episodes.mean_return),
            env_steps=self.env_steps,
            iterations=self.iteration,
            seconds=self.seconds(),
            checkpoint=checkpoint,
            curve_png=png,
            curve_csv=csv,
            interrupted=interrupted,
        )
        if interrupted:
            self.log(interrupted_line(signal_name, self.iteration, self.env_steps, checkpoint, csv, self.out_dir))
        else:
            self.log(
                f"return at start: {result.start_return:.1f}   at end: {result.end_return:.1f}   "
                f"({result.env_steps} env steps, {result.iterations} iterations, {result.seconds:.0f} s)"
            )
        return result

    def close(self):
        self.env.close()
        shutdown_distributed(self.dist)
