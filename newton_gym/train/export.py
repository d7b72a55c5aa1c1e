"""Deployment export of a trained policy: TorchScript (``policy.pt``) and ONNX (``policy.onnx``).

Any checkpoint ``newton-gym train`` writes (skrl or rsl_rl backend, any task) and the shipped policies
export the same way. Both files hold one function, observations -> actions:

- input ``obs``: (B, obs) float32, the observation as the environment returns it (not normalised);
- output ``actions``: (B, act) float32, the deterministic action of
  :class:`~newton_gym.train.checkpoint.DeterministicPolicy`: for rsl_rl the Gaussian's mean, not clipped
  (the environment clips actions to its box, ``action_low`` / ``action_high`` in the metadata, and a robot
  should too); for skrl the mean mapped onto the action box as in training;
- inside: the observation normaliser with its running statistics frozen, then the MLP
  (:class:`~newton_gym.train.policy.DeployPolicy`).

Metadata (task, backend, sizes, action box, network, training iteration) travels with each file: as the
extra file ``newton_gym_meta.json`` of the TorchScript archive (``torch.jit.load(path, _extra_files=...)``)
and as ONNX ``metadata_props``. After writing, :func:`check_export` runs each file on a few observations
and compares its actions with the torch policy's. Exporting needs torch only (plus ``onnx`` and
``onnxscript`` for ONNX; ``onnxruntime`` runs the check when installed, ``onnx``'s reference evaluator
otherwise), not skrl, rsl_rl or the simulator.
"""

from __future__ import annotations

import json
import os
import warnings

import torch

from ..errors import CheckpointError, ExportError
from .checkpoint import checkpoint_backend, load_checkpoint, policy_from_checkpoint
from .checkpoint_io import write_file
from .policy import DeployPolicy, rsl_rl_deploy_policy

__all__ = [
    "DeployPolicy",
    "deploy_policy",
    "load_rsl_rl_checkpoint",
    "export_checkpoint",
    "export_policy",
    "write_torchscript",
    "write_onnx",
    "read_torchscript_meta",
    "check_export",
    "CHECK_OBSERVATIONS",
]

_META_FILE = "newton_gym_meta.json"
_ONNX_HINT = "ONNX export needs onnx and onnxscript: pip install 'newton-gym[onnx]'"
_META_KEYS = (
    "task",
    "backend",
    "observation_size",
    "action_size",
    "action_low",
    "action_high",
    "hidden",
    "actor_hidden_dims",
    "activation",
    "scale_actions",
    "obs_normalization",
    "iteration",
    "env_steps",
    "rsl_rl_version",
)

#: Observations :func:`check_export` runs each exported file on.
CHECK_OBSERVATIONS = 16

#: The rsl_rl builder under its former name (rsl_rl actor state dict, metadata -> DeployPolicy).
deploy_policy = rsl_rl_deploy_policy


def load_rsl_rl_checkpoint(path: str) -> tuple[dict, dict]:
    """(actor state dict, metadata) of a checkpoint written by :class:`~newton_gym.train.rsl_rl_runner.RslRlRunner`."""
    data = load_checkpoint(path)
    if checkpoint_backend(data) != "rsl_rl":
        raise CheckpointError("a skrl checkpoint, not a newton_gym rsl_rl checkpoint (use load_policy)", path)
    return data["actor_state_dict"], data["infos"]["newton_gym"]


def _deploy_meta(meta: dict, policy: DeployPolicy) -> dict:
    out = {"format": "newton_gym.policy/1", **{k: meta[k] for k in _META_KEYS if k in meta}}
    out["action_map"] = policy.action_map
    return out


