"""RslRlRunner: rsl_rl's OnPolicyRunner (PPO) on a newton_gym task, built from a TrainCfg (``backend = "rsl_rl"``).

The runner, algorithm, networks, rollout storage and logger are rsl_rl's (rsl-rl-lib 5.5.1), configured
from the ``[rsl_rl]`` table (:class:`~newton_gym.train.config.RslRlCfg`). The training loop is
``OnPolicyRunner.learn`` of that version written out step for step, for two reasons:

* a wall-clock budget: ``learn`` runs a fixed number of iterations, and calling it once per iteration
  would open a new TensorBoard writer and save a checkpoint every time;
* ``torch.no_grad`` instead of ``torch.inference_mode`` around the rollout: tensors the environment
  creates and keeps (timers, last actions) would otherwise become inference tensors, and stepping the
  environment after training (evaluation, play) would fail on their in-place updates.

Outputs in ``out_dir``: TensorBoard events (rsl_rl's ``Loss/``, ``Policy/``, ``Perf/``, ``Train/`` scalars
and ``Reward/<term>``, the mean of each named reward term), ``model_<iterations>.pt`` checkpoints
(rsl_rl's format; ``infos["newton_gym"]`` holds what :mod:`newton_gym.train.export` needs,
``infos["resume"]`` what a resumed run continues from), ``learning_curve.csv`` (mean return of the last
100 episodes vs env steps; rewritten with every checkpoint), ``learning_curve.png`` (with matplotlib),
``config.json`` and rsl_rl's ``git/`` code-state notes. Single process only (rsl_rl's multi-GPU mode is
not wired here).

Stopping and resuming: under SIGINT or SIGTERM the run drops the rollout in progress (an update in
progress finishes), writes ``model_<iteration>.pt``, the curve and the config, logs one line saying where
and returns a result with ``interrupted`` set; a :class:`~newton_gym.train.resume.ResumePoint` continues
such a checkpoint (:mod:`newton_gym.train.resume`).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import statistics
import time
from dataclasses import dataclass

import torch

from ..errors import ConfigError
from .checkpoint_io import write_pt, write_text
from .config import TrainCfg, load_train_config, to_dict
from .episode_log import EpisodeLog
from .interrupt import StopSignals, interrupted_line
from .resume import NO_RESUME_STATE
from .rng_state import capture_rng, restore_rng
from .rsl_rl_env import INSTALL_HINT, RslRlVecEnv

__all__ = ["RslRlRunner", "RslRlResult", "runner_config", "train_rsl_rl", "RSL_RL_VERSION"]

#: The rsl-rl-lib version whose runner loop and checkpoint layout this module follows.
RSL_RL_VERSION = "5.5.1"


@dataclass
class RslRlResult:
    """What a run achieved.

    Attributes:
        iterations: PPO updates done over the whole run (before a resume included).
        env_steps: environment steps over all worlds, the same way.
        seconds: wall-clock time of the whole run, set-up included [s].
        loop_seconds: time this process spent in the training loop (collection and updates) [s].
        checkpoint: path of the last checkpoint.
        log_dir: the run directory (TensorBoard events).
        mean_return: mean return of the last (up to 100) finished episodes; NaN if none finished.
        mean_episode_length: their mean length [steps]; NaN if none finished.
        curve_csv: the learning curve file.
        interrupted: the run stopped on SIGINT / SIGTERM.
        loop_iterations: PPO updates done by this process (the rates are over these).
    """

    iterations: int
    env_steps: int
    seconds: float
    loop_seconds: float
    checkpoint: str
    log_dir: str
    mean_return: float
    mean_episode_length: float
    curve_csv: str = ""
    interrupted: bool = False
    loop_iterations: int = 0

    @property
    def iterations_per_second(self) -> float:
        """PPO updates per second of this process's training loop."""
        return self.loop_iterations / self.loop_seconds if self.loop_seconds > 0 else 0.0

    @property
    def env_steps_per_second(self) -> float:
        """Env steps per second of this process's training loop."""
        steps = self.env_steps * self.loop_iterations / self.iterations if self.iterations else 0
        return steps / self.loop_seconds if self.loop_seconds > 0 else 0.0


