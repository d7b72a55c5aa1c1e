"""Deployment export of an rsl_rl policy: TorchScript (``policy.pt``) and ONNX (``policy.onnx``).

Both files hold one function, observations -> actions:

- input ``obs``: (B, obs) float32, the observation as the environment returns it (not normalised);
- output ``actions``: (B, act) float32, the Gaussian policy's mean (deterministic). Not clipped: the
  environment clips actions to its box (``action_low`` / ``action_high`` in the metadata), and a robot
  should too;
- inside: the actor's observation normaliser with its running statistics frozen,
  ``(obs - mean) / (std + eps)``, then the actor MLP.

Metadata (task, sizes, action box, network, training iteration) travels with each file: as the extra
file ``newton_gym_meta.json`` of the TorchScript archive (``torch.jit.load(path, _extra_files=...)``)
and as ONNX ``metadata_props``.

The exported module is rebuilt from the actor's state dict (rsl-rl-lib 5.5.1's ``MLPModel``:
``obs_normalizer._mean`` / ``_std`` and ``mlp.<i>.weight`` / ``bias``) and the checkpoint's metadata, so
exporting needs torch only (plus ``onnx`` and ``onnxscript`` for ONNX), not rsl_rl or the simulator.
"""

from __future__ import annotations

import json
import os
import re
import warnings

import torch
from torch import nn

from ..errors import ConfigError

__all__ = [
    "DeployPolicy",
    "deploy_policy",
    "load_rsl_rl_checkpoint",
    "export_checkpoint",
    "export_policy",
    "write_torchscript",
    "write_onnx",
    "read_torchscript_meta",
]

_META_FILE = "newton_gym_meta.json"
_ONNX_HINT = "ONNX export needs onnx and onnxscript: pip install 'newton-gym[onnx]'"

