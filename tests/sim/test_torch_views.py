"""Zero-copy torch views: same pointer, writes visible both ways, valid across state swaps."""

import pytest
import torch
import warp as wp

import newton_gym as ng
from newton_gym.errors import ModelBuildError
from newton_gym.sim.torch_views import WorldViews, world_view


@pytest.fixture
def device(torch_device):
    """These tests hand Warp arrays to torch: their CUDA runs need a CUDA build of torch too."""
    return torch_device


def _model(worlds=4, device=None):
    robot = ng.ModelBuilder()
    base = robot.add_body(mass=1.0, xform=(0, 0, 1, 0, 0, 0, 1))
    leg = robot.add_link(mass=1.0)
    robot.add_joint_revolute(base, leg)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, worlds)
    return scene.finalize(device)


def test_views_share_memory_both_ways(device):
    model = _model(device=device)
    state = model.state()
    views = WorldViews(model, state)
    assert views.body_q.shape == (4, 2, 7) and views.body_qd.shape == (4, 2, 6)
    assert views.joint_q.shape == (4, 8) and views.joint_qd.shape == (4, 7)
    assert views.body_q.data_ptr() == wp.to_torch(state.body_q).data_ptr()
    views.joint_q[2, 7] = 0.5
    assert state.joint_q.numpy()[2 * 8 + 7] == 0.5
    state.joint_qd.assign(torch.arange(28, dtype=torch.float32).numpy())
    assert views.joint_qd[3, 6].item() == 27.0


def test_views_stay_valid_across_double_buffer_swaps(device):
    model = _model(device=device)
    s0, s1 = model.state(), model.state()
    v0, v1 = WorldViews(model, s0), WorldViews(model, s1)
    t0, t1 = v0.joint_q, v1.joint_q
    for _step in range(5):
        wp.copy(s1.joint_q, s0.joint_q)
        s1.joint_q.assign(s1.joint_q.numpy() + 1.0)
        s0, s1 = s1, s0
    # After an odd number of swaps the newest data is in the array first bound as s1.
    assert t1[0, 0].item() == 5.0 and t0[0, 0].item() == 4.0
    views = WorldViews(model, s0)
    assert views.bind(s1).joint_q.data_ptr() == t0.data_ptr()
    assert views.bind(s0).joint_q.data_ptr() == t1.data_ptr()


def test_heterogeneous_worlds_are_refused():
    a, b = ng.ModelBuilder(), ng.ModelBuilder()
    a.add_body(mass=1)
    b.add_body(mass=1)
    b.add_body(mass=1)
    scene = ng.ModelBuilder()
    scene.add_world(a)
    scene.add_world(b)
    model = scene.finalize()
    with pytest.raises(ModelBuildError, match="equal size"):
        world_view(model.body_q, model.body_world_start, model.world_count)
