"""Shape settings: density, friction and contact parameters shared by all shape kinds."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .tables import MUJOCO_SOLIMP, MUJOCO_SOLREF

__all__ = ["ShapeConfig"]


@dataclass
class ShapeConfig:
    """Physical and contact settings of a shape.

    Attributes:
        density: [kg/m^3]; its mass is added to the body when the body's mass was not given. 0 = massless.
        mu: Coulomb friction coefficient (sliding); mu_torsional, mu_rolling as in MuJoCo's friction[1:3].
        restitution: coefficient of restitution.
        ke, kd: contact stiffness [N/m] and damping [N s/m]; 0 means "use solref".
        solref, solimp: MuJoCo soft-contact parameters (timeconst [s], dampratio) and impedance.
        margin: distance [m] from the surface at which contact force begins (surfaces rest this far
            apart); MuJoCo's margin - gap, PhysX's restOffset.
        gap: further detection distance [m] beyond the margin that generates no force (contacts are
            found early); MuJoCo's gap, PhysX's contactOffset - restOffset.
        condim: MuJoCo contact dimensionality (1, 3, 4 or 6).
        priority: MuJoCo geom priority: in a contact, the shape of higher priority alone sets condim,
            friction, solref and solimp (equal priorities combine them).
        collision_group: -1 collides with every group; a group g >= 0 only with g and -1.
        collide: whether the shape takes part in collisions at all.
        visible: whether renderers draw it.
    """

    density: float = 1000.0
    mu: float = 1.0
    mu_torsional: float = 0.005
    mu_rolling: float = 0.0001
    restitution: float = 0.0
    ke: float = 0.0
    kd: float = 0.0
    solref: tuple = field(default=MUJOCO_SOLREF)
    solimp: tuple = field(default=MUJOCO_SOLIMP)
    margin: float = 0.0
    gap: float = 0.0
    condim: int = 3
    priority: int = 0
    collision_group: int = -1
    collide: bool = True
    visible: bool = True

    def as_row(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}
