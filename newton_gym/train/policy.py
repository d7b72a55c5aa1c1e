"""The deterministic policy of a checkpoint as one small torch module, the same for both backends.

:class:`DeployPolicy` maps (B, obs) raw observations to (B, act) actions in the task's units:

1. ``(obs - obs_mean) / obs_denom``, clamped to +-``obs_clip`` when that is > 0 (the running normaliser
   with its statistics frozen; a zero mean and unit divisor when the run had none);
2. the MLP of the policy's mean;
3. the action map: ``"raw"`` (rsl_rl: the mean itself; the environment clips to its box), ``"scale"``
   (skrl with ``scale_actions``: clamp to [-1, 1], then onto [low, high]) or ``"clip"`` (skrl without:
   clamp to [low, high]).

It holds only buffers, linear layers and activations, so it scripts (TorchScript) and exports (ONNX).
The two builders read the state dicts each backend writes:

- :func:`skrl_deploy_policy`: ``net.<i>.weight`` / ``bias`` and skrl's RunningStandardScaler
  ``running_mean`` / ``running_variance``; normaliser ``(x - mean) / (sqrt(var) + 1e-8)``, clamped to +-5;
- :func:`rsl_rl_deploy_policy`: rsl-rl-lib 5.5.1's MLPModel ``mlp.<i>.weight`` / ``bias`` and
  ``obs_normalizer._mean`` / ``_std``; normaliser ``(x - mean) / (std + eps)``.
"""

from __future__ import annotations

import re

import numpy as np
import torch
from torch import nn

from ..errors import ConfigError

__all__ = ["ACTIVATIONS", "ACTION_MAPS", "DeployPolicy", "skrl_deploy_policy", "rsl_rl_deploy_policy"]

#: Activation names (rsl_rl 5.5.1's, a superset of the skrl backend's) -> torch modules with the same defaults.
ACTIVATIONS = {
    "elu": nn.ELU,
    "selu": nn.SELU,
    "relu": nn.ReLU,
    "crelu": nn.CELU,
    "lrelu": nn.LeakyReLU,
    "tanh": nn.Tanh,
    "sigmoid": nn.Sigmoid,
    "softplus": nn.Softplus,
    "gelu": nn.GELU,
    "swish": nn.SiLU,
    "mish": nn.Mish,
}

#: How the MLP's output becomes an action (see the module docstring).
ACTION_MAPS = ("raw", "scale", "clip")

#: skrl's RunningStandardScaler: epsilon and clip threshold (its defaults, which the skrl backend uses).
_SKRL_EPS, _SKRL_CLIP = 1e-8, 5.0


