"""Per-stage oracles: SolverGeneralized's smooth stages and narrow phase against MuJoCo C, on models
built by ``mujoco_builder.builder_from_mujoco`` (tests/solvers) from gymnasium's shipped ant.xml and
humanoid.xml (same compiled numbers on both sides; the humanoid's 2-3 hinges per body become chains of
massless links, so the DOF tree and order are MuJoCo's, checked against dof_parentid).

Stages, each run by hand in _substep's order on ``solver.spans[0]`` with its outputs NaN-filled first,
so an entry a stage does not write fails:

1. eval_fk, compute_subspaces, compute_mass_matrix -> ``data.mass_matrix`` + diag(joint_armature) vs
   mj_fullM (which includes dof_armature). Our block holds only ancestor pairs; the NaN pattern must be
   MuJoCo's sparsity (dof_parentid), and the reference is exactly zero elsewhere.
2. compute_bias(gyro_midpoint=False: the explicit w x I w term, as MuJoCo) -> ``data.qfrc_bias`` vs
   qfrc_bias.
3. compute_passive -> ``data.qfrc`` vs qfrc_passive (damping -b qd, springs -k q); then
   apply_actuators -> ``data.qfrc`` vs qfrc_passive + qfrc_actuator (controls drawn beyond the range,
   so the clamp is exercised).
4. factor_and_solve -> ``data.qacc_smooth`` vs qacc_smooth = (M + armature)^-1 (qfrc_smooth), MuJoCo's
   definition (no damping in the matrix): componentwise backward error against MuJoCo's M and forces
   within 1e-5, forward error within 1e-5 (Ant) and 5e-5 (Humanoid; float32 limit, see QACC_RTOL).
5. collide -> ``solver.contacts`` (active, point, normal, dist, tangent per slot) vs d.contact: same
   geom pairs, same count per pair, and per contact the point, signed distance, normal and first
   friction direction (MuJoCo's frame rows 0 and 1).

States (seeded numpy RNG per case): "tilted": root turned by up to 0.5 rad about a random axis, joints
uniform in their ranges, then lowered until the lowest geom point is 1-8 mm inside the floor;
"resting": a pose with several bodies on the floor (the Ant on its four feet at Ant-v5's init_qpos,
the Humanoid lying on its back), joints jittered by 0.05 rad, root tilted by up to 0.02 rad, lowest
point 1-8 mm in; "airborne": a tilted state 0.3 m above the floor (no contact on either side). Speeds
are N(0, 1) in our coordinates, controls uniform in 1.2 x ctrlrange. Inputs are rounded to float32
first (ours run in float32) and MuJoCo gets exactly those numbers, in float64.

Coordinates. Only the free root differs. Ours: joint_q = (origin position, quaternion x, y, z, w),
joint_qd = (COM velocity, angular velocity), both in world axes. MuJoCo: quaternion w, x, y, z, and
qvel = (origin velocity in world axes, angular velocity in body axes). So qvel_mj = T qd with
T = [[I, [c]x], [0, R^T]] on the root block (c = R ipos, the origin-to-COM lever; v_origin = v_com -
w x c) and I elsewhere. Power and kinetic energy are coordinate-free, hence (exactly, at any state)

    M_ours = T^T M_mj T,    f_ours = T^T f_mj   (passive, actuator forces),
    c_ours = T^T (c_mj + M_mj Tdot qd),   qacc_ours = T^-1 (qacc_mj - Tdot qd),

from M_mj (T qdd + Tdot qd) + c_mj = f_mj, where Tdot qd = ((w x c) x w, 0, ...) (d/dt of the lever
term; d/dt (R^T) w = -R^T [w]x w = 0). Armature is zero on the free DOFs, so T leaves it unchanged and
using MuJoCo's M (armature included) in the Tdot term is the same as without.

Tolerance: rtol 1e-5 with atol 1e-5 * max|reference| (float32 against float64), except the Humanoid's
qacc_smooth forward error (QACC_RTOL); contacts to 1e-5 m / 1e-5 absolute. The worst error of each
stage is in _WORST, printed by ``pytest -s``.
"""

from __future__ import annotations

import functools
import os
import types

import gymnasium
import mujoco
import numpy as np
import pytest
from mujoco_builder import mujoco_qpos_to_joint_q
from solver_helpers import ant_path, collide_poisoned, model_from_xml

from newton_gym.sim.kinematics import eval_fk
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.smooth import dynamics as smooth
from newton_gym.solvers.smooth import passive, tendon

