"""The error the asset converters raise on bad input (defined with the package's other errors)."""

from newton_gym.errors import AssetError

__all__ = ["AssetError"]
