"""Training behaviour pinned by mutation testing (review, 2026-12-04): each test here failed on a
change to training/, agents/checkpoint.py or the config checks that the rest of the suite let
through (GAE's lambda dropped, PPO's clip or entropy sign, DMC's target seat or lambda-return
weights, epsilon's schedule, best.pt on a worse score, --max-minutes as seconds, the resume key
set, value checks, check()'s refusals). Expected values are worked by hand in the comments."""
import copy
import dataclasses
import re
import time as _time

import numpy as np
import pytest
import torch

import training.loop as loop
from agents import checkpoint
from agents.network import MoveScorer, masked_scores
from scopa_env.errors import ScopaError
from scopa_env.rules import Rules
from training.config import make_config
from training.dmc import epsilon_at, epsilon_span, lambda_targets
from training.loop import Run, start


TINY = dict(total_steps=2048, num_envs=16, rollout_steps=32, hidden=32, minibatch_size=256,
            eval_every=0, final_matches=0, checkpoint_every=0, torch_threads=1)   # 512 steps an iteration


def cfg(tmp_path, **kw):
    return make_config(dict(TINY, runs_dir=str(tmp_path / "runs"), checkpoints_dir=str(tmp_path / "ck"), **kw))


def one_batch_cfg(tmp_path, **kw):
    return make_config({**dict(total_steps=2048, num_envs=16, rollout_steps=32, hidden=32, minibatch_size=4096,
                               eval_every=0, final_matches=0, checkpoint_every=0, torch_threads=1,
                               runs_dir=str(tmp_path / "runs"), checkpoints_dir=str(tmp_path / "ck")), **kw})


# ---- DMC ------------------------------------------------------------------------------------
def test_epsilon_decays_linearly():
    cfg = make_config(epsilon_start=0.2, epsilon_end=0.02, epsilon_decay_frac=0.5, total_steps=100_000)
    span = epsilon_span(cfg)
    assert span == 50_000
    assert epsilon_at(cfg, 25_000, span) == pytest.approx(0.11)      # halfway: (0.2 + 0.02) / 2
    assert epsilon_at(cfg, 50_000, span) == 0.02 and epsilon_at(cfg, 90_000, span) == 0.02


def _four_step_targets(dones, vmax, lam=0.8):
    """lambda_targets of one game, seats 0, 1, 0, 1, side rewards [1, -1] at t1 and [2, -2] at t3
    (an episode's end), `dones` and the best next values `vmax` per step."""
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[1, 0], rewards[3, 0] = [1, -1], [2, -2]
    seat = np.array([[0], [1], [0], [1]])
    return lambda_targets(rewards, np.array(dones)[:, None], seat,
                          np.array(vmax, np.float32)[:, None], lam)[:, 0].tolist()


def test_lambda_targets_weigh_value_by_1_minus_lambda():
    # G2 = 2; G3 = -2; G0 = 1 + 0.2*4 + 0.8*2 = 3.4; G1 = -1 + 0.2*10 + 0.8*(-2) = -0.6
    assert _four_step_targets([False, False, False, True], [0, 0, 4, 10]) == \
        pytest.approx([3.4, -0.6, 2.0, -2.0])


def test_lambda_targets_never_bootstrap_across_an_episode_end():
    assert _four_step_targets([False, True, False, True], [0, 0, 5, 5]) == pytest.approx([1, -1, 2, -2])


def _dmc_samples(tmp_path, td_lambda):
    run = Run(one_batch_cfg(tmp_path, run_name="d", td_lambda=td_lambda), log=lambda *_: None)
    algo = run.algo
    algo.carry = {k: v[:, :1] for k, v in algo.carry.items()}        # one game
    obs = algo.env.obs.shape[1]
    rew = np.zeros((4, 1, 2), np.float32)
    rew[1, 0], rew[3, 0] = [1, -1], [2, -2]
    buf = {"obs": np.zeros((4, 1, obs), np.int8), "card": np.zeros((4, 1), np.int64),
           "captured": np.zeros((4, 1), np.int64), "seat": np.array([[0], [1], [0], [1]]),
           "reward": rew, "done": np.array([[False], [False], [False], [True]]),
           "valid": np.ones((4, 1), bool), "vmax": np.array([[0], [0], [4], [10]], np.float32)}
    return algo.samples(buf)["target"].tolist()


def test_dmc_target_is_the_movers_own_return(tmp_path):
    # Monte-Carlo: seat 0 gets 1 + 2 = 3 from t0 and 2 from t2; seat 1 gets -3 and -2
    assert _dmc_samples(tmp_path, 1.0) == pytest.approx([3, -3, 2, -2])


def test_dmc_target_with_three_players_is_each_seats_own_side(tmp_path):
    """Three players, each a side: a hand ending with points 4, 1, 1 pays each seat its points
    minus the mean of the others' (3, -1.5, -1.5), and each seat's move is trained on its own
    column (a mutation review: seat % 2, right with two players and with pairs, gave seat 2 seat
    0's +3 unseen)."""
    from scopa_env.presets import rules_from_preset
    algo = Run(one_batch_cfg(tmp_path, run_name="three", rules=rules_from_preset("three-players")),
               log=lambda *_: None).algo
    algo.carry = {k: v[:, :1] for k, v in algo.carry.items()}        # one game
    obs = algo.env.obs.shape[1]
    rew = np.zeros((3, 1, 3), np.float32)
    rew[2, 0] = [3, -1.5, -1.5]
    buf = {"obs": np.zeros((3, 1, obs), np.int8), "card": np.zeros((3, 1), np.int64),
           "captured": np.zeros((3, 1), np.int64), "seat": np.array([[0], [1], [2]]),
           "reward": rew, "done": np.array([[False], [False], [True]]),
           "valid": np.ones((3, 1), bool), "vmax": np.zeros((3, 1), np.float32)}
    assert algo.samples(buf)["target"].tolist() == [3, -1.5, -1.5]


def test_dmc_uses_lambda_returns_below_1(tmp_path):
    assert _dmc_samples(tmp_path, 0.8) == pytest.approx([3.4, -0.6, 2.0, -2.0])


def test_epsilon_0_plays_greedy(tmp_path):
    algo = Run(one_batch_cfg(tmp_path, run_name="g"), log=lambda *_: None).algo
    from training.env import legal_slice
    env = algo.env
    cards, captured = legal_slice(env)
    scores, _ = masked_scores(algo.model, algo.model.obs_tensor(env.obs), torch.from_numpy(cards),
                              torch.from_numpy(captured), torch.from_numpy(env.legal_count.astype(np.int64)))
    greedy = scores.argmax(dim=1).numpy()
    assert algo.choose(0.0).tolist() == greedy.tolist()



@pytest.mark.parametrize("algo_name", ["dmc", "ppo"])
def test_minibatches_cover_every_sample_once_a_pass(tmp_path, algo_name):
    """The config's words: the last step of a pass takes what is left, and fewer samples than
    minibatch_size make one step of all of them (update_epochs passes)."""
    for mb, epochs in ((100, 2), (100_000, 1)):
        algo = Run(cfg(tmp_path / f"{algo_name}{mb}", run_name="mb", algo=algo_name, minibatch_size=mb,
                       rollout_steps=80, update_epochs=epochs), log=lambda *_: None).algo
        if algo_name == "dmc":
            buf = algo.samples(algo.rollout(0.1)[0])
            n = len(buf["target"])
        else:
            buf = algo.rollout()
            n = int((buf["learner"] & ~buf["tail"]).sum())
        sizes, steps = [], []
        real_encode, real_step = type(algo.model).encode, algo.optimizer.step      # one encode a step
        algo.model.__dict__["encode"] = lambda obs: (sizes.append(len(obs)), real_encode(algo.model, obs))[1]
        algo.optimizer.step = lambda *a, **k: (steps.append(1), real_step(*a, **k))[1]
        algo.learn(buf)
        want = [min(mb, n - start) for start in range(0, n, mb)] * epochs
        assert n > 200 and n % 100 and sizes == want and len(steps) == len(want), (n, sizes)
    # a last minibatch of one sample is a step too (mutation testing, 2026-12-05: dropped unseen)
    algo.cfg = dataclasses.replace(algo.cfg, minibatch_size=n - 1, update_epochs=1)
    sizes.clear()
    algo.learn(buf)
    assert sizes == [n - 1, 1]


