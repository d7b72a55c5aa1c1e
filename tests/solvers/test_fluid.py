"""Fluid forces (MuJoCo's inertia-box model, :mod:`newton_gym.solvers.smooth.fluid`) against MuJoCo C.

1. Forces: one free body (a rotated box, an offset rotated ellipsoid, a box with an offset sphere) at a
   random pose and velocity in a medium with density, viscosity and wind: our generalized fluid force equals
   MuJoCo's qfrc_fluid and qfrc_passive (no other passive force), mapped to our coordinates, to float32
   tolerance; density and viscosity alone as well.
2. Dynamics with MuJoCo's implicitfast integrator: one step of a fast two-body tumbler (free root, hinged
   flap) in a dense medium, whose new velocity depends on the implicit fluid term (MuJoCo's explicit Euler
   step lands far away, ours must land on implicitfast's), and 0.5 s of it falling and tumbling through the
   medium in a wind (positions within 0.1 mm, where MuJoCo without the fluid is decimetres away).
3. dm_control's fish through the MJCF -> USD -> import path: ``check_robot`` within 5 mm at 0.5 s and 20 mm
   at 1 s (the converter writes the medium; it also writes ``<flag gravity="disable">``, without which the
   fish sinks), and 1 s of swimming under sinusoidal controls within 0.05 mm of MuJoCo, where MuJoCo without
   the medium is centimetres away.

Builder models (1, 2) are built from the compiled MjModel by ``mujoco_builder`` with the medium set as
``ModelBuilder`` attributes; the free root's coordinates differ from MuJoCo's (see
test_mujoco_oracle_mjcf.py): qvel_mj = T qd and f_ours = T^T f_mj with T = [[I, [c]x], [0, R^T]].
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from mujoco_builder import builder_from_mujoco, mujoco_qpos_to_joint_q  # noqa: E402

from newton_gym.sim import eval_fk  # noqa: E402
from newton_gym.solvers import Option, SolverGeneralized  # noqa: E402

BODIES = {
    "box": '<geom type="box" size=".1 .05 .02" euler="10 20 30" mass="1"/>',
    "ellipsoid": '<geom type="ellipsoid" size=".03 .08 .05" pos=".02 -.01 .03" euler="-30 15 60" mass=".7"/>',
    "compound": '<geom type="box" size=".06 .04 .03" mass="1"/>'
    '<geom type="sphere" size=".03" pos=".08 .02 0" mass=".4"/>',
}
FREE_XML = """<mujoco><option timestep="0.002" integrator="implicitfast" density="{rho}" viscosity="{mu}"
 wind="{wind}" gravity="0 0 -9.81"/>
<worldbody><body name="b" pos="0 0 1"><freejoint/>{geoms}</body></worldbody></mujoco>"""
# A free box with a flap on a hinge (not a standalone free body: MuJoCo's implicitfast then factors
# M - h qDeriv for the whole tree, as ours does).
TUMBLER_XML = """<mujoco><option timestep="0.002" integrator="implicitfast" density="{rho}" viscosity="{mu}"
 wind="{wind}" gravity="0 0 -9.81"/>
<worldbody><body name="hull" pos="0 0 2"><freejoint/>
 <geom type="box" size=".12 .06 .02" euler="5 10 15" mass="1"/>
 <body name="flap" pos=".12 0 0"><joint name="hinge" type="hinge" axis="0 1 0" damping="0.002"/>
  <geom type="ellipsoid" size=".08 .05 .005" pos=".08 0 0" mass=".2"/></body>
