"""Fixed and spatial tendons against MuJoCo C, on models ``mujoco_builder`` builds from the compiled MjModel:

- per stage at random states (float32-rounded inputs, MuJoCo in float64): ten_length and the dense ten_J
  within 1e-6, ten_velocity, and qfrc_passive (joint and tendon spring-dampers) within 1e-5 relative;
- the forces of the tendon limit and friction rows (efc_force of mjCNSTR_LIMIT_TENDON / FRICTION_TENDON) from
  one step at a MuJoCo state where they are active;
- trajectories over 1 s at the model's time step, implicitfast, Newton: joint coordinates and tendon lengths
  within 1e-4 (rad, m) of MuJoCo's.

Cases: "spring" (a), two fixed tendons coupling two hinges, one with a spring about one length, one with a dead
band, both damped; "limit" (b), a fixed tendon whose upper limit (with a margin) becomes active; "spatial" (c),
a tendon through three sites (world, link 1, link 2) of a 2-link arm with a limit and a motor on the tendon;
"friction" (d), a tendon with friction loss and a velocity servo on it; "two_trees", a damped, limited fixed
tendon coupling the hinges of two separate pendulums (MuJoCo drops the cross-tree part of its implicit damping,
as we do); "stiff_damping", at dt = 0.01 a fixed tendon damper and a velocity servo on a spatial tendon far
too stiff for an explicit step (stable only with both velocity-implicit along J, as implicitfast). The worst
error of each check is printed by ``pytest -s``.
"""

from __future__ import annotations

import functools
import types

import mujoco
import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import model_from_xml, run

import newton_gym as ng
from newton_gym.errors import ImportFailedError, ModelBuildError
from newton_gym.sim.kinematics import eval_fk
from newton_gym.solvers import Actuators, SolverGeneralized
from newton_gym.solvers.constraint import rows as constraint
from newton_gym.solvers.smooth import dynamics, passive, tendon

_ARM = """
<mujoco><option timestep="{dt}" integrator="implicitfast" gravity="0 0 -9.81"/>
<worldbody>
 <site name="anchor" pos="0 0 1.5"/>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0" damping="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0.1" size="0.05" mass="1"/>
  <site name="s1" pos="0.3 0 0.08"/>
  <body name="l2" pos="0.5 0 0.1">
   <joint name="j2" type="hinge" axis="0.3 1 0" damping="0.02"/>
   <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.04" mass="0.7"/>
   <site name="s2" pos="0.35 0.08 0.02"/>
  </body>
 </body>
 {extra}
</worldbody>
<tendon>{tendons}</tendon>
<actuator>{actuators}</actuator>
</mujoco>"""

_SECOND_TREE = """<body name="p" pos="0 0.6 1">
  <joint name="k1" type="hinge" axis="0 1 0" damping="0.03"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 -0.2" size="0.04" mass="0.5"/>
 </body>"""

CASES = {
    "spring": dict(
        tendons='<fixed name="couple" stiffness="20" damping="2" springlength="0.2">'
        '<joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>'
        '<fixed name="band" stiffness="8" damping="0.5" springlength="-0.1 0.3">'
        '<joint joint="j2" coef="1"/></fixed>',
    ),
    # Tendon armature (MuJoCo's mj_tendonArmature: M += armature J^T J) on a fixed tendon with a spring.
    "armature": dict(
        tendons='<fixed name="heavy" armature="0.08" stiffness="6"><joint joint="j1" coef="1"/>'
        '<joint joint="j2" coef="0.6"/></fixed>',
    ),
    "limit": dict(
        tendons='<fixed name="lim" limited="true" range="-0.4 0.25" margin="0.02" damping="0.3" '
        'solreflimit="0.01 1" solimplimit="0.9 0.95 0.002 0.5 2">'
        '<joint joint="j1" coef="0.7"/><joint joint="j2" coef="0.4"/></fixed>',
    ),
    "spatial": dict(
        tendons='<spatial name="cable" limited="true" range="0.3 0.78" stiffness="5" damping="0.4">'
        '<site site="anchor"/><site site="s1"/><site site="s2"/></spatial>',
        actuators='<motor tendon="cable" gear="2" ctrlrange="-5 5"/>',
    ),
    "friction": dict(
        tendons='<spatial name="rub" frictionloss="0.6" solreffriction="0.03 1">'
        '<site site="anchor"/><site site="s1"/><site site="s2"/></spatial>'
        '<fixed name="rub2" frictionloss="0.2"><joint joint="j2" coef="1"/></fixed>',
        actuators='<velocity tendon="rub" kv="3"/>',
    ),
    # Damping far beyond what an explicit step holds at dt = 0.01 (tendon and actuator velocity feedback):
    # stable only when both are implicit along J, as in implicitfast.
    "stiff_damping": dict(
        tendons='<fixed name="damped" damping="40"><joint joint="j1" coef="1"/><joint joint="j2" coef="1"/></fixed>'
        '<spatial name="servo"><site site="anchor"/><site site="s2"/></spatial>',
        actuators='<velocity tendon="servo" kv="60"/>',
        dt=0.01,
    ),
    "two_trees": dict(
        tendons='<fixed name="across" damping="1.5" limited="true" range="-0.3 0.12">'
        '<joint joint="j1" coef="1"/><joint joint="k1" coef="-1"/></fixed>',
        extra=_SECOND_TREE,
    ),
}