def test_step_files_are_written_every_checkpoint_every_steps(tmp_path):
    """An iteration that ends on a boundary moves the schedule on: step files at 512, 1,024,
    1,536 and 2,048 steps of 256 a iteration, not one more an iteration after each (mutation
    testing, 2026-12-05: <= as < went unseen)."""
    run = Run(cfg(tmp_path, run_name="sf", rollout_steps=16, checkpoint_every=512), log=lambda *_: None)
    saved, real = [], run.save
    run.save = lambda tag=None: (tag and saved.append(run.counters["steps"]), real(tag))[1]
    run.train()
    assert saved == [512, 1024, 1536, 2048]


def test_dmc_exploration_draws_every_legal_move(tmp_path):
    """With probability epsilon a random legal move (module text): at epsilon 1 the first and
    the last legal move are each drawn about 1/count of the time (mutation testing, 2026-12-05:
    a draw that never reached the last move went unseen)."""
    algo = Run(cfg(tmp_path, algo="dmc", num_envs=64), log=lambda *_: None).algo
    first = last = chances = 0
    for _ in range(30):
        count = algo.env.legal_count.copy()
        idx = algo.choose(1.0)
        many = count > 1
        first += int((many & (idx == 0)).sum())
        last += int((many & (idx == count - 1)).sum())
        chances += float((1 / count[many]).sum())
        algo.env.step_index(idx)
    assert chances > 100
    assert 0.7 * chances < first < 1.3 * chances and 0.7 * chances < last < 1.3 * chances


def test_dmc_explores_with_probability_epsilon(tmp_path):
    """dmc.py: 'a random legal move with probability epsilon': at epsilon e the share of moves
    that are not the greedy one is e times what all-random play gives (the greedy move can be
    drawn too); half of it went unseen (review)."""
    from agents.network import masked_scores
    from training.env import legal_slice
    algo = Run(cfg(tmp_path, algo="dmc", num_envs=256, bot_games=0.0), log=lambda *_: None).algo
    for eps in (1.0, 0.4):
        off = expected = 0.0
        for _ in range(20):
            env = algo.env
            count = env.legal_count.astype(np.int64)
            cards, cap = legal_slice(env)
            with torch.no_grad():
                scores, _ = masked_scores(algo.model, algo.model.obs_tensor(env.obs),
                                          torch.from_numpy(cards), torch.from_numpy(cap),
                                          torch.from_numpy(count))
            idx = algo.choose(eps)
            off += int((idx != scores.argmax(1).numpy()).sum())
            expected += float((1 - 1 / count).sum())
            env.step_index(idx)
        assert off / expected == pytest.approx(eps, abs=0.08), (eps, off / expected)


def test_dmc_learning_step_is_a_clipped_squared_error_on_shuffled_minibatches(tmp_path):
    """dmc.py: the network is regressed onto the returns with a squared error (losses/value_loss
    of one minibatch and one epoch is the squared error before the step), gradients clipped to
    max_grad_norm, minibatches drawn in a shuffled order; charts/epsilon is the epsilon the
    iteration played at (review: a smooth L1 loss, a norm 10 times larger, minibatches in time
    order and the next iteration's epsilon all went unseen)."""
    c = cfg(tmp_path, algo="dmc", rollout_steps=64, minibatch_size=100_000, update_epochs=1,
            epsilon_start=0.2)
    algo = Run(c, log=lambda *_: None).algo
    assert algo.iterate()["charts/epsilon"] == epsilon_at(c, 0, algo.epsilon_span) == 0.2
    data = algo.samples(algo.rollout(0.1)[0])
    assert len(data["target"]) > 100
    with torch.no_grad():
        q = algo.model.score_chosen(algo.model.obs_tensor(data["obs"]), torch.from_numpy(data["card"]),
                                    torch.from_numpy(data["captured"]))
        mse = float(((q - torch.from_numpy(data["target"])) ** 2).mean())
    assert algo.learn(data)["losses/value_loss"] == pytest.approx(mse, rel=1e-5)

    algo = Run(cfg(tmp_path, algo="dmc", rollout_steps=80, minibatch_size=100, update_epochs=1,
                   max_grad_norm=0.01), log=lambda *_: None).algo
    data = algo.samples(algo.rollout(0.1)[0])
    norms, first_cards = [], []
    step = algo.optimizer.step

    def recording_step(*a, **k):
        norms.append(float(torch.norm(torch.stack([p.grad.norm() for p in algo.model.parameters()
                                                   if p.grad is not None]))))
        return step(*a, **k)
    algo.optimizer.step = recording_step
    chosen = algo.model.score_chosen
    algo.model.score_chosen = lambda obs, card, cap: (first_cards.append(card.tolist()),
                                                      chosen(obs, card, cap))[1]
    algo.learn(data)
    assert len(norms) >= 2 and max(norms) == pytest.approx(0.01, rel=1e-3)
    assert first_cards[0] != data["card"][:100].tolist()
    assert sorted(first_cards[0]) != sorted(data["card"][:100].tolist())


# ---- PPO ------------------------------------------------------------------------------------
def _gae_buf():
    """Game 0: learner at t0 (value 1), its episode ends at t1 (+1); learner at t2 (value 0.5),
    ends at t3 (+2). Game 1: learner at t0 (value 1) and t2 (value 0.5), one episode ending at
    t3 (+2)."""
    f = np.float32
    return {"done": np.array([[False, False], [True, False], [False, False], [True, True]]),
            "reward": np.array([[0, 0], [1, 0], [0, 0], [2, 2]], f),
            "learner": np.array([[True, True], [False, False], [True, True], [False, False]]),
            "value": np.array([[1, 1], [0, 0], [0.5, 0.5], [0, 0]], f),
            "tail": np.zeros((4, 2), bool)}


def test_gae_by_hand(tmp_path):
    algo = Run(one_batch_cfg(tmp_path, run_name="p", algo="ppo", gamma=0.9, gae_lambda=0.5), log=lambda *_: None).algo
    adv, ret = algo.advantages(_gae_buf())
    # game 0: each decision ends its episode: a2 = 2 - 0.5 = 1.5; a0 = 1 - 1 = 0 (no bootstrap)
    # game 1: a2 = 1.5; delta0 = 0 + 0.9*0.5 - 1 = -0.55; a0 = -0.55 + 0.9*0.5*1.5 = 0.125
    assert adv[:, 0].tolist() == pytest.approx([0, 0, 1.5, 0])
    assert adv[:, 1].tolist() == pytest.approx([0.125, 0, 1.5, 0])
    assert ret[[0, 2]].ravel().tolist() == pytest.approx([1.0, 1.125, 2.0, 2.0])     # advantage + value


def test_masked_logits_hide_exactly_the_padding(tmp_path):
    from training.ppo import masked_logits
    algo = Run(one_batch_cfg(tmp_path, run_name="m", algo="ppo"), log=lambda *_: None).algo
    from training.env import legal_slice
    env = algo.env
    cards, captured = (torch.from_numpy(a) for a in legal_slice(env))
    count = torch.from_numpy(env.legal_count.astype(np.int64))
    logits, _ = masked_logits(algo.model, algo.model.obs_tensor(env.obs), cards, captured, count)
    pad = logits <= -1e8
    assert (pad.sum(dim=1) == cards.shape[1] - count).all()


def _ppo_setup(tmp_path, **kw):
    algo = Run(one_batch_cfg(tmp_path, run_name="l", algo="ppo", update_epochs=1, **kw), log=lambda *_: None).algo
    torch.manual_seed(0)
    buf = algo.rollout()
    return algo, buf


