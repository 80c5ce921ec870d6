"""Match equity (agents/_equity.py; hard option match_equity, a learned agent's search option)."""
import functools
import math

import numpy as np
import pytest

from agents import _equity, _exact, _rollout, make_agent
from agents.hard import HardAgent
from scopa_env import core
from scopa_env.errors import ScopaError
from scopa_env.game import Game
from scopa_env.rules import Rules


def test_linear_equity_is_the_levels_guess_from_the_score_difference():
    t = _exact.linear_equity(11)
    assert t.shape == (52, 52) and t.flags.c_contiguous
    for a, b in [(0, 0), (10, 6), (3, 9), (11, 11), (40, 0), (0, 51)]:
        assert t[a, b] == 0.5 + min(0.4, max(-0.4, 0.08 * (a - b)))


def test_the_table_counts_out_the_race_to_the_target():
    # every hand gives me 2 points or the opponent 1, half the time each
    t = _equity.equity_table({(2, 0): 1, (0, 1): 1}, 11)
    assert t[11, 10] == 1.0 and t[10, 11] == 0.0 and t[12, 11] == 1.0
    assert t[10, 10] == pytest.approx(0.5)            # 12-10 won, or 10-11 lost
    assert t[10, 9] == pytest.approx(0.5 + 0.5 * 0.5)  # 12-9 won, or 10-10
    assert t[9, 10] == pytest.approx(0.5)              # 11-10 won, or 9-11 lost
    # level at or past the target plays another hand (RULES.md): 1-1 hands never end a level match
    t = _equity.equity_table({(1, 1): 1, (1, 0): 1}, 11)
    assert t[10, 10] == pytest.approx(1.0) and t[11, 11] == pytest.approx(1.0)


def test_a_level_score_past_the_target_is_won_by_the_next_hand_with_a_leader():
    # P(ahead) / P(ahead or behind): 2 : 1 here, whatever the level hands in between
    t = _equity.equity_table({(2, 0): 2, (0, 1): 1, (1, 1): 5}, 11)
    for s in (11, 12, 30, 51):
        assert t[s, s] == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(ValueError, match="every hand level"):
        _equity.equity_table({(1, 1): 3}, 11)
    # a side that never wins a hand has lost the match at any score (only 'every hand level' is
    # refused: a mutation review)
    assert _equity.equity_table({(0, 1): 1, (1, 1): 1}, 11)[0, 0] == 0.0


def test_outcome_reads_the_table_at_my_score_and_the_other_sides():
    st = np.zeros(core.STATE_SIZE, dtype=np.int64)
    st[core.NPLAYERS] = 2
    st[core.LINES + core.LINE_TOTAL] = 3
    st[core.LINES + core.NLINES + core.LINE_TOTAL] = 1
    st[core.PHASE], st[core.WINNER] = core.HAND_OVER, -1
    st[core.SCORES], st[core.SCORES + 1] = 9, 5
    assert _exact.outcome_any(st, _exact.linear_equity(11)) == pytest.approx(0.82 + 0.02)
    race = _equity.equity_table({(2, 0): 1, (0, 1): 1}, 11)
    st[core.SCORES], st[core.SCORES + 1] = 10, 9
    assert _exact.outcome_any(st, race) == pytest.approx(0.75 + 0.02)
    st[core.SCORES], st[core.SCORES + 1] = 9, 10
    assert _exact.outcome_any(st, race) == pytest.approx(0.5 + 0.02)
    assert _exact.outcome_any(st, _exact.POINTS) == 2.0


def test_tables_between_equals_are_fair_and_every_table_is_monotone():
    even = _equity.model_tables(11)[_equity.MODELS.index("soft")]
    assert even[0, 0] == pytest.approx(0.5, abs=1e-9)
    assert np.allclose(even[:11, :11] + even[:11, :11].T, 1.0)
    for t in _equity.model_tables(11):
        assert np.all(np.diff(t[:11, :11], axis=0) >= -1e-12)   # more points of mine: no worse
        assert np.all(np.diff(t[:11, :11], axis=1) <= 1e-12)
    easy = _equity.model_tables(11)[_equity.MODELS.index("easy")]
    assert 0.8 < easy[0, 0] < 0.95                     # the agent's hands against easy: ~88% of matches
    normal = _equity.model_tables(21)[_equity.MODELS.index("normal")]
    assert normal.shape == (62, 62) and 0.55 < normal[0, 0] < 0.8


