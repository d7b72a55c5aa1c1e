"""Plot a training run's task scalars (``Task/*`` in its TensorBoard log: Go1-Rough's mean terrain level and
velocity tracking error) and its mean return against training time, into one PNG.

    python scripts/plot_task_curves.py runs/<run> [--out runs/<run>/task_curves.png]

Prints the first and last value of each scalar.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys


def read_scalars(run_dir: str) -> dict:
    """{tag: (steps, wall seconds from the first event, values)} of every scalar in the run's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted(glob.glob(os.path.join(run_dir, "**", "events.out.tfevents.*"), recursive=True))
    if not files:
        raise SystemExit(f"{run_dir}: no TensorBoard event file")
    out = {}
    for path in files:
        acc = EventAccumulator(path, size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            events = acc.Scalars(tag)
            steps, walls, values = out.get(tag, ([], [], []))
            steps += [e.step for e in events]
            walls += [e.wall_time for e in events]
            values += [e.value for e in events]
            out[tag] = (steps, walls, values)
    start = min(min(w) for _, w, _ in out.values())
    return {tag: (s, [w - start for w in walls], v) for tag, (s, walls, v) in out.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(args.run_dir)
    wanted = [t for t in sorted(scalars) if t.startswith("Task/")]
    ret = next((t for t in ("Train/mean_reward", "Episode / mean return") if t in scalars), None)
    if ret:
        wanted.append(ret)
    if not wanted:
        raise SystemExit(f"{args.run_dir}: no Task/* scalar (was the task a legged velocity task?)")
    fig, axes = plt.subplots(len(wanted), 1, figsize=(7, 2.6 * len(wanted)), sharex=True)
    axes = [axes] if len(wanted) == 1 else list(axes)
    for ax, tag in zip(axes, wanted):
        _, minutes, values = scalars[tag]
        minutes = [m / 60.0 for m in minutes]
        ax.plot(minutes, values)
        ax.set_ylabel(tag.split("/")[-1].strip())
        ax.grid(alpha=0.3)
        print(f"{tag}: {values[0]:.3f} -> {values[-1]:.3f} over {minutes[-1]:.1f} min")
    axes[-1].set_xlabel("training time [min]")
    fig.suptitle(os.path.basename(os.path.normpath(args.run_dir)))
    fig.tight_layout()
    out = args.out or os.path.join(args.run_dir, "task_curves.png")
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
