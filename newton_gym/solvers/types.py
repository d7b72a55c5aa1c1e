"""The solver's value types and its per-step scratch table (:class:`Data`), declared with shapes and units."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..sim.stage_args import fill
from .tree import DeclaredFields

__all__ = ["vec5", "vec8", "Data", "make_data", "TreeModel", "tree_model", "zeroed"]

vec5 = wp.types.vector(5, wp.float32)
"""MuJoCo solimp (d0, dwidth, width, midpoint, power) of a constraint row or contact pair."""

vec8 = wp.types.vector(8, wp.float32)
"""Eight floats moved as one load: a row of the Newton Hessian scratch."""


@wp.struct
class TreeModel:
    """The model and tree tables every per-tree stage reads (kinematics, subspaces, mass matrix, bias
    forces, factorization, integration), declared once; each stage's struct holds it as ``m``."""

    articulation_start: wp.array(dtype=int)  # (articulation_count + 1,) first joint of each tree
    joint_type: wp.array(dtype=int)  # (joint_count,) JointType of each joint
    joint_parent: wp.array(dtype=int)  # (joint_count,) parent body, -1 for the world
    joint_child: wp.array(dtype=int)  # (joint_count,) child body
    joint_X_p: wp.array(dtype=wp.transform)  # (joint_count,) joint frame in the parent body frame [m]
    joint_X_c: wp.array(dtype=wp.transform)  # (joint_count,) joint frame in the child body frame [m]
    joint_q_start: wp.array(dtype=int)  # (joint_count,) first coordinate of each joint
    joint_qd_start: wp.array(dtype=int)  # (joint_count,) first DOF of each joint
    joint_dof_dim: wp.array(dtype=wp.vec2i)  # (joint_count,) linear and angular axis counts of each joint
    joint_axis: wp.array(dtype=wp.vec3)  # (joint_dof_count,) axis of each DOF, joint frame
    joint_armature: wp.array(dtype=float)  # (joint_dof_count,) armature [kg, kg m^2]
    body_mass: wp.array(dtype=float)  # (body_count,) mass [kg]
    body_com: wp.array(dtype=wp.vec3)  # (body_count,) centre of mass, body frame [m]
    body_inertia: wp.array(dtype=wp.mat33)  # (body_count,) inertia about the COM, body axes [kg m^2]
    body_art: wp.array(dtype=int)  # (body_count,) tree of each body, -1 for none
    body_child_start: wp.array(dtype=int)  # (body_count + 1,) first entry of each body's child joints
    body_child_joint: wp.array(dtype=int)  # (child joints,) joints by parent body, descending joint order
    art_dof_start: wp.array(dtype=int)  # (articulation_count + 1,) first DOF of each tree
    art_mat_start: wp.array(dtype=int)  # (articulation_count + 1,) offset of each tree's n x n mass block
    art_world: wp.array(dtype=int)  # (articulation_count,) world of each tree
    dof_parent: wp.array(dtype=int)  # (joint_dof_count,) previous DOF towards the root, -1 at the root
    dof_art: wp.array(dtype=int)  # (joint_dof_count,) tree of each DOF
    dof_body: wp.array(dtype=int)  # (joint_dof_count,) child body of the joint of each DOF


def zeroed(count: int, dtype, device) -> wp.array:
    """A zeroed Warp array of max(count, 1) elements of ``dtype``. On the CPU its memory comes from NumPy's
    calloc, whose large blocks are pages the OS maps, already zero, on first write: contact slots no step
    writes (the far pairs' of thousands of worlds) cost neither the clearing nor the memory. Elsewhere
    ``wp.zeros``."""
    count = max(int(count), 1)
    if not wp.get_device(device).is_cpu:
        return wp.zeros(count, dtype=dtype, device=device)
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    host = np.zeros((count,) + tuple(getattr(dtype, "_shape_", ())), dtype=wp.dtype_to_numpy(scalar))
    return wp.array(host, dtype=dtype, device=device, copy=False)  # the Warp array keeps ``host`` alive


def tree_model(model, tree: dict) -> TreeModel:
    """The :class:`TreeModel` of ``model`` and its uploaded tree tables (:meth:`.tree.TreeLayout.upload`)."""
    return fill(TreeModel, model, tree)