def test_mixed_weighs_the_models_tables():
    tables = _equity.model_tables(11)
    w = np.array([0.2, 0.5, 0.3])
    assert np.allclose(_equity.mixed(11, w), 0.2 * tables[0] + 0.5 * tables[1] + 0.3 * tables[2])
    with pytest.raises(ValueError, match=r"^3 model weights expected \(normal, easy, soft\), got 2$"):
        _equity.mixed(11, [0.5, 0.5])
    with pytest.raises(ValueError, match=r"^3 model weights expected \(normal, easy, soft\), got 4$"):
        _equity.mixed(11, [0.25] * 4)           # one too many was dropped unsaid (a mutation review)


def _last_deal(seed=3, scores=(7, 8)):
    g = Game(Rules(), seed)
    while g.deck_left > 0 or len(g.legal_action_ids()) < 2:
        g.play_action(g.legal_action_ids()[0])
    g.state[core.SCORES], g.state[core.SCORES + 1] = scores
    return g


def test_hard_values_a_deciding_hand_by_the_mixed_table_with_match_equity():
    g = _last_deal()
    o = g.observation(g.to_move)
    h = HardAgent(infer=True, match_equity=True)
    h.model_weights = np.array([0.1, 0.7, 0.2])
    table = _equity.mixed(11, h.model_weights)
    assert np.array_equal(h.equity(o["observation"]), table)
    ids, values = h.move_values(o)
    want = np.zeros(len(ids))
    _rollout.last_deal_values(o["observation"], 11, h.actions.card[ids], h.actions.captured[ids], len(ids),
                              table, want)
    assert np.array_equal(values, want)
    off = HardAgent(infer=True)
    off.model_weights = h.model_weights
    assert np.array_equal(off.equity(o["observation"]), _exact.linear_equity(11))
    assert not np.array_equal(off.move_values(o)[1], values)
    # far from the target the hand's points count, with or without the option
    far = _last_deal(scores=(0, 0))
    assert h.equity(far.observation(far.to_move)["observation"]) is _exact.POINTS


def test_the_search_uses_the_table(monkeypatch):
    g = Game(Rules(), 5)        # 0-0: deciding only with endgame_margin 11
    o = g.observation(g.to_move)
    seen = []

    def constant(target, weights):
        seen.append(np.array(weights))
        return np.full((target + 41, target + 41), c)
    monkeypatch.setattr(_equity, "mixed", constant)
    values = []
    for c in (0.25, 0.75):
        h = HardAgent(infer=True, match_equity=True, worlds=20, seed=1, endgame_margin=11)
        values.append(h.move_values(o)[1])
    assert len(seen) == 2
    # no hand from 0-0 reaches 11 in these worlds (the same worlds both times): every outcome is
    # the table's c + diff / 100
    assert np.allclose(values[1] - values[0], 0.5)


def test_the_search_takes_the_table_with_this_decisions_model_weights(monkeypatch):
    # the opponent's moves this deal change the model weights at my decision (hand_posterior):
    # the table must be mixed with those, not with the weights before the decision
    seen = []
    real = _equity.mixed

    def spy(target, weights):
        seen.append(np.array(weights))
        return real(target, weights)
    monkeypatch.setattr(_equity, "mixed", spy)
    h = HardAgent(infer=True, match_equity=True, worlds=8, seed=2, endgame_margin=11)
    opponent = make_agent("easy", seed=3)
    g = Game(Rules(), 8)
    changed = 0
    while g.deck_left > 0:
        o = g.observation(g.to_move)
        if g.to_move == 1:
            g.play_action(opponent.act(o))
            continue
        before = h.model_weights.copy()
        seen.clear()
        g.play_action(h.act(o))
        if seen:
            assert np.array_equal(seen[-1], h.model_weights)
            changed += not np.array_equal(before, h.model_weights)
    assert changed >= 3


def test_match_equity_options():
    with pytest.raises(ScopaError, match=r"^hard option match_equity is the inference's: give infer=true too$"):
        HardAgent(match_equity=True)
    with pytest.raises(ScopaError, match=r"^hard option match_equity must be true or false, got 'maybe'$"):
        make_agent("hard:infer=true,match_equity=maybe")
    with pytest.raises(ScopaError, match=r"^learned option match_equity is the search's: give search > 0 too$"):
        make_agent("checkpoints/scopa-default.pt:match_equity=true")
    a = make_agent("checkpoints/scopa-default.pt:search=100,match_equity=true")
    assert a._hard.match_equity is True
    a = make_agent("checkpoints/scopa-default.pt:search=100,match_equity=false")
    assert a._hard.match_equity is False
    assert make_agent("checkpoints/scopa-default.pt:search=100")._hard.match_equity is False
    # its tables are hands without the napola: refused under it (review), any target taken
    with pytest.raises(ScopaError, match=r"^hard option match_equity counts the match's chances from "
                                         r"hand scores measured without the napola"):
        make_agent("hard:infer=true,match_equity=true", rules=Rules(napola=True))
    assert make_agent("hard:infer=true,match_equity=true", rules=Rules(target=21)).match_equity
    assert not make_agent("hard:infer=true", rules=Rules(napola=True)).match_equity