def write_torchscript(policy: DeployPolicy, meta: dict, path: str) -> str:
    """Script ``policy`` and save it to ``path`` (atomically) with the metadata as ``newton_gym_meta.json``."""
    with warnings.catch_warnings():
        # torch >= 2.10 deprecates TorchScript, but it is what libtorch (C++) deployments load
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.script(policy.cpu().eval())
        extra = {_META_FILE: json.dumps(_deploy_meta(meta, policy))}
        write_file(path, lambda f: torch.jit.save(scripted, f, _extra_files=extra))
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
    tmp = f"{path}.{os.getpid()}.export"
    try:
        with warnings.catch_warnings():
            # torch's exporter calls its own deprecated pytree API (torch 2.13: "isinstance(treespec, LeafSpec)
            # is deprecated"); nothing the user can change, so it is not shown to them
            warnings.simplefilter("ignore", FutureWarning)
            torch.onnx.export(
                policy,
                example,
                tmp,
                input_names=["obs"],
                output_names=["actions"],
                opset_version=18,
                dynamic_shapes={"obs": {0: torch.export.Dim("batch")}},
                dynamo=True,
                external_data=False,  # one self-contained file (a policy is well under protobuf's 2 GB limit)
                verbose=False,
            )
        model = onnx.load(tmp)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    for key, value in _deploy_meta(meta, policy).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, json.dumps(value)
    write_file(path, lambda f: f.write(model.SerializeToString()))
    return path


def _check_observations(policy: DeployPolicy, count: int) -> torch.Tensor:
    """(count, obs) observations around the normaliser's statistics, some beyond its clip."""
    gen = torch.Generator().manual_seed(0)
    noise = torch.randn(count, policy.obs_mean.shape[1], generator=gen) * 3.0
    return policy.obs_mean + noise * policy.obs_denom


def _run_onnx(path: str, obs: torch.Tensor) -> torch.Tensor:
    try:
        import onnxruntime

        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        (actions,) = session.run(None, {"obs": obs.numpy()})
    except ImportError:
        from onnx.reference import ReferenceEvaluator

        (actions,) = ReferenceEvaluator(path).run(None, {"obs": obs.numpy()})
    return torch.from_numpy(actions)


def check_export(
    policy: DeployPolicy, paths: dict[str, str], count: int = CHECK_OBSERVATIONS, atol: float = 1e-5
) -> dict:
    """Run each exported file on ``count`` observations; returns {format: largest |action - torch action|}.

    Raises:
        ExportError: a file's actions differ from ``policy``'s by more than ``atol``.
    """
    obs = _check_observations(policy, count)
    with torch.no_grad():
        expected = policy(obs)
    runners = {
        "torchscript": lambda path: torch.jit.load(path, map_location="cpu")(obs),
        "onnx": lambda path: _run_onnx(path, obs),
    }
    errors = {}
    for fmt, path in paths.items():
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore", DeprecationWarning)
            actions = runners[fmt](path)
        errors[fmt] = float((actions - expected).abs().max()) if actions.shape == expected.shape else float("inf")
        if not errors[fmt] <= atol:
            raise ExportError(
                f"{path}: the exported policy's actions differ from the torch policy's by {errors[fmt]:.3g} "
                f"(shape {tuple(actions.shape)} vs {tuple(expected.shape)}; tolerance {atol:g})"
            )
    return errors


def export_policy(
    actor_state: dict | None, meta: dict, out_dir: str, onnx: bool = True, policy: DeployPolicy | None = None
) -> dict[str, str]:
    """Write ``policy.pt`` (and ``policy.onnx`` unless ``onnx`` is False) into ``out_dir``; returns the paths
    by format ("torchscript", "onnx"). The policy is ``policy``, else built from an rsl_rl ``actor_state``."""
    os.makedirs(out_dir, exist_ok=True)
    policy = policy if policy is not None else rsl_rl_deploy_policy(actor_state, meta)
    paths = {"torchscript": write_torchscript(policy, meta, os.path.join(out_dir, "policy.pt"))}
    if onnx:
        paths["onnx"] = write_onnx(policy, meta, os.path.join(out_dir, "policy.onnx"))
    return paths


def export_checkpoint(checkpoint: str, out_dir: str, onnx: bool = True, check: bool = True) -> dict[str, str]:
    """Export any newton_gym checkpoint (skrl or rsl_rl, or a shipped policy) into ``out_dir``; with
    ``check``, each file is compared with the torch policy (:func:`check_export`). Returns the paths by
    format."""
    policy = policy_from_checkpoint(load_checkpoint(checkpoint))
    meta = {**policy.meta, "backend": policy.backend}
    paths = export_policy(None, meta, out_dir, onnx=onnx, policy=policy.deploy)
    if check:
        check_export(policy.deploy, paths)
    return paths
