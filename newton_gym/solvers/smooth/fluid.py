"""Fluid forces: MuJoCo's default fluid model (the inertia-box model of ``<option density viscosity wind>``).

MuJoCo's model, per body of mass at least 1e-15 kg (MuJoCo documentation, "Computation: Fluid forces",
inertia-based model): the body is replaced by the uniform box of its mass and principal moments of inertia,
sides b_k = sqrt(6 (I_j + I_l - I_k) / m) along its principal axes k (j, l the other two; the difference is
floored at 1e-15). In the principal frame, with the body's COM twist (v, w) taken
relative to the medium (v - wind; the wind does not rotate) and per axis k:

* viscous (Stokes) terms, viscosity mu, for the sphere of diameter d = (b_0 + b_1 + b_2) / 3:
  force -3 pi d mu v, torque -pi d^3 mu w;
* quadratic drag, density rho: force_k -= rho / 2 * b_j b_l |v_k| v_k, torque_k -= rho / 64 * b_k
  (b_j^4 + b_l^4) |w_k| w_k.

The wrench acts at the COM; its generalized force J^T f is added to the passive forces (``data.qfrc``, like
MuJoCo's qfrc_fluid inside qfrc_passive) and kept in :attr:`FluidForces.qfrc_fluid`. A body with an
ellipsoid-model geom (MJCF ``fluidshape="ellipsoid"``) is not modelled here: the MJCF converter warns
naming those geoms.

Velocity derivatives (implicitfast). MuJoCo's implicitfast integrator factors M - h qDeriv with qDeriv =
d(qfrc_actuator + qfrc_passive) / d qvel (``mjd_smooth_vel`` without the bias term), and
``mjd_passive_vel`` adds the fluid term ``mjd_inertiaBoxFluid`` whenever density or viscosity is non-zero:
per body, J_l^T B J_l with J_l the body's COM Jacobian rotated into its principal frame (angular rows,
then linear rows) and B diagonal, the derivative of each local force / torque component by its own local
velocity component (-3 pi d mu and -pi d^3 mu; -rho b_j b_l |v_k| and -rho/32 b_k (b_j^4 + b_l^4) |w_k|).
The rotation of the frame with the velocity is not differentiated, so the term is symmetric. The same is
done here: M_hat = M + dt D (dof damping, drive gains, tendon damping) + dt sum_b J_l^T (-B) J_l, factored
into ``chol_implicit`` for the velocity-implicit correction of :mod:`..integrate`. (MuJoCo handles a
standalone free body, one free joint and no children, by a local 6 x 6 solve of M - h qDeriv - h
d bias / d qvel instead; its fluid part is the same, the implicit gyroscopic part is not modelled by this
solver with or without fluid.)

Placement: one extra per-block launch right after the smooth pass (:func:`.forward.launch_smooth`), only
while the model's fluid density or viscosity is non-zero, so models without a fluid are stepped exactly as
before. It reads the pass's body poses and COM twists, motion subspaces and mass matrix, then (per block:
a world, or every world where worlds share entities; lanes strided as in the smooth pass) computes each
body's local wrench and drag coefficients, adds J^T f to the DOFs, rebuilds and factors M_hat with the
fluid term and re-solves qacc_smooth = M^-1 (qfrc - bias) with the new forces. The medium (density,
viscosity, wind) is read from the model at every step (a captured graph keeps the values it was recorded
with); it is the same in every world. Body inertia boxes and principal frames are taken from
``model.body_mass`` / ``model.body_inertia`` when first needed and after
``notify_model_changed(BODY_INERTIAL_PROPERTIES)``. A body whose inertia has two equal principal moments
has no unique principal frame; the quadratic drag depends on it: where the inertia matrix is diagonal in
the body frame the body axes are used (as MuJoCo does for a body whose geoms are aligned with it),
otherwise the eigenvectors NumPy returns.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ...sim.stage_args import fill
from ..lanes import launch_worlds, sync_lanes
from ..partition import BlockRanges
from ..spatial import ltl_factor, ltl_solve, ltl_solve_t
from .dynamics import FactorArgs, _copy_ancestors, factor_args
from .tendon import tendon_arts_implicit, tendon_implicit_rows

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["FluidForces", "fluid_active", "inertia_boxes", "MIN_MASS"]

MIN_MASS = 1.0e-15  # [kg] lighter bodies feel no fluid (MuJoCo's mjMINVAL)
_MIN_DIFF = 1.0e-15  # floor of I_j + I_l - I_k (MuJoCo's mjMINVAL)
_DIAGONAL_RTOL = 1.0e-6  # off-diagonal inertia below this fraction of the largest moment: body axes are principal


def fluid_active(model) -> bool:
    """Whether ``model`` has a fluid medium that exerts forces (density or viscosity above zero)."""
    return float(getattr(model, "fluid_density", 0.0)) > 0.0 or float(getattr(model, "fluid_viscosity", 0.0)) > 0.0


def inertia_boxes(mass, inertia):
    """MuJoCo's equivalent inertia boxes.

    Args:
        mass: (n,) body masses [kg].
        inertia: (n, 3, 3) inertias about the COM in body axes [kg m^2].

    Returns:
        (box, frame): (n, 3) side lengths of each body's box along its principal axes [m] (zero for bodies
        lighter than :data:`MIN_MASS`) and (n, 3, 3) principal axes as the columns of a rotation in body axes.
    """
    mass = np.asarray(mass, dtype=np.float64).reshape(-1)
    inertia = np.asarray(inertia, dtype=np.float64).reshape(-1, 3, 3)
    inertia = 0.5 * (inertia + np.transpose(inertia, (0, 2, 1)))
    n = len(mass)
    frame = np.tile(np.eye(3), (n, 1, 1))
    moments = np.diagonal(inertia, axis1=1, axis2=2).copy()
    off = np.abs(inertia - moments[:, :, None] * np.eye(3)).max(axis=(1, 2), initial=0.0)
    rotated = off > _DIAGONAL_RTOL * np.abs(moments).max(axis=1, initial=0.0)
    if rotated.any():
        values, vectors = np.linalg.eigh(inertia[rotated])
        flip = np.linalg.det(vectors) < 0.0
        vectors[flip, :, 2] *= -1.0
        moments[rotated] = values
        frame[rotated] = vectors
    heavy = mass >= MIN_MASS
    box = np.zeros((n, 3))
    for k in range(3):
        diff = moments[:, (k + 1) % 3] + moments[:, (k + 2) % 3] - moments[:, k]
        box[heavy, k] = np.sqrt(np.maximum(_MIN_DIFF, diff[heavy]) / mass[heavy] * 6.0)
    return box, frame


@wp.struct
class FluidArgs:
    """Arrays of the fluid pass of one block (model tables, inputs, scratch and outputs)."""

    # Model:
    fac: FactorArgs  # the factorization's tables and arrays (mass matrix, forces, factors, qacc_smooth)
    body_box: wp.array(dtype=wp.vec3)  # (body_count,) inertia-box sides [m], zero: no fluid force
    body_frame: wp.array(dtype=wp.mat33)  # (body_count,) principal axes (columns) in body axes
    body_dof_last: wp.array(dtype=int)  # (body_count,) last DOF moving the body, -1: static
    # Data in:
    body_q: wp.array(dtype=wp.transform)  # body frames at the substep start
    body_qd: wp.array(dtype=wp.spatial_vector)  # COM twists, world axes [m/s, rad/s]
    art_ref: wp.array(dtype=wp.vec3)  # reference point r of each tree [m]
    cdof: wp.array(dtype=wp.spatial_vector)  # motion subspaces about r
    # Scratch (per body): local wrench and drag coefficients, principal frame in world, COM - r
    body_lfrc: wp.array(dtype=wp.spatial_vector)  # [N, N m] principal-frame force, torque
    body_ldamp: wp.array(dtype=wp.spatial_vector)  # [N s/m, N m s] -d(force, torque)/d(v, w) per axis
    body_rot: wp.array(dtype=wp.mat33)  # principal frame in world axes
    body_lever: wp.array(dtype=wp.vec3)  # COM - r [m]
    # Data out:
    qfrc_fluid_out: wp.array(dtype=float)  # (joint_dof_count,) [N, N m] generalized fluid force


@wp.func
def _abs_times(v: wp.vec3):
    """|v_k| v_k per component."""
    return wp.vec3(wp.abs(v[0]) * v[0], wp.abs(v[1]) * v[1], wp.abs(v[2]) * v[2])


@wp.func(inline=True)  # takes its stage struct by value: inlined, it is not copied
def fluid_body(c: int, density: float, viscosity: float, wind: wp.vec3, args: FluidArgs):
    """Principal-frame fluid force, torque and drag coefficients of body c (zero for a body without a
    box or outside the trees)."""
    box = args.body_box[c]
    a = args.fac.m.body_art[c]
    lfrc = wp.spatial_vector()
    ldamp = wp.spatial_vector()
    if a >= 0 and box[0] > 0.0:
        x = args.body_q[c]
        rot = wp.quat_to_matrix(wp.transform_get_rotation(x)) * args.body_frame[c]
        com = wp.transform_point(x, args.fac.m.body_com[c])
        args.body_rot[c] = rot
        args.body_lever[c] = com - args.art_ref[a]
        twist = args.body_qd[c]
        v = wp.transpose(rot) * (wp.spatial_top(twist) - wind)
        w = wp.transpose(rot) * wp.spatial_bottom(twist)
        f = wp.vec3(0.0)
        t = wp.vec3(0.0)
        df = wp.vec3(0.0)
        dq = wp.vec3(0.0)
        if viscosity > 0.0:
            d = (box[0] + box[1] + box[2]) / 3.0
            cf = 3.0 * wp.pi * d * viscosity
            ct = wp.pi * d * d * d * viscosity
            f = f - cf * v
            t = t - ct * w
            df = df + wp.vec3(cf)
            dq = dq + wp.vec3(ct)
        if density > 0.0:
            b2 = wp.cw_mul(box, box)
            b4 = wp.cw_mul(b2, b2)
            kf = 0.5 * density * wp.vec3(box[1] * box[2], box[0] * box[2], box[0] * box[1])
            kt = density / 64.0 * wp.cw_mul(box, wp.vec3(b4[1] + b4[2], b4[0] + b4[2], b4[0] + b4[1]))
            f = f - wp.cw_mul(kf, _abs_times(v))
            t = t - wp.cw_mul(kt, _abs_times(w))
            df = df + 2.0 * wp.cw_mul(kf, wp.vec3(wp.abs(v[0]), wp.abs(v[1]), wp.abs(v[2])))
            dq = dq + 2.0 * wp.cw_mul(kt, wp.vec3(wp.abs(w[0]), wp.abs(w[1]), wp.abs(w[2])))
        lfrc = wp.spatial_vector(f, t)
        ldamp = wp.spatial_vector(df, dq)
    args.body_lfrc[c] = lfrc
    args.body_ldamp[c] = ldamp


@wp.func
def _local_rate(s: wp.spatial_vector, rot: wp.mat33, lever: wp.vec3):
    """Principal-frame COM velocity and angular velocity of a body per unit rate of a DOF with motion
    subspace s about r (the body's COM at ``lever`` = COM - r): one column of MuJoCo's rotated jacBodyCom."""
    w = wp.spatial_bottom(s)
    rt = wp.transpose(rot)
    return wp.spatial_vector(rt * (wp.spatial_top(s) + wp.cross(w, lever)), rt * w)


@wp.func
def _moves(c: int, i: int, dof_parent: wp.array(dtype=int), body_dof_last: wp.array(dtype=int)):
    """Whether DOF i moves body c (it lies on the DOF path from the body to the root)."""
    k = body_dof_last[c]
    while k > i:
        k = dof_parent[k]
    return k == i


@wp.func(inline=True)  # takes its stage struct by value: inlined, it is not copied
def fluid_articulation(a: int, dt: float, args: FluidArgs, lane: int, lanes: int):
    """Tree a's generalized fluid forces (added to qfrc), its implicit matrix M + diag + tendon terms +
    dt J^T D J factored into chol_implicit, and qacc_smooth = M^-1 (qfrc - bias) again, by the ``lanes``
    lanes of a block (every lane calls it): rows strided over lanes, the solve on lane 0."""
    fac = args.fac
    m = fac.m
    d0 = m.art_dof_start[a]
    n = m.art_dof_start[a + 1] - d0
    off = m.art_mat_start[a]
    j0 = m.articulation_start[a]
    j1 = m.articulation_start[a + 1]
    _copy_ancestors(fac.mass_matrix, fac.chol_implicit_out, off, n, d0, m.dof_parent, fac.dof_diag, lane, lanes)
    tendons = tendon_arts_implicit(
        d0, d0 + n, fac.dof_ten_start, fac.dof_ten_entry, fac.ten_jac_tendon, fac.ten_implicit
    )
    if tendons != 0:
        tendon_implicit_rows(
            fac.chol_implicit_out,
            off,
            n,
            d0,
            m.dof_parent,
            fac.dof_ten_start,
            fac.dof_ten_entry,
            fac.ten_jac_tendon,
            fac.ten_jac_start,
            fac.ten_jac_dof,
            fac.ten_J,
            fac.ten_implicit,
            lane,
            lanes,
        )
    h = wp.float64(dt)
    k = int(lane)
    while k < n:
        i = d0 + k
        row = off + k * n - d0
        force = float(0.0)
        j = int(j0)
        while j < j1:
            c = m.joint_child[j]
            if args.body_box[c][0] > 0.0 and _moves(c, i, m.dof_parent, args.body_dof_last):
                rot = args.body_rot[c]
                lever = args.body_lever[c]
                ji = _local_rate(args.cdof[i], rot, lever)
                force += wp.dot(ji, args.body_lfrc[c])
                u = wp.cw_mul(args.body_ldamp[c], ji)
                kk = i
                while kk >= 0:
                    jk = _local_rate(args.cdof[kk], rot, lever)
                    fac.chol_implicit_out[row + kk] = fac.chol_implicit_out[row + kk] + h * wp.float64(wp.dot(u, jk))
                    kk = m.dof_parent[kk]
            j += 1
        args.qfrc_fluid_out[i] = force
        fac.qfrc[i] = fac.qfrc[i] + force
        k += lanes
    sync_lanes(lanes)  # the rows are whole, and every DOF's force is in qfrc
    ltl_factor(fac.chol_implicit_out, off, n, d0, m.dof_parent, lane, lanes)
    if lane == 0:
        k = int(0)
        while k < n:
            fac.scratch[d0 + k] = wp.float64(fac.qfrc[d0 + k]) - wp.float64(fac.qfrc_bias[d0 + k])
            k += 1
        ltl_solve_t(fac.chol_out, off, n, d0, m.dof_parent, fac.scratch, d0)
        ltl_solve(fac.chol_out, off, n, d0, m.dof_parent, fac.scratch, d0)
        k = int(0)
        while k < n:
            fac.qacc_smooth_out[d0 + k] = wp.float32(fac.scratch[d0 + k])
            k += 1
        fac.art_implicit_out[a] = 1


@wp.kernel
def _fluid_kernel(
    first_block: int,
    lanes: int,
    ranges: BlockRanges,
    density: float,
    viscosity: float,
    wind: wp.vec3,
    dt: float,
    args: FluidArgs,
):
    block, lane = wp.tid()
    b = block + first_block
    c = int(ranges.body_start[b] + lane)
    c_end = ranges.body_start[b + 1]
    while c < c_end:
        fluid_body(c, density, viscosity, wind, args)
        c += lanes
    sync_lanes(lanes)  # every body's wrench and coefficients are read by the rows of its tree
    a0 = ranges.art_start[b]
    a1 = ranges.art_start[b + 1]
    if a1 - a0 >= lanes:  # one tree per lane
        a = int(a0 + lane)
        while a < a1:
            fluid_articulation(a, dt, args, 0, 1)
            a += lanes
    else:  # fewer trees than lanes: every lane on each (bitwise the same)
        a = int(a0)
        while a < a1:
            fluid_articulation(a, dt, args, lane, lanes)
            a += 1


class FluidForces:
    """The fluid pass of one :class:`~newton_gym.solvers.SolverGeneralized` (module docstring).

    Attributes:
        qfrc_fluid: (joint_dof_count,) float32 generalized fluid force of the last substep [N, N m]
            (MuJoCo's ``qfrc_fluid``); None until the first substep with a fluid.
    """

    def __init__(self, solver):
        self._solver = solver
        self._args = None
        self.qfrc_fluid = None
        self.prepare()

    def active(self) -> bool:
        """Whether the model's medium exerts forces (then :meth:`launch` runs every substep)."""
        return fluid_active(self._solver.model)

    def prepare(self):
        """Build the tables and scratch now where the model has a medium (host work: the solver calls it when
        built, before a capture and after inertial edits; otherwise the first substep with a medium does)."""
        if self._args is None and self.active():
            self._args = self._bind()

    def refresh(self):
        """Take the bodies' inertia boxes from the model again (after inertial edits)."""
        self._args = None
        self.prepare()

    def _bind(self) -> FluidArgs:
        solver = self._solver
        model, data, device = solver.model, solver.data, solver.device
        nb = max(model.body_count, 1)
        box, frame = inertia_boxes(model.body_mass.numpy(), model.body_inertia.numpy())
        box = np.where(np.isfinite(box), box, 0.0)
        if self.qfrc_fluid is None:
            self.qfrc_fluid = wp.zeros(max(model.joint_dof_count, 1), dtype=wp.float32, device=device)

        def upload(values, dtype):
            values = np.asarray(values, dtype=np.float32)
            if len(values) == 0:
                values = np.zeros((1,) + values.shape[1:], np.float32)
            return wp.array(values, dtype=dtype, device=device)

        return fill(
            FluidArgs,
            data,
            fac=factor_args(model, solver.tree, solver.tendon_tables, data),
            body_box=upload(box, wp.vec3),
            body_frame=upload(frame, wp.mat33),
            body_dof_last=solver.tree["body_dof_last"],
            body_lfrc=wp.zeros(nb, dtype=wp.spatial_vector, device=device),
            body_ldamp=wp.zeros(nb, dtype=wp.spatial_vector, device=device),
            body_rot=wp.zeros(nb, dtype=wp.mat33, device=device),
            body_lever=wp.zeros(nb, dtype=wp.vec3, device=device),
            qfrc_fluid_out=self.qfrc_fluid,
        )

    def launch(self, blocks, dt: float):
        """Add the fluid forces of the blocks ``blocks`` = (first, count) after the smooth pass (see module)."""
        if self._args is None:
            self._args = self._bind()
        solver, model = self._solver, self._solver.model
        wind = wp.vec3(*(float(w) for w in model.wind))
        launch_worlds(
            _fluid_kernel,
            blocks[0],
            blocks[1],
            solver.block_dim,
            solver.device,
            [
                solver.block_ranges,
                float(model.fluid_density),
                float(model.fluid_viscosity),
                wind,
                float(dt),
                self._args,
            ],
        )
