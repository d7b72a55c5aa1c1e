"""Actor and critic networks as skrl models: MLPs with a state-independent Gaussian log std."""

from __future__ import annotations

import torch
from torch import nn

from .distributed import import_skrl
from .networks import mlp

import_skrl()
from skrl.models.torch import DeterministicMixin, GaussianMixin, Model  # noqa: E402

__all__ = ["GaussianPolicy", "ValueNet"]


class GaussianPolicy(GaussianMixin, Model):
    """pi(a | o) = N(mlp(o), exp(log_std)); observations (N, O) -> actions (N, A).

    Args:
        observation_space, action_space: gymnasium spaces (the policy's action box).
        device: torch device.
        hidden, activation: the MLP.
        init_log_std: initial log standard deviation.
    """

    def __init__(
        self, observation_space, action_space, device, hidden=(128, 128), activation="elu", init_log_std: float = -0.5
    ):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        GaussianMixin.__init__(
            self, clip_actions=False, clip_log_std=True, min_log_std=-5.0, max_log_std=1.0, role="policy"
        )
        self.net = mlp(self.num_observations, hidden, self.num_actions, activation)
        with torch.no_grad():  # small initial means: the first actions come from the exploration noise
            self.net[-1].weight.mul_(0.01)
            self.net[-1].bias.zero_()
        self.log_std_parameter = nn.Parameter(torch.full((self.num_actions,), float(init_log_std)))

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {
            "log_std": self.log_std_parameter.expand(inputs["observations"].shape[0], -1)
        }


class ValueNet(DeterministicMixin, Model):
    """V(o): observations (N, O) -> values (N, 1)."""

    def __init__(self, observation_space, action_space, device, hidden=(128, 128), activation="elu"):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        DeterministicMixin.__init__(self, clip_actions=False, role="value")
        self.net = mlp(self.num_observations, hidden, 1, activation)

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {}
