"""Configuration dataclasses shared by every task: simulation, randomization and the environment."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SimCfg", "RandomizationCfg", "EnvCfg"]


@dataclass
class SimCfg:
    """How the physics is stepped.

    Attributes:
        sim_dt: solver step [s] (MuJoCo's timestep of the reference model).
        frame_skip: solver steps per environment step (control dt = sim_dt * frame_skip).
        substeps: solver substeps per solver step (1: MuJoCo's own step, what the physics is checked at).
        solver: constraint solver, "newton" (MuJoCo's default) or "pgs".
        iterations: most Newton iterations (PGS sweeps) per substep.
        capture: record the frame_skip solver steps as one Warp graph and replay it each env step.
        threads: CPU threads stepping groups of worlds at once (bitwise the same results); 0 picks one per
            CPU core available to the process, at most one per 32 worlds. Ignored on CUDA.
        world_chunk: worlds one CPU thread takes through every solver step of an env step before the next
            ones (``SolverGeneralized(world_chunk=...)``: their arrays stay in the cache; bitwise the same
            results); 0 picks the solver's default (as many as hold 384 DOFs, in at most 32 chunks).
        block_dim: lanes per world block of the solver's per-world passes; 0 picks the solver's default
            (32 on CUDA, 1 on the CPU; more CPU lanes run only with ``wp.config.enable_cpu_blocks``); 1 on CUDA:
            one thread per world, 64 worlds to a CUDA block.
        tiles: factor the Newton Hessian with Warp tiles (``SolverGeneralized(tiles=...)``); None: the
            solver's default (on CUDA with more than one lane per world).
        cuda_registers: most registers per thread of the solver's per-world pass kernels on CUDA
            (``SolverGeneralized(cuda_registers=...)``, in [24, 255]); 0: the compiler's choice. Ignored on the CPU.
        row_budget: most constraint rows one world solves in a substep (``SolverGeneralized(row_budget=...)``,
            MuJoCo's njmax, per world); 0: the solver's default, which holds every contact slot against static
            geometry (on a heightfield terrain, about 1,900 rows of Go1: 0.5 MB a world where a few dozen are
            used). A world that needs more drops the contacts that do not fit and is flagged unhealthy (its
            episode ends).
        warn_refsafe: warn where the time step softens a constraint's solref time constant to 2 dt
            (``SolverGeneralized(warn_refsafe=...)``: MuJoCo's refsafe rule, which MuJoCo C applies silently);
            False for a task whose time step is its reference model's own.
    """

    sim_dt: float = 0.01
    frame_skip: int = 5
    substeps: int = 1
    solver: str = "newton"
    iterations: int = 30
    capture: bool = True
    threads: int = 0
    world_chunk: int = 0
    block_dim: int = 0
    tiles: bool | None = None
    cuda_registers: int = 0
    row_budget: int = 0
    warn_refsafe: bool = True


@dataclass
class RandomizationCfg:
    """Per-world domain randomization, resampled for each world when it resets (None = off).

    Attributes:
        gravity_x, gravity_y, gravity_z: (low, high) ranges of the world's gravity components [m/s^2].
        mass_scale: (low, high) factor on every body's mass and inertia.
        friction: (low, high) Coulomb friction coefficient of every shape of the world.
        actuator_kp_scale: (low, high) factor on every actuator's position gain (a servo's kp: MuJoCo's
            gainprm[0] and -biasprm[1]).
        actuator_kd_scale: (low, high) factor on every actuator's velocity feedback (a servo's kv).
    """

    gravity_x: tuple | None = None
    gravity_y: tuple | None = None
    gravity_z: tuple | None = None
    mass_scale: tuple | None = None
    friction: tuple | None = None
    actuator_kp_scale: tuple | None = None
    actuator_kd_scale: tuple | None = None


@dataclass
class EnvCfg:
    """Environment-level settings.

    Attributes:
        max_episode_steps: episode length before truncation.
        nan_action: what a non-finite action does: "raise" (ValueError), "zero" (replaced by 0 and
            counted in info["nan_actions"]) or "clip" (NaN -> 0, +-inf -> the bound).
        seed: default seed of the reset noise and randomization generators.
        sync_free: step without any device-to-host synchronisation: the end-of-episode work (reset,
            final observation, episode statistics) runs every step under the done mask, and ``info``
            always holds its keys (masks all False when no world finished). None: on for CUDA devices,
            off on the CPU, where skipping that work in the steps without a finished episode is faster.
        graph: capture the whole step after the action copy (controls, the frame_skip solver steps,
            observation, reward, termination, info, autoreset with randomization) once as one CUDA graph
            and replay it every step (:mod:`newton_gym.envs.step_graph`). It needs a CUDA device, sync_free
            and a nan_action other than "raise" (both of those read back to the host); where one is missing
            the step runs eagerly: silently for None (the default: on wherever possible), with a warning
            for True. False: always eager. If the capture itself fails (a task doing host work in its
            step) the env warns and steps eagerly from then on.
    """

    max_episode_steps: int = 1000
    nan_action: str = "zero"
    seed: int = 0
    sync_free: bool | None = None
    graph: bool | None = None
    sim: SimCfg = field(default_factory=SimCfg)
    randomization: RandomizationCfg = field(default_factory=RandomizationCfg)
