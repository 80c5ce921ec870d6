"""BatchedScopa: agrees with the engine's Game move by move, is seeded, refuses illegal moves,
and its MAX_LEGAL bounds every reachable state."""
import itertools
import math
import re

import numpy as np
import pytest

from scopa_env import BatchedScopa, Game, Rules, ScopaError, core
from scopa_env.presets import rules_from_preset
from scopa_env.batched import MAX_LEGAL


def _mirror(env, b):
    return Game.from_state(env.rules, env.states[b])


def _random_index(env, rng):
    return (rng.random(env.num_envs) * env.legal_count).astype(np.int64)


@pytest.mark.parametrize("rules,episode,reward,matches", [
    (Rules(), "match", "win", 800),
    (Rules(napola=True, target=16), "match", "points", 300),
    (Rules(napola=True), "hand", "points", 200),
])
def test_agrees_with_game(rules, episode, reward, matches):
    """Thousands of random matches: legal moves, observations, rewards, dones and scores equal
    those of a Game driven with the same moves."""
    B = 64
    env = BatchedScopa(B, rules=rules, seed=11, episode=episode, reward=reward)
    env.reset()
    games = [_mirror(env, b) for b in range(B)]
    rng = np.random.default_rng(5)
    finished = steps = 0
    while finished < matches:
        if steps % 7 == 0:  # full check of the sparse lists and observations every 7th step
            for b, g in enumerate(games):
                n = env.legal_count[b]
                assert env.to_move[b] == g.to_move
                assert np.array_equal(env.legal_ids[b, :n], g.legal_action_ids())
                assert np.all(env.legal_ids[b, n:] == -1)
                moves = g.legal_moves()
                assert [m.card for m in moves] == env.legal_card[b, :n].tolist()
                assert [m.captured for m in moves] == env.legal_captured[b, :n].tolist()
                assert np.array_equal(env.obs[b], g.observation(g.to_move)["observation"])
        actions = env.legal_ids[np.arange(B), _random_index(env, rng)]
        _, rewards, dones, info = env.step(actions)
        steps += 1
        assert np.all(rewards[:, 0] == -rewards[:, 1])
        for b, g in enumerate(games):
            res = g.play_action(actions[b])
            assert info["hand_over"][b] == res.hand_over
            assert info["match_over"][b] == res.match_over
            r = 0.0
            if res.hand_over:
                hs = g.hand_score()
                assert info["hand_points"][b].tolist() == [hs[0]["total"], hs[1]["total"]]
                if reward == "points":
                    r = hs[0]["total"] - hs[1]["total"]
            if res.match_over:
                assert info["winner"][b] == g.winner
                assert info["final_scores"][b].tolist() == g.scores
                if reward == "win":
                    r = 1.0 if g.winner == 0 else -1.0
            else:
                assert info["winner"][b] == -1
            assert rewards[b, 0] == r
            assert dones[b] == (res.match_over or (episode == "hand" and res.hand_over))
            if res.match_over:
                finished += 1
                new = _mirror(env, b)
                assert new.scores == [0, 0] and new.hand_no == 0 and not new.hand_over
                games[b] = new
            elif res.hand_over:
                g.next_hand()
                assert np.array_equal(g.state, env.states[b])
            else:
                assert np.array_equal(g.state, env.states[b])


def test_seeded_and_distinct():
    def run(seed):
        env = BatchedScopa(16, seed=seed, reward="points")
        out = [env.reset().copy()]
        rng = np.random.default_rng(0)
        for _ in range(300):
            obs, r, d, _ = env.step_index(_random_index(env, rng))
            out += [obs.copy(), r.copy(), d.copy()]
        return out

    a, b, c = run(3), run(3), run(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])
    # games inside one batch are different deals
    assert len({row.tobytes() for row in a[0]}) == 16
    # reset() without a seed starts the same games again: the last seed given's
    env = BatchedScopa(4, seed=9)
    first = env.reset().copy()
    env.step_index(np.zeros(4, dtype=np.int64))
    assert np.array_equal(env.reset(), first)
    other = env.reset(seed=10).copy()
    assert not np.array_equal(other, first) and np.array_equal(env.reset(), other)