</body></worldbody></mujoco>"""
MEDIUM = {"all": (1000.0, 0.5, "0.5 -1 0.3"), "density": (1200.0, 0.0, "0 0 0"), "viscosity": (0.0, 2.0, "1 0 0")}
FISH = os.path.expanduser("~/.cache/newton_gym/model_zoo/dm_control-1.0.28/dm_control/suite/fish.xml")
_WORST: dict = {}


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _f32(x):
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _ours(m, device="cpu"):
    """(model, solver) of MjModel m with its fluid medium set on the builder (no USD)."""
    builder, _, _ = builder_from_mujoco(m)
    builder.fluid_density = float(m.opt.density)
    builder.fluid_viscosity = float(m.opt.viscosity)
    builder.wind = tuple(float(w) for w in m.opt.wind)
    model = builder.finalize(device)
    return model, SolverGeneralized(model, Option(integrator="implicitfast"))


def _start(m, model, seed, speed=(1.0, 5.0)):
    """A random pose and velocity, the same on both sides (ours rounded to float32 first): (MjData after
    mj_forward, our State, T of the free root)."""
    rng = np.random.default_rng(seed)
    qpos = m.qpos0.copy()
    quat = rng.normal(size=4)
    qpos[3:7] = quat / np.linalg.norm(quat)
    joint_q = mujoco_qpos_to_joint_q(m, qpos)
    joint_q[3:7] /= np.linalg.norm(joint_q[3:7])
    qd = np.concatenate([rng.normal(scale=speed[0], size=3), rng.normal(scale=speed[1], size=m.nv - 3)])
    qd = qd.astype(np.float32)
    d = mujoco.MjData(m)
    d.qpos[:] = _f32(joint_q)
    d.qpos[3:7] = np.roll(d.qpos[3:7], 1)  # x, y, z, w -> w, x, y, z
    mujoco.mj_kinematics(m, d)
    T = _root_map(m, d)
    d.qvel[:] = T @ _f32(qd)
    mujoco.mj_forward(m, d)
    state = model.state()
    state.joint_q.assign(joint_q)
    state.joint_qd.assign(qd)
    return d, state, T


def _root_map(m, d):
    T = np.eye(m.nv)
    T[0:3, 3:6] = _skew(d.xipos[1] - d.xpos[1])
    T[3:6, 3:6] = d.xmat[1].reshape(3, 3).T
    return T


@pytest.mark.parametrize("medium", list(MEDIUM))
@pytest.mark.parametrize("body", list(BODIES))
def test_fluid_force_matches_mujoco(body, medium):
    rho, mu, wind = MEDIUM[medium]
    m = mujoco.MjModel.from_xml_string(FREE_XML.format(rho=rho, mu=mu, wind=wind, geoms=BODIES[body]))
    model, solver = _ours(m)
    for seed in range(3):
        d, state, T = _start(m, model, seed)
        solver.step(state, model.state(), None, float(m.opt.timestep))  # the forces of its start state
        ours = solver.fluid.qfrc_fluid.numpy()[: m.nv].astype(np.float64)
        ref = T.T @ d.qfrc_fluid
        assert np.abs(ref).max() > 0.1, "the case exerts a noticeable fluid force"
        np.testing.assert_allclose(T.T @ d.qfrc_passive, ref, rtol=0, atol=1e-12)  # no other passive force
        scale = np.abs(ref).max()
        err = np.abs(ours - ref).max() / scale
        _WORST[f"force {body} {medium}"] = max(err, _WORST.get(f"force {body} {medium}", 0.0))
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-5 * scale, err_msg=f"{body} {medium} seed {seed}")


def test_fluid_changes_only_fluid_models():
    """Without a medium no fluid pass runs (the solver never binds it); with one, density alone moves the
    force while wind alone (no density, no viscosity) exerts none, as in MuJoCo."""
    m = mujoco.MjModel.from_xml_string(FREE_XML.format(rho=0, mu=0, wind="3 0 0", geoms=BODIES["box"]))
    model, solver = _ours(m)
    assert not solver.fluid.active()
    state = model.state()
    solver.step(state, model.state(), None, 0.002)
    assert solver.fluid.qfrc_fluid is None
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert not d.qfrc_passive.any()


def _step_velocity(m, integrator, qpos, qvel):
    m.opt.integrator = integrator
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = qpos, qvel
    mujoco.mj_step(m, d)
    mujoco.mj_kinematics(m, d)
    return np.linalg.solve(_root_map(m, d), d.qvel)  # in our coordinates


def test_implicit_fluid_step_matches_implicitfast():
    """One step in a dense medium at high speed: h times the drag's velocity derivative is comparable to the
    mass, so the explicit and the implicit step differ by much; ours lands on MuJoCo's implicitfast."""
    rho, mu, wind = 20000.0, 5.0, "1 -2 0.5"
    m = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=rho, mu=mu, wind=wind))
    m.opt.timestep = 0.01
    model, solver = _ours(m)
    for seed in range(3):
        d, state, _ = _start(m, model, seed, speed=(3.0, 10.0))
        qpos, qvel = d.qpos.copy(), d.qvel.copy()
        implicit = _step_velocity(m, mujoco.mjtIntegrator.mjINT_IMPLICITFAST, qpos, qvel)
        explicit = _step_velocity(m, mujoco.mjtIntegrator.mjINT_EULER, qpos, qvel)
        out = model.state()
        solver.step(state, out, None, float(m.opt.timestep))
        ours = out.joint_qd.numpy().astype(np.float64)
        gap = np.abs(implicit - explicit).max()
        err = np.abs(ours - implicit).max()
        _WORST["one step qd (explicit gap)"] = max(_WORST.get("one step qd (explicit gap)", 0.0), err / gap)
        assert gap > 0.5, f"the implicit term matters in this case (gap {gap})"
        assert err < 1e-3 * gap, f"seed {seed}: |qd - implicitfast| = {err:.3g}, implicitfast - euler {gap:.3g}"