def _losses_by_hand(algo, buf, rows=None):
    """One minibatch's losses by hand, before its step: PPO's clipped surrogate, the value loss
    (half the squared error to the returns, adv + value), the mean entropy of the move
    distributions, approx_kl ((r - 1) - log r, mean) and clipfrac (the share of ratios further
    than clip_coef from 1, either way). `rows`: the minibatch, as indices into the learner's
    samples in learn's order (default: all of them)."""
    from training.ppo import masked_logits
    clip = algo.cfg.clip_coef
    adv, ret = algo.advantages(buf)
    t, b = np.nonzero(buf["learner"] & ~buf["tail"])
    if rows is not None:
        t, b = t[rows], b[rows]
    w = max(1, int(buf["count"].max()))
    with torch.no_grad():
        logits, value = masked_logits(algo.model, algo.model.obs_tensor(buf["obs"][t, b]),
                                      torch.from_numpy(buf["cards"][t, b, :w]),
                                      torch.from_numpy(buf["captured"][t, b, :w]),
                                      torch.from_numpy(buf["count"][t, b]))
        logp_all = torch.log_softmax(logits, 1)
        logp = logp_all.gather(1, torch.from_numpy(buf["idx"][t, b]).unsqueeze(1)).squeeze(1)
        log_r = logp - torch.from_numpy(buf["logp"][t, b])
    a = torch.from_numpy(adv[t, b])
    a = (a - a.mean()) / (a.std() + 1e-8) if len(a) > 1 else a
    r = log_r.exp()
    # PPO's clipped surrogate, to be maximised: min(r A, clip(r) A); the loss is its negative
    return {"losses/policy_loss": float(-torch.minimum(r * a, r.clamp(1 - clip, 1 + clip) * a).mean()),
            "losses/value_loss": float(0.5 * ((value - torch.from_numpy(ret[t, b].astype(np.float32))) ** 2).mean()),
            "losses/entropy": float(-(logp_all.exp() * logp_all).sum(1).mean()),
            "losses/approx_kl": float(((r - 1) - log_r).mean()),
            "losses/clipfrac": float(((r - 1).abs() > clip).float().mean())}


def test_ppo_policy_loss_is_the_clipped_surrogate(tmp_path):
    """The losses of one minibatch, before its step, as PPO defines them (a mutation review: the
    value loss against the advantages or without its half, the entropy summed over the minibatch
    and approx_kl as the mean of r - 1 went unseen)."""
    algo, buf = _ppo_setup(tmp_path)
    rng = np.random.default_rng(0)
    buf["logp"] = buf["logp"] + rng.choice([-0.5, 0.5], size=buf["logp"].shape).astype(np.float32)
    want = _losses_by_hand(algo, buf)                               # one minibatch: before any step
    stats = algo.learn(buf)
    for tag, value in want.items():
        assert stats[tag] == pytest.approx(value, rel=1e-4, abs=1e-6), tag
    assert want["losses/approx_kl"] > 0.05 and want["losses/entropy"] > 0.1
    # every ratio is exp(+-0.5), 0.39 or 0.65 from 1: all clipped (a mutation review: ratios
    # below 1 - clip_coef went uncounted, about half of these)
    assert want["losses/clipfrac"] == 1.0


def test_logged_losses_are_means_over_every_minibatch_and_epoch(tmp_path):
    """An iteration's losses/* are the means over all its minibatches and epochs (a mutation
    review: the last minibatch's values passed, the tests above learning from one minibatch).
    The network is held still (SGD at rate 0) so that each minibatch's losses can be worked out
    by hand, on the minibatches learn draws (its generator, copied)."""
    algo = Run(one_batch_cfg(tmp_path, run_name="mb", algo="ppo", update_epochs=2, minibatch_size=64),
               log=lambda *_: None).algo
    torch.manual_seed(0)
    buf = algo.rollout()
    buf["logp"] = buf["logp"] + np.random.default_rng(1).choice(
        [-0.5, 0.05], size=buf["logp"].shape).astype(np.float32)
    algo.optimizer = torch.optim.SGD(algo.model.parameters(), lr=0.0)
    n = int((buf["learner"] & ~buf["tail"]).sum())
    rng = copy.deepcopy(algo.rng)
    each = [_losses_by_hand(algo, buf, rows) for _ in range(2)
            for order in [rng.permutation(n)] for rows in np.array_split(order, range(64, n, 64))]
    assert len(each) >= 6
    stats = algo.learn(buf)
    for tag in each[0]:
        values = [e[tag] for e in each]
        assert np.ptp(values) > 0.05 * max(map(abs, values)), tag        # the minibatches differ
        assert stats[tag] == pytest.approx(np.mean(values), rel=1e-4, abs=1e-9), tag
    assert 0 < stats["losses/clipfrac"] < 1

    algo = Run(cfg(tmp_path, run_name="dmb", algo="dmc", rollout_steps=64, minibatch_size=50,
                   update_epochs=2), log=lambda *_: None).algo
    data = algo.samples(algo.rollout(0.1)[0])
    algo.optimizer = torch.optim.SGD(algo.model.parameters(), lr=0.0)
    with torch.no_grad():
        q = algo.model.score_chosen(algo.model.obs_tensor(data["obs"]), torch.from_numpy(data["card"]),
                                    torch.from_numpy(data["captured"]))
        sq = ((q - torch.from_numpy(data["target"])) ** 2).numpy()
    n, rng = len(sq), copy.deepcopy(algo.rng)
    each = [float(sq[rows].mean()) for _ in range(2)
            for order in [rng.permutation(n)] for rows in np.array_split(order, range(50, n, 50))]
    assert len(each) >= 6 and np.ptp(each) > 0.05 * max(each)
    assert algo.learn(data)["losses/value_loss"] == pytest.approx(np.mean(each), rel=1e-5, abs=1e-9)


def test_ppo_opponents_snapshots_tails_clipping_and_minibatches(tmp_path):
    """A mutation review of ppo.py found these unchecked: latest_opponent_prob is the share of
    games against the current policy with snapshots in the pool too; a snapshot joins the pool
    every snapshot_every iterations; a carried row is valued again by the network that trains
    it; gradients are clipped to max_grad_norm; minibatches are drawn in a shuffled order."""
    from training import ppo
    for prob, want in ((1.0, 1.0), (0.0, 0.0), (0.8, 0.8)):
        algo = Run(one_batch_cfg(tmp_path, algo="ppo", num_envs=256, pool_size=2, bot_games=0.0,
                                 latest_opponent_prob=prob), log=lambda *_: None).algo
        algo._add_snapshot()
        algo._draw_opponents(np.ones(256, dtype=bool))
        assert (algo.opponent == 0).mean() == pytest.approx(want, abs=0.07), prob
    algo = Run(one_batch_cfg(tmp_path, algo="ppo", num_envs=64, rollout_steps=16, snapshot_every=3),
               log=lambda *_: None).algo
    sizes = []
    for _ in range(6):
        algo.iterate()
        sizes.append(len(algo.pool))
    assert sizes == [0, 0, 1, 1, 1, 2]

    algo, _ = _ppo_setup(tmp_path)
    algo.iterate()
    buf = algo.rollout()
    on = buf["learner"][0]
    assert on.any()
    with torch.no_grad():
        again = algo.model.value(algo.model.encode(algo.model.obs_tensor(buf["obs"][0, on]))).numpy()
    np.testing.assert_allclose(buf["value"][0, on], again, rtol=1e-6)

    algo, buf = _ppo_setup(tmp_path, max_grad_norm=0.001)
    algo.optimizer = torch.optim.SGD(algo.model.parameters(), lr=1.0)
    before = [p.detach().clone() for p in algo.model.parameters()]
    algo.learn(buf)
    moved = torch.norm(torch.stack([(p.detach() - q).norm() for p, q in zip(algo.model.parameters(), before, strict=True)]))
    assert float(moved) == pytest.approx(0.001, rel=1e-3)

    algo, buf = _ppo_setup(tmp_path, minibatch_size=64)
    seen = []
    real = ppo.masked_logits
    t, b = np.nonzero(buf["learner"] & ~buf["tail"])
    in_time_order = algo.model.obs_tensor(buf["obs"][t, b])
    try:
        ppo.masked_logits = lambda model, obs, *rest: (seen.append(obs.clone()), real(model, obs, *rest))[1]
        algo.learn(buf)
    finally:
        ppo.masked_logits = real
    assert len(seen) >= 2 and not torch.equal(seen[0], in_time_order[:64])


