"""Builds skrl's PPO agent (models, rollout memory, normalisers, schedule) from a TrainCfg."""

from __future__ import annotations

import os

from .distributed import import_skrl
from .models import GaussianPolicy, ValueNet

import_skrl()
from skrl.agents.torch.ppo import PPO, PPO_CFG  # noqa: E402
from skrl.memories.torch import RandomMemory  # noqa: E402
from skrl.resources.preprocessors.torch import RunningStandardScaler  # noqa: E402
from skrl.resources.schedulers.torch import KLAdaptiveLR  # noqa: E402

__all__ = ["build_models", "build_agent", "LeanPPO"]


class LeanPPO(PPO):
    """skrl's PPO without the base Agent's per-step reward statistics.

    With TensorBoard on, skrl's ``Agent.record_transition`` reads the reward's max / min / mean and the
    finished episodes' returns back to the host at every vector step (``.item()`` x3, ``nonzero``,
    ``tolist``, numpy copies). :class:`~newton_gym.train.episode_log.EpisodeLog` keeps the same figures
    on the device and logs them once per iteration, so this agent skips that bookkeeping; the PPO
    transition, truncation bootstrap, update and loss logging are skrl's, unchanged.
    """

    def record_transition(self, **kwargs) -> None:
        interval, self.write_interval = self.write_interval, 0  # the base class tracks only when > 0
        try:
            super().record_transition(**kwargs)
        finally:
            self.write_interval = interval


def build_models(cfg, observation_space, action_space, device) -> dict:
    """{"policy": GaussianPolicy, "value": ValueNet} on ``device``."""
    p = cfg.policy
    return {
        "policy": GaussianPolicy(observation_space, action_space, device, p.hidden, p.activation, p.init_log_std),
        "value": ValueNet(observation_space, action_space, device, p.hidden, p.activation),
    }


#: PPOCfg fields that skrl's PPO_CFG takes as they are, under the same name.
_SKRL_PPO_FIELDS = (
    "rollouts",
    "learning_epochs",
    "mini_batches",
    "discount_factor",
    "gae_lambda",
    "learning_rate",
    "grad_norm_clip",
    "ratio_clip",
    "value_clip",
    "entropy_loss_scale",
    "value_loss_scale",
    "time_limit_bootstrap",
)


def _ppo_cfg(cfg, observation_space, device, log_dir: str | None) -> PPO_CFG:
    p = cfg.ppo
    agent_cfg = PPO_CFG(**{name: getattr(p, name) for name in _SKRL_PPO_FIELDS})
    if p.lr_schedule == "adaptive":
        agent_cfg.learning_rate_scheduler = KLAdaptiveLR
        agent_cfg.learning_rate_scheduler_kwargs = {"kl_threshold": p.desired_kl}
    if p.normalize_observations:
        agent_cfg.observation_preprocessor = RunningStandardScaler
        agent_cfg.observation_preprocessor_kwargs = {"size": observation_space, "device": device}
    if p.normalize_values:
        agent_cfg.value_preprocessor = RunningStandardScaler
        agent_cfg.value_preprocessor_kwargs = {"size": 1, "device": device}
    # The runner writes checkpoints itself (with task metadata); skrl writes TensorBoard data every update.
    agent_cfg.experiment.directory = os.path.dirname(log_dir) if log_dir else ""
    agent_cfg.experiment.experiment_name = os.path.basename(log_dir) if log_dir else ""
    agent_cfg.experiment.write_interval = p.rollouts if log_dir else 0
    agent_cfg.experiment.checkpoint_interval = 0
    return agent_cfg


def build_agent(cfg, observation_space, action_space, num_envs: int, device, log_dir: str | None = None) -> PPO:
    """skrl PPO with a RandomMemory of ``cfg.ppo.rollouts`` steps x ``num_envs`` worlds.

    Args:
        cfg: TrainCfg.
        observation_space, action_space: what the policy sees (SkrlVecEnv's spaces).
        num_envs: worlds of this process.
        device: torch device.
        log_dir: TensorBoard directory (None: no TensorBoard).
    """
    models = build_models(cfg, observation_space, action_space, device)
    memory = RandomMemory(memory_size=cfg.ppo.rollouts, num_envs=num_envs, device=device)
    agent = LeanPPO(
        models=models,
        memory=memory,
        observation_space=observation_space,
        action_space=action_space,
        device=device,
        cfg=_ppo_cfg(cfg, observation_space, device, log_dir),
    )
    # Fused Adam (one kernel over all parameters) instead of torch's CPU default of a loop of operators
    # per parameter tensor: the same Adam step, about 6x less time per mini-batch step on the CPU.
    for group in [agent.optimizer.defaults, *agent.optimizer.param_groups]:
        group.update(fused=True, foreach=None)
    return agent
