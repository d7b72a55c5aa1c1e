"""Per-world domain randomization applied when worlds reset: gravity, body mass, friction.

Gravity and masses are written in place into the model's arrays (zero-copy torch views), friction through
the solver's ``set_world_friction``; nothing is rebuilt and the captured step graph stays valid.
"""

from __future__ import annotations

import torch
import warp as wp

__all__ = ["Randomizer"]


def _uniform(gen, rng, n, device):
    lo, hi = float(rng[0]), float(rng[1])
    return (torch.rand(n, generator=gen) * (hi - lo) + lo).to(device)


class Randomizer:
    """Samples per-world physics for the worlds being reset.

    Args:
        cfg: RandomizationCfg.
        sim: the Simulation.
        generator: torch.Generator (CPU) shared with the environment's reset noise, for reproducibility.
    """

    def __init__(self, cfg, sim, generator: torch.Generator):
        self.cfg = cfg
        self.sim = sim
        self.gen = generator
        m, n, dev = sim.model, sim.num_envs, sim.torch_device
        self.gravity = wp.to_torch(m.gravity)[:n]                      # (N, 3) view
        self.base_gravity = self.gravity.clone()
        bws = m.body_world_start.numpy()
        self.bodies_per_world = int(bws[1] - bws[0]) if n else 0
        b0, b1 = int(bws[0]), int(bws[n])
        self.mass = wp.to_torch(m.body_mass)[b0:b1].view(n, -1)
        self.inv_mass = wp.to_torch(m.body_inv_mass)[b0:b1].view(n, -1)
        self.inertia = wp.to_torch(m.body_inertia)[b0:b1].view(n, -1, 3, 3)
        self.inv_inertia = wp.to_torch(m.body_inv_inertia)[b0:b1].view(n, -1, 3, 3)
        self.base = [t.clone() for t in (self.mass, self.inv_mass, self.inertia, self.inv_inertia)]
        # Friction is per world (every contact pair of the world, its pairs with the shared ground
        # included), through the solver's set_world_friction; NaN where never randomized.
        self.world_friction = torch.full((n,), float("nan"), device=dev)
        self.world_mass_scale = torch.ones(n, device=dev)

    @property
    def active(self) -> bool:
        c = self.cfg
        return any(r is not None for r in (c.gravity_x, c.gravity_y, c.gravity_z, c.mass_scale, c.friction))

    def apply(self, mask: torch.Tensor):
        """Resample the randomized quantities of the worlds where ``mask`` (N,) is True."""
        if not self.active:
            return
        idx = torch.nonzero(mask).reshape(-1)
        k, dev = len(idx), self.sim.torch_device
        if k == 0:
            return
        c = self.cfg
        for axis, rng in enumerate((c.gravity_x, c.gravity_y, c.gravity_z)):
            if rng is not None:
                self.gravity[idx, axis] = _uniform(self.gen, rng, k, dev)
        if c.mass_scale is not None:
            s = _uniform(self.gen, c.mass_scale, k, dev)
            self.world_mass_scale[idx] = s
            self.mass[idx] = self.base[0][idx] * s[:, None]
            self.inv_mass[idx] = self.base[1][idx] / s[:, None]
            self.inertia[idx] = self.base[2][idx] * s[:, None, None, None]
            self.inv_inertia[idx] = self.base[3][idx] / s[:, None, None, None]
        if c.friction is not None:
            mu = _uniform(self.gen, c.friction, k, dev)
            self.world_friction[idx] = mu
            self.sim.solver.set_world_friction(wp.from_torch(self.world_friction.contiguous()),
                                               wp.from_torch(mask.to(torch.bool).contiguous()))
