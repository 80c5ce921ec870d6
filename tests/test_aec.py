"""The PettingZoo AEC env scopa_v0: PettingZoo's own API and seed tests, agreement with the
engine, hidden information, illegal moves, render and pickling."""
import pickle
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import render_test, seed_test

import scopa_env
from scopa_env import Game, Rules, ScopaError, core
from scopa_env.aec import AGENTS, env as make_env, raw_env
from scopa_env.cards import card_str, cards_of
from strict_checks import api_test_strictly


def _random_action(obs, rng):
    legal = np.flatnonzero(obs["action_mask"].astype(bool))
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("options", [{}, {"napola": True, "episode": "hand"},
                                     {"reward": "points", "target": 16}])
def test_pettingzoo_api_test(options):
    api_test_strictly(make_env(**options), num_cycles=300)
    api_test_strictly(raw_env(**options), num_cycles=100)


def test_pettingzoo_seed_test():
    seed_test(make_env, num_cycles=300)
    seed_test(lambda: make_env(episode="hand", napola=True), num_cycles=300)


def test_found_by_registry_and_import():
    e = pettingzoo.make("aec", "scopa_v0", napola=True)
    assert e.metadata["name"] == "scopa_v0" and e.unwrapped.rules == Rules(napola=True)
    assert scopa_env.env().metadata["name"] == "scopa_v0"
    assert isinstance(scopa_env.raw_env(), pettingzoo.AECEnv)
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1"]
    assert e.action_space("player_0").n == 16_200
    obs = e.observe("player_0")
    assert obs["observation"].dtype == np.int8 and obs["action_mask"].dtype == np.int8
    # registered once: the guard looked for "scopa_v0", PettingZoo stores "scopa-v0", and a
    # second load of the module warned "Overriding environment 'scopa-v0'"
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-W", "error", "-c", "import importlib, scopa_env.aec; "
                        "importlib.reload(scopa_env.aec)"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("episode,reward", [("match", "win"), ("match", "points"),
                                            ("hand", "points")])
def test_random_matches_agree_with_game(episode, reward):
    """Random matches through the raw env, mirrored by a Game driven with the same actions."""
    e = raw_env(napola=True, episode=episode, reward=reward)
    rng = np.random.default_rng(0)
    episodes = 300 if episode == "match" else 400
    for ep in range(episodes):
        e.reset(seed=ep if episode == "match" or ep % 20 == 0 else None)
        g = e.game.copy()
        done = False
        while not done:
            agent = e.agent_selection
            p = AGENTS.index(agent)
            assert p == g.to_move
            obs = e.observe(agent)
            ref = g.observation(p)
            assert np.array_equal(obs["observation"], ref["observation"])
            assert np.array_equal(obs["action_mask"], ref["action_mask"])
            assert not e.observe(AGENTS[1 - p])["action_mask"].any()
            a = _random_action(obs, rng)
            e.step(a)
            res = g.play_action(a)
            want = [0.0, 0.0]
            if res.hand_over:
                hs = g.hand_score()
                assert e.infos[agent]["hand_score"] == hs
                if reward == "points":
                    d = hs[0]["total"] - hs[1]["total"]
                    want = [d, -d]
            if res.match_over:
                assert e.infos[agent]["winner"] == AGENTS[g.winner]
                if reward == "win":
                    want = [1.0, -1.0] if g.winner == 0 else [-1.0, 1.0]
            assert [e.rewards[x] for x in AGENTS] == want
            done = res.match_over or (episode == "hand" and res.hand_over)
            assert all(e.terminations[x] == done for x in AGENTS)
            if res.hand_over and not done:
                g.next_hand()
            assert np.array_equal(e.game.state, g.state)
        assert g.scores == e.game.scores


def test_hand_episodes_continue_the_match():
    e = raw_env(episode="hand")
    e.reset(seed=3)
    rng = np.random.default_rng(1)
    totals = [0, 0]
    for hand in range(3):
        if hand:
            e.reset()
        assert e.game.hand_no == hand and e.game.scores == totals
        while not e.terminations["player_0"]:
            e.step(_random_action(e.observe(e.agent_selection), rng))
        totals = e.game.scores
    e.reset(seed=3)
    assert e.game.hand_no == 0 and e.game.scores == [0, 0]