_WORST: dict = {}


def _xml(case: str) -> str:
    c = CASES[case]
    return _ARM.format(
        tendons=c["tendons"], actuators=c.get("actuators", ""), extra=c.get("extra", ""), dt=c.get("dt", 0.002)
    )


def _ctrl(m, steps: int, dt: float) -> np.ndarray:
    t = np.arange(steps) * dt
    return (2.0 * np.sin(3.0 * t) + 0.5)[:, None] * np.ones((1, m.nu))


@functools.cache
def _setup(case: str):
    m = mujoco.MjModel.from_xml_string(_xml(case))
    model, act, _ = model_from_xml(m)
    return m, model, SolverGeneralized(model, actuators=act)


def _record(name, err):
    _WORST[name] = max(_WORST.get(name, 0.0), float(err))


def _mj_dense_jac(m, d) -> np.ndarray:
    out = np.zeros((m.ntendon, m.nv))
    for i in range(m.ntendon):
        adr, nnz = int(m.ten_J_rowadr[i]), int(m.ten_J_rownnz[i])
        out[i, m.ten_J_colind[adr : adr + nnz]] = d.ten_J[adr : adr + nnz]
    return out


def _stages(solver, q, qd):
    """Our ten_length, dense ten_J, ten_velocity, passive forces and dense mass matrix (with joint and tendon
    armature) at joint state (q, qd), stage by stage (outputs NaN-filled first, so an entry a stage does not
    write fails; the mass matrix zero-filled: our blocks hold only ancestor pairs, zeros elsewhere in MuJoCo's)."""
    model, tree, data, ten = solver.model, solver.tree, solver.data, solver.tendon_tables
    state = model.state()
    state.joint_q.assign(q.astype(np.float32))
    state.joint_qd.assign(qd.astype(np.float32))
    everything = (0, model.articulation_count)
    kin = types.SimpleNamespace(body_q=data.body_q, body_qd=data.body_qd)
    eval_fk(model, state.joint_q, state.joint_qd, kin)
    dynamics.compute_subspaces(model, tree, data, data.body_q, data.body_qd, state.joint_q, state.joint_qd, everything)
    for arr in (data.ten_length, data.ten_J, data.ten_velocity, data.qfrc):
        arr.fill_(float("nan"))
    tendon.compute_tendons(model, tree, ten, data, state.joint_q, state.joint_qd, 0.002, (0, model.tendon_count))
    passive.compute_passive(
        model, tree, ten, data, state.joint_q, state.joint_qd, model.control(), 0.002, (0, model.joint_dof_count)
    )
    jac = tendon.dense_jacobian(solver.tendon_layout, data.ten_J.numpy(), model.joint_dof_count)
    data.mass_matrix.zero_()
    dynamics.compute_mass_matrix(model, tree, ten, data, everything)
    mass = np.diag(model.joint_armature.numpy().astype(np.float64))
    start, mat = solver.layout.art_dof_start, solver.layout.art_mat_start
    for a in range(model.articulation_count):
        n = int(start[a + 1] - start[a])
        block = data.mass_matrix.numpy()[mat[a] : mat[a] + n * n].reshape(n, n)
        mass[start[a] : start[a + 1], start[a] : start[a + 1]] += block
    return data.ten_length.numpy(), jac, data.ten_velocity.numpy(), data.qfrc.numpy(), mass


