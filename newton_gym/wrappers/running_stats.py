"""RunningMeanStd: the mean and variance of every sample seen so far, updated batch by batch on a torch device."""

from __future__ import annotations

import torch

__all__ = ["RunningMeanStd"]


class RunningMeanStd:
    """Running mean and (population) variance of samples of shape ``shape``, kept as float64 tensors.

    Batches are merged with the parallel-variance update of Chan, Golub and LeVeque (1979), which is what
    Gymnasium's ``RunningMeanStd`` computes; the statistics start at mean 0, variance 1 and a count of
    ``epsilon``, so the first batch outweighs the start. A batch may come with a row mask: rows left out do
    not count, and a batch with no row counted changes nothing (no host sync either way).

    Args:
        shape: shape of one sample (``()`` for scalars).
        epsilon: starting count.
        device: torch device of the statistics.

    Attributes:
        mean: ``shape`` float64 mean.
        var: ``shape`` float64 variance.
        count: 0-d float64 number of samples merged (plus ``epsilon``).
    """

    def __init__(self, shape: tuple = (), epsilon: float = 1e-4, device=None):
        self.shape = tuple(shape)
        self.mean = torch.zeros(self.shape, dtype=torch.float64, device=device)
        self.var = torch.ones(self.shape, dtype=torch.float64, device=device)
        self.count = torch.full((), float(epsilon), dtype=torch.float64, device=device)

    def update(self, batch: torch.Tensor, rows: torch.Tensor | None = None) -> None:
        """Merge ``batch`` (B, *shape) into the statistics; ``rows`` (B,) bool selects the rows that count."""
        x = batch.to(device=self.mean.device, dtype=torch.float64).reshape((-1,) + self.shape)
        if rows is None:
            weight = torch.ones(x.shape[0], dtype=torch.float64, device=x.device)
        else:
            weight = rows.to(device=x.device, dtype=torch.float64).reshape(-1)
        weight = weight.reshape((-1,) + (1,) * len(self.shape))
        batch_count = weight.sum()
        denominator = torch.clamp(batch_count, min=1.0)
        batch_mean = (weight * x).sum(dim=0) / denominator
        batch_var = (weight * (x - batch_mean) ** 2).sum(dim=0) / denominator
        total = self.count + batch_count
        delta = batch_mean - self.mean
        # Chan et al.: M2 = M2_a + M2_b + delta^2 * n_a * n_b / n
        m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / total
        self.mean = self.mean + delta * batch_count / total
        self.var = m2 / total
        self.count = total