def test_a_carried_row_is_its_tail_row_log_probability_included(tmp_path):
    """Row 0 of a rollout is each game's tail from the rollout before, every part of it as it was
    played: a mutation review left its log-probability at 0 (the ratio of PPO's surrogate then
    wrong for every carried decision) and no test saw it."""
    algo, prev = _ppo_setup(tmp_path)
    algo.learn(prev)                     # the network changes; the carried move's log-prob must not
    buf = algo.rollout()
    on = buf["learner"][0]
    games = np.arange(len(on))
    row = np.argmax(prev["tail"], axis=0)
    np.testing.assert_array_equal(on, prev["tail"].any(axis=0))
    assert on.sum() >= 4
    for key in ("obs", "count", "idx", "logp"):
        np.testing.assert_array_equal(buf[key][0, on], prev[key][row, games][on], err_msg=key)
    w = prev["cards"].shape[2]
    for key in ("cards", "captured"):
        np.testing.assert_array_equal(buf[key][0, on, :w], prev[key][row, games][on], err_msg=key)
    choice = on & (buf["count"][0] > 1)
    assert choice.any() and (buf["logp"][0, choice] < 0).all()


def test_the_entropy_bonus_raises_the_entropy(tmp_path):
    algo, buf = _ppo_setup(tmp_path, ent_coef=100.0, vf_coef=0.0, learning_rate=1e-3)
    before = algo.learn(buf)["losses/entropy"]                      # one step; entropy before it
    after = algo.learn(buf)["losses/entropy"]                       # entropy after that step
    assert after > before


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ck")
    cfg = make_config(dict(total_steps=2048, num_envs=16, rollout_steps=32, hidden=32, minibatch_size=256,
                           eval_every=0, final_matches=0, checkpoint_every=0, torch_threads=1,
                           runs_dir=str(tmp / "runs"), checkpoints_dir=str(tmp / "ck"), run_name="k"))
    d = Run(cfg, log=lambda *_: None).to_checkpoint()
    checkpoint.check(d)          # the unedited dict is fine
    return d


def refused(d, words):
    with pytest.raises(ScopaError, match=words):
        checkpoint.check(d)


@pytest.mark.parametrize("key", ["steps", "iterations", "next_eval", "next_checkpoint"])
def test_a_negative_count_is_refused(ckpt, key):
    d = copy.deepcopy(ckpt)
    d["counters"][key] = -1
    refused(d, f"counter '{key}' = -1: it must be a whole number from 0 to 2\\*\\*53")
    d["counters"][key] = 10**30     # a traceback from TensorBoard's writer (a security review)
    refused(d, f"counter '{key}' = {10**30}: it must be a whole number from 0 to 2\\*\\*53")
    d["counters"][key] = 2**53
    checkpoint.check(d)


def test_non_finite_optimizer_state_is_refused(ckpt):
    d = copy.deepcopy(ckpt)
    d["optimizer"]["state"] = {0: {"step": torch.tensor(1.0), "exp_avg": torch.full((2,), float("nan")),
                                   "exp_avg_sq": torch.zeros(2)}}
    refused(d, r"^checkpoint 'checkpoint' is unusable: optimizer tensor 'state\.0\.exp_avg' has 2 of 2 values "
               r"NaN or inf \(a damaged file or a diverged run\)$")


def test_a_network_for_another_hand_size_is_refused(ckpt):
    d = copy.deepcopy(ckpt)
    d["model_config"]["hand_cards"] = 4
    refused(d, "holds a network for hands of 4 cards, but its rules deal 3")


def test_a_config_of_the_other_algorithm_is_refused(ckpt):
    d = copy.deepcopy(ckpt)
    d["config"]["algo"] = "ppo"
    refused(d, "says algo 'dmc' but its config says 'ppo'")


def test_a_resumable_file_without_rng_still_needs_every_counter(ckpt):
    d = copy.deepcopy(ckpt)
    del d["rng"]
    del d["counters"]["next_eval"]
    refused(d, "lacks counter 'next_eval'")


def test_a_changed_weight_is_refused_by_the_checksum(ckpt, tmp_path):
    path = checkpoint.save_atomic(copy.deepcopy(ckpt), tmp_path / "a.pt")
    d = torch.load(path, weights_only=True)
    k = next(iter(d["model"]))
    d["model"][k] = d["model"][k].clone()
    d["model"][k].view(-1)[0] += 1.0
    refused(d, r"^checkpoint 'checkpoint' is damaged: its contents do not match its checksum "
               r"\(bytes changed since it was written\)$")


@pytest.mark.parametrize("value", [1.5, -0.1])
def test_gamma_outside_0_1_is_refused(value):
    with pytest.raises(ScopaError, match="'gamma' must be within 0..1"):
        make_config(algo="ppo", gamma=value)


def test_zero_update_epochs_is_refused():
    with pytest.raises(ScopaError, match="'update_epochs' must be at least 1, got 0"):
        make_config(update_epochs=0)


@pytest.mark.parametrize("name", ["epsilon_start", "epsilon_end", "epsilon_decay_frac",
                                  "latest_opponent_prob", "gae_lambda", "gamma", "bot_games", "td_lambda"])
def test_every_share_is_within_0_1(name):
    with pytest.raises(ScopaError, match=f"'{name}' must be within 0..1, got 1.5"):
        make_config(**{name: 1.5})
    make_config(**{name: 1.0})                            # the bound itself is fine


def test_run_name_and_final_table_bounds_at_their_edges():
    """A run name of 101 characters is refused (100 is the bound: only 300 was tried), and the
    final table needs an opponent from one match on (only the default 200 was tried): each passed
    with its bound moved by one (a mutation review)."""
    with pytest.raises(ScopaError, match="'run_name' must be at most 100 characters, got 101$"):
        make_config(run_name="b" * 101)
    with pytest.raises(ScopaError, match="'final_opponents' needs at least one opponent while final_matches > 0"):
        make_config(final_matches=1, final_opponents=())
    make_config(final_matches=0, final_opponents=())           # no final table, none needed


@pytest.mark.parametrize("name", ["vf_coef", "ent_coef"])
def test_loss_coefficients_upper_bound(name):
    with pytest.raises(ScopaError, match=f"'{name}' must be at least 0 and at most 100, got 101.0"):
        make_config(**{name: 101.0})
    make_config(**{name: 100.0})


def test_learning_rate_zero_refused_one_allowed():
    with pytest.raises(ScopaError, match="'learning_rate' must be above 0"):
        make_config(learning_rate=0.0)
    make_config(learning_rate=1.0)


def scripted(run, scores):
    """Run.evaluate returning the next score; records the step of each call."""
    calls, it = [], iter(scores)

    def evaluate(opponents, matches):
        calls.append(run.counters["steps"])
        s = next(it)
        return {o: {"win_rate": 0.5, "points_per_hand": s, "matches": 2, "hands": 2, "win_ci": (0.0, 1.0),
                    "points_ci": (s - 1, s + 1)} for o in opponents}
    run.evaluate = evaluate
    return calls


def test_best_pt_keeps_the_best_score_not_a_later_worse_one(tmp_path):
    run = Run(cfg(tmp_path, run_name="b", eval_every=512, eval_matches=2, eval_opponents=("random",)),
              log=lambda *_: None)
    calls = scripted(run, [1.0, 2.0, 0.5, 1.5])
    run.train()
    assert calls == [512, 1024, 1536, 2048]
    assert run.counters["best_score"] == 2.0
    best = torch.load(tmp_path / "ck" / "b" / "best.pt", weights_only=True)
    assert best["counters"]["steps"] == 1024 and best["counters"]["best_score"] == 2.0


