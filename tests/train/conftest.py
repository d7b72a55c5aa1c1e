"""Shared fixtures of the training tests: a dummy-sized Cartpole config."""

import pytest
from tiny_config import tiny_config


@pytest.fixture
def tiny():
    return tiny_config
