"""Solver construction time, ``SolverGeneralized(model)``, with each convex hull backend.

Scenes, replicated into each of ``--worlds`` worlds: ``bigmesh``, a free body whose collider is a lumpy
sphere mesh of 5002 vertices (generated here; its full convex hull has 850) over a ground plane;
``facemesh``, the same with a mesh of 4656 points on the faces of a rotated box, stored in float32 as
compiled meshes are (faces planar only to round-off, as CAD meshes with big flat faces are; the built-in
hull takes minutes there, so it is not in the default list); and ``ant``, the shipped Ant USD (capsules
only: no hull to build). Backends: ``qhull`` (scipy, the default) and ``builtin`` (the pure-Python
quickhull used where scipy is missing). Columns: ``first``, the construction on a model whose meshes hold
no hull yet (the hulls are computed), and ``again``, a second construction on the same model (the hulls
kept on each Mesh are reused). Times are seconds, medians of ``--repeat`` runs (the built-in backend on a
mesh scene runs once), after one untimed 2-world construction that loads the kernels.

    python benchmarks/bench_build.py [--worlds 1 4096] [--scenes bigmesh ant] [--backends qhull builtin]
    python benchmarks/bench_build.py --scenes facemesh --worlds 1

``--robots`` times instead the construction ``newton-gym check`` reports, ``finalize`` and
``SolverGeneralized`` together, for the example-robot-data URDFs of ``benchmarks/model_zoo.py`` (or those
named, by file stem): each robot in a fresh process, converted and imported as the check does, then built
for 1 world (the first build in the process, so with the hulls and the imports it needs; on a GPU, the
kernel modules' loading too), for 4 worlds, for 1 world again and for ``--many`` worlds (4096). Seconds,
one run each.

    python benchmarks/bench_build.py --robots [g1_29dof_rev_1_0 z1 ...] [--device cpu] [--many 4096]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import warp as wp

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.collision.hull import HULL_BACKEND_ENV


def lumpy_sphere(rings: int = 50, segments: int = 100, radius: float = 0.2, seed: int = 0) -> ng.Mesh:
    """A closed sphere-like mesh of ``rings * segments + 2`` vertices whose radius varies by a few percent
    (bumps and dents, so only part of the vertices are on its convex hull); outward triangles."""
    rng = np.random.default_rng(seed)
    theta = np.pi * np.arange(1, rings + 1) / (rings + 1)  # polar angle of each ring
    phi = 2.0 * np.pi * np.arange(segments) / segments
    t, f = np.meshgrid(theta, phi, indexing="ij")
    r = radius * (1.0 + 0.03 * np.sin(5 * t) * np.sin(7 * f) + 0.005 * rng.standard_normal(t.shape))
    ring_points = np.stack([r * np.sin(t) * np.cos(f), r * np.sin(t) * np.sin(f), r * np.cos(t)], axis=-1)
    points = np.concatenate([[[0.0, 0.0, radius]], ring_points.reshape(-1, 3), [[0.0, 0.0, -radius]]])
    south = len(points) - 1

    def at(i, j):
        return 1 + i * segments + j % segments

    tris = [(0, at(0, j), at(0, j + 1)) for j in range(segments)]
    for i in range(rings - 1):
        for j in range(segments):
            tris += [(at(i, j), at(i + 1, j), at(i + 1, j + 1)), (at(i, j), at(i + 1, j + 1), at(i, j + 1))]
    tris += [(south, at(rings - 1, j + 1), at(rings - 1, j)) for j in range(segments)]
    return ng.Mesh(points, tris, maxhullvert=-1)


def face_sampled_box(count: int = 4656, size=(0.3, 0.2, 0.1), seed: int = 0) -> ng.Mesh:
    """``count`` random points on the faces of a box, rotated and rounded to float32; triangles from
    qhull (scipy)."""
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(seed)
    points = rng.uniform(-1.0, 1.0, (count, 3))
    points[np.arange(count), rng.integers(0, 3, count)] = rng.choice([-1.0, 1.0], count)
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    points = ((points * np.asarray(size) / 2) @ rotation.T).astype(np.float32).astype(np.float64)
    hull = ConvexHull(points)
    tris = hull.simplices.copy()
    a, b, c = (points[tris[:, k]] for k in range(3))
    flip = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    tris[flip] = tris[flip][:, ::-1]
    return ng.Mesh(points, tris, maxhullvert=-1)


def _robot(scene: str) -> ng.ModelBuilder:
    robot = ng.ModelBuilder()
    if scene == "ant":
        from newton_gym.assets import robot_path

        robot.add_usd(robot_path("ant"))
        return robot
    body = robot.add_body(xform=((0.0, 0.0, 0.5), (0.0, 0.0, 0.0, 1.0)))
    robot.add_shape_mesh(body, mesh=lumpy_sphere() if scene == "bigmesh" else face_sampled_box())
    return robot


def _model(robot: ng.ModelBuilder, scene: str, worlds: int):
    builder = ng.ModelBuilder(up_axis=robot.up_axis, gravity=robot.gravity)
    if scene != "ant":  # the converted Ant brings its own floor
        builder.add_ground_plane()
    builder.replicate(robot, worlds)
    return builder.finalize("cpu")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _measure(model, repeat: int) -> tuple[float, float]:
    """Median (first, again) construction times [s]: ``first`` after the meshes' hulls are dropped."""
    firsts, agains = [], []
    for _ in range(repeat):
        for mesh in model.meshes:
            mesh._hulls.clear()
        firsts.append(_timed(lambda: SolverGeneralized(model)))
        agains.append(_timed(lambda: SolverGeneralized(model)))
    return statistics.median(firsts), statistics.median(agains)


