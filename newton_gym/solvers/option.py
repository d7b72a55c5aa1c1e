"""The settings of :class:`.SolverGeneralized` as one frozen, validated value (MuJoCo's mjOption)."""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

from ..errors import SolverError

__all__ = ["Option"]


@dataclass(frozen=True)
class Option:
    """How :class:`.SolverGeneralized` steps a model. Every field is checked when the Option is made.

    Attributes:
        substeps: substeps per ``step`` (each of dt / substeps), >= 1.
        iterations: most Newton iterations, or PGS sweeps, per substep, >= 0.
        cone: friction cone, "pyramidal" (MuJoCo's default) or "elliptic".
        solver: constraint solver, "newton" (MuJoCo's default: primal Newton with exact line search) or
            "pgs" (projected Gauss-Seidel on the dual). Newton needs each world's DOFs in one contiguous
            range (what ``replicate`` / ``add_world`` build); otherwise PGS runs, with a warning.
        tolerance: Newton stops once its improvement or gradient, scaled by 1 / (mean inertia * DOFs) of the
            world, falls below this (MuJoCo's opt.tolerance), or the cost stops changing in float32; >= 0.
        ls_iterations: most 1-D Newton steps of one Newton line search, >= 0.
        integrator: "implicitfast" (MuJoCo's: explicit gyroscopic torque, free joints rotate by exp(dt w'),
            damping and drive gains velocity-implicit after the constraint solve) or "midpoint" (the same,
            but free bodies take the implicit-midpoint gyroscopic torque and rotation, which conserve a
            torque-free body's energy and angular momentum).
        max_speed: DOF speed [m/s, rad/s] above which a world is flagged unhealthy, > 0.
        friction_rest_speed: DOF speed [m/s, rad/s] below which joint friction uses its static effort, >= 0.
        limit_solref, friction_solref: MuJoCo solref (time constant [s], damping ratio) of joint-limit and
            joint-friction rows (the model stores none per joint).
        limit_solimp, friction_solimp: MuJoCo solimp (d0, dwidth, width [m], midpoint, power) of those rows.
        pgs_tolerance: a world's PGS sweeps stop early once the sum of its force changes in one sweep is at
            most this fraction of the sum of its forces (0: always run ``iterations`` sweeps); >= 0.
        pgs_subspace: PGS ends each sweep with a subspace step on the rows it holds strictly inside their
            bounds (a dense Cholesky solve of their block).
        impratio: MuJoCo's frictional-to-normal impedance ratio, > 0: the pyramid rows' regularizer R is
            divided by it (MuJoCo's Rpy = 2 mu^2 R / impratio); an elliptic contact's tangent rows get R_n /
            impratio and its cone the regularized mu / sqrt(impratio) (MuJoCo's contact.mu).
        noslip_iterations: MuJoCo's noslip solver (opt.noslip_iterations), >= 0: after the main solve, at most
            this many projected Gauss-Seidel sweeps over the friction rows alone (joint and tendon dry friction,
            then contact friction: a pyramid's opposing edges in pairs whose sum is held, an elliptic contact's
            tangent forces inside the cone of its held normal force), on the unregularized dual (A = J M^-1 J^T,
            no R), which removes the slip the regularizer allows; 0 (MuJoCo's default) skips it.
        noslip_tolerance: the noslip sweeps stop once one sweep's cost improvement, scaled by 1 / (mean
            inertia * DOFs) of the world, falls below this (MuJoCo's opt.noslip_tolerance); >= 0.
        threads: CPU threads stepping groups of worlds at once (Warp runs a CPU launch on one core), >= 1;
            results are bitwise those of one thread. Ignored on CUDA; one thread, with a warning, for models
            whose worlds share entities.
        world_chunk: on the CPU, how many worlds one thread steps through every substep of a captured step (and
            every step of a capture) before it starts on the next worlds, so that their arrays stay in the
            processor's cache between the stages, >= 1; results are bitwise those of one pass over all worlds.
            Eager ``step`` calls take all of a thread's worlds at once (there a launch costs more in Python
            than the cache saves).
            None: as many worlds as hold 384 DOFs (``generalized.CHUNK_DOFS``), in at most 32 chunks over all
            threads (``generalized.MAX_CHUNKS``: each chunk adds launches a capture records). Ignored on CUDA and for
            models whose worlds share entities.
        block_dim: lanes per launch block of the per-world passes, in [1, 1024]; None: 32 on CUDA, 1 on the
            CPU (where more than one lane runs only with ``wp.config.enable_cpu_blocks``). One lane on CUDA runs
            one thread per world, ``lanes.CUDA_WORLDS_PER_BLOCK`` worlds to a CUDA block (and no tiles).
        row_budget: most constraint rows one world solves in a substep (MuJoCo's njmax, per world), >= 1;
            None: each world's joint-limit, friction and equality rows plus every contact slot against
            static geometry plus one full contact per moving body. Contacts beyond it are dropped for that
            substep and the world is flagged unhealthy.
        tiles: factor each Newton iteration's Hessian with Warp's ``tile_cholesky`` (a tile per world)
            instead of the lanes' own Cholesky, where every world has one DOF count of at most 64. None: on
            CUDA with more than one lane per world. True on the CPU needs ``threads=1``.
        cuda_registers: most registers per thread of the per-world pass kernels (smooth, collision, world
            solve, finish) on CUDA (CUDA ``__maxnreg__``), in [24, 255]; each capped kernel is a Warp module of
            its own. None: the compiler's choice (255 for the collision and world-solve kernels of the shipped
            robots, which leaves room for 8 one-warp world blocks per SM). Fewer registers let more worlds'
            blocks reside on an SM, at the cost of spills to local memory. Ignored on the CPU.
        warn_refsafe: warn (once per time step) where a constraint's solref time constant is below 2 dt / substeps
            and is softened to that (MuJoCo's refsafe rule, which MuJoCo C applies without a word); False
            softens as silently, for a model whose time step was chosen with that in mind.
    """

    substeps: int = 1
    iterations: int = 30
    cone: str = "pyramidal"
    solver: str = "newton"
    tolerance: float = 1.0e-8
    ls_iterations: int = 50
    integrator: str = "implicitfast"
    max_speed: float = 1.0e3
    friction_rest_speed: float = 1.0e-2
    impratio: float = 1.0
    noslip_iterations: int = 0
    noslip_tolerance: float = 1.0e-6
    limit_solref: tuple = (0.02, 1.0)
    limit_solimp: tuple = (0.9, 0.95, 0.001, 0.5, 2.0)
    friction_solref: tuple = (0.02, 1.0)
    friction_solimp: tuple = (0.9, 0.95, 0.001, 0.5, 2.0)
    pgs_tolerance: float = 1.0e-6
    pgs_subspace: bool = True
    threads: int = 1
    world_chunk: int | None = None
    block_dim: int | None = None
    row_budget: int | None = None
    tiles: bool | None = None
    cuda_registers: int | None = None
    warn_refsafe: bool = True

    def __post_init__(self):
        choices = {"cone": ("pyramidal", "elliptic"), "solver": ("newton", "pgs")}
        choices["integrator"] = ("implicitfast", "midpoint")
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                _refuse(name, " or ".join(repr(a) for a in allowed), getattr(self, name))
        lower = {"substeps": 1, "iterations": 0, "ls_iterations": 0, "noslip_iterations": 0, "threads": 1}
        lower.update(block_dim=1, row_budget=1, world_chunk=1)
        for name, low in lower.items():
            value = getattr(self, name)
            if value is None and name in ("block_dim", "row_budget", "world_chunk"):
                continue
            if not _integer(value) or value < low or (name == "block_dim" and value > 1024):
                _refuse(name, f"an int >= {low}" + (" and <= 1024, or None" if name == "block_dim" else ""), value)
            object.__setattr__(self, name, int(value))
        for name in ("tolerance", "friction_rest_speed", "pgs_tolerance", "max_speed", "noslip_tolerance"):
            value = getattr(self, name)
            if not _finite(value) or value < 0.0:
                _refuse(name, "a finite number >= 0", value)
            object.__setattr__(self, name, float(value))
        if self.max_speed <= 0.0:
            _refuse("max_speed", "a finite number > 0", self.max_speed)
        if not _finite(self.impratio) or self.impratio <= 0.0:
            _refuse("impratio", "a finite number > 0", self.impratio)
        object.__setattr__(self, "impratio", float(self.impratio))
        for name, size in (("limit_solref", 2), ("friction_solref", 2), ("limit_solimp", 5), ("friction_solimp", 5)):
            value = getattr(self, name)
            if len(tuple(value)) != size or not all(_finite(v) for v in value):
                _refuse(name, f"{size} finite numbers", value)
            object.__setattr__(self, name, tuple(float(v) for v in value))
        if self.cuda_registers is not None:
            if not _integer(self.cuda_registers) or not 24 <= self.cuda_registers <= 255:
                _refuse("cuda_registers", "an int in [24, 255], or None", self.cuda_registers)
            object.__setattr__(self, "cuda_registers", int(self.cuda_registers))
        if self.tiles is not None and self.tiles not in (True, False):
            _refuse("tiles", "True, False or None", self.tiles)
        for name in ("pgs_subspace", "warn_refsafe"):
            if getattr(self, name) not in (True, False):
                _refuse(name, "True or False", getattr(self, name))

    def replace(self, **overrides) -> Option:
        """This Option with ``overrides`` (field names) changed, checked again; an unknown name raises."""
        unknown = sorted(set(overrides) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise SolverError(
                f"SolverGeneralized: unknown option {', '.join(unknown)}; the options are Option's fields"
            )
        return dataclasses.replace(self, **overrides)

    def describe(self) -> list[str]:
        """One ``name = value`` line per field, in declaration order."""
        return [f"{f.name} = {getattr(self, f.name)!r}" for f in dataclasses.fields(self)]


def _integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _finite(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and abs(float(value)) < float("inf")


def _refuse(name: str, valid: str, value):
    raise SolverError(f"SolverGeneralized: {name} must be {valid}, got {value!r}")
