"""``add_usd``: import a UsdPhysics stage into a ModelBuilder (seed 000).

The import runs as small stages over one :class:`~newton_gym.usd.context.ImportContext`:

1. open the source and run the native UsdPhysics parser (:mod:`.parse`);
2. units, up axis and the physics scene (:mod:`.stage_scene`);
3. bodies, colliders and mass properties (:mod:`.stage_bodies`, :mod:`.stage_shapes`, :mod:`.stage_mass`);
   sites once the bodies are written (:mod:`.stage_sites`), tendons once the joints and sites are
   (:mod:`.stage_tendons`);
4. joints and kinematic trees (:mod:`.stage_joints`, :mod:`.joint_dofs`, :mod:`.stacked_joints`,
   :mod:`.topology`, :mod:`.collapse`);
5. writing into the builder (:mod:`.emit`), joint equalities (:mod:`.stage_equalities`), collision
   filters, custom attributes, actuators and the solver-specific attributes (:mod:`.collision_filters`,
   :mod:`.custom_attrs`, :mod:`.actuators`, :mod:`.schema_attrs`).

A failure anywhere restores the builder to its state before the call.
"""

from __future__ import annotations

import numpy as np

from ..errors import ImportFailedError, ImportOptionTypeError, NewtonGymError
from ._pxr import require_pxr
from .actuators import import_actuators
from .attr_checks import check_attributes
from .collapse import collapse_fixed_joints
from .collision_filters import apply_collision_filters
from .context import ImportContext, ImportOptions
from .custom_attrs import apply_body_extras, apply_custom_values, declare_scene_attributes
from .emit import emit
from .parse import first_error_line, open_stage, parse_physics
from .prims import PrimCache
from .resolvers import SchemaResolver, default_resolvers
from .schema_attrs import collect_schema_attrs
from .stacked_joints import stack_joints
from .stage_bodies import plan_bodies
from .stage_equalities import add_joint_equalities, add_tendon_equalities
from .stage_joints import is_joint_prim, plan_joints
from .stage_mass import compute_mass
from .stage_scene import apply_fluid_medium, make_frame, read_scene, read_units
from .stage_shapes import plan_shapes
from .stage_sites import add_sites
from .stage_tendons import add_tendons
from .topology import build_components

__all__ = ["add_usd", "import_stage"]


def add_usd(
    builder,
    source,
    *,
    xform=None,
    floating: bool | None = None,
    schema_resolvers=None,
    enable_self_collisions: bool = True,
    root_path: str = "/",
    ignore_paths=None,
    collapse_fixed_joints: bool = False,
    joint_ordering: str | None = "dfs",
    only_load_enabled_joints: bool = True,
    apply_scene_gravity: bool = True,
    mesh_maxhullvert: int | None = None,
) -> dict:
    """Import the UsdPhysics content of a USD stage into ``builder`` (in its current world scope).

    Args:
        builder: the ModelBuilder to add to.
        source: a USD file path or a ``pxr.Usd.Stage``.
        xform: (7,) placement of the stage in the builder (p [m], quat xyzw); None: identity.
        floating: None keeps the stage's choice (a root body without a joint to the world gets a free
            joint); False welds such roots to the world; True also frees roots welded by a FixedJoint.
        schema_resolvers: SchemaResolver instances, highest priority first. None: Newton, PhysX, MuJoCo
            (all three, so attributes authored for another engine are not dropped; Newton's win).
        enable_self_collisions: default of each articulation's self-collision flag (authored
            ``newton:selfCollisionEnabled`` / ``physxArticulation:enabledSelfCollisions`` win).
        root_path: import only the prims under this path.
        ignore_paths: prim paths excluded with their descendants.
        collapse_fixed_joints: merge bodies welded by fixed joints into their parents.
        joint_ordering: "dfs", "bfs" or None (stage order, parents first).
        only_load_enabled_joints: skip joints with ``physics:jointEnabled = false`` (a disabled loop-closing
            joint becomes a switched-off equality constraint instead).
        apply_scene_gravity: set ``builder.gravity`` from the PhysicsScene (in the global scope; inside
            ``begin_world`` a differing stage gravity only warns, the world keeps its own). A fluid medium the
            scene authors (``mjc:option:density`` / ``viscosity`` / ``wind``) is always set on the builder
            (``builder.fluid_density``, ...; inside ``begin_world`` only where the builder's is unset).
        mesh_maxhullvert: default hull vertex limit of convex-hull mesh colliders (64).

    Returns:
        dict with ``path_body_map``, ``path_joint_map``, ``path_shape_map``, ``path_articulation_map``,
        ``path_equality_map`` (loop-closing joints and ``newton:equality`` prims, see
        :mod:`.stage_equalities`), ``path_site_map`` (prim path -> builder index; sites are the Xforms
        tagged ``mjc:site = true``, see :mod:`.stage_sites`), ``path_tendon_map`` (``MjcTendon`` prim path ->
        tendon index, see :mod:`.stage_tendons`), ``auto_joint_map`` (key -> index of the free or
        fixed joints added for root bodies), ``auto_body_map`` (key -> index of the massless links added
        between joints that join the same two bodies, see :mod:`.stacked_joints`), ``physics_dt`` [s],
        ``time_steps_per_second``, ``max_solver_iterations``, ``up_axis`` (the stage's Axis), ``gravity`` (3,) [m/s^2],
        ``meters_per_unit``, ``kilograms_per_unit``, ``scene_attributes``, ``schema_attrs``,
        ``actuators`` (records of the joint and tendon actuators, see :mod:`.actuators`),
        ``custom_attributes`` (keys declared by the stage), ``collapsed_bodies``,
        ``resolved`` ({prim: {key: (value, source)}}), ``collision_filter_pair_count``, ``warnings``.

    Raises:
        ImportFailedError: the file is missing or not USD, holds no UsdPhysics content, or a prim is
            invalid (the message names the file and prim). The builder is then unchanged.
    """
    return import_stage(
        builder,
        source,
        xform=xform,
        floating=floating,
        schema_resolvers=schema_resolvers,
        enable_self_collisions=enable_self_collisions,
        root_path=root_path,
        ignore_paths=ignore_paths,
        collapse_fixed_joints=collapse_fixed_joints,
        joint_ordering=joint_ordering,
        only_load_enabled_joints=only_load_enabled_joints,
        apply_scene_gravity=apply_scene_gravity,
        mesh_maxhullvert=mesh_maxhullvert,
    )[0]