def test_a_games_matches_do_not_depend_on_the_other_games():
    """Game b draws its new matches' seeds from its own generator: game 1, played alike in two
    batches whose game 0 plays otherwise, goes through the same matches (a mutation review: every
    game drawing from game 0's generator went unseen; matches to 1 point end every hand or two)."""
    x, y = (BatchedScopa(2, rules=Rules(target=1), seed=3) for _ in range(2))
    x.reset()
    y.reset()
    matches = 0
    for _ in range(600):
        assert np.array_equal(x.states[1], y.states[1])
        _, _, done, _ = x.step_index(np.array([0, 0]))
        y.step_index(np.array([y.legal_count[0] - 1, 0]))
        matches += int(done[1])
    assert matches >= 5


def test_illegal_actions_raise_and_change_nothing():
    env = BatchedScopa(8, seed=1)
    env.reset()
    states = env.states.copy()
    actions = env.legal_ids[:, 0].copy()
    bad = actions.copy()
    bad[5] = 16_199 if bad[5] != 16_199 else 0
    while bad[5] in env.legal_ids[5, :env.legal_count[5]]:
        bad[5] -= 1
    with pytest.raises(ScopaError, match=rf"game 5: action {bad[5]} is not legal"):
        env.step(bad)
    with pytest.raises(ScopaError, match="game 2: legal-move index"):
        idx = np.zeros(8, dtype=np.int64)
        idx[2] = env.legal_count[2]
        env.step_index(idx)
    with pytest.raises(ScopaError, match="game 0: legal-move index -1"):
        env.step_index(np.full(8, -1))
    with pytest.raises(ScopaError, match="integer array of shape"):
        env.step(actions[:4])
    with pytest.raises(ScopaError, match="integer array of shape"):
        env.step(actions.astype(float))
    huge = actions.astype(np.uint64)     # above 2**63 it wrapped, and the message said -1
    huge[3] = 2**64 - 1
    with pytest.raises(ScopaError, match=f"game 3: action {2**64 - 1} is not legal"):
        env.step(huge)
    assert np.array_equal(env.states, states)
    env.step(actions)  # still playable after the refusals
    with pytest.raises(ScopaError, match=r"^call reset\(\) before step\(\)$"):
        BatchedScopa(2).step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("kwargs,msg", [
    ({"num_envs": 0}, "^num_envs must be a whole number from 1 to 1,048,576, got 0$"),
    ({"num_envs": 2, "episode": "game"}, "^episode must be 'match' or 'hand', got 'game'$"),
    ({"num_envs": 2, "reward": "score"}, "^reward must be 'win' or 'points', got 'score'$"),
    ({"num_envs": 2, "episode": "hand", "reward": "win"}, "^reward='win' pays only when a match ends"),
    ({"num_envs": 2, "rules": {"napola": True}}, "^rules must be a Rules object or a preset name, got dict$"),
])
def test_bad_options(kwargs, msg):
    with pytest.raises(ScopaError, match=msg):
        BatchedScopa(**kwargs)


def test_napola_and_target_override_the_rules_as_in_the_other_envs():
    assert BatchedScopa(2, napola=True, target=21).rules == Rules(napola=True, target=21)
    assert BatchedScopa(2, rules="scopone", target=21).rules == rules_from_preset("scopone").replace(target=21)
    with pytest.raises(ScopaError, match=r"^rules option target must be a whole number 1\.\.100, got 0$"):
        BatchedScopa(2, target=0)


def test_dense_mask_and_fresh_arrays():
    env = BatchedScopa(32, seed=2)
    obs0 = env.reset()
    keep = obs0.copy()
    mask = env.action_masks()
    assert mask.shape == (32, env.n_actions) and mask.dtype == np.int8
    assert np.array_equal(mask.sum(axis=1), env.legal_count)
    for b in range(32):
        legal = np.sort(env.legal_ids[b, :env.legal_count[b]])
        assert np.array_equal(np.flatnonzero(mask[b]), legal)
    obs1, r1, d1, info1 = env.step_index(np.zeros(32, dtype=np.int64))
    assert np.array_equal(obs0, keep)  # the arrays handed out before are not overwritten
    assert obs1 is env.obs and obs1 is not obs0
    r_keep = r1.copy()
    env.step_index(np.zeros(32, dtype=np.int64))
    assert np.array_equal(r1, r_keep)
    assert env.obs.dtype == np.int8 and env.legal_ids.dtype == np.int64


def test_hand_episodes_continue_the_match():
    env = BatchedScopa(4, seed=3, episode="hand")
    env.reset()
    rng = np.random.default_rng(1)
    hands = 0
    scores_seen = False
    while hands < 12:
        obs, r, d, info = env.step_index(_random_index(env, rng))
        assert np.array_equal(d, info["hand_over"])
        hp = info["hand_points"]
        assert np.array_equal(r[:, 0], (hp[:, 0] - hp[:, 1]).astype(np.float32))
        hands += int(d.sum())
        scores_seen |= bool(np.any(env.states[:, 10] > 0))  # core.HAND_NO: a later hand
    assert scores_seen


