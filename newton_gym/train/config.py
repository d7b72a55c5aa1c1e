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

__all__ = ["PPOCfg", "PolicyCfg", "RslRlCfg", "TrainCfg", "BACKENDS", "load_train_config", "to_dict"]

#: Training backends ``TrainCfg.backend`` may name: skrl's PPO (newton_gym.train.runner) or rsl_rl's
#: OnPolicyRunner (newton_gym.train.rsl_rl_runner).
BACKENDS = ("skrl", "rsl_rl")

#: Activations rsl_rl 5.5.1 resolves by name (rsl_rl.utils.resolve_nn_activation).
_RSL_RL_ACTIVATIONS = ("elu", "selu", "relu", "crelu", "lrelu", "tanh", "sigmoid", "softplus", "gelu", "swish", "mish")


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
class RslRlCfg:
    """rsl_rl's PPO and actor-critic settings (``backend = "rsl_rl"``; names as rsl_rl's runner config).

    Attributes:
        num_steps_per_env: env steps per world between two updates.
        max_iterations: stop after this many updates (0: ``timesteps`` / ``minutes`` of TrainCfg decide).
        num_learning_epochs: passes over each rollout.
        num_mini_batches: mini-batches per pass.
        learning_rate: Adam step size (start value with the adaptive schedule).
        schedule: "adaptive" (step size kept so that the policy KL stays near ``desired_kl``) or "fixed".
        desired_kl: KL target of the adaptive schedule.
        gamma, lam: return and GAE discounting.
        clip_param: PPO ratio clip (also the value clip with ``use_clipped_value_loss``).
        value_loss_coef, entropy_coef: loss weights.
        use_clipped_value_loss: clip the value update as the ratio.
        max_grad_norm: gradient norm clip.
        actor_hidden_dims, critic_hidden_dims: hidden layer widths of the two MLPs.
        activation: activation of both MLPs (rsl_rl's names: "elu", "tanh", "relu", ...).
        init_noise_std: initial standard deviation of the Gaussian policy.
        actor_obs_normalization, critic_obs_normalization: running mean / std normalisers on the inputs
            (saved in checkpoints; the exported policy includes the actor's).
        init_at_random_ep_len: start every world at a random step of its first episode, so that the
            time-outs of all worlds do not fall in the same iteration.
    """

    num_steps_per_env: int = 24
    max_iterations: int = 0
    num_learning_epochs: int = 5
    num_mini_batches: int = 4
    learning_rate: float = 1e-3
    schedule: str = "adaptive"
    desired_kl: float = 0.01
    gamma: float = 0.99
    lam: float = 0.95
    clip_param: float = 0.2
    value_loss_coef: float = 1.0
    entropy_coef: float = 0.01
    use_clipped_value_loss: bool = True
    max_grad_norm: float = 1.0
    actor_hidden_dims: tuple = (128, 128, 128)
    critic_hidden_dims: tuple = (128, 128, 128)
    activation: str = "elu"
    init_noise_std: float = 1.0
    actor_obs_normalization: bool = True
    critic_obs_normalization: bool = True
    init_at_random_ep_len: bool = True

    def validate(self) -> RslRlCfg:
        """Raise ConfigError on values rsl_rl cannot use; returns self."""
        if self.num_steps_per_env < 1 or self.num_learning_epochs < 1 or self.num_mini_batches < 1:
            raise ConfigError("rsl_rl.num_steps_per_env, num_learning_epochs and num_mini_batches must be >= 1")
        if self.max_iterations < 0:
            raise ConfigError(f"rsl_rl.max_iterations must be >= 0, got {self.max_iterations}")
        if self.schedule not in ("adaptive", "fixed"):
            raise ConfigError(f"rsl_rl.schedule must be 'adaptive' or 'fixed', got {self.schedule!r}")
        if self.activation not in _RSL_RL_ACTIVATIONS:
            raise ConfigError(f"rsl_rl.activation must be one of {_RSL_RL_ACTIVATIONS}, got {self.activation!r}")
        for name in ("actor_hidden_dims", "critic_hidden_dims"):
            dims = getattr(self, name)
            if not dims or any(not isinstance(h, int) or h < 1 for h in dims):
                raise ConfigError(f"rsl_rl.{name} must list positive layer widths, got {dims!r}")
        if not self.init_noise_std > 0:
            raise ConfigError(f"rsl_rl.init_noise_std must be > 0, got {self.init_noise_std}")
        return self


