"""Learning-curve plot: mean episode return against env steps, written as a PNG (matplotlib, Agg)."""

from __future__ import annotations

import os

__all__ = ["plot_learning_curve"]


def plot_learning_curve(curve, path: str, title: str = "") -> str:
    """Plot ``curve`` rows (env_steps, mean_return, ...) to ``path`` (PNG); returns the path.

    An empty curve (no episode finished) still writes a figure that says so.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("the learning-curve plot needs matplotlib: pip install 'newton-gym[plot]'") from exc
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    if curve:
        steps = [row[0] for row in curve]
        returns = [row[1] for row in curve]
        ax.plot(steps, returns, color="tab:blue", lw=1.8)
    else:
        ax.text(0.5, 0.5, "no finished episode yet", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("env steps")
    ax.set_ylabel("mean episode return (last 100)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