def _max_legal_bound() -> int:
    """Most legal moves over an over-approximation of every reachable table (module docstring)."""
    def sums(c):  # sum -> number of card subsets of the table (suits distinct), sums <= 10
        d = {0: 1}
        for r in range(1, 11):
            nd = {}
            for s, w in d.items():
                for k in range(c[r - 1] + 1):
                    if s + k * r > 10:
                        break
                    nd[s + k * r] = nd.get(s + k * r, 0) + w * math.comb(c[r - 1], k)
            d = nd
        return d

    def removals(c, v):  # rank multisets of the table summing to v
        out = []

        def rec(r, rem, cur):
            if rem == 0:
                out.append(tuple(cur))
            elif r <= 10 and r <= rem:
                for k in range(min(c[r - 1], rem // r) + 1):
                    cur[r - 1] = k
                    rec(r + 1, rem - k * r, cur)
                cur[r - 1] = 0
        rec(1, v, [0] * 10)
        return out

    starts = set()
    for combo in itertools.combinations_with_replacement(range(1, 11), 4):
        c = [combo.count(r) for r in range(1, 11)]
        if c[9] < 3:
            starts.add(tuple(c))
    seen, frontier = set(starts), list(starts)
    while frontier:
        nxt = []
        for c in frontier:
            ss = sums(c)
            for v in range(1, 11):
                if c[v - 1]:
                    outs = [tuple(x - (i == v - 1) for i, x in enumerate(c))]
                elif not ss.get(v, 0):
                    outs = [tuple(x + (i == v - 1) for i, x in enumerate(c))]
                else:
                    outs = [tuple(a - b for a, b in zip(c, rm, strict=True)) for rm in removals(c, v)]
                for d in outs:
                    if d not in seen:
                        seen.add(d)
                        nxt.append(d)
        frontier = nxt
    best = 0
    for c in seen:
        ss = sums(c)
        # moves of a hand card of rank v, and how many such cards can be in hand (not on table)
        per = sorted(((c[v - 1] or ss.get(v, 0) or 1), 4 - c[v - 1]) for v in range(1, 11))
        total, left = 0, 3
        for moves, avail in reversed(per):
            k = min(avail, left)
            total += k * moves
            left -= k
        best = max(best, total)
    return best


def test_max_legal_bounds_every_reachable_state():
    bound = _max_legal_bound()
    assert bound == 75
    assert bound <= MAX_LEGAL


def test_wide_position_widens_the_legal_arrays():
    """An (unreachable) table of 18 cards against three re: the kernel reports the overflow
    and the env widens its legal arrays instead of truncating; play goes on."""
    from scopa_env import batched

    g = Game().setup(hands=[["10D", "10C", "10S"], ["1B"]],
                     table=[f"{r}{s}" for r in range(1, 10) for s in "DC"], deck=[], dealer=1)
    env = BatchedScopa(2)
    env.reset()
    assert env.max_legal == MAX_LEGAL
    env._states[0] = g.state
    n = batched._refresh_one(env._states, 0, *env._kernel_args())
    assert n > MAX_LEGAL and env.legal_count[0] == n
    env._widen(1)
    assert env.max_legal >= n and env.max_legal in (160, 320, 640, 1024)  # doubled from 80
    assert env.legal_ids.shape == (2, env.max_legal)
    assert np.array_equal(env.legal_ids[0, :n], g.legal_action_ids())
    assert np.all(env.legal_ids[0, n:] == -1) and np.all(env.legal_ids[1, env.legal_count[1]:] == -1)
    assert np.array_equal(env.obs[0], g.observation(0)["observation"])
    g.play_action(env.legal_ids[0, n - 1])
    env.step_index(np.array([n - 1, 0]))
    assert np.array_equal(env.legal_ids[0, :env.legal_count[0]], g.legal_action_ids())


def test_widening_stops_at_the_first_doubling_that_holds_the_moves(monkeypatch):
    """The table above less its 1D: 156 moves, exactly twice a width of 78, which one doubling
    holds (a mutation review: a second doubling, to 312, went unseen; 273 moves, odd, cannot
    tell)."""
    from scopa_env import batched
    g = Game().setup(hands=[["10D", "10C", "10S"], ["1B"]],
                     table=[f"{r}{s}" for r in range(1, 10) for s in "DC"][1:], deck=[], dealer=1)
    assert len(g.legal_action_ids()) == 156
    monkeypatch.setattr(batched, "MAX_LEGAL", 78)
    env = BatchedScopa(2)
    env.reset()
    assert env.max_legal == 78
    env._states[0] = g.state
    batched._refresh_one(env._states, 0, *env._kernel_args())
    env._widen(1)
    assert env.max_legal == 156


def test_state_dict_resumes_bit_for_bit():
    env = BatchedScopa(8, seed=6, reward="points")
    env.reset()
    rng = np.random.default_rng(3)
    for _ in range(50):
        env.step_index(_random_index(env, rng))
    saved = env.state_dict()
    other = BatchedScopa(8, seed=0, reward="points")  # options are not state: same ones
    other.load_state_dict(saved)
    for _ in range(400):
        idx = _random_index(env, rng)
        a, b = env.step_index(idx), other.step_index(idx)
        assert all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3], strict=True))
    assert np.array_equal(env.states, other.states)
    # the seed is state too: reset() without one deals the saved env's games again (other was
    # built with seed 0; a restore that kept it passed the steps above; review)
    assert other.seed == env.seed == 6
    assert np.array_equal(env.reset(), other.reset())
    assert np.array_equal(env.states, other.states)
    with pytest.raises(ScopaError, match=r"^the saved state's 'rng' has shape \(8,\), this env needs \(4,\) "
                                         r"\(num_envs differs\?\)$"):
        BatchedScopa(4).load_state_dict(saved)
    # a state of another width is another engine layout, not another num_envs (an upgrades review)
    wide = {**saved, "states": np.zeros((8, saved["states"].shape[1] - 14), dtype=np.int64)}
    with pytest.raises(ScopaError, match=rf"^saved games have shape \(8, {core.STATE_SIZE - 14}\), this env "
                                         rf"has \(8, {core.STATE_SIZE}\): an engine state of "
                                         rf"{core.STATE_SIZE - 14} slots where this version's has "
                                         rf"{core.STATE_SIZE} \(another version's layout, or an "
                                         rf"edited file; training/env.py converts the 134- and "
                                         rf"156-slot states of older checkpoints\)$"):
        BatchedScopa(8).load_state_dict(wide)


