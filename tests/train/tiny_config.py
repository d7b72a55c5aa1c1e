"""The dummy-sized training config shared by the training tests (a module with its own name, so it is
not confused with the other test folders' conftest.py)."""


def tiny_config(**changes) -> dict:
    """A training config small enough for a test: 4 Cartpole worlds, 8-step rollouts, short episodes."""
    cfg = {
        "task": "Newton/Cartpole-v0",
        "num_envs": 4,
        "seed": 0,
        "timesteps": 4 * 8 * 6,
        "minutes": 0.0,
        "checkpoint_every": 2,
        "env": {"max_episode_steps": 12},
        "ppo": {"rollouts": 8, "learning_epochs": 2, "mini_batches": 2},
        "policy": {"hidden": [16, 16]},
    }
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    return cfg
