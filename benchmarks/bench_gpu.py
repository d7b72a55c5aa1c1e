"""Env steps and physics steps per second at GPU scale, next to MuJoCo Warp on the same MJCF, in one run.

For each task (Ant, Humanoid, Go1) and world count N, three timings, each the median of ``--repeat``:

- env: ``gym.make_vec("Newton/<Task>-v0", num_envs=N)`` stepped ``--control-steps`` times under random
  actions (uniform over the action space within [-1, 1], four draws used in turn; one env step =
  frame_skip physics steps, then observation, reward, termination and autoreset);
  env-steps/s = N * control steps / s, and its physics rate = frame_skip times that.
- solver: the same env's Simulation alone (its captured graph of frame_skip SolverGeneralized steps,
  replayed after the controls of the same actions are written; no observation, reward or reset),
  physics steps/s = N * solver steps / s.
- MuJoCo Warp (``mujoco_warp``, the ``benchmark`` extra; skipped with a printed line where it is missing or
  fails on the device): the MJCF the task's USD was converted from, with our dt, implicitfast, the Newton
  solver and our iteration cap; the same controls written before each replay of ``mjw.step`` captured
  frame_skip times in one graph. Its rate is physics steps/s; it has no env layer.

Ratios are ours / MuJoCo Warp of the medians. Both sides are first run ``--settle`` simulated seconds so
that the robots are in contact when timed: ours as env steps under the random actions (with autoreset),
MuJoCo Warp from MuJoCo C's state after that time under weak random control (bench_solver's
``_settled_state``). Memory per world: the bytes of every distinct Warp array our solver and State hold
(the Model left out), and of every Warp array in MuJoCo Warp's Data (its Model left out), over N.
``finite``: no NaN in either state and no MuJoCo Warp overflow flag. On the CPU, ours run on ``--threads``
threads (default 1, as MuJoCo Warp's CPU path).

    python benchmarks/bench_gpu.py                                  # cuda:0 where there is one, else cpu
    python benchmarks/bench_gpu.py --device cpu --worlds 16 64 --control-steps 5 --repeat 2
    python benchmarks/bench_gpu.py --tasks Ant --worlds 4096 --no-graph   # the env step eager, for comparison
    python benchmarks/bench_gpu.py --tasks Ant Go1 --worlds 4096 --no-tiles  # the lanes' own Cholesky
    python benchmarks/bench_gpu.py --worlds 4096 --cuda-registers 0 128 64 --no-peer  # register caps
    python benchmarks/bench_gpu.py --worlds 4096 16384 --lanes 32 1 --no-peer  # one thread per world

``--graph`` / ``--no-graph`` set the env's ``graph`` (the whole env step as one CUDA graph; default: the
env's own default, on for CUDA); ``--tiles`` / ``--no-tiles`` the solver's ``tiles`` (the Newton Hessian
factored by Warp tiles; default: the solver's, on for CUDA where every world has one DOF count <= 64).
``--cuda-registers`` times each task at each register cap of the solver's per-world pass kernels
(``SimCfg.cuda_registers``; 0: the compiler's choice), a row each (``regs`` column); ``--lanes`` at each
number of lanes per world (``SimCfg.block_dim``; 0: the solver's default, 32 on CUDA; 1: one thread per
world, 64 worlds to a CUDA block), a row each (``lanes`` column); ``--no-peer`` leaves MuJoCo Warp out.
"""

from __future__ import annotations

import argparse
import gc
import math
import os

import gymnasium as gym
import numpy as np
import torch
import warp as wp
from _memory import array_bytes
from _timing import median_time
from bench_solver import _base_ctrl, _mujoco_model, _settled_state

# task -> (gym id, robot of bench_solver._mjcf)
_TASKS = {
    "Ant": ("Newton/Ant-v0", "ant"),
    "Humanoid": ("Newton/Humanoid-v0", "humanoid"),
    "Go1": ("Newton/Go1-Flat-v0", "go1"),
}


