"""Forward kinematics once per joint state.

A step's last substep ends with forward kinematics of its new joint state into the State (the step's outputs:
body poses and twists). The next step starts from that same joint state, and its smooth pass would compute
the same poses and twists again into the solver's scratch bodies. Instead, on one lane per block (the CPU):

- the finish pass, after the State's forward kinematics, copies each articulation's bodies into the scratch
  bodies and records the joint coordinates and velocities they belong to (:func:`adopt_outputs`);
- the next smooth pass skips an articulation's forward kinematics where its joint state is, bit for bit, the
  recorded one (:func:`kinematics_held`), and computes them where it is not (a reset, an edit of the State,
  a substep without outputs, the first step), then drops the record (:func:`forget`).

The same function of the same joint state gave both copies, so a step is bitwise the same either way. Model
edits that move bodies without changing the joint state (joint frames, axes, body COMs) drop every record:
:meth:`.SolverGeneralized.notify_model_changed`. A step per substep (a Newton-style loop) saves one forward
kinematics per step, an env's frame skip one in each of its steps. Blocks of several lanes (CUDA) always
compute them.
"""

from __future__ import annotations

import warp as wp

from ..sim.stage_args import fill

wp.set_module_options({"enable_backward": False})

__all__ = ["ReuseArgs", "adopt_outputs", "forget", "kinematics_held", "reuse_args"]


@wp.struct
class ReuseArgs:
    """Arrays of the forward-kinematics record of each articulation."""

    # Model:
    articulation_start: wp.array(dtype=int)  # (articulation_count + 1,) first joint of each tree
    joint_child: wp.array(dtype=int)  # (joint_count,) child body of each joint
    art_coord_start: wp.array(dtype=int)  # (articulation_count + 1,) first coordinate of each tree
    art_dof_start: wp.array(dtype=int)  # (articulation_count + 1,) first DOF of each tree
    # Data in:
    joint_q: wp.array(dtype=float)  # (joint_coord_count,) the stepped state's coordinates
    joint_qd: wp.array(dtype=float)  # (joint_dof_count,) its velocities
    state_body_q: wp.array(dtype=wp.transform)  # (body_count,) the State's poses from the finish pass [m]
    state_body_qd: wp.array(dtype=wp.spatial_vector)  # (body_count,) its COM twists [m/s, rad/s]
    # Data out:
    body_q: wp.array(dtype=wp.transform)  # (body_count,) the scratch poses the smooth pass reads [m]
    body_qd: wp.array(dtype=wp.spatial_vector)  # (body_count,) the scratch COM twists [m/s, rad/s]
    fk_held: wp.array(dtype=int)  # (articulation_count,) 1 where a record stands
    fk_joint_q: wp.array(dtype=float)  # (joint_coord_count,) recorded coordinates
    fk_joint_qd: wp.array(dtype=float)  # (joint_dof_count,) recorded velocities


def reuse_args(model, tree, data, joint_q, joint_qd, state_body_q, state_body_qd) -> ReuseArgs:
    """The ReuseArgs of a step of these joint-state arrays whose outputs go to ``state_body_q`` / ``_qd``."""
    return fill(
        ReuseArgs,
        model,
        tree,
        data,
        body_q=data.body_q,
        body_qd=data.body_qd,
        joint_q=joint_q,
        joint_qd=joint_qd,
        state_body_q=state_body_q,
        state_body_qd=state_body_qd,
    )


@wp.func_native(
    """union { float f; unsigned int u; } x, y;
x.f = a;
y.f = b;
return x.u == y.u;"""
)
def _same_bits(a: float, b: float) -> bool:
    """Whether a and b are the same float32 bit pattern (-0 differs from 0; a NaN may equal itself)."""
    ...


@wp.func
def kinematics_held(a: int, r: ReuseArgs):
    """Whether the scratch bodies of articulation a hold the forward kinematics of its current joint state."""
    if r.fk_held[a] == 0:
        return False
    for c in range(r.art_coord_start[a], r.art_coord_start[a + 1]):
        if not _same_bits(r.joint_q[c], r.fk_joint_q[c]):
            return False
    for d in range(r.art_dof_start[a], r.art_dof_start[a + 1]):
        if not _same_bits(r.joint_qd[d], r.fk_joint_qd[d]):
            return False
    return True


@wp.func
def forget(a: int, r: ReuseArgs):
    """Drop articulation a's record (its scratch bodies were computed afresh, of a state not recorded)."""
    r.fk_held[a] = 0


@wp.func
def adopt_outputs(a: int, r: ReuseArgs):
    """Copy articulation a's bodies from the State's forward kinematics into the scratch bodies and record its
    joint state."""
    for j in range(r.articulation_start[a], r.articulation_start[a + 1]):
        body = r.joint_child[j]
        r.body_q[body] = r.state_body_q[body]
        r.body_qd[body] = r.state_body_qd[body]
    for c in range(r.art_coord_start[a], r.art_coord_start[a + 1]):
        r.fk_joint_q[c] = r.joint_q[c]
    for d in range(r.art_dof_start[a], r.art_dof_start[a + 1]):
        r.fk_joint_qd[d] = r.joint_qd[d]
    r.fk_held[a] = 1