# ---- the equity table and the exact solver, pinned by mutation testing (2026-12-04) ---------
def _exact_race(counts, target):
    """The chance of winning from (a, b) by direct recursion (a hand of no points: a self-loop)."""
    total = sum(counts.values())
    moves = [(x, y, n / total) for (x, y), n in counts.items()]
    stay = sum(q for x, y, q in moves if x == 0 and y == 0)
    ahead = sum(q for x, y, q in moves if x > y)
    behind = sum(q for x, y, q in moves if x < y)

    @functools.lru_cache(maxsize=None)
    def e(a, b):
        if a >= target or b >= target:
            return 1.0 if a > b else 0.0 if a < b else ahead / (ahead + behind)
        return sum(q * e(a + x, b + y) for x, y, q in moves if (x, y) != (0, 0)) / (1 - stay)
    return e


def test_the_table_is_the_fixed_point_to_high_precision():
    """equity_table iterates to the exact fixed point, even when most hands score nothing."""
    counts = {(0, 0): 8, (1, 0): 1, (0, 2): 1}
    t = _equity.equity_table(counts, 5)
    ref = _exact_race(counts, 5)
    for a in range(6):
        for b in range(6):
            assert t[a, b] == pytest.approx(ref(a, b), abs=1e-10), (a, b)


def test_the_iteration_runs_until_the_table_stops_moving_and_says_when_it_never_does():
    """A hand that mostly scores nothing converges slowly: the table is still iterated to the
    fixed point (1.0 here: I never lose), and a table that moves too slowly for 1,000 rounds is
    refused (mutation review: a tolerance of 1e-3 or 20 rounds passed the tests)."""
    assert _equity.equity_table({(0, 0): 8, (1, 0): 1}, 11)[0, 0] == pytest.approx(1.0, abs=1e-11)
    with pytest.raises(ValueError, match="^the match equity table did not converge$"):
        _equity.equity_table({(0, 0): 10**6, (1, 0): 1}, 11)


def test_the_models_tables_are_built_once_and_mixed_by_their_weights():
    tables = _equity.model_tables(11)
    assert _equity.model_tables(11) is tables
    assert np.allclose(_equity.mixed(11, [0.25, 0.75, 0.0]), 0.25 * tables[0] + 0.75 * tables[1])
    with pytest.raises(ValueError, match=r"3 model weights expected \(normal, easy, soft\), got 2"):
        _equity.mixed(11, [0.5, 0.5])


def _finished(n_players, totals, scores, phase=core.HAND_OVER, winner=-1):
    st = np.zeros(core.STATE_SIZE, dtype=np.int64)
    st[core.NPLAYERS] = n_players
    for s, t in enumerate(totals):
        st[core.LINES + s * core.NLINES + core.LINE_TOTAL] = t
    for s, t in enumerate(scores):
        st[core.SCORES + s] = t
    st[core.PHASE], st[core.WINNER] = phase, winner
    return st


def test_a_capotto_that_ends_the_match_is_worth_the_match_bonus():
    """A hand whose capotto ended the match counts its points plus or minus target + 20."""
    st = _finished(2, (2, 0), (5, 0), phase=core.MATCH_OVER, winner=0)
    st[core.TARGET], st[core.CAPOTTO] = 21, 2
    assert _exact.outcome_any(st, _exact.POINTS) == 2.0 + 41.0
    st[core.WINNER] = 1
    assert _exact.outcome_any(st, _exact.POINTS) == 2.0 - 41.0
    st[core.CAPOTTO] = 1                           # a capotto of 1 is a capotto too (a mutation review)
    assert _exact.outcome_any(st, _exact.POINTS) == 2.0 - 41.0
    st[core.CAPOTTO] = 0
    assert _exact.outcome_any(st, _exact.POINTS) == 2.0


def test_the_equity_of_three_sides_is_read_at_the_best_other_sides_score():
    """With three sides the table is read at (my score, the best other side's score), not seat 1's."""
    st = _finished(3, (3, 1, 2), (9, 3, 8))
    assert _exact.outcome_any(st, _exact.linear_equity(11)) == pytest.approx(0.58 + 0.01)