def import_stage(
    builder,
    source,
    *,
    xform=None,
    floating=None,
    schema_resolvers=None,
    enable_self_collisions=True,
    root_path="/",
    ignore_paths=None,
    collapse_fixed_joints=False,
    joint_ordering="dfs",
    only_load_enabled_joints=True,
    apply_scene_gravity=True,
    mesh_maxhullvert=None,
):
    """:func:`add_usd` returning ``(result, context)``; the ImportContext tells ``inspect`` which
    attributes were read."""
    require_pxr()
    resolvers = default_resolvers() if schema_resolvers is None else list(schema_resolvers)
    for r in resolvers:
        if not isinstance(r, SchemaResolver):
            raise ImportOptionTypeError(f"add_usd: schema_resolvers must hold SchemaResolver instances, got {r!r}")
    if joint_ordering not in ("dfs", "bfs", None):
        raise ImportFailedError(f"add_usd: joint_ordering must be 'dfs', 'bfs' or None, got {joint_ordering!r}")
    if isinstance(ignore_paths, str):
        ignore_paths = [ignore_paths]
    options = ImportOptions(
        xform=xform,
        floating=floating,
        enable_self_collisions=enable_self_collisions,
        root_path=str(root_path or "/"),
        ignore_paths=tuple(str(p) for p in ignore_paths or ()),
        collapse_fixed_joints=collapse_fixed_joints,
        joint_ordering=joint_ordering,
        only_load_enabled_joints=only_load_enabled_joints,
        apply_scene_gravity=apply_scene_gravity,
        mesh_maxhullvert=mesh_maxhullvert,
    )
    stage, name, notes = open_stage(source)
    ctx = ImportContext(
        stage, name, builder, resolvers, options, PrimCache(stage, name, options.root_path, options.ignore_paths)
    )
    for note in notes:
        ctx.warn(None, note)
    snapshot, gravity = builder.snapshot(), builder.gravity
    try:
        return _import(ctx), ctx
    except BaseException as exc:
        builder.restore(snapshot)
        builder.gravity = gravity
        if isinstance(exc, require_pxr().Tf.ErrorException):
            raise ImportFailedError(f"{name}: OpenUSD error: {first_error_line(exc)}") from exc
        if isinstance(exc, UnicodeDecodeError):
            raise ImportFailedError(
                f"{name}: holds text that is not valid UTF-8 ({exc.reason} at byte {exc.start})"
            ) from exc
        if isinstance(exc, Exception) and not isinstance(exc, NewtonGymError):
            # the builder is restored; the error keeps the package's type and says it is ours to fix
            raise ImportFailedError(
                f"{name}: internal error while importing ({type(exc).__name__}: {exc}); please report it with this file"
            ) from exc
        raise