def test_best_pt_keeps_the_first_of_equal_scores_and_iterations_count_rollouts(tmp_path):
    """A later evaluation that only equals the best does not replace best.pt (README: "best mean
    points per hand"; an equal score is no better, and ties were unpinned: a mutation review).
    counters.iterations is the rollouts run: steps / (num_envs x rollout_steps) (unchecked too)."""
    run = Run(cfg(tmp_path, run_name="t", eval_every=512, eval_matches=2, eval_opponents=("random",)),
              log=lambda *_: None)
    scripted(run, [1.0, 2.0, 2.0, 0.5])
    run.train()
    best = torch.load(tmp_path / "ck" / "t" / "best.pt", weights_only=True)
    assert best["counters"]["steps"] == 1024 and best["counters"]["best_score"] == 2.0
    c = torch.load(tmp_path / "ck" / "t" / "latest.pt", weights_only=True)["counters"]
    assert c["steps"] == 2048 and c["iterations"] == 2048 // (TINY["num_envs"] * TINY["rollout_steps"])


def test_evaluations_fall_every_eval_every_steps(tmp_path):
    run = Run(cfg(tmp_path, run_name="e", eval_every=1024, eval_matches=2, eval_opponents=("random",)),
              log=lambda *_: None)
    calls = scripted(run, [0.0] * 10)
    run.train()
    assert calls == [1024, 2048] and run.counters["next_eval"] == 3072


def test_max_minutes_counts_this_leg_only(tmp_path):
    run = Run(cfg(tmp_path, run_name="m", max_minutes=1.0), log=lambda *_: None)
    run.counters["elapsed_s"] = 3600.0        # earlier legs: an hour (README: minutes of one leg)
    run.train()
    assert run.counters["steps"] == 2048


class FakeTime:
    """time.time() and time.monotonic() (the training clock) advancing `step` seconds a call
    (0: only when a test moves `now`); the rest of the time module as it is."""
    def __init__(self, step=10.0):
        self.now, self.step = 1_000_000.0, step

    def time(self):
        self.now += self.step
        return self.now

    monotonic = time

    def __getattr__(self, name):
        return getattr(_time, name)


def test_max_minutes_is_minutes_and_a_time_stop_still_evaluates(tmp_path, monkeypatch):
    monkeypatch.setattr(loop, "time", FakeTime())
    run = Run(cfg(tmp_path, run_name="t", max_minutes=1.0, final_matches=2, final_opponents=("random",)),
              log=lambda *_: None)
    calls = scripted(run, [0.0] * 10)
    results = run.train()
    # 60 fake seconds: a few calls of time.time() per iteration, so more than one iteration and
    # fewer than the 4 of the budget; a seconds-for-minutes mistake stops after the first
    assert 512 < run.counters["steps"] < 2048
    assert calls == [run.counters["steps"]] and list(results) == ["random"]   # the final table


def test_a_wall_clock_jump_does_not_end_a_time_limited_run(tmp_path, monkeypatch):
    """--max-minutes counts on the monotonic clock: on the wall clock a suspended laptop or an
    NTP step of an hour stopped a 55-minute run at its next iteration (review). Here the wall
    clock jumps an hour at each reading; the run trains to its step budget."""
    class Jumping(FakeTime):
        def time(self):
            self.now += 3600.0
            return self.now

        def monotonic(self):
            return _time.monotonic()
    monkeypatch.setattr(loop, "time", Jumping())
    said = []
    run = Run(cfg(tmp_path, run_name="j", max_minutes=55.0), log=said.append)
    run.train()
    assert run.counters["steps"] == 2048
    assert run.counters["elapsed_s"] < 600, run.counters
    assert "(step budget)" in next(x for x in said if x.startswith("trained ")), said


def _clocked(monkeypatch, run, seconds=2.0):
    """training.loop's time, advanced only by the algorithm's iterations (`seconds` each)."""
    clock = FakeTime(step=0.0)
    monkeypatch.setattr(loop, "time", clock)
    iterate = run.algo.iterate

    def timed():
        clock.now += seconds
        return iterate()
    run.algo.iterate = timed
    return run


def test_sps_and_the_closing_lines_times_follow_the_clock(tmp_path, monkeypatch):
    """charts/SPS is this iteration's steps over its time (not the run's steps so far); a
    resumed run's closing line gives the whole run's time, then this leg's (a mutation review)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    c = cfg(tmp_path, run_name="c")
    said = []
    _clocked(monkeypatch, Run(c, log=said.append)).train(stop_at=1024)
    said.clear()
    _clocked(monkeypatch, start(c, resume=str(tmp_path / "ck" / "c"), log=said.append)).train()
    line = next(x for x in said if x.startswith("trained "))
    assert line.startswith("trained 2,048 steps in 8.0 s, this leg 1,024 steps in 4.0 s (step budget)"), line
    sps = EventAccumulator(str(tmp_path / "runs" / "c")).Reload().Scalars("charts/SPS")
    assert sorted((e.step, e.value) for e in sps) == [(512, 256.0), (1024, 256.0), (1536, 256.0), (2048, 256.0)]


def test_a_time_limit_met_with_the_budget_spent_says_step_budget(tmp_path, monkeypatch):
    """The iteration that reaches total_steps also passes --max-minutes (2 s an iteration, 7.5 s
    allowed): the run is complete, so the closing line names the step budget, not the time."""
    said = []
    run = _clocked(monkeypatch, Run(cfg(tmp_path, run_name="tb", max_minutes=0.125), log=said.append))
    run.train()
    assert run.counters["steps"] == 2048
    line = next(x for x in said if x.startswith("trained "))
    assert line.startswith("trained 2,048 steps in 8.0 s (step budget)"), line


def test_stop_at_past_the_budget_stops_at_the_budget(tmp_path):
    run = Run(cfg(tmp_path, run_name="s"), log=lambda *_: None)
    run.train(stop_at=4096)
    assert run.counters["steps"] == 2048


def test_the_keys_a_resume_may_change_are_the_readmes():
    # README: "only budgets and reporting (total_steps, max_minutes, eval_*, final_*,
    # checkpoint_every, torch_threads, folders) may change"
    assert loop.RESUME_OVERRIDABLE == {"total_steps", "max_minutes", "eval_every", "eval_matches",
                                       "eval_opponents", "final_matches", "final_opponents",
                                       "checkpoint_every", "torch_threads", "runs_dir", "checkpoints_dir"}


@pytest.mark.parametrize("key,value", [("learning_rate", 1e-3), ("seed", 7), ("gamma", 0.5),
                                       ("epsilon_end", 0.1), ("minibatch_size", 128)])
def test_what_shapes_the_updates_cannot_change_on_resume(tmp_path, key, value):
    Run(cfg(tmp_path, run_name="r"), log=lambda *_: None).train(stop_at=512)
    with pytest.raises(ScopaError, match=f"config key '{key}' cannot change when resuming"):
        start(cfg(tmp_path), resume=str(tmp_path / "ck" / "r" / "latest.pt"), overrides={key: value},
              log=lambda *_: None)


# ---- training/evaluation.py, pinned by mutation testing (2026-12-04) ------------------------
def test_evaluate_model_leaves_the_trained_model_in_train_mode_and_untouched():
    """evaluate_model plays a frozen copy: the model being trained keeps its mode and weights."""
    from training.evaluation import evaluate_model
    torch.manual_seed(0)
    model = MoveScorer(16)
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    out = evaluate_model(model, ["random"], 2, seed=1, rules=Rules())
    assert out["random"]["matches"] == 2
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_format_table_says_why_a_row_has_no_points_interval():
    """A row of several deals with no spread prints '[n/a, no spread]', not 'one deal'."""
    from training.evaluation import format_table
    row = dict(matches=6, hands=30, win_rate=0.5, win_ci=(0.2, 0.8), points_per_hand=0.0,
               points_ci=(None, None))
    text = format_table({"random": row}, "T")
    assert "[n/a, no spread]" in text and "one deal" not in text
    one = dict(row, matches=2)
    assert "[n/a, one deal]" in format_table({"random": one}, "T")


# ---- config and checkpoint checks, pinned by mutation testing (2026-12-05) ------------------
def test_match_counts_are_bounded_after_rounding_to_the_sides():
    """At most 100,000,000 matches, counted once rounded up to a multiple of the sides: the bound
    itself is taken, and under three players 100,000,000 rounds past it."""
    make_config(final_matches=100_000_000)
    with pytest.raises(ScopaError, match="'eval_matches' must be at most 100,000,000 once rounded up to a "
                                         "multiple of the 3 sides, got 100,000,000"):
        make_config(rules="three-players", eval_matches=100_000_000)


@pytest.mark.parametrize("kw, words", [
    (dict(run_name=".."), "config key 'run_name' must be a plain name (no '/', '\\' or control characters), got '..'"),
    (dict(run_name="a\x7fb"), "config key 'run_name' must be a plain name"),
    (dict(runs_dir="a\0b"), "config key 'runs_dir' must not hold a NUL character, got 'a\\x00b'"),
    (dict(checkpoints_dir="a\0b"), "config key 'checkpoints_dir' must not hold a NUL character"),
    (dict(algo="ppo", snapshot_every=0), "config key 'snapshot_every' must be at least 1, got 0"),
])
def test_names_folders_and_snapshot_every_refused_at_their_edges(kw, words):
    with pytest.raises(ScopaError, match="^" + re.escape(words)):
        make_config(**kw)


def test_bot_games_are_rounded_to_a_count_and_the_message_counts_in_the_singular():
    from training.config import bot_game_count, check_bot_games
    assert bot_game_count(0.35, 5) == 2            # 1.75 games: rounded, not cut to 1
    check_bot_games(make_config(num_envs=5, bot_games=0.35))
    with pytest.raises(ScopaError, match=r"^config key 'bot_games' = 0.5 of 1 game \(num_envs\) is 0 bot games"):
        check_bot_games(make_config(num_envs=1, bot_games=0.5))


def test_a_quoted_number_in_a_file_is_told_to_lose_its_quotes(tmp_path):
    from training.config import load_toml
    path = tmp_path / "c.toml"
    path.write_text('seed = "3"\n')
    with pytest.raises(ScopaError, match=r"needs a whole number, got '3' \(a config file's values keep their "
                                         r"TOML types: write it as one without quotes\)$"):
        load_toml(path)


def test_stored_configs_are_mended_as_documented():
    """A stored config with final_opponents = [] and no final_matches reads as final_matches = 0
    (the default is not 0); a level stored twice in a tuple is read once, as in a list."""
    from training.config import from_dict, saved_config
    assert from_dict({"final_opponents": []}).final_matches == 0
    assert saved_config({"eval_opponents": ("easy", "easy")}) == {"eval_opponents": ["easy"]}
    assert from_dict({"eval_opponents": ("easy", "easy")}).eval_opponents == ("easy",)


def test_an_empty_preset_in_a_rules_table_is_unknown_not_classic():
    from training.config import rules_from_config
    with pytest.raises(ScopaError, match="^unknown rules preset '' \\(known: classic, "):
        rules_from_config({"preset": ""})


def test_counters_and_layout_versions_are_checked_for_what_they_are(ckpt):
    """A bool is not a layout version (True == 1); elapsed_s is never negative; a run name is
    never empty."""
    refused(dict(ckpt, action_layout_version=True),
            "was trained on action layout version True, this code has version 1")
    d = copy.deepcopy(ckpt)
    d["counters"]["elapsed_s"] = -5.0
    refused(d, "counter 'elapsed_s' = -5.0: it must be a number of seconds from 0 to 10\\*\\*10")
    d["counters"]["elapsed_s"] = 1e308      # printed as 300 digits of minutes (a security review)
    refused(d, "counter 'elapsed_s' = 1e\\+308: it must be a number of seconds from 0 to 10\\*\\*10")
    d = copy.deepcopy(ckpt)
    d["counters"]["run_name"] = ""
    refused(d, "counter 'run_name' = '': it must be a plain name")
    # a name a config may not have: terminal escapes and a newline were printed raw and made
    # into folders (a security review), and one past the config's length
    for name in ("evil\x1b[2J\nFAKE", "a\x7fb", "x" * 101):
        d["counters"]["run_name"] = name
        refused(d, re.escape(f"counter 'run_name' = {checkpoint.show_value(name)}: it must be a "
                             f"plain name of at most 100 characters (no path separator or control "
                             f"character"))
    d["counters"]["run_name"] = "x" * 100
    checkpoint.check(d)


def test_values_nested_too_deeply_are_one_error(ckpt):
    """torch's weights-only reader builds a list nested 200,000 deep from a small file; the
    checks' walks over the values met it as a RecursionError traceback (a security review)."""
    deep = []
    for _ in range(200_000):
        deep = [deep]
    refused(dict(ckpt, extra=deep), r"^checkpoint 'checkpoint' is corrupt \(its values are nested too "
                                    r"deeply\)$")