RTOL = 1e-5
# Forward error of qacc_smooth: float32 cannot reach 1e-5 on the Humanoid (cond(M) ~ 2e3-4e3, and the
# diagonal of its light DOFs carries ~1e-5 relative rounding from the CRBA about the torso COM): over 80
# random states the worst is 1.6e-5 (median 6e-6), and an exact float64 solve of our own float32 M and
# forces is already 1.2e-5 away. The backward error is held to RTOL on both robots instead.
QACC_RTOL = {"ant": RTOL, "humanoid": 5e-5}
CONTACT_ATOL = 1e-5  # [m] points and distances, [-] unit normals and tangents
CASES = [("tilted", 0), ("tilted", 1), ("tilted", 2), ("resting", 0), ("resting", 1), ("airborne", 0)]
_WORST: dict = {}


def _path(robot):
    if robot == "ant":
        return ant_path()
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", f"{robot}.xml")


@functools.cache
def _robot(robot):
    """(MjModel, Model, solver, uploaded actuators) of one robot, shared by its cases (every
    stage output is NaN-filled before it is recomputed)."""
    m = mujoco.MjModel.from_xml_path(_path(robot))
    model, act, _ = model_from_xml(m)
    solver = SolverGeneralized(model, actuators=act)
    return m, model, solver, act.upload(model.device, model.joint_dof_count, model.tendon_count)


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _f32(x):
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _lowest_point(m, d):
    """Lowest point of the robot's geoms (spheres and capsules) [m]."""
    low = np.inf
    for g in range(m.ngeom):
        if m.geom_bodyid[g] == 0:
            continue
        half = m.geom_size[g][1] * abs(d.geom_xmat[g][8]) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE else 0.0
        low = min(low, d.geom_xpos[g][2] - half - m.geom_size[g][0])
    return low


def _random_qpos(m, robot, kind, rng):
    qpos = m.qpos0.copy()
    quat, tilt = np.zeros(4), np.zeros(4)
    axis = rng.normal(size=3)
    mujoco.mju_axisAngle2Quat(tilt, axis / np.linalg.norm(axis), rng.uniform(0.0, 0.02 if kind == "resting" else 0.5))
    if kind == "resting":
        if robot == "ant":
            qpos[:] = m.numeric("init_qpos").data
        else:  # on its back: the body's z axis turned onto world -x
            mujoco.mju_axisAngle2Quat(qpos[3:7], np.array([0.0, 1.0, 0.0]), -np.pi / 2)
        qpos[7:] += rng.normal(scale=0.05, size=m.nq - 7)
    else:
        for j in range(1, m.njnt):
            qpos[m.jnt_qposadr[j]] = rng.uniform(*m.jnt_range[j])
    mujoco.mju_mulQuat(quat, tilt, qpos[3:7])
    qpos[3:7] = quat
    qpos[0:2] = rng.uniform(-1.0, 1.0, 2)
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    qpos[2] -= _lowest_point(m, d) + (-0.3 if kind == "airborne" else rng.uniform(0.001, 0.008))
    return qpos


