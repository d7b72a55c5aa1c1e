"""Option.cuda_registers: a register cap on the per-world pass kernels, for CUDA only."""

import numpy as np
import pytest
import warp as wp
from solver_helpers import box_worlds, run

from newton_gym.errors import SolverError
from newton_gym.solvers import Option, SolverGeneralized, forward
from newton_gym.solvers.collision import driver
from newton_gym.solvers.lanes import capped_kernels, register_capped
from newton_gym.solvers.solve.world import world_kernel


@pytest.mark.parametrize("bad", [0, 23, 256, 64.5, True, "64"])
def test_out_of_range_caps_are_refused_by_name(bad):
    with pytest.raises(SolverError, match="cuda_registers"):
        Option(cuda_registers=bad)


def test_a_capped_kernel_is_the_same_code_in_a_module_of_its_own():
    base = forward._finish_kernel
    assert register_capped(base, None) is base
    capped = register_capped(base, 64)
    assert capped is register_capped(base, 64)  # made once
    assert capped is not base and capped.module is not base.module
    assert capped.options["cuda_max_registers"] == 64 and capped.key == base.key
    assert capped.func is base.func
    assert register_capped(base, 96).options["cuda_max_registers"] == 96
    assert base in capped_kernels()


def test_the_cpu_ignores_the_cap():
    """On the CPU the solver launches its usual kernels (a cap means nothing to the CPU build, and a module of
    its own would be compiled again), while the Option keeps what was asked."""
    model = box_worlds(height=0.12)
    solver = SolverGeneralized(model, cuda_registers=64)
    assert solver.option.cuda_registers == 64
    assert solver.cuda_registers is None
    assert solver.world_solver.kernel is world_kernel(0)


def test_env_configs_pass_the_cap_to_the_solver():
    import gymnasium as gym

    env = gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu", sim={"cuda_registers": 96})
    try:
        assert env.unwrapped.sim.solver.option.cuda_registers == 96
    finally:
        env.close()


def test_the_passes_launch_through_the_cap(monkeypatch):
    """Every per-world pass (smooth, collide, world solve, finish) asks register_capped for its kernel with the
    solver's cap; a cap the CPU kept would be launched."""
    asked = []
    original = register_capped.__wrapped__

    def spy(kernel, registers):
        asked.append((kernel.key, registers))
        return original(kernel, None)

    model = box_worlds(2, height=0.12)
    solver = SolverGeneralized(model)
    solver.cuda_registers = 72  # as on CUDA
    monkeypatch.setattr(forward, "register_capped", spy)
    monkeypatch.setattr(driver, "register_capped", spy)
    run(model, solver, 1, 0.01)
    keys = {key for key, regs in asked if regs == 72}
    assert {"_smooth_kernel", "_collide_kernel", "_finish_kernel"} <= keys


@pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device (Warp sees only the CPU)")
def test_cuda_capped_steps_equal_uncapped_steps():
    """A register cap changes where values live (registers or local memory), not the arithmetic: 50 steps of
    boxes settling on the ground are bitwise those of the uncapped kernels."""
    states = []
    for cap in (None, 64):
        model = box_worlds(3, "cuda:0", height=0.12)
        solver = SolverGeneralized(model, cuda_registers=cap)
        assert solver.world_solver.kernel.options.get("cuda_max_registers") == cap
        state, _ = run(model, solver, 50, 0.01)
        states.append((state.joint_q.numpy(), state.joint_qd.numpy()))
    np.testing.assert_array_equal(states[0][0], states[1][0])
    np.testing.assert_array_equal(states[0][1], states[1][1])
