"""Every Warp kernel module of newton_gym compiles for CUDA (sm_90, PTX through NVRTC).

Runs without a GPU: Warp's NVRTC builds the CUDA code ahead of time, so a kernel that only the CPU
backend accepts fails here rather than on a user's GPU. Skipped where Warp has no CUDA toolkit.

The builds go to one directory in Warp's kernel cache (which is per Warp version), where Warp skips a module
whose binary for the same module hash (source and options) and architecture is already there: a module
is compiled again whenever its code changes, and an unchanged one (150 s of NVRTC for all of them on 2
cores) is not.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
import warp as wp

import newton_gym

ARCH = 90  # H100 / H200


@pytest.fixture(scope="module")
def aot_dir():
    """The CUDA builds' directory in Warp's kernel cache (kept between runs)."""
    import pathlib

    wp.init()
    path = pathlib.Path(wp.config.kernel_cache_dir) / "newton_gym_cuda_aot"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _nvrtc_archs():
    try:
        from warp._src.context import runtime
    except ImportError:  # older Warp layouts
        return set()
    return set(getattr(runtime, "nvrtc_supported_archs", ()) or ())


def _kernel_modules():
    """Names of the Warp modules of newton_gym that hold kernels, after importing every submodule."""
    for info in pkgutil.walk_packages(newton_gym.__path__, "newton_gym."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    from warp._src.context import user_modules

    return sorted(
        name
        for name, module in user_modules.items()
        if name.startswith("newton_gym") and getattr(module, "kernels", None)
    )


@pytest.mark.skipif(not _nvrtc_archs(), reason="Warp was built without NVRTC (no CUDA toolkit)")
def test_every_kernel_module_compiles_for_cuda(aot_dir):
    names = _kernel_modules()
    # The solver, kinematics and renderer kernels at least (guards against the walk finding nothing).
    for expected in (
        "newton_gym.solvers.solve.world",
        "newton_gym.solvers.smooth.dynamics",
        "newton_gym.solvers.forward",
        "newton_gym.sim.kinematics",
        "newton_gym.render.raycaster",
    ):
        assert expected in names
    failures, built = {}, []
    for name in names:
        try:
            built += wp.compile_aot_module(name, arch=ARCH, module_dir=aot_dir, use_ptx=True)
        except Exception as exc:  # report every module that fails, not just the first
            failures[name] = f"{type(exc).__name__}: {exc}"
    assert not failures, failures
    assert len(built) == len(names) and all(path.stat().st_size > 0 for path in built)


@pytest.mark.skipif(not _nvrtc_archs(), reason="Warp was built without NVRTC (no CUDA toolkit)")
def test_the_tile_newton_kernel_compiles_for_cuda(aot_dir):
    """The world kernel whose Newton directions come from tile_cholesky (cuSolverDx on CUDA; a module of its
    own, made for a DOF count) compiles for CUDA at the default 32 lanes: the CPU runs it in CI, the GPU
    default uses it."""
    from newton_gym.solvers.solve.world import world_kernel

    module = world_kernel(18).module  # a Go1 world's DOFs
    module.options["block_dim"] = 32
    (path,) = wp.compile_aot_module(module, arch=ARCH, module_dir=aot_dir, use_ptx=True)
    assert "cusolverdx" in path.read_text()


@pytest.mark.skipif(not _nvrtc_archs(), reason="Warp was built without NVRTC (no CUDA toolkit)")
def test_the_noslip_world_kernel_compiles_for_cuda(aot_dir):
    """The world kernel with MuJoCo's noslip pass (a module of its own, made only for models that ask for
    noslip_iterations > 0) compiles for CUDA at the default 32 lanes."""
    from newton_gym.solvers.solve.world import world_kernel

    module = world_kernel(0, True).module
    module.options["block_dim"] = 32
    (path,) = wp.compile_aot_module(module, arch=ARCH, module_dir=aot_dir, use_ptx=True)
    assert path.exists()


def test_every_kernel_module_is_built_forward_only():
    """No module of newton_gym generates adjoint code: nothing differentiates through the step, and the
    adjoints made CUDA builds ten times slower (NVRTC to sm_90: 101 s -> 7.5 s for forward.py's kernels,
    86 s -> 7.7 s for the collision driver's)."""
    from warp._src.context import user_modules

    backward = [name for name in _kernel_modules() if user_modules[name].options.get("enable_backward", True)]
    assert not backward, backward


@pytest.mark.skipif(not _nvrtc_archs(), reason="Warp was built without NVRTC (no CUDA toolkit)")
def test_the_pgs_world_kernel_compiles_for_cuda(aot_dir):
    """The world kernel that solves by PGS (a module of its own: the default kernel holds Newton only)
    compiles for CUDA at the default 32 lanes."""
    from newton_gym.solvers.solve.world import world_kernel

    module = world_kernel(0, False, False).module
    module.options["block_dim"] = 32
    (path,) = wp.compile_aot_module(module, arch=ARCH, module_dir=aot_dir, use_ptx=True)
    assert path.exists() and "pgs" in path.with_suffix("").with_suffix(".cu").read_text().lower()


@pytest.mark.skipif(not _nvrtc_archs(), reason="Warp was built without NVRTC (no CUDA toolkit)")
def test_a_register_cap_bounds_the_cuda_kernels_registers(aot_dir):
    """Option.cuda_registers reaches the CUDA build: the finish pass (104 registers uncapped) built for sm_90 at
    a cap of 40 uses at most 40, as benchmarks/cuda_resources.py reads them from the CUBIN."""
    import importlib.util
    import pathlib

    from newton_gym.solvers import forward
    from newton_gym.solvers.lanes import register_capped

    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "cuda_resources.py"
    spec = importlib.util.spec_from_file_location("cuda_resources", path)
    resources = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(resources)
    module = register_capped(forward._finish_kernel, 40).module
    module.options["block_dim"] = 32
    (cubin,) = wp.compile_aot_module(module, arch=ARCH, module_dir=aot_dir, use_ptx=False)
    (kernel,) = resources.kernel_resources(str(cubin))
    assert kernel["kernel"].startswith("_finish_kernel")
    assert 0 < kernel["registers"] <= 40