def _check_has_physics(ctx, parsed):
    if not parsed.is_empty():
        return
    if any(is_joint_prim(p) for p in ctx.prims.range_prims()):
        return
    ctx.fail(
        None, f"no UsdPhysics content under {ctx.options.root_path} (no PhysicsScene, rigid body, collider or joint)"
    )


def _import(ctx) -> dict:
    ctx.units = read_units(ctx)
    check_attributes(ctx)
    ctx.frame, stage_up = make_frame(ctx, ctx.units)
    parsed = parse_physics(ctx)
    _check_has_physics(ctx, parsed)
    ctx.scene = read_scene(ctx, [p for p, _ in parsed.scenes], ctx.units, ctx.frame, stage_up)
    bodies, disabled = plan_bodies(ctx, parsed)
    static_shapes = plan_shapes(ctx, parsed, bodies)
    compute_mass(ctx, bodies)
    joints = plan_joints(ctx, parsed, bodies, disabled)
    links = stack_joints(bodies, joints)
    components, loops = build_components(ctx, bodies, joints, parsed.articulations)
    collapsed = collapse_fixed_joints(components, bodies) if ctx.options.collapse_fixed_joints else {}
    out = emit(ctx, components, static_shapes, loops, bodies)
    for merged, survivor in collapsed.items():
        out.body[merged] = out.body[survivor]
    auto_bodies = {key: out.body.pop(key) for key in links}  # not prims: kept out of the per-prim stages
    add_joint_equalities(ctx, out)
    sites = add_sites(ctx, out)
    tendons = add_tendons(ctx, out, sites)
    add_tendon_equalities(ctx, out, tendons)
    pair_count = apply_collision_filters(ctx, parsed, out, bodies)
    declared = declare_scene_attributes(ctx)
    apply_custom_values(ctx, out)
    declared += apply_body_extras(ctx, out, bodies)
    actuators = import_actuators(ctx, out.joint, tendons)
    _apply_gravity(ctx)
    apply_fluid_medium(ctx)
    return _result(ctx, out, declared, actuators, collapsed, pair_count, auto_bodies, sites, tendons)


def _apply_gravity(ctx):
    g = ctx.scene.gravity
    up = ctx.builder.up_vector
    along = float(np.dot(g, up))
    if np.linalg.norm(g - along * up) > 1e-6 * max(1.0, np.linalg.norm(g)):
        ctx.warn(
            ctx.scene.path,
            f"gravity {g.tolist()} is not along the builder's up axis; only its component "
            f"along {ctx.builder.up_axis.name} is applied",
        )
    if ctx.scene.path is None or not ctx.options.apply_scene_gravity:
        return
    world = ctx.builder.current_world
    if world == -1:
        ctx.builder.gravity = along
    elif not np.allclose(ctx.builder.world_gravity[world], along * up, atol=1e-6):
        ctx.warn(
            ctx.scene.path,
            f"the stage's gravity {(along * up).tolist()} differs from world {world}'s "
            f"{list(ctx.builder.world_gravity[world])}; pass it to begin_world(gravity=...)",
        )


def _result(ctx, out, declared, actuators, collapsed, pair_count, auto_bodies, sites, tendons) -> dict:
    scene = ctx.scene
    return {
        "path_body_map": dict(out.body),
        "path_joint_map": dict(out.joint),
        "path_shape_map": dict(out.shape),
        "path_articulation_map": dict(out.articulation),
        "path_equality_map": dict(out.equality),
        "path_site_map": sites,
        "path_tendon_map": tendons,
        "auto_joint_map": dict(out.auto_joints),
        "auto_body_map": auto_bodies,
        "physics_dt": scene.physics_dt,
        "time_steps_per_second": scene.time_steps_per_second,
        "max_solver_iterations": scene.max_solver_iterations,
        "up_axis": scene.up_axis,
        "gravity": tuple(float(x) for x in scene.gravity),
        "meters_per_unit": ctx.units.m,
        "kilograms_per_unit": ctx.units.kg,
        "scene_attributes": dict(scene.attributes),
        "schema_attrs": collect_schema_attrs(ctx),
        "actuators": actuators,
        "custom_attributes": declared,
        "collapsed_bodies": dict(collapsed),
        "resolved": {p: dict(v) for p, v in ctx.provenance.values.items()},
        "collision_filter_pair_count": pair_count,
        "warnings": list(ctx.warnings),
        "source": ctx.source_name,
    }
