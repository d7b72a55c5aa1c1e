"""Checkpoints: skrl's agent modules plus what inference needs, and a deterministic policy loader.

A checkpoint is one ``torch.save`` dict:

| key | content |
|---|---|
| ``policy``, ``value``, ``optimizer`` | state dicts (skrl's ``checkpoint_modules``) |
| ``observation_preprocessor`` | running mean / variance / count of the observation normaliser, if used |
| ``value_preprocessor`` | the same for value targets, if used |
| ``newton_gym`` | metadata: task, observation size, action box and scaling, network, training config, progress |

:func:`load_policy` needs only torch: it rebuilds the mean-action network, so a checkpoint runs in any
environment with the same observation layout (e.g. gymnasium's Ant-v5, ``scripts/sim2sim.py``).
"""

from __future__ import annotations

import os

import numpy as np
import torch

from ..errors import ConfigError
from .networks import mlp

__all__ = ["save_checkpoint", "load_checkpoint", "load_policy", "save_policy_checkpoint", "DeterministicPolicy"]


def save_checkpoint(path: str, agent, meta: dict) -> str:
    """Write ``agent.checkpoint_modules`` and ``meta`` (under "newton_gym") to ``path``."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    data = {
        name: module.state_dict()
        for name, module in agent.checkpoint_modules.items()
        if module is not None and hasattr(module, "state_dict")
    }
    data["newton_gym"] = dict(meta)
    tmp = f"{path}.tmp"
    torch.save(data, tmp)
    os.replace(tmp, path)  # a reader never sees a half-written checkpoint
    return path


def save_policy_checkpoint(src: str, dst: str) -> str:
    """Copy of checkpoint ``src`` with only what :func:`load_policy` reads (policy, observation
    normaliser, metadata): about 80 KB for the Ant policy, small enough to ship."""
    data = load_checkpoint(src)
    slim = {key: data[key] for key in ("policy", "observation_preprocessor", "newton_gym") if key in data}
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    torch.save(slim, dst)
    return dst


def load_checkpoint(path: str, device="cpu") -> dict:
    """The checkpoint dict; ValueError if ``path`` is not a newton_gym checkpoint."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"checkpoint {path!r} does not exist")
    data = torch.load(path, map_location=device, weights_only=False)
    if not isinstance(data, dict) or "newton_gym" not in data or "policy" not in data:
        raise ConfigError(f"{path!r} is not a newton_gym training checkpoint (no 'newton_gym' metadata)")
    return data


class DeterministicPolicy(torch.nn.Module):
    """Mean action of a trained Gaussian policy, in the task's action units.

    ``forward(obs)`` takes (N, O) float observations (torch) and returns (N, A) actions: normalised with
    the saved running statistics (clipped at +-clip, as skrl's RunningStandardScaler), through the MLP,
    clipped to [-1, 1] and mapped onto the action box when the policy was trained with scaled actions,
    else clipped to the box.
    """

    def __init__(self, meta: dict, policy_state: dict, obs_state: dict | None):
        super().__init__()
        self.meta = meta
        self.net = mlp(meta["observation_size"], meta["hidden"], meta["action_size"], meta["activation"])
        self.net.load_state_dict({k[len("net.") :]: v for k, v in policy_state.items() if k.startswith("net.")})
        low = torch.as_tensor(np.asarray(meta["action_low"], dtype=np.float32))
        high = torch.as_tensor(np.asarray(meta["action_high"], dtype=np.float32))
        self.register_buffer("low", low)
        self.register_buffer("high", high)
        self.scale_actions = bool(meta["scale_actions"])
        self.normalize = obs_state is not None
        size = meta["observation_size"]
        mean = obs_state["running_mean"].float() if obs_state else torch.zeros(size)
        var = obs_state["running_variance"].float() if obs_state else torch.ones(size)
        self.register_buffer("obs_mean", mean)
        self.register_buffer("obs_std", var.sqrt())
        self.clip = float(meta.get("obs_clip", 5.0))

    @torch.no_grad()
    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.to(self.obs_mean.device, torch.float32)
        if self.normalize:
            x = ((x - self.obs_mean) / (self.obs_std + 1e-8)).clamp(-self.clip, self.clip)
        a = self.net(x)
        if self.scale_actions:
            a = a.clamp(-1.0, 1.0)
            return (self.high + self.low) / 2.0 + (self.high - self.low) / 2.0 * a
        return torch.maximum(torch.minimum(a, self.high), self.low)

    def act_numpy(self, obs) -> np.ndarray:
        """numpy (O,) or (N, O) observation -> numpy action(s) of the same batch shape."""
        o = torch.as_tensor(np.asarray(obs, dtype=np.float32))
        single = o.dim() == 1
        a = self.forward(o[None] if single else o).cpu().numpy()
        return a[0] if single else a


def load_policy(path: str, device="cpu") -> DeterministicPolicy:
    """The deterministic policy of checkpoint ``path`` on ``device`` (eval mode)."""
    data = load_checkpoint(path, device="cpu")
    policy = DeterministicPolicy(data["newton_gym"], data["policy"], data.get("observation_preprocessor"))
    return policy.to(device).eval()
