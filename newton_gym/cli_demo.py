"""``newton-gym demo``: replicate an Ant-like robot into many worlds and print the world layout."""

from __future__ import annotations

import time

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument("--worlds", type=int, default=4096, help="number of worlds (default 4096)")
    parser.add_argument("--device", default="cpu", help="Warp device (cpu, cuda:0)")


def run(args) -> int:
    import warp as wp

    wp.config.quiet = True
    from .sim import ModelBuilder
    from .sim.examples import ant_like_builder

    robot = ant_like_builder()
    t0 = time.perf_counter()
    scene = ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, args.worlds, spacing=(2.0, 2.0, 0.0))
    t1 = time.perf_counter()
    model = scene.finalize(args.device)
    t2 = time.perf_counter()
    model.set_gravity((0.0, 0.0, -1.62), world=model.world_count - 1)
    print(f"Ant-like robot: {robot.body_count} bodies, {robot.joint_count} joints, {robot.shape_count} shapes")
    print(f"replicate({args.worlds}) {t1 - t0:.3f} s, finalize({args.device}) {t2 - t1:.3f} s")
    print(model)
    for kind in ("body", "shape", "joint", "joint_dof", "joint_coord", "articulation"):
        starts = getattr(model, f"{kind}_world_start").numpy()
        per_world = starts[1] - starts[0] if model.world_count else 0
        print(f"{kind + '_world_start':>26}: {_head(starts)}  ({per_world} per world)")
    shape_start = model.shape_world_start.numpy()
    print(f"{'global shapes':>26}: {int(shape_start[0]) + int(shape_start[-1] - shape_start[-2])}")
    gravity = model.gravity.numpy()
    print(
        f"{'gravity':>26}: shape {gravity.shape}, world 0 {gravity[0].tolist()}, "
        f"world {model.world_count - 1} {gravity[-1].tolist()}"
    )
    origins = model.body_q.numpy()[model.body_world_start.numpy()[:-2], :3]
    print(
        f"{'world origins (x, y)':>26}: first {origins[0, :2].round(2).tolist()}, "
        f"last {origins[-1, :2].round(2).tolist()}"
    )
    return 0


def _head(values, k=3):
    v = [int(x) for x in values]
    return str(v) if len(v) <= 2 * k else f"[{', '.join(map(str, v[:k]))}, ..., {', '.join(map(str, v[-k:]))}]"
