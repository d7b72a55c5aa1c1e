"""Checkpoints of both backends behind one reader, and the deterministic policy every consumer runs.

``newton-gym train`` writes two layouts, one per backend; shipped policies are slim copies of either:

- skrl, ``checkpoints/agent_<iteration>.pt`` and ``checkpoints/final.pt``: ``policy``, ``value``,
  ``optimizer``, ``learning_rate_scheduler`` (state dicts), ``observation_preprocessor`` /
  ``value_preprocessor`` (running mean / variance / count), ``newton_gym`` (metadata), ``resume``;
- rsl_rl, ``model_<iteration>.pt``: rsl_rl 5.5.1's ``actor_state_dict``, ``critic_state_dict``,
  ``optimizer_state_dict``, ``iter``; ``infos["newton_gym"]`` (metadata), ``infos["resume"]``.

The metadata holds the task, observation and action sizes, the action box, the network, the training
config (``train_config``) and the progress (``iteration``, ``env_steps``, ``seconds``). ``resume`` holds
what a resumed run continues from besides the state dicts (RNG states, episode log; see
:mod:`newton_gym.train.resume`). Every file is read with ``weights_only=True``
(:func:`~newton_gym.train.checkpoint_io.read_pt`), so loading one never runs code from it.

:func:`load_policy` needs only torch: the deterministic policy of either layout runs in any environment
with the same observation layout (``play``, ``export``, ``evaluate``, ``scripts/sim2sim*.py``).
"""

from __future__ import annotations

import numpy as np
import torch

from ..errors import CheckpointError
from .checkpoint_io import read_pt, write_pt
from .policy import rsl_rl_deploy_policy, skrl_deploy_policy

__all__ = [
    "save_checkpoint",
    "load_checkpoint",
    "checkpoint_backend",
    "checkpoint_meta",
    "load_policy",
    "policy_from_checkpoint",
    "save_policy_checkpoint",
    "DeterministicPolicy",
]

#: Metadata keys a policy needs, per backend.
_POLICY_META = {
    "skrl": ("task", "observation_size", "action_size", "action_low", "action_high", "scale_actions", "activation"),
    "rsl_rl": ("task", "observation_size", "action_size", "activation"),
}
_WHAT = (
    "a newton_gym skrl checkpoint holds 'policy' and 'newton_gym' metadata, a newton_gym rsl_rl checkpoint "
    "'actor_state_dict' and infos['newton_gym'] metadata, as newton-gym train writes them"
)


def save_checkpoint(path: str, agent, meta: dict, extra: dict | None = None) -> str:
    """Write ``agent.checkpoint_modules``, ``meta`` (under "newton_gym") and ``extra`` to ``path`` atomically."""
    data = {
        name: module.state_dict()
        for name, module in agent.checkpoint_modules.items()
        if module is not None and hasattr(module, "state_dict")
    }
    data["newton_gym"] = dict(meta)
    data.update(extra or {})
    return write_pt(data, path)


def checkpoint_backend(data) -> str | None:
    """The backend whose layout the checkpoint dict ``data`` has ("skrl", "rsl_rl"), or None."""
    if not isinstance(data, dict):
        return None
    if "actor_state_dict" in data and isinstance(data.get("infos"), dict) and "newton_gym" in data["infos"]:
        return "rsl_rl"
    if "policy" in data and isinstance(data.get("newton_gym"), dict):
        return "skrl"
    return None


def checkpoint_meta(data: dict) -> dict:
    """The newton_gym metadata of a checkpoint dict of either layout."""
    return data["infos"]["newton_gym"] if checkpoint_backend(data) == "rsl_rl" else data["newton_gym"]


def load_checkpoint(path: str, device="cpu") -> dict:
    """The checkpoint dict at ``path`` (either layout), read without running code from it.

    Raises:
        CheckpointError: ``path`` is missing, unreadable or not a newton_gym checkpoint (or its metadata
            lacks what a policy needs).
        UnsafeCheckpointError: its pickle holds objects other than plain data.
    """
    data = read_pt(path, device)
    backend = checkpoint_backend(data)
    if backend is None:
        raise CheckpointError(f"not a newton_gym training checkpoint ({_WHAT})", path)
    missing = [key for key in _POLICY_META[backend] if key not in checkpoint_meta(data)]
    if missing:
        raise CheckpointError(
            f"not a newton_gym training checkpoint: its {backend} metadata lacks {missing} (so it is "
            f"not a newton_gym skrl checkpoint and not a newton_gym rsl_rl checkpoint; {_WHAT})",
            path,
        )
    return data


class DeterministicPolicy(torch.nn.Module):
    """Mean action of a trained Gaussian policy, in the task's action units.

    ``forward(obs)`` takes (N, O) float observations (torch, any device) and returns (N, A) actions on the
    policy's device: :class:`~newton_gym.train.policy.DeployPolicy` (normaliser, MLP, action map) of the
    checkpoint.

    Attributes:
        meta: the checkpoint's metadata (task, sizes, action box, ``train_config``, ...).
        backend: "skrl" or "rsl_rl", the layout it was read from.
        deploy: the DeployPolicy (what ``newton-gym export`` writes).
    """

    def __init__(self, meta: dict, backend: str, deploy: torch.nn.Module):
        super().__init__()
        self.meta = meta
        self.backend = backend
        self.deploy = deploy

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.deploy(obs.to(self.deploy.obs_mean.device, torch.float32))

    def act_numpy(self, obs) -> np.ndarray:
        """numpy (O,) or (N, O) observation -> numpy action(s) of the same batch shape."""
        o = torch.as_tensor(np.asarray(obs, dtype=np.float32))
        single = o.dim() == 1
        with torch.no_grad():
            a = self.forward(o[None] if single else o).cpu().numpy()
        return a[0] if single else a


def policy_from_checkpoint(data: dict) -> DeterministicPolicy:
    """The :class:`DeterministicPolicy` (on the CPU, eval mode) of a dict :func:`load_checkpoint` returned."""
    backend = checkpoint_backend(data)
    meta = checkpoint_meta(data)
    if backend == "rsl_rl":
        deploy = rsl_rl_deploy_policy(data["actor_state_dict"], meta)
    else:
        deploy = skrl_deploy_policy(meta, data["policy"], data.get("observation_preprocessor"))
    return DeterministicPolicy(meta, backend, deploy).eval()


def load_policy(path: str, device="cpu") -> DeterministicPolicy:
    """The deterministic policy of checkpoint ``path`` (either backend, a shipped policy) on ``device``."""
    return policy_from_checkpoint(load_checkpoint(path)).to(device)


def save_policy_checkpoint(src: str, dst: str) -> str:
    """Copy of checkpoint ``src`` with only what :func:`load_policy` reads (skrl: policy, observation
    normaliser, metadata; rsl_rl: the actor and metadata): about 80 KB for the Ant policy, small enough to
    ship. It cannot be resumed (no optimizer, no critic)."""
    data = load_checkpoint(src)
    if checkpoint_backend(data) == "rsl_rl":
        slim = {"actor_state_dict": data["actor_state_dict"], "infos": {"newton_gym": checkpoint_meta(data)}}
    else:
        slim = {key: data[key] for key in ("policy", "observation_preprocessor", "newton_gym") if key in data}
    return write_pt(slim, dst)