def _positions(m, d):
    mujoco.mj_kinematics(m, d)
    return d.xpos[1:].copy()


def test_tumbler_falls_like_mujoco():
    """0.5 s of the tumbler falling through a medium with wind, from a fast random start, at MuJoCo's
    implicitfast and dt: every body within 0.1 mm of MuJoCo (MuJoCo without the medium: decimetres away)."""
    rho, mu, wind = 1000.0, 0.3, "0.5 -1 0.3"
    m = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=rho, mu=mu, wind=wind))
    model, solver = _ours(m)
    d, state, _ = _start(m, model, 7, speed=(1.0, 6.0))
    m_dry = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=0, mu=0, wind="0 0 0"))
    dry = mujoco.MjData(m_dry)
    dry.qpos[:], dry.qvel[:] = d.qpos, d.qvel
    out = model.state()
    dt = float(m.opt.timestep)
    for _ in range(250):
        solver.step(state, out, None, dt)
        state, out = out, state
        mujoco.mj_step(m, d)
        mujoco.mj_step(m_dry, dry)
    eval_fk(model, state.joint_q, state.joint_qd, state)
    ours = state.body_q.numpy()[[0, 1], :3].astype(np.float64)
    ref, ref_dry = _positions(m, d), _positions(m_dry, dry)
    err = 1e3 * np.linalg.norm(ours - ref, axis=1).max()
    dry_mm = 1e3 * np.linalg.norm(ref_dry - ref, axis=1).max()
    _WORST["tumbler 0.5 s [mm]"] = err
    assert dry_mm > 100.0, f"the medium matters ({dry_mm:.3g} mm without it)"
    assert err < 0.1, f"bodies {err:.3g} mm from MuJoCo after 0.5 s"


