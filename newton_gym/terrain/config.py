"""Terrain configuration: the grid (:class:`TerrainCfg`) and one dataclass per sub-terrain kind, from TOML.

A TOML file sets the grid's keys at top level and lists the sub-terrains as tables under ``sub_terrains``,
each with its ``kind`` (a key of :data:`SUB_TERRAIN_KINDS`), its ``proportion`` and the kind's own keys::

    num_rows = 10
    num_cols = 20

    [sub_terrains.stairs]
    kind = "pyramid_stairs"
    proportion = 0.5
    step_height_range = [0.05, 0.23]

A ``sub_terrains`` table replaces the whole default mix (it is not merged with it). Every error is a
:class:`~newton_gym.errors.ConfigError` that names the file and the full key (``sub_terrains.stairs.step_width``)
and says what would be valid. Lengths are metres, slopes are rise over run, difficulty is in [0, 1].
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import ClassVar

from ..envs.config import apply_overrides, load_toml
from ..errors import ConfigError

__all__ = [
    "SubTerrainCfg",
    "FlatCfg",
    "RandomUniformCfg",
    "PyramidSlopeCfg",
    "WavesCfg",
    "DiscreteObstaclesCfg",
    "PyramidStairsCfg",
    "SteppingStonesCfg",
    "RandomGridCfg",
    "TerrainCfg",
    "SUB_TERRAIN_KINDS",
    "go1_rough_sub_terrains",
    "rough_sub_terrains",
    "load_terrain_config",
]


# ---------------------------------------------------------------------------------------------------------
# Value checks: each raises ConfigError naming ``where`` (the full key) and what would be valid.


def _number(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{where} must be a finite number, got {value!r}")
    return float(value)


def _positive(where: str, value) -> float:
    if _number(where, value) <= 0.0:
        raise ConfigError(f"{where} must be > 0, got {value!r}")
    return float(value)


def _nonnegative(where: str, value) -> float:
    if _number(where, value) < 0.0:
        raise ConfigError(f"{where} must be >= 0, got {value!r}")
    return float(value)


def _count(where: str, value, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ConfigError(f"{where} must be an integer >= {least}, got {value!r}")
    return value


def _pair(where: str, value, what: str = "[min, max]") -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ConfigError(f"{where} must be a {what} pair, got {value!r}")
    return _number(f"{where}[0]", value[0]), _number(f"{where}[1]", value[1])


def _range(where: str, value, lower: float = -math.inf, upper: float = math.inf) -> tuple[float, float]:
    """A (min, max) pair of finite numbers with lower <= min <= max <= upper."""
    lo, hi = _pair(where, value)
    if lo > hi:
        raise ConfigError(f"{where} must be [min, max] with min <= max, got {list(value)}")
    if lo < lower or hi > upper:
        raise ConfigError(f"{where} must lie within [{lower}, {upper}], got {list(value)}")
    return lo, hi


# ---------------------------------------------------------------------------------------------------------
# Sub-terrain kinds. Each ``*_range`` is (value at difficulty 0, value at difficulty 1), interpolated linearly.


@dataclass
class SubTerrainCfg:
    """Keys every sub-terrain kind has.

    Attributes:
        proportion: share of the grid [-] (>= 0; normalised over all sub-terrains): the share of the
            columns in curriculum mode, the probability of each patch in random mode.
    """

    KIND: ClassVar[str] = ""
    proportion: float = 1.0

    def validate(self, where: str, size: tuple[float, float]) -> None:
        """Raise ConfigError (naming ``where.<key>``) on a value no patch of ``size`` [m] can use."""
        _nonnegative(f"{where}.proportion", self.proportion)
        if hasattr(self, "platform_width"):
            width = _positive(f"{where}.platform_width", self.platform_width)
            if width > min(size):
                raise ConfigError(f"{where}.platform_width {width} m is wider than the patch size {list(size)}")


@dataclass
class FlatCfg(SubTerrainCfg):
    """Flat ground at height 0; difficulty has no effect."""

    KIND: ClassVar[str] = "flat"


@dataclass
class RandomUniformCfg(SubTerrainCfg):
    """Random roughness: heights drawn on a coarse lattice, interpolated bilinearly onto the grid.

    Attributes:
        noise_range: (min, max) height of the noise [m]; difficulty has no effect (as in Isaac Lab).
        noise_step: spacing of the height levels drawn from in [min, max] [m] (> 0).
        downsampled_scale: lattice spacing of the drawn heights [m] (> 0); None: the horizontal scale.
        platform_width: side of the flat square at the centre [m], at the middle of ``noise_range``.
    """

    KIND: ClassVar[str] = "random_uniform"
    noise_range: tuple[float, float] = (0.02, 0.10)
    noise_step: float = 0.02
    downsampled_scale: float | None = None
    platform_width: float = 1.0

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        _range(f"{where}.noise_range", self.noise_range)
        _positive(f"{where}.noise_step", self.noise_step)
        if self.downsampled_scale is not None:
            _positive(f"{where}.downsampled_scale", self.downsampled_scale)


@dataclass
class PyramidSlopeCfg(SubTerrainCfg):
    """A square pyramid rising from the patch edge (height 0) to a flat top platform, or a pit (inverted).

    Attributes:
        slope_range: slope of the faces as rise over run [-] (the tangent of the slope angle; Isaac Lab's
            ``slope_range`` is used the same way), at difficulty 0 and 1.
        platform_width: side of the flat square at the centre [m].
        inverted: a pit going down to the platform instead of a pyramid going up.
    """

    KIND: ClassVar[str] = "pyramid_slope"
    slope_range: tuple[float, float] = (0.0, 0.4)
    platform_width: float = 1.0
    inverted: bool = False

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        _range(f"{where}.slope_range", self.slope_range, lower=0.0)


@dataclass
class WavesCfg(SubTerrainCfg):
    """Sinusoidal waves along x and y: ``(A / 2) (sin(2 pi n x / Lx) + sin(2 pi n y / Ly))``.

    Attributes:
        amplitude_range: peak height A [m] (the surface spans [-A, A]) at difficulty 0 and 1.
        num_waves: whole wave periods n across the patch along each axis (>= 1).
        platform_width: side of the flat square at the centre [m], at height 0.
    """

    KIND: ClassVar[str] = "waves"
    amplitude_range: tuple[float, float] = (0.05, 0.2)
    num_waves: int = 1
    platform_width: float = 1.0

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        _range(f"{where}.amplitude_range", self.amplitude_range, lower=0.0)
        _count(f"{where}.num_waves", self.num_waves)


@dataclass
class DiscreteObstaclesCfg(SubTerrainCfg):
    """Random axis-aligned rectangles raised above or sunk below height 0.

    Attributes:
        obstacle_height_mode: "choice" (each obstacle's height is one of -h, -h/2, h/2, h) or "fixed" (h).
        obstacle_width_range: (min, max) side of an obstacle [m]; each side is drawn uniformly.
        obstacle_height_range: h [m] at difficulty 0 and 1.
        num_obstacles: obstacles per patch (>= 1), placed uniformly; later ones cover earlier ones.
        platform_width: side of the flat square at the centre [m], at height 0.
    """

    KIND: ClassVar[str] = "discrete_obstacles"
    obstacle_height_mode: str = "choice"
    obstacle_width_range: tuple[float, float] = (0.25, 0.75)
    obstacle_height_range: tuple[float, float] = (0.05, 0.25)
    num_obstacles: int = 20
    platform_width: float = 1.0

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        if self.obstacle_height_mode not in ("choice", "fixed"):
            raise ConfigError(
                f"{where}.obstacle_height_mode must be 'choice' or 'fixed', got {self.obstacle_height_mode!r}"
            )
        lo, hi = _range(f"{where}.obstacle_width_range", self.obstacle_width_range)
        _positive(f"{where}.obstacle_width_range[0]", lo)
        if hi > min(size):
            raise ConfigError(f"{where}.obstacle_width_range max {hi} m is wider than the patch size {list(size)}")
        _range(f"{where}.obstacle_height_range", self.obstacle_height_range, lower=0.0)
        _count(f"{where}.num_obstacles", self.num_obstacles)


@dataclass
class PyramidStairsCfg(SubTerrainCfg):
    """Square rings of steps from a flat border up to a top platform, or down into a pit (inverted).

    Attributes:
        step_height_range: rise of every step [m] at difficulty 0 and 1.
        step_width: run of every step [m] (> 0).
        platform_width: least side of the flat square at the centre [m]; the steps that fit between the
            border and it are built, and the platform takes what is left.
        border_width: width of the flat ring at height 0 along the patch edge [m] (>= 0).
        inverted: steps going down into a pit instead of up a pyramid.
    """

    KIND: ClassVar[str] = "pyramid_stairs"
    step_height_range: tuple[float, float] = (0.05, 0.23)
    step_width: float = 0.3
    platform_width: float = 3.0
    border_width: float = 1.0
    inverted: bool = False

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        _range(f"{where}.step_height_range", self.step_height_range, lower=0.0)
        _positive(f"{where}.step_width", self.step_width)
        border = _nonnegative(f"{where}.border_width", self.border_width)
        if 2.0 * border + self.platform_width > min(size):
            raise ConfigError(
                f"{where}.border_width: 2 x border_width + platform_width = {2 * border + self.platform_width} m "
                f"exceeds the patch size {list(size)}"
            )


@dataclass
class SteppingStonesCfg(SubTerrainCfg):
    """Square stones in rows over a deep pit; each row of stones is shifted along x by a random offset.

    Attributes:
        stone_height_max: stone tops are drawn uniformly in [-max, max] [m] (>= 0).
        stone_width_range: side of a stone [m]; difficulty 0 gives the max, difficulty 1 the min.
        stone_distance_range: gap between stones [m]; difficulty 0 gives the min, difficulty 1 the max.
        holes_depth: height of the pit floor [m] (< 0).
        platform_width: side of the flat square at the centre [m], at height 0.
    """

    KIND: ClassVar[str] = "stepping_stones"
    stone_height_max: float = 0.0
    stone_width_range: tuple[float, float] = (0.5, 1.5)
    stone_distance_range: tuple[float, float] = (0.05, 0.3)
    holes_depth: float = -10.0
    platform_width: float = 1.0

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        _nonnegative(f"{where}.stone_height_max", self.stone_height_max)
        lo, _ = _range(f"{where}.stone_width_range", self.stone_width_range)
        _positive(f"{where}.stone_width_range[0]", lo)
        _range(f"{where}.stone_distance_range", self.stone_distance_range, lower=0.0)
        if _number(f"{where}.holes_depth", self.holes_depth) >= -self.stone_height_max:
            raise ConfigError(
                f"{where}.holes_depth must lie below the lowest stone (-stone_height_max), got {self.holes_depth}"
            )


@dataclass
class RandomGridCfg(SubTerrainCfg):
    """A grid of square blocks whose tops are raised or sunk at random.

    Attributes:
        grid_width: side of a block [m] (> 0); as many blocks as fit are centred on the patch, and the
            blocks that would overlap the platform are left out.
        grid_height_range: h [m] at difficulty 0 and 1; block tops are drawn uniformly in [-h, h].
        platform_width: side of the flat square at the centre [m] (heightfield, height 0).
        colliders: ``"heightfield"`` (default): each block's top is written into the heightfield points
            inside it (walls become one grid step wide ramps); ``"boxes"``: one static BOX collider per
            block standing in a heightfield pit. Every world's robot is paired with every global box at
            solver construction, so boxes suit small terrains (a 10 x 20 grid holds ~10,000 blocks).
    """

    KIND: ClassVar[str] = "random_grid"
    grid_width: float = 0.45
    grid_height_range: tuple[float, float] = (0.05, 0.2)
    platform_width: float = 2.0
    colliders: str = "heightfield"

    def validate(self, where: str, size: tuple[float, float]) -> None:
        super().validate(where, size)
        if _positive(f"{where}.grid_width", self.grid_width) > min(size):
            raise ConfigError(f"{where}.grid_width {self.grid_width} m is wider than the patch size {list(size)}")
        _range(f"{where}.grid_height_range", self.grid_height_range, lower=0.0)
        if self.colliders not in ("heightfield", "boxes"):
            raise ConfigError(f"{where}.colliders must be 'heightfield' or 'boxes', got {self.colliders!r}")


#: kind name -> its config class (the ``kind`` key of a ``[sub_terrains.<name>]`` table).
SUB_TERRAIN_KINDS: dict[str, type[SubTerrainCfg]] = {
    cls.KIND: cls
    for cls in (
        FlatCfg,
        RandomUniformCfg,
        PyramidSlopeCfg,
        WavesCfg,
        DiscreteObstaclesCfg,
        PyramidStairsCfg,
        SteppingStonesCfg,
        RandomGridCfg,
    )
}


def rough_sub_terrains() -> dict[str, SubTerrainCfg]:
    """The rough-locomotion mix of Isaac Lab's ``ROUGH_TERRAINS_CFG`` (same names and values)."""
    return {
        "pyramid_stairs": PyramidStairsCfg(proportion=0.2),
        "pyramid_stairs_inv": PyramidStairsCfg(proportion=0.2, inverted=True),
        "boxes": RandomGridCfg(proportion=0.2),
        "random_rough": RandomUniformCfg(proportion=0.2),
        "hf_pyramid_slope": PyramidSlopeCfg(proportion=0.1, platform_width=2.0),
        "hf_pyramid_slope_inv": PyramidSlopeCfg(proportion=0.1, platform_width=2.0, inverted=True),
    }


def go1_rough_sub_terrains() -> dict[str, SubTerrainCfg]:
    """The mix of Isaac Lab's rough Unitree Go1 task (``UnitreeGo1RoughEnvCfg``): :func:`rough_sub_terrains`
    with the block grid's heights (0.025, 0.1) m instead of (0.05, 0.2) and the random roughness's
    (0.01, 0.06) m in steps of 0.01 instead of (0.02, 0.10) in steps of 0.02, scaled down for the small robot."""
    subs = rough_sub_terrains()
    subs["boxes"] = dataclasses.replace(subs["boxes"], grid_height_range=(0.025, 0.1))
    subs["random_rough"] = dataclasses.replace(subs["random_rough"], noise_range=(0.01, 0.06), noise_step=0.01)
    return subs


# ---------------------------------------------------------------------------------------------------------
# The grid.


@dataclass
class TerrainCfg:
    """A grid of ``num_rows`` x ``num_cols`` sub-terrain patches inside a flat border.

    Row i of the grid lies along world x (difficulty rises with i in curriculum mode), column j along
    world y (a sub-terrain kind per column in curriculum mode); the grid is centred on the world origin.

    Attributes:
        seed: seed of every random draw (>= 0): the same seed gives bitwise equal terrains.
        size: (x, y) extent of one patch [m], a whole number of ``horizontal_scale`` cells each.
        num_rows: patches along x (>= 1).
        num_cols: patches along y (>= 1).
        border_width: width of the flat ring at height 0 around the grid [m] (>= 0, whole cells).
        horizontal_scale: spacing of the heightfield grid points [m] (> 0).
        vertical_scale: heights are rounded to multiples of it [m] (> 0).
        curriculum: True: row i has difficulty (i + u) / num_rows (u uniform in [0, 1) per patch) and the
            columns are shared out among the sub-terrains by proportion; False: every patch draws its
            sub-terrain by proportion and its difficulty uniformly.
        difficulty_range: (min, max) within [0, 1]; the difficulty above is mapped linearly onto it.
        base: depth of the heightfield's solid below its lowest point [m] (> 0).
        sub_terrains: name -> sub-terrain config (see :data:`SUB_TERRAIN_KINDS`); names are free text.
    """

    seed: int = 0
    size: tuple[float, float] = (8.0, 8.0)
    num_rows: int = 10
    num_cols: int = 20
    border_width: float = 20.0
    horizontal_scale: float = 0.1
    vertical_scale: float = 0.005
    curriculum: bool = True
    difficulty_range: tuple[float, float] = (0.0, 1.0)
    base: float = 1.0
    sub_terrains: dict = field(default_factory=rough_sub_terrains)

    def validate(self) -> TerrainCfg:
        """Raise ConfigError (naming the key) on a value no terrain can be made from; returns self."""
        _count("seed", self.seed, least=0)
        _count("num_rows", self.num_rows)
        _count("num_cols", self.num_cols)
        scale = _positive("horizontal_scale", self.horizontal_scale)
        _positive("vertical_scale", self.vertical_scale)
        _positive("base", self.base)
        if not isinstance(self.curriculum, bool):
            raise ConfigError(f"curriculum must be true or false, got {self.curriculum!r}")
        _range("difficulty_range", self.difficulty_range, lower=0.0, upper=1.0)
        size = _pair("size", self.size, "[x, y]")
        for axis, value in enumerate(size):
            _whole_cells(f"size[{axis}]", _positive(f"size[{axis}]", value), scale)
        _whole_cells("border_width", _nonnegative("border_width", self.border_width), scale)
        self._validate_sub_terrains(size)
        return self

    def _validate_sub_terrains(self, size: tuple[float, float]) -> None:
        if not isinstance(self.sub_terrains, dict) or not self.sub_terrains:
            raise ConfigError(f"sub_terrains must name at least one sub-terrain, got {self.sub_terrains!r}")
        for name, sub in self.sub_terrains.items():
            if not isinstance(sub, SubTerrainCfg):
                raise ConfigError(f"sub_terrains.{name} must be a sub-terrain config, got {type(sub).__name__}")
            sub.validate(f"sub_terrains.{name}", size)
        if sum(sub.proportion for sub in self.sub_terrains.values()) <= 0.0:
            raise ConfigError("sub_terrains: every proportion is 0; give at least one sub-terrain a proportion > 0")

    def cells(self) -> tuple[int, int, int]:
        """(patch cells along x, patch cells along y, border cells) of the heightfield grid."""
        scale = self.horizontal_scale
        return round(self.size[0] / scale), round(self.size[1] / scale), round(self.border_width / scale)


def _whole_cells(where: str, value: float, scale: float) -> None:
    cells = value / scale
    if abs(cells - round(cells)) > 1e-6 * max(1.0, cells):
        raise ConfigError(f"{where} {value} m must be a whole number of horizontal_scale ({scale} m) cells")


# ---------------------------------------------------------------------------------------------------------
# Loading.


def _sub_terrain_from(name: str, table) -> SubTerrainCfg:
    where = f"sub_terrains.{name}"
    if isinstance(table, SubTerrainCfg):
        return table
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table with a 'kind' key, got {table!r}")
    table = dict(table)
    kind = table.pop("kind", None)
    if kind not in SUB_TERRAIN_KINDS:
        what = "has no 'kind' key" if kind is None else f"has unknown kind {kind!r}"
        raise ConfigError(f"{where}.kind: sub-terrain {name!r} {what}; valid kinds: {sorted(SUB_TERRAIN_KINDS)}")
    return apply_overrides(SUB_TERRAIN_KINDS[kind](), table, where)


def _terrain_from(table: dict) -> TerrainCfg:
    if not isinstance(table, dict):
        raise ConfigError(f"a terrain config must be a table, got {table!r}")
    table = dict(table)
    sub_tables = table.pop("sub_terrains", None)
    cfg = apply_overrides(TerrainCfg(), table)
    if sub_tables is not None:
        if not isinstance(sub_tables, dict):
            raise ConfigError(f"sub_terrains must be a table of sub-terrain tables, got {sub_tables!r}")
        subs = {name: _sub_terrain_from(name, sub) for name, sub in sub_tables.items()}
        cfg = dataclasses.replace(cfg, sub_terrains=subs)
    return cfg


def load_terrain_config(source=None, **overrides) -> TerrainCfg:
    """A validated TerrainCfg: the defaults, then ``source`` (TOML path, dict or TerrainCfg), then keyword
    ``overrides`` of top-level keys (None values are ignored, so unset command-line flags keep the file's).

    Raises:
        ConfigError: an unknown key or kind, or an invalid value; the message starts with the file's path
            when ``source`` is one, and names the key.
    """
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    try:
        if source is None:
            cfg = TerrainCfg()
        elif isinstance(source, TerrainCfg):
            cfg = source
        else:
            cfg = _terrain_from(load_toml(path) if path is not None else source)
        changes = {key: value for key, value in overrides.items() if value is not None}
        if changes:
            cfg = _terrain_from({**_top_level(cfg), **changes, "sub_terrains": cfg.sub_terrains})
        return cfg.validate()
    except ConfigError as exc:
        if path is None or str(exc).startswith(f"config file {path!r}"):
            raise
        raise ConfigError(f"{path}: {exc}") from None


def _top_level(cfg: TerrainCfg) -> dict:
    return {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg) if f.name != "sub_terrains"}
