"""Newton/G1-Flat-v0: Unitree G1 humanoid velocity tracking on flat ground (as
Mjlab-Velocity-Flat-Unitree-G1).

The shipped G1 (MuJoCo Menagerie, 29 position servos with mjlab's published gains: see
``scripts/regenerate_unitree.py``) is imported from USD. Observation, reward and reset terms are those of
:mod:`.locomotion`; this file holds the robot's own table.

| | |
|---|---|
| action | Box(-5, 5, (29,)): joint-position targets, target = home + 0.25 effort / kp * action |
| observation (99) | base lin / ang velocity, gravity in base frame, command, joint pos - home, joint vel, last action (noisy) |
| critic observation (103) | the same without noise, base height, 2 foot contact flags, world friction |
| command | vx U(-1, 1) m/s, vy U(-0.5, 0.5) m/s, wz U(-1, 1) rad/s per episode, 10 % of worlds stand |
| control | 50 Hz (4 physics steps of 0.005 s) |
| episode | 20 s (1000 steps); ends when the pelvis touches the ground or the base tilts past 60 degrees |
| home | base 0.784 m, slightly bent knees, arms forward (mjlab's HOME_KEYFRAME) |
"""

from __future__ import annotations

from dataclasses import dataclass

from .locomotion import LeggedVelocityCfg, LeggedVelocityTask

__all__ = ["G1Task", "G1Cfg", "G1_HOME"]

#: Base height [m] and joint angles [rad] of the home pose (mjlab 1.6.0's G1 HOME_KEYFRAME).
G1_HOME = (
    0.783675,
    {
        r".*_hip_pitch_joint": -0.1,
        r".*_knee_joint": 0.3,
        r".*_ankle_pitch_joint": -0.2,
        r".*_shoulder_pitch_joint": 0.2,
        r".*_elbow_joint": 1.28,
        r"left_shoulder_roll_joint": 0.2,
        r"right_shoulder_roll_joint": -0.2,
    },
)


@dataclass
class G1Cfg(LeggedVelocityCfg):
    # 29 joints: the per-joint L2 penalties at half the quadruped's weight (Isaac Lab's humanoid values)
    w_joint_acc: float = -1.25e-7
    w_action_rate: float = -0.005


class G1Task(LeggedVelocityTask):
    robot = "g1"
    cfg_class = G1Cfg
    home = G1_HOME
    base_body = "pelvis"
    foot_bodies = r"(left|right)_ankle_roll_link"
