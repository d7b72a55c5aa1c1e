"""newton_gym.usd: import UsdPhysics stages into a ModelBuilder, with schema resolvers (seed 000).

``add_usd(builder, source, ...)`` (also ``ModelBuilder.add_usd``) reads rigid bodies, colliders (static
heightfields included), joints, articulations, materials, collision filters, the physics scene, custom
attributes, NewtonJointAPI per-DOF values (seed 001) and MuJoCo actuators. Attributes authored for other
engines are mapped by schema resolvers: :class:`SchemaResolverNewton`, :class:`SchemaResolverPhysx`,
:class:`SchemaResolverMjc`, or your own subclass of :class:`SchemaResolver`.

OpenUSD (``pxr``, package ``usd-core``) is imported when a function needs it, not with this package.
"""

from .context import UsdImportWarning
from .importer import add_usd
from .resolvers import (
    PRIM_KINDS,
    AttrSpec,
    ResolveContext,
    SchemaResolver,
    SchemaResolverMjc,
    SchemaResolverNewton,
    SchemaResolverPhysx,
    default_resolvers,
)

__all__ = [
    "add_usd",
    "SchemaResolver",
    "SchemaResolverNewton",
    "SchemaResolverPhysx",
    "SchemaResolverMjc",
    "AttrSpec",
    "ResolveContext",
    "PRIM_KINDS",
    "default_resolvers",
    "UsdImportWarning",
]
