"""newton_gym.wrappers: Gymnasium's vector wrappers for vector envs whose arrays are torch tensors.

Gymnasium's own vector wrappers (``gymnasium.wrappers.vector``) compute with numpy. Over
:class:`~newton_gym.interop.NumpyVectorEnv` they run as they are; over the torch env
(``gym.make_vec("Newton/Ant-v0", n)``) use the classes here: the same names, constructor arguments and
semantics, with every tensor staying on the env's device::

    import gymnasium as gym
    import newton_gym
    from newton_gym.wrappers import NormalizeObservation, RecordEpisodeStatistics

    env = RecordEpisodeStatistics(NormalizeObservation(gym.make_vec("Newton/Ant-v0", 16)))

===========================  ===============================================================================
wrapper                      differences from Gymnasium's
===========================  ===============================================================================
RecordEpisodeStatistics      info values are (N,) tensors; reads one bool back to the host per step
NormalizeObservation         also takes SAME_STEP envs (``info["final_obs"]`` is normalized too) and partial
                             resets (the statistics take the reset worlds' rows)
NormalizeReward              a partial reset clears the reset worlds' discounted return only
ClipAction, RescaleAction    actions (tensors or arrays) reach the env as tensors on its device
RecordVideo                  no moviepy: ``video_format`` "mp4" (imageio + ffmpeg) or "gif" (Pillow); frames
                             from the base env's ``render_frames``, so it also runs over NumpyVectorEnv; the
                             grid is the nearest to ``video_aspect_ratio`` of every rows x cols layout
                             (Gymnasium's tries no more rows than columns)
===========================  ===============================================================================

Every autoreset mode (``metadata["autoreset_mode"]``) is handled as Gymnasium's wrappers handle it. Bad
arguments raise :class:`~newton_gym.errors.WrapperError`.
"""

from .actions import ClipAction, RescaleAction
from .episode_stats import RecordEpisodeStatistics
from .normalize import NormalizeObservation, NormalizeReward
from .running_stats import RunningMeanStd
from .video import RecordVideo, capped_cubic_schedule

__all__ = [
    "ClipAction",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "RecordVideo",
    "RescaleAction",
    "RunningMeanStd",
    "capped_cubic_schedule",
]
