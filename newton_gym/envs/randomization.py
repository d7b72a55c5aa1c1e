"""Per-world domain randomization applied when worlds reset: gravity, body mass, friction, actuator gains.

Gravity and masses are written in place into the model's arrays (zero-copy torch views), friction through
the solver's ``set_world_friction``; nothing is rebuilt and the captured step graph stays valid. The draws
and writes of the reset worlds are one Warp kernel (:func:`_randomize_kernel`, one thread per world), the
friction a second launch: a reset costs two launches however many terms are randomized (as torch operations
with a draw per term it was four launches and about twenty operations, 0.6 ms of a 256-world Go1 reset).
"""

from __future__ import annotations

import torch
import warp as wp

from ..sim.torch_views import world_view
from .world_rng import WorldRng, world_uniform

__all__ = ["Randomizer"]

wp.set_module_options({"enable_backward": False})

# WorldRng stream ids (the reset noise uses 1 and 2)
_GRAVITY_STREAM = 3
_MASS_STREAM = 4
_FRICTION_STREAM = 5
_KP_STREAM = 6
_KD_STREAM = 7
_SCALE_STREAMS = (_MASS_STREAM, _FRICTION_STREAM, _KP_STREAM, _KD_STREAM)

_Keys = wp.types.vector(length=5, dtype=wp.uint32)  # stream keys: gravity, mass, friction, kp, kd


@wp.struct
class RandomizeArgs:
    """What a resample of the reset worlds reads and writes: per world ``bodies`` bodies (world 0's first at
    ``body_start``) and ``actuators`` actuators (world 0's first at 0). A term is drawn where its ``*_on`` is 1,
    as low + u (high - low) with u its stream's uniform number."""

    # Settings:
    gravity_on: wp.vec3i  # which gravity components are randomized
    gravity_low: wp.vec3  # [m/s^2]
    gravity_span: wp.vec3  # high - low [m/s^2]
    scale_on: wp.vec4i  # mass scale, friction, kp scale, kd scale: which are randomized
    scale_low: wp.vec4
    scale_span: wp.vec4  # high - low
    bodies: int
    body_start: int
    actuators: int
    # Base values (as built), per world block:
    base_mass: wp.array(dtype=float)  # (N * bodies,) [kg]
    base_inv_mass: wp.array(dtype=float)  # [1/kg]
    base_inertia: wp.array(dtype=wp.mat33)  # [kg m^2]
    base_inv_inertia: wp.array(dtype=wp.mat33)
    base_gain: wp.array(dtype=float)  # (N * actuators,)
    base_bias: wp.array(dtype=wp.vec3)
    counter: wp.array(dtype=wp.int64)  # (N,) each world's WorldRng counter
    # Out (the model's and the solver's arrays, in place; the sampled values per world):
    gravity: wp.array(dtype=wp.vec3)
    body_mass: wp.array(dtype=float)
    body_inv_mass: wp.array(dtype=float)
    body_inertia: wp.array(dtype=wp.mat33)
    body_inv_inertia: wp.array(dtype=wp.mat33)
    actuator_gain: wp.array(dtype=float)
    actuator_bias: wp.array(dtype=wp.vec3)
    mass_scale: wp.array(dtype=float)  # (N,)
    friction: wp.array(dtype=float)  # (N,)
    kp_scale: wp.array(dtype=float)  # (N,)
    kd_scale: wp.array(dtype=float)  # (N,)


@wp.func
def _drawn(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int, e: int, low: float, span: float):
    """low + u span, u element e of world w's stream ``key`` (a product, then a sum: as torch rounds it)."""
    t = world_uniform(key, counter, w, e) * span
    return t + low


@wp.kernel
def _randomize_kernel(args: RandomizeArgs, keys: _Keys, mask: wp.array(dtype=wp.bool)):
    """Resample world w where mask[w]: gravity components, then the mass scale (every body's mass and inertia
    and their inverses from the base values), the friction, and the actuator gains (kp on gain and on the
    position feedback bias[1], kd on the velocity feedback bias[2])."""
    w = wp.tid()
    if not mask[w]:
        return
    g = args.gravity[w]
    for axis in range(3):
        if args.gravity_on[axis] != 0:
            g[axis] = _drawn(keys[0], args.counter, w, axis, args.gravity_low[axis], args.gravity_span[axis])
    args.gravity[w] = g
    if args.scale_on[0] != 0:
        s = _drawn(keys[1], args.counter, w, 0, args.scale_low[0], args.scale_span[0])
        args.mass_scale[w] = s
        for k in range(args.bodies):
            i = w * args.bodies + k
            b = args.body_start + i
            args.body_mass[b] = args.base_mass[i] * s
            args.body_inv_mass[b] = args.base_inv_mass[i] / s
            args.body_inertia[b] = args.base_inertia[i] * s
            args.body_inv_inertia[b] = args.base_inv_inertia[i] / s
    if args.scale_on[1] != 0:
        args.friction[w] = _drawn(keys[2], args.counter, w, 0, args.scale_low[1], args.scale_span[1])
    if args.scale_on[2] != 0 or args.scale_on[3] != 0:
        kp = args.kp_scale[w]
        kd = args.kd_scale[w]
        if args.scale_on[2] != 0:
            kp = _drawn(keys[3], args.counter, w, 0, args.scale_low[2], args.scale_span[2])
            args.kp_scale[w] = kp
        if args.scale_on[3] != 0:
            kd = _drawn(keys[4], args.counter, w, 0, args.scale_low[3], args.scale_span[3])
            args.kd_scale[w] = kd
        for k in range(args.actuators):
            a = w * args.actuators + k
            bias = args.base_bias[a]
            args.actuator_gain[a] = args.base_gain[a] * kp
            args.actuator_bias[a] = wp.vec3(bias[0], bias[1] * kp, bias[2] * kd)


