"""Counter-based random numbers, one independent stream per world.

Each number is a hash of (seed, world, the world's reset counter, stream, element): nothing is drawn
from a shared generator, so the numbers a world gets for its k-th reset depend only on the seed, the
world index and k. A world that fails and resets early changes its own counter, never another world's
noise. The hash is 32-bit integer arithmetic (exact, so every device and worker gives the same numbers):
the (seed, stream) key on the host, the rest in one Warp kernel per draw on the environment's device (as
torch operations it took about 90 small launches per draw, 2 ms of a 256-world step).
"""

from __future__ import annotations

import torch
import warp as wp

__all__ = ["WorldRng"]

wp.set_module_options({"enable_backward": False})

_MASK32 = 0xFFFFFFFF
# the finalizer's multipliers as uint32 constants (a literal above 2^31 in a kernel is emitted as an int32
# and the C++ compiler warns that it changes value)
_MUL_A = wp.constant(wp.uint32(0x7FEB352D))
_MUL_B = wp.constant(wp.uint32(0x846CA68B))


def _mix32_host(x: int) -> int:
    """A 32-bit integer finalizer (xor-shift / multiply, 'lowbias32' constants) of a Python int in
    [0, 2^32): every input bit affects every output bit."""
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _MASK32
    x ^= x >> 15
    x = (x * 0x846CA68B) & _MASK32
    return x ^ (x >> 16)


@wp.func
def _mix32(x: wp.uint32):
    """:func:`_mix32_host` in uint32 arithmetic (products wrap mod 2^32)."""
    x = x ^ (x >> wp.uint32(16))
    x = x * _MUL_A
    x = x ^ (x >> wp.uint32(15))
    x = x * _MUL_B
    return x ^ (x >> wp.uint32(16))


@wp.func
def _hash(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int, e: int):
    """mix(mix(mix(mix(key ^ w) ^ counter_lo) ^ counter_hi) ^ e) of world w's counter."""
    c = counter[w]
    h = _mix32(key ^ wp.uint32(w))
    h = _mix32(h ^ wp.uint32(c & wp.int64(0xFFFFFFFF)))
    h = _mix32(h ^ wp.uint32((c >> wp.int64(32)) & wp.int64(0xFFFFFFFF)))
    return _mix32(h ^ wp.uint32(e))


@wp.kernel
def _bits_kernel(key: wp.uint32, counter: wp.array(dtype=wp.int64), out: wp.array2d(dtype=wp.int64)):
    """out[w, e] = the hash of (key, world w's counter, e)."""
    w, e = wp.tid()
    out[w, e] = wp.int64(_hash(key, counter, w, e))


@wp.kernel
def _uniform_kernel(key: wp.uint32, counter: wp.array(dtype=wp.int64), out: wp.array2d(dtype=wp.float32)):
    """out[w, e] = the hash's top 24 bits times 2^-24 (exact in float32: what (bits >> 8) * 2^-24 gives)."""
    w, e = wp.tid()
    out[w, e] = wp.float32(_hash(key, counter, w, e) >> wp.uint32(8)) * wp.float32(1.0 / 16777216.0)


class WorldRng:
    """Per-world counter-based uniform and normal numbers.

    Args:
        seed: stream seed (any int; reduced mod 2^32).
        world_count: number of worlds N.
        device: torch device of the returned tensors.

    Attributes:
        counter: (N,) int64, how many times each world has advanced (one per reset of that world).
    """

    def __init__(self, seed: int, world_count: int, device):
        wp.init()
        self.device = torch.device(device)
        self.world_count = int(world_count)
        self.counter = torch.zeros(int(world_count), dtype=torch.int64, device=self.device)
        self._counter = wp.from_torch(self.counter)  # the kernel's view (the counter changes in place only)
        self.seed(seed)

    def seed(self, seed: int):
        """Restart every world's stream from ``seed``: counters back to 0."""
        self._seed = int(seed) & _MASK32
        self.counter.zero_()

    def advance(self, mask: torch.Tensor):
        """Move the worlds where ``mask`` (N,) bool is True to their next draw."""
        self.counter += mask.to(torch.int64)

    def _draw(self, kernel, dtype, stream: int, width: int) -> torch.Tensor:
        """(N, width) of ``kernel`` over the hashes of (seed, world, counter, stream, element): one launch,
        no host sync."""
        key = _mix32_host(self._seed ^ (((int(stream) & _MASK32) * 0x9E3779B1) & _MASK32))
        out = torch.empty((self.world_count, int(width)), dtype=dtype, device=self.device)
        if out.numel():
            wp.launch(
                kernel,
                dim=out.shape,
                inputs=[wp.uint32(key), self._counter],
                outputs=[wp.from_torch(out)],
                device=wp.device_from_torch(self.device),
            )
        return out

    def bits(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) int64 hashes in [0, 2^32) of (seed, world, counter, stream, element)."""
        return self._draw(_bits_kernel, torch.int64, stream, width)

    def uniform(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) float32 uniform in [0, 1): the top 24 bits of each hash times 2^-24 (in the kernel)."""
        return self._draw(_uniform_kernel, torch.float32, stream, width)

    def normal(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) float32 standard normal (Box-Muller on two uniform draws of the stream)."""
        u = self.uniform(stream, 2 * width)
        u1 = u[:, :width] + (1.0 / 16777216.0)  # (0, 1]: log is finite (exact: both are multiples of 2^-24)
        u2 = u[:, width:]
        return torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(2.0 * torch.pi * u2)