class DeployPolicy(nn.Module):
    """Observation normaliser, MLP and action map: (B, obs) raw observations -> (B, act) actions.

    Args:
        obs_mean: (obs,) running mean of the observations.
        obs_denom: (obs,) the normaliser's divisor (ones and a zero mean: no normalisation).
        layers: [(weight (out, in), bias (out,)), ...] of the MLP's linear layers, input first.
        activation: a name of :data:`ACTIVATIONS`, applied between the linear layers.
        obs_clip: clamp the normalised observation to +-obs_clip (0: no clamp).
        action_map: one of :data:`ACTION_MAPS`.
        action_low, action_high: (act,) the task's action box (read by "scale" and "clip").
    """

    def __init__(
        self,
        obs_mean: torch.Tensor,
        obs_denom: torch.Tensor,
        layers: list,
        activation: str,
        obs_clip: float = 0.0,
        action_map: str = "raw",
        action_low=None,
        action_high=None,
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ConfigError(f"activation {activation!r} is not one of {sorted(ACTIVATIONS)}")
        if action_map not in ACTION_MAPS:
            raise ConfigError(f"action_map {action_map!r} is not one of {ACTION_MAPS}")
        size = layers[-1][0].shape[0]
        low = torch.full((size,), -np.inf) if action_low is None else _vector(action_low)
        high = torch.full((size,), np.inf) if action_high is None else _vector(action_high)
        self.register_buffer("obs_mean", obs_mean.detach().float().reshape(1, -1).clone())
        self.register_buffer("obs_denom", obs_denom.detach().float().reshape(1, -1).clone())
        self.register_buffer("action_low", low.reshape(1, -1))
        self.register_buffer("action_high", high.reshape(1, -1))
        self.obs_clip = float(obs_clip)
        self.action_map = action_map
        modules = []
        for i, (weight, bias) in enumerate(layers):
            linear = nn.Linear(weight.shape[1], weight.shape[0])
            with torch.no_grad():
                linear.weight.copy_(weight)
                linear.bias.copy_(bias)
            modules.append(linear)
            if i < len(layers) - 1:
                modules.append(ACTIVATIONS[activation]())
        self.mlp = nn.Sequential(*modules)
        self.requires_grad_(False)  # inference only: no autograd graph even outside torch.no_grad
        self.eval()

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = (obs.to(self.obs_mean.dtype) - self.obs_mean) / self.obs_denom
        if self.obs_clip > 0.0:
            x = x.clamp(-self.obs_clip, self.obs_clip)
        a = self.mlp(x)
        if self.action_map == "scale":
            a = a.clamp(-1.0, 1.0)
            return (self.action_high + self.action_low) / 2.0 + (self.action_high - self.action_low) / 2.0 * a
        if self.action_map == "clip":
            return torch.maximum(torch.minimum(a, self.action_high), self.action_low)
        return a


def _vector(values) -> torch.Tensor:
    return torch.as_tensor(np.asarray(values, dtype=np.float32))


def _layers(state: dict, prefix: str, what: str) -> list:
    """[(weight, bias), ...] of the ``<prefix>.<i>.weight`` / ``bias`` entries of ``state``, by index."""
    pattern = re.compile(rf"{re.escape(prefix)}\.(\d+)\.weight")
    indices = sorted(int(m.group(1)) for key in state if (m := pattern.fullmatch(key)))
    if not indices:
        raise ConfigError(f"the {what} has no {prefix}.<i>.weight entries (keys: {sorted(state)[:8]})")
    return [(state[f"{prefix}.{i}.weight"], state[f"{prefix}.{i}.bias"]) for i in indices]


def _check_sizes(layers: list, meta: dict):
    obs_size, action_size = int(meta["observation_size"]), int(meta["action_size"])
    if layers[0][0].shape[1] != obs_size or layers[-1][0].shape[0] != action_size:
        raise ConfigError(
            f"the policy maps {layers[0][0].shape[1]} inputs to {layers[-1][0].shape[0]} outputs, the metadata says "
            f"{obs_size} -> {action_size} (only a Gaussian policy with a state-independent std is supported)"
        )


def _unit_scaler(meta: dict):
    """(mean, denominator) of no observation normaliser: zeros and ones of the observation size."""
    size = int(meta["observation_size"])
    return torch.zeros(size), torch.ones(size)


def skrl_deploy_policy(meta: dict, policy_state: dict, obs_state: dict | None) -> DeployPolicy:
    """The :class:`DeployPolicy` of the skrl backend's GaussianPolicy state dict, its observation scaler's
    state dict (None: no normaliser) and the checkpoint's metadata."""
    layers = _layers(policy_state, "net", "policy state dict")
    _check_sizes(layers, meta)
    mean, denom = _unit_scaler(meta)
    if obs_state is not None:
        mean = obs_state["running_mean"].float()
        denom = obs_state["running_variance"].float().sqrt() + _SKRL_EPS
    return DeployPolicy(
        mean,
        denom,
        layers,
        meta["activation"],
        obs_clip=float(meta.get("obs_clip", _SKRL_CLIP)) if obs_state is not None else 0.0,
        action_map="scale" if meta["scale_actions"] else "clip",
        action_low=meta["action_low"],
        action_high=meta["action_high"],
    )


def rsl_rl_deploy_policy(actor_state: dict, meta: dict) -> DeployPolicy:
    """The :class:`DeployPolicy` of an rsl_rl MLPModel actor's state dict and the run's metadata (actions
    are the Gaussian's mean, not clipped: "raw")."""
    layers = _layers(actor_state, "mlp", "actor state dict")
    _check_sizes(layers, meta)
    mean, denom = _unit_scaler(meta)
    if meta.get("obs_normalization"):
        mean = actor_state["obs_normalizer._mean"].reshape(-1)
        denom = actor_state["obs_normalizer._std"].reshape(-1) + float(meta["obs_normalizer_eps"])
    return DeployPolicy(
        mean,
        denom,
        layers,
        meta["activation"],
        action_map="raw",
        action_low=meta.get("action_low"),
        action_high=meta.get("action_high"),
    )
