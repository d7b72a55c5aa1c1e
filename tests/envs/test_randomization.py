"""Per-world randomization: the one-kernel resample (newton_gym/envs/randomization.py) gives what the per-term
draws of each world's own stream give, bitwise, and touches the reset worlds only."""

from __future__ import annotations

import gymnasium as gym
import torch

import newton_gym  # noqa: F401
from newton_gym.envs import randomization as R

RANGES = {
    "gravity_x": (-0.5, 0.5),
    "gravity_z": (-10.5, -9.0),
    "mass_scale": (0.8, 1.25),
    "friction": (0.3, 1.2),
    "actuator_kp_scale": (0.9, 1.1),
    "actuator_kd_scale": (0.7, 1.3),
}


def _drawn(rng, stream, bounds, mask, width=1):
    """low + u (high - low) from the worlds' streams, as torch: the draw the kernel must reproduce."""
    low, high = bounds
    return rng.uniform(stream, width, mask) * (high - low) + low


def test_one_kernel_resample_equals_the_per_term_draws_bitwise():
    env = gym.make_vec("Newton/Go1-Flat-v0", num_envs=6, device="cpu", randomization=RANGES)
    env.reset(seed=11)
    r, rng = env.randomizer, env.rng
    rng.advance(torch.tensor([True, False, True, True, False, True]))  # counters differ per world
    mask = torch.tensor([True, True, False, True, False, False])
    keep = ~mask
    before = {
        name: getattr(r, name).clone()
        for name in ("gravity", "mass", "inv_mass", "inertia", "inv_inertia", "gain", "bias", "world_friction")
    }
    g = before["gravity"].clone()
    g[:, 0] = torch.where(mask, _drawn(rng, R._GRAVITY_STREAM, RANGES["gravity_x"], mask, 3)[:, 0], g[:, 0])
    g[:, 2] = torch.where(mask, _drawn(rng, R._GRAVITY_STREAM, RANGES["gravity_z"], mask, 3)[:, 2], g[:, 2])
    s = torch.where(mask, _drawn(rng, R._MASS_STREAM, RANGES["mass_scale"], mask)[:, 0], r.world_mass_scale)
    mu = torch.where(mask, _drawn(rng, R._FRICTION_STREAM, RANGES["friction"], mask)[:, 0], r.world_friction)
    kp = torch.where(mask, _drawn(rng, R._KP_STREAM, RANGES["actuator_kp_scale"], mask)[:, 0], r.world_kp_scale)
    kd = torch.where(mask, _drawn(rng, R._KD_STREAM, RANGES["actuator_kd_scale"], mask)[:, 0], r.world_kd_scale)
    r.apply(mask, rng)
    assert torch.equal(r.gravity, g) and torch.equal(r.world_mass_scale, s) and torch.equal(r.world_friction, mu)
    assert torch.equal(r.world_kp_scale, kp) and torch.equal(r.world_kd_scale, kd)
    base_mass, base_inv_mass, base_inertia, base_inv_inertia = r.base
    assert torch.equal(r.mass[mask], (base_mass * s[:, None])[mask])
    assert torch.equal(r.inv_mass[mask], (base_inv_mass / s[:, None])[mask])
    assert torch.equal(r.inertia[mask], (base_inertia * s[:, None, None, None])[mask])
    assert torch.equal(r.inv_inertia[mask], (base_inv_inertia / s[:, None, None, None])[mask])
    assert torch.equal(r.gain[mask], (r.base_gain * kp[:, None])[mask])
    bias = torch.stack([r.base_bias[..., 0], r.base_bias[..., 1] * kp[:, None], r.base_bias[..., 2] * kd[:, None]], -1)
    assert torch.equal(r.bias[mask], bias[mask])
    for name, value in before.items():  # the other worlds keep theirs
        assert torch.equal(getattr(r, name)[keep], value[keep]), name
    # the solver's contact pairs of a reset world take its friction
    contacts = env.sim.solver.contacts
    pair_mu = torch.as_tensor(contacts.pair_mu.numpy()[: contacts.pair_count])
    world = torch.as_tensor(contacts.pair_world_host)
    assert torch.equal(pair_mu[world == 3], mu[3].expand(int((world == 3).sum())))
    env.close()