@pytest.mark.parametrize("case", sorted(CASES))
def test_tendon_stages_match_mujoco(case):
    m, model, solver = _setup(case)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(3)
    for _ in range(6):
        q = np.float32(rng.uniform(-1.2, 1.2, m.nq)).astype(np.float64)
        qd = np.float32(rng.normal(0.0, 1.5, m.nv)).astype(np.float64)
        d.qpos[:], d.qvel[:] = q, qd
        mujoco.mj_forward(m, d)
        length, jac, vel, qfrc, mass = _stages(solver, q, qd)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        for name, ours, ref, atol in (
            ("mass_matrix", mass, full, 1e-5 * np.abs(full).max()),
            ("ten_length", length, d.ten_length, 1e-6),
            ("ten_J", jac, _mj_dense_jac(m, d), 1e-6),
            ("ten_velocity", vel, d.ten_velocity, 1e-5 * max(1.0, np.abs(d.ten_velocity).max())),
            ("qfrc_passive", qfrc, d.qfrc_passive, 1e-5 * max(1.0, np.abs(d.qfrc_passive).max())),
        ):
            err = np.abs(np.asarray(ours, np.float64) - ref).max()
            _record(f"{case}/{name}", err)
            assert err <= atol, (case, name, err, ours, ref)


def _xrow_force(solver, kind: int, owner: int, sub: int) -> float:
    """The last solved force of the non-contact row (kind, owner, sub) of a model without worlds."""
    rows = solver.rows
    x = np.nonzero(
        (rows.kind_host == kind) & (rows.owner_host == owner) & (rows.x_sub.numpy()[: len(rows.kind_host)] == sub)
    )[0]
    assert len(x) == 1
    first = int(rows.world_row_start.numpy()[1]) - len(rows.kind_host)
    return float(rows.force.numpy()[first + int(x[0])])


@pytest.mark.parametrize("case", ["limit", "spatial", "friction", "two_trees"])
def test_tendon_row_forces_match_mujoco(case):
    """Run MuJoCo until the case's tendon rows are active, then solve one step from that state (rounded to
    float32) on both sides and compare the rows' forces."""
    m, model, solver = _setup(case)
    d = mujoco.MjData(m)
    steps = 500
    ctrl = _ctrl(m, steps, m.opt.timestep)
    kinds = (int(mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON), int(mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON))
    found = 0
    for i in range(steps):
        d.ctrl[:] = ctrl[i]
        mujoco.mj_step(m, d)
        if i % 25 or not np.isin(d.efc_type[: d.nefc], kinds).any():
            continue
        q, qd = np.float32(d.qpos).astype(np.float64), np.float32(d.qvel).astype(np.float64)
        ref = mujoco.MjData(m)
        ref.qpos[:], ref.qvel[:], ref.ctrl[:] = q, qd, ctrl[i + 1]
        mujoco.mj_forward(m, ref)
        state = model.state()
        state.joint_q.assign(q.astype(np.float32))
        state.joint_qd.assign(qd.astype(np.float32))
        solver.ctrl.assign(np.float32(ctrl[i + 1]))
        solver.step(state, state, None, m.opt.timestep)
        scale = max(1.0, np.abs(ref.efc_force[: ref.nefc]).max(initial=0.0))
        for r in range(ref.nefc):
            if int(ref.efc_type[r]) not in kinds:
                continue
            if int(ref.efc_type[r]) == kinds[0]:
                lower = ref.ten_length[ref.efc_id[r]] - m.tendon_range[ref.efc_id[r], 0]
                upper = m.tendon_range[ref.efc_id[r], 1] - ref.ten_length[ref.efc_id[r]]
                kind, sub = constraint.ROW_TENDON_LIMIT, int(upper < lower)
            else:
                kind, sub = constraint.ROW_TENDON_FRICTION, 0
            ours = _xrow_force(solver, kind, int(ref.efc_id[r]), sub)
            err = abs(ours - ref.efc_force[r]) / scale
            _record(f"{case}/efc_force (relative)", err)
            assert err < 2e-3, (case, i, r, ours, ref.efc_force[r])
            found += 1
    assert found >= 3, f"{case}: the tendon rows were active at only {found} checked states"