def test_a_widened_state_loads_at_its_width_and_reset_narrows_it_again():
    """max_legal is the width of the legal arrays (module text): a state saved by a widened env
    loads at its width, and reset() gives a fresh env's arrays again (mutation testing,
    2026-12-05: neither was checked)."""
    env = BatchedScopa(2, seed=0)
    env.reset()
    saved = env.state_dict()
    fresh = env.max_legal
    for key, pad in (("legal_ids", -1), ("legal_card", -1), ("legal_captured", 0)):
        wide = np.full((2, 2 * fresh), pad, dtype=np.int64)
        wide[:, :fresh] = saved[key]
        saved[key] = wide
    other = BatchedScopa(2, seed=0)
    other.load_state_dict(saved)
    assert other.max_legal == other.legal_ids.shape[1] == 2 * fresh
    other.reset(seed=0)
    assert other.max_legal == other.legal_ids.shape[1] == fresh
    env.reset(seed=0)
    assert np.array_equal(other.legal_ids, env.legal_ids)


def test_a_state_dict_is_a_copy_that_later_steps_do_not_change():
    """"Copies of everything that determines the games from here on": loaded after the env it
    came from has played on past match ends (which draw new deals from the generator), it
    replays the same steps. A saved generator that was the env's own passed the test above,
    which loads at once (a mutation review)."""
    env = BatchedScopa(4, seed=6, reward="points", target=1)      # short matches
    env.reset()
    saved = env.state_dict()
    rng = np.random.default_rng(0)
    played, ended = [], 0
    while ended < 3:
        idx = _random_index(env, rng)
        out = env.step_index(idx)
        played.append((idx, out))
        ended += int(out[3]["match_over"].sum())
    other = BatchedScopa(4, seed=0, reward="points", target=1)
    other.load_state_dict(saved)
    for idx, out in played:
        again = other.step_index(idx)
        assert all(np.array_equal(x, y) for x, y in zip(out[:3], again[:3], strict=True))
    assert np.array_equal(env.states, other.states)