@dataclass
class TrainCfg:
    """One training run.

    Attributes:
        task: Gymnasium id of the task.
        backend: "skrl" (newton_gym's PPO loop over skrl; sections ``[ppo]``, ``[policy]``) or "rsl_rl"
            (rsl_rl's OnPolicyRunner; section ``[rsl_rl]``).
        num_envs: worlds per process.
        device: Warp/torch device ("cpu", "cuda:0"; under torchrun "cuda" means cuda:LOCAL_RANK).
        seed: seed of the policy and of the environment (process ``rank`` uses ``seed + rank``).
        timesteps: total env steps over all worlds and processes (0: use ``minutes``).
        minutes: wall-clock budget of the training loop (0: use ``timesteps``).
        torch_threads: torch intra-op threads (0: leave torch's default).
        checkpoint_every: iterations between checkpoints (the last one is always written).
        wandb: also log to Weights & Biases (the ``wandb`` extra): the same scalars as TensorBoard, mirrored
            from its event files, into ``<run>/wandb``; offline unless WANDB_MODE or WANDB_API_KEY says
            otherwise (``wandb sync`` uploads an offline run later). WANDB_PROJECT names the project.
        env: task config overrides (``max_episode_steps``, ``randomization``, ...), checked by the task.
        init_policy: rsl_rl checkpoint (or shipped policy) whose actor, and critic where it holds one, start
            this run ("": fresh networks); a task whose observation adds trailing inputs to the
            checkpoint's (Go1-Rough's height scan after Go1-Flat's) starts with zero weight on them
            (:mod:`newton_gym.train.init_policy`). The run itself starts at iteration 0.
        ppo, policy: see PPOCfg and PolicyCfg (skrl backend).
        rsl_rl: see RslRlCfg (rsl_rl backend).
    """

    task: str = "Newton/Ant-v0"
    backend: str = "skrl"
    num_envs: int = 64
    device: str = "cpu"
    seed: int = 0
    timesteps: int = 0
    minutes: float = 3.0
    torch_threads: int = 1
    checkpoint_every: int = 50
    env: dict = field(default_factory=dict)
    init_policy: str = ""
    ppo: PPOCfg = field(default_factory=PPOCfg)
    policy: PolicyCfg = field(default_factory=PolicyCfg)
    rsl_rl: RslRlCfg = field(default_factory=RslRlCfg)
    wandb: bool = False

    def validate(self) -> TrainCfg:
        """Raise ConfigError on values no run can use; returns self."""
        if self.backend not in BACKENDS:
            raise ConfigError(f"unknown training backend {self.backend!r}; valid backends: {list(BACKENDS)}")
        if self.num_envs < 1:
            raise ConfigError(f"num_envs must be >= 1, got {self.num_envs}")
        if self.backend == "rsl_rl":
            return self._validate_rsl_rl()
        if self.init_policy:
            raise ConfigError("init_policy is read by the rsl_rl backend only (set backend = 'rsl_rl')")
        if self.rsl_rl != RslRlCfg():
            raise ConfigError("[rsl_rl] settings need backend = 'rsl_rl' (the skrl backend reads [ppo] and [policy])")
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

    def _validate_rsl_rl(self) -> TrainCfg:
        if self.ppo != PPOCfg() or self.policy != PolicyCfg():
            raise ConfigError(
                "backend 'rsl_rl' reads its PPO and network settings from [rsl_rl]; "
                "[ppo] and [policy] are the skrl backend's: move them there"
            )
        if self.timesteps <= 0 and self.minutes <= 0 and self.rsl_rl.max_iterations <= 0:
            raise ConfigError("set timesteps > 0, minutes > 0 or rsl_rl.max_iterations > 0 (all are 0)")
        self.rsl_rl.validate()
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