def test_the_checkpoints_counter_bounds_are_the_configs():
    """A resumed run's counters are held to the bounds its config keeps."""
    from training import config
    assert checkpoint.MAX_COUNT == config.MAX_WHOLE and checkpoint.MAX_RUN_NAME == config.MAX_RUN_NAME
    assert checkpoint.MAX_HIDDEN == config.MAX_INT["hidden"]


def test_a_network_wider_than_any_run_trains_is_refused_before_it_is_built(ckpt):
    """A 39 KB file whose model_config said hidden 20,000 had a reader build a 5 GB network
    before the weights' size mismatch showed (a security review)."""
    d = copy.deepcopy(ckpt)
    d["model_config"] = dict(d["model_config"], hidden=4_097)
    refused(d, r"model_config 'hidden' = 4097: it must be at most 4096, the widest network a run trains$")


def test_a_file_without_algo_state_is_not_held_to_the_resume_counters(ckpt):
    """Only a file that can resume (optimizer and algo_state: checkpoint._check_counters) needs
    every counter; one without algo_state is held to its counters' kinds only."""
    d = copy.deepcopy(ckpt)
    del d["algo_state"], d["counters"]["next_eval"]
    checkpoint.check(d, "x.pt")


@pytest.mark.parametrize("preset, key, words", [
    ("scopone", "hand_cards", "holds a network for hands of 3 cards, but its rules deal 9"),
    ("pairs", "players", "holds a network for 2 players, but its rules have 4"),
])
def test_a_model_config_without_players_or_hand_cards_is_the_classic_network(tmp_path, preset, key, words):
    """Files from before the variants name neither: their network is the classic 2-player,
    3-card one, whatever rules the file says (it is not taken to fit the rules)."""
    d = Run(cfg(tmp_path, rules=preset, run_name="v"), log=lambda *_: None).to_checkpoint()
    del d["model_config"][key]
    refused(d, words)


def test_show_value_cuts_past_80_characters():
    assert checkpoint.show_value("x" * 78) == repr("x" * 78)           # 80 characters: whole
    assert checkpoint.show_value("x" * 79) == repr("x" * 79)[:77] + "..."


def test_a_save_keeps_the_group_write_bit_the_umask_allows(ckpt, tmp_path):
    import os
    old = os.umask(0o002)
    try:
        path = checkpoint.save_atomic(copy.deepcopy(ckpt), tmp_path / "a.pt")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o664


def test_only_a_checkpoints_own_partial_saves_are_removed(tmp_path):
    (tmp_path / ".notes.txt.1.tmp").write_text("another program's")
    (tmp_path / ".latest.pt.abc.tmp").write_text("a save cut short")
    assert [p.name for p in checkpoint.remove_partial_saves(tmp_path)] == [".latest.pt.abc.tmp"]
    assert (tmp_path / ".notes.txt.1.tmp").exists()
    # a folder of a save's name is no save (an IsADirectoryError traceback: a security review);
    # a link of one is removed as a link, its target kept
    (tmp_path / ".x.pt.y.tmp").mkdir()
    target = tmp_path / "kept.txt"
    target.write_text("kept")
    (tmp_path / ".best.pt.l.tmp").symlink_to(target)
    assert [p.name for p in checkpoint.remove_partial_saves(tmp_path)] == [".best.pt.l.tmp"]
    assert (tmp_path / ".x.pt.y.tmp").is_dir() and target.read_text() == "kept"


def test_the_digest_tells_a_tuple_from_a_list():
    """Adam's betas are a tuple: a file with them as a list is another file."""
    assert checkpoint.digest({"a": [1, 2]}) != checkpoint.digest({"a": (1, 2)})