def runner_config(cfg: TrainCfg, critic_group: bool = True) -> dict:
    """The ``train_cfg`` dict rsl_rl's OnPolicyRunner takes, from ``cfg.rsl_rl``.

    Args:
        cfg: a validated TrainCfg with ``backend = "rsl_rl"``.
        critic_group: the environment gives a "critic" observation group (else the critic sees "policy").
    """
    r = cfg.rsl_rl
    return {
        "num_steps_per_env": r.num_steps_per_env,
        "save_interval": max(1, cfg.checkpoint_every),  # read by rsl_rl's own learn() only
        "obs_groups": {"actor": ["policy"], "critic": ["critic" if critic_group else "policy"]},
        "logger": "tensorboard",
        "algorithm": {
            "class_name": "PPO",
            "num_learning_epochs": r.num_learning_epochs,
            "num_mini_batches": r.num_mini_batches,
            "learning_rate": r.learning_rate,
            "schedule": r.schedule,
            "desired_kl": r.desired_kl,
            "gamma": r.gamma,
            "lam": r.lam,
            "clip_param": r.clip_param,
            "value_loss_coef": r.value_loss_coef,
            "entropy_coef": r.entropy_coef,
            "use_clipped_value_loss": r.use_clipped_value_loss,
            "max_grad_norm": r.max_grad_norm,
        },
        "actor": {
            "class_name": "MLPModel",
            "hidden_dims": list(r.actor_hidden_dims),
            "activation": r.activation,
            "obs_normalization": r.actor_obs_normalization,
            "distribution_cfg": {"class_name": "GaussianDistribution", "init_std": r.init_noise_std},
        },
        "critic": {
            "class_name": "MLPModel",
            "hidden_dims": list(r.critic_hidden_dims),
            "activation": r.activation,
            "obs_normalization": r.critic_obs_normalization,
        },
    }


