"""Per-world domain randomization applied when worlds reset: gravity, body mass, friction, actuator gains.

Gravity and masses are written in place into the model's arrays (zero-copy torch views), friction through
the solver's ``set_world_friction``; nothing is rebuilt and the captured step graph stays valid.
"""

from __future__ import annotations

import torch
import warp as wp

from ..sim.torch_views import world_view
from .world_rng import WorldRng

__all__ = ["Randomizer"]


# WorldRng stream ids (the reset noise uses 1 and 2)
_GRAVITY_STREAM = 3
_MASS_STREAM = 4
_FRICTION_STREAM = 5
_KP_STREAM = 6
_KD_STREAM = 7


def _uniform(rng, stream, bounds, mask, width=1):
    """(N, width) uniform in [low, high) from each world's own stream, drawn for the worlds of ``mask``
    (the other rows are ``low``)."""
    lo, hi = float(bounds[0]), float(bounds[1])
    return rng.uniform(stream, width, mask) * (hi - lo) + lo


class Randomizer:
    """Samples per-world physics for the worlds being reset.

    Args:
        cfg: RandomizationCfg.
        sim: the Simulation.
    """

    def __init__(self, cfg, sim):
        self.cfg = cfg
        self.sim = sim
        m, n, dev = sim.model, sim.num_envs, sim.torch_device
        self.gravity = wp.to_torch(m.gravity)[:n]  # (N, 3) view
        self.base_gravity = self.gravity.clone()
        bws = m.body_world_start
        self.mass = world_view(m.body_mass, bws, n)  # (N, B) views
        self.inv_mass = world_view(m.body_inv_mass, bws, n)
        self.inertia = world_view(m.body_inertia, bws, n)  # (N, B, 3, 3) views
        self.inv_inertia = world_view(m.body_inv_inertia, bws, n)
        self.bodies_per_world = self.mass.shape[1]
        self.base = [t.clone() for t in (self.mass, self.inv_mass, self.inertia, self.inv_inertia)]
        # Friction is per world (every contact pair of the world, its pairs with the shared ground
        # included), through the solver's set_world_friction; NaN where never randomized.
        self.world_friction = torch.full((n,), float("nan"), device=dev)
        self.world_mass_scale = torch.ones(n, device=dev)
        # Actuator gains: (N, A) views of the solver's per-actuator arrays (actuators are laid out world by world).
        a = sim.actuator_count
        self.gain = wp.to_torch(sim.solver.actuator_gain)[: n * a].view(n, a)
        self.bias = wp.to_torch(sim.solver.actuator_bias)[: n * a].view(n, a, 3)
        self.base_gain, self.base_bias = self.gain.clone(), self.bias.clone()
        self.world_kp_scale = torch.ones(n, device=dev)
        self.world_kd_scale = torch.ones(n, device=dev)

    @property
    def active(self) -> bool:
        c = self.cfg
        ranges = (
            c.gravity_x,
            c.gravity_y,
            c.gravity_z,
            c.mass_scale,
            c.friction,
            c.actuator_kp_scale,
            c.actuator_kd_scale,
        )
        return any(r is not None for r in ranges)

    def apply(self, mask: torch.Tensor, rng: WorldRng):
        """Resample the randomized quantities of the worlds where ``mask`` (N,) is True, each world from
        its own stream of ``rng``. Masked writes only: no index list, no host sync."""
        if not self.active:
            return
        c = self.cfg
        for axis, bounds in enumerate((c.gravity_x, c.gravity_y, c.gravity_z)):
            if bounds is not None:
                g = _uniform(rng, _GRAVITY_STREAM, bounds, mask, 3)[:, axis]
                self.gravity[:, axis] = torch.where(mask, g, self.gravity[:, axis])
        if c.mass_scale is not None:
            s = torch.where(mask, _uniform(rng, _MASS_STREAM, c.mass_scale, mask)[:, 0], self.world_mass_scale)
            self.world_mass_scale.copy_(s)
            self.mass.copy_(self.base[0] * s[:, None])
            self.inv_mass.copy_(self.base[1] / s[:, None])
            self.inertia.copy_(self.base[2] * s[:, None, None, None])
            self.inv_inertia.copy_(self.base[3] / s[:, None, None, None])
        if c.actuator_kp_scale is not None or c.actuator_kd_scale is not None:
            for bounds, stream, scale in (
                (c.actuator_kp_scale, _KP_STREAM, self.world_kp_scale),
                (c.actuator_kd_scale, _KD_STREAM, self.world_kd_scale),
            ):
                if bounds is not None:
                    scale.copy_(torch.where(mask, _uniform(rng, stream, bounds, mask)[:, 0], scale))
            kp, kd = self.world_kp_scale[:, None], self.world_kd_scale[:, None]
            self.gain.copy_(self.base_gain * kp)
            self.bias.copy_(
                torch.stack([self.base_bias[..., 0], self.base_bias[..., 1] * kp, self.base_bias[..., 2] * kd], dim=-1)
            )
        if c.friction is not None:
            mu = _uniform(rng, _FRICTION_STREAM, c.friction, mask)[:, 0]
            self.world_friction.copy_(torch.where(mask, mu, self.world_friction))
            self.sim.solver.set_world_friction(
                wp.from_torch(self.world_friction.contiguous()), wp.from_torch(mask.to(torch.bool).contiguous())
            )
