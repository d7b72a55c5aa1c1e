"""newton_gym.terrain: procedural rough terrain for locomotion, a grid of sub-terrain patches.

:func:`generate_terrain` lays out ``num_rows`` x ``num_cols`` patches of ``size`` (8 x 8 m by default)
inside a flat border (``border_width``, 20 m) and returns a :class:`Terrain`: the whole grid as one
:class:`~newton_gym.Heightfield` (points ``horizontal_scale`` = 0.1 m apart, heights rounded to
``vertical_scale`` = 0.005 m), static boxes, and a spawn origin on the flat platform at the centre of each
patch. :meth:`Terrain.add_to` puts it into a ``ModelBuilder`` as static shapes shared by every world::

    import newton_gym
    from newton_gym.terrain import generate_terrain

    terrain = generate_terrain("configs/terrain_rough.toml")
    builder = newton_gym.ModelBuilder()
    terrain.add_to(builder)                 # one HFIELD shape, then one BOX shape per box
    spawn = terrain.origins[row, col]       # (3,) world position on the patch's platform

Rows run along world x, columns along y, and the grid is centred on the world origin. In curriculum
mode (``curriculum = true``, the default) row i has difficulty (i + u) / num_rows, u uniform in [0, 1)
per patch, and the columns are shared out among the sub-terrains by their ``proportion`` (Isaac Lab's
rules); in random mode every patch draws its sub-terrain by proportion and its difficulty uniformly.
Either difficulty is mapped onto ``difficulty_range``. Generation is deterministic in ``seed``.

Sub-terrain kinds (the ``kind`` key of a ``[sub_terrains.<name>]`` table; a ``*_range`` key holds the
values at difficulty 0 and 1, interpolated linearly; lengths in metres):

``flat``
    Height 0. Difficulty: no effect.
``random_uniform``
    Heights drawn from ``noise_range`` in steps of ``noise_step`` on a lattice ``downsampled_scale`` apart,
    bilinear between lattice points; the platform at the middle of the range. Difficulty: no effect (as
    in Isaac Lab).
``pyramid_slope``
    Faces of slope ``slope_range`` (rise over run, the tangent of the angle) from the patch edge at 0 up
    to a flat top ``platform_width`` wide; ``inverted``: a pit down to the platform. Difficulty: the slope.
``waves``
    (A / 2)(sin(2 pi n x / Lx) + sin(2 pi n y / Ly)), n = ``num_waves``, so the surface spans [-A, A].
    Difficulty: the amplitude A from ``amplitude_range``.
``discrete_obstacles``
    ``num_obstacles`` rectangles with sides in ``obstacle_width_range`` at uniform positions, at height h
    (``obstacle_height_mode = "fixed"``) or one of -h, -h/2, h/2, h (``"choice"``). Difficulty: h from
    ``obstacle_height_range``.
``pyramid_stairs``
    A flat ring ``border_width`` wide at 0, then square rings ``step_width`` wide, each one step higher,
    up to a top at least ``platform_width`` wide; ``inverted``: steps down into a pit. Difficulty: the
    step height from ``step_height_range``.
``stepping_stones``
    Rows of square stones (tops uniform in +-``stone_height_max``) over a pit at ``holes_depth``, each
    row shifted along x by a random offset. Difficulty: smaller stones (``stone_width_range``, max to
    min) and wider gaps (``stone_distance_range``, min to max).
``random_grid``
    Static boxes of side ``grid_width`` (BOX colliders, not heightfield) with tops uniform in [-h, h],
    standing in a heightfield pit below the lowest top. Difficulty: h from ``grid_height_range``.

Every kind except ``flat`` has a ``platform_width``: a flat square at the patch centre where the origin
lies. ``configs/terrain_rough.toml`` holds the defaults: Isaac Lab's ``ROUGH_TERRAINS_CFG`` mix (stairs
up and down, boxes, random rough, slopes up and down) on 10 x 20 patches; ``configs/terrain_go1_rough.toml``
its rough Go1 variant (:func:`go1_rough_sub_terrains`, Newton/Go1-Rough-v0's terrain). ``newton-gym terrain
--config FILE --out PNG`` prints a summary and draws the terrain top-down (``docs/images/terrain_go1_rough.png``).
"""

from .config import (
    SUB_TERRAIN_KINDS,
    DiscreteObstaclesCfg,
    FlatCfg,
    PyramidSlopeCfg,
    PyramidStairsCfg,
    RandomGridCfg,
    RandomUniformCfg,
    SteppingStonesCfg,
    SubTerrainCfg,
    TerrainCfg,
    WavesCfg,
    go1_rough_sub_terrains,
    load_terrain_config,
    rough_sub_terrains,
)
from .draw import draw_terrain
from .generator import Terrain, generate_terrain

__all__ = [
    "Terrain",
    "TerrainCfg",
    "generate_terrain",
    "load_terrain_config",
    "draw_terrain",
    "go1_rough_sub_terrains",
    "rough_sub_terrains",
    "SUB_TERRAIN_KINDS",
    "SubTerrainCfg",
    "FlatCfg",
    "RandomUniformCfg",
    "PyramidSlopeCfg",
    "WavesCfg",
    "DiscreteObstaclesCfg",
    "PyramidStairsCfg",
    "SteppingStonesCfg",
    "RandomGridCfg",
]