def _ours(task, n, device, threads, control_steps, repeat, settle, graph=None, tiles=None, registers=0, lanes=0):
    """Newton/<task>-v0 at n worlds: (env-steps/s, env physics steps/s, solver physics steps/s), bytes per
    world, finite, the env's SimCfg, and the (n, actuators) controls of the random actions it was stepped with."""
    from newton_gym.sim import Model

    env = gym.make_vec(
        _TASKS[task][0],
        num_envs=n,
        device=device,
        sim={"threads": threads, "tiles": tiles, "cuda_registers": registers, "block_dim": lanes},
        graph=graph,
    )
    sim, env_task = env.unwrapped.sim, env.unwrapped.task
    env.reset(seed=0)
    space = env.single_action_space
    low = torch.as_tensor(np.maximum(space.low, -1.0), device=env.device)
    high = torch.as_tensor(np.minimum(space.high, 1.0), device=env.device)
    gen = torch.Generator(device=env.device).manual_seed(0)
    actions = [low + (high - low) * torch.rand(n, space.shape[0], generator=gen, device=env.device) for _ in range(4)]

    def env_steps(count):
        for i in range(count):
            env.step(actions[i % len(actions)])
        wp.synchronize()

    def solver_steps():  # the controls the env steps set, so both see the same constraint load
        for i in range(control_steps):
            sim.ctrl.copy_(env_task.ctrl_from_action(actions[i % len(actions)]))
            sim.step()
        wp.synchronize()

    env_steps(max(1, round(settle / sim.dt)))
    t_env = median_time(lambda: env_steps(control_steps), repeat)
    t_solver = median_time(solver_steps, repeat)
    per_world = array_bytes([sim.solver, sim.state], skip_types=(Model,)) / n
    finite = bool(torch.isfinite(sim.views.joint_q).all())
    cfg = sim.cfg
    ctrls = [env_task.ctrl_from_action(action).cpu().numpy() for action in actions]
    env.close()
    physics = n * control_steps * cfg.frame_skip
    return (n * control_steps / t_env, physics / t_env, physics / t_solver), per_world, finite, cfg, ctrls


def _mjw_model(robot, cfg):
    """The robot's MJCF compiled by MuJoCo with our dt and iteration cap (implicitfast, Newton: bench_solver)."""
    m = _mujoco_model(robot)
    m.opt.timestep = cfg.sim_dt
    m.opt.iterations = cfg.iterations
    return m


def _mujoco_warp(mjw, robot, n, device, cfg, ctrls, control_steps, repeat, settle):
    """MuJoCo Warp physics steps/s at n worlds, Data bytes per world, finite (and no overflow flag).

    ``ctrls``: (n, nu) controls written in turn before each frame_skip steps, as ours are (ours and the MJCF
    list the actuators in the same order); where the widths differ, the base controls plus U(-0.1, 0.1)."""
    m = _mjw_model(robot, cfg)
    d0 = _settled_state(m, settle)
    if any(c.shape != (n, m.nu) for c in ctrls):
        ctrls = [_base_ctrl(m) + np.random.default_rng(0).uniform(-0.1, 0.1, (n, m.nu))]
    with wp.ScopedDevice(device):
        model = mjw.put_model(m)
        data = mjw.put_data(m, d0, nworld=n)
        bank = [wp.array(c.astype(np.float32), dtype=wp.float32) for c in ctrls]
        wp.copy(data.ctrl, bank[0])
        mjw.step(model, data)  # loads every kernel before the capture
        with wp.ScopedCapture() as capture:
            for _ in range(cfg.frame_skip):
                mjw.step(model, data)

        def steps():
            for i in range(control_steps):
                wp.copy(data.ctrl, bank[i % len(bank)])
                wp.capture_launch(capture.graph)
            wp.synchronize()

        t = median_time(steps, repeat)
        per_world = array_bytes([data], skip_types=(mjw.Model,)) / n
        finite = bool(np.isfinite(data.qpos.numpy()).all()) and not data.overflow.numpy().any()
    return n * control_steps * cfg.frame_skip / t, per_world, finite


def _peer():
    """The mujoco_warp module, or None with the reason printed."""
    try:
        import mujoco_warp
    except ImportError as err:
        print(f"MuJoCo Warp: skipped, mujoco_warp is not installed ({err}); pip install -e .[benchmark]")
        return None
    return mujoco_warp


def _default_device() -> str:
    """cuda:0 when both Warp and torch see a GPU (the envs hand their arrays to torch), else cpu."""
    return "cuda:0" if wp.is_cuda_available() and torch.cuda.is_available() else "cpu"


def _cell(value: float, width: int, spec: str = ",.0f") -> str:
    """``value`` right-aligned in ``width`` characters, or "-" where it was not measured (NaN)."""
    return f"{'-':>{width}}" if math.isnan(value) else f"{value:>{width}{spec}}"