def test_resets_without_a_seed_draw_from_the_seeded_generator():
    """After reset(seed=s), later resets without a seed draw their games from the generator s
    made (the module's text says so), so a seeded run of several matches replays (a mutation
    review: resets that reseeded from the system each time went unseen)."""
    def games(seed):
        e, out = raw_env(), []
        e.reset(seed=seed)
        for _ in range(3):
            e.reset()
            out.append(e.game.state.copy())
        return out
    a, b, c = games(3), games(3), games(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[0], c[0])


def test_np_random_is_public_as_gymnasiums():
    """The dealing generator is `np_random` (and `np_random_seed`), as Gymnasium's and
    Scopa-v0's; it was private alone (an interop review). Seeded by reset(seed=...), read through
    the wrappers, and a generator set by hand deals the next reset without a seed."""
    import scopa_env
    e = scopa_env.env()
    e.reset(seed=3)
    assert e.np_random_seed == 3 and e.np_random is e.unwrapped._np_random
    drawn = e.np_random.integers(2**62)
    assert drawn == np.random.default_rng(3).integers(2**62, size=2)[1]   # the first dealt match 0
    dealt = []
    for make in (raw_env, scopa_env.env):   # set through the wrappers too: it set the outer one's
        r = make()
        r.np_random = np.random.default_rng(5)
        assert r.np_random_seed == -1 and r.np_random is r.unwrapped._np_random
        r.reset()
        dealt.append(r.unwrapped.game.state.copy())
    assert np.array_equal(*dealt)
    assert raw_env().np_random_seed >= 0        # read before any reset: made from fresh entropy


def test_hidden_cards_do_not_change_the_observation():
    """States differing only in the opponent's hand and the deck order look the same to the
    player; the opponent, who sees its own hand, does tell them apart."""
    rng = np.random.default_rng(7)
    e = raw_env()
    checked = 0
    for seed in range(40):
        e.reset(seed=seed)
        for _ in range(rng.integers(0, 30)):
            if e.terminations["player_0"]:
                break
            e.step(_random_action(e.observe(e.agent_selection), rng))
        if e.terminations["player_0"]:
            continue
        p = e.game.to_move
        st = e.game.state
        opp_hand = cards_of(st[core.HANDS + 1 - p])
        pos = int(st[core.DECK_POS])
        hidden = opp_hand + [int(c) for c in st[core.DECK + pos:core.DECK + 40]]
        if len(hidden) < 2:
            continue
        before = {a: e.observe(a) for a in AGENTS}
        perm = list(rng.permutation(hidden))
        while perm == hidden:
            perm = list(rng.permutation(hidden))
        other = Game.from_state(e.rules, st)
        other.state[core.HANDS + 1 - p] = sum(1 << c for c in perm[:len(opp_hand)])
        other.state[core.DECK + pos:core.DECK + 40] = perm[len(opp_hand):]
        e.game = other
        after = {a: e.observe(a) for a in AGENTS}
        mover = AGENTS[p]
        assert np.array_equal(before[mover]["observation"], after[mover]["observation"])
        assert np.array_equal(before[mover]["action_mask"], after[mover]["action_mask"])
        if set(perm[:len(opp_hand)]) != set(opp_hand):
            opp = AGENTS[1 - p]
            assert not np.array_equal(before[opp]["observation"], after[opp]["observation"])
        checked += 1
    assert checked >= 20

    # the same with a position set up by hand: the opponent holds other cards, the deck differs
    a = Game().setup(hands=[["1D", "5S", "7B"], ["2C", "3C", "4C"]], table=["5B", "6S"],
                     deck=["8D", "9D", "10D"], dealer=1)
    b = Game().setup(hands=[["1D", "5S", "7B"], ["10D", "8D", "4C"]], table=["5B", "6S"],
                     deck=["3C", "2C", "9D"], dealer=1)
    assert np.array_equal(a.observation(0)["observation"], b.observation(0)["observation"])
    assert np.array_equal(a.observation(0)["action_mask"], b.observation(0)["action_mask"])