class RslRlRunner:
    """Builds the environment and rsl_rl's OnPolicyRunner for ``cfg`` and trains.

    Args:
        cfg: a validated TrainCfg with ``backend = "rsl_rl"``.
        out_dir: run directory (created).
        log: function printing one line.
        resume: continue from this checkpoint (its run directory should be ``out_dir``).
    """

    def __init__(self, cfg: TrainCfg, out_dir: str, log=print, resume=None):
        self.t0 = time.perf_counter()
        if cfg.backend != "rsl_rl":
            raise ConfigError(f"RslRlRunner needs backend = 'rsl_rl', the config names {cfg.backend!r}")
        if int(os.getenv("WORLD_SIZE", "1")) > 1:
            raise ConfigError("the rsl_rl backend runs in one process; start it without torchrun")
        _check_version()
        from rsl_rl.runners import OnPolicyRunner

        self.cfg = cfg
        self.out_dir = os.path.abspath(out_dir)
        self.log = log
        if cfg.torch_threads > 0:
            torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.env = self._make_env()
        self.train_cfg = runner_config(cfg, self.env.has_critic_observation)
        os.makedirs(self.out_dir, exist_ok=True)
        self.runner = OnPolicyRunner(self.env, self.train_cfg, log_dir=self.out_dir, device=str(self.env.device))
        self.iteration = 0
        self.loop_seconds = 0.0
        self.seconds_before = 0.0  # wall-clock of the sessions before a resume [s]
        self.runner_start_iteration = 0  # the iteration this process's loop started at
        self.episodes = EpisodeLog(cfg.num_envs)
        self.resumed_from = None
        self.init_lines: list[str] = []  # what init_policy copied, logged when training starts
        if resume is not None:
            self._resume(resume)
        elif cfg.init_policy:
            from .init_policy import load_init_policy

            try:
                report = load_init_policy(self.runner.alg, cfg.init_policy, self.env.num_actions)
            except BaseException:
                self.close()  # the environment built above
                raise
            self.init_lines = [f"networks from {cfg.init_policy}:"] + [f"  {line}" for line in report.lines]

    def _make_env(self) -> RslRlVecEnv:
        import gymnasium as gym

        import newton_gym  # noqa: F401  (registers the ids)

        overrides = dict(self.cfg.env)
        overrides["seed"] = self.cfg.seed
        vec = gym.make_vec(self.cfg.task, num_envs=self.cfg.num_envs, device=self.cfg.device, **overrides)
        return RslRlVecEnv(vec, seed=self.cfg.seed)

    @property
    def steps_per_iteration(self) -> int:
        return self.cfg.num_envs * self.cfg.rsl_rl.num_steps_per_env

    def planned_iterations(self) -> int | None:
        """Updates to run: ``rsl_rl.max_iterations``, else from ``timesteps``; None when only time limits."""
        if self.cfg.rsl_rl.max_iterations > 0:
            return self.cfg.rsl_rl.max_iterations
        if self.cfg.timesteps > 0:
            return max(1, math.ceil(self.cfg.timesteps / self.steps_per_iteration))
        return None

    def policy(self):
        """rsl_rl's actor (MLPModel) in eval mode: ``policy(TensorDict)`` gives deterministic actions."""
        return self.runner.get_inference_policy(device=str(self.env.device))

    def export(self, out_dir: str, onnx: bool = True) -> dict[str, str]:
        """Write the current policy as ``policy.pt`` / ``policy.onnx`` (see :mod:`newton_gym.train.export`)."""
        from .export import export_policy

        return export_policy(self.runner.alg.get_policy().state_dict(), self.meta(), out_dir, onnx=onnx)

    def meta(self) -> dict:
        """What export needs besides the weights (stored in each checkpoint's ``infos["newton_gym"]``)."""
        space = self.env.env.single_action_space
        actor = self.runner.alg.get_policy()
        normalizer = actor.obs_normalizer
        return {
            "format": "newton_gym.rsl_rl/1",
            "rsl_rl_version": RSL_RL_VERSION,
            "task": self.cfg.task,
            "observation_size": int(actor.obs_dim),
            "action_size": self.env.num_actions,
            "action_low": space.low.tolist(),
            "action_high": space.high.tolist(),
            "actor_hidden_dims": list(self.cfg.rsl_rl.actor_hidden_dims),
            "activation": self.cfg.rsl_rl.activation,
            "obs_normalization": bool(actor.obs_normalization),
            "obs_normalizer_eps": float(getattr(normalizer, "eps", 0.0)),
            "train_config": to_dict(self.cfg),
            "iteration": self.iteration,
            "env_steps": self.iteration * self.steps_per_iteration,
            "seconds": self.seconds(),
        }

    def seconds(self) -> float:
        """Wall-clock of the whole run so far, set-up and earlier sessions included [s]."""
        return self.seconds_before + time.perf_counter() - self.t0

    def _training_state(self) -> dict:
        """``infos["resume"]``: RNG state, episode log and rsl_rl's logger totals and buffers."""
        logger = self.runner.logger
        return {
            "rng": capture_rng(self.env.env),
            "episodes": self.episodes.state_dict(),
            "logger": {
                "tot_timesteps": int(logger.tot_timesteps),
                "tot_time": float(logger.tot_time),
                "rewbuffer": [float(x) for x in logger.rewbuffer],
                "lenbuffer": [float(x) for x in logger.lenbuffer],
            },
        }

    def _resume(self, point):
        """Load the actor, critic (normalisers inside), optimizer (learning rate inside), progress, episode
        log, logger totals and RNG state of ``point``; the environment restarts unseeded."""
        data = point.data
        self.runner.alg.load(data, None, strict=True)
        meta = point.meta
        self.iteration = int(meta["iteration"])
        self.runner.current_learning_iteration = self.iteration
        self.seconds_before = float(meta.get("seconds", 0.0))
        state = data["infos"].get("resume")
        if state is not None:
            self.episodes.load_state_dict(state["episodes"])
            logger = self.runner.logger
            logger.tot_timesteps, logger.tot_time = state["logger"]["tot_timesteps"], state["logger"]["tot_time"]
            logger.rewbuffer.extend(state["logger"]["rewbuffer"])
            logger.lenbuffer.extend(state["logger"]["lenbuffer"])
            restore_rng(state["rng"], self.env.env)
        else:
            self.log(NO_RESUME_STATE)
            torch.manual_seed(self.cfg.seed + 7919 * self.iteration)
        self.env.restart()
        self.resumed_from = point.checkpoint

    # ------------------------------------------------------------------ training
    def train(self) -> RslRlResult:
        """Run until ``max_iterations`` / ``timesteps`` or ``minutes`` of wall-clock (all counted over the
        whole run) or a stop signal; returns an RslRlResult."""
        runner, env, alg = self.runner, self.env, self.runner.alg
        logger = runner.logger
        planned = self.planned_iterations()
        self._write_config()
        self.log(
            f"training {self.cfg.task} with rsl_rl {RSL_RL_VERSION}: {self.cfg.num_envs} worlds, "
            f"{self.steps_per_iteration} env steps per iteration, out: {self.out_dir}"
        )
        for line in self.init_lines:
            self.log(line)
        if self.resumed_from:
            self.log(f"resuming {self.resumed_from}: iteration {self.iteration}, {self.seconds_before:.0f} s so far")
        if self.cfg.rsl_rl.init_at_random_ep_len:
            env.episode_length_buf = torch.randint_like(env.episode_length_buf, high=env.max_episode_length)
        obs = env.get_observations().to(runner.device)
        alg.train_mode()
        logger.init_logging_writer()
        saved = None
        self.runner_start_iteration, loop_start = self.iteration, time.perf_counter()
        with StopSignals() as signals:
            while not self._should_stop(planned, signals.requested):
                obs, times = self._collect(obs, signals)
                if times is None:  # stop requested: the rollout in progress is dropped
                    break
                start = time.perf_counter()
                loss_dict = alg.update()
                self._after_update(loss_dict, times[0], time.perf_counter() - start + times[1], planned, loop_start)
                if self.cfg.checkpoint_every > 0 and self.iteration % self.cfg.checkpoint_every == 0:
                    saved = self.save()
            self.loop_seconds = time.perf_counter() - loop_start
            if saved is None or not saved.endswith(f"model_{self.iteration}.pt"):
                saved = self.save()
            if logger.writer is not None:
                logger.writer.flush()
            logger.stop_logging_writer()
            self._plot_curve()
            if self.runner_start_iteration == self.iteration and not signals.requested:
                self.log(f"the run's budget was already reached at iteration {self.iteration}; give a larger one")
            return self._result(saved, signals.signal_name if signals.requested else None)

    def _collect(self, obs, signals: StopSignals):
        """One rollout and the returns; (obs, (collect seconds, returns seconds)), or (obs, None) when a stop
        request cut it."""
        from rsl_rl.utils import check_nan

        runner, env, alg = self.runner, self.env, self.runner.alg
        start = time.perf_counter()
        with torch.no_grad():  # not inference_mode: see the module docstring
            for _ in range(self.cfg.rsl_rl.num_steps_per_env):
                if signals.requested:
                    return obs, None
                actions = alg.act(obs)
                obs, rewards, dones, extras = env.step(actions.to(env.device))
                check_nan(obs, rewards, dones)
                obs, rewards, dones = obs.to(runner.device), rewards.to(runner.device), dones.to(runner.device)
                alg.process_env_step(obs, rewards, dones, extras)
                runner.logger.process_env_step(rewards, dones, extras, None)
                if "finished_episodes" in extras:
                    self.episodes.on_step({"newton_episode": extras["finished_episodes"]})
            collect_time = time.perf_counter() - start
            start = time.perf_counter()
            alg.compute_returns(obs)
        return obs, (collect_time, time.perf_counter() - start)

    def _after_update(self, loss_dict: dict, collect_time: float, learn_time: float, planned, loop_start: float):
        """Count the iteration, close the curve's row and log rsl_rl's scalars and console report."""
        alg = self.runner.alg
        it = self.iteration
        self.iteration += 1
        self.runner.current_learning_iteration = self.iteration
        self.episodes.end_iteration(self.iteration * self.steps_per_iteration)
        self.runner.logger.log(
            it=it,
            start_it=0,
            total_it=self._total_estimate(planned, loop_start),
            collect_time=collect_time,
            learn_time=learn_time,
            loss_dict=loss_dict,
            learning_rate=alg.learning_rate,
            action_std=alg.get_policy().output_std,
            rnd_weight=None,
        )

    def _should_stop(self, planned: int | None, requested: bool = False) -> bool:
        out_of_time = self.cfg.minutes > 0 and self.seconds() >= self.cfg.minutes * 60.0
        return requested or out_of_time or (planned is not None and self.iteration >= planned)

    def _total_estimate(self, planned: int | None, loop_start: float) -> int:
        """Iterations the run will end with (for rsl_rl's ETA line)."""
        if self.cfg.minutes <= 0:
            return planned
        done = max(self.iteration - self.runner_start_iteration, 1)
        per_iteration = (time.perf_counter() - loop_start) / done
        left = self.cfg.minutes * 60.0 - self.seconds()
        by_time = self.iteration + max(0, math.ceil(left / per_iteration))
        return by_time if planned is None else min(planned, by_time)

    def save(self, path: str | None = None) -> str:
        """Write rsl_rl's checkpoint (``alg.save()`` and ``iter``, as ``OnPolicyRunner.save``) with
        ``infos`` {"newton_gym": metadata, "resume": training state} to ``path`` (default
        ``out_dir/model_<iterations>.pt``) atomically, and the learning curve CSV."""
        path = path or os.path.join(self.out_dir, f"model_{self.iteration}.pt")
        data = self.runner.alg.save()
        data["iter"] = self.iteration
        data["infos"] = {"newton_gym": self.meta(), "resume": self._training_state()}
        write_pt(data, path)
        self.episodes.write_csv(self.curve_csv)
        return path

    @property
    def curve_csv(self) -> str:
        return os.path.join(self.out_dir, "learning_curve.csv")

    def _plot_curve(self):
        """``learning_curve.png`` when matplotlib is installed (the rsl_rl extra does not need it)."""
        from .plotting import plot_learning_curve

        try:
            plot_learning_curve(
                self.episodes.curve, os.path.join(self.out_dir, "learning_curve.png"), f"{self.cfg.task} PPO (rsl_rl)"
            )
        except ImportError:
            pass

    def _write_config(self):
        config = {"newton_gym": to_dict(self.cfg), "rsl_rl": self.train_cfg}
        write_text(os.path.join(self.out_dir, "config.json"), json.dumps(config, indent=2))

    def _result(self, checkpoint: str, stopped_by: str | None = None) -> RslRlResult:
        logger = self.runner.logger
        returns = list(getattr(logger, "rewbuffer", ()))
        lengths = list(getattr(logger, "lenbuffer", ()))
        result = RslRlResult(
            iterations=self.iteration,
            env_steps=self.iteration * self.steps_per_iteration,
            seconds=self.seconds(),
            loop_seconds=self.loop_seconds,
            checkpoint=checkpoint,
            log_dir=self.out_dir,
            mean_return=statistics.mean(returns) if returns else math.nan,
            mean_episode_length=statistics.mean(lengths) if lengths else math.nan,
            curve_csv=self.curve_csv,
            interrupted=stopped_by is not None,
            loop_iterations=self.iteration - self.runner_start_iteration,
        )
        if stopped_by is not None:
            where = (checkpoint, self.curve_csv, self.out_dir)
            self.log(interrupted_line(stopped_by, result.iterations, result.env_steps, *where))
            return result
        self.log(
            f"{result.iterations} iterations, {result.env_steps} env steps; this session {result.loop_iterations} "
            f"in {result.loop_seconds:.0f} s ({result.iterations_per_second:.2f} it/s, "
            f"{result.env_steps_per_second:.0f} env steps/s); mean return of the last episodes {result.mean_return:.2f}"
        )
        return result

    def close(self):
        self.env.close()


def _check_version():
    try:
        found = importlib.metadata.version("rsl-rl-lib")
    except importlib.metadata.PackageNotFoundError:
        raise ImportError(INSTALL_HINT) from None
    if found.split(".")[0] != RSL_RL_VERSION.split(".")[0]:
        raise ImportError(f"rsl-rl-lib {found} is installed, the runner follows {RSL_RL_VERSION}: {INSTALL_HINT}")


def train_rsl_rl(cfg, out_dir: str, log=print, resume=None) -> RslRlResult:
    """Train ``cfg`` (a TrainCfg, dict or TOML path with ``backend = "rsl_rl"``) into ``out_dir``,
    continuing ``resume`` (a :class:`~newton_gym.train.resume.ResumePoint`) when given."""
    cfg = cfg if isinstance(cfg, TrainCfg) else load_train_config(cfg)
    runner = RslRlRunner(cfg, out_dir, log=log, resume=resume)
    try:
        return runner.train()
    finally:
        runner.close()