def test_a_sparse_tensor_is_one_error(ckpt):
    d = copy.deepcopy(ckpt)
    k = next(iter(d["model"]))
    d["model"][k] = d["model"][k].to_sparse()
    refused(d, f"tensor 'model.{k}' is a torch.sparse_coo tensor on cpu, not one of plain values")


# ---- training/saved_state.py: what a resume checks, pinned by a mutation review (2026-12-05)
def test_the_algorithm_states_checks_name_the_first_part_that_does_not_fit():
    """Each line failed on a change the suite let through: a PPO file from before tails were
    carried resumes; an array of other dimensions, and a scalar's kind, are named; a key only the
    file has is not read (a scalar there crashed the carry's length check); a list's place is
    named [i]."""
    from training import saved_state as ss
    z = torch.zeros
    assert ss.misshapen({"opponent": z(4)}, {"opponent": z(4), "tail": {"on": z(4, dtype=torch.bool)}},
                        "algo_state") is None
    assert ss.misshapen({"x": z(16)}, {"x": z(16, 3)}, "algo_state") == \
        "algo_state.x (float32, 16; a fresh run's float32, 16 x 3)"
    assert ss.misshapen({"x": z(())}, {"x": z((), dtype=torch.int64)}, "algo_state") == \
        "algo_state.x (float32, a scalar; a fresh run's int64, a scalar)"
    assert ss.misshapen({"obs": z(4, 2), "extra": torch.tensor(1.0)}, {"obs": z(4, 2)}, "algo_state.carry") is None
    assert ss.lacking({"param_groups": [{"lr": 1}]}, {"param_groups": [{"lr": 1, "params": []}]}, "params",
                      "optimizer") == "optimizer.param_groups[0].params"
    # a tail's cards may be of any width, but one row a game (a second review: any count went)
    i64 = torch.int64
    assert ss.misshapen({"tail": {"cards": z(16, 3, dtype=i64)}}, {"tail": {"cards": z(16, 5, dtype=i64)}},
                        "algo_state") is None
    assert ss.misshapen({"tail": {"cards": z(15, 3, dtype=i64)}}, {"tail": {"cards": z(16, 5, dtype=i64)}},
                        "algo_state") == "algo_state.tail.cards (int64, 15 x 3; a fresh run's int64, 16 x any)"