def test_illegal_action_raw_env_raises():
    e = raw_env()
    e.reset(seed=0)
    legal = set(e.game.legal_action_ids().tolist())
    bad = next(a for a in range(16_200) if a not in legal)
    state = e.game.state.copy()
    with pytest.raises(ScopaError, match=rf"illegal move by {e.agent_selection}: action {bad} "):
        e.step(bad)
    with pytest.raises(ScopaError, match=rf"^illegal move by {e.agent_selection}: action 16200 \(outside 0\.\.16199\) "
                                         r"is not legal now \(legal: 379 7D; 4050 1C; 12341 6B x 6C\)$"):
        e.step(16_200)
    for not_an_id in ("7D", float(min(legal)) + 0.5, True, [min(legal), 0]):
        # never truncated to a move
        with pytest.raises(ScopaError, match=rf"^{e.agent_selection}: an action is an integer id, "
                                             rf"got {re.escape(repr(not_an_id))}$"):
            e.step(not_an_id)
    assert np.array_equal(e.game.state, state)


def test_illegal_action_wrapped_env_terminates_with_reason():
    e = make_env()
    e.reset(seed=0)
    offender = e.agent_selection
    other = AGENTS[1 - AGENTS.index(offender)]
    legal = set(e.unwrapped.game.legal_action_ids().tolist())
    bad = next(a for a in range(16_200) if a not in legal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(bad)
    assert all(e.terminations.values())
    assert all(e.truncations.values())      # PettingZoo's wrapper sets both (README says so)
    assert e._cumulative_rewards[offender] == -1 and e._cumulative_rewards[other] == 0
    msg = e.infos[offender]["illegal_move"]
    assert f"action {bad}" in msg and "legal:" in msg
    obs, reward, term, _, info = e.last()
    assert term and "illegal_move" in e.infos[offender]
    # the game itself is still at the offender's turn: an ended episode shows no legal move
    # (a mutation review: only the liveness check keeps the game's mask out)
    assert not obs["action_mask"].any()
    assert not any(e.observe(a)["action_mask"].any() for a in e.agents)
    for big in (16_200, 10**30):  # outside the action space: PettingZoo's assertion
        f = make_env()
        f.reset(seed=0)
        with pytest.raises(AssertionError, match="action is not in action space"):
            f.step(big)          # 10**30 was a ScopaError calling it "not an integer"
    r = raw_env()
    r.reset(seed=0)
    with pytest.raises(ScopaError, match=r"action 10{30} \(outside 0..16199\) is not legal"):
        r.step(10**30)


def test_wrapped_env_reads_actions_as_every_adapter_does():
    """A bool, a float or a string is one ScopaError (True once reached PettingZoo's illegal-move
    wrapper, which failed on it with a numpy ValueError); a one-element integer array is a move,
    as in raw_env, Scopa-v0 and Game."""
    e = make_env()
    e.reset(seed=0)
    for bad in (True, 1.5, "3", np.array([1.0]), None):    # None: only from an agent that is done
        with pytest.raises(ScopaError, match="an action is an integer id"):
            e.step(bad)
    assert not any(e.terminations.values())
    first = e.agent_selection
    legal = np.flatnonzero(e.observe(first)["action_mask"])
    e.step(np.array([legal[0]]))
    assert e.agent_selection != first and not any(e.terminations.values())


def test_render_shows_only_the_viewers_hand(capsys):
    e = make_env(render_mode="ansi")
    e.reset(seed=4)
    g = e.unwrapped.game
    p = g.to_move
    text = e.render()
    words = set(text.replace(",", " ").split())
    assert f"To move: {AGENTS[p]}" in text and "Scores: player_0 0, player_1 0" in text
    assert {card_str(c) for c in g.table} <= words
    assert {card_str(c) for c in g.hand(p)} <= words
    assert not {card_str(c) for c in g.hand(1 - p)} & words
    fixed = make_env(render_mode="ansi", render_player=1 - p)
    fixed.reset(seed=4)
    words = set(fixed.render().replace(",", " ").split())
    assert {card_str(c) for c in g.hand(1 - p)} <= words
    assert not {card_str(c) for c in g.hand(p)} & words
    human = make_env(render_mode="human")
    capsys.readouterr()
    human.reset(seed=4)
    # the text as "ansi" returns it, and a blank line after it (mutation-testing review)
    ansi = make_env(render_mode="ansi")
    ansi.reset(seed=4)
    assert capsys.readouterr().out == ansi.render() + "\n"
    human.step(int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0]))
    assert "Table:" in capsys.readouterr().out
    with pytest.raises(ScopaError, match=r"^render_mode must be one of \['human', 'ansi'\] or None, got 'rgb_array'$"):
        raw_env(render_mode="rgb_array")
    r = raw_env()
    r.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert r.render() is None
    render_test(make_env, custom_tests={"ansi": lambda text: "Table:" in text})


