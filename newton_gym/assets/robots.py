"""The robots shipped with newton_gym, as USD produced by the MJCF converter.

The MJCF sources are kept next to the USD files in ``newton_gym/assets/robots/``: copies of Gymnasium's
MuJoCo models (ant, humanoid, inverted_pendulum; ``gymnasium/envs/mujoco/assets``, MIT licence) and
MuJoCo Menagerie's Unitree Go1 and G1 with mjlab's published actuator gains (BSD-3-Clause,
``LICENSE-unitree.txt``; ``scripts/regenerate_unitree.py`` rebuilds them from the mjlab 1.6.0 wheel).
``scripts/regenerate_assets.py`` rebuilds the USD files from the MJCF, byte for byte.
"""

from __future__ import annotations

import os

from .errors import AssetError

__all__ = ["ROBOT_NAMES", "ROBOTS_DIR", "robot_path", "robot_source_path", "regenerate_robots"]

#: Folder of the shipped robot files.
ROBOTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "robots")

#: Shipped robot name -> MJCF source file name.
_SOURCES = {
    "ant": "ant.xml",
    "humanoid": "humanoid.xml",
    "inverted_pendulum": "inverted_pendulum.xml",
    "go1": "go1.xml",
    "g1": "g1.xml",
}

#: Names accepted by :func:`robot_path`.
ROBOT_NAMES = tuple(_SOURCES)


def _check(name: str) -> None:
    if name not in _SOURCES:
        raise AssetError(f"no shipped robot named '{name}'; shipped robots: {', '.join(ROBOT_NAMES)}")


def robot_path(name: str) -> str:
    """Absolute path of a shipped robot's USD file.

    Args:
        name: One of :data:`ROBOT_NAMES` ("ant", "humanoid", "inverted_pendulum").

    Raises:
        AssetError: Unknown name (the message lists the valid ones).
    """
    _check(name)
    return os.path.join(ROBOTS_DIR, f"{name}.usda")


def robot_source_path(name: str) -> str:
    """Absolute path of a shipped robot's MJCF source."""
    _check(name)
    return os.path.join(ROBOTS_DIR, _SOURCES[name])


def regenerate_robots(usd_dir: str = ROBOTS_DIR, names: tuple[str, ...] = ROBOT_NAMES) -> list[str]:
    """Converts the shipped MJCF sources into ``<usd_dir>/<name>.usda``.

    The output is deterministic (text layers, no timestamps, MuJoCo order), so regenerating into the
    package folder reproduces the shipped files byte for byte.

    Returns:
        The written USD paths.
    """
    from .cfg import MjcfConverterCfg  # noqa: PLC0415  (keeps `import newton_gym.assets` light)
    from .mjcf import MjcfConverter  # noqa: PLC0415

    paths = []
    for name in names:
        cfg = MjcfConverterCfg(
            asset_path=robot_source_path(name),
            usd_dir=usd_dir,
            usd_file_name=f"{name}.usda",
            force_usd_conversion=True,
        )
        paths.append(MjcfConverter(cfg).usd_path)
    return paths
