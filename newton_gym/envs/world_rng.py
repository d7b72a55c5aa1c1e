"""Counter-based random numbers, one independent stream per world.

Each number is a hash of (seed, world, the world's reset counter, stream, element): nothing is drawn
from a shared generator, so the numbers a world gets for its k-th reset depend only on the seed, the
world index and k. A world that fails and resets early changes its own counter, never another world's
noise. The hash is 32-bit integer arithmetic (exact, so every device and worker gives the same numbers):
the (seed, stream) key on the host, the rest in one Warp kernel per draw on the environment's device (as
torch operations it took about 90 small launches per draw, 2 ms of a 256-world step).
"""

from __future__ import annotations

import numpy as np
import torch
import warp as wp

from ..errors import EnvError

__all__ = ["WorldRng", "draw_uniform", "stream_key", "world_draw", "world_normal", "world_uniform"]

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


def stream_key(seed: int, stream: int) -> int:
    """The 32-bit key of ``stream`` under ``seed`` (both reduced mod 2^32): :meth:`WorldRng.key`, for a kernel
    that draws with :func:`world_uniform` from counters of its own."""
    return _mix32_host((int(seed) & _MASK32) ^ (((int(stream) & _MASK32) * 0x9E3779B1) & _MASK32))


@wp.func
def _mix32(x: wp.uint32):
    """:func:`_mix32_host` in uint32 arithmetic (products wrap mod 2^32)."""
    x = x ^ (x >> wp.uint32(16))
    x = x * _MUL_A
    x = x ^ (x >> wp.uint32(15))
    x = x * _MUL_B
    return x ^ (x >> wp.uint32(16))


@wp.func
def world_draw(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int):
    """mix(mix(mix(key ^ w) ^ counter_lo) ^ counter_hi) of world w's counter: the part of every element's hash
    that one draw of one world shares (a kernel that draws many elements of a world takes it once and passes
    it to :func:`draw_uniform`)."""
    c = counter[w]
    h = _mix32(key ^ wp.uint32(w))
    h = _mix32(h ^ wp.uint32(c & wp.int64(0xFFFFFFFF)))
    return _mix32(h ^ wp.uint32((c >> wp.int64(32)) & wp.int64(0xFFFFFFFF)))


@wp.func
def _hash(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int, e: int):
    """mix(mix(mix(mix(key ^ w) ^ counter_lo) ^ counter_hi) ^ e) of world w's counter."""
    return _mix32(world_draw(key, counter, w) ^ wp.uint32(e))


@wp.func
def _unit(h: wp.uint32):
    """The hash's top 24 bits times 2^-24: uniform in [0, 1), exact in float32 (what (bits >> 8) * 2^-24
    gives)."""
    return wp.float32(h >> wp.uint32(8)) * wp.float32(1.0 / 16777216.0)


@wp.func
def world_uniform(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int, e: int):
    """Element e of world w's uniform numbers of the stream whose key is ``key`` (:meth:`WorldRng.key`): what
    :meth:`WorldRng.uniform` gives, for a kernel that draws its own."""
    return _unit(_hash(key, counter, w, e))


@wp.func
def draw_uniform(draw: wp.uint32, e: int):
    """:func:`world_uniform` of element e, from the world's :func:`world_draw` ``draw`` of the same key."""
    return _unit(_mix32(draw ^ wp.uint32(e)))


@wp.func
def world_normal(key: wp.uint32, counter: wp.array(dtype=wp.int64), w: int, e: int, width: int):
    """Element e of world w's standard normal numbers of the stream whose key is ``key``, ``width`` of them:
    sqrt(-2 log u1) cos(2 pi u2) (Box-Muller), with u1 the uniform of element e plus 2^-24, in (0, 1] so the
    log is finite (exact: both are multiples of 2^-24), and u2 that of element width + e. What
    :meth:`WorldRng.normal` gives, for a kernel that draws its own."""
    u1 = _unit(_hash(key, counter, w, e)) + wp.float32(1.0 / 16777216.0)
    u2 = _unit(_hash(key, counter, w, width + e))
    return wp.sqrt(wp.float32(-2.0) * wp.log(u1)) * wp.cos(wp.float32(2.0 * wp.pi) * u2)