@pytest.mark.parametrize("case", sorted(CASES))
def test_tendon_trajectories_match_mujoco(case):
    m, model, solver = _setup(case)
    d = mujoco.MjData(m)
    dt = float(m.opt.timestep)
    steps = int(round(1.0 / dt))
    ctrl = _ctrl(m, steps, dt)
    ref_q, ref_len, active = [], [], 0
    for i in range(steps):
        d.ctrl[:] = ctrl[i]
        mujoco.mj_step(m, d)
        ref_q.append(d.qpos.copy())
        ref_len.append(d.ten_length.copy())
        active += int(np.isin(d.efc_type[: d.nefc], (mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON,)).any())
    out = run(
        model,
        solver,
        steps,
        dt,
        ctrl=ctrl if m.nu else None,
        record=lambda s: (s.joint_q.numpy().copy(), solver.data.ten_length.numpy().copy()),
    )[1]
    ours_q = np.array([o[0] for o in out])
    ours_len = np.array([o[1] for o in out])  # both sides' lengths are those at the step's start
    ref_q, ref_len = np.array(ref_q), np.array(ref_len)
    assert np.ptp(ref_q[:, 0]) > 0.1  # the arm really moves
    if "limit" in CASES[case]["tendons"]:
        assert active > 10, f"{case}: the tendon limit was active at only {active} steps"
    err_q = np.abs(ours_q - ref_q).max()
    err_len = np.abs(ours_len - ref_len).max()
    _record(f"{case}/trajectory q", err_q)
    _record(f"{case}/trajectory ten_length", err_len)
    assert err_q < 1e-4 and err_len < 1e-4, (case, err_q, err_len)


def test_tendons_replicate_into_worlds():
    """Three worlds of the spatial case step exactly as one world does (the tendons, their sites and
    actuator replicated with tendon_world_start)."""
    m = mujoco.MjModel.from_xml_string(_xml("spatial"))
    sub, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=-9.81)
    scene.replicate(sub, 3)  # on top of one another: the worlds' float32 poses are the one world's
    model = scene.finalize("cpu")
    assert model.tendon_count == 3 and model.tendon_world_start.numpy().tolist() == [0, 1, 2, 3, 3]
    assert model.tendon_wrap_site.numpy().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    acts = Actuators(
        np.full(3, -1, np.int32), np.repeat(act.gear, 3), np.tile(act.ctrl_range, (3, 1)), tendon=[0, 1, 2]
    )
    many = SolverGeneralized(model, actuators=acts)
    one_model, one_act, _ = model_from_xml(m)
    one = SolverGeneralized(one_model, actuators=one_act)
    ctrl = _ctrl(m, 200, 0.002)
    final_many = run(model, many, 200, 0.002, ctrl=np.repeat(ctrl, 3, axis=1))[0].joint_q.numpy().reshape(3, -1)
    final_one = run(one_model, one, 200, 0.002, ctrl=ctrl)[0].joint_q.numpy()
    for w in range(3):
        np.testing.assert_array_equal(final_many[w], final_one)


