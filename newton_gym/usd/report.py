"""``newton-gym inspect <file.usda>``: what an import makes of a stage.

Lists the bodies, joints, shapes and masses imported, each value the schema resolvers resolved with
the attribute and resolver it came from, and the authored solver attributes nothing used.
"""

from __future__ import annotations

import argparse

import numpy as np

from ..sim.types import GeoType, JointType

__all__ = ["inspect_usd", "add_arguments", "run"]


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple, np.ndarray)):
        return "(" + ", ".join(_fmt(float(x)) if isinstance(x, (float, np.floating)) else str(x) for x in v) + ")"
    return str(v)


def _bodies(builder, start) -> list:
    tb = builder.tables["body"]
    lines = [f"Bodies ({tb.count - start}):"]
    for i in range(start, tb.count):
        lines.append(
            f"  [{i}] {tb.labels[i]}  mass {_fmt(float(tb.value('mass', i)))} kg  "
            f"com {_fmt(tb.value('com', i))} m  inertia diag {_fmt(np.diag(tb.value('inertia', i)))} kg m^2"
            + ("  kinematic" if tb.value("kinematic", i) else "")
        )
    return lines


def _joints(builder, start) -> list:
    tj, td, tb = builder.tables["joint"], builder.tables["dof"], builder.tables["body"]
    lines = [f"Joints ({tj.count - start}):"]
    for j in range(start, tj.count):
        p, c = int(tj.value("parent", j)), int(tj.value("child", j))
        n = int(tj.value("lin_count", j)) + int(tj.value("ang_count", j))
        q = int(tj.value("qd_start", j))
        lines.append(
            f"  [{j}] {tj.labels[j]}  {JointType(int(tj.value('type', j))).name}  "
            f"{tb.labels[p] if p >= 0 else 'world'} -> {tb.labels[c]}  dofs {n}"
        )
        for k in range(q, q + n):
            lines.append(
                f"      dof {k}: axis {_fmt(td.value('axis', k))} limits [{_fmt(float(td.value('limit_lower', k)))}, "
                f"{_fmt(float(td.value('limit_upper', k)))}] armature {_fmt(float(td.value('armature', k)))} "
                f"damping {_fmt(float(td.value('damping', k)))} ke {_fmt(float(td.value('target_ke', k)))} "
                f"kd {_fmt(float(td.value('target_kd', k)))}"
            )
    return lines


def _size(builder, s) -> str:
    ts = builder.tables["shape"]
    if int(ts.value("type", s)) != GeoType.HFIELD:
        return f"size {_fmt(ts.value('scale', s))} m"
    f = builder.heightfields[int(ts.value("heightfield", s))]
    return f"grid {f.nrow} x {f.ncol}  half extents ({_fmt(f.hx)}, {_fmt(f.hy)}) m  base {_fmt(f.base)} m"


def _shapes(builder, start) -> list:
    ts, tb = builder.tables["shape"], builder.tables["body"]
    lines = [f"Shapes ({ts.count - start}):"]
    for s in range(start, ts.count):
        b = int(ts.value("body", s))
        lines.append(
            f"  [{s}] {ts.labels[s]}  {GeoType(int(ts.value('type', s))).name}  "
            f"body {tb.labels[b] if b >= 0 else 'static'}  {_size(builder, s)}  "
            f"mu {_fmt(float(ts.value('mu', s)))} margin {_fmt(float(ts.value('margin', s)))} "
            f"gap {_fmt(float(ts.value('gap', s)))} density {_fmt(float(ts.value('density', s)))}"
            + ("" if ts.value("collide", s) else "  (no collisions)")
        )
    return lines


def _resolved(result, show_defaults) -> list:
    lines = ["Resolved values (value <- source):"]
    for path, values in sorted(result["resolved"].items()):
        shown = [(k, v, src) for k, (v, src) in sorted(values.items()) if show_defaults or "default" not in src]
        if shown:
            lines.append(f"  {path}")
            lines.extend(f"    {k} = {_fmt(v)}  <- {src}" for k, v, src in shown)
    return lines


