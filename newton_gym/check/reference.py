"""MuJoCo C's side of a robot check: load the same file, run it as our solver runs, and its own sensitivity.

MuJoCo runs the file as written except the integrator, set to implicitfast (ours); cone, solver,
iterations and tolerance stay the file's. It starts where our importer starts the model: the keyframe
named ``home`` where there is one, else qpos0. URDF is compiled with its ``package://`` mesh URIs resolved
as the URDF converter resolves them; a file MuJoCo cannot load (a USD, a URDF with COLLADA meshes) has no
reference.
"""

from __future__ import annotations

import contextlib
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ReferenceUnavailable",
    "Reference",
    "load_reference",
    "run_reference",
    "body_names",
    "working_directory",
    "PERTURBATION",
]

# qpos perturbation [m, rad] of the run that measures MuJoCo's own sensitivity (float32's resolution of a
# unit-sized coordinate, so a model that does not survive it cannot be matched by a float32 solver either).
PERTURBATION = 1e-7


class ReferenceUnavailable(Exception):
    """MuJoCo C cannot run this file; the message says why."""


@dataclass
class Reference:
    """MuJoCo's body positions by body name.

    Attributes:
        names: (body_count - 1,) MuJoCo body names (unnamed: ``body_<id>``), the world body left out.
        positions: {step: (len(names), 3) body-origin positions [m]} at the sampled steps.
        perturbed: {step: (len(names), 3)} at half the run and at its end, each body's position in the run
            from qpos + PERTURBATION or the one from qpos - PERTURBATION, whichever lies farther from
            ``positions`` [m] (a state at an exact tie, e.g. a mirror-symmetric robot, can tip one way only).
        timestep: MuJoCo's ``opt.timestep`` [s].
    """

    names: list
    positions: dict
    perturbed: dict
    timestep: float


def _require_mujoco():
    try:
        import mujoco  # noqa: PLC0415
    except ImportError:
        raise ReferenceUnavailable("the mujoco package is not installed (pip install newton-gym[mujoco])") from None
    return mujoco


def load_reference(path: str, kind: str):
    """The compiled ``mujoco.MjModel`` of ``path`` ("mjcf" or "urdf").

    Raises:
        ReferenceUnavailable: not a format MuJoCo reads, or MuJoCo's compiler refuses it.
    """
    mujoco = _require_mujoco()
    if kind not in ("mjcf", "urdf"):
        raise ReferenceUnavailable(f"it does not read {kind.upper()} files")
    try:
        if kind == "mjcf":
            return mujoco.MjModel.from_xml_path(path)
        return mujoco.MjModel.from_xml_string(_urdf_for_mujoco(path))
    except Exception as exc:
        raise ReferenceUnavailable(f"it cannot load the file: {str(exc).strip().splitlines()[0]}") from None


def _urdf_for_mujoco(path: str) -> str:
    """The URDF's text with every mesh URI an absolute path (MuJoCo resolves no ``package://``)."""
    from newton_gym.assets.urdf_prep import resolve_uri  # noqa: PLC0415

    root = ET.parse(path).getroot()
    for mesh in root.iter("mesh"):
        if mesh.get("filename"):
            mesh.set("filename", resolve_uri(mesh.get("filename"), path, {}))
    block = root.find("mujoco")
    if block is None:
        block = ET.SubElement(root, "mujoco")
    compiler = block.find("compiler")
    if compiler is None:
        compiler = ET.SubElement(block, "compiler")
    compiler.set("strippath", "false")
    compiler.set("fusestatic", "true")  # the converter's merge_fixed_joints default
    compiler.attrib.pop("meshdir", None)
    return ET.tostring(root, encoding="unicode")


def body_names(m) -> list:
    """MuJoCo's body names, the world body left out; an unnamed body is ``body_<id>`` (as the converters
    name its prim)."""
    return [m.body(b).name or f"body_{b}" for b in range(1, m.nbody)]


def _start(mujoco, m):
    d = mujoco.MjData(m)
    for k in range(m.nkey):
        if m.key(k).name == "home":
            mujoco.mj_resetDataKeyframe(m, d, k)
            break
    mujoco.mj_forward(m, d)
    return d


def _run(mujoco, m, d, steps: int, samples: tuple) -> dict:
    positions, taken = {0: d.xpos[1:].copy()}, 0
    for target in sorted(set(samples) | {steps}):
        if target > taken:
            mujoco.mj_step(m, d, nstep=target - taken)
            # mj_step leaves xpos at the poses before its last integration: bring them to the new qpos.
            mujoco.mj_kinematics(m, d)
        taken = target
        positions[target] = d.xpos[1:].copy()
    return positions


def run_reference(m, steps: int, samples: tuple) -> Reference:
    """MuJoCo's run of ``steps`` steps at zero control with integrator implicitfast, sampled at ``samples``,
    and the runs from qpos perturbed by +- :data:`PERTURBATION` (quaternions normalized again), sampled at
    the last two of ``samples`` (half the run and its end), of which each body keeps the farther."""
    mujoco = _require_mujoco()
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    d = _start(mujoco, m)
    positions = _run(mujoco, m, d, steps, samples)
    checked = tuple(samples[-2:])
    perturbed = {}
    for sign in (1.0, -1.0):
        d = _start(mujoco, m)
        d.qpos[:] += sign * PERTURBATION
        mujoco.mj_normalizeQuat(m, d.qpos)
        mujoco.mj_forward(m, d)
        run = _run(mujoco, m, d, steps, checked)
        for step in checked:
            if step not in perturbed:
                perturbed[step] = run[step]
                continue
            base = positions[step]
            farther = np.linalg.norm(run[step] - base, axis=1) > np.linalg.norm(perturbed[step] - base, axis=1)
            perturbed[step] = np.where(farther[:, None], run[step], perturbed[step])
    return Reference(body_names(m), positions, perturbed, float(m.opt.timestep))


@contextlib.contextmanager
def working_directory(folder: str):
    """Runs its block in ``folder``: MuJoCo writes compiler warnings to ``MUJOCO_LOG.TXT`` in the working
    directory, which should not be the user's."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(cwd)
