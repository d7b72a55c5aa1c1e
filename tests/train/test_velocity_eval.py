"""The sim-to-sim tracking evaluation builds the same observation and control in MuJoCo C as the task
does in newton_gym: a policy that holds still, and one that reacts to the observation (a fixed linear
map), give the same tracking errors in both simulators."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("mujoco")

from newton_gym.train.velocity_eval import tracking_error_mujoco, tracking_error_newton  # noqa: E402

COMMANDS = np.array([[0.5, 0.0, 0.0], [0.0, 0.0, 0.8]], dtype=np.float32)


def test_holding_policy_errors_agree():
    zero = lambda obs: torch.zeros(obs.shape[0], 12)  # noqa: E731
    ours = tracking_error_newton(zero, commands=COMMANDS, seconds=1.5, settle=0.5)
    ref = tracking_error_mujoco(zero, commands=COMMANDS, seconds=1.5, settle=0.5)
    np.testing.assert_allclose(ours, [0.5, 0.0], atol=0.05)  # stands still: the error is the command
    np.testing.assert_allclose(ours, ref, atol=2e-3)


def test_reactive_policy_errors_agree():
    """A fixed random linear feedback from the observation (joint state, velocities, command, last action)
    to the action: any mismatch in the observation's terms, order or frames changes the motion."""
    gen = torch.Generator().manual_seed(0)
    weights = 0.05 * torch.randn(48, 12, generator=gen)
    policy = lambda obs: (obs @ weights).clamp(-1.0, 1.0)  # noqa: E731
    ours = tracking_error_newton(policy, commands=COMMANDS, seconds=1.0, settle=0.2)
    ref = tracking_error_mujoco(policy, commands=COMMANDS, seconds=1.0, settle=0.2)
    np.testing.assert_allclose(ours, ref, atol=5e-3)
