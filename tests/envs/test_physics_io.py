"""Env observations against gymnasium's MuJoCo tasks, and per-world randomization."""

import gymnasium as gym
import numpy as np
import pytest
import torch

import newton_gym  # noqa: F401

pytest.importorskip("mujoco")


@pytest.mark.parametrize(
    "ours, theirs",
    [("Newton/Ant-v0", "Ant-v5"), ("Newton/Cartpole-v0", "InvertedPendulum-v5"), ("Newton/Humanoid-v0", "Humanoid-v5")],
)
def test_observation_equals_gymnasium_for_the_same_mujoco_state(ours, theirs):
    kwargs = {"include_cfrc_ext_in_observation": False} if theirs == "Ant-v5" else {}
    if theirs == "Humanoid-v5":
        kwargs = {f"include_{k}_in_observation": False for k in ("cinert", "cvel", "qfrc_actuator", "cfrc_ext")}
    ref = gym.make(theirs, **kwargs).unwrapped
    ref.reset(seed=0)
    rng = np.random.default_rng(0)
    qpos = ref.init_qpos + rng.uniform(-0.2, 0.2, ref.model.nq)
    if ref.model.nq > 7:
        qpos[3:7] /= np.linalg.norm(qpos[3:7])
    qvel = rng.normal(size=ref.model.nv)
    ref.set_state(qpos, qvel)
    expected = ref._get_obs()
    env = gym.make_vec(ours, num_envs=2)
    env.reset(seed=0)
    layout = env.task.layout
    layout.set_state(
        torch.tensor(qpos, dtype=torch.float32).repeat(2, 1),
        torch.tensor(qvel, dtype=torch.float32).repeat(2, 1),
        torch.tensor([False, True]),
    )
    obs = env.task.observe(env.sim)[1].numpy()
    assert obs.shape == expected.shape
    np.testing.assert_allclose(obs, expected, atol=2e-5)
    assert env.single_action_space == ref.action_space


def test_humanoid_mass_center_equals_gymnasium():
    """Humanoid's forward reward reads the whole-body centre of mass: its x equals Gymnasium's mass_center
    (body_mass-weighted xipos) for the same MuJoCo state, in each world."""
    ref = gym.make("Humanoid-v5").unwrapped
    ref.reset(seed=0)
    env = gym.make_vec("Newton/Humanoid-v0", num_envs=3)
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    qpos = np.tile(ref.init_qpos, (3, 1)) + rng.uniform(-0.3, 0.3, (3, ref.model.nq))
    qpos[:, 3:7] /= np.linalg.norm(qpos[:, 3:7], axis=1, keepdims=True)
    qvel = rng.normal(size=(3, ref.model.nv))
    env.task.layout.set_state(
        torch.tensor(qpos, dtype=torch.float32),
        torch.tensor(qvel, dtype=torch.float32),
        torch.ones(3, dtype=torch.bool),
    )
    ours = env.task.mass_center_x(env.sim).numpy()
    for w in range(3):
        ref.set_state(qpos[w], qvel[w])
        mass = ref.model.body_mass[:, None]
        expected = (mass * ref.data.xipos).sum(axis=0)[0] / mass.sum()
        assert abs(ours[w] - expected) < 2e-6
    assert len(set(np.round(ours, 4))) == 3  # each world its own


def test_root_frame_is_qvel_turned_into_the_root_frame():
    """MujocoLayout.root_frame (one launch) against the torch expressions on qpos / qvel it replaced in the
    legged tasks: height, root linear velocity, angular velocity and down in the root frame."""
    from newton_gym.errors import EnvError
    from newton_gym.sim.hostmath import quat_rotate

    env = gym.make_vec("Newton/Go1-Flat-v0", num_envs=4)
    env.reset(seed=0)
    g = torch.Generator().manual_seed(0)
    for _ in range(5):
        env.step(2 * torch.rand(4, 12, generator=g) - 1)
    layout = env.task.layout
    qpos, qvel, frame = layout.qpos(), layout.qvel(), layout.root_frame()
    inverse = torch.cat([-qpos[:, 4:7], qpos[:, 3:4]], dim=1)
    down = torch.tensor([0.0, 0.0, -1.0]).expand(4, 3)
    expected = torch.cat(
        [qpos[:, 2:3], quat_rotate(inverse, qvel[:, 0:3]), qvel[:, 3:6], quat_rotate(inverse, down)], 1
    )
    assert torch.equal(frame[:, 4:7], expected[:, 4:7]) and torch.equal(frame[:, 0], expected[:, 0])
    torch.testing.assert_close(frame, expected, rtol=0, atol=1e-6)
    assert frame[:, 1:4].abs().max() > 0.01  # the worlds move
    cartpole = gym.make_vec("Newton/Cartpole-v0", num_envs=1)
    with pytest.raises(EnvError, match="free root"):
        cartpole.task.layout.root_frame()