def test_widening_in_play_keeps_agreeing_with_game(monkeypatch):
    """Start the legal arrays 4 wide: positions with more moves widen them in the middle of a
    step, and every game still matches its mirror Game (ids, observations)."""
    from scopa_env import batched

    monkeypatch.setattr(batched, "MAX_LEGAL_QUINDICI", 4)
    env = BatchedScopa(8, rules=Rules(quindici="only"), seed=4, reward="points")
    env.reset()
    games = [_mirror(env, b) for b in range(8)]
    rng = np.random.default_rng(0)
    widths = {env.max_legal}
    for _ in range(300):
        idx = _random_index(env, rng)
        actions = env.legal_ids[np.arange(8), idx]
        env.step(actions)
        widths.add(env.max_legal)
        for b, g in enumerate(games):
            res = g.play_action(actions[b])
            if res.match_over:
                g = games[b] = _mirror(env, b)
            elif res.hand_over:
                g.next_hand()
            n = env.legal_count[b]
            assert np.array_equal(env.legal_ids[b, :n], g.legal_action_ids())
            assert np.all(env.legal_ids[b, n:] == -1)
            assert np.array_equal(env.obs[b], g.observation(g.to_move)["observation"])
    assert len(widths) >= 3 and env.legal_ids.shape[1] == env.max_legal


def test_load_state_dict_refuses_games_of_other_rules():
    """A quindici env's saved games loaded into a classic env (same observation size): its
    action ids (up to 100,647) overran the classic masks and the games kept the quindici rules."""
    from scopa_env import BatchedScopa, ScopaError
    q = BatchedScopa(8, rules="quindici", seed=0)
    q.reset()
    c = BatchedScopa(8, seed=0)
    c.reset()
    before = c.state_dict()
    with pytest.raises(ScopaError, match="saved game 0 was played under other rules"):
        c.load_state_dict(q.state_dict())
    after = c.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)
    napola = BatchedScopa(8, napola=True, seed=0)
    napola.reset()
    with pytest.raises(ScopaError, match=r"^saved game 0 was played under other rules than this env's \(classic\)$"):
        c.load_state_dict(napola.state_dict())
    c.load_state_dict(before)                  # its own saved games still load


def test_load_state_dict_refuses_what_state_dict_does_not_return():
    """A malformed dict was a raw KeyError, TypeError or ValueError (review): one ScopaError
    naming the key, and nothing of the env changed."""
    from scopa_env import BatchedScopa, ScopaError
    e = BatchedScopa(4, seed=1)
    e.reset()
    good = e.state_dict()
    for bad, words in (({}, "the saved state lacks 'seed', 'states', 'rng'"),
                       (None, "load_state_dict needs the dict state_dict() returns, got NoneType"),
                       ({k: v for k, v in good.items() if k != "rng"}, "the saved state lacks 'rng':"),
                       (dict(good, seed="x"), "the saved state's seed must be a whole number"),
                       (dict(good, rng=None), "the saved state's 'rng' must be an integer array, got NoneType"),
                       (dict(good, states=good["states"].astype(float)),
                        "the saved state's 'states' must be an integer array, got float64 array"),
                       (dict(good, to_move=good["to_move"][:2]),
                        "the saved state's 'to_move' has shape (2,), this env needs (4,) (num_envs differs?)"),
                       (dict(good, legal_card=good["legal_card"][:, :1]), "the saved state's 'legal_card' has shape (4, 1)"),
                       # one generator spread over the games, or a raw numpy error (a mutation review)
                       (dict(good, rng=good["rng"][:1]),
                        "the saved state's 'rng' has shape (1,), this env needs (4,) (num_envs differs?)"),
                       (dict(good, rng=good["rng"][:2]), "the saved state's 'rng' has shape (2,)")):
        with pytest.raises(ScopaError, match="^" + re.escape(words)):
            e.load_state_dict(bad)
        assert all(np.array_equal(good[k], v) for k, v in e.state_dict().items())
    # torch tensors (as training stores them) and lists load (a first version refused them; review)
    import torch
    for convert in (torch.from_numpy, np.ndarray.tolist):
        f = BatchedScopa(4, seed=1)
        f.reset()
        f.step_index(np.zeros(4, dtype=np.int64))     # moved on: the load brings it back
        f.load_state_dict({k: convert(v) if isinstance(v, np.ndarray) else v for k, v in good.items()})
        assert all(np.array_equal(good[k], v) for k, v in f.state_dict().items())


