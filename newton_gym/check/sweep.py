""":func:`check_robot`: the whole check of one file, stage by stage, into a :class:`.CheckResult`."""

from __future__ import annotations

import math
import os
import tempfile
import warnings

import numpy as np

from .ours import StageError, build, convert, file_kind, import_robot, roll_out
from .reference import ReferenceUnavailable, load_reference, run_reference, working_directory
from .result import BodyError, CheckResult

__all__ = ["check_robot"]

# Step used where neither the file nor MuJoCo gives one (MuJoCo's default opt.timestep) [s].
DEFAULT_DT = 0.002


def check_robot(
    path: str,
    seconds: float = 1.0,
    mujoco: bool = True,
    out_dir: str | None = None,
    device=None,
) -> CheckResult:
    """Checks that an MJCF, URDF or USD robot file converts, imports, builds and steps, and how far it
    moves from MuJoCo C over ``seconds`` at zero control.

    Stages: convert (MJCF / URDF -> USD with the repo's converters, every warning kept), import
    (``ModelBuilder().add_usd``), build (``replicate`` into 1 and 4 worlds, ``finalize`` and
    ``SolverGeneralized``, timed), step (``seconds`` at the file's time step, positions finite, worlds
    1-3 equal to world 0), and, where MuJoCo loads the file, MuJoCo C from the same start state with
    integrator implicitfast: body positions compared by name at ``seconds / 2`` and ``seconds``, and
    MuJoCo against itself from qpos perturbed by 1e-7.

    Args:
        path: the MJCF (.xml), URDF (.urdf) or USD (.usd, .usda, .usdc) file.
        seconds: simulated time [s], > 0.
        mujoco: run MuJoCo C beside us (False: only our stages).
        out_dir: folder for the USD (kept); None: a temporary folder, removed afterwards.
        device: Warp device; None: Warp's default.

    Returns:
        The :class:`.CheckResult`; a failing stage is recorded in it, never raised.
    """
    result = CheckResult(path=os.path.abspath(os.fspath(path)), seconds=float(seconds))
    with tempfile.TemporaryDirectory(prefix="newton_gym_check_") as scratch:
        folder = os.path.abspath(out_dir) if out_dir else scratch
        os.makedirs(folder, exist_ok=True)
        with warnings.catch_warnings(record=True) as caught, working_directory(folder):
            warnings.simplefilter("always")
            try:
                _stages(result, folder, mujoco, device)
            except StageError as exc:
                result.stage, result.error = exc.stage, str(exc)
        if out_dir is None:
            result.usd_path = None  # removed with the temporary folder
    result.warnings = _unique(f"{w.category.__name__}: {w.message}" for w in caught)
    return result


def _unique(texts) -> list:
    seen = []
    for text in texts:
        if text not in seen:
            seen.append(text)
    return seen


def _stages(result: CheckResult, folder: str, mujoco: bool, device) -> None:
    if not os.path.isfile(result.path):
        raise StageError("convert", f"{result.path}: file does not exist")
    result.kind = file_kind(result.path)
    result.usd_path = convert(result.path, result.kind, folder)
    robot, imported = import_robot(result.usd_path)
    result.body_count, result.dof_count = robot.body_count, robot.joint_dof_count
    mj_model = _reference_model(result, mujoco)
    result.dt = _time_step(result, imported, mj_model)
    model, solver, result.build_s = build(robot, imported, 1, device)
    model4, solver4, result.build4_s = build(robot, imported, 4, device)
    steps = max(1, round(result.seconds / result.dt))
    samples = (0, round(steps / 2), steps)
    result.finite = False
    ours = roll_out(model, solver, result.dt, steps, samples)
    result.step_ms = 1e3 * ours.step_s
    replicas = roll_out(model4, solver4, result.dt, steps, ())
    result.replica_mm = max(replicas.replica_mm, _distance_mm(replicas.positions[steps], ours.positions[steps]))
    result.finite = True
    if result.replica_mm > 1e-3:
        raise StageError("replicate", f"4 worlds differ from 1 world by {result.replica_mm:.3g} mm after the run")
    if mj_model is not None:
        _compare(result, imported, ours, run_reference(mj_model, steps, samples), samples)


def _reference_model(result: CheckResult, mujoco: bool):
    """MuJoCo's model of the file, or None with the reason in ``result.reference_note``."""
    if not mujoco:
        result.reference_note = "--no-mujoco given"
        return None
    try:
        return load_reference(result.path, result.kind)
    except ReferenceUnavailable as exc:
        result.reference_note = str(exc)
        return None


def _time_step(result: CheckResult, imported: dict, mj_model) -> float:
    """The USD's step (MJCF: the file's ``<option timestep>``); URDF, which has none: MuJoCo's."""
    dt = imported.get("physics_dt") if result.kind != "urdf" else None
    if mj_model is not None:
        if dt is None:
            dt = float(mj_model.opt.timestep)
        elif abs(dt - mj_model.opt.timestep) > 1e-9 * dt:
            result.reference_note = f"timestep {mj_model.opt.timestep:g} s set to the USD's {dt:g} s"
            mj_model.opt.timestep = dt
    return float(dt) if dt else DEFAULT_DT


def _distance_mm(a: np.ndarray, b: np.ndarray) -> float:
    return 1e3 * float(np.linalg.norm(a - b, axis=1).max(initial=0.0))


def _compare(result: CheckResult, imported: dict, ours, ref, samples: tuple) -> None:
    """Per-body distances between our world 0 and MuJoCo, by body name, worst at the end first."""
    if not ref.names:
        result.reference_note = "the model has no bodies besides the world"
        return
    index = {path.rsplit("/", 1)[-1]: i for path, i in imported["path_body_map"].items()}
    start, half, full = samples
    bodies = []
    for k, name in enumerate(ref.names):
        i = index.get(_prim_name(name, k + 1))
        if i is None:
            result.unmatched.append(name)
            continue

        def error(step, i=i, k=k):
            return 1e3 * float(np.linalg.norm(ours.positions[step][i] - ref.positions[step][k]))

        def sensitivity(step, k=k):
            return 1e3 * float(np.linalg.norm(ref.perturbed[step][k] - ref.positions[step][k]))

        bodies.append(BodyError(name, error(start), error(half), error(full), sensitivity(full), sensitivity(half)))
    bodies.sort(key=lambda b: -b.full_mm if math.isfinite(b.full_mm) else -math.inf)
    result.bodies = bodies
    result.compared = True


def _prim_name(name: str, body_id: int) -> str:
    """The prim name the converters give MuJoCo body ``body_id`` called ``name``."""
    from newton_gym.assets.naming import sanitize  # noqa: PLC0415

    return sanitize(name, f"body_{body_id}")