# rsl_rl 5.5.1's names (rsl_rl.utils.resolve_nn_activation) -> torch modules with the same defaults
_ACTIVATIONS = {
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


class DeployPolicy(nn.Module):
    """Observation normaliser and MLP: (B, obs) raw observations -> (B, act) deterministic actions.

    Args:
        obs_mean: (obs,) running mean of the observations.
        obs_denom: (obs,) the normaliser's divisor, std + eps (ones and a zero mean: no normalisation).
        layers: [(weight (out, in), bias (out,)), ...] of the MLP's linear layers, input first.
        activation: rsl_rl's activation name, applied between the linear layers.
    """

    def __init__(self, obs_mean: torch.Tensor, obs_denom: torch.Tensor, layers: list, activation: str):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ConfigError(f"activation {activation!r} is not one rsl_rl names; valid: {sorted(_ACTIVATIONS)}")
        self.register_buffer("obs_mean", obs_mean.detach().float().reshape(1, -1).clone())
        self.register_buffer("obs_denom", obs_denom.detach().float().reshape(1, -1).clone())
        modules = []
        for i, (weight, bias) in enumerate(layers):
            linear = nn.Linear(weight.shape[1], weight.shape[0])
            with torch.no_grad():
                linear.weight.copy_(weight)
                linear.bias.copy_(bias)
            modules.append(linear)
            if i < len(layers) - 1:
                modules.append(_ACTIVATIONS[activation]())
        self.mlp = nn.Sequential(*modules)
        self.eval()

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # the same arithmetic as rsl_rl's EmpiricalNormalization.forward, so actions match it exactly
        return self.mlp((obs - self.obs_mean) / self.obs_denom)


def load_rsl_rl_checkpoint(path: str) -> tuple[dict, dict]:
    """(actor state dict, metadata) of a checkpoint written by :class:`~newton_gym.train.rsl_rl_runner.RslRlRunner`."""
    if not os.path.isfile(path):
        raise ConfigError(f"checkpoint {path!r} does not exist")
    data = torch.load(path, map_location="cpu", weights_only=True)
    meta = (data.get("infos") or {}).get("newton_gym") if isinstance(data, dict) else None
    if meta is None or "actor_state_dict" not in data:
        raise ConfigError(
            f"{path!r} is not a newton_gym rsl_rl checkpoint (needs 'actor_state_dict' and infos['newton_gym'] "
            "metadata, as newton-gym train with backend = 'rsl_rl' writes)"
        )
    return data["actor_state_dict"], meta


def deploy_policy(actor_state: dict, meta: dict) -> DeployPolicy:
    """The :class:`DeployPolicy` of an rsl_rl MLPModel actor's state dict and the run's metadata."""
    indices = sorted(int(m.group(1)) for key in actor_state if (m := re.fullmatch(r"mlp\.(\d+)\.weight", key)))
    if not indices:
        raise ConfigError(f"the actor state dict has no mlp.<i>.weight entries (keys: {sorted(actor_state)[:8]})")
    layers = [(actor_state[f"mlp.{i}.weight"], actor_state[f"mlp.{i}.bias"]) for i in indices]
    obs_size, action_size = int(meta["observation_size"]), int(meta["action_size"])
    if layers[0][0].shape[1] != obs_size or layers[-1][0].shape[0] != action_size:
        raise ConfigError(
            f"the actor maps {layers[0][0].shape[1]} inputs to {layers[-1][0].shape[0]} outputs, the metadata says "
            f"{obs_size} -> {action_size} (only a Gaussian policy with a state-independent std can be exported)"
        )
    if meta.get("obs_normalization"):
        mean = actor_state["obs_normalizer._mean"].reshape(-1)
        denom = actor_state["obs_normalizer._std"].reshape(-1) + float(meta["obs_normalizer_eps"])
    else:
        mean, denom = torch.zeros(obs_size), torch.ones(obs_size)
    return DeployPolicy(mean, denom, layers, meta["activation"])


def _deploy_meta(meta: dict) -> dict:
    keys = (
        "task",
        "observation_size",
        "action_size",
        "action_low",
        "action_high",
        "actor_hidden_dims",
        "activation",
        "obs_normalization",
        "iteration",
        "env_steps",
        "rsl_rl_version",
    )
    return {"format": "newton_gym.policy/1", **{k: meta[k] for k in keys if k in meta}}


def write_torchscript(policy: DeployPolicy, meta: dict, path: str) -> str:
    """Script ``policy`` and save it to ``path`` with the metadata as ``newton_gym_meta.json``."""
    with warnings.catch_warnings():
        # torch >= 2.10 deprecates TorchScript, but it is what libtorch (C++) deployments load
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.script(policy.cpu().eval())
        scripted.save(path, _extra_files={_META_FILE: json.dumps(_deploy_meta(meta))})
    return path


def read_torchscript_meta(path: str) -> dict:
    """The metadata stored in an exported ``policy.pt``."""
    extra = {_META_FILE: ""}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.load(path, map_location="cpu", _extra_files=extra)
    return json.loads(extra[_META_FILE])


def write_onnx(policy: DeployPolicy, meta: dict, path: str) -> str:
    """Export ``policy`` to ONNX (opset 18, input "obs" (batch, obs), output "actions" (batch, act))."""
    try:
        import onnx
        import onnxscript  # noqa: F401  (torch.onnx's exporter needs it)
    except ImportError as exc:
        raise ImportError(f"{_ONNX_HINT} ({exc})") from exc
    policy = policy.cpu().eval()
    # batch 2 in the example: torch.export would specialise a batch of 1 to a constant
    example = (torch.zeros(2, int(meta["observation_size"])),)
    torch.onnx.export(
        policy,
        example,
        path,
        input_names=["obs"],
        output_names=["actions"],
        opset_version=18,
        dynamic_shapes={"obs": {0: torch.export.Dim("batch")}},
        dynamo=True,
        external_data=False,  # one self-contained file (a policy is well under protobuf's 2 GB limit)
        verbose=False,
    )
    model = onnx.load(path)
    for key, value in _deploy_meta(meta).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, json.dumps(value)
    onnx.save(model, path)
    return path


def export_policy(actor_state: dict, meta: dict, out_dir: str, onnx: bool = True) -> dict[str, str]:
    """Write ``policy.pt`` (and ``policy.onnx`` unless ``onnx`` is False) into ``out_dir``; returns the paths
    by format ("torchscript", "onnx")."""
    os.makedirs(out_dir, exist_ok=True)
    policy = deploy_policy(actor_state, meta)
    paths = {"torchscript": write_torchscript(policy, meta, os.path.join(out_dir, "policy.pt"))}
    if onnx:
        paths["onnx"] = write_onnx(policy, meta, os.path.join(out_dir, "policy.onnx"))
    return paths


def export_checkpoint(checkpoint: str, out_dir: str, onnx: bool = True) -> dict[str, str]:
    """:func:`export_policy` of an rsl_rl checkpoint written by ``newton-gym train`` (backend = "rsl_rl")."""
    actor_state, meta = load_rsl_rl_checkpoint(checkpoint)
    return export_policy(actor_state, meta, out_dir, onnx=onnx)
