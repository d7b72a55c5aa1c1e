"""Lanes of a world block: the barrier between passes that read other lanes' results.

A per-world kernel launched by :func:`launch_worlds` with n lanes runs a block of n lanes per world
(``wp.launch_tiled(..., block_dim=n)``); strided loops (``for i in range(first + lane, end, lanes)``) share
the world's entities. On CUDA a block is a thread block; on the CPU Warp runs its lanes as cooperative
fibers when ``wp.config.enable_cpu_blocks`` is set (else one lane). Every lane must reach every barrier:
call it only under conditions that are the same for the whole block, and through :func:`sync_lanes`, so
that a one-lane world passes none (on CUDA one-lane worlds share a thread block).
"""

from __future__ import annotations

import functools

import warp as wp

__all__ = [
    "CUDA_WORLDS_PER_BLOCK",
    "capped_kernels",
    "lane_owns",
    "launch_worlds",
    "packs_worlds",
    "register_capped",
    "sync_lanes",
]

CUDA_WORLDS_PER_BLOCK = 64  # one-lane worlds packed into one CUDA block (one thread each)

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


@wp.func(inline=True)
def lane_owns(i: int, lane: int, lanes: int):
    """Whether entry i of a strided share falls to ``lane`` of ``lanes`` (i % lanes == lane), without the
    integer division where a block has one lane (every CPU world step): in the inner loops of the Hessian,
    gradient and factorizations the division's latency showed in ``perf``."""
    if lanes == 1:
        return True
    return i % lanes == lane


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


def packs_worlds(device, lanes: int) -> bool:
    """Whether :func:`launch_worlds` runs one thread per world, many worlds to a CUDA block: one lane per world
    on CUDA (a block per world would leave 31 of its warp's 32 threads idle)."""
    return lanes == 1 and wp.get_device(device).is_cuda


def launch_worlds(kernel, first: int, count: int, lanes: int, device, args: list):
    """Launch the per-world pass ``kernel(first, lanes, *args)`` over the worlds (or blocks) first .. first +
    count - 1. More than one lane: a block of ``lanes`` lanes per world (``wp.launch_tiled``). One lane: a
    one-lane block per world on the CPU, as the lanes' path expects; on CUDA (:func:`packs_worlds`) one thread
    per world, ``CUDA_WORLDS_PER_BLOCK`` worlds to a CUDA block, which the kernels allow because they pass
    their barriers only where ``lanes`` > 1 (:func:`sync_lanes`)."""
    inputs = [int(first), int(lanes), *args]
    if packs_worlds(device, lanes):
        wp.launch(kernel, dim=(int(count), 1), inputs=inputs, block_dim=CUDA_WORLDS_PER_BLOCK, device=device)
    else:
        wp.launch_tiled(kernel, dim=[int(count)], inputs=inputs, block_dim=int(lanes), device=device)
