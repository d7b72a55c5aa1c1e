"""The constraint stage and one whole step against MuJoCo C (Newton solver, pyramidal and elliptic
cones, friction 1 (the file's) and 0.6, implicitfast, dt 0.01) on gymnasium's Ant in random states with
its feet pressed into the floor, and the primal Newton solve against the PGS solve of the same problem.

The Ant's free root has its centre of mass at the body origin (asserted), so MuJoCo's free-joint
velocity (origin velocity in world axes, angular velocity in body axes) maps to ours (COM twist in world
axes) by rotating the angular part: qvel_mj = diag(I, R^T, I) qd_ours, and the same map takes
accelerations (w x w = 0 drops the frame's own rotation).
"""

import mujoco
import numpy as np
import pytest
from mujoco_builder import mujoco_qpos_to_joint_q
from solver_helpers import ant_path, model_from_xml

from newton_gym.sim.hostmath import quat_to_matrix
from newton_gym.solvers import SolverGeneralized

DT = 0.01


def _ant(cone="pyramidal", friction=None):
    m = mujoco.MjModel.from_xml_path(ant_path())
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.timestep = DT
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC if cone == "elliptic" else mujoco.mjtCone.mjCONE_PYRAMIDAL
    if friction is not None:
        m.geom_friction[:, 0] = friction
    assert np.allclose(m.body_ipos[1], 0.0)
    return m


def _random_contact_state(m, rng):
    """qpos, qvel, ctrl with the lowest foot 0-8 mm inside the floor and random joint angles / speeds."""
    qpos = m.qpos0.copy()
    axis = rng.normal(size=3)
    angle = rng.uniform(0.0, 0.3)
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, axis / np.linalg.norm(axis), angle)
    qpos[3:7] = quat
    for j in range(1, m.njnt):
        lo, hi = m.jnt_range[j]
        qpos[m.jnt_qposadr[j]] = rng.uniform(lo, hi) if m.jnt_limited[j] else rng.uniform(-0.5, 0.5)
    return _press(m, qpos, rng), rng.normal(scale=0.3, size=m.nv), rng.uniform(-1.0, 1.0, size=m.nu)


