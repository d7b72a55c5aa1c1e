"""Each stage of SolverGeneralized against MuJoCo C on the shipped Ant and Humanoid (the USD the
environments load, converted from gymnasium's MJCF) in random states: joint-space mass matrix vs
mj_fullM, bias forces vs qfrc_bias, passive forces vs qfrc_passive, unconstrained acceleration vs
qacc_smooth, contacts (count, positions, normals, depths, frames) vs d.contact (tolerance 1e-5
relative), and the constrained acceleration vs qacc (MuJoCo's Newton solver, pyramidal cones) and one
whole implicitfast step vs mj_step (1e-3 relative).

States: root tilted at random, joints uniform in their ranges, speeds N(0, 1), controls uniform, the
robot lowered until its lowest point is 0-8 mm inside the floor. Our outputs are filled with NaN before
the step that computes them, so an entry the solver does not write fails.

Coordinates. The free root differs (ours: COM velocity and angular velocity in world axes; MuJoCo:
body-origin velocity in world axes and angular velocity in body axes): qvel_mj = T qd with
T = [[I, [r]x], [0, R^T]] on the root block (r = R c, the COM lever) and I elsewhere. Kinetic energy and
power are invariant, so M = T^T M_mj T, generalized forces map as f = T^T f_mj, the bias picks up the
frame term T^T M_mj (dT/dt qd) with dT/dt qd = ((w x r) x w, 0), and qacc = T^-1 (qacc_mj - dT/dt qd).
Massless links that the converter inserts below multi-joint bodies add no DOF, so DOF order is MuJoCo's.
"""

import os

import gymnasium as gym
import mujoco
import numpy as np
import pytest
import torch

import newton_gym  # noqa: F401

ROBOTS = {"ant": ("Newton/Ant-v0", 0.01), "humanoid": ("Newton/Humanoid-v0", 0.003)}
RTOL = 1e-5


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _mujoco(robot):
    path = os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets", f"{robot}.xml")
    m = mujoco.MjModel.from_xml_path(path)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    return m


def _lowest_point(m, d):
    lows = []
    for g in range(m.ngeom):
        if m.geom_bodyid[g] == 0:
            continue
        half = m.geom_size[g][1] * abs(d.geom_xmat[g][8]) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE else 0.0
        lows.append(d.geom_xpos[g][2] - half - m.geom_size[g][0])
    return min(lows)


def _random_state(m, rng):
    d = mujoco.MjData(m)
    qpos = m.qpos0.copy()
    axis = rng.normal(size=3)
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, axis / np.linalg.norm(axis), rng.uniform(0.0, 0.4))
    qpos[3:7] = quat
    for j in range(1, m.njnt):
        lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-0.5, 0.5)
        qpos[m.jnt_qposadr[j]] = rng.uniform(lo, hi)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    qpos[2] -= _lowest_point(m, d) + rng.uniform(0.0, 0.008)
    return qpos, rng.normal(size=m.nv), rng.uniform(*m.actuator_ctrlrange.T)


class _Case:
    """One random state evaluated by MuJoCo (mj_forward) and by one step of our solver."""

    def __init__(self, robot, seed):
        env_id, dt = ROBOTS[robot]
        self.m = m = _mujoco(robot)
        assert m.opt.timestep == pytest.approx(dt)
        qpos, qvel, ctrl = _random_state(m, np.random.default_rng(seed))
        self.d = d = mujoco.MjData(m)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
        mujoco.mj_forward(m, d)
        self.env = gym.make_vec(env_id, num_envs=1, device="cpu", sim={"capture": False})
        self.env.reset(seed=0)
        sim = self.env.unwrapped.sim
        layout = self.env.unwrapped.task.layout
        layout.set_state(
            torch.tensor(qpos[None], dtype=torch.float32),
            torch.tensor(qvel[None], dtype=torch.float32),
            torch.tensor([True]),
        )
        sim.ctrl[:] = torch.tensor(ctrl[None], dtype=torch.float32)
        self.solver = solver = sim.solver
        for name in ("mass_matrix", "qfrc_bias", "qfrc", "qacc_smooth", "qacc_constraint"):
            getattr(solver.data, name).fill_(float("nan"))
        for name in ("point", "normal", "dist", "tangent"):
            getattr(solver.contacts, name).fill_(float("nan"))
        self.qd = sim.state.joint_qd.numpy().astype(np.float64)
        solver.step(sim.state, sim.state, sim.control, dt)
        self.sim = sim
        self.layout = layout
        self._root_map(layout)

    def _root_map(self, layout):
        """T and dT/dt qd of the free root (module docstring)."""
        nv = self.m.nv
        q = self.d.qpos
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, q[3:7])
        rot = rot.reshape(3, 3)
        lever = rot @ self.m.body_ipos[1]
        self.T = np.eye(nv)
        self.T[0:3, 3:6] = _skew(lever)
        self.T[3:6, 3:6] = rot.T
        w = self.qd[3:6]
        self.tdot_qd = np.zeros(nv)
        self.tdot_qd[0:3] = np.cross(np.cross(w, lever), w)

    def mass_matrix(self):
        """Ours (nv, nv) with NaN where the solver did not write, armature included."""
        n = self.m.nv
        block = self.solver.data.mass_matrix.numpy()[: n * n].reshape(n, n).astype(np.float64)
        return block + np.diag(self.sim.model.joint_armature.numpy()[:n])

    def close(self):
        self.env.close()


