"""PPO wall-clock to reach return thresholds on Newton/Ant-v0 (skrl PPO, configs/train_ant.toml).

Trains until the running mean episode return (last 100 episodes) passes the highest threshold or the
time budget ends, and prints when each threshold was first reached: wall-clock seconds since the
runner started (environment build included) and env steps. Printed, not asserted.

    python benchmarks/bench_ppo.py                          # CPU, thresholds 0 250 500 1000, 15 min cap
    python benchmarks/bench_ppo.py --device cuda --num-envs 4096 --thresholds 1000 3000 --minutes 5
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=os.path.join(ROOT, "configs", "train_ant.toml"))
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.0, 250.0, 500.0, 1000.0])
    parser.add_argument("--minutes", type=float, default=15.0, help="give up after this long")
    parser.add_argument("--num-envs", type=int, default=None)
    parser.add_argument("--device", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="run directory (default: a temporary one)")
    args = parser.parse_args(argv)

    from newton_gym.train import PPORunner, load_train_config

    cfg = load_train_config(
        args.config, minutes=args.minutes, timesteps=0, num_envs=args.num_envs, device=args.device, seed=args.seed
    )
    thresholds = sorted(args.thresholds)
    reached: dict[float, tuple[float, int]] = {}
    out = args.out or tempfile.mkdtemp(prefix="bench_ppo_")
    runner = PPORunner(cfg, out, progress=False, log=lambda *a: None)

    def on_iteration(r) -> bool:
        ret = r.episodes.mean_return
        for th in thresholds:
            if th not in reached and not math.isnan(ret) and ret >= th:
                reached[th] = (time.perf_counter() - r.t0, r.env_steps)
        return len(reached) == len(thresholds)

    print(f"PPO (skrl) on {cfg.task}: {cfg.num_envs} worlds on {cfg.device}, budget {cfg.minutes:g} min")
    result = runner.train(on_iteration=on_iteration)
    runner.close()
    print(f"{'return >=':>10s} {'seconds':>9s} {'env steps':>10s}")
    for th in thresholds:
        if th in reached:
            print(f"{th:10.0f} {reached[th][0]:9.1f} {reached[th][1]:10d}")
        else:
            print(f"{th:10.0f} {'not reached':>20s}")
    print(
        f"final mean return {result.end_return:.1f} after {result.env_steps} env steps, {result.seconds:.0f} s "
        f"({result.env_steps / max(result.seconds, 1e-9):.0f} env steps/s including updates)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