def test_pickle_mid_game_continues_identically():
    rng = np.random.default_rng(2)
    e = make_env(reward="points")
    e.reset(seed=5)
    for _ in range(25):
        e.step(_random_action(e.observe(e.agent_selection), rng))
    f = pickle.loads(pickle.dumps(e))
    for _ in range(60):
        if e.terminations["player_0"]:
            break
        assert e.agent_selection == f.agent_selection
        oe, of = e.observe(e.agent_selection), f.observe(f.agent_selection)
        assert np.array_equal(oe["observation"], of["observation"])
        assert np.array_equal(oe["action_mask"], of["action_mask"])
        a = _random_action(oe, rng)
        e.step(a)
        f.step(a)
        assert e.rewards == f.rewards
    assert np.array_equal(e.unwrapped.game.state, f.unwrapped.game.state)


@pytest.mark.parametrize("options,msg", [
    ({"target": 0}, r"^rules option target must be a whole number 1\.\.100, got 0$"),
    ({"napola": "yes"}, r"^rules option napola must be true or false, got 'yes'$"),
    ({"episode": "game"}, r"^episode must be 'match' or 'hand', got 'game'$"),
    ({"reward": "score"}, r"^reward must be 'win' or 'points', got 'score'$"),
    ({"episode": "hand", "reward": "win"},
     r"^reward='win' pays only when a match ends: with episode='hand' use reward='points'$"),
    ({"render_player": 2}, r"^render_player must be a seat 0\.\.1 or None, got 2$"),
])
def test_bad_options(options, msg):
    with pytest.raises(ScopaError, match=msg):
        raw_env(**options)


@pytest.mark.parametrize("rules", [None, "pairs"])
def test_hand_end_scores_are_the_match_totals_and_the_winner_names_the_winning_side(rules):
    """Docstring: "scores" (match totals per side), and at the match's end "winner", the winning
    agent's name or with pairs the tuple of the pair's names. A mutation review gave the hand's
    totals as "scores" (the same in a match's first hand, the only one a test read) and only
    the first name of a pair, and no test failed."""
    e = raw_env(rules=rules, target=11)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = np.zeros(2, dtype=int)
    hands, last = 0, None
    while not all(e.terminations.values()):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        info = e.infos[e.possible_agents[0]]
        if "hand_score" in info and info["hand_score"] is not last:      # a hand just ended
            last = info["hand_score"]
            totals += [line["total"] for line in last]
            hands += 1
            assert list(info["scores"]) == list(totals) == list(e.game.scores)
    assert hands >= 2
    side = int(np.argmax(totals))
    names = tuple(a for i, a in enumerate(e.possible_agents) if i % 2 == side)
    for a in e.possible_agents:
        assert e.infos[a]["winning_side"] == side
        assert e.infos[a]["winner"] == (names if rules == "pairs" else names[0])


@pytest.mark.parametrize("rules", [None, "pairs"])
def test_every_agent_reads_each_hands_score_once(rules):
    """A hand's score was in every agent's info only until the next step: in match episodes all
    but the next agent to move never read it with last(). Each agent reads it once, at its next
    turn (or at the match's end)."""
    e = make_env(rules=rules)
    e.reset(seed=1)
    seen = {a: [] for a in e.possible_agents}
    hands = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if "hand_score" in info:
            seen[agent].append(info["scores"])
        if term or trunc:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if "hand_score" in e.unwrapped.infos[agent]:
            hands += 1
    assert hands >= 2
    assert all(len(v) == hands for v in seen.values()), {a: len(v) for a, v in seen.items()}
    first = next(iter(seen.values()))
    assert all(v == first for v in seen.values())