def test_a_finished_match_is_won_only_by_side_0_and_scores_past_the_table_read_its_edge():
    """A match side 2 won is lost to side 0, not won (with two sides the winner is 0 or 1, so
    only three sides tell); a score past the table is read at its last row or column, not the one
    before (a mutation review: both went unseen)."""
    lost = _finished(3, (1, 3, 2), (5, 8, 11), phase=core.MATCH_OVER, winner=2)
    assert _exact.outcome_any(lost, _exact.linear_equity(11)) == pytest.approx(0.0 + 0.01 * (1 - 3))
    lost[core.WINNER] = 0
    assert _exact.outcome_any(lost, _exact.linear_equity(11)) == pytest.approx(1.0 + 0.01 * (1 - 3))
    table = np.array([[0.5, 0.2, 0.1], [0.8, 0.5, 0.2], [0.9, 0.8, 0.5]])
    assert _exact.outcome_any(_finished(2, (1, 1), (5, 0)), table) == pytest.approx(0.9)
    assert _exact.outcome_any(_finished(2, (1, 1), (1, 7)), table) == pytest.approx(0.2)


def test_minimax_gives_up_with_nan_past_its_cap():
    """minimax_any returns NaN as soon as it has played more than cap moves (cap > 0)."""
    g = Game(Rules(), 3)
    while g.deck_left > 0:
        g.play_action(g.legal_action_ids()[0])
    states = np.zeros((_exact.EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    bufs = np.empty((_exact.EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    full = _exact.minimax_any(g.state.copy(), _exact.POINTS, states, bufs, nodes, 0)
    assert math.isfinite(full) and nodes[0] > 2
    nodes[0] = 0
    assert math.isnan(_exact.minimax_any(g.state.copy(), _exact.POINTS, states, bufs, nodes, 2))
    assert nodes[0] == 3


def test_exact_values_say_whether_they_are_complete_at_the_cap():
    """exact_values_any is complete (True) with a cap of exactly the moves its solver plays, and
    says it is not (False) with one fewer, where the solver's value is NaN (a mutation review: a
    cap one past went unseen, and returned True with NaN)."""
    g = _last_deal()
    buf = core.new_move_buffer()
    k = core.legal_moves(g.state.copy(), buf)
    cards, masks = buf[0, :1].copy(), buf[1, :1].copy()         # one candidate, which does not end the hand
    out = np.zeros(1)
    states = np.zeros((_exact.EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    bufs = np.empty((_exact.EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    child = g.state.copy()
    assert not core.apply_move(child, cards[0], masks[0]) & core.F_HAND_OVER and k > 1
    _exact.minimax_any(child, _exact.POINTS, states, bufs, nodes, 0)
    need = int(nodes[0])
    assert _exact.exact_values_any(g.state, -1, 0, cards, masks, 1, _exact.POINTS, out, False, need)
    assert math.isfinite(out[0])
    assert not _exact.exact_values_any(g.state, -1, 0, cards, masks, 1, _exact.POINTS, out, False, need - 1)
    assert math.isnan(out[0])
    # the same for easy's expectimax (a second review: its cap one early went unseen, the tests
    # of it using caps of 10 and 10**9)
    nodes[0] = 0
    whole = _exact.expectimax_easy(child, _exact.POINTS, states, bufs, nodes, 0)
    need = int(nodes[0])
    assert need > 1 and math.isfinite(whole)
    for cap, complete in ((need, True), (need - 1, False)):
        nodes[0] = 0
        value = _exact.expectimax_easy(child, _exact.POINTS, states, bufs, nodes, cap)
        assert value == whole if complete else math.isnan(value), cap
        assert _exact.exact_values_any(g.state, -1, 0, cards, masks, 1, _exact.POINTS, out, True, cap) == complete
        assert out[0] == whole if complete else math.isnan(out[0]), cap


def test_the_exact_solvers_count_every_seats_cards():
    """More cards left than the solvers' stack is refused whichever seats hold them: four players
    holding 2, 2, 3 and 3 cards are 10 (a mutation review: only seats 0 and 1 were counted, 4)."""
    g = Game(Rules(players=4), 1)
    st = g.state.copy()
    held = [int(c) for c in range(40) if any(st[core.HANDS + s] >> c & 1 for s in range(4))]
    for s, n in enumerate((2, 2, 3, 3)):
        st[core.HANDS + s] = sum(1 << c for c in held[:n])
        held = held[n:]
    st[core.DECK_POS] = 40
    assert _exact.cards_in_hands(st) == 10
    with pytest.raises(ValueError, match="more cards left in the hands than the exact solvers search"):
        _exact.exact_values_any(st, -1, 0, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 1,
                                _exact.POINTS, np.zeros(1), False, 0)