def _robot_child(path: str, device: str | None, many: int) -> dict:
    """Build times [s] of one robot, as ``newton-gym check`` measures them (run in a fresh process)."""
    from newton_gym.check.ours import build, convert, file_kind, import_robot

    with tempfile.TemporaryDirectory(prefix="bench_build_") as folder:
        robot, imported = import_robot(convert(path, file_kind(path), folder))
        times = {"bodies": robot.body_count, "meshes": len(robot.meshes)}
        for key, worlds in (("first", 1), ("worlds4", 4), ("again", 1), ("many", many)):
            times[key] = build(robot, imported, worlds, device)[2]
    return times


def _robots(names: list, device: str | None, many: int) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from model_zoo import DEFAULT_CACHE, urdf_models

    entries = urdf_models(os.path.expanduser(DEFAULT_CACHE))
    if names:
        entries = [e for e in entries if e.name in names]
    print(f"finalize + SolverGeneralized seconds ({device or 'default device'}; first build in a fresh process)")
    print(f"{'robot':>18} {'bodies':>6} {'meshes':>6} {'1 world':>8} {'4 worlds':>8} {'1 again':>8} {f'{many} w':>8}")
    for entry in entries:
        command = [sys.executable, os.path.abspath(__file__), "--robot-child", entry.path, "--many", str(many)]
        if device:
            command += ["--device", device]
        out = subprocess.run(command, capture_output=True, text=True, check=False)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if out.returncode or not lines:
            print(f"{entry.name:>18} failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}", flush=True)
            continue
        t = json.loads(lines[-1])
        row = f"{entry.name:>18} {t['bodies']:>6} {t['meshes']:>6}"
        print(f"{row} {t['first']:>8.3f} {t['worlds4']:>8.3f} {t['again']:>8.3f} {t['many']:>8.3f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="*", default=None, help="example-robot-data URDF stems (none: all)")
    p.add_argument("--robot-child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--device", default=None, help="Warp device of --robots (default: Warp's)")
    p.add_argument("--many", type=int, default=4096, help="worlds of --robots' last column")
    p.add_argument("--worlds", type=int, nargs="+", default=[1, 4096])
    p.add_argument("--scenes", nargs="+", default=["bigmesh", "ant"], choices=["bigmesh", "facemesh", "ant"])
    p.add_argument("--backends", nargs="+", default=["qhull", "builtin"], choices=["qhull", "builtin"])
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    wp.config.quiet = True
    if a.robot_child:
        print(json.dumps(_robot_child(a.robot_child, a.device, a.many)))
        return
    if a.robots is not None:
        _robots(a.robots, a.device, a.many)
        return
    wp.init()
    print(f"CPU, SolverGeneralized(model) seconds (median of {a.repeat}; builtin on a mesh scene: 1 run)")
    print(f"{'scene':>8} {'worlds':>6} {'backend':>8} {'first':>8} {'again':>8}")
    for scene in a.scenes:
        robot = _robot(scene)
        os.environ[HULL_BACKEND_ENV] = "qhull"
        SolverGeneralized(_model(robot, scene, 2))  # load the kernels outside the timings
        for worlds in a.worlds:
            model = _model(robot, scene, worlds)
            for backend in a.backends:
                os.environ[HULL_BACKEND_ENV] = backend
                repeat = 1 if backend == "builtin" and model.meshes else a.repeat
                first, again = _measure(model, repeat)
                print(f"{scene:>8} {worlds:>6} {backend:>8} {first:>8.3f} {again:>8.3f}", flush=True)
    os.environ.pop(HULL_BACKEND_ENV, None)


if __name__ == "__main__":
    main()