@pytest.mark.parametrize("case", ["friction", "limit", "stiff_damping", "two_trees"])
def test_tendon_lanes_and_threads(case, monkeypatch):
    """Two worlds of a case: 32 lanes per world (CPU blocks, the GPU-shaped path: tendons strided over lanes,
    implicit rows by the lanes that copied them) follow one lane to float rounding (tendon actuators add their
    forces atomically, in lane order), and two CPU threads (one world each) equal one thread bit for bit."""
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    m = mujoco.MjModel.from_xml_string(_xml(case))
    sub, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=-9.81)
    scene.replicate(sub, 2)
    model = scene.finalize("cpu")
    tendons = None if act.tendon is None else np.concatenate([act.tendon, act.tendon + m.ntendon])
    dofs = np.where(act.dof >= 0, act.dof, -1)
    acts = Actuators(
        np.concatenate([dofs, np.where(dofs >= 0, dofs + m.nv, -1)]).astype(np.int32),
        np.tile(act.gear, 2),
        np.tile(act.ctrl_range, (2, 1)),
        np.tile(act.force_range, (2, 1)),
        np.tile(act.gain, 2),
        np.tile(act.bias, (2, 1)),
        tendons,
    )
    dt = float(m.opt.timestep)
    ctrl = np.tile(_ctrl(m, 100, dt), (1, 2)) if m.nu else None
    finals = {}
    for name, options in (("one", dict(block_dim=1)), ("lanes", dict(block_dim=32)), ("threads", dict(threads=2))):
        solver = SolverGeneralized(model, actuators=acts, **options)
        assert solver.threads == (2 if name == "threads" else 1)
        finals[name] = run(model, solver, 100, dt, ctrl=ctrl)[0].joint_q.numpy().copy()
    assert np.isfinite(finals["one"]).all()
    np.testing.assert_allclose(finals["lanes"], finals["one"], rtol=0.0, atol=1e-5)
    np.testing.assert_array_equal(finals["threads"], finals["one"])


def test_wrapping_tendons_are_refused():
    xml = _ARM.format(
        tendons='<spatial name="wrapped"><site site="anchor"/><geom geom="ball"/><site site="s2"/></spatial>',
        actuators="",
        extra='<body pos="0.3 0 1.2"><geom name="ball" type="sphere" size="0.05" contype="0" conaffinity="0"/></body>',
        dt=0.002,
    )
    with pytest.raises(ImportFailedError, match="tendon wrapped: wrapping objects"):
        builder_from_mujoco(mujoco.MjModel.from_xml_string(xml))


def test_bad_tendons_are_refused_by_name():
    b = ng.ModelBuilder()
    link = b.add_link(mass=1.0, inertia=np.eye(3) * 0.01)
    hinge = b.add_joint_revolute(-1, link, axis=(0.0, 1.0, 0.0))
    ball_link = b.add_link(mass=1.0, inertia=np.eye(3) * 0.01)
    ball = b.add_joint_ball(link, ball_link)
    site = b.add_site(link)
    for call, match in (
        (lambda: b.add_tendon_fixed([hinge, 7], [1.0, 1.0], key="t1"), "tendon t1: joint 7 does not exist"),
        (lambda: b.add_tendon_fixed([ball], [1.0], key="t2"), "tendon t2: joint .* BALL joint"),
        (lambda: b.add_tendon_fixed([hinge], [1.0, 2.0], key="t3"), "tendon t3: 1 joints but 2 coefficients"),
        (lambda: b.add_tendon_spatial([site], key="t4"), "tendon t4: a spatial tendon needs at least two sites"),
        (lambda: b.add_tendon_fixed([hinge], [1.0], key="t5", damping=-1.0), "tendon t5: damping"),
        (lambda: b.add_tendon_fixed([hinge], [1.0], key="t6", limited=True, range=(1, 0)), "tendon t6: range"),
        (lambda: b.add_tendon_fixed([hinge], [1.0], key="t7", springlength=(0.5, 0.2)), "tendon t7: springlength"),
        (lambda: b.add_tendon_fixed([hinge], [1.0], key="t8", stiffnes=1.0), "tendon t8: unknown attribute"),
    ):
        with pytest.raises(ModelBuildError, match=match):
            call()
    b.begin_world()
    with pytest.raises(ModelBuildError, match="tendon t9: joint 0 belongs to world -1"):
        b.add_tendon_fixed([hinge], [1.0], key="t9")
    b.end_world()
    b.add_articulation([hinge, ball])
    other = b.add_site(ball_link)
    b.add_tendon_spatial([site, other], key="t10", armature=0.1)
    with pytest.raises(ModelBuildError, match="tendon t10: armature on a spatial tendon is not supported"):
        SolverGeneralized(b.finalize("cpu"))


def test_print_worst_errors():
    """Prints the worst errors of the checks above (``pytest -s``); runs last."""
    for name, err in sorted(_WORST.items()):
        print(f"{name}: {err:.3g}")
