"""Training configuration: typed dataclass defaults, overridden by a TOML file (``configs/train_*.toml``).

An unknown key is a :class:`~newton_gym.errors.ConfigError` naming its full path (``ppo.learning_rte``),
the same rule as the task configs. Task settings go in the ``[env]`` table and are checked by the task's
own config when the environment is built.

Example ``configs/train_ant.toml``::

    task = "Newton/Ant-v0"
    num_envs = 64
    minutes = 3.0

    [env]
    max_episode_steps = 200

    [ppo]
    rollouts = 32
    learning_rate = 3e-4

    [policy]
    hidden = [128, 128]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..envs.config import apply_overrides, config_from, to_dict
from ..errors import ConfigError

__all__ = ["PPOCfg", "PolicyCfg", "TrainCfg", "load_train_config", "to_dict"]


@dataclass
class PPOCfg:
    """PPO hyper-parameters (passed to skrl's PPO agent).

    Attributes:
        rollouts: env steps per world between two updates.
        learning_epochs: passes over each rollout.
        mini_batches: mini-batches per pass.
        discount_factor, gae_lambda: return and GAE discounting.
        learning_rate: Adam step size (initial value with the adaptive schedule).
        lr_schedule: "adaptive" (skrl's KLAdaptiveLR toward ``desired_kl``) or "constant".
        desired_kl: KL target of the adaptive schedule.
        grad_norm_clip, ratio_clip, value_clip: PPO clipping.
        entropy_loss_scale, value_loss_scale: loss weights.
        time_limit_bootstrap: bootstrap truncated episodes with V(final observation).
        normalize_observations: running mean/std scaler on observations (saved in checkpoints).
        normalize_values: running mean/std scaler on value targets.
    """

    rollouts: int = 32
    learning_epochs: int = 5
    mini_batches: int = 4
    discount_factor: float = 0.99
    gae_lambda: float = 0.95
    learning_rate: float = 3e-4
    lr_schedule: str = "adaptive"
    desired_kl: float = 0.01
    grad_norm_clip: float = 1.0
    ratio_clip: float = 0.2
    value_clip: float = 0.2
    entropy_loss_scale: float = 0.0
    value_loss_scale: float = 1.0
    time_limit_bootstrap: bool = True
    normalize_observations: bool = True
    normalize_values: bool = True


@dataclass
class PolicyCfg:
    """Actor and critic networks (separate MLPs).

    Attributes:
        hidden: hidden layer widths, e.g. [128, 128].
        activation: "elu", "tanh" or "relu".
        init_log_std: initial log standard deviation of the Gaussian policy (state-independent).
        scale_actions: the policy acts in [-1, 1]; actions are mapped onto the task's action box.
    """

    hidden: tuple = (128, 128)
    activation: str = "elu"
    init_log_std: float = -0.5
    scale_actions: bool = True


@dataclass
class TrainCfg:
    """One training run.

    Attributes:
        task: Gymnasium id of the task.
        num_envs: worlds per process.
        device: Warp/torch device ("cpu", "cuda:0"; under torchrun "cuda" means cuda:LOCAL_RANK).
        seed: seed of the policy and of the environment (process ``rank`` uses ``seed + rank``).
        timesteps: total env steps over all worlds and processes (0: use ``minutes``).
        minutes: wall-clock budget of the training loop (0: use ``timesteps``).
        torch_threads: torch intra-op threads (0: leave torch's default).
        checkpoint_every: iterations between checkpoints (the last one is always written).
        env: task config overrides (``max_episode_steps``, ``randomization``, ...), checked by the task.
        ppo, policy: see PPOCfg and PolicyCfg.
    """

    task: str = "Newton/Ant-v0"
    num_envs: int = 64
    device: str = "cpu"
    seed: int = 0
    timesteps: int = 0
    minutes: float = 3.0
    torch_threads: int = 1
    checkpoint_every: int = 50
    env: dict = field(default_factory=dict)
    ppo: PPOCfg = field(default_factory=PPOCfg)
    policy: PolicyCfg = field(default_factory=PolicyCfg)

    def validate(self) -> TrainCfg:
        """Raise ConfigError on values no run can use; returns self."""
        if self.num_envs < 1:
            raise ConfigError(f"num_envs must be >= 1, got {self.num_envs}")
        if self.timesteps <= 0 and self.minutes <= 0:
            raise ConfigError("set timesteps > 0 or minutes > 0 (both are 0)")
        if self.ppo.lr_schedule not in ("adaptive", "constant"):
            raise ConfigError(f"ppo.lr_schedule must be 'adaptive' or 'constant', got {self.ppo.lr_schedule!r}")
        if self.policy.activation not in ("elu", "tanh", "relu"):
            raise ConfigError(f"policy.activation must be elu, tanh or relu, got {self.policy.activation!r}")
        if self.ppo.rollouts < 1 or self.ppo.mini_batches < 1 or self.ppo.learning_epochs < 1:
            raise ConfigError("ppo.rollouts, ppo.mini_batches and ppo.learning_epochs must be >= 1")
        if not self.policy.hidden or any(int(h) < 1 for h in self.policy.hidden):
            raise ConfigError(f"policy.hidden must list positive layer widths, got {self.policy.hidden!r}")
        return self


def load_train_config(source=None, **overrides) -> TrainCfg:
    """TrainCfg defaults, then ``source`` (TOML path, dict or TrainCfg), then keyword ``overrides``
    (None values are ignored, so command-line flags left unset keep the file's values)."""
    cfg = config_from(TrainCfg, source)
    cfg = apply_overrides(cfg, {k: v for k, v in overrides.items() if v is not None})
    return cfg.validate()


def replace(cfg: TrainCfg, **changes) -> TrainCfg:
    """dataclasses.replace, re-validated."""
    return dataclasses.replace(cfg, **changes).validate()


__all__ += ["replace"]
