"""What a robot check found: the result types, the verdict rule and the printed report."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = [
    "BodyError",
    "CheckResult",
    "HALF_TOLERANCE_MM",
    "FULL_TOLERANCE_MM",
    "verdict",
    "format_report",
    "group_warnings",
]

# Body position error against MuJoCo C that still counts as "works": at half the run and at its end.
HALF_TOLERANCE_MM = 5.0
FULL_TOLERANCE_MM = 20.0


@dataclass
class BodyError:
    """One body's distance from MuJoCo C.

    Attributes:
        name: the MuJoCo body name (the USD prim name it was converted to, unnamed bodies ``body_<id>``).
        start_mm: distance of the body origins at t = 0 [mm] (the start states agree where it is ~0).
        half_mm: distance at half the run [mm].
        full_mm: distance at the end of the run [mm].
        sensitivity_mm: MuJoCo against MuJoCo from qpos perturbed by +-1e-7 (the farther), at the end of the
            run [mm].
        half_sensitivity_mm: the same at half the run [mm].
    """

    name: str
    start_mm: float
    half_mm: float
    full_mm: float
    sensitivity_mm: float
    half_sensitivity_mm: float = 0.0


@dataclass
class CheckResult:
    """Outcome of :func:`newton_gym.check.check_robot` on one file.

    Attributes:
        path: the file checked (absolute).
        kind: "mjcf", "urdf" or "usd".
        stage: the stage that failed ("convert", "import", "build", "step", "replicate"), or None.
        error: that stage's error message, or None.
        warnings: every warning emitted on the way (converter, importer, solver), each once, in order;
            they name what was dropped or is not simulated.
        usd_path: the USD the check imported (None before conversion succeeded).
        body_count: bodies of one world (massless links for multi-joint bodies included).
        dof_count: DOFs of one world.
        dt: step [s] (the file's ``<option timestep>`` for MJCF).
        seconds: simulated time [s].
        build_s: ``finalize`` + ``SolverGeneralized(model)`` for one world [s] (the first check in a process
            also loads Warp's compiled kernels).
        build4_s: the same for four worlds made by ``replicate(robot, 4)`` [s].
        step_ms: mean wall time of one step of one world [ms].
        finite: whether every body pose stayed finite (None when stepping did not run).
        replica_mm: largest distance of a body in worlds 1-3 from the same body in world 0 at the end [mm].
        compared: whether MuJoCo C was run beside us.
        reference_note: why MuJoCo C was not run, or what differs in its set-up (time step), else "".
        bodies: per-body errors, worst first (bodies named alike on both sides).
        unmatched: MuJoCo body names without a body of that name on our side.
    """

    path: str
    kind: str = ""
    stage: str | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    usd_path: str | None = None
    body_count: int = 0
    dof_count: int = 0
    dt: float = 0.0
    seconds: float = 0.0
    build_s: float = math.nan
    build4_s: float = math.nan
    step_ms: float = math.nan
    finite: bool | None = None
    replica_mm: float = math.nan
    compared: bool = False
    reference_note: str = ""
    bodies: list[BodyError] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)

    @property
    def start_mm(self) -> float:
        """Worst body error at t = 0 [mm] (NaN when not compared)."""
        return _worst(self.bodies, "start_mm")

    @property
    def half_mm(self) -> float:
        """Worst body error at half the run [mm] (NaN when not compared)."""
        return _worst(self.bodies, "half_mm")

    @property
    def full_mm(self) -> float:
        """Worst body error at the end of the run [mm] (NaN when not compared)."""
        return _worst(self.bodies, "full_mm")

    @property
    def sensitivity_mm(self) -> float:
        """MuJoCo's own divergence at the end of the run after a +-1e-7 qpos perturbation [mm]."""
        return _worst(self.bodies, "sensitivity_mm")

    @property
    def half_sensitivity_mm(self) -> float:
        """MuJoCo's own divergence at half the run after a +-1e-7 qpos perturbation [mm]."""
        return _worst(self.bodies, "half_sensitivity_mm")

    @property
    def verdict(self) -> str:
        """One line: "works", "chaotic (MuJoCo itself diverges)", "differs", "runs (not compared: ...)"
        or "fails at <stage>: <error>"."""
        return verdict(self)

    @property
    def ok(self) -> bool:
        """Whether the verdict is works, chaotic or runs-not-compared (``newton-gym check`` exits 0)."""
        return self.verdict.split(" ", 1)[0] in ("works", "chaotic", "runs")


def _worst(bodies: list[BodyError], name: str) -> float:
    values = [getattr(b, name) for b in bodies]
    if not values:
        return math.nan
    return max(values, key=lambda v: math.inf if math.isnan(v) else v)


def verdict(result: CheckResult) -> str:
    """The one-line verdict of ``result``.

    "works": within 5 mm of MuJoCo C at half the run and 20 mm at its end. "chaotic": not within, and
    MuJoCo itself moves by more than a tolerance (5 mm at half the run, 20 mm at its end) when its start
    qpos is nudged by 1e-7 either way, so a distance says nothing about our solver (a robot at an exact tie,
    such as a mirror-symmetric one whose two sides meet face to face, diverges one way only). "differs":
    not within, and MuJoCo is not chaotic.
    """
    if result.stage is not None:
        return f"fails at {result.stage}: {result.error}"
    if not result.compared:
        return f"runs (not compared with MuJoCo: {result.reference_note or 'no reference'})"
    if not result.bodies:
        return "runs (not compared with MuJoCo: no body names in common)"
    half, full = result.half_mm, result.full_mm
    if half <= HALF_TOLERANCE_MM and full <= FULL_TOLERANCE_MM:
        return "works"
    if result.sensitivity_mm > FULL_TOLERANCE_MM or result.half_sensitivity_mm > HALF_TOLERANCE_MM:
        return "chaotic (MuJoCo itself diverges)"
    return "differs"


def _mm(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3g}"


def format_report(result: CheckResult, worst: int = 10) -> str:
    """The report ``newton-gym check`` prints: model size, timings, the ``worst`` bodies' errors, the
    warnings and the verdict (last line)."""
    lines = [f"newton-gym check: {result.path} ({result.kind or 'unknown format'})"]
    if result.usd_path:
        lines.append(f"  usd: {result.usd_path}")
    if result.dt > 0.0:
        lines.append(f"  model: {result.body_count} bodies, {result.dof_count} DOFs, dt {result.dt:g} s")
    if not math.isnan(result.build_s):
        text = f"  construction (finalize + SolverGeneralized): {result.build_s:.3f} s for 1 world"
        if not math.isnan(result.build4_s):
            text += f", {result.build4_s:.3f} s for 4 worlds"
        lines.append(text)
    if not math.isnan(result.step_ms):
        lines.append(f"  stepping: {result.seconds:g} s at zero control, {result.step_ms:.3f} ms per step")
    if result.finite is not None:
        replica = f", worlds 1-3 within {_mm(result.replica_mm)} mm of world 0" if result.finite else ""
        lines.append(f"  finite: {'yes' if result.finite else 'no'}{replica}")
    if result.reference_note:
        lines.append(f"  MuJoCo: {result.reference_note}")
    if result.bodies:
        lines += _body_table(result, worst)
    if result.unmatched:
        lines.append(f"  MuJoCo bodies with no body of that name here: {', '.join(result.unmatched)}")
    if result.warnings:
        lines.append(f"  warnings ({len(result.warnings)}): what was dropped or is not simulated")
        lines += [f"    - {w}" for w in group_warnings(result.warnings)]
    else:
        lines.append("  warnings: none")
    lines.append(f"verdict: {result.verdict}")
    return "\n".join(lines)


# A file path with an optional line number, then ": " (the report names the file once, in its first line).
_WHERE = re.compile(r"(?:^|(?<=\s))/[^\s:]*\.(?:xml|mjcf|urdf|usd|usda|usdc|usdz)(?::\d+)?: ")
# The parts of a message that name one element: quoted names, prim paths, numbers.
_NAMES = re.compile(r"'[^']*'|(?<![\w/])/[\w/]+|\b\d+\b")


def group_warnings(messages: list[str]) -> list[str]:
    """``messages`` without the file paths, those that differ only in the element they name (a quoted
    name, a prim path, an index) merged into one line listing the names: "<sensor name='*'> dropped: ...
    (x30: 'a', 'b', ...)". Order of first appearance is kept."""
    groups: dict[str, list[list[str]]] = {}
    for message in messages:
        text = _WHERE.sub("", message)
        groups.setdefault(_NAMES.sub("*", text), []).append([text, *_NAMES.findall(text)])
    lines = []
    for members in groups.values():
        if len(members) == 1:
            lines.append(members[0][0])
            continue
        columns = list(zip(*(m[1:] for m in members)))
        varying = [k for k, column in enumerate(columns) if len(set(column)) > 1]
        names = ["/".join(m[1 + k] for k in varying) for m in members]
        shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
        lines.append(f"{_starred(members[0][0], varying)} (x{len(members)}: {shown})")
    return lines


def _starred(text: str, varying: list[int]) -> str:
    """``text`` with its ``varying``-th element names (by order of appearance) replaced by ``*``."""
    parts, end = [], 0
    for k, match in enumerate(_NAMES.finditer(text)):
        parts.append(text[end : match.start()] + ("*" if k in varying else match.group(0)))
        end = match.end()
    return "".join(parts) + text[end:]


def _body_table(result: CheckResult, worst: int) -> list[str]:
    half, full = result.seconds / 2.0, result.seconds
    shown = result.bodies[:worst]
    width = max(4, *(len(b.name) for b in shown))
    head = (
        f"  {'body':<{width}}  {'t=0 [mm]':>9}  {f't={half:g}s [mm]':>12}  {f't={full:g}s [mm]':>12}"
        f"  {'MuJoCo self [mm]':>16}"
    )
    lines = [f"  body position error against MuJoCo C (worst {len(shown)} of {len(result.bodies)}):", head]
    for b in shown:
        lines.append(
            f"  {b.name:<{width}}  {_mm(b.start_mm):>9}  {_mm(b.half_mm):>12}  {_mm(b.full_mm):>12}"
            f"  {_mm(b.sensitivity_mm):>16}"
        )
    lines.append(
        f"  worst: {_mm(result.half_mm)} mm at {half:g} s (tolerance {HALF_TOLERANCE_MM:g}), "
        f"{_mm(result.full_mm)} mm at {full:g} s (tolerance {FULL_TOLERANCE_MM:g}); MuJoCo's own "
        f"sensitivity {_mm(result.half_sensitivity_mm)} mm at {half:g} s, {_mm(result.sensitivity_mm)} mm at {full:g} s"
    )
    return lines
