"""Joint-space applied forces: user joint_f, springs, damping, PD drives and MuJoCo actuators.

Tendon spring-dampers (:mod:`.tendon`) add J^T f to their DOFs. Velocity terms are integrated implicitly by
adding their derivative to the mass-matrix diagonal (a tendon's: its J^T J, :mod:`.tendon`), as
MuJoCo's implicitfast integrator does (MuJoCo computation: "implicit" integrators): damping -kd qd
contributes dt*kd to M_hat's diagonal. Joint springs (MJCF stiffness) are explicit, as in MuJoCo. PD drives
(USD / PhysX drive semantics) are evaluated at the end of the step, ke (target - q - dt qd) + kd (target_vel -
qd), so even very stiff drives are stable: dt*kd + dt^2*ke on the diagonal. MuJoCo actuators on joints
(motor, position, velocity, general with fixed gain and affine bias) follow MuJoCo: force = gain ctrl +
b0 + b1 length + b2 velocity, clamped to the force range, with the velocity feedback b2 (a position
actuator's -kv) implicit as in implicitfast (not while the force is clamped) and the position feedback
explicit. An actuator on a tendon (MuJoCo's tendon transmission) has length = gear ten_length and
velocity = gear ten_velocity and acts as gear force J^T; its velocity feedback is implicit along J.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ...errors import ModelBuildError
from ...sim.stage_args import fill
from .tendon import tendon_dof_force

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["Actuators", "DYN_TYPES", "compute_passive", "apply_actuators"]

DYN_TYPES = ("none", "integrator", "filter", "filterexact")  # MuJoCo's dyntypes the solver simulates
_DYN_INTEGRATOR = wp.constant(1)
_DYN_FILTEREXACT = wp.constant(3)
_MINVAL = wp.constant(1.0e-15)  # MuJoCo's mjMINVAL: the smallest filter time constant


@dataclass
class Actuators:
    """MuJoCo actuators acting on single joint DOFs or on tendons (joint or tendon transmission, gain type
    "fixed", bias type "none" or "affine", no activation dynamics), MuJoCo's force law:

        length = gear q,  velocity = gear qd,  ctrl clamped to ctrl_range    (a tendon's: gear ten_length,
        force  = gain ctrl + bias[0] + bias[1] length + bias[2] velocity,     gear ten_velocity)
                 clamped to force_range
        qfrc  += gear force                                                   (a tendon's: gear force J^T)

    A motor is gain 1, bias 0; MJCF ``<position kp kv>`` is gain kp, bias (0, -kp, -kv); ``<velocity kv>``
    is gain kv, bias (0, 0, -kv). The velocity feedback bias[2] is integrated implicitly (-dt gear^2 bias[2]
    on the mass-matrix diagonal) unless the force range clamps the force, as in MuJoCo's implicitfast.

    Activation dynamics (MuJoCo's dyntype): an actuator with dynamics has an activation ``act`` (the solver's
    :attr:`~newton_gym.solvers.SolverGeneralized.act`, MuJoCo's ``d.act``, zero at the start and on a world's
    reset), and the gain multiplies act instead of ctrl. Each (sub)step of length dt, with the clamped ctrl
    and tau = dynprm[0]:

        "integrator":  act_dot = ctrl,                 act' = act + dt act_dot
        "filter":      act_dot = (ctrl - act) / tau,   act' = act + dt act_dot
        "filterexact": act_dot = (ctrl - act) / tau,   act' = act + tau act_dot (1 - exp(-dt / tau))

    act' clamped to act_range; the force uses act (act' with ``act_early``, MuJoCo's actearly).

    Attributes:
        dof: (actuator_count,) int global joint DOF index of each actuator (-1 for a tendon actuator).
        gear: (actuator_count,) float gear ratio [-] (length = gear q; force acts as gear force).
        ctrl_range: (actuator_count, 2) float [lo, hi] control bounds; lo >= hi disables the clamp.
        force_range: (actuator_count, 2) float [lo, hi] actuator force bounds [N m or N]; lo >= hi
            disables it.
        gain: (actuator_count,) float gain on ctrl (MuJoCo gainprm[0]); None: 1 (motors).
        bias: (actuator_count, 3) float affine bias (MuJoCo biasprm[0:3]: constant [N m], per unit length
            [N m/rad], per unit velocity [N m s/rad]); None: 0.
        tendon: (actuator_count,) int global tendon index of a tendon actuator, -1 for a joint actuator;
            None: every actuator is on a joint.
        dyn_type: (actuator_count,) str MuJoCo dyntype, one of :data:`DYN_TYPES`; None: "none" for all.
        dyn_tau: (actuator_count,) float time constant [s] of "filter" and "filterexact" (MuJoCo
            dynprm[0]); None: 1.
        act_range: (actuator_count, 2) float [lo, hi] activation bounds; lo >= hi disables the clamp.
        act_early: (actuator_count,) bool: the force uses the next activation (MuJoCo's actearly).
    """

    dof: np.ndarray
    gear: np.ndarray
    ctrl_range: np.ndarray | None = None
    force_range: np.ndarray | None = None
    gain: np.ndarray | None = None
    bias: np.ndarray | None = None
    tendon: np.ndarray | None = None
    dyn_type: np.ndarray | None = None
    dyn_tau: np.ndarray | None = None
    act_range: np.ndarray | None = None
    act_early: np.ndarray | None = None

    @classmethod
    def from_records(cls, records: list, world_count: int, dofs_per_world: int, tendons_per_world: int = 0):
        """The actuators of ``world_count`` replicated worlds from the USD importer's actuator records
        (``result["actuators"]``: local DOF, or dof -1 and local tendon; MuJoCo's parameters): world w's
        copy of local DOF (tendon) i is w * dofs_per_world + i (w * tendons_per_world + i)."""
        n = world_count
        if not records:
            return cls(np.zeros(0, np.int32), np.zeros(0))

        def per_world(local, count):
            local = np.asarray(local, dtype=np.int64)
            return np.where(local[None, :] >= 0, np.arange(n)[:, None] * count + local[None, :], -1).reshape(-1)

        def ranged(key, flag, default):  # (lo, hi), or (0, 0) (no clamp) when the flag is off
            lohi = [r.get(key, (0.0, 0.0)) if r.get(flag, default) else (0.0, 0.0) for r in records]
            return np.tile(lohi, (n, 1)).reshape(-1, 2)

        def tiled(values):
            return np.tile(np.asarray(values), n)

        bias = [
            ((list(r.get("bias_prm") or []) + [0.0] * 3)[:3] if r.get("bias_type", "none") == "affine" else [0.0] * 3)
            for r in records
        ]
        tendon = per_world([r.get("tendon", -1) for r in records], tendons_per_world)
        return cls(
            per_world([r["dof"] for r in records], dofs_per_world).astype(np.int32),
            tiled([r["gear"][0] for r in records]),
            ranged("ctrl_range", "ctrl_limited", True),
            ranged("force_range", "force_limited", False),
            tiled([(r.get("gain_prm") or [1.0])[0] for r in records]),
            np.tile(bias, (n, 1)).reshape(-1, 3),
            tendon=tendon.astype(np.int32) if (tendon >= 0).any() else None,
            dyn_type=tiled([r.get("dyn_type", "none") for r in records]),
            dyn_tau=tiled([(r.get("dyn_prm") or [1.0])[0] for r in records]),
            act_range=ranged("act_range", "act_limited", False),
            act_early=tiled([bool(r.get("act_early", False)) for r in records]),
        )

    @property
    def count(self) -> int:
        return int(np.asarray(self.dof).reshape(-1).shape[0])

    def tendons(self) -> np.ndarray:
        """(actuator_count,) int32 tendon of each actuator, -1 for joint actuators."""
        n = self.count
        if self.tendon is None:
            return np.full(n, -1, np.int32)
        return np.broadcast_to(np.asarray(self.tendon, dtype=np.int32), (n,)).copy()

    def upload(self, device, dof_count: int, tendon_count: int = 0) -> dict:
        n = self.count
        dof = np.asarray(self.dof, dtype=np.int32).reshape(n)
        tendon = self.tendons()
        on_joint = tendon < 0
        if n and (dof[on_joint].min(initial=0) < 0 or dof[on_joint].max(initial=0) >= dof_count):
            raise ModelBuildError(
                f"Actuators.dof must lie in [0, {dof_count - 1}] (the model's DOFs), got {dof.tolist()}"
            )
        if n and (tendon.max(initial=-1) >= tendon_count or (~on_joint & (dof != -1)).any()):
            raise ModelBuildError(
                f"Actuators.tendon must be -1 (a joint actuator) or lie in [0, {tendon_count - 1}] (the model's "
                f"tendons), with dof -1 on tendon actuators; got tendon {tendon.tolist()}, dof {dof.tolist()}"
            )
        gear = np.broadcast_to(np.asarray(self.gear, dtype=np.float32), (n,))
        ctrl = np.zeros((n, 2), np.float32) if self.ctrl_range is None else np.asarray(self.ctrl_range, np.float32)
        force = np.zeros((n, 2), np.float32) if self.force_range is None else np.asarray(self.force_range, np.float32)
        gain = np.ones(n, np.float32) if self.gain is None else np.broadcast_to(np.asarray(self.gain, np.float32), (n,))
        bias = np.zeros((n, 3), np.float32) if self.bias is None else np.asarray(self.bias, np.float32).reshape(n, 3)
        dyn = self.dyn_codes()
        tau = (
            np.ones(n, np.float32)
            if self.dyn_tau is None
            else np.broadcast_to(np.asarray(self.dyn_tau, np.float32), (n,))
        )
        act_range = np.zeros((n, 2), np.float32) if self.act_range is None else np.asarray(self.act_range, np.float32)
        early = np.zeros(n, np.int32) if self.act_early is None else np.broadcast_to(np.asarray(self.act_early), (n,))
        for name, values in (
            ("gear", gear),
            ("ctrl_range", ctrl),
            ("force_range", force),
            ("gain", gain),
            ("bias", bias),
            ("dyn_tau", tau),
            ("act_range", act_range),
        ):
            if not np.isfinite(values).all():
                raise ModelBuildError(f"Actuators.{name} must be finite, got {np.asarray(values).tolist()}")
        return {
            "dof": wp.array(dof, dtype=wp.int32, device=device),
            "tendon": wp.array(tendon, dtype=wp.int32, device=device),
            "gear": wp.array(np.ascontiguousarray(gear), dtype=wp.float32, device=device),
            "ctrl_range": wp.array(ctrl.reshape(n, 2), dtype=wp.vec2, device=device),
            "force_range": wp.array(force.reshape(n, 2), dtype=wp.vec2, device=device),
            "gain": wp.array(np.ascontiguousarray(gain), dtype=wp.float32, device=device),
            "bias": wp.array(np.ascontiguousarray(bias), dtype=wp.vec3, device=device),
            "dyn": wp.array(dyn, dtype=wp.int32, device=device),
            "dyn_tau": wp.array(np.ascontiguousarray(tau), dtype=wp.float32, device=device),
            "act_range": wp.array(act_range.reshape(n, 2), dtype=wp.vec2, device=device),
            "act_early": wp.array(np.asarray(early, dtype=np.int32), dtype=wp.int32, device=device),
        }

    def dyn_codes(self) -> np.ndarray:
        """(actuator_count,) int32 index of each actuator's dyn_type in :data:`DYN_TYPES` (0: no dynamics);
        raises ModelBuildError naming an unknown type."""
        n = self.count
        if self.dyn_type is None:
            return np.zeros(n, np.int32)
        names = np.broadcast_to(np.asarray(self.dyn_type, dtype=object), (n,))
        unknown = sorted({str(t) for t in names if t not in DYN_TYPES})
        if unknown:
            raise ModelBuildError(f"Actuators.dyn_type must be one of {list(DYN_TYPES)}, got {unknown}")
        return np.array([DYN_TYPES.index(t) for t in names], np.int32)


@wp.struct
class PassiveArgs:
    """Arrays and scalars of the passive forces of one DOF."""

    # Model:
    dof_coord: wp.array(dtype=int)
    joint_armature: wp.array(dtype=float)
    joint_damping: wp.array(dtype=float)
    joint_viscous: wp.array(dtype=float)
    joint_spring_ke: wp.array(dtype=float)
    joint_spring_ref: wp.array(dtype=float)
    joint_target_ke: wp.array(dtype=float)
    joint_target_kd: wp.array(dtype=float)
    joint_effort_limit: wp.array(dtype=float)
    dof_ten_start: wp.array(dtype=int)  # (joint_dof_count + 1,) first tendon entry of each DOF
    dof_ten_entry: wp.array(dtype=int)  # tendon Jacobian entries by DOF
    ten_jac_tendon: wp.array(dtype=int)  # tendon of each Jacobian entry
    dt: float
    # Data in:
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)
    joint_f: wp.array(dtype=float)
    target_pos: wp.array(dtype=float)
    target_vel: wp.array(dtype=float)
    ten_J: wp.array(dtype=float)  # tendon Jacobian entries [m/rad or -]
    ten_force: wp.array(dtype=float)  # (tendon_count,) passive force along each tendon [N]
    # Data out:
    qfrc_out: wp.array(dtype=float)
    dof_diag_out: wp.array(dtype=float)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def passive_dofs(first: int, end: int, step: int, args: PassiveArgs):
    """Passive forces of DOFs first, first + step, ... below end."""
    for d in range(first, end, step):
        qd = args.joint_qd[d]
        diag = args.joint_armature[d]
        # Damping and the viscous part of joint friction: -c qd, implicit.
        c = args.joint_damping[d] + args.joint_viscous[d]
        f = args.joint_f[d] - c * qd
        diag += args.dt * c
        ci = args.dof_coord[d]
        if ci >= 0:
            q = args.joint_q[ci]
            f += -args.joint_spring_ke[d] * (q - args.joint_spring_ref[d])
            ke = args.joint_target_ke[d]
            kd = args.joint_target_kd[d]
            if ke != 0.0 or kd != 0.0:
                # PD drive evaluated at the end of the step; saturated drives fall back to a constant effort.
                drive = ke * (args.target_pos[d] - q - args.dt * qd) + kd * (args.target_vel[d] - qd)
                lim = args.joint_effort_limit[d]
                if wp.abs(drive) <= lim:
                    diag += args.dt * kd + args.dt * args.dt * ke
                else:
                    drive = wp.clamp(drive, -lim, lim)
                f += drive
        else:
            kd = args.joint_target_kd[d]
            if kd != 0.0:
                drive = kd * (args.target_vel[d] - qd)
                lim = args.joint_effort_limit[d]
                if wp.abs(drive) <= lim:
                    diag += args.dt * kd
                else:
                    drive = wp.clamp(drive, -lim, lim)
                f += drive
        f = tendon_dof_force(
            d, args.dof_ten_start, args.dof_ten_entry, args.ten_jac_tendon, args.ten_J, args.ten_force, f
        )
        args.qfrc_out[d] = f
        args.dof_diag_out[d] = diag


@wp.kernel
def _passive_kernel(first: int, args: PassiveArgs):
    passive_dofs(wp.tid() + first, wp.tid() + first + 1, 1, args)


def passive_args(model, tree, tendons, data, joint_q, joint_qd, control, dt) -> PassiveArgs:
    """The PassiveArgs of :func:`compute_passive` (``tendons``: :meth:`.tendon.TendonLayout.upload`)."""
    return fill(
        PassiveArgs,
        model,
        tree,
        control,
        tendons,
        joint_viscous=model.joint_viscous_damping,
        joint_spring_ke=model.joint_spring_stiffness,
        dt=float(dt),
        joint_q=joint_q,
        joint_qd=joint_qd,
        target_pos=control.joint_target_pos,
        target_vel=control.joint_target_vel,
        ten_J=data.ten_J,
        ten_force=data.ten_force,
        qfrc_out=data.qfrc,
        dof_diag_out=data.dof_diag,
    )


def compute_passive(model, tree, tendons, data, joint_q, joint_qd, control, dt, span):
    """Applied joint forces (joint_f, springs, damping, drives, tendon spring-dampers: run
    :func:`.tendon.compute_tendons` first) and the implicit diagonal, per DOF in ``span`` = (first, count)."""
    if span[1] == 0:
        return
    args = passive_args(model, tree, tendons, data, joint_q, joint_qd, control, dt)
    wp.launch(_passive_kernel, dim=span[1], device=model.device, inputs=[span[0], args])


@wp.func
def _clamp_range(x: float, rng: wp.vec2):
    if rng[0] < rng[1]:
        return wp.clamp(x, rng[0], rng[1])
    return x


@wp.struct
class ActuatorArgs:
    """Arrays and scalars of one MuJoCo actuator's force."""

    # Model:
    dof_coord: wp.array(dtype=int)
    act_dof: wp.array(dtype=int)
    act_gear: wp.array(dtype=float)
    act_ctrl_range: wp.array(dtype=wp.vec2)
    act_force_range: wp.array(dtype=wp.vec2)
    act_gain: wp.array(dtype=float)
    act_bias: wp.array(dtype=wp.vec3)
    act_tendon: wp.array(dtype=int)  # (actuator_count,) tendon of a tendon actuator, -1: a joint actuator
    act_dyn: wp.array(dtype=int)  # (actuator_count,) index into DYN_TYPES (0: no activation dynamics)
    act_dyn_tau: wp.array(dtype=float)  # (actuator_count,) filter time constant [s]
    act_act_range: wp.array(dtype=wp.vec2)  # (actuator_count,) activation bounds (lo >= hi: none)
    act_early: wp.array(dtype=int)  # (actuator_count,) 1: the force uses the next activation
    ten_jac_start: wp.array(dtype=int)  # (tendon_count + 1,) first Jacobian entry of each tendon
    ten_jac_dof: wp.array(dtype=int)  # DOF of each tendon Jacobian entry
    dt: float
    # Data in:
    ctrl: wp.array(dtype=float)
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)
    act: wp.array(dtype=float)  # (actuator_count,) activations, advanced by dt in place (in and out)
    ten_length: wp.array(dtype=float)  # (tendon_count,) [m]
    ten_velocity: wp.array(dtype=float)  # (tendon_count,) [m/s]
    ten_J: wp.array(dtype=float)  # tendon Jacobian entries [m/rad or -]
    # Data out:
    qfrc_out: wp.array(dtype=float)
    dof_diag_out: wp.array(dtype=float)
    ten_implicit_out: wp.array(dtype=float)  # (tendon_count,) gets the tendon actuators' velocity feedback


@wp.func
def _gain_input(i: int, args: ActuatorArgs):
    """What actuator i's gain multiplies: its clamped ctrl, or with activation dynamics its activation,
    which this advances by dt (see :class:`Actuators`)."""
    ctrl = _clamp_range(args.ctrl[i], args.act_ctrl_range[i])
    dyn = args.act_dyn[i]
    if dyn == 0:
        return ctrl
    act = args.act[i]
    tau = wp.max(args.act_dyn_tau[i], _MINVAL)
    act_dot = (ctrl - act) / tau
    if dyn == _DYN_INTEGRATOR:
        act_dot = ctrl
    step = args.dt
    if dyn == _DYN_FILTEREXACT:
        step = tau * (1.0 - wp.exp(-args.dt / tau))
    nxt = _clamp_range(act + act_dot * step, args.act_act_range[i])
    args.act[i] = nxt
    if args.act_early[i] != 0:
        return nxt
    return act


@wp.func
def _tendon_actuator(i: int, t: int, args: ActuatorArgs):
    """Force of actuator i on tendon t (MuJoCo's tendon transmission): the joint law with the tendon's
    length and velocity, gear force J^T on its DOFs."""
    gear = args.act_gear[i]
    bias = args.act_bias[i]
    force = args.act_gain[i] * _gain_input(i, args) + bias[0]
    if bias[1] != 0.0:
        force += bias[1] * gear * args.ten_length[t]
    if bias[2] != 0.0:
        force += bias[2] * gear * args.ten_velocity[t]
    clamped = _clamp_range(force, args.act_force_range[i])
    if bias[2] != 0.0 and clamped == force:
        # d(qfrc)/d(qd) = gear^2 bias[2] J^T J, implicit along the tendon (.tendon.tendon_implicit_rows)
        wp.atomic_add(args.ten_implicit_out, t, -args.dt * bias[2] * gear * gear)
    e = int(args.ten_jac_start[t])
    e_end = args.ten_jac_start[t + 1]
    while e < e_end:
        wp.atomic_add(args.qfrc_out, args.ten_jac_dof[e], gear * clamped * args.ten_J[e])
        e += 1


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def actuator_forces(first: int, end: int, step: int, args: ActuatorArgs):
    """Forces of actuators first, first + step, ... below end."""
    for i in range(first, end, step):
        t = args.act_tendon[i]
        if t >= 0:
            _tendon_actuator(i, t, args)
            continue
        d = args.act_dof[i]
        gear = args.act_gear[i]
        bias = args.act_bias[i]
        force = args.act_gain[i] * _gain_input(i, args) + bias[0]
        if bias[1] != 0.0:
            ci = args.dof_coord[d]
            if ci >= 0:
                force += bias[1] * gear * args.joint_q[ci]
        if bias[2] != 0.0:
            force += bias[2] * gear * args.joint_qd[d]
        clamped = _clamp_range(force, args.act_force_range[i])
        if bias[2] != 0.0 and clamped == force:
            # d(qfrc)/d(qd) = gear^2 bias[2], integrated implicitly unless the force range holds the force
            wp.atomic_add(args.dof_diag_out, d, -args.dt * bias[2] * gear * gear)
        wp.atomic_add(args.qfrc_out, d, gear * clamped)


@wp.kernel
def _actuator_kernel(first: int, args: ActuatorArgs):
    actuator_forces(wp.tid() + first, wp.tid() + first + 1, 1, args)


def actuator_args(tree, tendons, actuators: dict, ctrl, act, joint_q, joint_qd, dt, data) -> ActuatorArgs:
    """The ActuatorArgs of :func:`apply_actuators` (``tendons``: :meth:`.tendon.TendonLayout.upload`)."""
    return fill(
        ActuatorArgs,
        tree,
        tendons,
        act_dof=actuators["dof"],
        act_gear=actuators["gear"],
        act_ctrl_range=actuators["ctrl_range"],
        act_force_range=actuators["force_range"],
        act_gain=actuators["gain"],
        act_bias=actuators["bias"],
        act_tendon=actuators["tendon"],
        act_dyn=actuators["dyn"],
        act_dyn_tau=actuators["dyn_tau"],
        act_act_range=actuators["act_range"],
        act_early=actuators["act_early"],
        dt=float(dt),
        ctrl=ctrl,
        act=act,
        joint_q=joint_q,
        joint_qd=joint_qd,
        ten_length=data.ten_length,
        ten_velocity=data.ten_velocity,
        ten_J=data.ten_J,
        qfrc_out=data.qfrc,
        dof_diag_out=data.dof_diag,
        ten_implicit_out=data.ten_implicit,
    )


def apply_actuators(model, tree, tendons, actuators: dict, ctrl, act, joint_q, joint_qd, dt, data, span):
    """Add MuJoCo actuator forces (see :class:`Actuators`) to the applied joint forces and their implicit
    velocity feedback to the diagonal, for the actuators in ``span`` = (first, count) (the worlds of a span
    own their actuators' DOFs: :mod:`.partition`)."""
    if span[1] == 0:
        return
    args = actuator_args(tree, tendons, actuators, ctrl, act, joint_q, joint_qd, dt, data)
    wp.launch(_actuator_kernel, dim=span[1], device=model.device, inputs=[span[0], args])
