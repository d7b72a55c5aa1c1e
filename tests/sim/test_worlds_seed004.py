"""Seed 004's examples, run as written (newton -> newton_gym), must print exactly what the seed prints."""

import warp as wp

import newton_gym as newton


def _two_world_example():
    builder = newton.ModelBuilder()
    builder.add_ground_plane()
    builder.begin_world()
    b0 = builder.add_body(mass=1.0)
    b1 = builder.add_body(mass=1.0)
    builder.add_shape_sphere(body=b0, radius=0.1)
    builder.add_shape_sphere(body=b1, radius=0.1)
    builder.end_world()
    builder.begin_world()
    link0 = builder.add_link(mass=1.0)
    j0 = builder.add_joint_fixed(parent=-1, child=link0)
    link1 = builder.add_link(mass=2.0)
    j1 = builder.add_joint_revolute(parent=link0, child=link1)
    builder.add_articulation(joints=[j0, j1])
    builder.add_shape_box(body=link0, hx=0.1, hy=0.1, hz=0.1)
    builder.add_shape_box(body=link1, hx=0.1, hy=0.1, hz=0.1)
    builder.end_world()
    builder.add_shape_box(body=-1, hx=0.5, hy=0.5, hz=0.05)
    return builder.finalize()


def test_world_grouping_prints(capsys):
    model = _two_world_example()
    print("Body worlds:", model.body_world.numpy().tolist())
    print("Shape worlds:", model.shape_world.numpy().tolist())
    print("Joint worlds:", model.joint_world.numpy().tolist())
    assert capsys.readouterr().out == (
        "Body worlds: [0, 0, 1, 1]\nShape worlds: [-1, 0, 0, 1, 1, -1]\nJoint worlds: [0, 0, 1, 1]\n"
    )


def test_world_start_prints(capsys):
    model = _two_world_example()
    print("world_count:", model.world_count)
    shape_start = model.shape_world_start.numpy()
    print("Shape starts:", shape_start.tolist())
    world_shape_counts = [int(shape_start[i + 1] - shape_start[i]) for i in range(model.world_count)]
    global_shape_count = int(shape_start[0]) + int(shape_start[-1] - shape_start[-2])
    print("Shape counts per world:", world_shape_counts)
    print("Global shape count:", global_shape_count)
    assert capsys.readouterr().out == (
        "world_count: 2\nShape starts: [1, 3, 5, 6]\nShape counts per world: [2, 2]\nGlobal shape count: 2\n"
    )


def _arm(with_shapes):
    arm = newton.ModelBuilder()
    link0 = arm.add_link(mass=1.0)
    j0 = arm.add_joint_fixed(parent=-1, child=link0)
    link1 = arm.add_link(mass=1.0)
    j1 = arm.add_joint_revolute(parent=link0, child=link1)
    arm.add_articulation(joints=[j0, j1])
    if with_shapes:
        arm.add_shape_box(body=link0, hx=0.1, hy=0.1, hz=0.1)
        arm.add_shape_box(body=link1, hx=0.1, hy=0.1, hz=0.1)
    return arm


def test_add_world_prints(capsys):
    arm = _arm(True)
    scene = newton.ModelBuilder()
    scene.add_ground_plane()
    scene.add_world(arm)
    scene.add_world(arm)
    multi_arm_model = scene.finalize()
    print("world_count:", multi_arm_model.world_count)
    assert capsys.readouterr().out == "world_count: 2\n"


def test_replicate_prints(capsys):
    arm = _arm(False)
    scene = newton.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(arm, world_count=4, spacing=(2.0, 0.0, 0.0))
    replicated_model = scene.finalize()
    print("world_count:", replicated_model.world_count)
    print("body_count:", replicated_model.body_count)
    assert capsys.readouterr().out == "world_count: 4\nbody_count: 8\n"
    xs = sorted(replicated_model.body_q.numpy()[::2, 0].tolist())
    assert xs == [-3.0, -1.0, 1.0, 3.0]


def test_per_world_gravity_prints(capsys):
    robot_builder = newton.ModelBuilder()
    robot_builder.add_body(mass=1.0)
    scene = newton.ModelBuilder()
    scene.add_world(robot_builder)
    scene.add_world(robot_builder)
    model = scene.finalize()
    model.set_gravity((0.0, 0.0, -9.81), world=0)
    model.set_gravity((0.0, 0.0, -1.62), world=1)
    print("Gravity shape:", model.gravity.numpy().shape)
    assert capsys.readouterr().out == "Gravity shape: (2, 3)\n"
    assert model.gravity.numpy()[:, 2].tolist() == [-9.8100004196167, -1.6200000047683716]


@wp.kernel
def _world_body_2d_kernel(
    body_world_start: wp.array(dtype=wp.int32),
    body_qd: wp.array(dtype=wp.spatial_vectorf),
    visits: wp.array(dtype=wp.int32),
):
    world_id, body_world_id = wp.tid()
    world_start = body_world_start[world_id]
    num_bodies_in_world = body_world_start[world_id + 1] - world_start
    if body_world_id < num_bodies_in_world:
        global_body_id = world_start + body_world_id
        twist = body_qd[global_body_id]
        visits[global_body_id] = visits[global_body_id] + 1 + int(twist[0])


def test_2d_world_entity_launch_visits_each_world_body_once():
    model = _two_world_example()
    body_world_start = model.body_world_start.numpy()
    num_bodies_per_world = [body_world_start[i + 1] - body_world_start[i] for i in range(model.world_count)]
    state = model.state()
    visits = wp.zeros(model.body_count, dtype=wp.int32)
    wp.launch(
        _world_body_2d_kernel,
        dim=(model.world_count, max(num_bodies_per_world)),
        inputs=[model.body_world_start, state.body_qd, visits],
    )
    assert visits.numpy().tolist() == [1, 1, 1, 1]