def _press(m, qpos, rng):
    """qpos moved down so that the robot's lowest point lies 0-8 mm inside the floor."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    # Lowest point of the robot's spheres and capsules (capsule axis = the geom's local z).
    lowest = min(
        d.geom_xpos[g][2] - abs(d.geom_xmat[g][8]) * m.geom_size[g][1] * (m.geom_type[g] == 3) - m.geom_size[g][0]
        for g in range(m.ngeom)
        if m.geom_bodyid[g] > 0
    )
    out = qpos.copy()
    out[2] -= lowest + rng.uniform(0.0, 0.008)
    return out


def _set_ours(model, state, m, qpos, qvel):
    q = mujoco_qpos_to_joint_q(m, qpos)
    rot = quat_to_matrix(q[3:7].astype(np.float64))
    qd = qvel.copy()
    qd[3:6] = rot @ qvel[3:6]
    state.joint_q.assign(q.astype(np.float32))
    state.joint_qd.assign(qd.astype(np.float32))
    return rot


def _to_mujoco_vel(rot, qd):
    out = np.asarray(qd, np.float64).copy()
    out[3:6] = rot.T @ out[3:6]
    return out


def _close(ours, ref, tol):
    scale = max(np.abs(ref).max(), 1.0)
    err = np.abs(ours - ref).max() / scale
    assert err < tol, (err, ours, ref)


def _rollout_state(m, rng):
    """A pose MuJoCo reaches 1-1.5 s after the drop under a weak random control, pressed into the floor,
    with its speeds perturbed."""
    d = mujoco.MjData(m)
    for _ in range(rng.integers(100, 150)):
        d.ctrl[:] = rng.uniform(-0.2, 0.2, size=m.nu)
        mujoco.mj_step(m, d)
    return _press(m, d.qpos, rng), d.qvel + rng.normal(scale=0.3, size=m.nv), rng.uniform(-1.0, 1.0, size=m.nu)


def _step_both(m, seed, solver_name="newton", **kwargs):
    rng = np.random.default_rng(seed)
    qpos, qvel, ctrl = (_random_contact_state if seed % 2 == 0 else _rollout_state)(m, rng)
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(m, d)
    model, act, _ = model_from_xml(m)
    cone = "elliptic" if m.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC else "pyramidal"
    solver = SolverGeneralized(model, iterations=100, actuators=act, solver=solver_name, cone=cone, **kwargs)
    s0, s1 = model.state(), model.state()
    rot = _set_ours(model, s0, m, qpos, qvel)
    solver.ctrl.assign(ctrl.astype(np.float32))
    solver.data.qacc_constraint.fill_(float("nan"))
    s1.joint_qd.fill_(float("nan"))
    solver.step(s0, s1, None, DT)
    return d, solver, s1, rot


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("friction", [None, 0.6])
@pytest.mark.parametrize("seed", range(4))
def test_constrained_acceleration_and_one_step_match_mujoco(seed, friction, cone):
    m = _ant(cone, friction)
    d, solver, s1, rot = _step_both(m, seed)
    assert d.ncon >= 1 and solver.world_contact_count.numpy()[0] == d.ncon
    qacc = solver.data.qacc_smooth.numpy() + solver.data.qacc_constraint.numpy()
    _close(_to_mujoco_vel(rot, qacc), d.qacc, 1e-3)
    mujoco.mj_step(m, d)
    q1 = s1.joint_q.numpy().astype(np.float64)
    rot1 = quat_to_matrix(q1[3:7])
    _close(_to_mujoco_vel(rot1, s1.joint_qd.numpy()), d.qvel, 1e-3)
    _close(
        mujoco_qpos_to_joint_q(m, d.qpos)[[0, 1, 2] + list(range(7, m.nq))], q1[[0, 1, 2] + list(range(7, m.nq))], 1e-3
    )


@pytest.mark.parametrize("seed", range(3))
def test_newton_and_pgs_solve_the_same_problem(seed):
    m = _ant()
    _, newton, _, _ = _step_both(m, seed)
    _, pgs, _, _ = _step_both(m, seed, "pgs", pgs_tolerance=0.0)
    a = newton.data.qacc_constraint.numpy()
    b = pgs.data.qacc_constraint.numpy()
    assert np.abs(a).max() > 1.0  # the contacts push
    _close(a, b, 1e-3)
    np.testing.assert_allclose(
        newton.rows.force.numpy(), pgs.rows.force.numpy(), atol=1e-3 * np.abs(pgs.rows.force.numpy()).max()
    )


def _standing_g1():
    """MuJoCo's G1 (MJCF, home keyframe, its servos holding the home pose) 0.3 s after it starts standing, and
    ours at the same state: (m, d, model, actuators, joint_q, qd, T, lever) with qvel_mj = T qd (the free
    root's COM is 7.6 cm below its origin, as in test_mujoco_oracle.py)."""
    from newton_gym.assets.robots import robot_source_path

    m = mujoco.MjModel.from_xml_path(robot_source_path("g1"))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(60):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    t, lever, qd = _root_map(m, d)
    model, act, _ = model_from_xml(m)
    return m, d, model, act, mujoco_qpos_to_joint_q(m, d.qpos), qd, t, lever


def _root_map(m, d):
    """(T, lever, qd) of a model whose body 1 is a free root with its centre of mass off its origin: qvel_mj =
    T qd_ours, the lever R ipos from the origin to the COM in world axes, and ours qd (COM velocity and
    angular velocity in world axes) of d's state."""
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, d.qpos[3:7])
    rot = rot.reshape(3, 3)
    lever = rot @ m.body_ipos[1]
    t = np.eye(m.nv)
    t[0:3, 3:6] = np.array([[0.0, -lever[2], lever[1]], [lever[2], 0.0, -lever[0]], [-lever[1], lever[0], 0.0]])
    t[3:6, 3:6] = rot.T
    return t, lever, np.linalg.solve(t, d.qvel)


def _qacc_in_ours(qacc_mj, t, lever, qd):
    """MuJoCo's qacc in our coordinates (:func:`_root_map`'s T, lever and qd): T^-1 (qacc_mj - Tdot qd), with
    Tdot qd = ((w x c) x w, 0, ...)."""
    w = qd[3:6]
    tdot_qd = np.zeros(len(qacc_mj))
    tdot_qd[0:3] = np.cross(np.cross(w, lever), w)
    return np.linalg.solve(t, qacc_mj - tdot_qd)


