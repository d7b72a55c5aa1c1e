"""The height-scan observation term of a :class:`~newton_gym.sensors.HeightScanner`, with its noise, in one launch.

Isaac Lab's ``height_scan`` term, ``clip(body_z - hit_z - offset, lo, hi)`` per ray [m], and the policy's copy
with uniform noise U(-half_width, half_width) added, both written into tensors kept from step to step (no
allocation, capturable in a graph). The noise is counter-based (:func:`.world_rng.world_uniform`): element r
of world w's d-th draw is a hash of (the seed's key, w, d, r), so a world's noise depends only on the seed,
the world and how many times it was drawn, never on other worlds (a masked update draws for the masked
worlds only, and only their counters advance).

As torch operations on a 256-world, 187-ray scan the same term took 0.35-0.45 ms a call (most of it torch's
CPU generator: 0.19-0.22 ms for 47,872 numbers); it is one launch here.
"""

from __future__ import annotations

import torch
import warp as wp

from .world_rng import draw_uniform, stream_key, world_draw

wp.set_module_options({"enable_backward": False})

__all__ = ["ScanObservation"]

_NOISE_STREAM = 24  # the WorldRng stream whose key seeds the noise (locomotion 11-14, rough task 21-23)


@wp.kernel
def _scan_observation_kernel(
    body_z: wp.array(dtype=wp.float32),
    hits_z: wp.array2d(dtype=wp.float32),
    offset: float,
    lo: float,
    hi: float,
    half_width: float,
    key: wp.uint32,
    draws: wp.array(dtype=wp.int64),
    mask: wp.array(dtype=bool),
    per_thread: int,
    clean_out: wp.array2d(dtype=wp.float32),
    noisy_out: wp.array2d(dtype=wp.float32),
):
    w, chunk = wp.tid()
    if not mask[w]:
        return
    draw = world_draw(key, draws, w)
    first = chunk * per_thread
    for r in range(first, wp.min(first + per_thread, hits_z.shape[1])):
        h = wp.clamp(body_z[w] - hits_z[w, r] - offset, lo, hi)
        clean_out[w, r] = h
        noisy_out[w, r] = h + (2.0 * draw_uniform(draw, r) - 1.0) * half_width


class ScanObservation:
    """The scan term of ``scanner``'s last update, clean and noisy.

    Args:
        scanner: the HeightScanner whose hits the term reads.
        offset: [m] subtracted from the body's height above each hit (Isaac Lab's 0.5).
        clip: (lo, hi) [m] bounds of the term.
        noise: [m] half width of the uniform noise of the noisy copy (0: a copy of the clean term).
        seed: the noise's seed (:meth:`seed`).

    Attributes:
        rays_per_thread: rays one thread of the launch writes (1 on a GPU, all of a world's on the CPU).
        clean: (N, R) float32 torch tensor, the term of the last :meth:`update` [m].
        noisy: (N, R) float32 torch tensor, ``clean`` plus the noise [m].
        draws: (N,) int64 torch tensor, how many times each world's noise was drawn since the seed.
    """

    def __init__(self, scanner, offset: float, clip, noise: float, seed: int):
        self.scanner = scanner
        self.offset = float(offset)
        self.lo, self.hi = (float(v) for v in clip)
        self.noise = float(noise)
        views = scanner.views
        self.clean = torch.zeros_like(views.hits_z)
        self.noisy = torch.zeros_like(views.hits_z)
        self.draws = torch.zeros(scanner.count, dtype=torch.int64, device=views.hits_z.device)
        self._everyone = torch.ones(scanner.count, dtype=torch.bool, device=views.hits_z.device)
        self._arrays = [wp.from_torch(t) for t in (self.draws, self._everyone, self.clean, self.noisy)]
        # a thread per ray on a GPU, a thread per world on the CPU (where a launch costs ~20 ns a thread, more
        # than a ray's work: one thread per ray took 1 ms for 256 worlds, one per world 0.3 ms)
        cuda = wp.get_device(scanner.model.device).is_cuda
        self.rays_per_thread = 1 if cuda else max(scanner.num_rays, 1)
        self.seed(seed)

    def seed(self, seed: int):
        """Restart the noise from ``seed``: every world's draw count back to 0."""
        self._key = wp.uint32(stream_key(seed, _NOISE_STREAM))
        self.draws.zero_()

    def update(self, mask: torch.Tensor | None = None):
        """Write the term of the scanner's hits into ``clean`` and ``noisy`` for the worlds of ``mask`` ((N,)
        bool; None: every world), and advance their draw counts: one launch, no host sync."""
        draws, everyone, clean, noisy = self._arrays
        mask_arg = everyone if mask is None else wp.from_torch(mask.contiguous(), return_ctype=True)
        rays, per_thread = clean.shape[1], self.rays_per_thread
        wp.launch(
            _scan_observation_kernel,
            dim=(clean.shape[0], (rays + per_thread - 1) // per_thread),
            inputs=[
                self.scanner.body_z,
                self.scanner.hits_z,
                self.offset,
                self.lo,
                self.hi,
                self.noise,
                self._key,
                draws,
                mask_arg,
                per_thread,
            ],
            outputs=[clean, noisy],
            device=self.scanner.model.device,
        )
        if mask is None:
            self.draws += 1
        else:
            torch.add(self.draws, mask, out=self.draws)  # bool promotes to int64 in place: no temporary
