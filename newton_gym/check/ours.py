"""Our side of a robot check: convert to USD, import into 1 and 4 worlds, build the solver, step.

Each stage raises :class:`StageError` naming itself, so the caller reports "fails at <stage>: <error>".
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

__all__ = [
    "StageError",
    "Rollout",
    "USD_EXTENSIONS",
    "file_kind",
    "convert",
    "import_robot",
    "solver_option",
    "build",
    "roll_out",
]

USD_EXTENSIONS = (".usd", ".usda", ".usdc", ".usdz")


class StageError(Exception):
    """A stage of the check failed; ``stage`` names it, the message says why."""

    def __init__(self, stage: str, message: str):
        self.stage = stage
        super().__init__(message)


@dataclass
class Rollout:
    """Body positions of one world over a run at zero control.

    Attributes:
        positions: {step: (body_count, 3) body-origin positions [m] of world 0} at the sampled steps.
        replica_mm: largest distance of a body of another world from the same body of world 0 at the end [mm]
            (NaN for one world).
        step_s: mean wall time of one step [s].
    """

    positions: dict
    replica_mm: float
    step_s: float


def file_kind(path: str) -> str:
    """ "mjcf", "urdf" or "usd" from the file's extension (``.xml``: its root element).

    Raises:
        StageError: at "convert", for another format or a malformed ``.xml`` (the message names the file).
    """
    from newton_gym.assets.convert import detect_format  # noqa: PLC0415
    from newton_gym.errors import AssetError  # noqa: PLC0415

    ext = os.path.splitext(path)[1].lower()
    if ext in USD_EXTENSIONS:
        return "usd"
    if ext not in (".xml", ".mjcf", ".urdf"):
        raise StageError(
            "convert",
            f"{path}: unknown robot format '{ext or '(none)'}'; expected MJCF (.xml), URDF (.urdf) "
            f"or USD ({', '.join(USD_EXTENSIONS)})",
        )
    try:
        return detect_format(path)
    except AssetError as exc:
        raise StageError("convert", str(exc)) from None


def convert(path: str, kind: str, out_dir: str) -> str:
    """The USD of ``path`` written into ``out_dir`` (always converted afresh, so the converter's warnings are
    emitted); a USD file is used as it is.

    URDF is converted the way MuJoCo compiles it, so the two can be compared: the root link welded to the
    world, no joint drives, and links colliding with each other (MuJoCo's contype / conaffinity 1; parent
    and child never).
    """
    if kind == "usd":
        return path
    from newton_gym.assets import MjcfConverter, MjcfConverterCfg, UrdfConverter, UrdfConverterCfg  # noqa: PLC0415

    common = dict(asset_path=path, usd_dir=out_dir, force_usd_conversion=True)
    try:
        if kind == "mjcf":
            return MjcfConverter(MjcfConverterCfg(**common)).usd_path
        cfg = UrdfConverterCfg(fix_base=True, joint_drive=None, self_collision=True, **common)
        return UrdfConverter(cfg).usd_path
    except Exception as exc:  # any converter error is this stage's verdict, not a crash of the check
        raise StageError("convert", _message(exc, path)) from None


def _message(exc: Exception, path: str | None = None) -> str:
    """``exc``'s message, made to name ``path`` where it does not already; an error that is not one of
    newton_gym's input errors (a bug rather than a bad file) keeps its type name."""
    from newton_gym.errors import NewtonGymError  # noqa: PLC0415

    text = str(exc) or type(exc).__name__
    if not isinstance(exc, NewtonGymError):
        text = f"{type(exc).__name__}: {text}"
    if path is None or os.path.basename(path) in text:
        return text
    return f"{path}: {text}"


def import_robot(usd_path: str):
    """(robot builder, add_usd result) of the USD."""
    from newton_gym.sim import ModelBuilder  # noqa: PLC0415

    robot = ModelBuilder()
    try:
        result = robot.add_usd(usd_path)
    except Exception as exc:
        raise StageError("import", _message(exc, usd_path)) from None
    return robot, result


def solver_option(result: dict):
    """The solver :class:`~newton_gym.solvers.Option` of the file, as the converter wrote it on the physics
    scene and the joints: cone, impratio, noslip iterations and tolerance, iterations, tolerance, line-search
    iterations from ``<option>`` (MuJoCo's CG solver runs as Newton, ours has Newton and PGS; the integrator is
    implicitfast), and the joints' limit and friction solref / solimp (the value most joints share: the
    solver takes one for all; a warning names the joints it leaves out)."""
    from newton_gym.solvers import Option  # noqa: PLC0415

    scene = result.get("scene_attributes", {})

    def get(name, default):
        return scene.get(f"mjc:option:{name}", default)

    solver = str(get("solver", "newton")).lower()
    tendons = result.get("path_tendon_map", {})  # MjcTendon prims: their solref / solimp are per tendon
    mjc = result.get("schema_attrs", {}).get("mjc", {})
    joints = {p: v for p, v in mjc.items() if "mjc:solreflimit" in v and p not in tendons}
    fields = {}
    for field, attribute in _JOINT_SOLVER_PARAMETERS:
        value = _shared_value(joints, attribute)
        if value is not None:
            fields[field] = value
    return Option(
        cone=str(get("cone", "pyramidal")).lower(),
        impratio=float(get("impratio", 1.0)),
        noslip_iterations=int(get("noslip_iterations", 0)),
        noslip_tolerance=float(get("noslip_tolerance", 1e-6)),
        solver="pgs" if solver == "pgs" else "newton",
        iterations=int(get("iterations", 100)),
        tolerance=float(get("tolerance", 1e-8)),
        ls_iterations=int(get("ls_iterations", 50)),
        integrator="implicitfast",
        threads=1,
        **fields,
    )


