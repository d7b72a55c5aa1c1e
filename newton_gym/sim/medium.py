"""The fluid medium of a builder or model: MuJoCo's ``<option density viscosity wind>`` (the solver's
inertia-box fluid forces, :mod:`newton_gym.solvers.smooth.fluid`)."""

from __future__ import annotations

import math
import warnings

from ..errors import ModelBuildError

__all__ = ["fluid_medium", "adopt_fluid_medium", "medium_is_set"]


def fluid_medium(density, viscosity, wind, where: str = "ModelBuilder") -> tuple:
    """``(density, viscosity, wind)`` as (float, float, 3-tuple of floats), checked.

    Raises:
        ModelBuildError: density or viscosity negative or not finite, or wind not 3 finite numbers (the
            message names ``where``).
    """
    values = {}
    for name, value in (("fluid_density", density), ("fluid_viscosity", viscosity)):
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ModelBuildError(f"{where}: {name} must be a number >= 0, got {value!r}") from None
        if not math.isfinite(v) or v < 0.0:
            raise ModelBuildError(f"{where}: {name} must be a finite number >= 0, got {value!r}")
        values[name] = v + 0.0
    try:
        w = tuple(float(x) + 0.0 for x in wind)
    except (TypeError, ValueError):
        w = ()
    if len(w) != 3 or not all(map(math.isfinite, w)):
        raise ModelBuildError(f"{where}: wind must be 3 finite numbers [m/s], got {wind!r}")
    return values["fluid_density"], values["fluid_viscosity"], w


def medium_is_set(obj) -> bool:
    """Whether a builder's (or model's) medium differs from the default (zero density, viscosity and wind)."""
    return bool(obj.fluid_density or obj.fluid_viscosity or any(float(x) != 0.0 for x in obj.wind))


def adopt_fluid_medium(target, source) -> None:
    """Give builder ``target`` the medium of builder ``source`` added to it, when ``target``'s is unset; a
    different set medium of ``source`` is ignored with a warning (one medium serves every world)."""
    if not medium_is_set(source):
        return
    theirs = fluid_medium(source.fluid_density, source.fluid_viscosity, source.wind)
    if not medium_is_set(target):
        target.fluid_density, target.fluid_viscosity, target.wind = theirs
        return
    mine = fluid_medium(target.fluid_density, target.fluid_viscosity, target.wind)
    if mine != theirs:
        warnings.warn(
            f"ModelBuilder: the added builder's fluid medium (density {theirs[0]:g}, viscosity {theirs[1]:g}, "
            f"wind {list(theirs[2])}) differs from this builder's (density {mine[0]:g}, viscosity {mine[1]:g}, "
            f"wind {list(mine[2])}), which is kept: one medium serves every world",
            stacklevel=4,
        )
