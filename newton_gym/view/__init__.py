"""Browser viewer (``newton-gym view``): the live scene of N worlds of a task, served by viser.

The page shows every visible shape of the model (planes, spheres, capsules, boxes, cylinders, cones,
meshes) as the ray caster draws it: the same sizes, colours and checkered planes, the worlds laid side
by side on a grid. The panel holds a world picker (the picked world keeps its colours, the others turn
grey, the camera follows its robot), play / pause, single step, reset and a speed slider. A checkpoint's
deterministic policy acts (or zero actions); ``follow`` reloads the newest checkpoint of a training run.

| module | role |
|---|---|
| ``geometry`` | triangle meshes of the primitive shapes |
| ``scene`` | ViewScene: model shapes as instanced meshes, world layout, poses from ``body_q`` |
| ``server`` | SceneServer: the viser nodes, pose updates, highlight and camera |
| ``policy`` | checkpoint policies (skrl, rsl_rl), zero actions, following a run |
| ``app`` | Viewer: the environment, the loop and the browser controls |

Usage::

    from newton_gym.view import Viewer

    viewer = Viewer("Newton/Ant-v0", num_envs=4, port=8080)   # needs viser: pip install 'newton-gym[view]'
    print(viewer.url)
    viewer.run()   # until viewer.stop() from another thread, or Ctrl-C

Only ``server`` and ``app`` import viser, inside ``SceneServer``; ``scene`` and ``geometry`` need numpy only.
"""

from .app import Viewer
from .scene import ShapeBatch, ViewScene
from .server import SceneServer

__all__ = ["Viewer", "ViewScene", "ShapeBatch", "SceneServer"]