def _g1_step(m, d, model, act, q, qd, path_contacts=None, **kwargs):
    """One step of ours from the standing G1's state; returns the solver and its qacc. ``path_contacts``: the
    world solve's ``RowModel.path_contacts`` instead of its default."""
    solver = SolverGeneralized(model, iterations=100, actuators=act, solver="newton", **kwargs)
    if path_contacts is not None:
        solver.world_solver.rm.path_contacts = path_contacts
    s0, s1 = model.state(), model.state()
    s0.joint_q.assign(q.astype(np.float32))
    s0.joint_qd.assign(qd.astype(np.float32))
    solver.ctrl.assign(d.ctrl.astype(np.float32))
    solver.data.qacc_constraint.fill_(float("nan"))
    solver.step(s0, s1, None, float(m.opt.timestep))
    qacc = solver.data.qacc_smooth.numpy() + solver.data.qacc_constraint.numpy()
    return solver, qacc.astype(np.float64)


def test_standing_g1_constraint_matches_mujoco():
    """The standing G1: both feet and both hands on the thighs in contact, 80-90 pyramidal rows, some of them
    across two branches of the DOF tree (a hand against a thigh), so the Newton solve factors H without them
    on the tree pattern and adds them by Woodbury's identity (asserted: their rows are marked), and keeps
    its factor between iterations. The constrained acceleration of one step against MuJoCo's qacc: 6e-4 of
    its largest entry today, held to 2e-3 (float32 rows against float64; the Ant's tests above hold 1e-3
    with a fifth of the rows)."""
    from newton_gym.solvers.constraint.tables import Y_CROSS

    m, d, model, act, q, qd, t, lever = _standing_g1()
    bodies = [(m.geom_bodyid[c.geom1], m.geom_bodyid[c.geom2]) for c in d.contact[: d.ncon]]
    assert d.nefc >= 60 and any(b1 > 0 and b2 > 0 for b1, b2 in bodies)  # a contact between two links
    solver, qacc = _g1_step(m, d, model, act, q, qd)
    assert solver.world_contact_count.numpy()[0] == d.ncon
    rd = solver.world_solver.rd
    k = int(rd.nactive.numpy()[0])
    assert (rd.cone.numpy()[:k] & Y_CROSS).any()  # rows across branches: the cross path ran
    _close(qacc, _qacc_in_ours(d.qacc, t, lever, qd), 2e-3)


def test_standing_g1_path_bases_equal_row_by_row():
    """The standing G1's feet carry about eleven contacts each, so their rows' Y come from their paths' Z =
    L^-T S^T (:mod:`newton_gym.solvers.constraint.path_bases`; asserted: the world's path map gives slots to
    at least two paths). With no path taking Z (``RowModel.path_contacts`` above any count) the same step takes
    the row-by-row form (a Jacobian walk and three solves per contact): the two constrained accelerations agree
    to float32 rounding through the solve (3.5e-5 of the largest entry today; each is 6e-4 from MuJoCo's)."""
    m, d, model, act, q, qd, _t, _lever = _standing_g1()
    solver, paths = _g1_step(m, d, model, act, q, qd)
    rd = solver.world_solver.rd
    k = int(rd.nactive.numpy()[0])
    assert (rd.ydense.numpy()[k * m.nv : (k + 1) * m.nv] < 0).sum() >= 2  # the path map's slots
    rows = _g1_step(m, d, model, act, q, qd, path_contacts=10**6)[1]
    _close(paths, rows, 1e-4)


def test_standing_g1_rows_across_branches_32_lanes_equal_one_lane(monkeypatch):
    """The standing G1's step (rows across branches: :func:`newton_gym.solvers.solve.pattern.cross_direction`)
    by a block of 32 lanes (CPU blocks) equals one lane's bitwise."""
    import warp as wp

    m, d, model, act, q, qd, _t, _lever = _standing_g1()
    _solver, one = _g1_step(m, d, model, act, q, qd)
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    _solver, lanes = _g1_step(m, d, model, act, q, qd, block_dim=32)
    np.testing.assert_array_equal(lanes, one)