def test_builder_medium_is_checked_and_carried():
    """The medium is a ModelBuilder attribute (no USD needed): checked at finalize, carried by replicate
    into a builder without one, kept (with a warning) against a builder with another one, undone by restore."""
    import newton_gym as ng
    from newton_gym.errors import ModelBuildError

    m = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=800, mu=0.1, wind="1 0 0"))
    robot, _, _ = builder_from_mujoco(m)
    robot.fluid_density, robot.fluid_viscosity, robot.wind = 800.0, 0.1, (1.0, 0.0, 0.0)
    scene = ng.ModelBuilder()
    snap = scene.snapshot()
    scene.replicate(robot, 2)
    assert (scene.fluid_density, scene.fluid_viscosity, scene.wind) == (800.0, 0.1, (1.0, 0.0, 0.0))
    model = scene.finalize("cpu")
    assert (model.fluid_density, model.fluid_viscosity, model.wind) == (800.0, 0.1, (1.0, 0.0, 0.0))
    scene.restore(snap)
    assert (scene.fluid_density, scene.fluid_viscosity, scene.wind) == (0.0, 0.0, (0.0, 0.0, 0.0))
    other = ng.ModelBuilder()
    other.fluid_density = 1000.0
    with pytest.warns(UserWarning, match="fluid medium"):
        other.add_world(robot)
    assert other.fluid_density == 1000.0 and other.fluid_viscosity == 0.0
    for name, value in (("fluid_density", -1.0), ("fluid_viscosity", float("nan")), ("wind", (1.0, 2.0))):
        bad = ng.ModelBuilder()
        setattr(bad, name, value)
        with pytest.raises(ModelBuildError, match=name):
            bad.finalize("cpu")


def test_worlds_step_like_one_world():
    """Two replicated worlds from different starts: each is bitwise the one-world run from its start (the
    fluid pass works on each world's own bodies and DOFs)."""
    import newton_gym as ng

    m = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=1000, mu=0.3, wind="0.5 -1 0.3"))
    single, solver1 = _ours(m)
    robot, _, _ = builder_from_mujoco(m)
    robot.fluid_density, robot.fluid_viscosity, robot.wind = 1000.0, 0.3, (0.5, -1.0, 0.3)
    scene = ng.ModelBuilder(gravity=-9.81)
    scene.replicate(robot, 2)
    model = scene.finalize("cpu")
    solver = SolverGeneralized(model, Option(integrator="implicitfast"))
    starts = [_start(m, single, seed, speed=(1.0, 6.0))[1] for seed in (3, 4)]
    state, out = model.state(), model.state()
    state.joint_q.assign(np.concatenate([s.joint_q.numpy() for s in starts]))
    state.joint_qd.assign(np.concatenate([s.joint_qd.numpy() for s in starts]))
    for _ in range(20):
        solver.step(state, out, None, 0.002)
        state, out = out, state
    nq, nv = single.joint_coord_count, single.joint_dof_count
    for w, s in enumerate(starts):
        o = single.state()
        for _ in range(20):
            solver1.step(s, o, None, 0.002)
            s, o = o, s
        assert np.array_equal(state.joint_q.numpy()[w * nq : (w + 1) * nq], s.joint_q.numpy())
        assert np.array_equal(state.joint_qd.numpy()[w * nv : (w + 1) * nv], s.joint_qd.numpy())


def test_lanes_and_threads_step_like_one_lane(monkeypatch):
    """Worlds of a tumbler and a free box (two trees each) stepped with 1 lane, 2 lanes (one tree per lane),
    32 lanes (every lane on each tree; CPU blocks, the GPU-shaped path) and 2 CPU threads: all equal."""
    import warp as wp

    import newton_gym as ng

    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    tumbler = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=1000, mu=0.3, wind="0.5 -1 0.3"))
    box = mujoco.MjModel.from_xml_string(FREE_XML.format(rho=1000, mu=0.3, wind="0.5 -1 0.3", geoms=BODIES["box"]))
    world = ng.ModelBuilder(gravity=-9.81)
    for k, m in enumerate((tumbler, box)):
        world.add_builder(builder_from_mujoco(m)[0], xform=wp.transform((0.0, 0.5 * k, 0.0), wp.quat_identity()))
    world.fluid_density, world.fluid_viscosity, world.wind = 1000.0, 0.3, (0.5, -1.0, 0.3)
    scene = ng.ModelBuilder(gravity=-9.81)
    scene.replicate(world, 2)
    model = scene.finalize("cpu")
    rng = np.random.default_rng(5)
    qd = rng.normal(scale=3.0, size=model.joint_dof_count).astype(np.float32)
    finals = {}
    for name, options in (
        ("one", {}),
        ("two", dict(block_dim=2)),
        ("lanes", dict(block_dim=32)),
        ("threads", dict(threads=2)),
    ):
        solver = SolverGeneralized(model, Option(integrator="implicitfast", **options))
        state, out = model.state(), model.state()
        state.joint_qd.assign(qd)
        for _ in range(50):
            solver.step(state, out, None, 0.002)
            state, out = out, state
        finals[name] = np.concatenate([state.joint_q.numpy(), state.joint_qd.numpy()])
    assert np.isfinite(finals["one"]).all()
    for name in ("two", "lanes", "threads"):
        np.testing.assert_array_equal(finals[name], finals["one"], err_msg=name)


