"""The tendon calls of :class:`.builder.ModelBuilder` (MuJoCo's fixed and spatial tendons): each checks its
arguments, naming the tendon at fault, and writes one row of the ``tendon`` table and its path elements in
the ``tendon_wrap`` table (:mod:`.tables`)."""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError
from .tables import MUJOCO_SOLIMP, MUJOCO_SOLREF
from .types import JointType, TendonType

__all__ = ["TendonCalls"]


class TendonCalls:
    """Mixin of :class:`.builder.ModelBuilder`: ``add_tendon_fixed`` and ``add_tendon_spatial``.

    Both take MuJoCo's tendon attributes (``<tendon><fixed>`` / ``<spatial>``), with MuJoCo's defaults:

    - ``stiffness`` [N/m] pulls the length back into [springlength[0], springlength[1]] (a dead band where
      the two differ; one number is both ends); springlength (-1, -1) is the tendon's length in the model's
      initial configuration (``joint_q``), found when a solver is built.
    - ``damping`` [N s/m] resists the tendon's velocity (velocity-implicit, as MuJoCo's implicitfast).
    - ``frictionloss`` [N]: dry friction along the tendon, a constraint row bounded by +-frictionloss with
      ``solref_friction`` / ``solimp_friction``.
    - ``limited`` with ``range`` (lo, hi) [m]: one-sided limit rows, each active once the length comes within
      ``margin`` [m] of its end, with ``solref_limit`` / ``solimp_limit``.
    - ``armature`` [kg]: inertia added along the tendon (M += armature J^T J).
    """

    @property
    def tendon_count(self) -> int:
        return self.tables["tendon"].count

    @property
    def tendon_key(self) -> list:
        return self.tables["tendon"].labels

    def add_tendon_fixed(self, joints, coefs, key: str | None = None, **params) -> int:
        """A fixed tendon: length = sum_i coefs[i] q_i over single-DOF joints (revolute, prismatic or a
        one-axis D6) of the current world; its Jacobian is constant.

        Args:
            joints: joint indices.
            coefs: one coefficient per joint [m/rad or -].
            key: the tendon's name (``tendon_key``).
            **params: the tendon attributes of :class:`TendonCalls` (stiffness, springlength, damping,
                frictionloss, limited, range, margin, solref_limit, solimp_limit, solref_friction,
                solimp_friction, armature).
        Returns:
            The tendon's index.
        """
        name = key or f"#{self.tendon_count}"
        joints = [int(j) for j in np.asarray(joints, dtype=np.int64).reshape(-1)]
        coefs = np.asarray(coefs, dtype=np.float64).reshape(-1)
        if not joints:
            raise ModelBuildError(f"tendon {name}: a fixed tendon needs at least one joint")
        if len(coefs) != len(joints):
            raise ModelBuildError(f"tendon {name}: {len(joints)} joints but {len(coefs)} coefficients")
        if not np.isfinite(coefs).all():
            raise ModelBuildError(f"tendon {name}: coefficients {coefs.tolist()} must be finite")
        tj = self.tables["joint"]
        for j in joints:
            if not 0 <= j < tj.count:
                raise ModelBuildError(f"tendon {name}: joint {j} does not exist ({tj.count} joints)")
            jt = JointType(int(tj.value("type", j)))
            dofs = int(tj.value("lin_count", j)) + int(tj.value("ang_count", j))
            if jt not in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.D6) or dofs != 1:
                raise ModelBuildError(
                    f"tendon {name}: joint {tj.labels[j] or j} is a {jt.name} joint with {dofs} DOFs; a fixed "
                    "tendon takes single-DOF joints (revolute, prismatic or a one-axis D6)"
                )
            self._check_tendon_world(name, "joint", j, int(tj.value("world", j)))
        rows = {"joint": joints, "coef": coefs}
        return self._add_tendon(TendonType.FIXED, name, key, rows, params)

    def add_tendon_spatial(self, sites, key: str | None = None, **params) -> int:
        """A spatial tendon: a path through at least two sites of the current world, length = the sum of
        the distances between consecutive sites (straight segments: no wrapping geometry or pulleys).

        Args:
            sites: site indices (:meth:`add_site`), in path order.
            key: the tendon's name (``tendon_key``).
            **params: the tendon attributes of :class:`TendonCalls`.
        Returns:
            The tendon's index.
        """
        name = key or f"#{self.tendon_count}"
        sites = [int(s) for s in np.asarray(sites, dtype=np.int64).reshape(-1)]
        if len(sites) < 2:
            raise ModelBuildError(f"tendon {name}: a spatial tendon needs at least two sites, got {len(sites)}")
        ts = self.tables["site"]
        for s in sites:
            if not 0 <= s < ts.count:
                raise ModelBuildError(f"tendon {name}: site {s} does not exist ({ts.count} sites)")
            self._check_tendon_world(name, "site", s, int(ts.value("world", s)))
        rows = {"site": sites, "coef": np.zeros(len(sites))}
        return self._add_tendon(TendonType.SPATIAL, name, key, rows, params)

    def _check_tendon_world(self, name, what, index, world):
        if world != self.current_world:
            raise ModelBuildError(
                f"tendon {name}: {what} {index} belongs to world {world} but the tendon is added in world "
                f"{self.current_world}; add tendons inside the world scope of their {what}s"
            )

    def _add_tendon(self, kind, name, key, path: dict, params: dict) -> int:
        row = _tendon_row(name, params)
        tw = self.tables["tendon_wrap"]
        start = tw.count
        for k in range(len(path["coef"])):
            tw.add_row(None, **{col: values[k] for col, values in path.items()})
        return self.tables["tendon"].add_row(
            key, type=int(kind), wrap_start=start, wrap_end=tw.count, world=self.current_world, **row
        )


