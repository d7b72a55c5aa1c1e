"""Build Warp's CUDA kernel cache for the shipped tasks on a machine without a GPU.

A first env step on a GPU compiles every Warp module the step launches, with Warp's own NVRTC (sm_90 CUBIN
on an H100 whose driver is older than Warp's CUDA toolkit). Those are minutes of a short GPU lease. The
same NVRTC is in Warp's CPU build, so the binaries can be made here and carried:

1. Each task's env is built and stepped on the CPU with 32 lanes per world and the Newton Hessian by tiles,
   as the CUDA default runs it (``wp.config.enable_cpu_blocks``), and every Warp module load is recorded
   with its block size. A launch that is not tiled loads with one lane on the CPU and with the module's
   default block size on CUDA, so that size is compiled.
2. Each (module, block size) is compiled for ``--arch`` into ``--out`` in the layout of Warp's kernel cache
   (``<out>/<warp version>/wp_<module>_<hash>/``), the hash computed by Warp for that block size. The CPU
   run in step 1 keys its own block-size-32 binaries by the same hashes.

On the GPU machine, point Warp at the folder (``WARP_CACHE_PATH=<out>``);
a module whose hash differs there (another Warp version or other options) is compiled there as usual.
Uses Warp's ``Module._compile`` and ``Module.get_module_identifier`` (Warp 1.19).

    python scripts/gpu_kernel_cache.py --out .gpu_cache --jobs 2
    python scripts/gpu_kernel_cache.py --out .gpu_cache --tasks Ant --world-dofs --cuda-registers 128 64

``--cuda-registers`` also builds the per-world pass kernels capped at each of those register counts
(``Option.cuda_registers``, ``bench_gpu.py --cuda-registers``); ``benchmarks/cuda_resources.py`` reads the
registers, stack and resident worlds per SM of every kernel in the cache.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import numpy as np
import warp as wp

import newton_gym  # noqa: F401  (registers the ids)

_IDS = {
    "Ant": "Newton/Ant-v0",
    "Humanoid": "Newton/Humanoid-v0",
    "Go1": "Newton/Go1-Flat-v0",
    "G1": "Newton/G1-Flat-v0",
    "Go1-Rough": "Newton/Go1-Rough-v0",
}
CUDA_LANES = 32  # forward.default_block_dim on CUDA


def record_loads(task: str, steps: int = 3) -> set[tuple[object, int]]:
    """(module, CUDA block size) of every Warp module that building and stepping ``task`` loads."""
    from warp._src.context import Module

    loads = set()
    original = Module.load

    def load(self, device, block_dim=None, *args, **kwargs):
        bd = block_dim if block_dim is not None else self.options["block_dim"]
        loads.add((self, bd if bd > 1 else self.options["block_dim"]))
        return original(self, device, block_dim, *args, **kwargs)

    Module.load = load
    try:
        env = gym.make_vec(
            _IDS[task], num_envs=2, device="cpu", sim={"block_dim": CUDA_LANES, "tiles": True, "threads": 1}
        )
        env.reset(seed=0)
        action = np.zeros((2, env.single_action_space.shape[0]), np.float32)
        for _ in range(steps):
            env.step(action)
        env.close()
    finally:
        Module.load = original
    return loads


def compile_one(module, block_dim: int, out: str, arch: int) -> tuple[str, int, float, bool]:
    """Compile ``module`` at ``block_dim`` for ``arch`` into its cache folder under ``out``; (module name,
    block size, seconds, whether it was compiled rather than found)."""
    saved = module.options["block_dim"]
    module.options["block_dim"] = block_dim
    try:
        folder = os.path.join(out, module.get_module_identifier(block_dim))
        t = time.perf_counter()
        compiled = module._compile(None, folder, output_arch=arch, use_ptx=False)
        return module.name, block_dim, time.perf_counter() - t, bool(compiled)
    finally:
        module.options["block_dim"] = saved


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="kernel cache folder to fill")
    p.add_argument("--tasks", nargs="+", default=["Ant", "Go1", "Humanoid", "G1"], choices=list(_IDS))
    p.add_argument("--arch", type=int, default=90, help="SM architecture (90: H100 / H200)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="modules compiled at once")
    p.add_argument(
        "--world-dofs",
        type=int,
        nargs="*",
        default=list(range(1, 13)),
        help="also the world kernels for worlds of these DOF counts (tiles, 32 lanes), the lanes' and the PGS "
        "kernel: the small models of the CUDA tests (default 1 .. 12)",
    )
    p.add_argument(
        "--cuda-registers",
        type=int,
        nargs="*",
        default=[128, 64],
        help="also the tasks' per-world pass kernels capped at these registers per thread (Option.cuda_registers; "
        "default 128 64, what gpu_checks.sh's bench_gpu_registers step times)",
    )
    p.add_argument(
        "--packed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also the per-world pass modules at the packed launch's block size (one thread per world, "
        "block_dim=1 on CUDA: lanes.CUDA_WORLDS_PER_BLOCK), the lanes' Cholesky world kernel among them",
    )
    p.add_argument(
        "--every-module",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also every other kernel module of newton_gym at its default block size (what the CUDA tests load: "
        "the first H200 lease spent its test minutes in NVRTC)",
    )
    a = p.parse_args()

    wp.config.enable_cpu_blocks = True
    wp.init()
    pending = set()
    for task in a.tasks:
        pending |= record_loads(task)
    if a.world_dofs:
        from newton_gym.solvers.solve.world import world_kernel

        kernels = [world_kernel(n) for n in a.world_dofs] + [world_kernel(0), world_kernel(0, False, False)]
        pending |= {(k.module, CUDA_LANES) for k in kernels}
    if a.cuda_registers:
        from newton_gym.solvers.lanes import capped_kernels, register_capped

        bases = capped_kernels()  # the pass kernels the tasks' steps launched
        pending |= {(register_capped(k, r).module, CUDA_LANES) for k in bases for r in a.cuda_registers}
    if a.packed:
        from newton_gym.solvers.lanes import CUDA_WORLDS_PER_BLOCK, capped_kernels
        from newton_gym.solvers.solve.world import world_kernel

        # the pass kernels of the shared modules (the tile world kernels, modules of their own, need lanes)
        modules = {k.module for k in capped_kernels() if k.module.name.startswith("newton_gym")}
        pending |= {(m, CUDA_WORLDS_PER_BLOCK) for m in modules | {world_kernel(0).module}}
    if a.every_module:
        import importlib
        import pkgutil

        from warp._src.context import user_modules

        for info in pkgutil.walk_packages(newton_gym.__path__, "newton_gym."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
        for name, module in list(user_modules.items()):
            if name.startswith("newton_gym") and getattr(module, "kernels", None):
                pending.add((module, module.options["block_dim"]))
    jobs = sorted(pending, key=lambda mb: (mb[0].name, mb[1]))
    print(
        f"{len(jobs)} (module, block size) pairs for {', '.join(a.tasks)} and world kernels of DOF counts "
        f"{a.world_dofs}; compiling for sm_{a.arch} into {a.out}"
    )
    cache = os.path.join(a.out, wp.config.version)  # where WARP_CACHE_PATH=<out> points Warp
    os.makedirs(cache, exist_ok=True)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(compile_one, m, bd, cache, a.arch) for m, bd in jobs]
        for future in futures:
            name, bd, seconds, compiled = future.result()
            print(f"{seconds:8.1f} s  {name} (block {bd}){'' if compiled else ' (already there)'}", flush=True)
    print(f"done in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