def test_captured_fluid_steps_match_eager_steps(device):
    """Steps recorded as a graph (the fluid tables are uploaded before the capture) replay the eager steps, and
    a medium set after the solver was built takes effect at the next step."""
    m = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=1000, mu=0.3, wind="0.5 -1 0.3"))
    model, eager = _ours(m, device)
    _, start, _ = _start(m, model, 2, speed=(1.0, 6.0))
    s = model.state()
    s.joint_q.assign(start.joint_q.numpy())
    s.joint_qd.assign(start.joint_qd.numpy())
    for _ in range(10):
        eager.step(s, s, None, 0.002)
    graphed = SolverGeneralized(model, Option(integrator="implicitfast"))
    g = model.state()
    g.joint_q.assign(start.joint_q.numpy())
    g.joint_qd.assign(start.joint_qd.numpy())
    graphed.capture(g, g, None, 0.002, steps=5)
    graphed.replay()
    graphed.replay()
    np.testing.assert_allclose(g.joint_qd.numpy(), s.joint_qd.numpy(), rtol=0, atol=1e-6)
    dry = mujoco.MjModel.from_xml_string(TUMBLER_XML.format(rho=0, mu=0, wind="0 0 0"))
    model, solver = _ours(dry, device)
    assert not solver.fluid.active()
    model.fluid_density, model.fluid_viscosity, model.wind = 1000.0, 0.3, (0.5, -1.0, 0.3)
    w = model.state()
    w.joint_q.assign(start.joint_q.numpy())
    w.joint_qd.assign(start.joint_qd.numpy())
    for _ in range(10):
        solver.step(w, w, None, 0.002)
    np.testing.assert_allclose(w.joint_qd.numpy(), s.joint_qd.numpy(), rtol=0, atol=1e-6)


_STAGE = """#usda 1.0
(
    metersPerUnit = 0.01
    kilogramsPerUnit = 0.5
    upAxis = "Y"
)
def PhysicsScene "scene" {{
{medium}
}}
def Xform "ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    float physics:mass = 2
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
        double radius = 10
    }}
}}
"""


