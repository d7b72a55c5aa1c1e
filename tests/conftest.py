import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch: as `import newton_gym` first would set it

import pytest  # noqa: E402
import torch  # noqa: E402
import warp as wp  # noqa: E402

wp.config.quiet = True
wp.init()

_NO_CUDA = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device (Warp sees only the CPU)")
# Env and torch-view tests also need a CUDA build of torch (the install scripts pin a CPU build).
_NO_TORCH_CUDA = pytest.mark.skipif(
    not (wp.is_cuda_available() and torch.cuda.is_available()), reason="no CUDA device visible to both Warp and torch"
)


@pytest.fixture(params=["cpu", pytest.param("cuda:0", marks=_NO_CUDA)])
def device(request):
    """Warp device a test runs on: "cpu" always, "cuda:0" where Warp sees a GPU (skipped, visibly, elsewhere)."""
    return request.param


@pytest.fixture(params=["cpu", pytest.param("cuda:0", marks=_NO_TORCH_CUDA)])
def torch_device(request):
    """Like ``device``, for tests that hand Warp arrays to torch: "cuda:0" also needs a CUDA torch."""
    return request.param