def _row(mjw, task, n, device, a, registers=0, lanes=0):
    """Time ``task`` at n worlds with the solver's kernels capped at ``registers`` (0: none) and ``lanes`` lanes
    per world (0: the solver's default), ours then
    MuJoCo Warp's (when ``mjw`` is not None), print the row and return the task's SimCfg."""
    rates, ours_b, finite, cfg, ctrls = _ours(
        task, n, device, a.threads, a.control_steps, a.repeat, a.settle, a.graph, a.tiles, registers, lanes
    )
    env_rate, env_phys, solver_phys = rates
    gc.collect()
    mjw_phys, mjw_b, mjw_finite = float("nan"), float("nan"), True
    if mjw is not None:
        try:
            mjw_phys, mjw_b, mjw_finite = _mujoco_warp(
                mjw, _TASKS[task][1], n, device, cfg, ctrls, a.control_steps, a.repeat, a.settle
            )
        except Exception as err:  # the peer is optional: say why and keep our figures
            print(f"MuJoCo Warp: {task} at {n} worlds skipped on {device} ({type(err).__name__}: {err})")
        gc.collect()
    print(
        f"{task:>9} {n:>6} {registers or '-':>4} {lanes or '-':>5} {env_rate:>12,.0f} {env_phys:>12,.0f} "
        f"{solver_phys:>14,.0f} {_cell(mjw_phys, 12)} "
        f"{_cell(solver_phys / mjw_phys, 10, '.2f')} {_cell(env_phys / mjw_phys, 8, '.2f')} {ours_b:>12,.0f} "
        f"{_cell(mjw_b, 12)} {finite and mjw_finite}",
        flush=True,
    )
    return cfg


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=list(_TASKS), choices=list(_TASKS))
    p.add_argument("--worlds", type=int, nargs="+", default=[1024, 4096, 16384])
    p.add_argument("--device", default=None, help="Warp device; default cuda:0 when available, else cpu")
    p.add_argument("--control-steps", type=int, default=50, help="env steps (frame_skip physics steps) per timing")
    p.add_argument("--repeat", type=int, default=5, help="timings per figure; the median is printed")
    p.add_argument("--settle", type=float, default=0.5, help="simulated seconds run before timing")
    p.add_argument("--threads", type=int, default=1, help="our CPU threads (MuJoCo Warp's CPU path has one)")
    p.add_argument(
        "--graph", action=argparse.BooleanOptionalAction, default=None, help="the env step as one CUDA graph"
    )
    p.add_argument(
        "--tiles",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the Newton Hessian factored with Warp tiles (default: the solver's, on for CUDA)",
    )
    p.add_argument(
        "--cuda-registers",
        type=int,
        nargs="+",
        default=[0],
        help="register caps of the solver's per-world pass kernels on CUDA, a row each (0: the compiler's choice)",
    )
    p.add_argument(
        "--lanes",
        type=int,
        nargs="+",
        default=[0],
        help="lanes per world of the solver's per-world passes, a row each (0: the solver's default; 1: one thread "
        "per world)",
    )
    p.add_argument("--no-peer", action="store_true", help="leave MuJoCo Warp out")
    a = p.parse_args()
    wp.config.log_level = wp.LOG_WARNING
    wp.init()
    device = a.device or _default_device()
    import newton_gym  # noqa: F401  (registers the tasks)

    mjw = None if a.no_peer else _peer()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    version = "" if mjw is None else f", mujoco_warp {getattr(mjw, '__version__', '?')}"
    print(
        f"{wp.get_device(device)} (warp {wp.config.version}{version}), {os.cpu_count()} CPUs, load average "
        f"{load[0]:.2f}; steps/s are medians of {a.repeat} timings of {a.control_steps} env steps; "
        f"MJW = MuJoCo Warp on the same MJCF, same dt, implicitfast, Newton, same iteration cap"
    )
    header = (
        f"{'task':>9} {'N':>6} {'regs':>4} {'lanes':>5} {'env-steps/s':>12} {'env phys/s':>12} {'solver phys/s':>14} "
        f"{'MJW phys/s':>12} "
        f"{'solver/MJW':>10} {'env/MJW':>8} {'ours B/world':>12} {'MJW B/world':>12} finite"
    )
    print(header, flush=True)
    for task in a.tasks:
        for n in a.worlds:
            for lanes in a.lanes:
                for registers in a.cuda_registers:
                    cfg = _row(mjw, task, n, device, a, registers, lanes)
        print(f"{task:>9}: dt {cfg.sim_dt} s, frame_skip {cfg.frame_skip}, iterations {cfg.iterations}", flush=True)


if __name__ == "__main__":
    main()