def test_observe_an_unknown_agent_names_the_agents():
    """observe('player_9') was tuple.index's ValueError."""
    from scopa_env import ScopaError
    from scopa_env.aec import raw_env
    e = raw_env()
    e.reset(seed=1)
    with pytest.raises(ScopaError, match="unknown agent 'player_9' .*player_0, player_1"):
        e.observe("player_9")


def test_observe_an_agent_after_its_last_step():
    """PettingZoo drops a done agent's terminations entry at its last step(None); observe() of it
    was a bare KeyError. It is the final position, with an empty action mask."""
    import scopa_env
    e = scopa_env.raw_env(target=1)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.agents == []
    for agent in e.possible_agents:
        seen = e.observe(agent)
        assert not seen["action_mask"].any() and seen["observation"].shape == (e.observation_spaces[agent]["observation"].shape)


def test_takes_table_refuses_what_is_not_an_action_id():
    """takes_table(16200.7) was int()'s truncation, True: it now refuses as action_id does."""
    import scopa_env
    from scopa_env import ScopaError
    t = scopa_env.action_table(scopa_env.Rules(ace_takes_all=True))
    for bad in (16200.7, "16201", True):
        with pytest.raises(ScopaError, match="takes_table: an action is an integer id"):
            t.takes_table(bad)
        # describe's own name, not the helper's it calls first (review)
        with pytest.raises(ScopaError, match="^describe: an action is an integer id"):
            t.describe(bad)


def test_raw_env_before_reset_says_so():
    """raw_env().observe / step / last before reset() were AttributeErrors ('no attribute
    terminations' / 'agent_selection'); render() already said to reset (review)."""
    e = raw_env()
    for call, name in ((lambda: e.observe("player_0"), "observe"), (lambda: e.step(0), "step"),
                       (e.last, "last")):
        with pytest.raises(ScopaError, match=rf"call reset\(\) before {name}\(\)"):
            call()
    e.reset(seed=0)
    assert e.last()[0]["action_mask"].any()


def test_step_and_last_after_the_episode_are_one_clear_error():
    """Once every agent had stepped out, step() and last() were a KeyError on the last agent's
    name (review); the Gymnasium env already said to reset. observe() still shows the end."""
    e = raw_env()
    for what in ("step", "last"):
        with pytest.raises(ScopaError, match=rf"call reset\(\) before {what}\(\)"):
            e.step(0) if what == "step" else e.last()
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.agents == []
    for what in ("step", "last"):
        with pytest.raises(ScopaError, match=rf"^the episode is over: call reset\(\) before {what}\(\)$"):
            e.step(0) if what == "step" else e.last()
    assert e.observe("player_0")["action_mask"].sum() == 0
    e.reset(seed=2)
    assert e.agents and e.last()[0]["action_mask"].sum() > 0


@pytest.mark.parametrize("make,illegal", [(raw_env, False), (make_env, False), (make_env, True)])
def test_a_move_for_a_done_agent_names_it_and_changes_nothing(make, illegal):
    """A done agent's one step is step(None); any other action was PettingZoo's bare ValueError
    ("when an agent is dead, the only valid action is None"). Now one ScopaError (still a
    ValueError) names the agent and the action, and the episode goes on from where it was. So
    too where an illegal move ended the wrapped env (`illegal`): PettingZoo's
    TerminateIllegalWrapper checked first, the bare ValueError again (review, 2026-12-07)."""
    e = make()
    e.reset(seed=0)
    if illegal:
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0]))
    while not any(e.terminations.values()):
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    agent, left = e.agent_selection, list(e.agents)
    with pytest.raises(ScopaError, match=rf"^{agent} is terminated: its one step is step\(None\), "
                                         rf"which removes it; got 3$"):
        e.step(3)
    assert e.agents == left and e.agent_selection == agent
    for _ in e.agent_iter():
        e.step(None)
    assert e.agents == []