def test_set_state_writes_the_masked_worlds_only_and_checks_shapes():
    """MujocoLayout.set_state round-trips the masked worlds' qpos / qvel (the read and write kernels are
    inverses), never reads the other worlds' rows (NaN there stays out) and refuses wrong shapes."""
    from newton_gym.errors import EnvError

    env = gym.make_vec("Newton/Ant-v0", num_envs=3)
    env.reset(seed=0)
    layout = env.task.layout
    q0, v0 = layout.qpos().clone(), layout.qvel().clone()
    qpos = torch.full_like(q0, float("nan"))
    qvel = torch.full_like(v0, float("nan"))
    qpos[1] = q0[1] + 0.1
    qpos[1, 3:7] /= torch.linalg.norm(qpos[1, 3:7])
    qvel[1] = v0[1] + 0.3
    layout.set_state(qpos, qvel, torch.tensor([False, True, False]))
    q1, v1 = layout.qpos(), layout.qvel()
    assert torch.equal(q1[[0, 2]], q0[[0, 2]]) and torch.equal(v1[[0, 2]], v0[[0, 2]])
    torch.testing.assert_close(q1[1], qpos[1], rtol=0, atol=1e-6)
    torch.testing.assert_close(v1[1], qvel[1], rtol=0, atol=1e-5)
    with pytest.raises(EnvError, match="qpos"):
        layout.set_state(qpos[:2], qvel[:2], torch.ones(2, dtype=torch.bool))


def test_refresh_bodies_of_the_masked_worlds_only():
    """refresh_bodies(mask) (what a masked reset's set_state runs) moves the bodies of the masked worlds to
    their new joint state and leaves the other worlds' bodies as they were."""
    env = gym.make_vec("Newton/Ant-v0", num_envs=3)
    env.reset(seed=0)
    sim = env.sim
    start = sim.model.body_world_start.numpy()[:4]
    before = sim.state.body_q.numpy().copy()
    sim.views.joint_q[:, 2] += 0.5  # every world's root 0.5 m higher
    sim.refresh_bodies(torch.tensor([False, True, False]))
    after = sim.state.body_q.numpy()
    w1 = slice(start[1], start[2])
    np.testing.assert_allclose(after[w1, 2] - before[w1, 2], 0.5, atol=1e-6)
    np.testing.assert_array_equal(after[w1, :2], before[w1, :2])
    for w in (0, 2):
        np.testing.assert_array_equal(after[start[w] : start[w + 1]], before[start[w] : start[w + 1]])
    sim.refresh_bodies()
    np.testing.assert_allclose(sim.state.body_q.numpy()[:, 2] - before[:, 2], 0.5, atol=1e-6)


@pytest.mark.parametrize("qvel_normal", [True, False])
def test_noisy_state_is_bitwise_the_torch_noise_of_the_masked_worlds(qvel_normal):
    """MujocoLayout.set_noisy_state (draws, noise arithmetic and write in one launch) writes bitwise what
    set_state of the torch expressions of the same WorldRng numbers writes, in the masked worlds only."""
    from newton_gym.envs.world_rng import WorldRng
    from newton_gym.errors import EnvError

    env = gym.make_vec("Newton/Ant-v0", num_envs=5)
    env.reset(seed=0)
    layout, sim = env.task.layout, env.sim
    rng = WorldRng(11, 5, "cpu")
    rng.counter.copy_(torch.tensor([0, 3, 1, 7, 2]))  # a world's numbers follow its own counter
    mask = torch.tensor([True, False, True, True, False])
    init_q, init_v, s = env.task.init_qpos, env.task.init_qvel, 0.3
    u = rng.uniform(5, layout.nq, mask)
    n = rng.normal(6, layout.nv, mask) if qvel_normal else (rng.uniform(6, layout.nv, mask) * 2.0 - 1.0)
    layout.set_state(init_q + (u * 2.0 - 1.0) * s, init_v + n * s, mask)
    expected = [x.clone() for x in (sim.views.joint_q, sim.views.joint_qd, sim.views.body_q)]
    env.reset(seed=1)
    before = [x.clone() for x in (sim.views.joint_q, sim.views.joint_qd, sim.views.body_q)]
    layout.set_noisy_state(init_q, init_v, s, qvel_normal, rng, (5, 6), mask)
    for got, want, old in zip((sim.views.joint_q, sim.views.joint_qd, sim.views.body_q), expected, before):
        assert torch.equal(got[mask].view(torch.int32), want[mask].view(torch.int32))
        assert torch.equal(got[~mask], old[~mask])
    with pytest.raises(EnvError, match="init_qpos"):
        layout.set_noisy_state(init_q.expand(5, -1), init_v, s, qvel_normal, rng, (5, 6), mask)