def _two_arms_xml(tips: int) -> str:
    """A floating base with two two-link arms side by side (no gravity), whose ``tips`` (1 or 2) pairs of
    spheres, one on each arm, overlap by 4 mm: contacts between two branches of one articulation (condim 3,
    pyramidal: four rows each). Left spheres collide only with right ones; a floor 5 m below, which every
    arm geom could touch, gives the worlds a row budget with room to spare."""
    spheres = {
        "l": ['<geom type="sphere" pos="0.1 0 0" size="0.052" contype="1" conaffinity="2"/>'],
        "r": ['<geom type="sphere" pos="0.1 0 0" size="0.052" contype="2" conaffinity="1"/>'],
    }
    if tips == 2:
        spheres["l"].append('<geom type="sphere" pos="-0.2 0 0.1" size="0.052" contype="1" conaffinity="2"/>')
        spheres["r"].append('<geom type="sphere" pos="-0.2 0 0.1" size="0.052" contype="2" conaffinity="1"/>')

    def arm(side: str, y: float) -> str:
        return f"""
      <body name="{side}1" pos="0.1 {y} 0">
        <joint type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5" contype="4" conaffinity="0"/>
        <body name="{side}2" pos="0.3 0 0">
          <joint type="hinge" axis="0 0 1" damping="0.1"/>
          {"".join(spheres[side])}
        </body>
      </body>"""

    return f"""<mujoco>
  <option gravity="0 0 0" timestep="0.005" integrator="implicitfast" cone="pyramidal"/>
  <worldbody>
    <geom type="plane" pos="0 0 -5" size="0 0 1" contype="0" conaffinity="7"/>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="2" contype="0" conaffinity="0"/>{arm("l", 0.05)}{arm("r", -0.05)}
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize(
    "tips, swing, cone, budget, rows, marked",
    [
        (1, (0.3, 1.5, -0.2, -1.5), "pyramidal", None, 4, 4),
        (1, (0.0, 0.2, 0.0, -0.2), "pyramidal", None, 4, 4),
        (2, (0.3, 1.5, -0.2, -1.5), "pyramidal", None, 8, 8),
        (2, (0.3, 1.5, -0.2, -1.5), "elliptic", None, 6, 0),
        (1, (0.3, 1.5, -0.2, -1.5), "pyramidal", 8, 4, 0),
    ],
    ids=["sliding", "sticking", "two-contacts", "elliptic", "no-room"],
)
def test_contacts_between_two_arms_match_mujoco(tips, swing, cone, budget, rows, marked):
    """Contacts between two arms of one floating articulation (rows across two branches of the DOF tree),
    the arms' joints at the speeds ``swing``: the tips slide (one pyramid edge with a force in MuJoCo) or
    stick (all four: four nearly dependent rows, their capacitance nearly singular). Pyramidal rows take the
    tree-sparse factor with Woodbury's identity (marked ``Y_CROSS``) where the world's unused rows of its
    row budget hold the correction's columns (a budget of 8 rows has too few left: the dense Cholesky);
    elliptic contacts across branches keep the dense Cholesky (none marked).
    Either way the constrained acceleration of one step matches MuJoCo's to 1e-4 of its largest entry (1e-6
    today)."""
    from newton_gym.solvers.constraint.tables import Y_CROSS

    m = mujoco.MjModel.from_xml_string(_two_arms_xml(tips))
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC if cone == "elliptic" else mujoco.mjtCone.mjCONE_PYRAMIDAL
    assert np.allclose(m.body_ipos[1], 0.0)  # the free root's COM at its origin: _set_ours maps qvel
    d = mujoco.MjData(m)
    qvel = np.zeros(m.nv)
    qvel[6:10] = swing
    d.qvel[:] = qvel
    mujoco.mj_forward(m, d)
    assert d.ncon == tips and d.nefc == rows
    model, act, _ = model_from_xml(m)
    solver = SolverGeneralized(model, iterations=100, actuators=act, solver="newton", cone=cone, row_budget=budget)
    s0, s1 = model.state(), model.state()
    rot = _set_ours(model, s0, m, d.qpos, qvel)
    solver.data.qacc_constraint.fill_(float("nan"))
    solver.step(s0, s1, None, float(m.opt.timestep))
    rd = solver.world_solver.rd
    k = int(rd.nactive.numpy()[0])
    assert k == rows
    assert np.count_nonzero(rd.cone.numpy()[:k] & Y_CROSS) == marked
    qacc = (solver.data.qacc_smooth.numpy() + solver.data.qacc_constraint.numpy()).astype(np.float64)
    assert np.abs(d.qacc[6:]).max() > 1.0  # the contacts push the arms apart
    _close(_to_mujoco_vel(rot, qacc), d.qacc, 1e-4)


TUMBLER = """<mujoco>
<option timestep="0.005" integrator="implicitfast"/>
<worldbody>
 <geom type="plane" size="5 5 0.1"/>
 <body name="tumbler" pos="0 0 0.2"><freejoint/>
  <inertial pos="0.06 -0.04 0.09" mass="2" diaginertia="0.02 0.03 0.04"/>
  <geom type="box" size="0.15 0.1 0.05" mass="0"/>
  <body pos="0.12 0 0.05"><joint type="hinge" axis="0 1 0"/>
   <geom type="capsule" fromto="0 0 0 0.2 0 -0.1" size="0.02" mass="0.3"/></body>
 </body>
