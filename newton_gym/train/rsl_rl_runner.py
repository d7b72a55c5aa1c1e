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
(rsl_rl's format; ``infos["newton_gym"]`` holds what :mod:`newton_gym.train.export` needs), ``config.json``
and rsl_rl's ``git/`` code-state notes. Single process only (rsl_rl's multi-GPU mode is not wired here).
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
from .config import TrainCfg, load_train_config, to_dict
from .rsl_rl_env import INSTALL_HINT, RslRlVecEnv

__all__ = ["RslRlRunner", "RslRlResult", "runner_config", "train_rsl_rl", "RSL_RL_VERSION"]

#: The rsl-rl-lib version whose runner loop and checkpoint layout this module follows.
RSL_RL_VERSION = "5.5.1"


@dataclass
class RslRlResult:
    """What a run achieved.

    Attributes:
        iterations: PPO updates done.
        env_steps: environment steps over all worlds.
        seconds: wall-clock time of the run, set-up included [s].
        loop_seconds: time spent in the training loop (collection and updates) [s].
        checkpoint: path of the last checkpoint.
        log_dir: the run directory (TensorBoard events).
        mean_return: mean return of the last (up to 100) finished episodes; NaN if none finished.
        mean_episode_length: their mean length [steps]; NaN if none finished.
    """

    iterations: int
    env_steps: int
    seconds: float
    loop_seconds: float
    checkpoint: str
    log_dir: str
    mean_return: float
    mean_episode_length: float

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.loop_seconds if self.loop_seconds > 0 else 0.0

    @property
    def env_steps_per_second(self) -> float:
        return self.env_steps / self.loop_seconds if self.loop_seconds > 0 else 0.0


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
    """

    def __init__(self, cfg: TrainCfg, out_dir: str, log=print):
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
        }

    # ------------------------------------------------------------------ training
    def train(self) -> RslRlResult:
        """Run until ``max_iterations`` / ``timesteps`` or ``minutes`` of wall-clock; returns an RslRlResult."""
        from rsl_rl.utils import check_nan

        runner, env, alg = self.runner, self.env, self.runner.alg
        logger = runner.logger
        planned = self.planned_iterations()
        self._write_config()
        self.log(
            f"training {self.cfg.task} with rsl_rl {RSL_RL_VERSION}: {self.cfg.num_envs} worlds, "
            f"{self.steps_per_iteration} env steps per iteration, out: {self.out_dir}"
        )
        if self.cfg.rsl_rl.init_at_random_ep_len:
            env.episode_length_buf = torch.randint_like(env.episode_length_buf, high=env.max_episode_length)
        obs = env.get_observations().to(runner.device)
        alg.train_mode()
        logger.init_logging_writer()
        checkpoint = None
        loop_start = time.perf_counter()
        while not self._should_stop(planned):
            start = time.perf_counter()
            with torch.no_grad():  # not inference_mode: see the module docstring
                for _ in range(self.cfg.rsl_rl.num_steps_per_env):
                    actions = alg.act(obs)
                    obs, rewards, dones, extras = env.step(actions.to(env.device))
                    check_nan(obs, rewards, dones)
                    obs, rewards, dones = obs.to(runner.device), rewards.to(runner.device), dones.to(runner.device)
                    alg.process_env_step(obs, rewards, dones, extras)
                    logger.process_env_step(rewards, dones, extras, None)
                collect_time = time.perf_counter() - start
                start = time.perf_counter()
                alg.compute_returns(obs)
            loss_dict = alg.update()
            learn_time = time.perf_counter() - start
            it = self.iteration
            self.iteration += 1
            runner.current_learning_iteration = self.iteration
            logger.log(
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
            if self.cfg.checkpoint_every > 0 and self.iteration % self.cfg.checkpoint_every == 0:
                checkpoint = self.save()
        self.loop_seconds = time.perf_counter() - loop_start
        if checkpoint is None or not checkpoint.endswith(f"model_{self.iteration}.pt"):
            checkpoint = self.save()
        if logger.writer is not None:
            logger.writer.flush()
        logger.stop_logging_writer()
        return self._result(checkpoint)

    def _should_stop(self, planned: int | None) -> bool:
        out_of_time = self.cfg.minutes > 0 and time.perf_counter() - self.t0 >= self.cfg.minutes * 60.0
        return out_of_time or (planned is not None and self.iteration >= planned)

    def _total_estimate(self, planned: int | None, loop_start: float) -> int:
        """Iterations the run will end with (for rsl_rl's ETA line)."""
        if self.cfg.minutes <= 0:
            return planned
        per_iteration = (time.perf_counter() - loop_start) / self.iteration
        left = self.cfg.minutes * 60.0 - (time.perf_counter() - self.t0)
        by_time = self.iteration + max(0, math.ceil(left / per_iteration))
        return by_time if planned is None else min(planned, by_time)

    def save(self, path: str | None = None) -> str:
        """Write rsl_rl's checkpoint plus metadata to ``path`` (default ``out_dir/model_<iterations>.pt``)."""
        path = path or os.path.join(self.out_dir, f"model_{self.iteration}.pt")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = f"{path}.tmp"
        self.runner.save(tmp, infos={"newton_gym": self.meta()})
        os.replace(tmp, path)  # a reader never sees a half-written checkpoint
        return path

    def _write_config(self):
        with open(os.path.join(self.out_dir, "config.json"), "w") as f:
            json.dump({"newton_gym": to_dict(self.cfg), "rsl_rl": self.train_cfg}, f, indent=2)

    def _result(self, checkpoint: str) -> RslRlResult:
        logger = self.runner.logger
        returns = list(getattr(logger, "rewbuffer", ()))
        lengths = list(getattr(logger, "lenbuffer", ()))
        result = RslRlResult(
            iterations=self.iteration,
            env_steps=self.iteration * self.steps_per_iteration,
            seconds=time.perf_counter() - self.t0,
            loop_seconds=self.loop_seconds,
            checkpoint=checkpoint,
            log_dir=self.out_dir,
            mean_return=statistics.mean(returns) if returns else math.nan,
            mean_episode_length=statistics.mean(lengths) if lengths else math.nan,
        )
        self.log(
            f"{result.iterations} iterations, {result.env_steps} env steps in {result.loop_seconds:.0f} s "
            f"({result.iterations_per_second:.2f} it/s, {result.env_steps_per_second:.0f} env steps/s); "
            f"mean return of the last episodes {result.mean_return:.2f}"
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


def train_rsl_rl(cfg, out_dir: str, log=print) -> RslRlResult:
    """Train ``cfg`` (a TrainCfg, dict or TOML path with ``backend = "rsl_rl"``) into ``out_dir``."""
    cfg = cfg if isinstance(cfg, TrainCfg) else load_train_config(cfg)
    runner = RslRlRunner(cfg, out_dir, log=log)
    try:
        return runner.train()
    finally:
        runner.close()