def test_the_wrapped_env_says_the_same_of_last_after_the_episode():
    """scopa_env.env()'s last() is PettingZoo's AECEnv.last on the outer wrapper, which never
    reaches raw_env.last: after the episode it was a KeyError on the last agent's name
    (review)."""
    import scopa_env
    e = scopa_env.env()
    # before the first reset: PettingZoo's AttributeError on agent_selection, and AssertionErrors
    # from step, observe and render (review)
    for what, call in (("last", e.last), ("step", lambda: e.step(0)),
                       ("observe", lambda: e.observe("player_0")), ("render", e.render)):
        with pytest.raises(ScopaError, match=rf"^call reset\(\) before {what}\(\)$"):
            call()
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ScopaError, match=r"^the episode is over: call reset\(\) before last\(\)$"):
        e.last()
    # as the docstring says, and as raw_env does: observe() shows the end with an empty mask,
    # and step() is PettingZoo's warning (each was the 'episode is over' error, and no test
    # failed; mutation-testing review)
    assert e.observe("player_0")["action_mask"].sum() == 0
    from pettingzoo.utils.env_logger import EnvLogger
    EnvLogger.mqueue.clear()
    e.step(0)
    assert EnvLogger.mqueue == ["[WARNING]: step() called after all agents are terminated or truncated. "
                                "Should reset() first."], EnvLogger.mqueue
    e.reset(seed=2)
    assert e.last()[0]["action_mask"].sum() > 0


def test_review_illegal_array_action_is_described_and_render_wording():
    """raw_env's error for a one-element array action lost the move's description (int() of
    the array); the render repeated the target and said 'player_0 & player_2 wins' (review)."""
    import numpy as np
    from scopa_env.aec import env as make_env, raw_env
    r = raw_env()
    r.reset(seed=0)
    bad = next(i for i in range(r.table.size) if not r._mask[i])
    with pytest.raises(ScopaError, match=rf"action {bad} \(\w+( x [\w ]+)?\) is not legal now"):
        r.step(np.array([bad]))
    e = make_env(rules="pairs", target=3, render_mode="ansi")
    e.reset(seed=2)
    for agent in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    text = e.render()
    assert text.startswith("Scopa to 3, players=4 | hand"), text
    assert re.search(r"Match over: player_[01] & player_[23] win \d+-\d+\n$", text), text


def test_observe_of_no_agent_name_is_refused():
    """observe(np.array([])) was numpy's 'truth value of an empty array is ambiguous' (review)."""
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(ScopaError, match=r"unknown agent array\(\[\], dtype=float64\) \(this env's agents"):
        e.observe(np.array([]))


# ---- found by a second mutation review of aec.py ------------------------------------------------
def _play_hand_out(e, seed=0):
    """Random legal moves in a raw env of hand episodes until the hand is over."""
    rng = np.random.default_rng(seed)
    while not e.terminations[e.agent_selection]:
        e.step(_random_action(e.observe(e.agent_selection), rng))


def test_reset_after_a_finished_hand_starts_from_no_reward_and_no_infos():
    """Resetting right after the hand ended, without stepping the done agents: the next hand's
    first last() has reward 0 and empty infos, not the previous hand's points and score."""
    e = raw_env(episode="hand", reward="points")
    e.reset(seed=1)
    _play_hand_out(e)
    assert any(e._cumulative_rewards.values())
    assert all("hand_score" in e.infos[a] for a in e.agents)
    e.reset()
    _, reward, term, trunc, info = e.last()
    assert (reward, term, trunc, info) == (0.0, False, False, {})
    assert all(v == 0.0 for v in e._cumulative_rewards.values())
    assert all(e.infos[a] == {} for a in e.possible_agents)


def test_raw_env_refuses_a_negative_action_id():
    """A negative id is outside the table, not a move read from the end of the mask."""
    e = raw_env()
    e.reset(seed=0)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    state = e.game.state.copy()
    with pytest.raises(ScopaError, match=rf"action {legal[0] - 16_200} \(outside 0..16199\) is not legal"):
        e.step(int(legal[0]) - 16_200)
    assert np.array_equal(e.game.state, state)