def test_the_optimizers_checks_name_a_parameter_past_the_last_a_steps_dtype_and_a_settings_type():
    from training import saved_state as ss
    m = torch.nn.Linear(2, 3)
    fresh = torch.optim.Adam(m.parameters(), lr=5e-4).state_dict()

    def checked(state, **group):
        saved = {"state": state, "param_groups": [dict(fresh["param_groups"][0], **group)]}
        o = torch.optim.Adam(m.parameters(), lr=5e-4)
        o.load_state_dict(saved)
        return ss.misshapen_optimizer(o, m, fresh, saved)

    def good(p):
        return {"step": torch.tensor(1.0), "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}
    w, b = m.parameters()
    assert checked({0: good(w), 1: good(b)}) is None
    assert checked({0: good(w), 2: good(b)}) == "optimizer state names parameter 2 of 2"
    assert checked({0: dict(good(w), step=torch.tensor(3))}) == \
        "optimizer.state[0].step (int64; its parameter is float32)"
    assert checked({}, amsgrad=0) == "optimizer.param_groups[0].amsgrad (0; a fresh run's False)"
    # a moment of its parameter's size in another shape, and a second moment of another dtype
    # (which torch would cast without a word; a second review: both went through)
    assert checked({0: dict(good(w), exp_avg=torch.zeros(2, 3))}) == \
        "optimizer.state[0].exp_avg (float32, 2 x 3; its parameter is 3 x 2)"
    assert checked({0: good(w), 1: dict(good(b), exp_avg_sq=torch.zeros(3, dtype=torch.float64))}) == \
        "optimizer.state[1].exp_avg_sq (float64; its parameter is float32)"


def test_a_ppo_states_opponents_and_tails_are_checked_game_by_game():
    """The first game that does not fit is named, with the field: a negative opponent, an index
    equal to its count, a card below 0 (each let through by a change a mutation review made)."""
    from types import SimpleNamespace
    from training import saved_state as ss

    def misfit(opponent, count=3, idx=0, card=5):
        B = len(opponent)
        tail = {"on": np.arange(B) == 0, "count": np.full(B, count), "idx": np.full(B, idx),
                "cards": np.full((B, 8), card)}
        algo = SimpleNamespace(opponent=np.array(opponent), bots=SimpleNamespace(seat=np.full(B, -1)),
                               pool=[{}, {}], env=SimpleNamespace(legal_card=np.zeros((B, 8))), tail=tail)
        return ss.ppo_misfit(algo)
    assert misfit([0, 1, 2, 0]) is None
    for opponent, game, v in (([0, 5, 0, 7], 1, 5), ([0, -2, 0, 0], 1, -2)):
        assert misfit(opponent) == \
            f"algo_state.opponent of game {game}: its opponent is {v}: 0 (the policy) or a pool snapshot 1..2"
    assert misfit([0] * 4, count=8, idx=7) is None        # a tail as wide as the moves' slots
    for kw, key, want in ((dict(count=0), "count", "1..8"), (dict(count=9), "count", "1..8"),
                          (dict(idx=3), "idx", "below its count"),
                          (dict(card=-1), "cards", "cards 0..39")):
        assert misfit([0] * 4, **kw) == f"algo_state.tail.{key} of game 0 is out of range (it must be {want})"


# ---- training/loop.py's lines, schedules and limits, pinned by a mutation review (2026-12-05)
def test_the_time_limit_is_reached_at_exactly_max_minutes(tmp_path, monkeypatch):
    """7.5 s an iteration and --max-minutes 0.125 (7.5 s): the first iteration reaches the limit
    (a strict comparison trained one more)."""
    run = _clocked(monkeypatch, Run(cfg(tmp_path, run_name="t", max_minutes=0.125), log=lambda *_: None), 7.5)
    run.train()
    assert run.counters["steps"] == 512


def test_nothing_to_train_names_the_limit_and_its_value(tmp_path):
    """A resume at or past its end says which limit, with that limit's own value: --stop-at's
    (not total_steps'), and a run exactly at total_steps is past it too."""
    said = []
    c = cfg(tmp_path, run_name="n")
    Run(c, log=lambda *_: None).train(stop_at=1024)
    start(c, resume=str(tmp_path / "ck" / "n"), log=said.append).train(stop_at=512)
    assert "nothing to train: the run is at 1,024 steps, --stop-at is 512" in said, said
    said.clear()
    done = cfg(tmp_path, run_name="d", total_steps=1024)
    Run(done, log=lambda *_: None).train()
    start(done, resume=str(tmp_path / "ck" / "d"), log=said.append).train()
    assert "nothing to train: the run is at 1,024 steps, total_steps is 1,024" in said, said


def test_the_first_line_and_the_final_tables_title_give_the_steps_and_whole_seconds(tmp_path):
    """The first line gives the budget with thousands separators; the final table's title the
    steps trained (the last iteration overshoots 1,000: 1,024, the step its final/ scalars are
    at) and its time in whole seconds."""
    said = []
    Run(cfg(tmp_path, run_name="o", total_steps=1000, final_matches=2, final_opponents=("random",)),
        log=said.append).train()
    # the two folders each in its place (a review: swapped, they passed)
    assert f"run o: dmc, 1,000 steps, logs in {tmp_path / 'runs' / 'o'}, checkpoints in {tmp_path / 'ck' / 'o'}" in said, said
    title = next(s for s in said if s.startswith("Final evaluation")).splitlines()[0]
    assert re.fullmatch(r"Final evaluation of o \(1,024 steps; duplicate deals, \d+ s\):", title), title


def test_on_a_terminal_the_given_log_gets_every_line_and_a_shorter_budget_shows_full(tmp_path, monkeypatch, capsys):
    """With a progress bar on stderr, lines go to the run's log function as given (only print
    is routed around the bar); a resume with a smaller total_steps than its steps shows a full
    bar of the new budget."""
    import sys
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    said = []
    c = cfg(tmp_path, run_name="b", total_steps=1024, eval_every=512, eval_matches=2, eval_opponents=("random",))
    Run(c, log=said.append).train()
    assert [s.split("]")[0] for s in said if s.startswith("[eval @")] == ["[eval @ 512 steps", "[eval @ 1,024 steps"]
    capsys.readouterr()
    start(c, resume=str(tmp_path / "ck" / "b"), overrides={"total_steps": 512}, log=lambda *_: None).train()
    bars = [b for b in capsys.readouterr().err.split("\r") if b.strip()]
    assert bars and all(b.startswith("100%|") and "512/512" in b for b in bars), bars


def test_match_counts_are_said_rounded_only_where_they_are_played(tmp_path):
    """'eval_matches N is played as M' only when evaluations run, with M the multiple of the
    sides (3 players: 4 is played as 6)."""
    said = []
    Run(cfg(tmp_path, run_name="e", total_steps=512, eval_matches=5), log=said.append).train()
    assert not any("is played as" in s for s in said), said
    said.clear()
    Run(cfg(tmp_path, run_name="three", total_steps=512, rules="three-players", eval_every=512, eval_matches=4,
            eval_opponents=("random",)), log=said.append).train()
    assert any(s.startswith("eval_matches 4 is played as 6 (a multiple of the 3 sides") for s in said), said


def test_the_evaluation_table_shows_tenths_of_a_percent_and_thousandths_of_a_point():
    from training.evaluation import format_table
    row = format_table({"random": dict(matches=2, hands=10, win_rate=0.25, win_ci=(0.05, 0.70),
                                       points_per_hand=0.5, points_ci=(0.25, 0.75))}, "T").splitlines()[2]
    assert row.split() == ["random", "2", "10", "25.0%", "[5.0%,", "70.0%]", "+0.500", "[+0.250,", "+0.750]"]


def test_no_periodic_checkpoints_is_a_next_checkpoint_of_0_new_or_resumed(tmp_path):
    """README: a run without periodic checkpoints keeps next_checkpoint 0, started so or resumed
    with checkpoint_every 0."""
    Run(cfg(tmp_path, run_name="z", total_steps=512), log=lambda *_: None).train()
    assert checkpoint.load(tmp_path / "ck" / "z" / "latest.pt")["counters"]["next_checkpoint"] == 0
    c = cfg(tmp_path, run_name="r", checkpoint_every=1024)
    Run(c, log=lambda *_: None).train(stop_at=512)
    resumed = start(c, resume=str(tmp_path / "ck" / "r"), overrides={"checkpoint_every": 0}, log=lambda *_: None)
    assert resumed.counters["next_checkpoint"] == 0


def test_evaluations_play_the_deals_of_the_runs_seed_offset_by_12345(tmp_path):
    """The evaluations' deals are offset_seed(seed, 12345): a run's figures (the README's
    default run) are the same in every version unless this changes on purpose."""
    from scopa_env.seeds import offset_seed
    from training.evaluation import evaluate_model
    run = Run(cfg(tmp_path, run_name="s", seed=1), log=lambda *_: None)
    assert run.evaluate(["random"], 4) == \
        evaluate_model(run.model, ["random"], 4, seed=offset_seed(1, 12345), rules=run.cfg.rules)


# ---- the training loop, pinned by a mutation review (2026-12-06) ----------------------------
def test_a_resumed_legs_time_limit_and_saved_times_count_the_earlier_legs(tmp_path, monkeypatch):
    """--max-minutes is this leg's time, and every file the leg writes holds the run's whole time:
    with the earlier legs' time dropped inside the loop, a leg allowed 3 s trained 8 s where it
    stops after its first iteration past 3 s (4 s), and a step file said 2 s where the run had
    trained 6 s."""
    c = cfg(tmp_path, run_name="ml", total_steps=4096, checkpoint_every=512)
    _clocked(monkeypatch, Run(c, log=lambda *_: None)).train(stop_at=1024)      # 2 iterations, 4 s
    run = _clocked(monkeypatch, start(c, resume=str(tmp_path / "ck" / "ml"),
                                      overrides={"max_minutes": 0.05}, log=lambda *_: None))
    run.train()
    assert run.counters["steps"] == 2048        # 4 s of this leg is past its 3 s
    saved = checkpoint.load(tmp_path / "ck" / "ml" / "step_0000001536.pt")["counters"]
    assert saved["elapsed_s"] == 6.0


def test_a_fine_tuning_run_resumes_before_its_first_update(tmp_path):
    """A run from init_from whose first leg made no update yet (an empty optimizer state) holds
    init_from's weights, not its seed's: it resumes, where a check against the seed's weights
    alone would refuse it as a file whose weights were trained without an optimizer."""
    Run(cfg(tmp_path, run_name="src"), log=lambda *_: None).train()
    c = cfg(tmp_path, run_name="ft", init_from=str(tmp_path / "ck" / "src" / "latest.pt"))
    Run(c, log=lambda *_: None).train(stop_at=512)
    saved = torch.load(tmp_path / "ck" / "ft" / "latest.pt", weights_only=True)
    assert not saved["optimizer"]["state"] and saved["counters"]["steps"] == 512
    assert start(c, resume=str(tmp_path / "ck" / "ft"), log=lambda *_: None).counters["steps"] == 512


def test_a_step_file_written_at_an_evaluation_holds_that_evaluations_best_score(tmp_path):
    """The evaluation due at a step runs before the step file is written: written first, the file
    held the best score before it, and a run resumed from it could let a worse score replace
    best.pt."""
    run = Run(cfg(tmp_path, run_name="o", eval_every=512, checkpoint_every=512, eval_matches=2,
                  eval_opponents=("random",)), log=lambda *_: None)
    scripted(run, [1.0, 2.0])
    run.train(stop_at=1024)
    assert checkpoint.load(tmp_path / "ck" / "o" / "step_0000001024.pt")["counters"]["best_score"] == 2.0


def test_periodic_evaluations_play_eval_matches_and_the_final_one_final_matches(tmp_path):
    run = Run(cfg(tmp_path, run_name="m", total_steps=1024, eval_every=512, eval_matches=2,
                  final_matches=4, eval_opponents=("random",), final_opponents=("random",)),
              log=lambda *_: None)
    played = []

    def evaluate(opponents, matches):
        played.append(matches)
        return {o: {"win_rate": 0.5, "points_per_hand": 0.0, "matches": matches, "hands": matches,
                    "win_ci": (0.0, 1.0), "points_ci": (-1.0, 1.0)} for o in opponents}
    run.evaluate = evaluate
    run.train()
    assert played == [2, 2, 4]


def test_a_tensor_that_repeats_its_values_is_refused_before_it_is_made_whole(ckpt):
    """torch reads a tensor whose strides repeat its stored values (expand): 168 KB of file
    made 500 million values, which the digest and the finiteness check made whole, 4 GB (a
    security review). Refused from its sizes, before anything reads it."""
    d = copy.deepcopy(ckpt)
    d["model"] = dict(d["model"], extra=torch.zeros(1).expand(10**12))
    refused(d, r"tensor 'model\.extra' repeats its stored values \(1,000,000,000,000 values from 4 "
               r"bytes\), not one of plain values$")


def test_a_compressed_checkpoint_is_refused_unread(ckpt, tmp_path):
    """torch.save stores its zip's entries as they are, and torch.load reads compressed ones
    too: a 1 MB file could unpack to 3 GB before any check (a security review). Such a file is
    refused before torch reads it; torch itself still reads it (what the refusal is for)."""
    import zipfile
    plain = checkpoint.save_atomic(copy.deepcopy(ckpt), tmp_path / "plain.pt")
    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as dst:
        for entry in src.infolist():
            dst.writestr(entry.filename, src.read(entry))
    assert torch.load(packed, weights_only=True)["format"] == ckpt["format"]
    with pytest.raises(ScopaError, match=r"packed.pt' is not a file torch.save writes \(its entry '.*' is "
                                         r"compressed\): refused unread, as a small file could unpack "
                                         r"to gigabytes$"):
        checkpoint.load(packed)
    assert checkpoint.load(plain)["format"] == ckpt["format"]
