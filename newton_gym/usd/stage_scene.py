"""Stage-level settings: units, up axis, the import frame, gravity and the physics scene.

Units: ``metersPerUnit`` scales lengths, ``kilogramsPerUnit`` masses. USD's fallback metersPerUnit is
0.01 (centimetres); a stage that does not author it is read as metres, with a warning, and gravity
is 9.81 m/s^2 unless ``physics:gravityMagnitude`` is authored (then it is scaled by metersPerUnit) -
never the 981 of UsdPhysics' centimetre default. A stage whose up axis differs from the builder's is
rotated onto it (Y-up -> Z-up is +90 degrees about X, seed 002).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..sim.hostmath import normalize_transform, quat_between, quat_identity, quat_rotate
from ..sim.types import Axis
from ._pxr import require_pxr

__all__ = [
    "Units",
    "ImportFrame",
    "SceneInfo",
    "read_units",
    "make_frame",
    "read_scene",
    "apply_fluid_medium",
    "STANDARD_GRAVITY",
]

STANDARD_GRAVITY = 9.81  # [m/s^2], used when the stage authors no gravity magnitude


@dataclass(frozen=True)
class Units:
    """Stage units. ``m``: metres per stage length unit; ``kg``: kilograms per stage mass unit."""

    m: float = 1.0
    kg: float = 1.0

    def dof(self, quantity: str, angular: bool) -> float:
        """Factor converting a per-DOF ``quantity`` from stage units to SI (angles stay radians).

        quantity: "position", "velocity", "armature", "effort", "stiffness" or "damping".
        """
        if quantity in ("position", "velocity"):
            return 1.0 if angular else self.m
        if quantity == "effort":
            return self.kg * self.m * (self.m if angular else 1.0)
        # armature [kg m^2 | kg], stiffness [N m/rad | N/m], damping [N m s/rad | N s/m]
        return self.kg * (self.m * self.m if angular else 1.0)

    @property
    def inertia(self) -> float:
        return self.kg * self.m * self.m

    @property
    def density(self) -> float:
        return self.kg / self.m**3


def _qmul(a, b) -> tuple:
    """Hamilton product of two (x, y, z, w) quaternions, in plain floats (one pose at a time is far
    cheaper without numpy)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _qrot(q, v) -> tuple:
    """Rotate vector ``v`` by unit quaternion ``q`` (x, y, z, w)."""
    x, y, z, w = q
    tx, ty, tz = 2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


@dataclass(frozen=True)
class ImportFrame:
    """Maps stage poses into the builder: world poses get the up-axis rotation, the unit scale and the
    user's ``xform``; poses relative to a body only get the unit scale.

    Attributes:
        xform: (7,) the user's placement of the stage in the builder [m].
        up_rotation: (4,) quaternion (x, y, z, w) rotating the stage's up axis onto the builder's.
        scale: metres per stage unit.
    """

    xform: np.ndarray
    up_rotation: np.ndarray
    scale: float

    @property
    def _rotation(self) -> tuple:
        """The whole rotation applied to world poses: the user's, after the up-axis one."""
        return _qmul(tuple(self.xform[3:]), tuple(self.up_rotation))

    def world_pose(self, position, rotation_xyzw) -> np.ndarray:
        """A stage world pose -> builder world pose (7,) [m]."""
        rot = self._rotation
        p = _qrot(rot, [float(c) * self.scale for c in position])
        q = _qmul(rot, tuple(float(c) for c in rotation_xyzw))
        t = self.xform
        return np.array([p[0] + t[0], p[1] + t[1], p[2] + t[2], *q])

    def local_pose(self, position, rotation_xyzw) -> np.ndarray:
        """A pose relative to a body (stage units) -> (7,) [m] in the body frame."""
        return np.concatenate([np.asarray(position, float) * self.scale, np.asarray(rotation_xyzw, float)])

    def world_vector(self, v) -> np.ndarray:
        """Rotate a stage world-frame vector into the builder frame (no scaling)."""
        return np.array(_qrot(self._rotation, [float(c) for c in v]))


@dataclass
class SceneInfo:
    """What the PhysicsScene and the stage metadata say.

    Attributes:
        path: PhysicsScene prim path, or None.
        up_axis: the stage's up axis.
        gravity: (3,) gravity in the builder frame [m/s^2].
        time_steps_per_second / physics_dt: simulation rate [1/s] / step [s], None without a scene.
        max_solver_iterations: None without a scene.
        angle_degrees: MuJoCo angle-valued attributes are in degrees (``mjc:compiler:angle``).
        attributes: the scene prim's authored attributes.
        fluid_density / fluid_viscosity / wind: the fluid medium [kg/m^3], [Pa s], (3,) [m/s] in the builder
            frame, None where the stage does not author it (``mjc:option:density`` / ``viscosity`` /
            ``wind``).
    """

    path: str | None = None
    up_axis: Axis = Axis.Z
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -STANDARD_GRAVITY]))
    time_steps_per_second: float | None = None
    physics_dt: float | None = None
    max_solver_iterations: int | None = None
    angle_degrees: bool = True
    attributes: dict = field(default_factory=dict)
    fluid_density: float | None = None
    fluid_viscosity: float | None = None
    wind: np.ndarray | None = None


def read_units(ctx) -> Units:
    """metersPerUnit (metres when not authored, with a warning) and kilogramsPerUnit."""
    pxr = require_pxr()
    stage = ctx.stage
    if stage.HasAuthoredMetadata("metersPerUnit"):
        m = float(pxr.UsdGeom.GetStageMetersPerUnit(stage))
    else:
        m = 1.0
        ctx.warn(None, "the stage authors no metersPerUnit; reading it in metres (USD's fallback would be centimetres)")
    kg = float(pxr.UsdPhysics.GetStageKilogramsPerUnit(stage))
    if not (m > 0 and math.isfinite(m) and kg > 0 and math.isfinite(kg)):
        ctx.fail(None, f"invalid stage units metersPerUnit={m}, kilogramsPerUnit={kg}")
    return Units(m, kg)


