"""Opening the source and running the native UsdPhysics parser over the imported range.

The parser (``UsdPhysics.LoadUsdPhysicsFromRange``, new name ``UsdPhysicsLoadStageFromPrimRange``)
returns descriptors per object type; :class:`ParsedStage` sorts them by role. When a rigid body holds
more mesh colliders than OpenUSD's parser survives multi-threaded (seed 000, "Limitations"), the parse
runs on one thread and the previous concurrency limit is restored afterwards.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from ..errors import ImportFailedError
from ._pxr import MESH_COLLIDER_THREAD_LIMIT, require_pxr, work_thread_limit

__all__ = ["open_stage", "ParsedStage", "parse_physics", "first_error_line"]


def first_error_line(exc) -> str:
    """The message of the first OpenUSD diagnostic in ``exc``, without its C++ location. OpenUSD's
    diagnostics quote the offending text, which may be bytes that are not UTF-8: those are replaced."""
    try:
        text = str(exc)
    except UnicodeDecodeError:
        text = " ".join(
            str(getattr(e, "commentary", "")) if _decodes(e) else "(text that is not valid UTF-8)"
            for e in getattr(exc, "args", ())
        )
        if not text.strip():
            return "the file holds bytes that are not valid UTF-8"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if " : '" in ln:
            return ln.split(" : '", 1)[1].rstrip("'")
    return lines[0] if lines else type(exc).__name__


def _decodes(error) -> bool:
    try:
        str(getattr(error, "commentary", ""))
        return True
    except UnicodeDecodeError:
        return False


def open_stage(source):
    """Open ``source`` (a file path or a Usd.Stage).

    Returns:
        (stage, source_name, notes): notes lists remarks for the warnings (e.g. unsaved edits used).
    Raises:
        ImportFailedError: missing file, unreadable or malformed USD, or a source of another type.
    """
    pxr = require_pxr()
    if isinstance(source, pxr.Usd.Stage):
        return source, source.GetRootLayer().identifier, []
    if not isinstance(source, (str, os.PathLike)):
        raise ImportFailedError(f"add_usd: source must be a file path or a Usd.Stage, got {type(source).__name__}")
    path = os.fspath(source)
    if not os.path.isfile(path):
        raise ImportFailedError(f"{path}: file not found")
    notes = []
    layer = pxr.Sdf.Layer.Find(os.path.abspath(path))
    if layer is not None:
        if layer.dirty:
            notes.append("the file's layer is open in this process with unsaved edits; importing those edits")
        else:
            layer.Reload(force=True)  # a layer cached by an earlier Open would hide changes made on disk
    try:
        stage = pxr.Usd.Stage.Open(path)
    except pxr.Tf.ErrorException as exc:
        raise ImportFailedError(f"{path}: not a readable USD file: {first_error_line(exc)}") from None
    except UnicodeDecodeError as exc:
        raise ImportFailedError(
            f"{path}: not a readable USD file: text that is not valid UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    if stage is None:
        raise ImportFailedError(f"{path}: not a readable USD file")
    return stage, path, notes


@dataclass
class ParsedStage:
    """UsdPhysics descriptors of the imported range, as (prim path string, descriptor) pairs.

    Attributes:
        shapes / joints also carry the ObjectType name: (path, desc, type name).
        unsupported: (path, type name) of custom shapes/joints and sphere-point shapes.
        single_threaded: whether the parse ran with the one-thread workaround.
    """

    scenes: list = field(default_factory=list)
    bodies: list = field(default_factory=list)
    shapes: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    articulations: list = field(default_factory=list)
    materials: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    unsupported: list = field(default_factory=list)
    single_threaded: bool = False

    def is_empty(self) -> bool:
        return not (self.scenes or self.bodies or self.shapes or self.joints or self.articulations)


_SHAPES = (
    "CubeShape",
    "SphereShape",
    "CapsuleShape",
    "Capsule1Shape",
    "CylinderShape",
    "Cylinder1Shape",
    "ConeShape",
    "MeshShape",
    "PlaneShape",
)
_JOINTS = ("FixedJoint", "RevoluteJoint", "PrismaticJoint", "SphericalJoint", "DistanceJoint", "D6Joint")
_UNSUPPORTED = ("CustomShape", "SpherePointsShape", "CustomJoint")
_ROLES = {
    "Scene": "scenes",
    "RigidBody": "bodies",
    "Articulation": "articulations",
    "RigidBodyMaterial": "materials",
    "CollisionGroup": "groups",
}


def max_mesh_colliders_per_body(prims) -> int:
    """The largest number of mesh colliders under one rigid body among ``prims``."""
    pxr = require_pxr()
    counts = Counter()
    for prim in prims:
        if not (prim.IsA(pxr.UsdGeom.Mesh) and prim.HasAPI(pxr.UsdPhysics.CollisionAPI)):
            continue
        anc = prim
        while anc and not anc.IsPseudoRoot():
            if anc.HasAPI(pxr.UsdPhysics.RigidBodyAPI):
                counts[str(anc.GetPath())] += 1
                break
            anc = anc.GetParent()
    return max(counts.values(), default=0)


def _run_parser(ctx):
    pxr = require_pxr()
    P = pxr.UsdPhysics
    load = getattr(P, "UsdPhysicsLoadStageFromPrimRange", None) or P.LoadUsdPhysicsFromRange
    many = max_mesh_colliders_per_body(ctx.prims.range_prims()) > MESH_COLLIDER_THREAD_LIMIT
    with work_thread_limit(many) as single:
        if many and not single:
            ctx.warn(
                None,
                f"a rigid body has more than {MESH_COLLIDER_THREAD_LIMIT} mesh colliders and "
                "PXR_WORK_THREAD_LIMIT is set to more than 1: OpenUSD's parser may crash",
            )
        raw = load(ctx.stage, [ctx.options.root_path], excludePaths=list(ctx.prims.ignore_paths))
    return raw, many and single


def parse_physics(ctx) -> ParsedStage:
    """Run the UsdPhysics parser over ``ctx.options.root_path`` minus ``ignore_paths``."""
    raw, single = _run_parser(ctx)
    out = ParsedStage(single_threaded=single)
    for obj_type, (paths, descs) in raw.items():
        name = obj_type.name if hasattr(obj_type, "name") else str(obj_type).rsplit(".", 1)[-1]
        pairs = [(str(p), d) for p, d in zip(paths, descs)]
        if name in _SHAPES:
            out.shapes.extend((p, d, name) for p, d in pairs)
        elif name in _JOINTS:
            out.joints.extend((p, d, name) for p, d in pairs)
        elif name in _UNSUPPORTED:
            out.unsupported.extend((p, name) for p, _ in pairs)
        elif name in _ROLES:
            getattr(out, _ROLES[name]).extend(pairs)
    order = {str(p.GetPath()): i for i, p in enumerate(ctx.prims.range_prims())}
    for role in ("bodies", "shapes", "joints", "articulations", "materials", "groups"):
        getattr(out, role).sort(key=lambda item: order.get(item[0], len(order)))
    if not out.scenes and ctx.options.root_path not in ("/", ""):
        out.scenes = _scenes_outside_range(ctx.stage)
    return out


def _scenes_outside_range(stage) -> list:
    """PhysicsScenes near the stage root, for imports restricted to a sub-tree by root_path."""
    P = require_pxr().UsdPhysics
    found = []
    for prim in stage.GetPseudoRoot().GetChildren():
        for p in [prim, *prim.GetChildren()]:
            if p.IsA(P.Scene):
                found.append((str(p.GetPath()), None))
    return found
