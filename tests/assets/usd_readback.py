"""Reading converted USD back with pxr alone, and a reference forward kinematics over its joints.

Independent of the converters' own code (only numpy and pxr), so the tests compare USD against MuJoCo
rather than against the writer.
"""

from __future__ import annotations

import math

import numpy as np
from pxr import Usd, UsdGeom, UsdPhysics


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def qconj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def qrot(q, v):
    return qmul(qmul(q, np.concatenate([[0.0], v])), qconj(q))[1:]


def qmat(q):
    return np.stack([qrot(q, e) for e in np.eye(3)], axis=1)


def gfq(q) -> np.ndarray:
    """Gf.Quat* -> numpy (w, x, y, z)."""
    return np.array([q.GetReal(), *q.GetImaginary()], dtype=np.float64)


def same_rotation(q1, q2, atol=1e-6) -> bool:
    return np.allclose(qmat(q1), qmat(q2), atol=atol)


def open_stage(path: str) -> Usd.Stage:
    return Usd.Stage.Open(path)


def local_pose(prim) -> tuple[np.ndarray, np.ndarray]:
    """(translate, orient) authored on a prim (identity when absent)."""
    t = prim.GetAttribute("xformOp:translate")
    o = prim.GetAttribute("xformOp:orient")
    pos = np.array(t.Get(), dtype=np.float64) if t and t.HasAuthoredValue() else np.zeros(3)
    quat = gfq(o.Get()) if o and o.HasAuthoredValue() else np.array([1.0, 0, 0, 0])
    return pos, quat


def scale_of(prim) -> np.ndarray:
    s = prim.GetAttribute("xformOp:scale")
    return np.array(s.Get(), dtype=np.float64) if s and s.HasAuthoredValue() else np.ones(3)


def bodies(stage, root: str) -> dict[str, Usd.Prim]:
    """Rigid-body prims directly under the robot root, by name, in authored order."""
    return {
        child.GetName(): child
        for child in stage.GetPrimAtPath(root).GetChildren()
        if child.HasAPI(UsdPhysics.RigidBodyAPI)
    }


def joints(stage, root: str) -> dict[str, Usd.Prim]:
    scope = stage.GetPrimAtPath(f"{root}/joints")
    return {child.GetName(): child for child in scope.GetChildren()} if scope else {}


def target(rel) -> str | None:
    targets = rel.GetTargets() if rel else []
    return str(targets[0]) if targets else None


def joint_frames(joint_prim):
    """(body0 path or None, body1 path, pos0, rot0, pos1, rot1) of a UsdPhysics joint."""
    j = UsdPhysics.Joint(joint_prim)
    return (
        target(j.GetBody0Rel()),
        target(j.GetBody1Rel()),
        np.array(j.GetLocalPos0Attr().Get(), dtype=np.float64),
        gfq(j.GetLocalRot0Attr().Get()),
        np.array(j.GetLocalPos1Attr().Get(), dtype=np.float64),
        gfq(j.GetLocalRot1Attr().Get()),
    )


def inertia_tensor(diag, axes_quat) -> np.ndarray:
    r = qmat(axes_quat)
    return r @ np.diag(diag) @ r.T


def _joint_motion(prim, q):
    """Pose of the body1 joint frame in the body0 joint frame at joint coordinate q (MuJoCo units)."""
    if prim.IsA(UsdPhysics.RevoluteJoint):
        return np.zeros(3), np.array([math.cos(q / 2), math.sin(q / 2), 0.0, 0.0])
    if prim.IsA(UsdPhysics.PrismaticJoint):
        return np.array([q, 0.0, 0.0]), np.array([1.0, 0, 0, 0])
    if prim.IsA(UsdPhysics.SphericalJoint):
        return np.zeros(3), np.asarray(q, dtype=np.float64)
    return np.zeros(3), np.array([1.0, 0, 0, 0])


def _compose(a, b):
    return a[0] + qrot(a[1], b[0]), qmul(a[1], b[1])


def _inverse(a):
    inv = qconj(a[1])
    return -qrot(inv, a[0]), inv


def forward_kinematics(stage, root: str, joint_q: dict[str, object], floating: dict[str, tuple]):
    """World poses of all bodies from USD joint frames.

    Args:
        joint_q: joint prim name -> coordinate (float; (4,) quaternion for spherical joints).
        floating: body name -> (pos, quat) for bodies without a joint.

    Returns:
        body name -> (pos (3,), quat (4,)).
    """
    by_child = {}
    for name, prim in joints(stage, root).items():
        by_child[joint_frames(prim)[1]] = (name, prim)
    poses = {}
    for name, prim in bodies(stage, root).items():
        path = str(prim.GetPath())
        if path not in by_child:
            poses[name] = floating[name]
            continue
        joint_name, joint_prim = by_child[path]
        b0, _, p0, r0, p1, r1 = joint_frames(joint_prim)
        parent = (np.zeros(3), np.array([1.0, 0, 0, 0])) if b0 is None else poses[b0.rsplit("/", 1)[1]]
        motion = _joint_motion(joint_prim, joint_q.get(joint_name, 0.0))
        pose = _compose(_compose(_compose(parent, (p0, r0)), motion), _inverse((p1, r1)))
        poses[name] = pose
    return poses


def geom_prims(body_prim) -> list:
    return [c for c in body_prim.GetChildren() if c.IsA(UsdGeom.Gprim)]
