"""Lanes of a world block: the barrier between passes that read other lanes' results.

A per-world kernel launched with ``wp.launch_tiled(..., block_dim=n)`` runs n lanes per world; strided
loops (``for i in range(first + lane, end, lanes)``) share the world's entities. On CUDA a block is a
thread block; on the CPU Warp runs its lanes as cooperative fibers when ``wp.config.enable_cpu_blocks`` is
set (else one lane). Every lane must reach every barrier: call it only under conditions that are the
same for the whole block.
"""

from __future__ import annotations

import functools

import warp as wp

__all__ = ["block_sync", "capped_kernels", "register_capped", "sync_lanes"]

_CAPPED_BASES: dict = {}  # every per-world pass kernel given to register_capped, in first-call order


@wp.func_native("WP_TILE_SYNC();")
def block_sync():
    """Barrier across the lanes of a block (``__syncthreads`` on CUDA; a fiber switch on the CPU)."""
    ...


@wp.func(inline=True)
def sync_lanes(lanes: int):
    """:func:`block_sync` where a block has more than one lane; nothing for a one-lane caller, which may be a
    plain ``wp.launch`` thread (whose CUDA block holds other, unrelated threads)."""
    if lanes > 1:
        block_sync()


@functools.cache
def register_capped(kernel: wp.Kernel, registers: int | None) -> wp.Kernel:
    """``kernel`` built for CUDA with at most ``registers`` registers per thread (CUDA ``__maxnreg__``), as a
    Warp module of its own (its CPU code is unchanged); None: ``kernel`` itself. The launchers of the
    per-world passes call it with ``Option.cuda_registers``."""
    _CAPPED_BASES.setdefault(kernel, None)
    if registers is None:
        return kernel
    regs = int(registers)
    return wp.kernel(kernel.func, name=kernel.key, module="unique", cuda_max_registers=regs, enable_backward=False)


def capped_kernels() -> list:
    """The per-world pass kernels launched through :func:`register_capped` in this process so far (what
    ``scripts/gpu_kernel_cache.py --cuda-registers`` builds capped variants of)."""
    return list(_CAPPED_BASES)
