"""Run under torchrun by test_distributed.py: trains the tiny config, then each rank saves its policy."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from tiny_config import tiny_config  # noqa: E402

from newton_gym.train.config import load_train_config  # noqa: E402
from newton_gym.train.runner import PPORunner  # noqa: E402

out = sys.argv[1]
runner = PPORunner(load_train_config(tiny_config()), out, progress=False)
first_obs = runner.env.reset()[0].clone()
result = runner.train()
rank = int(os.environ["RANK"])
torch.save(
    {
        "policy": runner.agent.policy.state_dict(),
        "obs_mean": runner.agent._observation_preprocessor.running_mean.clone(),
        "first_obs": first_obs,
        "result": result.__dict__,
    },
    os.path.join(out, f"rank{rank}.pt"),
)
runner.close()
