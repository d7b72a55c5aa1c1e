"""``init_policy``: a new rsl_rl run whose networks start from another run's checkpoint (fine-tuning).

Where ``--resume`` continues one run (its config, counts, optimizer and RNG), ``init_policy`` starts a new
one (its own config, iteration 0, a fresh optimizer) from the weights of a checkpoint ``newton-gym train``
wrote or a shipped policy (``newton_gym/assets/policies/*.pt``, actor only). The usual use: a rough-ground
task starts from the flat task's walking policy, as legged_gym-style fine-tuning does.

What is copied, per network (actor; critic where the checkpoint holds one, else the critic starts fresh):

- every parameter and buffer of the same name and shape: MLP weights and biases, the action noise
  (``distribution.std_param``), the observation normaliser's mean, variance and count;
- a wider input: where this task's observation is the checkpoint's followed by new inputs (Go1-Rough's is
  Go1-Flat's followed by the height scan), the first layer's weight gets zero columns for the new inputs
  and the normaliser mean 0, variance 1 for them. The network's outputs are then the checkpoint's, and
  training learns what the new inputs add. Only trailing inputs can be new: the checkpoint's inputs must be
  this task's first ones, in order, which the tasks' observation tables state.

Anything else (another action size, other hidden widths or activation, a narrower input) is a
CheckpointError naming the file and the tensor.
"""

from __future__ import annotations

import torch

from ..errors import CheckpointError
from .checkpoint import checkpoint_backend, checkpoint_meta, load_checkpoint

__all__ = ["load_init_policy", "widen_state_dict", "InitPolicyReport"]

#: The first layer's weight, (hidden, inputs), in rsl_rl 5's MLPModel.
_FIRST_WEIGHT = "mlp.0.weight"
#: The observation normaliser's per-input buffers, (1, inputs), and what a new input starts with.
_NORMALIZER_FILL = {"obs_normalizer._mean": 0.0, "obs_normalizer._var": 1.0, "obs_normalizer._std": 1.0}


class InitPolicyReport:
    """What :func:`load_init_policy` copied: ``lines`` for the run's log."""

    def __init__(self, path: str, task: str):
        self.path = path
        self.task = task
        self.lines: list[str] = []


def widen_state_dict(source: dict, target: dict, path: str, network: str) -> tuple[dict, int]:
    """``target`` (a module's state dict) filled from ``source``: same-shape tensors copied, a wider input
    padded (module docstring). Returns the new state dict and the number of new inputs (0: none).

    Raises:
        CheckpointError: a tensor of ``target`` missing from ``source``, or shapes no padding explains.
    """
    missing = [name for name in target if name not in source]
    if missing:
        raise CheckpointError(f"its {network} lacks {missing}: not a network of the same kind", path)
    new_inputs = 0
    if _FIRST_WEIGHT in target:
        new_inputs = int(target[_FIRST_WEIGHT].shape[1]) - int(source[_FIRST_WEIGHT].shape[1])
    if new_inputs < 0:
        raise CheckpointError(
            f"its {network} reads {int(source[_FIRST_WEIGHT].shape[1])} inputs, this task's "
            f"{int(target[_FIRST_WEIGHT].shape[1])}: a policy cannot start from one with more inputs",
            path,
        )
    state = {}
    for name, want in target.items():
        have = source[name].to(want.device, want.dtype)
        if have.shape == want.shape:
            state[name] = have.clone()
            continue
        same_rows = have.shape[:-1] == want.shape[:-1]
        widened = new_inputs > 0 and same_rows and have.shape[-1] + new_inputs == want.shape[-1]
        if name == _FIRST_WEIGHT and widened:
            state[name] = torch.cat([have, torch.zeros(*have.shape[:-1], new_inputs, dtype=want.dtype)], dim=-1)
        elif name in _NORMALIZER_FILL and widened:
            fill = torch.full((*have.shape[:-1], new_inputs), _NORMALIZER_FILL[name], dtype=want.dtype)
            state[name] = torch.cat([have, fill], dim=-1)
        else:
            raise CheckpointError(
                f"its {network} tensor {name!r} has shape {tuple(have.shape)}, this run's "
                f"{tuple(want.shape)} (same action size, hidden widths and activation needed)",
                path,
            )
    return state, new_inputs


def load_init_policy(alg, path: str, action_size: int) -> InitPolicyReport:
    """Copy the actor (and the critic, where the checkpoint holds one) of the rsl_rl checkpoint ``path``
    into ``alg`` (rsl_rl's PPO), as the module docstring says. The optimizer is not touched.

    Raises:
        CheckpointError: not an rsl_rl checkpoint of newton_gym, another action size, or networks that
            do not fit (the message names the file and the tensor).
    """
    data = load_checkpoint(path)
    if checkpoint_backend(data) != "rsl_rl":
        raise CheckpointError("init_policy needs an rsl_rl checkpoint (model_<iteration>.pt or a shipped one)", path)
    meta = checkpoint_meta(data)
    if int(meta["action_size"]) != int(action_size):
        raise CheckpointError(f"its policy acts on {meta['action_size']} actions, this task on {action_size}", path)
    report = InitPolicyReport(path, str(meta["task"]))
    networks = [("actor", alg.actor, "actor_state_dict")]
    if "critic_state_dict" in data:
        networks.append(("critic", alg.critic, "critic_state_dict"))
    else:
        report.lines.append("critic: starts fresh (the checkpoint holds an actor only)")
    loaded = []
    for network, module, key in networks:  # check both before changing either
        state, new_inputs = widen_state_dict(data[key], module.state_dict(), path, network)
        loaded.append((module, state))
        width = int(state[_FIRST_WEIGHT].shape[1]) if _FIRST_WEIGHT in state else 0
        grown = f", {new_inputs} new inputs after them start at zero weight" if new_inputs else ""
        report.lines.append(f"{network}: from {report.task} ({width - new_inputs} inputs{grown})")
    for module, state in loaded:
        module.load_state_dict(state, strict=True)
    return report
