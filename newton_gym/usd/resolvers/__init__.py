"""Schema resolvers: per-engine maps from newton_gym keys to authored USD attributes (seed 000)."""

from .base import PRIM_KINDS, AttrSpec, ResolveContext, SchemaResolver
from .mjc import SchemaResolverMjc
from .newton import SchemaResolverNewton
from .physx import SchemaResolverPhysx

__all__ = [
    "SchemaResolver",
    "AttrSpec",
    "ResolveContext",
    "PRIM_KINDS",
    "SchemaResolverNewton",
    "SchemaResolverPhysx",
    "SchemaResolverMjc",
    "default_resolvers",
]


def default_resolvers() -> list:
    """The resolvers used when ``schema_resolvers`` is None: Newton, then PhysX, then MuJoCo.

    All three, so that an attribute authored only for PhysX or MuJoCo (e.g. ``physxJoint:armature``)
    is not silently dropped; Newton first, so newton_gym's own attributes win where several engines
    author the same property.
    """
    return [SchemaResolverNewton(), SchemaResolverPhysx(), SchemaResolverMjc()]