@pytest.fixture(params=[(robot, seed) for robot in ROBOTS for seed in range(3)], ids=lambda p: f"{p[0]}-{p[1]}")
def case(request):
    c = _Case(*request.param)
    yield c
    c.close()


def _assert_close(ours, ref, what, rtol=RTOL):
    err = np.abs(ours - ref).max() / max(np.abs(ref).max(), 1e-9)
    assert np.isfinite(ours).all(), f"{what}: unwritten (NaN) entries"
    assert err < rtol, f"{what}: relative error {err:.2e}"


def test_mass_matrix(case):
    ref_mj = np.zeros((case.m.nv, case.m.nv))
    mujoco.mj_fullM(case.m, case.d, ref_mj)
    ref = case.T.T @ ref_mj @ case.T
    ours = case.mass_matrix()
    tree = np.isfinite(ours)  # ancestor pairs (and the diagonal); the rest of a tree's M is zero
    assert np.abs(ref[~tree]).max(initial=0.0) < RTOL * np.abs(ref).max()
    _assert_close(np.where(tree, ours, 0.0), ref, "mass matrix")


def test_bias_forces(case):
    ref_mj = np.zeros((case.m.nv, case.m.nv))
    mujoco.mj_fullM(case.m, case.d, ref_mj)
    ref = case.T.T @ (case.d.qfrc_bias + ref_mj @ case.tdot_qd)
    _assert_close(case.solver.data.qfrc_bias.numpy()[: case.m.nv], ref, "qfrc_bias")


def test_passive_and_actuator_forces(case):
    ref = case.T.T @ (case.d.qfrc_passive + case.d.qfrc_actuator)
    _assert_close(case.solver.data.qfrc.numpy()[: case.m.nv], ref, "qfrc_passive + qfrc_actuator")


def test_unconstrained_acceleration(case):
    ref = np.linalg.solve(case.T, case.d.qacc_smooth - case.tdot_qd)
    _assert_close(case.solver.data.qacc_smooth.numpy()[: case.m.nv], ref, "qacc_smooth")


def test_contacts(case):
    m, d, c = case.m, case.d, case.solver.contacts
    assert d.ncon >= 1
    keys = case.sim.model.shape_key
    pair_shape = c.pair_shape_host
    slot_pair = c.slot_pair_host
    ours = {}
    for s in np.nonzero(c.active.numpy())[0]:
        a, b = (keys[i].split("/")[-1] for i in pair_shape[slot_pair[s]])
        ours.setdefault(frozenset((a, b)), []).append(s)
    ref = {}
    for k in range(d.ncon):
        con = d.contact[k]
        ref.setdefault(frozenset((m.geom(con.geom1).name, m.geom(con.geom2).name)), []).append(k)
    assert ours.keys() == ref.keys()
    for pair, slots in ours.items():
        assert len(slots) == len(ref[pair]), pair
        for s in slots:  # match each of ours to the nearest MuJoCo contact of the pair
            k = min(ref[pair], key=lambda k: np.linalg.norm(d.contact[k].pos - c.point.numpy()[s]))
            con = d.contact[k]
            sign = 1.0 if m.geom(con.geom1).name == keys[pair_shape[slot_pair[s]][0]].split("/")[-1] else -1.0
            np.testing.assert_allclose(c.point.numpy()[s], con.pos, atol=2e-5)
            np.testing.assert_allclose(c.dist.numpy()[s], con.dist, atol=2e-5)
            np.testing.assert_allclose(sign * c.normal.numpy()[s], con.frame[:3], atol=1e-5)
            np.testing.assert_allclose(sign * c.tangent.numpy()[s], con.frame[3:6], atol=1e-5)


def test_constrained_acceleration(case):
    data = case.solver.data
    ours = (data.qacc_smooth.numpy() + data.qacc_constraint.numpy())[: case.m.nv]
    assert case.d.nefc >= 1  # contact (and limit) rows are in the problem
    _assert_close(ours, np.linalg.solve(case.T, case.d.qacc - case.tdot_qd), "qacc", 1e-3)


def test_one_implicitfast_step(case):
    mujoco.mj_step(case.m, case.d)  # from the state mj_forward saw; ours stepped in _Case
    _assert_close(case.layout.qvel()[0].numpy().astype(np.float64), case.d.qvel, "qvel after one step", 1e-3)
    _assert_close(case.layout.qpos()[0].numpy().astype(np.float64), case.d.qpos, "qpos after one step", 1e-3)
