import pytest
import warp as wp

wp.config.quiet = True
wp.init()

_NO_CUDA = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device (Warp sees only the CPU)")


@pytest.fixture(params=["cpu", pytest.param("cuda:0", marks=_NO_CUDA)])
def device(request):
    """Warp device a test runs on: "cpu" always, "cuda:0" where Warp sees a GPU (skipped, visibly, elsewhere)."""
    return request.param