</worldbody>
</mujoco>"""


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("seed", range(3))
def test_spinning_root_with_its_com_off_its_origin_matches_mujoco(seed, cone):
    """A box whose centre of mass sits 12 cm from its origin, tilted onto an edge or corner 1-5 mm into the
    floor and spinning at about 6 rad/s. MuJoCo's contact rows take J qacc in its coordinates, where the
    free joint moves the origin: its qacc holds (w x c) x w on top of ours (COM coordinates), which our
    rows add (:func:`newton_gym.solvers.constraint.assemble.contact_lever_acc`). Without it the
    constrained acceleration differed from MuJoCo's by 3e-3 to 7e-3 of its largest entry; with it by 2e-6."""
    m = mujoco.MjModel.from_xml_string(TUMBLER)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC if cone == "elliptic" else mujoco.mjtCone.mjCONE_PYRAMIDAL
    rng = np.random.default_rng(seed)
    d = mujoco.MjData(m)
    axis = rng.normal(size=3)
    mujoco.mju_axisAngle2Quat(d.qpos[3:7], axis / np.linalg.norm(axis), rng.uniform(0.3, 0.6))
    mujoco.mj_kinematics(m, d)
    frame = d.geom_xmat[1].reshape(3, 3)
    corners = [d.geom_xpos[1] + frame @ (m.geom_size[1] * (2 * np.array(s) - 1)) for s in np.ndindex(2, 2, 2)]
    d.qpos[2] -= min(c[2] for c in corners) + rng.uniform(0.001, 0.005)
    d.qvel[:] = rng.normal(scale=0.3, size=m.nv)
    d.qvel[3:6] = rng.normal(size=3) * 6.0 / np.sqrt(3.0)
    mujoco.mj_forward(m, d)
    assert d.ncon >= 1
    t, lever, qd = _root_map(m, d)
    assert np.linalg.norm(lever) > 0.1
    model, act, _ = model_from_xml(m)
    solver = SolverGeneralized(model, iterations=100, actuators=act, solver="newton", cone=cone)
    s0, s1 = model.state(), model.state()
    s0.joint_q.assign(mujoco_qpos_to_joint_q(m, d.qpos).astype(np.float32))
    s0.joint_qd.assign(qd.astype(np.float32))
    solver.step(s0, s1, None, float(m.opt.timestep))
    assert solver.world_contact_count.numpy()[0] == d.ncon
    qacc = (solver.data.qacc_smooth.numpy() + solver.data.qacc_constraint.numpy()).astype(np.float64)
    ref = _qacc_in_ours(d.qacc, t, lever, qd)
    print(f"spinning box ({cone}, seed {seed}): qacc {np.abs(qacc - ref).max() / np.abs(ref).max():.2g} of the largest")
    _close(qacc, ref, 1e-4)
