"""newton_gym.check: does a robot file work here? The sweep behind ``newton-gym check FILE``.

:func:`check_robot` converts an MJCF / URDF file to USD (or takes a USD), imports it into 1 and 4 worlds,
builds :class:`~newton_gym.solvers.SolverGeneralized`, steps it at zero control and compares body
positions with MuJoCo C run from the same start state; :func:`format_report` prints the outcome.

==============  ==========================================================================================
``sweep``       :func:`check_robot`: the stages in order, into a :class:`CheckResult`
``ours``        convert, import, build (timed), step: our side
``reference``   MuJoCo C on the same file: its run and its own sensitivity to a +-1e-7 qpos change
``result``      :class:`CheckResult`, :class:`BodyError`, the verdict rule and the report
==============  ==========================================================================================

Example:
    >>> from newton_gym.check import check_robot, format_report
    >>> print(format_report(check_robot("pendulum.xml")))  # doctest: +SKIP
"""

from .result import FULL_TOLERANCE_MM, HALF_TOLERANCE_MM, BodyError, CheckResult, format_report
from .sweep import check_robot

__all__ = ["check_robot", "format_report", "CheckResult", "BodyError", "HALF_TOLERANCE_MM", "FULL_TOLERANCE_MM"]