# Option field <- the joint attribute the MJCF converter writes for it.
_JOINT_SOLVER_PARAMETERS = (
    ("limit_solref", "mjc:solreflimit"),
    ("limit_solimp", "mjc:solimplimit"),
    ("friction_solref", "mjc:solreffriction"),
    ("friction_solimp", "mjc:solimpfriction"),
)


def _shared_value(joints: dict, attribute: str):
    """The value of ``attribute`` most ``joints`` (prim path -> mjc attributes) share, as a tuple, or None
    for no joints; warns naming the joints whose value differs (the solver takes one for all)."""
    import warnings  # noqa: PLC0415
    from collections import Counter  # noqa: PLC0415

    values = {path: tuple(float(x) for x in attrs[attribute]) for path, attrs in joints.items() if attribute in attrs}
    if not values:
        return None
    shared = Counter(values.values()).most_common(1)[0][0]
    others = sorted(path.rsplit("/", 1)[-1] for path, value in values.items() if value != shared)
    if others:
        shown = ", ".join(others[:8]) + (f", ... ({len(others)} joints)" if len(others) > 8 else "")
        warnings.warn(
            f"{attribute.split(':', 1)[1]} of joints {shown} not simulated: the solver takes one value for "
            f"every joint, {list(shared)} (that of {len(values) - len(others)} of {len(values)} joints)",
            stacklevel=3,
        )
    return shared


def _actuators(records: list, world_count: int, dofs_per_world: int, tendons_per_world: int = 0):
    """The importer's actuator records for ``world_count`` replicated worlds (:meth:`Actuators.from_records`)."""
    from newton_gym.solvers import Actuators  # noqa: PLC0415

    return Actuators.from_records(records, world_count, dofs_per_world, tendons_per_world)


def build(robot, result: dict, world_count: int, device=None):
    """(model, solver, seconds) for ``world_count`` copies of ``robot``: ``finalize`` and
    ``SolverGeneralized`` timed together."""
    from newton_gym.sim import ModelBuilder  # noqa: PLC0415
    from newton_gym.solvers import SolverGeneralized  # noqa: PLC0415

    try:
        scene = ModelBuilder(up_axis=robot.up_axis, gravity=robot.gravity)
        scene.replicate(robot, world_count)
        option = solver_option(result)
        actuators = _actuators(result.get("actuators", []), world_count, robot.joint_dof_count, robot.tendon_count)
        start = time.perf_counter()
        model = scene.finalize(device)
        solver = SolverGeneralized(model, option, actuators=actuators)
        seconds = time.perf_counter() - start
    except Exception as exc:
        raise StageError("build", f"{world_count} world(s): {_message(exc)}") from None
    return model, solver, seconds


def roll_out(model, solver, dt: float, steps: int, samples: tuple) -> Rollout:
    """Step ``steps`` times at zero control from the model's initial state, recording world 0's body
    positions at the step counts in ``samples`` (0 is the start).

    Raises:
        StageError: at "step", where a body position is no longer finite or the solver raises.
    """
    import warp as wp  # noqa: PLC0415

    from newton_gym.sim import eval_fk  # noqa: PLC0415

    state, control, poses = model.state(), model.control(), model.state()
    eval_fk(model, model.joint_q, model.joint_qd, state)
    starts = model.body_world_start.numpy()
    first, count = int(starts[0]), int(starts[1] - starts[0])
    positions, taken, elapsed = {}, 0, 0.0
    try:
        for target in sorted(set(samples) | {steps}):
            begin = time.perf_counter()
            for _ in range(target - taken):
                solver.step(state, state, control, dt)
            wp.synchronize_device(model.device)
            elapsed += time.perf_counter() - begin
            taken = target
            # Poses of the joint state reached (the solver's body_q may be those its last step started from).
            eval_fk(model, state.joint_q, state.joint_qd, poses)
            body_q = poses.body_q.numpy()
            if not np.isfinite(body_q).all():
                raise StageError("step", f"body poses are not finite after {target * dt:.4g} s ({target} steps)")
            positions[target] = body_q[first : first + count, :3].astype(np.float64)
    except StageError:
        raise
    except Exception as exc:
        raise StageError("step", _message(exc)) from None
    replica = np.nan
    if model.world_count > 1:
        body_q = poses.body_q.numpy()
        worlds = [body_q[int(starts[w]) : int(starts[w]) + count, :3] for w in range(model.world_count)]
        replica = 1e3 * max(float(np.linalg.norm(w - worlds[0], axis=1).max(initial=0.0)) for w in worlds)
    return Rollout(positions, replica, elapsed / max(steps, 1))