@wp.kernel
def _bits_kernel(
    key: wp.uint32, counter: wp.array(dtype=wp.int64), mask: wp.array(dtype=bool), out: wp.array2d(dtype=wp.int64)
):
    """out[w, e] = the hash of (key, world w's counter, e) where mask[w], else 0."""
    w, e = wp.tid()
    if mask[w]:
        out[w, e] = wp.int64(_hash(key, counter, w, e))
    else:
        out[w, e] = wp.int64(0)


@wp.kernel
def _uniform_kernel(
    key: wp.uint32, counter: wp.array(dtype=wp.int64), mask: wp.array(dtype=bool), out: wp.array2d(dtype=wp.float32)
):
    """out[w, e] = :func:`_unit` of the hash where mask[w], else 0."""
    w, e = wp.tid()
    if mask[w]:
        out[w, e] = _unit(_hash(key, counter, w, e))
    else:
        out[w, e] = wp.float32(0.0)


@wp.kernel
def _uniform_columns_kernel(
    keys: wp.array(dtype=wp.uint32),
    elements: wp.array(dtype=wp.int32),
    counter: wp.array(dtype=wp.int64),
    mask: wp.array(dtype=bool),
    out: wp.array2d(dtype=wp.float32),
):
    """out[w, c] = :func:`_unit` of the hash of (keys[c], world w's counter, elements[c]) where mask[w], else 0:
    several streams' uniform numbers side by side."""
    w, c = wp.tid()
    if mask[w]:
        out[w, c] = _unit(_hash(keys[c], counter, w, elements[c]))
    else:
        out[w, c] = wp.float32(0.0)


@wp.kernel
def _normal_kernel(
    key: wp.uint32,
    counter: wp.array(dtype=wp.int64),
    mask: wp.array(dtype=bool),
    width: int,
    out: wp.array2d(dtype=wp.float32),
):
    """out[w, e] = :func:`world_normal` where mask[w], else 0."""
    w, e = wp.tid()
    if mask[w]:
        out[w, e] = world_normal(key, counter, w, e, width)
    else:
        out[w, e] = wp.float32(0.0)


