"""Headless rendering and rollout recording: a Warp ray caster, GIF/MP4 writers and a USD recorder.

Usage::

    from newton_gym import ModelBuilder
    from newton_gym.render import Camera, RayCaster, UsdRecorder, write_gif

    b = ModelBuilder()
    b.add_ground_plane()
    body = b.add_body(xform=(0, 0, 1, 0, 0, 0, 1))
    b.add_shape_box(body, hx=0.2, hy=0.1, hz=0.3)
    model = b.finalize()
    state = model.state()

    caster = RayCaster(model, width=320, height=240)
    frames = []
    with UsdRecorder(model, "rollout.usda", world=0, fps=30) as rec:   # saved on exit
        for step in range(60):
            # ... advance the simulation into `state` ...
            root = state.body_q.numpy()[0]                       # (x, y, z, qx, qy, qz, qw)
            camera = Camera.tracking(root, distance=3.0, elevation_deg=20.0, azimuth_deg=-60.0)
            frames.append(caster.render(state, world=0, camera=camera))  # (240, 320, 3) uint8
            rec.record(state, time=step / 30)
    write_gif(frames, "rollout.gif", fps=30)

``RayCaster.render_ids`` returns the shape index seen at each pixel (-1 = background). GIF needs
Pillow; ``write_mp4`` needs imageio with its ffmpeg plugin; ``UsdRecorder`` needs usd-core (pxr).
"""

from .camera import Camera
from .errors import RenderError
from .palette import shape_colors
from .raycaster import RayCaster
from .usd_recorder import UsdRecorder
from .video import GifWriter, write_gif, write_mp4

__all__ = ["Camera", "RayCaster", "RenderError", "GifWriter", "write_gif", "write_mp4", "UsdRecorder", "shape_colors"]
