"""Conventions module against MuJoCo C: a free body with a COM offset, spun and moved."""

import numpy as np
import pytest
import torch
import warp as wp

import newton_gym as ng
from newton_gym.sim import conventions as cv

mujoco = pytest.importorskip("mujoco")

XML = """<mujoco><option gravity="0 0 0"/><worldbody><body name="b" pos="0 0 1"><freejoint/>
  <inertial pos="0.1 -0.05 0.2" quat="0.9 0.1 0.3 -0.2" mass="2" diaginertia="0.1 0.2 0.25"/>
</body></worldbody></mujoco>"""


@pytest.fixture(scope="module")
def mj():
    m = mujoco.MjModel.from_xml_string(XML)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(7)
    d.qpos[:3] = rng.normal(size=3)
    q = rng.normal(size=4)
    d.qpos[3:7] = q / np.linalg.norm(q)
    d.qvel[:] = rng.normal(size=6) * 2
    mujoco.mj_forward(m, d)
    return m, d


def _object_velocity(m, d, objtype, local):
    res = np.zeros(6)
    mujoco.mj_objectVelocity(m, d, objtype, 1, res, int(local))
    return res  # (angular, linear)


def test_quaternion_reorder_round_trip():
    q = np.array([0.1, 0.2, 0.3, 0.9])
    np.testing.assert_array_equal(cv.quat_wxyz_to_xyzw(cv.quat_xyzw_to_wxyz(q)), q)
    assert cv.quat_xyzw_to_wxyz(q).tolist() == [0.9, 0.1, 0.2, 0.3]
    t = torch.tensor([[0.9, 0.1, 0.2, 0.3]], dtype=torch.float64)
    assert cv.quat_wxyz_to_xyzw(t).tolist() == [[0.1, 0.2, 0.3, 0.9]]


def test_mujoco_free_qvel_to_com_twist(mj):
    m, d = mj
    body_q = np.concatenate([d.xpos[1], cv.quat_wxyz_to_xyzw(d.xquat[1])])
    com = m.body_ipos[1]
    twist = cv.mujoco_free_to_com_twist(body_q, d.qvel.copy(), com)
    ref = _object_velocity(m, d, mujoco.mjtObj.mjOBJ_BODY, False)  # at the COM, world frame
    np.testing.assert_allclose(twist[:3], ref[3:], atol=1e-10)
    np.testing.assert_allclose(twist[3:], ref[:3], atol=1e-10)
    np.testing.assert_allclose(cv.com_twist_to_mujoco_free(body_q, twist, com), d.qvel, atol=1e-10)
    origin = cv.com_twist_to_origin_twist(body_q, twist, com)
    ref_origin = _object_velocity(m, d, mujoco.mjtObj.mjOBJ_XBODY, False)
    np.testing.assert_allclose(origin, np.concatenate([ref_origin[3:], ref_origin[:3]]), atol=1e-10)
    # torch gives the same numbers
    tt = cv.mujoco_free_to_com_twist(torch.tensor(body_q), torch.tensor(d.qvel.copy()), torch.tensor(com))
    np.testing.assert_allclose(tt.numpy(), twist, atol=1e-12)


def test_body_and_spatial_twists(mj):
    m, d = mj
    body_q = np.concatenate([d.xpos[1], cv.quat_wxyz_to_xyzw(d.xquat[1])])
    com = m.body_ipos[1]
    twist = cv.mujoco_free_to_com_twist(body_q, d.qvel.copy(), com)
    body_twist = cv.com_twist_to_body_twist(body_q, twist, com)
    ref_local = _object_velocity(m, d, mujoco.mjtObj.mjOBJ_XBODY, True)  # body origin, body frame
    np.testing.assert_allclose(body_twist, np.concatenate([ref_local[3:], ref_local[:3]]), atol=1e-10)
    np.testing.assert_allclose(cv.body_twist_to_com_twist(body_q, body_twist, com), twist, atol=1e-10)
    spatial = cv.com_twist_to_spatial_twist(body_q, twist, com)
    # v_s is the velocity of the body-fixed point at the world origin: v_com + w x (0 - x_com)
    x_com = d.xipos[1]
    np.testing.assert_allclose(spatial[:3], twist[:3] + np.cross(twist[3:], -x_com), atol=1e-10)
    np.testing.assert_allclose(cv.spatial_twist_to_com_twist(body_q, spatial, com), twist, atol=1e-10)


def test_shift_wrench_matches_mujoco_apply_ft(mj):
    m, d = mj
    force = np.array([1.0, -2.0, 0.5])
    point = d.xipos[1] + np.array([0.3, 0.1, -0.2])
    q_point = np.zeros(m.nv)
    mujoco.mj_applyFT(m, d, force, np.zeros(3), point, 1, q_point)
    wrench = cv.shift_wrench(np.concatenate([force, np.zeros(3)]), point, d.xipos[1])
    q_com = np.zeros(m.nv)
    mujoco.mj_applyFT(m, d, wrench[:3], wrench[3:], d.xipos[1].copy(), 1, q_com)
    np.testing.assert_allclose(q_com, q_point, atol=1e-10)


def test_fk_free_body_matches_mujoco_state(mj):
    m, d = mj
    b = ng.ModelBuilder()
    b.add_body(mass=2.0, com=m.body_ipos[1], inertia=np.eye(3) * 0.1)
    model = b.finalize()
    body_q = np.concatenate([d.xpos[1], cv.quat_wxyz_to_xyzw(d.xquat[1])])
    q = np.concatenate([d.qpos[:3], cv.quat_wxyz_to_xyzw(d.qpos[3:7])])
    qd = cv.mujoco_free_to_com_twist(body_q, d.qvel.copy(), m.body_ipos[1])
    s = model.state()
    ng.eval_fk(model, wp.array(q, dtype=float), wp.array(qd, dtype=float), s)
    np.testing.assert_allclose(s.body_q.numpy()[0], body_q, atol=1e-6)
    ref = _object_velocity(m, d, mujoco.mjtObj.mjOBJ_BODY, False)
    np.testing.assert_allclose(s.body_qd.numpy()[0], np.concatenate([ref[3:], ref[:3]]), atol=1e-5)