def inspect_usd(source, schema_resolvers=None, show_defaults: bool = False, solver_option=None, **kwargs) -> str:
    """Import ``source`` into a fresh builder and describe the result as text.

    Args:
        source: USD file path or Usd.Stage.
        schema_resolvers: as for add_usd.
        show_defaults: also list values that came from importer or schema defaults.
        solver_option: the :class:`newton_gym.solvers.Option` to list at the end (None: ``Option()``, the
            settings ``SolverGeneralized(model)`` steps with).
        kwargs: further add_usd arguments.
    """
    from ..sim.builder import ModelBuilder
    from ..solvers.option import Option
    from .importer import import_stage
    from .schema_attrs import unused_attributes

    builder = ModelBuilder()
    result, ctx = import_stage(builder, source, schema_resolvers=schema_resolvers, **kwargs)
    head = [
        f"USD import of {result['source']}",
        f"  metersPerUnit {result['meters_per_unit']}, kilogramsPerUnit {result['kilograms_per_unit']}, "
        f"up axis {result['up_axis'].name}, gravity {_fmt(result['gravity'])} m/s^2, "
        f"physics_dt {result['physics_dt']}, max_solver_iterations {result['max_solver_iterations']}",
    ]
    lines = head + _bodies(builder, 0) + _joints(builder, 0) + _shapes(builder, 0)
    if result["actuators"]:
        lines.append(f"Actuators ({len(result['actuators'])}):")
        lines.extend(_actuator_line(a) for a in result["actuators"])
    lines += _resolved(result, show_defaults)
    unused = unused_attributes(ctx, result["schema_attrs"])
    lines.append("Authored solver attributes nothing used:")
    lines.extend(f"  {path}: {', '.join(names)}" for path, names in unused.items())
    if result["warnings"]:
        lines.append("Warnings:")
        lines.extend(f"  {w}" for w in result["warnings"])
    lines.append("Solver option (SolverGeneralized(model, option=Option(...)) or its keywords):")
    lines.extend(f"  {line}" for line in (solver_option or Option()).describe())
    return "\n".join(lines)


def _actuator_line(a: dict) -> str:
    """One actuator: transmission, control range, force law; a servo's kp / kv and effort limit as the
    solver uses them (their source attributes are listed under the resolved values)."""
    on = f"tendon {a['tendon']}" if a.get("tendon", -1) >= 0 else f"dof {a['dof']}"
    text = (
        f"  {a['path']} -> {a['target']} ({on}) gear {_fmt(a['gear'][0])} ctrl_range "
        f"{_fmt(a['ctrl_range']) if a['ctrl_limited'] else 'unlimited'} {a['gain_type']}/{a['bias_type']}"
    )
    if a["bias_type"] == "affine":
        bias = (list(a["bias_prm"]) + [0.0, 0.0, 0.0])[:3]
        text += f": kp {_fmt(a['gain_prm'][0])} (mjc:gainPrm[0]), kv {_fmt(-bias[2])} (-mjc:biasPrm[2])"
    if a["force_limited"]:
        text += f", force_range {_fmt(a['force_range'])} (mjc:forceRange)"
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``newton-gym inspect``."""
    parser.add_argument("file", help="USD file (.usda, .usdc, .usd)")
    parser.add_argument("--defaults", action="store_true", help="also list values taken from defaults")
    parser.add_argument("--root-path", default="/", help="import only the prims under this path")
    parser.add_argument(
        "--solver",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a solver Option field to set in the listed option (repeatable), e.g. --solver cone=elliptic",
    )


def _option(pairs: list):
    """The solver Option of ``--solver NAME=VALUE`` pairs (values read as Python literals, true / false / none
    in any case as the TOML configs write them, else strings)."""
    import ast

    from ..errors import SolverError
    from ..solvers.option import Option

    words = {"true": True, "false": False, "none": None}
    fields = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise SolverError(f"--solver {pair!r}: expected NAME=VALUE")
        text = text.strip()
        if text.lower() in words:
            fields[name.strip()] = words[text.lower()]
            continue
        try:
            fields[name.strip()] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            fields[name.strip()] = text
    return Option().replace(**fields)


def run(args: argparse.Namespace) -> int:
    """Print the report (exit 0) or the import error (exit 1)."""
    import sys
    import warnings

    from ..errors import ImportFailedError, SolverError

    try:
        option = _option(getattr(args, "solver", []))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(inspect_usd(args.file, show_defaults=args.defaults, root_path=args.root_path, solver_option=option))
    except (ImportFailedError, SolverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # python -m newton_gym.usd.report FILE
    import sys

    _parser = argparse.ArgumentParser(prog="newton-gym inspect", description=__doc__.splitlines()[0])
    add_arguments(_parser)
    sys.exit(run(_parser.parse_args()))
