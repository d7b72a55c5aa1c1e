"""Collision detection (MuJoCo's mj_collision): candidate pairs enumerated once per group of equal worlds
(:mod:`.candidates`) and stored once per template (:mod:`.pairs`), the contact slots and the bundles' bounding
test (:mod:`.driver`), the narrow phases (:mod:`.primitive`, :mod:`.convex`,
:mod:`.multicontact`, :mod:`.polygon`, :mod:`.heightfield`, :mod:`.gjk`, :mod:`.hull` with MuJoCo's
:mod:`.mesh_polygons`) and per-pair contact parameters (:mod:`.params`)."""
