"""Runs one fuzz case through the importers and says what happened.

USD goes straight to ``ModelBuilder.add_usd``; MJCF and URDF first through ``convert_file`` (the
``newton-gym convert`` code path: the converter is chosen by extension and root element). The builder
holds content of its own beforehand, so a failed import that leaves anything behind shows. A model that
imports is finalized on the CPU and every float it holds is checked to be finite.

Outcomes:

* ``imported``: imported and finalized, every float in the model finite;
* ``rejected``: a NewtonGymError, from the converter, add_usd (builder unchanged) or finalize; ``internal``
  names the exception type when it is add_usd's wrapper of an unexpected exception ("internal error");
* ``escaped``: any other exception;
* ``dirty``: add_usd raised a NewtonGymError but changed the builder;
* ``nonfinite``: imported, but NaN or inf reached the model (a silent acceptance when newton_gym gave no
  warning: a numpy overflow warning on the way does not count).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "usd"))
from usd_helpers import fingerprint  # noqa: E402  (the USD tests' builder fingerprint)

__all__ = ["Outcome", "OUTCOMES", "run_case", "busy_builder", "nonfinite_fields"]

OUTCOMES = ("imported", "rejected", "escaped", "dirty", "nonfinite")


@dataclass
class Outcome:
    """What one case did: status (see module), stage reached, exception and where an escape came from."""

    status: str
    stage: str = ""
    error_type: str = ""
    message: str = ""
    where: str = ""
    internal: str = ""  # type of the unexpected exception an "internal error" ImportFailedError wraps
    nonfinite: tuple = ()
    warnings: tuple = field(default_factory=tuple)
    package_warnings: int = 0  # how many of the warnings newton_gym itself gave

    @property
    def silent(self) -> bool:
        """Non-finite values reached the model and newton_gym did not warn."""
        return self.status == "nonfinite" and not self.package_warnings

    def report(self) -> str:
        """Several lines for a failure message."""
        out = [f"status {self.status} at {self.stage or '-'}"]
        if self.error_type:
            out.append(f"{self.error_type}: {self.message[:500]}")
        if self.internal:
            out.append(f"wrapping {self.internal}")
        if self.where:
            out.append(f"raised at {self.where}")
        if self.nonfinite:
            out.append(f"non-finite in model: {', '.join(self.nonfinite)}")
        out += [f"warning: {w[:200]}" for w in self.warnings[:5]]
        return "\n".join(out)


def busy_builder():
    """A builder holding a ground plane, a free body with a sphere, a custom attribute and non-default
    gravity, so that anything a failed import leaves behind changes its fingerprint."""
    import newton_gym as ng

    b = ng.ModelBuilder(gravity=-3.0)
    b.add_ground_plane()
    body = b.add_body(mass=1.0, inertia=(0.01, 0.01, 0.01), key="prior")
    b.add_shape_sphere(body, radius=0.1)
    b.add_joint_free(body)
    b.add_custom_attribute("marker", frequency="body")
    return b


def _floats_finite(value) -> bool:
    import numpy as np

    arr = np.asarray(value)
    return arr.dtype.kind != "f" or bool(np.isfinite(arr).all())


def nonfinite_fields(model, prefix: str = "") -> list[str]:
    """Names of the model's Warp arrays, float fields, namespaces and meshes that hold NaN or inf."""
    import warp as wp

    bad = []
    for name, value in sorted(vars(model).items()):
        label = prefix + name
        if isinstance(value, wp.array):
            if value.dtype is not None and not _floats_finite(value.numpy()):
                bad.append(label)
        elif isinstance(value, float):
            if not _floats_finite(value):
                bad.append(label)
        elif type(value).__name__ == "SimpleNamespace":
            bad += nonfinite_fields(value, label + ".")
        elif name == "meshes":
            bad += [f"{label}[{i}]" for i, m in enumerate(value) if not _floats_finite(m.vertices)]
    return bad


def _where(exc: BaseException) -> str:
    """The innermost newton_gym frame of the traceback, and the innermost frame where that is elsewhere."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}newton_gym{os.sep}" in f.filename]
    shown = [f for f in (ours[-1:] + frames[-1:]) if f]
    if len(shown) == 2 and shown[0] is shown[1]:
        shown = shown[:1]
    return " -> ".join(f"{_short(f.filename)}:{f.lineno} in {f.name}" for f in shown)


def _short(path: str) -> str:
    i = path.rfind(f"{os.sep}newton_gym{os.sep}")
    return path[i + 1 :] if i >= 0 else path


def _import(case, folder: str, outcome: Outcome):
    from newton_gym.errors import NewtonGymError

    path = case.write(os.path.join(folder, "in"))
    if case.kind != "usd":
        from newton_gym.assets.convert import convert_file

        outcome.stage = "convert"
        path = convert_file(path, usd_dir=os.path.join(folder, "out")).usd_path
    outcome.stage = "import"
    builder = busy_builder()
    before = fingerprint(builder)
    try:
        builder.add_usd(path)
    except NewtonGymError:
        if fingerprint(builder) != before:
            outcome.status = "dirty"
            return
        raise
    outcome.stage = "finalize"
    model = builder.finalize("cpu")
    outcome.nonfinite = tuple(nonfinite_fields(model))
    outcome.status = "nonfinite" if outcome.nonfinite else "imported"


def run_case(case, folder: str | None = None) -> Outcome:
    """Import ``case`` (writing its files under ``folder``, a fresh temporary folder when None) and
    classify what happened; see the module for the outcomes."""
    from newton_gym.errors import NewtonGymError

    own = folder is None
    folder = tempfile.mkdtemp(prefix="ng_fuzz_") if own else folder
    outcome = Outcome("imported")
    caught = []  # rebound by catch_warnings
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _import(case, folder, outcome)
    except NewtonGymError as exc:
        outcome.status, outcome.error_type, outcome.message = "rejected", type(exc).__name__, str(exc)
        if "internal error" in str(exc) and exc.__cause__ is not None:
            outcome.internal, outcome.where = _qualname(exc.__cause__), _where(exc.__cause__)
    except Exception as exc:  # noqa: BLE001 - anything else is what the fuzz looks for
        outcome.status, outcome.error_type, outcome.message = "escaped", _qualname(exc), str(exc)
        outcome.where = _where(exc)
    finally:
        if own:
            shutil.rmtree(folder, ignore_errors=True)
    outcome.warnings = tuple(f"{w.category.__name__}: {w.message}" for w in caught)
    outcome.package_warnings = sum(map(_from_package, caught))
    return outcome


def _from_package(w) -> bool:
    """A warning newton_gym gave on purpose: of one of its own categories, or a UserWarning it raised."""
    return w.category.__module__.startswith("newton_gym") or (
        issubclass(w.category, UserWarning) and f"{os.sep}newton_gym{os.sep}" in str(w.filename)
    )


def _qualname(exc: BaseException) -> str:
    t = type(exc)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