def test_illegal_message_lists_every_legal_move():
    e = raw_env()
    e.reset(seed=0)
    table = int(e.game.state[core.TABLE])
    legal = e.game.legal_action_ids().tolist()
    assert len(legal) >= 2
    bad = next(a for a in range(16_200) if a not in legal)
    with pytest.raises(ScopaError) as err:
        e.step(bad)
    listed = re.search(r"\(legal: (.*)\)$", str(err.value)).group(1)
    assert listed == "; ".join(f"{i} {e.table.describe(i, table)}" for i in legal)


def test_wrapped_illegal_move_keeps_the_hand_score_in_infos():
    """IllegalMoveWrapper adds the reason to the offender's infos; a hand score it had not read
    yet stays beside it."""
    e = make_env()
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        obs, _, _, _, info = e.last()
        if "hand_score" in info:
            break
        e.step(_random_action(obs, rng))
    offender = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert sorted(e.unwrapped.infos[offender]) == ["hand_score", "illegal_move", "scores"]


def test_render_text_hand_number_other_hands_and_hand_over():
    """The first line numbers hands from 1; only the other players' hands are counted; a
    finished hand says 'Hand over', not whose turn it is."""
    e = raw_env(episode="hand", render_mode="ansi")
    e.reset(seed=0)
    lines = e.render().splitlines()
    assert lines[0].startswith("Scopa to 11, classic | hand 1, dealer player_"), lines[0]
    viewer = e.agent_selection
    other = AGENTS[1 - AGENTS.index(viewer)]
    assert [ln for ln in lines if "cards in hand" in ln] == [f"{other}: 3 cards in hand"]
    _play_hand_out(e)
    assert e.render().splitlines()[-1] == "Hand over"
    g = e.game      # the piles and scope of each player, as the game counts them
    captured = next(ln for ln in e.render().splitlines() if ln.startswith("Captured: "))
    def count(n, one, many):
        return f"{n} {one if n == 1 else many}"
    assert captured == "Captured: " + ", ".join(
        f"player_{p} {count(len(g.pile(p)), 'card', 'cards')}, {count(g.scope(p), 'scopa', 'scope')}"
        for p in range(2))
    assert sum(len(g.pile(p)) for p in range(2)) == 40
    e.reset()
    assert " | hand 2, dealer " in e.render().splitlines()[0]
    four = raw_env(rules="pairs", render_mode="ansi", render_player=2)
    four.reset(seed=0)
    counted = [ln.split(":")[0] for ln in four.render().splitlines() if "cards in hand" in ln]
    assert counted == ["player_3", "player_0", "player_1"]



def test_render_text_is_each_seats_own_position():
    """Every line of the text render, in positions where the seats' scores, hands, piles and
    scope all differ (a review: a scope, a score or the dealer shown as seat 0's, or a fixed
    deck count, passed, since the renders tested were at 0-0 with no scope). One card or one
    scopa is singular ("1 card", "1 scopa"; "1 cards" before)."""
    from scopa_env.aec import render_text
    from scopa_env.presets import rules_from_preset
    g = Game(Rules(), seed=0).setup(hands=[["1C", "2C", "3C"], ["4C", "5C"]], table=["6C", "7S"],
                                    piles=[["7D", "8D"], ["1D", "2S", "3S"]], scope=[1, 2],
                                    deck=["9C", "10C", "9S"], dealer=1, scores=[4, 6])
    assert render_text(g, 1).splitlines() == [
        "Scopa to 11, classic | hand 1, dealer player_1",
        "Scores: player_0 4, player_1 6",
        "Table: 6C 7S",
        "Deck: 3 cards left",
        "player_1 hand: 4C 5C",
        "player_0: 3 cards in hand",
        "Captured: player_0 2 cards, 1 scopa, player_1 3 cards, 2 scope",
        "To move: player_0"]
    p = Game(rules_from_preset("pairs"), seed=0).setup(
        hands=[["1C", "2C"], ["4C"], ["3C", "5C"], ["6S"]], table=["6C"],
        piles=[["7D"], ["1D", "2S"], ["3S", "4S", "5S"], []], scope=[0, 1, 2, 3],
        deck=["9C", "10C"], dealer=0, scores=[3, 9])
    assert render_text(p, 2).splitlines() == [
        "Scopa to 21, players=4 | hand 1, dealer player_0",
        "Scores: player_0 & player_2 3, player_1 & player_3 9",
        "Table: 6C",
        "Deck: 2 cards left",
        "player_2 hand: 3C 5C",
        "player_3: 1 card in hand",
        "player_0: 2 cards in hand",
        "player_1: 1 card in hand",
        "Captured: player_0 1 card, 0 scope, player_1 2 cards, 1 scopa, player_2 3 cards, 2 scope, "
        "player_3 0 cards, 3 scope",
        "To move: player_1"]

