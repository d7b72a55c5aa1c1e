"""Typed configuration: dataclass defaults in code, overridden by TOML files or dicts.

An unknown key is an error that names its full path (``ant.reward.ctrl_cost``), so a typo in a config
file never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import typing
from typing import Any

from ..errors import ConfigError

__all__ = ["apply_overrides", "load_toml", "config_from", "to_dict"]


def load_toml(path: str | os.PathLike) -> dict:
    """Read a TOML file into a dict; errors name the file."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config file {os.fspath(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {os.fspath(path)!r} is not valid TOML: {exc}") from None


def _coerce(value, annotation, where: str):
    origin = typing.get_origin(annotation)
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a table of {annotation.__name__} settings, got {value!r}")
        return apply_overrides(annotation(), value, where)
    if annotation in (float,) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if annotation is int and isinstance(value, bool) or annotation is int and not isinstance(value, int):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if annotation is bool and not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if annotation is str and not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    if origin is tuple or annotation is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return value


def apply_overrides(cfg, overrides: dict[str, Any], where: str = ""):
    """A copy of dataclass ``cfg`` with ``overrides`` applied recursively; unknown keys raise ConfigError."""
    if not isinstance(overrides, dict):
        raise ConfigError(f"{where or 'config'}: expected a table, got {overrides!r}")
    hints = typing.get_type_hints(type(cfg))
    names = {f.name for f in dataclasses.fields(cfg)}
    changes = {}
    for key, value in overrides.items():
        path = f"{where}.{key}" if where else key
        if key not in names:
            raise ConfigError(f"unknown config key {path!r}; valid keys here: {sorted(names)}")
        annotation = hints[key]
        current = getattr(cfg, key)
        if dataclasses.is_dataclass(current) and isinstance(value, dict):
            changes[key] = apply_overrides(current, value, path)
        else:
            changes[key] = _coerce(value, _strip_optional(annotation), path)
    return dataclasses.replace(cfg, **changes)


def _strip_optional(annotation):
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Union and len(args) == 1:
        return args[0]
    return annotation


def config_from(cfg_class, source=None, where: str = ""):
    """Build ``cfg_class`` defaults overridden by ``source``: None, a dict, a dataclass instance or a
    TOML path."""
    if source is None:
        return cfg_class()
    if isinstance(source, cfg_class):
        return source
    if isinstance(source, (str, os.PathLike)):
        source = load_toml(source)
    return apply_overrides(cfg_class(), source, where)


def to_dict(cfg) -> dict:
    """Plain nested dict of a dataclass config (for logging)."""
    return dataclasses.asdict(cfg)
