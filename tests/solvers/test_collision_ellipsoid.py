"""Ellipsoids (GeoType.ELLIPSOID) against MuJoCo C: mass, contacts, a drop.

Scenes are MJCF with one world geom (A) and a free body holding ellipsoid B, built on our side by
``mujoco_builder.builder_from_mujoco`` from the compiled model; our contact outputs are NaN-filled
(``active`` -1) before the narrow phase runs, so a slot it does not write fails.

1. Mass and inertia from density equal MuJoCo's (m = rho 4/3 pi abc, I = m/5 (b^2 + c^2, ...)).
2. Ellipsoid on a plane (exact support point) and against a sphere, box and ellipsoid (GJK / EPA) at
   several poses, touching, penetrating and within a margin: one contact with MuJoCo's distance
   (1e-4 m), normal (1e-4; 3e-4 against a sphere, see TOL_NORMAL_GJK) and point (1e-4 m).
3. An ellipsoid dropped tilted on a plane rests at MuJoCo's height within 1 mm after 1 s at MuJoCo's dt.
"""

from __future__ import annotations

import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import collide_poisoned, run

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized

mujoco = pytest.importorskip("mujoco")

ELL = 'type="ellipsoid" size=".1 .06 .04"'
TOL = 1e-4
# A sphere's centre outside the ellipsoid: float32 GJK on a curved core stops with a normal error of
# about the square root of (position rounding / curvature radius); measured up to 1.3e-4 here.
TOL_NORMAL_GJK = 3e-4


def _xml(a, pos, quat="1 0 0 0", b_attrs="", floor=""):
    return f"""<mujoco><option timestep="0.002"/>
      <worldbody>{floor}<geom name="a" {a}/>
        <body pos="{pos}" quat="{quat}"><freejoint/><geom name="b" {ELL} {b_attrs}/></body>
      </worldbody></mujoco>"""


def _ours(m):
    """Our contacts at MuJoCo's qpos0: list of (point, dist, normal), normals from geom a to b."""
    b, _, _ = builder_from_mujoco(m)
    model = b.finalize("cpu")
    c = SolverGeneralized(model).contacts
    active = collide_poisoned(model, c, model.state().body_q)
    assert set(np.unique(active)) <= {0, 1}, "slots not written"
    assert c.pair_count == 1 and tuple(c.pair_shape_host[0]) == (0, 1)
    on = np.nonzero(active == 1)[0]
    return [(c.point.numpy()[s], float(c.dist.numpy()[s]), c.normal.numpy()[s]) for s in on]


def test_mass_and_inertia_equal_mujocos():
    m = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><freejoint/><geom type="ellipsoid" size=".3 .2 .1" density="700"/>'
        "</body></worldbody></mujoco>"
    )
    b = ng.ModelBuilder()
    body = b.add_body()
    b.add_shape_ellipsoid(body, a=0.3, b=0.2, c=0.1, cfg=ng.ModelBuilder.ShapeConfig(density=700.0))
    model = b.finalize("cpu")
    mass = float(model.body_mass.numpy()[0])
    inertia = model.body_inertia.numpy()[0]
    assert mass == pytest.approx(700.0 * 4.0 / 3.0 * np.pi * 0.3 * 0.2 * 0.1, rel=1e-6)
    assert mass == pytest.approx(float(m.body_mass[1]), rel=1e-6)
    np.testing.assert_allclose(np.diag(inertia), m.body_inertia[1], rtol=1e-6)
    np.testing.assert_allclose(inertia - np.diag(np.diag(inertia)), 0.0, atol=1e-12)


_TILT = "0.8804762 0.2798481 0.3647052 0.1159169"
_X30 = "0.9659258 0.2588190 0 0"
# case: (A, B's position, B's orientation, B's extra attributes)
STATIC = {
    "plane, lying": ('type="plane" size="1 1 .1"', "0.01 0.02 0.035"),
    "plane, tilted": ('type="plane" size="1 1 .1"', "0.01 0.02 0.05", _TILT),
    "plane, within margin": ('type="plane" size="1 1 .1"', "0 0 0.045", _X30, 'margin="0.01"'),
    "plane, beyond margin": ('type="plane" size="1 1 .1"', "0 0 0.055", "1 0 0 0", 'margin="0.01"'),
    "tilted plane": ('type="plane" size="1 1 .1" quat="0.9238795 0 0.3826834 0"', "0.03 0.01 0.06", _X30),
    "sphere above": ('type="sphere" size=".08"', "0.01 0.02 0.115"),
    "sphere beside": ('type="sphere" size=".08"', "0.17 0.02 0.01", _X30),
    "sphere tilted": ('type="sphere" size=".08"', "0.03 0.05 0.11", _TILT),
    "sphere separated": ('type="sphere" size=".08"', "0.01 0.02 0.13", "1 0 0 0", 'margin="0.02"'),
    "box face": ('type="box" size=".12 .08 .06"', "0.01 0.02 0.095"),
    "box tilted": ('type="box" size=".12 .08 .06"', "0.02 -0.01 0.12", _TILT),
    "box edge": ('type="box" size=".12 .08 .06"', "0.15 0.0 0.09", "0.9238795 0 0.3826834 0"),
    "ellipsoid": ('type="ellipsoid" size=".1 .06 .04"', "0.02 0.01 0.075", _X30),
    "ellipsoid tilted": ('type="ellipsoid" size=".1 .06 .04"', "0.05 0.03 0.06", _TILT),
}


@pytest.mark.parametrize("case", list(STATIC))
def test_contacts_match_mujoco(case):
    a, pos, quat, b_attrs = STATIC[case] + ("", "", "1 0 0 0", "")[len(STATIC[case]) :]
    m = mujoco.MjModel.from_xml_string(_xml(a, pos, quat, b_attrs))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    ours = _ours(m)
    assert len(ours) == d.ncon, f"{len(ours)} contacts, MuJoCo {d.ncon}"
    if d.ncon == 0:
        return
    # MuJoCo orders a pair by its own type numbers (ellipsoid before box): its normal then points to A.
    flip = -1.0 if tuple(d.contact.geom[0]) == (1, 0) else 1.0
    p, dist, n = ours[0]
    assert dist == pytest.approx(float(d.contact.dist[0]), abs=TOL), (dist, d.contact.dist[0])
    np.testing.assert_allclose(n, flip * d.contact.frame[0][:3], atol=TOL_NORMAL_GJK if "sphere" in case else TOL)
    np.testing.assert_allclose(p, d.contact.pos[0], atol=TOL)
    assert case.endswith("margin") or case.endswith("separated") or dist < 0.0  # the poses test contact


def test_dropped_ellipsoid_rests_at_mujocos_height():
    xml = _xml('type="plane" size="2 2 .1"', "0 0 0.3", _TILT)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    for _ in range(500):
        mujoco.mj_step(m, d)
    b, _, q0 = builder_from_mujoco(m)
    model = b.finalize("cpu")
    state = model.state()
    state.joint_q.assign(q0)
    final, _ = run(model, SolverGeneralized(model), 500, float(m.opt.timestep), state=state)
    ours = final.joint_q.numpy()[:3]
    assert d.qpos[2] < 0.09  # it has landed on the plane
    assert abs(ours[2] - d.qpos[2]) < 1e-3, (ours, d.qpos[:3])
