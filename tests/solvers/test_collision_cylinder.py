"""Cylinder against cylinder: MuJoCo's convex collider (GJK / EPA and its multi-contact rules, here
:mod:`newton_gym.solvers.collision.convex`) against MuJoCo C.

Scenes are MJCF with one world cylinder (A) and a free body holding cylinder B, built on our side by
``mujoco_builder.builder_from_mujoco`` from the compiled model; our contact outputs are NaN-filled
(``active`` -1) before the narrow phase runs, so a slot it does not write fails.

1. Chosen poses (cap on cap, one cap inside the other, a lying cylinder across a cap, two lying
   cylinders crossed, a tilted cylinder on its rim, the pose of z1's wrist on its shoulder
   (example-robot-data), touching within a margin, apart): every MuJoCo contact has one of ours at the
   same point with the same distance and normal, in the same number. Two parallel lying cylinders are
   left out: their sides touch along a segment, and the one contact each collider reports lies anywhere
   on it (MuJoCo's EPA and ours end at different points).
2. Random shallow poses (B moved along a random direction until MuJoCo's mj_geomDistance is a target in
   [-1 cm, 3 mm]): the contact count, and every contact's point, distance and normal. MuJoCo's EPA on
   the rounded side stops at an inscribed polytope: distances agree to 1e-4 m (MuJoCo the shallower),
   normals to 3e-3, points to 2e-3 m (a point on a rim slides along it); chosen poses with one contact
   on a rim likewise.
3. Dynamics: a cylinder dropped on a cylinder follows MuJoCo's trajectory for 1 s at dt = 2 ms.
"""

from __future__ import annotations

import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import at_distance, collide_poisoned, run

from newton_gym.solvers import SolverGeneralized

mujoco = pytest.importorskip("mujoco")

A = 'type="cylinder" size=".07 .09"'
B = 'type="cylinder" size=".05 .12"'
ATOL_POINT, ATOL_DIST, ATOL_NORMAL = 1e-4, 1e-6, 1e-4


def _xml(pos, quat="1 0 0 0", a_quat="1 0 0 0", b_attrs="", b=B):
    return f"""<mujoco><option timestep="0.002"/>
      <worldbody><geom name="a" {A} quat="{a_quat}"/>
        <body pos="{pos}" quat="{quat}"><freejoint/><geom name="b" {b} {b_attrs}/></body>
      </worldbody></mujoco>"""


def _mujoco(xml):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return m, d


def _ours(m):
    """Our contacts at MuJoCo's qpos0: list of (point, dist, normal), normals from geom a to b."""
    b, _, _ = builder_from_mujoco(m)
    model = b.finalize("cpu")
    c = SolverGeneralized(model).contacts
    active = collide_poisoned(model, c, model.state().body_q)
    assert set(np.unique(active)) <= {0, 1}, "slots not written"
    assert c.pair_count == 1 and c.slot_count == 4
    on = np.nonzero(active == 1)[0]
    return [(c.point.numpy()[s], float(c.dist.numpy()[s]), c.normal.numpy()[s]) for s in on]


def _theirs(m, d):
    """MuJoCo's contacts (normals from geom a to b), duplicates merged."""
    out = []
    for k in range(d.ncon):
        assert tuple(d.contact.geom[k]) == (0, 1)
        p, dist, n = d.contact.pos[k].copy(), float(d.contact.dist[k]), d.contact.frame[k][:3].copy()
        if not any(np.abs(p - q).max() < 1e-9 and abs(dist - e) < 1e-12 for q, e, _ in out):
            out.append((p, dist, n))
    return out


def _match(ours, theirs, atol_point, atol_dist, atol_normal):
    """Every contact of ``theirs`` has its own one in ``ours`` (nearest point), and the counts agree."""
    assert len(ours) == len(theirs), f"{len(ours)} contacts, MuJoCo {len(theirs)}"
    left = list(range(len(ours)))
    for p, dist, n in theirs:
        k = min(left, key=lambda k: np.linalg.norm(ours[k][0] - p))
        left.remove(k)
        np.testing.assert_allclose(ours[k][0], p, atol=atol_point)
        assert abs(ours[k][1] - dist) < atol_dist
        np.testing.assert_allclose(ours[k][2], n, atol=atol_normal)