def _on_low_span(bounds):
    """(1, low, high - low) of a (low, high) range, (0, 0, 0) where it is None."""
    if bounds is None:
        return 0, 0.0, 0.0
    return 1, float(bounds[0]), float(bounds[1]) - float(bounds[0])


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
        self._args = self._kernel_args(int(bws.numpy()[0]), a)

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

    def _kernel_args(self, body_start: int, actuators: int) -> RandomizeArgs:
        """The :class:`RandomizeArgs` of this env: the settings, and zero-copy views of the model's, the
        solver's and this object's tensors (the rng's counter is set by :meth:`apply`)."""
        c, m, solver = self.cfg, self.sim.model, self.sim.solver
        args = RandomizeArgs()
        gravity = [_on_low_span(b) for b in (c.gravity_x, c.gravity_y, c.gravity_z)]
        args.gravity_on = wp.vec3i(*[g[0] for g in gravity])
        args.gravity_low = wp.vec3(*[g[1] for g in gravity])
        args.gravity_span = wp.vec3(*[g[2] for g in gravity])
        scales = [_on_low_span(b) for b in (c.mass_scale, c.friction, c.actuator_kp_scale, c.actuator_kd_scale)]
        args.scale_on = wp.vec4i(*[t[0] for t in scales])
        args.scale_low = wp.vec4(*[t[1] for t in scales])
        args.scale_span = wp.vec4(*[t[2] for t in scales])
        args.bodies = int(self.bodies_per_world)
        args.body_start = body_start
        args.actuators = int(actuators)
        args.base_mass, args.base_inv_mass = (wp.from_torch(t.reshape(-1)) for t in self.base[:2])
        args.base_inertia, args.base_inv_inertia = (
            wp.from_torch(t.reshape(-1, 3, 3), dtype=wp.mat33) for t in self.base[2:]
        )
        args.base_gain = wp.from_torch(self.base_gain.reshape(-1))
        args.base_bias = wp.from_torch(self.base_bias.reshape(-1, 3), dtype=wp.vec3)
        args.gravity = m.gravity
        args.body_mass, args.body_inv_mass = m.body_mass, m.body_inv_mass
        args.body_inertia, args.body_inv_inertia = m.body_inertia, m.body_inv_inertia
        args.actuator_gain, args.actuator_bias = solver.actuator_gain, solver.actuator_bias
        args.mass_scale = wp.from_torch(self.world_mass_scale)
        args.friction = wp.from_torch(self.world_friction)
        args.kp_scale = wp.from_torch(self.world_kp_scale)
        args.kd_scale = wp.from_torch(self.world_kd_scale)
        return args

    def apply(self, mask: torch.Tensor, rng: WorldRng):
        """Resample the randomized quantities of the worlds where ``mask`` (N,) is True, each world from
        its own stream of ``rng`` (the numbers ``rng.uniform`` would give): one kernel, then the friction's
        launch. Masked writes only: no index list, no host sync."""
        if not self.active:
            return
        args = self._args
        if args.counter is None or args.counter.ptr != rng.counter.data_ptr():
            args.counter = wp.from_torch(rng.counter)
        streams = (_GRAVITY_STREAM,) + _SCALE_STREAMS
        keys = _Keys(*[rng.key(stream) for stream in streams])
        world_mask = wp.from_torch(mask.to(self.world_friction.device, torch.bool).contiguous())
        wp.launch(
            _randomize_kernel,
            dim=self.world_mass_scale.shape[0],
            inputs=[args, keys, world_mask],
            device=self.sim.model.device,
        )
        if self.cfg.friction is not None:
            self.sim.solver.set_world_friction(args.friction, world_mask)
