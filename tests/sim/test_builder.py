"""ModelBuilder: shapes, mass accumulation (checked against MuJoCo's compiler), joints, validation errors."""

import numpy as np
import pytest
import warp as wp

import newton_gym as ng
from newton_gym.errors import ModelBuildError
from newton_gym.sim.hostmath import quat_from_axis_angle, quat_to_matrix


def test_shape_mass_matches_mujoco_compiler():
    mujoco = pytest.importorskip("mujoco")
    xml = """<mujoco><worldbody><body name="b"><freejoint/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" density="500"/>
      <geom type="capsule" size="0.05 0.2" pos="0 0.3 0" euler="90 0 0" density="800"/>
      <geom type="cylinder" size="0.07 0.15" pos="0 0 -0.3" euler="0 30 0" density="1200"/>
      <geom type="sphere" size="0.12" pos="-0.2 0.1 0.1" density="300"/>
    </body></worldbody></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(xml)
    b = ng.ModelBuilder()
    body = b.add_body()
    rx = quat_from_axis_angle([1, 0, 0], np.pi / 2)
    ry = quat_from_axis_angle([0, 1, 0], np.pi / 6)
    b.add_shape_box(body, (0.1, 0, 0, 0, 0, 0, 1), 0.1, 0.2, 0.3, cfg=ng.ModelBuilder.ShapeConfig(density=500))
    b.add_shape_capsule(body, (0, 0.3, 0, *rx), 0.05, 0.2, cfg=ng.ModelBuilder.ShapeConfig(density=800))
    b.add_shape_cylinder(body, (0, 0, -0.3, *ry), 0.07, 0.15, cfg=ng.ModelBuilder.ShapeConfig(density=1200))
    b.add_shape_sphere(body, (-0.2, 0.1, 0.1, 0, 0, 0, 1), 0.12, cfg=ng.ModelBuilder.ShapeConfig(density=300))
    m = b.finalize()
    np.testing.assert_allclose(m.body_mass.numpy()[0], mm.body_mass[1], rtol=1e-6)
    np.testing.assert_allclose(m.body_com.numpy()[0], mm.body_ipos[1], atol=1e-6)
    iquat = mm.body_iquat[1]  # w, x, y, z
    rot = quat_to_matrix(np.array([iquat[1], iquat[2], iquat[3], iquat[0]]))
    expected = rot @ np.diag(mm.body_inertia[1]) @ rot.T
    np.testing.assert_allclose(m.body_inertia.numpy()[0], expected, rtol=1e-4, atol=1e-7)


def test_cone_com_and_mesh_inertia_closed_form():
    b = ng.ModelBuilder()
    body = b.add_body()
    b.add_shape_cone(body, radius=0.2, half_height=0.5, cfg=ng.ModelBuilder.ShapeConfig(density=1.0))
    m = b.finalize()
    np.testing.assert_allclose(m.body_com.numpy()[0], [0, 0, -0.25], atol=1e-7)
    np.testing.assert_allclose(m.body_mass.numpy()[0], np.pi * 0.04 * 1.0 / 3.0, rtol=1e-6)
    # A unit cube mesh must give the box's mass properties.
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    faces = [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4],
        [1, 5, 7],
        [1, 7, 3],
    ]
    b = ng.ModelBuilder()
    body = b.add_body()
    b.add_shape_mesh(body, (0.3, 0, 0, 0, 0, 0, 1), ng.Mesh(v, faces), scale=(2.0, 1.0, 1.0))
    m = b.finalize()
    np.testing.assert_allclose(m.body_mass.numpy()[0], 2000.0, rtol=1e-6)
    np.testing.assert_allclose(m.body_com.numpy()[0], [0.3, 0, 0], atol=1e-6)
    np.testing.assert_allclose(np.diag(m.body_inertia.numpy()[0]), 2000.0 / 12 * np.array([2, 5, 5]), rtol=1e-5)


def test_explicit_mass_wins_and_scales_shape_inertia():
    b = ng.ModelBuilder()
    body = b.add_body(mass=3.0)
    b.add_shape_sphere(body, radius=0.5)
    m = b.finalize()
    assert m.body_mass.numpy()[0] == pytest.approx(3.0)
    np.testing.assert_allclose(np.diag(m.body_inertia.numpy()[0]), [0.4 * 3.0 * 0.25] * 3, rtol=1e-6)
    assert m.body_inv_mass.numpy()[0] == pytest.approx(1 / 3)


def test_shapes_follow_seed002_conventions():
    b = ng.ModelBuilder()
    body = b.add_body()
    s = b.add_shape_box(body, hx=1, hy=2, hz=3)
    c = b.add_shape_capsule(body, radius=0.1, half_height=0.4)
    g = b.add_ground_plane(height=0.5)
    m = b.finalize()
    np.testing.assert_allclose(m.shape_scale.numpy()[s], [1, 2, 3])
    np.testing.assert_allclose(m.shape_scale.numpy()[c], [0.1, 0.4, 0])
    assert m.shape_type.numpy()[g] == int(ng.GeoType.PLANE)
    np.testing.assert_allclose(m.shape_transform.numpy()[g], [0, 0, 0.5, 0, 0, 0, 1], atol=1e-7)
    b = ng.ModelBuilder(up_axis="Y")
    g = b.add_ground_plane()
    normal = quat_to_matrix(b.tables["shape"].get("xform")[g, 3:]) @ [0, 0, 1]
    np.testing.assert_allclose(normal, [0, 1, 0], atol=1e-12)
    assert b.gravity_vector == (0.0, -9.81, 0.0)


def test_joint_fields_and_articulations():
    b = ng.ModelBuilder()
    a = b.add_link(mass=1, inertia=np.eye(3) * 0.1)
    c = b.add_link(mass=1, inertia=np.eye(3) * 0.1)
    j0 = b.add_joint_revolute(
        -1,
        a,
        axis=(0, 0, 1),
        limit_lower=-1,
        limit_upper=1,
        target_ke=100,
        target_kd=5,
        armature=0.01,
        effort_limit=20,
        velocity_limit=3,
        friction=2.0,
        friction_dynamic=1.5,
        viscous_damping=0.1,
    )
    j1 = b.add_joint_prismatic(a, c, axis="Y")
    b.add_articulation([j0, j1], key="arm")
    m = b.finalize()
    np.testing.assert_allclose(m.joint_axis.numpy(), [[0, 0, 1], [0, 1, 0]])
    assert m.joint_friction.numpy()[0] == 2.0 and m.joint_friction_dynamic.numpy()[0] == 1.5
    assert m.joint_effort_limit.numpy()[0] == 20 and m.joint_armature.numpy()[0] == pytest.approx(0.01)
    assert m.articulation_start.numpy().tolist() == [0, 2]
    assert m.joint_articulation.numpy().tolist() == [0, 0]
    # parent-child shapes are filtered from collision
    assert m.shape_collision_filter_pairs == set()


def test_orphan_joints_get_articulations():
    b = ng.ModelBuilder()
    a = b.add_link(mass=1)
    c = b.add_link(mass=1)
    d = b.add_link(mass=1)
    b.add_joint_revolute(-1, a)
    b.add_joint_revolute(a, c)
    b.add_joint_revolute(-1, d)
    m = b.finalize()
    assert m.articulation_start.numpy().tolist() == [0, 2, 3]


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda b: b.add_link(mass=1, inertia=np.diag([1.0, -1.0, 1.0])), "not positive definite"),
        (lambda b: b.add_link(mass=1, inertia=np.diag([1.0, 1.0, 3.0])), "triangle inequality"),
        (lambda b: b.add_link(mass=1, inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "not symmetric"),
        (lambda b: (b.add_link(), b.add_link(), b.add_joint_revolute(1, 0)), "added after its child"),
        (lambda b: (b.begin_world(), b.begin_world()), "cannot be nested"),
        (lambda b: b.end_world(), "without a matching begin_world"),
        (lambda b: b.add_shape_sphere(7), "does not exist"),
        (lambda b: b.add_shape_box(b.add_link(), hx=-1), "must be positive"),
        (lambda b: b.add_joint_revolute(-1, b.add_link(), limit_lower=1, limit_upper=0), "limit_lower"),
    ],
)
def test_invalid_input_names_the_rule(build, message):
    b = ng.ModelBuilder()
    with pytest.raises(ModelBuildError, match=message):
        build(b)


def test_cross_world_entities_are_rejected():
    b = ng.ModelBuilder()
    b.begin_world()
    body0 = b.add_link(mass=1, key="w0_body")
    b.end_world()
    b.begin_world()
    with pytest.raises(ModelBuildError, match="belongs to world 0"):
        b.add_shape_sphere(body0, radius=0.1)
    body1 = b.add_link(mass=1)
    with pytest.raises(ModelBuildError, match="spans worlds"):
        b.add_joint_revolute(body0, body1)
    j = b.add_joint_free(body1)
    b.end_world()
    with pytest.raises(ModelBuildError, match="spans worlds"):
        b.add_articulation([j])
    b.begin_world()
    with pytest.raises(ModelBuildError, match="is open"):
        b.finalize()


def test_articulation_spanning_two_worlds():
    b = ng.ModelBuilder()
    b.begin_world()
    j0 = b.add_joint_free(b.add_link(mass=1))
    b.end_world()
    b.begin_world()
    j1 = b.add_joint_free(b.add_link(mass=1))
    with pytest.raises(ModelBuildError, match=r"spans worlds \[0, 1\]"):
        b.add_articulation([j0, j1])


def test_global_entity_between_worlds_is_an_error():
    b = ng.ModelBuilder()
    b.begin_world()
    b.add_body(mass=1)
    b.end_world()
    b.add_body(mass=1, key="stray")
    b.begin_world()
    b.add_body(mass=1)
    b.end_world()
    with pytest.raises(ModelBuildError, match="breaks world order"):
        b.finalize()


def test_custom_attributes_reach_model_state_control():
    b = ng.ModelBuilder()
    b.add_custom_attribute("mass_scale", wp.float32, assignment="model", frequency="body", default=1.0)
    b.add_custom_attribute("marker", wp.vec3, assignment="state", frequency="body", namespace="ns")
    b.add_custom_attribute("gains", wp.vec2, assignment="control", frequency="joint_dof", namespace="pid")
    b.add_custom_attribute("stiff", wp.float32, assignment="model", frequency="articulation")
    body = b.add_body(mass=1, custom_attributes={"mass_scale": 2.5, "ns:marker": (1, 2, 3)})
    b.add_body(mass=1)
    b.set_custom_attribute("pid:gains", 2, (10.0, 1.0))
    b.set_custom_attribute("stiff", 1, 7.0)
    scene = ng.ModelBuilder()
    scene.replicate(b, 2)
    m = scene.finalize()
    np.testing.assert_allclose(m.mass_scale.numpy(), [2.5, 1, 2.5, 1])
    s, c = m.state(), m.control()
    np.testing.assert_allclose(s.ns.marker.numpy()[[0, 2]], [[1, 2, 3], [1, 2, 3]])
    assert c.pid.gains.numpy().shape == (24, 2)
    np.testing.assert_allclose(c.pid.gains.numpy()[[2, 14]], [[10, 1], [10, 1]])
    np.testing.assert_allclose(m.stiff.numpy(), [0, 7, 0, 7])
    assert m.get_attribute_frequency("pid:gains") == "joint_dof"
    assert body == 0
    with pytest.raises(ModelBuildError, match="not declared"):
        b.add_body(custom_attributes={"nope": 1})
    with pytest.raises(ModelBuildError, match="frequency"):
        b.add_custom_attribute("bad", wp.float32, frequency="galaxy")


def test_gravity_survives_composition():
    robot = ng.ModelBuilder()
    robot.add_body(mass=1.0)
    scene = ng.ModelBuilder()
    scene.begin_world(gravity=(0.0, 0.0, -1.62))
    scene.add_builder(robot)
    scene.end_world()
    scene.add_world(robot, gravity=(0.0, 0.0, -3.7))
    scene.add_world(robot)
    lunar = ng.ModelBuilder(gravity=-1.62)
    lunar.add_body(mass=1.0)
    scene.replicate(lunar, 2)
    multi = ng.ModelBuilder()
    multi.begin_world(gravity=(1.0, 0.0, 0.0))
    multi.add_body(mass=1.0)
    multi.end_world()
    scene.add_builder(multi)  # global scope: its worlds become new worlds with their gravity
    m = scene.finalize()
    np.testing.assert_allclose(
        m.gravity.numpy(),
        [[0, 0, -1.62], [0, 0, -3.7], [0, 0, -9.81], [0, 0, -1.62], [0, 0, -1.62], [1, 0, 0]],
        rtol=1e-6,
    )
    assert m.body_world.numpy().tolist() == [0, 1, 2, 3, 4, 5]
    ptr = m.gravity.ptr
    m.set_gravity([[0, 0, -1]] * 6)
    m.set_gravity((0, 0, -2), world=5)
    assert m.gravity.ptr == ptr and m.gravity.numpy()[5, 2] == -2.0
    with pytest.raises(ModelBuildError, match="out of range"):
        m.set_gravity((0, 0, 0), world=6)
    with pytest.raises(ModelBuildError, match="shape"):
        m.set_gravity([0, 0])


def test_replicate_copy_count_alias_and_heterogeneous_worlds():
    arm = ng.ModelBuilder()
    a = arm.add_link(mass=1, xform=(0, 0, 1, 0, 0, 0, 1))
    arm.add_shape_sphere(a, radius=0.1)
    arm.add_articulation([arm.add_joint_revolute(-1, a, parent_xform=(0, 0, 1, 0, 0, 0, 1))])
    ball = ng.ModelBuilder()
    ball.add_shape_sphere(ball.add_body(mass=1, xform=(0, 0, 2, 0, 0, 0, 1)), radius=0.2)
    ball.add_shape_box(ball.add_body(mass=1), hx=0.1, hy=0.1, hz=0.1)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(arm, copy_count=3, spacing=(0, 2.0, 0))
    scene.add_world(ball, xform=(5, 0, 0, 0, 0, 0, 1))
    m = scene.finalize()
    assert m.world_count == 4
    assert m.body_world_start.numpy().tolist() == [0, 1, 2, 3, 5, 5]
    assert m.shape_world_start.numpy().tolist() == [1, 2, 3, 4, 6, 6]
    assert m.joint_dof_world_start.numpy().tolist() == [0, 1, 2, 3, 15, 15]
    assert m.joint_coord_world_start.numpy().tolist() == [0, 1, 2, 3, 17, 17]
    assert m.joint_constraint_world_start.numpy().tolist() == [0, 5, 10, 15, 15, 15]
    np.testing.assert_allclose(m.body_q.numpy()[:3, 1], [-2, 0, 2])
    np.testing.assert_allclose(m.joint_X_p.numpy()[:3, :3], [[0, -2, 1], [0, 0, 1], [0, 2, 1]])
    np.testing.assert_allclose(m.joint_q.numpy()[3:6], [5, 0, 2])  # free joint coords follow the xform
    np.testing.assert_allclose(m.body_q.numpy()[3, :3], [5, 0, 2])


def test_snapshot_restore_undoes_everything():
    b = ng.ModelBuilder()
    b.add_body(mass=1)
    snap = b.snapshot()
    b.begin_world()
    b.add_shape_sphere(b.add_body(mass=2), radius=1)
    b.add_custom_attribute("x", wp.float32)
    b.restore(snap)
    assert (b.body_count, b.shape_count, b.joint_count, b.world_count, b.current_world) == (1, 0, 1, 0, -1)
    assert "x" not in b.custom_attributes
    m = b.finalize()
    assert m.body_count == 1


def test_add_body_then_joint_extends_the_body_articulation():
    robot = ng.ModelBuilder()
    base = robot.add_body(mass=1.0)
    leg = robot.add_link(mass=1.0)
    robot.add_joint_revolute(base, leg)
    scene = ng.ModelBuilder()
    scene.replicate(robot, 3)
    m = scene.finalize()
    assert m.articulation_start.numpy().tolist() == [0, 2, 4, 6]
    assert m.articulation_world.numpy().tolist() == [0, 1, 2]


def test_particles_and_equality_constraints_are_world_grouped():
    robot = ng.ModelBuilder()
    a = robot.add_body(mass=1, xform=(0, 0, 1, 0, 0, 0, 1))
    c = robot.add_body(mass=1, xform=(0, 0.5, 1, 0, 0, 0, 1))
    robot.add_equality_constraint_connect(a, c, anchor=(0, 0.25, 0))
    weld = robot.add_equality_constraint_weld(a, c)
    robot.add_equality_constraint_joint(0, 1, polycoef=(0, 2, 0, 0, 0))
    robot.add_particle((1, 0, 0), mass=0.5)
    scene = ng.ModelBuilder()
    scene.add_particle((0, 0, 5))  # global
    scene.replicate(robot, 2, spacing=(4, 0, 0))
    m = scene.finalize()
    assert m.equality_constraint_world.numpy().tolist() == [0, 0, 0, 1, 1, 1]
    assert m.equality_constraint_world_start.numpy().tolist() == [0, 3, 6, 6]
    assert m.equality_constraint_body1.numpy().tolist() == [0, 0, -1, 2, 2, -1]
    assert m.equality_constraint_joint2.numpy().tolist() == [-1, -1, 1, -1, -1, 3]
    np.testing.assert_allclose(m.equality_constraint_relpose.numpy()[weld], [0, 0.5, 0, 0, 0, 0, 1], atol=1e-7)
    assert m.particle_world.numpy().tolist() == [-1, 0, 1]
    np.testing.assert_allclose(m.particle_q.numpy()[1:, 0], [-1, 3])
    with pytest.raises(ModelBuildError, match="body2 9 does not exist"):
        robot.add_equality_constraint_connect(a, 9)


def test_parent_child_and_explicit_filter_pairs_replicate():
    robot = ng.ModelBuilder()
    a = robot.add_body(mass=1)
    c = robot.add_link(mass=1)
    robot.add_joint_revolute(a, c)
    d = robot.add_link(mass=1)
    robot.add_joint_revolute(c, d, collision_filter_parent=False)
    sa = [robot.add_shape_sphere(a, radius=0.1), robot.add_shape_sphere(a, radius=0.1)]
    sc = [robot.add_shape_box(c, hx=0.1, hy=0.1, hz=0.1), robot.add_shape_box(c, hx=0.1, hy=0.1, hz=0.1)]
    sd = robot.add_shape_sphere(d, radius=0.1)
    robot.add_shape_collision_filter_pair(sd, sa[0])
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, 2)
    m = scene.finalize()
    one = {(x + 1, y + 1) for x in sa for y in sc} | {(sa[0] + 1, sd + 1)}
    assert set(m.shape_collision_filter_pairs) == one | {(x + 5, y + 5) for x, y in one}
    assert m.shape_collision_filter_pair_array.shape == (10,)
    with pytest.raises(ModelBuildError, match="out of range"):
        robot.add_shape_collision_filter_pair(0, 99)