_X90 = "0.7071068 0.7071068 0 0"  # lying along y
_Y90 = "0.7071068 0 0.7071068 0"  # lying along x
# case: (B's position, B's orientation, A's orientation, B's extra attributes)
CHOSEN = {
    "cap on cap, offset": ("0.03 0.01 0.205",),
    "cap inside a cap": ("0.0 0.0 0.205", "1 0 0 0", "1 0 0 0", "", 'type="cylinder" size=".03 .12"'),
    "lying across a cap": ("0.01 0.02 0.135", _X90),
    "lying, crossed": ("0.01 0.02 0.115", _X90, _Y90),
    "tilted on its rim": ("0.02 0.01 0.21", "0.9659258 0.2588190 0 0"),
    "cap on the side": ("0.0 0.01 0.115", "1 0 0 0", _Y90, "", 'type="cylinder" size=".05 .05"'),
    "z1 wrist on shoulder": ("0.02 0.0 0.195", "0.9990482 0 0.0436194 0"),
    "touching within margin": ("0.03 0.01 0.212", "1 0 0 0", "1 0 0 0", 'margin="0.005"'),
    "apart": ("0.03 0.01 0.22",),
}


# One contact on a rim (a curved edge): MuJoCo's EPA ends on an inscribed polytope of the rounded core,
# so its point is off the exact one along the rim (up to 2 mm here), its distance and normal less so.
CURVED = {"cap on the side", "z1 wrist on shoulder"}


@pytest.mark.parametrize("case", list(CHOSEN), ids=list(CHOSEN))
def test_chosen_poses_match_mujoco(case):
    pos, quat, a_quat, b_attrs, b = CHOSEN[case] + ("1 0 0 0", "1 0 0 0", "", B)[len(CHOSEN[case]) - 1 :]
    m, d = _mujoco(_xml(pos, quat, a_quat, b_attrs, b))
    theirs = _theirs(m, d)
    assert (len(theirs) > 0) == (case != "apart")
    if case in CURVED:
        _match(_ours(m), theirs, 2e-3, 1e-4, 3e-3)
    else:
        _match(_ours(m), theirs, ATOL_POINT, ATOL_DIST, ATOL_NORMAL)


def _random_pose(rng, target):
    """MJCF with A and B at random orientations, B moved along a random direction from A's centre until
    MuJoCo's signed distance is ``target``."""
    qa, qb, u = rng.normal(size=4), rng.normal(size=4), rng.normal(size=3)
    qa, qb, u = qa / np.linalg.norm(qa), qb / np.linalg.norm(qb), u / np.linalg.norm(u)

    def xml(s):
        return _xml(" ".join(map(str, u * s)), " ".join(map(str, qb)), " ".join(map(str, qa)))

    return at_distance(xml, u, target)


def test_random_shallow_poses_match_mujoco():
    rng = np.random.default_rng(5)
    touching = 0
    for _ in range(24):
        m, d = _mujoco(_random_pose(rng, rng.uniform(-0.01, 0.003)))
        theirs = _theirs(m, d)
        _match(_ours(m), theirs, 2e-3, 1e-4, 3e-3)
        touching += len(theirs) > 0
    assert touching >= 12  # most targets are penetrations


def test_drop_on_a_cylinder_follows_mujoco():
    xml = _xml("0.01 0.005 0.35", "0.9990482 0.0436194 0.02 0", b_attrs='mass="1"')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    reference = []
    for _ in range(500):
        mujoco.mj_step(m, d)
        reference.append(d.qpos[:3].copy())
    b, _, q0 = builder_from_mujoco(m)
    model = b.finalize("cpu")
    state = model.state()
    state.joint_q.assign(q0)
    _, ours = run(
        model,
        SolverGeneralized(model),
        500,
        float(m.opt.timestep),
        state=state,
        record=lambda s: s.joint_q.numpy()[:3].copy(),
    )
    assert reference[-1][2] > 0.15  # it rests on the cylinder (cap at 0.09)
    err = np.abs(np.asarray(ours) - np.asarray(reference)).max()
    assert err < 1e-3, f"max position difference {err:.2e} m over 1 s"
