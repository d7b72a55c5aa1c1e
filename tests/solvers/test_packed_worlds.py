"""One lane per world on CUDA: one thread per world, CUDA_WORLDS_PER_BLOCK worlds to a CUDA block
(lanes.launch_worlds), instead of a one-thread block per world."""

import numpy as np
import pytest
import warp as wp
from solver_helpers import box_worlds, run

import newton_gym.solvers.lanes as lanes
from newton_gym.solvers import SolverGeneralized


def test_one_lane_packs_worlds_on_cuda_only():
    assert not lanes.packs_worlds("cpu", 1)
    assert not lanes.packs_worlds("cpu", 32)
    if wp.is_cuda_available():
        assert lanes.packs_worlds("cuda:0", 1)
        assert not lanes.packs_worlds("cuda:0", 32)


def test_the_packed_launch_steps_as_the_block_launch(monkeypatch):
    """The packed launch (a plain launch over (worlds, 1): each thread one world, its lane 0, ``lanes`` = 1
    passed to the kernel) steps the passes bitwise as the one-lane blocks do: boxes settling on the ground over
    40 steps, every pass (smooth, collide, world solve, finish) through it. On the CPU the packed blocks hold
    one world here, so no other module build is needed; the CUDA test below packs 64."""
    states = []
    for packed in (False, True):
        monkeypatch.setattr(lanes, "packs_worlds", lambda device, n, packed=packed: packed and n == 1)
        monkeypatch.setattr(lanes, "CUDA_WORLDS_PER_BLOCK", 1)
        model = box_worlds(3, height=0.12)
        solver = SolverGeneralized(model)
        tiled = []
        original = lanes.wp.launch_tiled

        def spy(*args, tiled=tiled, original=original, **kwargs):
            tiled.append(kwargs.get("dim"))
            return original(*args, **kwargs)

        monkeypatch.setattr(lanes.wp, "launch_tiled", spy)
        state, _ = run(model, solver, 40, 0.01)
        monkeypatch.setattr(lanes.wp, "launch_tiled", original)
        assert (len(tiled) == 0) == packed  # packed: every pass went through the plain launch
        states.append((state.joint_q.numpy(), state.joint_qd.numpy(), solver.body_contact_count.numpy()))
    for a, b in zip(states[0], states[1]):
        np.testing.assert_array_equal(a, b)
    assert states[0][2].sum() > 0  # the boxes touched the ground


@pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device (Warp sees only the CPU)")
def test_cuda_packed_worlds_equal_the_lanes_path():
    """On CUDA, one thread per world (block_dim=1, 64 worlds to a CUDA block) steps 70 boxes bitwise as 32
    lanes per world without tiles (the lanes' own Cholesky): the lanes' path equals one lane."""
    states = []
    for block_dim in (1, 32):
        model = box_worlds(70, "cuda:0", height=0.12)
        solver = SolverGeneralized(model, block_dim=block_dim, tiles=False)
        state, _ = run(model, solver, 40, 0.01)
        states.append((state.joint_q.numpy(), state.joint_qd.numpy()))
    np.testing.assert_array_equal(states[0][0], states[1][0])
    np.testing.assert_array_equal(states[0][1], states[1][1])


@pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device (Warp sees only the CPU)")
def test_cuda_tiles_need_lanes():
    from newton_gym.errors import SolverError

    with pytest.raises(SolverError, match="tiles=True on CUDA needs block_dim > 1"):
        SolverGeneralized(box_worlds(2, "cuda:0"), block_dim=1, tiles=True)
