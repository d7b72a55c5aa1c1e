"""Newton/Go1-Flat-v0: Unitree Go1 velocity tracking on flat ground (as Isaac-Velocity-Flat-Unitree-Go1 and
Mjlab-Velocity-Flat-Unitree-Go1).

The shipped Go1 (MuJoCo Menagerie, position servos with mjlab's published gains: see
``scripts/regenerate_unitree.py``) is imported from USD. Observation, reward and reset terms are those of
:mod:`.locomotion`; this file holds the robot's own table.

| | |
|---|---|
| action | Box(-5, 5, (12,)): joint-position targets, target = home + scale * action, scale = 0.25 effort / kp (0.37 rad hips, 0.25 rad knees) |
| observation (48) | base lin / ang velocity, gravity in base frame, command, joint pos - home, joint vel, last action (noisy) |
| critic observation (54) | the same without noise, base height, 4 foot contact flags, world friction |
| command | vx U(-1, 1) m/s, vy U(-0.5, 0.5) m/s, wz U(-1, 1) rad/s per episode, 10 % of worlds stand |
| control | 50 Hz (4 physics steps of 0.005 s, the MJCF's implicitfast step) |
| episode | 20 s (1000 steps) |
| randomization | friction U(0.4, 1.2), mass scale U(0.9, 1.1), servo kp and kv scales U(0.9, 1.1) per world; pushes of 0.5 m/s every 10-15 s |
| home | base 0.278 m, thighs 0.9 rad, calves -1.8 rad, hips +-0.1 rad (mjlab's INIT_STATE) |
"""

from __future__ import annotations

from dataclasses import dataclass

from .locomotion import LeggedVelocityCfg, LeggedVelocityTask

__all__ = ["Go1Task", "Go1Cfg", "GO1_HOME"]

#: Base height [m] and joint angles [rad] of the home pose (mjlab 1.6.0's Go1 INIT_STATE).
GO1_HOME = (0.278, {r".*_thigh_joint": 0.9, r".*_calf_joint": -1.8, r".R_hip_joint": 0.1, r".L_hip_joint": -0.1})


@dataclass
class Go1Cfg(LeggedVelocityCfg):
    pass


class Go1Task(LeggedVelocityTask):
    robot = "go1"
    cfg_class = Go1Cfg
    home = GO1_HOME
    base_body = "trunk"
    foot_bodies = r".._calf"