def make_frame(ctx, units: Units) -> tuple[ImportFrame, Axis]:
    """The import frame from the stage's up axis, the builder's up axis and the user's xform."""
    pxr = require_pxr()
    token = str(pxr.UsdGeom.GetStageUpAxis(ctx.stage)).upper()
    stage_up = Axis.from_any(token if token in ("X", "Y", "Z") else "Y")
    builder_up = ctx.builder.up_axis
    if stage_up != builder_up:
        if not ctx.stage.HasAuthoredMetadata("upAxis"):
            ctx.warn(
                None,
                f"the stage authors no upAxis; using USD's fallback {stage_up.name} and rotating it "
                f"onto the builder's {builder_up.name}",
            )
        rot = quat_between(stage_up.to_vec3(), builder_up.to_vec3())
    else:
        rot = quat_identity()
    with ctx.at(None):
        xform = normalize_transform(ctx.options.xform)
    return ImportFrame(xform, rot, units.m), stage_up


def _gravity(ctx, scene_prim, units: Units, frame: ImportFrame, stage_up: Axis) -> np.ndarray:
    attrs = ctx.prims[scene_prim.GetPath()]
    magnitude = attrs.get("physics:gravityMagnitude", "float")
    if magnitude is None or math.isinf(magnitude):
        magnitude = STANDARD_GRAVITY  # SI already: never UsdPhysics' 981 cm/s^2 default
    else:
        magnitude *= units.m
    direction = attrs.get("physics:gravityDirection", "vec3")
    d = np.asarray(direction if direction is not None else (0.0, 0.0, 0.0), float)
    if np.linalg.norm(d) < 1e-12:
        d = -np.asarray(stage_up.to_vec3())
    d = quat_rotate(frame.up_rotation, d / np.linalg.norm(d))
    return d * magnitude


def read_scene(ctx, scene_paths: list, units: Units, frame: ImportFrame, stage_up: Axis) -> SceneInfo:
    """Gravity, rates and solver settings of the first PhysicsScene (a warning names extra scenes)."""
    info = SceneInfo(up_axis=stage_up)
    info.gravity = np.asarray(ctx.builder.gravity_vector, float)
    if not scene_paths:
        return info
    if len(scene_paths) > 1:
        ctx.warn(str(scene_paths[1]), f"several PhysicsScenes; only {scene_paths[0]} is used")
    path = str(scene_paths[0])
    attrs = ctx.prims[path]
    info.path = path
    info.attributes = {n: attrs.raw(n) for n in attrs.names}
    angle = attrs.get("mjc:compiler:angle", "token")
    info.angle_degrees = angle is None or angle.lower() != "radian"
    ctx.scene = info
    info.gravity = _gravity(ctx, attrs.prim, units, frame, stage_up)
    if not ctx.resolve("scene", "gravity_enabled", path):
        info.gravity = np.zeros(3)
    rate = ctx.resolve("scene", "time_steps_per_second", path)
    if rate is not None and rate > 0:
        info.time_steps_per_second = float(rate)
        info.physics_dt = 1.0 / float(rate)
    iterations = ctx.resolve("scene", "max_solver_iterations", path)
    info.max_solver_iterations = None if iterations is None else int(iterations)
    _read_fluid(ctx, info, path, units, frame)
    return info


def _read_fluid(ctx, info: SceneInfo, path: str, units: Units, frame: ImportFrame) -> None:
    """The fluid medium in SI and the builder frame (density kg/m^3 = kilogramsPerUnit / metersPerUnit^3,
    viscosity Pa s = kilogramsPerUnit / (metersPerUnit s), wind rotated like gravity onto the builder's up
    axis); a negative density or viscosity fails the import."""
    for key, scale in (("fluid_density", units.kg / units.m**3), ("fluid_viscosity", units.kg / units.m)):
        value = ctx.resolve("scene", key, path)
        if value is None:
            continue
        if not value >= 0.0:
            ctx.fail(path, f"{key.replace('fluid_', 'mjc:option:')} = {value!r}: the medium's must be >= 0")
        setattr(info, key, float(value) * scale)
    wind = ctx.resolve("scene", "wind", path)
    if wind is not None:
        info.wind = np.asarray(quat_rotate(frame.up_rotation, np.asarray(wind, float)), float) * units.m


def apply_fluid_medium(ctx) -> None:
    """Set the builder's fluid medium to what the stage authors (its values for the rest). The medium is one
    for all worlds: an import inside ``begin_world`` that would change a set medium only warns."""
    from ..sim.medium import fluid_medium, medium_is_set

    scene = ctx.scene
    if scene is None or (scene.fluid_density is None and scene.fluid_viscosity is None and scene.wind is None):
        return
    b = ctx.builder
    with ctx.at(scene.path):
        medium = fluid_medium(
            b.fluid_density if scene.fluid_density is None else scene.fluid_density,
            b.fluid_viscosity if scene.fluid_viscosity is None else scene.fluid_viscosity,
            b.wind if scene.wind is None else scene.wind,
        )
    current = fluid_medium(b.fluid_density, b.fluid_viscosity, b.wind)
    if medium == current:
        return
    if b.current_world != -1 and medium_is_set(b):
        ctx.warn(
            scene.path,
            f"the stage's fluid medium (density {medium[0]:g}, viscosity {medium[1]:g}, wind {list(medium[2])}) "
            f"differs from the builder's, which is kept: one medium serves every world",
        )
        return
    b.fluid_density, b.fluid_viscosity, b.wind = medium
