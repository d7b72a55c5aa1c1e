"""Gymnasium's three autoreset modes, as :class:`~newton_gym.envs.vector_env.NewtonVectorEnv` runs them.

A world whose episode ends (terminated or truncated) in a step is treated by the env's ``autoreset_mode``:

=============  =============================================================================================
mode           what ``step()`` returns
=============  =============================================================================================
SAME_STEP      (default; the training code needs it) the world is reset inside the step that ended it: its
               row of ``obs`` is the next episode's first observation and ``info["final_obs"]`` (masked by
               ``info["_final_obs"]``) the finished episode's last one; ``info["final_info"]`` holds that
               step's per-world info.
NEXT_STEP      the ending step returns the last observation itself; the *next* step ignores the world's
               action and resets it: its row of ``obs`` is the new episode's first observation, its reward
               0 and its terminated / truncated False. No ``final_obs`` key.
DISABLED       nothing is reset by the env: call ``reset(options={"reset_mask": mask})`` for the ended
               worlds before the next step. Stepping an ended world without that raises EnvError (checked
               where the step already reads ``done`` back to the host, i.e. unless ``sync_free``; a sync-free
               step steps the world on from its final state).
=============  =============================================================================================

In every mode the env's own statistics of a finished episode (``info["newton_episode"]``) come in the step
that ended it, and ``reset()`` (all worlds, or those of ``options["reset_mask"]``) also drops a pending NEXT_STEP
reset of the worlds it resets, as Gymnasium's SyncVectorEnv does.
"""

from __future__ import annotations

from gymnasium.vector import AutoresetMode

from ..errors import ConfigError

__all__ = ["autoreset_mode_from"]


def _key(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


def autoreset_mode_from(value) -> AutoresetMode:
    """The AutoresetMode named by ``value``: a member, or a string naming one by its name or value in any case,
    with or without underscores ("next_step", "NEXT_STEP", "NextStep", "disabled")."""
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        for mode in AutoresetMode:
            if _key(value) in (_key(mode.name), _key(mode.value)):
                return mode
    valid = ", ".join(f"AutoresetMode.{m.name} ({m.name.lower()!r})" for m in AutoresetMode)
    raise ConfigError(f"autoreset_mode must be one of {valid}, got {value!r}")