class WorldRng:
    """Per-world counter-based uniform and normal numbers.

    Args:
        seed: stream seed (any int; reduced mod 2^32).
        world_count: number of worlds N.
        device: torch device of the returned tensors.

    Attributes:
        counter: (N,) int64, how many times each world has advanced (one per reset of that world).
        counter_array: the Warp view of ``counter`` (a kernel's argument for :func:`world_uniform` and
            :func:`world_normal`).
    """

    def __init__(self, seed: int, world_count: int, device):
        wp.init()
        self.device = torch.device(device)
        self.world_count = int(world_count)
        self.counter = torch.zeros(int(world_count), dtype=torch.int64, device=self.device)
        self.counter_array = wp.from_torch(self.counter)  # the kernel's view (the counter changes in place only)
        self._all = torch.ones(int(world_count), dtype=torch.bool, device=self.device)
        self._tables = {}  # segments -> [seed, per-column keys, per-column elements] of uniforms()
        self.seed(seed)

    def seed(self, seed: int):
        """Restart every world's stream from ``seed``: counters back to 0."""
        self._seed = int(seed) & _MASK32
        self.counter.zero_()

    def advance(self, mask: torch.Tensor):
        """Move the worlds where ``mask`` (N,) bool is True to their next draw."""
        self.counter += mask.to(torch.int64)

    def key(self, stream: int) -> int:
        """The 32-bit key of ``stream`` under the current seed (a kernel's argument for :func:`world_uniform`)."""
        return stream_key(self._seed, stream)

    def _draw(self, kernel, dtype, stream, width: int, mask, *extra, table_arrays=()) -> torch.Tensor:
        """(N, width) of ``kernel`` over the hashes of (seed, world, counter, stream, element) of the worlds
        where ``mask`` is True (None: every world), with the kernel's ``extra`` inputs: one launch, no host
        sync. ``table_arrays`` (keys, elements per column) take the place of one stream's key."""
        head = list(table_arrays) if table_arrays else [wp.uint32(self.key(stream))]
        out = torch.empty((self.world_count, int(width)), dtype=dtype, device=self.device)
        if mask is None:
            mask = self._all
        elif not torch.is_tensor(mask) or mask.shape != (self.world_count,):
            raise EnvError(f"a WorldRng mask must be a ({self.world_count},) bool tensor, got {mask!r:.80}")
        if out.numel():
            wp.launch(
                kernel,
                dim=out.shape,
                inputs=[*head, self.counter_array, _descriptor(mask.to(self.device, torch.bool)), *extra],
                outputs=[_descriptor(out)],
                device=wp.device_from_torch(self.device),
            )
        return out

    def bits(self, stream: int, width: int, mask: torch.Tensor | None = None) -> torch.Tensor:
        """(N, width) int64 hashes in [0, 2^32) of (seed, world, counter, stream, element). ``mask`` (N,) bool:
        only the worlds where it is True are drawn (the others' rows are 0); a world's numbers are the same
        with or without it."""
        return self._draw(_bits_kernel, torch.int64, stream, width, mask)

    def uniform(self, stream: int, width: int, mask: torch.Tensor | None = None) -> torch.Tensor:
        """(N, width) float32 uniform in [0, 1): the top 24 bits of each hash times 2^-24 (in the kernel);
        ``mask`` as in :meth:`bits`."""
        return self._draw(_uniform_kernel, torch.float32, stream, width, mask)

    def uniforms(self, segments, mask: torch.Tensor | None = None) -> list[torch.Tensor]:
        """[(N, width) float32 of each (stream, width) of ``segments``]: what :meth:`uniform` (stream, width,
        mask) gives for each, bitwise, from one launch (column views of one tensor); ``mask`` as in
        :meth:`bits`."""
        segments = tuple((int(stream), int(width)) for stream, width in segments)
        table = self._tables.get(segments)
        if table is None or table[0] != self._seed:
            keys = np.array([self.key(stream) for stream, width in segments for _ in range(width)], dtype=np.uint32)
            if table is None:
                elements = np.array([e for _, width in segments for e in range(width)], dtype=np.int32)
                device = wp.device_from_torch(self.device)
                table = [0, wp.array(keys, dtype=wp.uint32, device=device), wp.array(elements, device=device)]
                self._tables[segments] = table
            else:  # in place: a captured step's draws see the new seed
                table[1].assign(keys)
            table[0] = self._seed
        total = sum(width for _, width in segments)
        out = self._draw(_uniform_columns_kernel, torch.float32, None, total, mask, table_arrays=table[1:])
        return list(out.split([width for _, width in segments], dim=1))

    def normal(self, stream: int, width: int, mask: torch.Tensor | None = None) -> torch.Tensor:
        """(N, width) float32 standard normal: Box-Muller on the stream's uniform numbers of elements
        0 .. width - 1 and width .. 2 width - 1 (what :meth:`uniform` (stream, 2 width) gives), in the kernel;
        ``mask`` as in :meth:`bits`."""
        return self._draw(_normal_kernel, torch.float32, stream, width, mask, int(width))


def _descriptor(tensor: torch.Tensor):
    """A Warp array descriptor over a contiguous ``tensor`` (cheaper to make than a wp.array)."""
    return wp.from_torch(tensor.contiguous(), return_ctype=True)