class _Case:
    """One random state: MuJoCo's mj_forward and each of our stages, with the free-root map T."""

    def __init__(self, robot, kind, seed):
        self.robot, self.kind = robot, kind
        self.m, self.model, self.solver, act = _robot(robot)
        m, model, solver = self.m, self.model, self.solver
        rng = np.random.default_rng(seed)
        qpos = _random_qpos(m, robot, kind, rng)
        # Ours in float32: quaternion normalized after rounding; MuJoCo gets the same numbers.
        joint_q = mujoco_qpos_to_joint_q(m, qpos)
        joint_q[3:7] /= np.linalg.norm(joint_q[3:7])
        qd = rng.normal(size=m.nv).astype(np.float32)
        ctrl = rng.uniform(1.2 * m.actuator_ctrlrange[:, 0], 1.2 * m.actuator_ctrlrange[:, 1]).astype(np.float32)
        qpos = _f32(joint_q)
        qpos[3:7] = np.roll(qpos[3:7], 1)  # x, y, z, w -> w, x, y, z
        self.d = d = mujoco.MjData(m)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        rot = d.xmat[1].reshape(3, 3)
        lever = d.xipos[1] - d.xpos[1]
        self.T = np.eye(m.nv)
        self.T[0:3, 3:6] = _skew(lever)
        self.T[3:6, 3:6] = rot.T
        self.qd = _f32(qd)
        w = self.qd[3:6]
        self.tdot_qd = np.zeros(m.nv)
        self.tdot_qd[0:3] = np.cross(np.cross(w, lever), w)
        d.qvel[:] = self.T @ self.qd
        d.ctrl[:] = _f32(ctrl)
        mujoco.mj_forward(m, d)
        self.M_mj = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, self.M_mj)

        state = model.state()
        state.joint_q.assign(joint_q)
        state.joint_qd.assign(qd)
        solver.ctrl.assign(ctrl)
        self.out = self._run_stages(state, act, float(m.opt.timestep))

    def _run_stages(self, state, act, dt):
        """_substep's smooth stages and narrow phase, each output NaN-filled before the stage runs;
        returns float64 copies of what each stage wrote."""
        model, solver = self.model, self.solver
        data, tree, span = solver.data, solver.tree, solver.spans[0]
        arts = span.articulations
        kin = types.SimpleNamespace(body_q=data.body_q, body_qd=data.body_qd)
        out = {}

        def grab(name, arr):
            out[name] = arr.numpy().astype(np.float64)

        data.mass_matrix.fill_(float("nan"))
        eval_fk(model, state.joint_q, state.joint_qd, kin, articulations=arts)
        smooth.compute_subspaces(model, tree, data, data.body_q, data.body_qd, state.joint_q, state.joint_qd, arts)
        smooth.compute_mass_matrix(model, tree, solver.tendon_tables, data, arts)
        grab("mass_matrix", data.mass_matrix)
        data.qfrc_bias.fill_(float("nan"))
        smooth.compute_bias(model, tree, data, data.body_q, state.body_f, state.joint_qd, dt, arts, gyro_midpoint=False)
        grab("qfrc_bias", data.qfrc_bias)
        data.qfrc.fill_(float("nan"))
        ten = solver.tendon_tables
        tendon.compute_tendons(model, tree, ten, data, state.joint_q, state.joint_qd, dt, (0, model.tendon_count))
        passive.compute_passive(model, tree, ten, data, state.joint_q, state.joint_qd, model.control(), dt, span.dofs)
        grab("qfrc_passive", data.qfrc)
        passive.apply_actuators(
            model, tree, ten, act, solver.ctrl, solver.act, state.joint_q, state.joint_qd, dt, data, span.actuators
        )
        grab("qfrc", data.qfrc)
        data.qacc_smooth.fill_(float("nan"))
        smooth.factor_and_solve(model, tree, ten, data, arts)
        grab("qacc_smooth", data.qacc_smooth)
        c = solver.contacts
        collide_poisoned(model, c, data.body_q, span.worlds)
        for name in ("active", "point", "normal", "dist", "tangent"):
            grab(f"contact_{name}", getattr(c, name))
        return out


@functools.cache
def _case(robot, kind, seed):
    return _Case(robot, kind, seed)


@pytest.fixture(params=[(r, k, s) for r in ("ant", "humanoid") for k, s in CASES], ids=lambda p: "-".join(map(str, p)))
def case(request):
    return _case(*request.param)


def _assert_close(ours, ref, what, rtol=RTOL):
    """rtol, atol rtol * max|ref|; records the relative error max|ours - ref| / max|ref|."""
    assert np.isfinite(ours).all(), f"{what}: entries not written (NaN) at {np.argwhere(~np.isfinite(ours)).tolist()}"
    scale = max(np.abs(ref).max(), 1e-12)
    err = np.abs(ours - ref).max() / scale
    _WORST[what] = max(_WORST.get(what, 0.0), err)
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=rtol * scale, err_msg=f"{what}: max rel error {err:.2e}")


def test_dof_tree_is_mujocos(case):
    np.testing.assert_array_equal(case.solver.layout.dof_parent, case.m.dof_parentid)
    np.testing.assert_allclose(case.model.joint_armature.numpy(), case.m.dof_armature, rtol=1e-7)


def test_mass_matrix(case):
    nv = case.m.nv
    ours = case.out["mass_matrix"][: nv * nv].reshape(nv, nv)
    ancestor = np.eye(nv, dtype=bool)  # ancestor-or-self pairs, both triangles: MuJoCo's sparsity
    for i in range(nv):
        k = case.m.dof_parentid[i]
        while k >= 0:
            ancestor[i, k] = ancestor[k, i] = True
            k = case.m.dof_parentid[k]
    ref = case.T.T @ case.M_mj @ case.T
    np.testing.assert_array_equal(np.isfinite(ours), ancestor)  # written exactly on the ancestor pairs
    assert (ref[~ancestor] == 0.0).all()
    ours = np.where(ancestor, ours, 0.0) + np.diag(case.model.joint_armature.numpy())
    _assert_close(ours, ref, f"{case.m.nv}-dof mass matrix")