@dataclass
class Data(DeclaredFields):
    """Per-substep scratch of :class:`.SolverGeneralized`, allocated once (MuJoCo's mjData intermediates).
    Every array holds at least one element. r is each tree's reference point (its root body's COM at the
    substep start), about which the spatial quantities are taken."""

    body_q: wp.array  # (body_count,) transform: body frames from forward kinematics at the substep start
    body_qd: wp.array  # (body_count,) spatial_vector [m/s, rad/s]: COM twists at the substep start
    art_ref: wp.array  # (articulation_count,) vec3 [m]: reference point r of each tree
    body_cvel: wp.array  # (body_count,) spatial_vector [m/s, rad/s]: twist about r
    body_h: wp.array  # (body_count,) vec3 [kg m]: m (c - r), first moment about r
    body_rot_inertia: wp.array  # (body_count,) mat33 [kg m^2]: inertia about r, world axes
    crb_m: wp.array  # (body_count,) float64 [kg]: composite mass
    crb_h: wp.array  # (body_count,) vec3d [kg m]: composite first moment about r
    crb_i: wp.array  # (body_count,) mat33d [kg m^2]: composite rotational inertia about r
    body_cacc: wp.array  # (body_count,) spatial_vector [m/s^2, rad/s^2]: bias acceleration about r
    body_cfrc: wp.array  # (body_count,) spatial_vector [N, N m]: bias force about r
    cdof: wp.array  # (joint_dof_count,) spatial_vector: motion subspace of each DOF about r
    cdof_dot: wp.array  # (joint_dof_count,) spatial_vector [1/s]: its time derivative
    qfrc: wp.array  # (joint_dof_count,) [N, N m]: applied + passive + actuator joint forces
    qfrc_bias: wp.array  # (joint_dof_count,) [N, N m]: C(q, qd) + gravity - body_f
    dof_diag: wp.array  # (joint_dof_count,) armature + velocity-implicit terms on the mass diagonal
    qacc_smooth: wp.array  # (joint_dof_count,) [m/s^2, rad/s^2]: M^-1 (qfrc - qfrc_bias)
    qacc_constraint: wp.array  # (joint_dof_count,) [m/s^2, rad/s^2]: acceleration with constraint forces
    mass_matrix: wp.array  # (sum of n^2 over trees,) float64: each tree's dense n x n mass matrix
    chol: wp.array  # (sum of n^2,) float64: L of M = L^T L (mass matrix with armature)
    chol_implicit: wp.array  # (sum of n^2,) float64: L of M_hat = M + dt D (velocity-implicit terms)
    art_implicit: wp.array  # (articulation_count,) int32: 1 where chol_implicit is current
    qacc: wp.array  # (joint_dof_count,) [m/s^2, rad/s^2]: integrated acceleration
    dof_scratch: wp.array  # (joint_dof_count,) float64: right-hand sides of the M solves
    # Tendons (:mod:`.smooth.tendon`); entries: the non-zeros of the tendons' sparse Jacobians.
    ten_length: wp.array  # (tendon_count,) [m]: tendon lengths
    ten_J: wp.array  # (entries,) [m/rad or -]: tendon Jacobians, d length / d qd
    ten_velocity: wp.array  # (tendon_count,) [m/s]: J qd
    ten_force: wp.array  # (tendon_count,) [N]: passive spring-damper force along each tendon
    ten_implicit: wp.array  # (tendon_count,) [kg]: dt (damping - actuator velocity feedback), J^T J weight in M_hat


def make_data(model, layout, device, tendon_entries: int = 0) -> Data:
    """A zeroed :class:`Data` for ``model`` (``layout``: its :class:`.tree.TreeLayout`; ``tendon_entries``:
    the non-zeros of its tendon Jacobians). float64 from the composite inertias to the factors: see
    :func:`.spatial.ltl_factor` (long chains)."""
    nb, nd, na, nt = model.body_count, model.joint_dof_count, model.articulation_count, model.tendon_count
    nmat = int(layout.art_mat_start[-1])

    def zeros(n, dtype):
        return wp.zeros(max(int(n), 1), dtype=dtype, device=device)

    return Data(
        body_q=zeros(nb, wp.transform),
        body_qd=zeros(nb, wp.spatial_vector),
        art_ref=zeros(na, wp.vec3),
        body_cvel=zeros(nb, wp.spatial_vector),
        body_h=zeros(nb, wp.vec3),
        body_rot_inertia=zeros(nb, wp.mat33),
        crb_m=zeros(nb, wp.float64),
        crb_h=zeros(nb, wp.vec3d),
        crb_i=zeros(nb, wp.mat33d),
        body_cacc=zeros(nb, wp.spatial_vector),
        body_cfrc=zeros(nb, wp.spatial_vector),
        cdof=zeros(nd, wp.spatial_vector),
        cdof_dot=zeros(nd, wp.spatial_vector),
        qfrc=zeros(nd, float),
        qfrc_bias=zeros(nd, float),
        dof_diag=zeros(nd, float),
        qacc_smooth=zeros(nd, float),
        qacc_constraint=zeros(nd, float),
        mass_matrix=zeros(nmat, wp.float64),
        chol=zeros(nmat, wp.float64),
        chol_implicit=zeros(nmat, wp.float64),
        art_implicit=zeros(na, int),
        qacc=zeros(nd, float),
        dof_scratch=zeros(nd, wp.float64),
        ten_length=zeros(nt, float),
        ten_J=zeros(tendon_entries, float),
        ten_velocity=zeros(nt, float),
        ten_force=zeros(nt, float),
        ten_implicit=zeros(nt, float),
    )
