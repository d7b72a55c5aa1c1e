"""A viser server showing a :class:`~newton_gym.view.scene.ViewScene`: one instanced mesh node per
ShapeBatch, a label per world, the picked world highlighted (the others greyed) and framed by the camera.

The server is viser's: it serves its own web client (no network access needed) and keeps every connected
browser in sync; :meth:`SceneServer.update` sends only the instances' poses.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ViewError
from ..render.camera import Camera
from ..sim.types import GeoType
from .scene import ViewScene

__all__ = ["SceneServer", "import_viser", "MAX_LABELS", "DIM"]

MAX_LABELS = 64
"""Worlds get a "world <w>" label in the scene when there are at most this many."""

DIM = 0.3
"""Share of its own colour a shape keeps outside the picked world (the rest is the greyed background)."""

_GREY = np.array([0.85, 0.85, 0.85], dtype=np.float32)
_HINT = "the browser viewer needs viser: pip install 'newton-gym[view]'"


def import_viser():
    """The viser module, or an ImportError naming the extra to install."""
    try:
        import viser
    except ImportError as exc:
        raise ImportError(f"{_HINT} ({exc})") from exc
    return viser


def _rgb8(colors: np.ndarray) -> np.ndarray:
    return (np.clip(colors, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


class SceneServer:
    """Serves ``scene`` on http://host:port and draws it at the poses it is given.

    Args:
        scene: the ViewScene to show.
        host: interface to listen on ("127.0.0.1": this machine only; "0.0.0.0": every interface).
        port: TCP port; viser takes the next free one when it is busy, 0 lets the system pick.
        label: title of the page's control panel.

    Attributes:
        server: the ``viser.ViserServer`` (its ``gui`` takes further controls).
        handles: one viser batched-mesh handle per ``scene.batches`` entry, in order.
        world: the highlighted world, or None when all are drawn in their own colours.
    """

    def __init__(self, scene: ViewScene, host: str = "127.0.0.1", port: int = 8080, label: str | None = None):
        viser = import_viser()
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ViewError(f"port must be an int in [0, 65535] (0: any free port), got {port!r}")
        self.scene = scene
        self.server = viser.ViserServer(host=host, port=port, label=label, verbose=False)
        # viser's share button opens a public tunnel through viser's relay; this viewer stays local
        self.server.gui.configure_theme(show_share_button=False)
        self.world: int | None = None
        self._frame(scene.world_centres(scene.model.body_q.numpy()))
        api = self.server.scene
        api.set_up_direction("+z" if scene.up_axis == 2 else "+y")
        self.handles = []
        for batch, (position, wxyz) in zip(scene.batches, scene.poses(scene.model.body_q.numpy())):
            self.handles.append(
                api.add_batched_meshes_simple(
                    batch.name,
                    batch.vertices,
                    batch.faces,
                    batched_wxyzs=wxyz,
                    batched_positions=position,
                    batched_colors=_rgb8(batch.color),
                    flat_shading=batch.flat_shading,
                    lod="off",
                    cast_shadow=batch.geo_type != GeoType.PLANE,
                )
            )
        if scene.world_count <= MAX_LABELS and scene.world_count > 1:
            self._add_labels()

    @property
    def url(self) -> str:
        """Address of the page, ``http://<host>:<port>`` with the port actually bound."""
        host = self.server.get_host()
        return f"http://{'127.0.0.1' if host in ('', '0.0.0.0') else host}:{self.server.get_port()}"

    def update(self, body_q) -> None:
        """Move every instance to the poses of ``body_q`` (body_count, 7), in one atomic client update."""
        poses = self.scene.poses(body_q)
        with self.server.atomic():
            for handle, (position, wxyz) in zip(self.handles, poses):
                handle.batched_positions = position
                handle.batched_wxyzs = wxyz

    def highlight(self, world: int | None) -> None:
        """Draw ``world`` (and the global shapes) in their colours and grey the other worlds; None: no
        world stands out."""
        if world is not None:
            world = self._check_world(world)
        self.world = world
        with self.server.atomic():
            for handle, batch in zip(self.handles, self.scene.batches):
                colors = batch.color.copy()
                if world is not None:
                    other = (batch.world >= 0) & (batch.world != world)
                    colors[other] = DIM * colors[other] + (1.0 - DIM) * _GREY
                handle.batched_colors = _rgb8(colors)

    def focus(self, world: int | None, body_q) -> None:
        """Point every connected browser's camera at ``world``'s first body (None: the whole grid), keeping
        its viewing direction and distance for a world, framing the grid otherwise."""
        centres = self.scene.world_centres(body_q)
        if world is None:
            self._frame(centres, clients=True)
            return
        target = centres[self._check_world(world)]
        initial = np.asarray(self.server.initial_camera.position) - np.asarray(self.server.initial_camera.look_at)
        for client in self.server.get_clients().values():
            eye = np.asarray(client.camera.position) - np.asarray(client.camera.look_at)
            if np.linalg.norm(eye) < 1e-6:  # the browser has not reported its camera yet
                eye = initial
            with client.atomic():
                client.camera.look_at = target
                client.camera.position = target + eye

    def close(self) -> None:
        """Stop the server (its port is released)."""
        self.server.stop()

    # ---------------------------------------------------------------- internals
    def _check_world(self, world) -> int:
        n = self.scene.world_count
        if isinstance(world, bool) or not isinstance(world, (int, np.integer)) or not 0 <= int(world) < n:
            raise ViewError(f"world must be an int in [0, {n - 1}] or None, got {world!r}")
        return int(world)

    def _frame(self, centres: np.ndarray, clients: bool = False) -> None:
        """Camera over the layout grid from the ray caster's default direction (25 deg up, -60 deg azimuth)."""
        side = math.ceil(math.sqrt(self.scene.world_count)) * self.scene.spacing
        target = 0.5 * (centres.min(axis=0) + centres.max(axis=0))
        up = tuple(float(self.scene.up_axis == k) for k in range(3))
        camera = Camera.tracking(target, max(3.0, 1.1 * side), 25.0, -60.0, up=up)
        self.server.initial_camera.look_at = camera.target
        self.server.initial_camera.position = camera.position
        if clients:
            for client in self.server.get_clients().values():
                with client.atomic():
                    client.camera.look_at = camera.target
                    client.camera.position = camera.position

    def _add_labels(self) -> None:
        """A "world <w>" label at the front edge of each world's tile."""
        front = np.zeros(3)
        front[1 if self.scene.up_axis == 2 else 2] = -0.45 * self.scene.spacing
        for w, offset in enumerate(self.scene.world_offset):
            self.server.scene.add_label(
                f"/labels/world_{w}", f"world {w}", position=offset + front, anchor="center-center"
            )
