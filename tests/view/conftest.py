"""Fixtures of the viewer tests."""

import pytest
from view_helpers import build_shapes_model


@pytest.fixture
def shapes_model():
    """Two worlds of every shape kind the viewer draws (see ``view_helpers.build_shapes_model``)."""
    return build_shapes_model()