def test_load_state_dict_refuses_games_changed_by_hand():
    """The games' slots were trusted beyond their rules: an edited checkpoint (checksum made
    again) trained on with a card 999 in a hand or a move id of 10**9 (review). A game that is
    not one, or saved moves and observations that are not its own: one ScopaError, nothing
    changed."""
    from scopa_env import BatchedScopa, ScopaError, core
    e = BatchedScopa(4, seed=1)
    e.reset()
    good = e.state_dict()
    card = good["states"].copy()
    card[2, core.HANDS] |= np.int64(1) << 45        # a card 45: no such card
    ids = good["legal_ids"].copy()
    ids[1, 0] = 10**9
    obs = good["obs"].copy()
    obs[3, 0] ^= 1
    moved = good["to_move"].copy()
    moved[0] = 1 - moved[0]
    for bad, words in ((dict(good, states=card), "saved game 2 is not a game of these rules: "),
                       (dict(good, legal_ids=ids), "saved game 1's legal_ids is not what its state gives"),
                       (dict(good, obs=obs), "saved game 3's obs is not what its state gives"),
                       (dict(good, to_move=moved), "saved game 0's to_move is not what its state gives")):
        with pytest.raises(ScopaError, match="^" + re.escape(words)):
            e.load_state_dict(bad)
        assert all(np.array_equal(good[k], v) for k, v in e.state_dict().items())
    e.step_index(np.zeros(4, dtype=np.int64))
    e.load_state_dict(good)
    assert all(np.array_equal(good[k], v) for k, v in e.state_dict().items())


def test_state_dict_before_reset_is_refused():
    """state_dict() before reset() saved uninitialised observations; loaded, every step was 'not
    legal'."""
    from scopa_env import BatchedScopa, ScopaError
    with pytest.raises(ScopaError, match=r"call reset\(\) before state_dict\(\)"):
        BatchedScopa(4, seed=0).state_dict()


def test_before_reset_no_seat_moves_and_masks_are_refused():
    """Before reset() obs and to_move showed uninitialised memory (negative observation values,
    to_move 94201576738674) and action_masks() all zeros (review)."""
    env = BatchedScopa(3, seed=0)
    assert not env.obs.any() and (env.to_move == -1).all()
    with pytest.raises(ScopaError, match=r"call reset\(\) before action_masks\(\)"):
        env.action_masks()
    env.reset()
    assert (env.action_masks().sum(axis=1) > 0).all()


def test_batched_info_mover_is_the_seat_that_moved():
    """batched.py: info "mover" (B,): the seat that made this step's move in each game, not the
    next to move (mutation testing: no test read it)."""
    env = BatchedScopa(8, seed=1, reward="points")
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        before = env.to_move.copy()
        idx = (rng.random(8) * env.legal_count).astype(np.int64)
        _, _, _, info = env.step_index(idx)
        assert np.array_equal(info["mover"], before)


def test_ragged_actions_and_huge_batches_are_refused():
    """Found by fuzzing (review): a ragged list of actions was numpy's ValueError, and
    BatchedScopa(2**70) numpy's 'maximum allowed dimension exceeded'."""
    env = BatchedScopa(2)
    env.reset(seed=0)
    for step in (env.step, env.step_index):
        with pytest.raises(ScopaError, match=r"step needs an integer array of shape \(2,\), got list"):
            step([[1], [1, 2]])
    for n in (2**70, 2**20 + 1):
        with pytest.raises(ScopaError, match=r"num_envs must be a whole number from 1 to 1,048,576, got"):
            BatchedScopa(n)


def test_saved_states_a_batch_never_reaches_are_refused():
    """Found by fuzzing call sequences (review): legal arrays narrower than a game's moves passed
    the check (its refresh wrote only the count) and a step played card -1 (action_masks()
    was a bus error); a game resting at a hand's end jammed every step of the batch."""
    b = BatchedScopa(1, seed=0)
    b.reset()
    d = b.state_dict()
    d["obs"][:] = 0
    d["to_move"][:] = 0
    for width in (1, 2):            # 2: one slot short (a mutation review: let through)
        for key, pad in (("legal_ids", -1), ("legal_card", -1), ("legal_captured", 0)):
            d[key] = np.full((1, width), pad)
        with pytest.raises(ScopaError, match=rf"saved game 0 has 3 legal moves, its saved legal arrays hold {width}"):
            BatchedScopa(1, seed=0).load_state_dict(d)
    g = Game("classic", seed=1)
    while not g.hand_over:
        g.play_action(int(g.legal_action_ids()[0]))
    d = b.state_dict()
    d["states"][0] = g.state
    with pytest.raises(ScopaError, match=r"saved game 0 is at the end of a hand, where a batched game never rests"):
        BatchedScopa(1, seed=0).load_state_dict(d)