def test_bias_forces(case):
    ref = case.T.T @ (case.d.qfrc_bias + case.M_mj @ case.tdot_qd)
    _assert_close(case.out["qfrc_bias"][: case.m.nv], ref, f"{case.m.nv}-dof qfrc_bias")


def test_passive_forces(case):
    _assert_close(
        case.out["qfrc_passive"][: case.m.nv], case.T.T @ case.d.qfrc_passive, f"{case.m.nv}-dof qfrc_passive"
    )


def test_passive_plus_actuator_forces(case):
    ref = case.T.T @ (case.d.qfrc_passive + case.d.qfrc_actuator)
    _assert_close(case.out["qfrc"][: case.m.nv], ref, f"{case.m.nv}-dof qfrc_passive + qfrc_actuator")


def test_unconstrained_acceleration(case):
    ours = case.out["qacc_smooth"][: case.m.nv]
    # Backward error (Oettli-Prager, componentwise): ours solves MuJoCo's system M x = f (M with armature,
    # f = passive + actuator - bias, both mapped to our coordinates) up to a perturbation of RTOL.
    mat = case.T.T @ case.M_mj @ case.T
    rhs = case.T.T @ (case.d.qfrc_passive + case.d.qfrc_actuator - case.d.qfrc_bias - case.M_mj @ case.tdot_qd)
    backward = (np.abs(mat @ ours - rhs) / (np.abs(mat) @ np.abs(ours) + np.abs(rhs))).max()
    _WORST[f"{case.m.nv}-dof qacc_smooth (backward)"] = max(
        _WORST.get(f"{case.m.nv}-dof qacc_smooth (backward)", 0.0), backward
    )
    assert backward < RTOL, f"qacc_smooth: componentwise backward error {backward:.2e}"
    # Forward error against MuJoCo's qacc_smooth.
    ref = np.linalg.solve(case.T, case.d.qacc_smooth - case.tdot_qd)
    _assert_close(ours, ref, f"{case.m.nv}-dof qacc_smooth", QACC_RTOL[case.robot])


def test_contacts(case):
    m, d, out, c = case.m, case.d, case.out, case.solver.contacts
    assert case.model.shape_count == m.ngeom  # builder_from_mujoco adds one shape per geom, in geom order
    assert set(np.unique(out["contact_active"][: c.slot_count])) <= {0.0, 1.0}, "slots not written"
    pair_shape = c.pair_shape_host[c.slot_pair_host]
    ours, ref = {}, {}
    for s in np.nonzero(out["contact_active"][: c.slot_count] == 1.0)[0]:
        ours.setdefault(frozenset(pair_shape[s].tolist()), []).append(s)
    for k in range(d.ncon):
        ref.setdefault(frozenset((int(d.contact.geom1[k]), int(d.contact.geom2[k]))), []).append(k)
    name = {frozenset(p): "/".join(m.geom(g).name for g in p) for p in ref.keys() | ours.keys()}
    assert sorted(map(name.get, ours)) == sorted(map(name.get, ref)), "geom pairs in contact"
    on_floor = [k for k in range(d.ncon) if 0 in (m.geom_bodyid[d.contact.geom1[k]], m.geom_bodyid[d.contact.geom2[k]])]
    assert (len(on_floor) == 0) == (case.kind == "airborne")
    for pair, slots in ours.items():
        assert len(slots) == len(ref[pair]), f"{name[pair]}: {len(slots)} contacts, MuJoCo {len(ref[pair])}"
        left = list(ref[pair])
        for s in slots:  # each of ours against the nearest unmatched MuJoCo contact of the pair
            k = min(left, key=lambda k: np.linalg.norm(d.contact.pos[k] - out["contact_point"][s]))
            left.remove(k)
            sign = 1.0 if d.contact.geom1[k] == pair_shape[s][0] else -1.0  # our normal points from A to B
            got = np.concatenate(
                [
                    out["contact_point"][s],
                    [out["contact_dist"][s]],
                    sign * out["contact_normal"][s],
                    sign * out["contact_tangent"][s],
                ]
            )
            want = np.concatenate([d.contact.pos[k], [d.contact.dist[k]], d.contact.frame[k][:6]])
            err = np.abs(got - want).max()
            _WORST["contact (m, unit vectors)"] = max(_WORST.get("contact (m, unit vectors)", 0.0), err)
            np.testing.assert_allclose(
                got,
                want,
                atol=CONTACT_ATOL,
                err_msg=f"{name[pair]}: point, dist, normal, tangent (max error {err:.1e})",
            )


def teardown_module():
    for what, err in sorted(_WORST.items()):
        print(f"worst relative error {what}: {err:.2e}")