def test_each_agents_hand_score_is_its_own():
    """Every agent's info held the one hand_score list: a change to one agent's changed all of
    them (review). Equal, and each its own."""
    e = raw_env(target=1)
    e.reset(seed=0)
    while "hand_score" not in e.infos["player_1"]:
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    mine, theirs = e.infos["player_0"]["hand_score"], e.infos["player_1"]["hand_score"]
    assert mine == theirs and mine is not theirs and mine[0] is not theirs[0]
    mine[0]["total"] = -99
    assert theirs[0]["total"] != -99 and e.infos["player_1"]["scores"] is not e.infos["player_0"]["scores"]


def test_after_an_illegal_move_the_raw_env_shows_the_ended_agent_no_moves():
    """The wrapped env ends the episode on an illegal move with the game still at the offender's
    turn: the raw env's observe() of that ended agent is an empty mask too (a mutation review:
    the raw env's 'live' check dropped went unseen; the wrapped env's own observe was tested)."""
    w = make_env()
    w.reset(seed=0)
    mask = w.observe(w.agent_selection)["action_mask"]
    w.step(int(np.flatnonzero(mask == 0)[0]))
    raw = w.unwrapped
    assert all(raw.terminations.values()) and raw._mask.sum() == 3
    assert raw.observe(raw.agent_selection)["action_mask"].sum() == 0


def test_a_seeded_reset_of_a_used_env_deals_that_seeds_match_again():
    """reset(seed=s) reseeds an env already played, so a seed names one match whatever came before
    (a mutation review: reseeding only a fresh env passed seed_test, which makes new envs)."""
    a = raw_env()
    a.reset(seed=3)
    first = a.observe(a.agent_selection)["observation"].copy()
    a.step(int(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])[0]))
    a.reset(seed=3)
    assert np.array_equal(a.observe(a.agent_selection)["observation"], first)


def test_reset_clears_the_public_rewards_of_the_last_hand():
    """env.rewards holds the last step's payout; reset() sets it back to 0 (only last(), read from
    the cumulative rewards, was checked: a mutation review)."""
    a = raw_env(episode="hand")
    a.reset(seed=0)
    while not any(a.terminations.values()):
        a.step(int(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])[0]))
    assert a.rewards == {"player_0": 2.0, "player_1": -2.0}
    a.reset()
    assert a.rewards == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("rules", [None, "three-players", "scopone"])
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_nobody_is_to_move_in_a_finished_hands_observation(rules, episode):
    """Docstring (observation.py): to_move says whose turn it is; once the hand is over nobody's
    (every mask is zero then). A review found the engine's turn slot, the seat after the last
    mover, still shown there in every finished match of 8 presets: the last observation of
    the AEC and Gymnasium envs told one agent it was to move, with no move to make."""
    from scopa_env.observation import layout
    e = raw_env(rules=rules, episode=episode)
    e.reset(seed=3)
    where = layout(len(e.possible_agents)).slices["to_move"]   # seat 0 of the slice: the viewer
    rng = np.random.default_rng(3)
    playing = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        assert [int(e.observe(a)["observation"][where.start]) for a in e.possible_agents] == \
            [int(a == agent) for a in e.possible_agents]
        playing += 1
        e.step(_random_action(obs, rng))
    assert playing > 0 and e.game.hand_over
    for a in e.possible_agents:
        o = e.observe(a)
        assert not o["action_mask"].any()
        assert not o["observation"][where].any(), a
