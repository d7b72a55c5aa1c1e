import pytest


@pytest.fixture
def device(torch_device):
    """Environment tests exchange torch tensors: their CUDA runs need a CUDA build of torch too."""
    return torch_device
