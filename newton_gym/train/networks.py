"""Plain torch networks shared by training (inside skrl models) and inference (no skrl needed)."""

from __future__ import annotations

from torch import nn

__all__ = ["mlp"]

_ACTIVATIONS = {"elu": nn.ELU, "tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(inputs: int, hidden, outputs: int, activation: str) -> nn.Sequential:
    """Linear layers of widths ``hidden`` with ``activation`` between them, and a linear output layer."""
    layers, width = [], int(inputs)
    for h in hidden:
        layers += [nn.Linear(width, int(h)), _ACTIVATIONS[activation]()]
        width = int(h)
    layers.append(nn.Linear(width, int(outputs)))
    return nn.Sequential(*layers)