def test_usd_medium_in_stage_units_and_axes(tmp_path):
    """``mjc:option:density`` / ``viscosity`` / ``wind`` of a centimetre, half-kilogram, Y-up stage become SI
    values in the Z-up builder (density kg/m^3 = kilogramsPerUnit / metersPerUnit^3, viscosity Pa s =
    kilogramsPerUnit / metersPerUnit, wind scaled and turned like gravity); a negative density fails."""
    pytest.importorskip("pxr")
    import newton_gym as ng
    from newton_gym.errors import ImportFailedError

    medium = (
        "    uniform double mjc:option:density = 0.002\n"
        "    uniform double mjc:option:viscosity = 0.04\n"
        "    uniform double3 mjc:option:wind = (0, 100, 50)"
    )
    path = tmp_path / "medium.usda"
    path.write_text(_STAGE.format(medium=medium))
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(str(path))
    assert builder.fluid_density == pytest.approx(0.002 * 0.5 / 0.01**3)
    assert builder.fluid_viscosity == pytest.approx(0.04 * 0.5 / 0.01)
    np.testing.assert_allclose(builder.wind, (0.0, -0.5, 1.0), atol=1e-12)  # stage +y is up, stage +z is -y
    bad = tmp_path / "bad.usda"
    bad.write_text(_STAGE.format(medium="    uniform double mjc:option:density = -1"))
    fresh = ng.ModelBuilder()
    with pytest.raises(ImportFailedError, match="mjc:option:density"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh.add_usd(str(bad))
    assert fresh.fluid_density == 0.0 and fresh.body_count == 0


@pytest.fixture(scope="module")
def fish_check():
    if not os.path.isfile(FISH):
        pytest.skip(f"dm_control's fish.xml is not in the model zoo cache ({FISH})")
    pytest.importorskip("pxr")
    from newton_gym.check import check_robot

    return check_robot(FISH)


def test_fish_check_matches_mujoco(fish_check):
    from newton_gym.check import format_report

    assert fish_check.compared, format_report(fish_check)
    assert fish_check.half_mm < 5.0 and fish_check.full_mm < 20.0, format_report(fish_check)
    assert not [w for w in fish_check.warnings if "fluid" in w or "density" in w], fish_check.warnings


def _fish_controls(steps, dt):
    t = np.arange(steps) * dt
    phase = 2.0 * np.pi * 2.0 * t[:, None] + np.array([0.0, 1.0, 2.0, 0.5, 2.5])[None]
    return 0.8 * np.sin(phase)


def test_fish_swims_like_mujoco(tmp_path):
    """1 s of the fish under sinusoidal controls on all five actuators (thrust comes from the tail's drag),
    through the converter and the USD importer, against MuJoCo C: every body within 0.05 mm; MuJoCo without the
    medium ends centimetres away."""
    if not os.path.isfile(FISH):
        pytest.skip(f"dm_control's fish.xml is not in the model zoo cache ({FISH})")
    pytest.importorskip("pxr")
    from newton_gym.check.ours import build, convert, import_robot

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot, imported = import_robot(convert(FISH, "mjcf", str(tmp_path)))
        model, solver, _ = build(robot, imported, 1)
    assert model.fluid_density == 5000.0 and model.fluid_viscosity == 0.0
    m = mujoco.MjModel.from_xml_path(FISH)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m_dry = mujoco.MjModel.from_xml_path(FISH)
    m_dry.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m_dry.opt.density = 0.0
    d, dry = mujoco.MjData(m), mujoco.MjData(m_dry)
    dt = float(m.opt.timestep)
    steps = round(1.0 / dt)
    ctrl = _fish_controls(steps, dt).astype(np.float32)
    state, out = model.state(), model.state()
    eval_fk(model, state.joint_q, state.joint_qd, state)
    for k in range(steps):
        solver.ctrl.assign(ctrl[k])
        solver.step(state, out, None, dt)
        state, out = out, state
        d.ctrl[:] = dry.ctrl[:] = _f32(ctrl[k])
        mujoco.mj_step(m, d)
        mujoco.mj_step(m_dry, dry)
    eval_fk(model, state.joint_q, state.joint_qd, state)
    index = {path.rsplit("/", 1)[-1]: i for path, i in imported["path_body_map"].items()}
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody)]
    ours = state.body_q.numpy()[[index[n] for n in names], :3].astype(np.float64)
    ref, ref_dry = _positions(m, d), _positions(m_dry, dry)
    err = 1e3 * np.linalg.norm(ours - ref, axis=1).max()
    dry_mm = 1e3 * np.linalg.norm(ref_dry - ref, axis=1).max()
    _WORST["fish swim 1 s [mm]"] = err
    assert 1e3 * np.linalg.norm(ref[0] - m.body_pos[1]) > 5.0, "the fish swims off"
    assert dry_mm > 10.0, f"the medium matters ({dry_mm:.3g} mm without it)"
    assert err < 0.05, f"bodies {err:.3g} mm from MuJoCo after 1 s of swimming"


def test_zz_report_worst():
    """Prints the worst errors of the tests above (``pytest -s``)."""
    for key, value in sorted(_WORST.items()):
        print(f"fluid oracle: {key}: {value:.3g}")