_PARAMS = (
    "stiffness",
    "springlength",
    "damping",
    "frictionloss",
    "limited",
    "range",
    "margin",
    "solref_limit",
    "solimp_limit",
    "solref_friction",
    "solimp_friction",
    "armature",
)


def _tendon_row(name: str, params: dict) -> dict:
    """The tendon table's columns from the keyword attributes of an ``add_tendon_*`` call, checked."""
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise ModelBuildError(f"tendon {name}: unknown attribute(s) {unknown}; valid: {list(_PARAMS)}")
    row = {}
    for field in ("stiffness", "damping", "frictionloss", "margin", "armature"):
        value = float(params.get(field, 0.0))
        if not np.isfinite(value) or value < 0.0:
            raise ModelBuildError(f"tendon {name}: {field} {value} must be finite and non-negative")
        row[field] = value
    spring = np.asarray(params.get("springlength", (-1.0, -1.0)), dtype=np.float64).reshape(-1)
    if spring.shape == (1,):
        spring = np.repeat(spring, 2)
    if spring.shape != (2,) or not np.isfinite(spring).all():
        raise ModelBuildError(f"tendon {name}: springlength {spring.tolist()} must be one or two finite numbers")
    if spring[0] > spring[1]:
        raise ModelBuildError(
            f"tendon {name}: springlength {spring.tolist()} must be (-1, -1) (the initial length) or lower <= upper"
        )
    row["springlength"] = spring
    row["limited"] = bool(params.get("limited", False))
    rng = np.asarray(params.get("range", (0.0, 0.0)), dtype=np.float64).reshape(-1)
    if rng.shape != (2,) or not np.isfinite(rng).all() or (row["limited"] and rng[0] > rng[1]):
        raise ModelBuildError(f"tendon {name}: range {rng.tolist()} must be two finite numbers, lower <= upper")
    row["range"] = rng
    for field, default, size in (
        ("solref_limit", MUJOCO_SOLREF, 2),
        ("solimp_limit", MUJOCO_SOLIMP, 5),
        ("solref_friction", MUJOCO_SOLREF, 2),
        ("solimp_friction", MUJOCO_SOLIMP, 5),
    ):
        value = params.get(field)
        value = np.asarray(default if value is None else value, dtype=np.float64).reshape(-1)
        if value.shape != (size,) or not np.isfinite(value).all():
            raise ModelBuildError(f"tendon {name}: {field} {value.tolist()} must be {size} finite numbers")
        row[field] = value
    return row