def test_replayed_layout_launches_equal_eager_ones():
    """On the CPU the layout records its qpos / qvel read, its root-frame read and its noisy reset write once
    and replays them: each gives bitwise what its eager launch gives, as the state moves and the masks,
    counters and seeds change, and every read returns tensors of its own (a later read leaves them)."""
    from newton_gym.envs.world_rng import WorldRng

    env = gym.make_vec("Newton/Ant-v0", num_envs=4)
    env.reset(seed=0)
    layout, sim = env.task.layout, env.sim
    g = torch.Generator().manual_seed(0)
    kept = None
    for _ in range(6):
        env.step(2 * torch.rand(4, 8, generator=g) - 1)
        qpos, qvel = layout._read()
        eager = torch.empty_like(qpos), torch.empty_like(qvel)
        layout._launch_read(*eager)
        assert torch.equal(qpos, eager[0]) and torch.equal(qvel, eager[1])
        frame = layout._root_frame()
        eager_frame = torch.empty_like(frame)
        layout._launch_root_frame(eager_frame)
        assert torch.equal(frame, eager_frame)
        if kept is None:
            kept = (qpos, qpos.clone())
    assert torch.equal(kept[0], kept[1])  # the first read's tensor, after five more reads
    assert len(layout._graphs) >= 2
    for seed, mask in ((11, [True, False, True, True]), (11, [False, True, False, True]), (12, [True] * 4)):
        mask = torch.tensor(mask)
        rng = WorldRng(seed, 4, "cpu")
        rng.counter.copy_(torch.tensor([0, 3, 1, 7]) + seed)
        init_q, init_v = env.task.init_qpos, env.task.init_qvel
        u = rng.uniform(5, layout.nq, mask)
        n = rng.normal(6, layout.nv, mask)
        before = sim.views.joint_q.clone()
        layout.set_noisy_state(init_q, init_v, 0.3, True, rng, (5, 6), mask)
        got = sim.views.joint_q.clone(), sim.views.joint_qd.clone()
        layout.set_state(init_q + (u * 2.0 - 1.0) * 0.3, init_v + n * 0.3, mask)
        assert torch.equal(got[0][mask].view(torch.int32), sim.views.joint_q[mask].view(torch.int32))
        assert torch.equal(got[1][mask].view(torch.int32), sim.views.joint_qd[mask].view(torch.int32))
        assert torch.equal(got[0][~mask], before[~mask])


def test_captured_resets_equal_eager_ones():
    """The Simulation's reset and refresh graphs (replayed with sim capture on) give bitwise the states,
    observations and rewards of the eager launches (capture off), resets in mid-run included."""
    runs = []
    for capture in (True, False):
        env = gym.make_vec("Newton/Ant-v0", num_envs=6, sim={"capture": capture})
        assert (env.sim._reset_graph is not None) == capture
        obs, _ = env.reset(seed=2)
        g = torch.Generator().manual_seed(0)
        out, ends = [obs], 0
        for _ in range(30):
            obs, reward, term, trunc, _ = env.step(3 * torch.rand(6, 8, generator=g) - 1.5)
            out += [obs, reward]
            ends += int((term | trunc).sum())
        env.reset(options={"reset_mask": np.array([False, True] * 3)})
        out += [env.sim.views.joint_q.clone(), env.sim.views.body_q.clone()]
        runs.append((out, ends))
    assert runs[0][1] > 0  # some worlds were reset mid-run
    for a, b in zip(runs[0][0], runs[1][0]):
        assert torch.equal(a.view(torch.int32), b.view(torch.int32))


def test_gravity_randomization_changes_free_fall_per_world(device):
    env = gym.make_vec(
        "Newton/Cartpole-v0",
        num_envs=6,
        device=device,
        reset_noise_scale=0.0,
        randomization={"gravity_z": (-20.0, -0.5)},
    )
    env.reset(seed=4)
    g = env.sim.model.gravity.numpy()[:, 2].copy()
    assert len(set(np.round(g, 4))) == 6 and g.min() >= -20 and g.max() <= -0.5
    env.joint_q[:, 1] = 0.05
    env.sim.refresh_bodies()
    for _ in range(3):
        env.step(torch.zeros(6, 1, device=env.device))
    angle = env.joint_q[:, 1].cpu().numpy()
    # The pole falls faster under stronger gravity: the order of angles follows the order of |g|.
    assert np.array_equal(np.argsort(angle), np.argsort(-g))
    # A reset resamples only the reset worlds.
    env.reset(options={"reset_mask": np.array([True] + [False] * 5)})
    g2 = env.sim.model.gravity.numpy()[:, 2]
    assert g2[0] != g[0] and np.array_equal(g2[1:], g[1:])


def test_mass_and_friction_randomization_are_seeded(device):
    def sample(seed):
        env = gym.make_vec(
            "Newton/Ant-v0", num_envs=3, device=device, randomization={"mass_scale": (0.5, 2.0), "friction": (0.3, 1.2)}
        )
        env.reset(seed=seed)
        return env.randomizer.world_mass_scale.clone(), env.randomizer.world_friction.clone(), env

    a_mass, a_mu, env = sample(7)
    b_mass, b_mu, _ = sample(7)
    assert torch.equal(a_mass, b_mass) and torch.equal(a_mu, b_mu)
    base = env.randomizer.base[0]
    assert torch.allclose(env.randomizer.mass, base * a_mass[:, None])
    contacts = env.sim.solver.contacts  # every pair of world 2, its ground pairs included, has world 2's mu
    mu = contacts.pair_mu.numpy()[: contacts.pair_count]
    world = contacts.pair_world_host
    np.testing.assert_allclose(mu[world == 2], float(a_mu[2]))
    assert (world == 2).sum() > 0
