"""Collision detection (MuJoCo's mj_collision): candidate pairs stored once per template (:mod:`.pairs`),
the broad phase and contact slots (:mod:`.driver`), the narrow phases (:mod:`.primitive`, :mod:`.convex`,
:mod:`.heightfield`, :mod:`.gjk`, :mod:`.hull`) and per-pair contact parameters (:mod:`.params`)."""
