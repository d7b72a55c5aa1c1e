"""Counter-based random numbers, one independent stream per world.

Each number is a hash of (seed, world, the world's reset counter, stream, element): nothing is drawn
from a shared generator, so the numbers a world gets for its k-th reset depend only on the seed, the
world index and k. A world that fails and resets early changes its own counter, never another world's
noise. All arithmetic is int64 torch on the environment's device, in every worker the same numbers.
"""

from __future__ import annotations

import torch

__all__ = ["WorldRng"]

_MASK32 = 0xFFFFFFFF


def _mul32(x: torch.Tensor, c: int) -> torch.Tensor:
    """(x * c) mod 2^32 for int64 tensors holding values in [0, 2^32) without int64 overflow: the
    multiplier is split into 16-bit halves and the high half's product is reduced before the shift."""
    lo, hi = c & 0xFFFF, (c >> 16) & 0xFFFF
    return ((x * lo) + (((x * hi) & 0xFFFF) << 16)) & _MASK32


def _mix32(x: torch.Tensor) -> torch.Tensor:
    """A 32-bit integer finalizer (xor-shift / multiply, 'lowbias32' constants): every input bit
    affects every output bit."""
    x = x ^ (x >> 16)
    x = _mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = _mul32(x, 0x846CA68B)
    return x ^ (x >> 16)


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
        self.device = torch.device(device)
        self.world = torch.arange(int(world_count), dtype=torch.int64, device=self.device)
        self.counter = torch.zeros(int(world_count), dtype=torch.int64, device=self.device)
        self.seed(seed)

    def seed(self, seed: int):
        """Restart every world's stream from ``seed``: counters back to 0."""
        self._seed = int(seed) & _MASK32
        self.counter.zero_()

    def advance(self, mask: torch.Tensor):
        """Move the worlds where ``mask`` (N,) bool is True to their next draw."""
        self.counter += mask.to(torch.int64)

    def bits(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) int64 hashes in [0, 2^32) of (seed, world, counter, stream, element)."""
        element = torch.arange(int(width), dtype=torch.int64, device=self.device)
        key = _mix32(
            torch.full((), self._seed, dtype=torch.int64, device=self.device)
            ^ _mul32(torch.full((), int(stream) & _MASK32, dtype=torch.int64, device=self.device), 0x9E3779B1)
        )
        h = _mix32(key ^ (self.world & _MASK32))
        h = _mix32(h ^ (self.counter & _MASK32))
        h = _mix32(h ^ ((self.counter >> 32) & _MASK32))
        return _mix32(h[:, None] ^ element[None, :])

    def uniform(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) float32 uniform in [0, 1) (24 random bits each)."""
        return (self.bits(stream, width) >> 8).to(torch.float32) * (1.0 / 16777216.0)

    def normal(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) float32 standard normal (Box-Muller on two uniform draws of the stream)."""
        b = self.bits(stream, 2 * width)
        u1 = ((b[:, :width] >> 8) + 1).to(torch.float32) * (1.0 / 16777216.0)  # (0, 1]: log is finite
        u2 = (b[:, width:] >> 8).to(torch.float32) * (1.0 / 16777216.0)
        return torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(2.0 * torch.pi * u2)
