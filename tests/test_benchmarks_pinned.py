"""The benchmark scripts' own arithmetic and bookkeeping, in-process: each test here failed on a
change to benchmarks/ that the rest of the suite let through (mutation testing, 2026-12-04):
paired.py's seeds, the shared parser's ranges, match_margin's model of a margin, hand_points'
counts, hand_value's telling and interval, opponent_fit's likelihoods, max_moves' games."""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from agents.arena import MatchResult
from agents.base import Agent
from agents.stats import t95
from benchmarks import hand_points, hand_value, match_margin, max_moves, opponent_fit, paired
from benchmarks._cli import INT_MAX, errors_as_one_line, load_baseline, positive_float, positive_int
from scopa_env import core
from scopa_env.batched import initial_max_legal
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES, layout_for
from scopa_env.presets import rules_from_preset
from scopa_env.rules import Rules


# ---- paired.py and _cli.py -------------------------------------------------------------------
def _paired_line(seed, seat, won, agent="agent", opponent="easy"):
    players = [agent, opponent] if seat == 0 else [opponent, agent]
    winner = seat if won else 1 - seat
    score = [{"total": 11 if s == winner else 5} for s in (0, 1)]
    return json.dumps({"rules": {"napola": False, "target": 11}, "seed": seed, "players": players,
                       "winner": winner, "hands": [{"score": score}]})


def test_a_boolean_match_seed_is_refused_not_read_as_seed_1(tmp_path):
    """A record whose seed is JSON true is not a match record: a bool seed would silently pair with seed 1's deal."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(_paired_line(1, 0, 1) + "\n" + _paired_line(1, 1, 0) + "\n")
    b.write_text(_paired_line(True, 0, 1) + "\n" + _paired_line(1, 1, 1) + "\n")
    assert paired.load(str(a), None)[3][0][0] == 1
    with pytest.raises(ScopaError, match=r"b\.jsonl:1: not a finished 2-player match record .*seed True"):
        paired.compare(str(a), str(b))


def test_positive_int_takes_its_documented_top_2_31_minus_1():
    """positive_int takes 1..2**31-1, both ends included; 2**31 is refused with the range in the message."""
    assert positive_int("1") == 1
    assert positive_int(str(INT_MAX)) == INT_MAX == 2**31 - 1
    with pytest.raises(argparse.ArgumentTypeError, match="from 1 to 2,147,483,647"):
        positive_int(str(2**31))


def test_positive_float_refuses_infinity():
    """positive_float is 'a finite number > 0': --seconds inf would time forever."""
    assert positive_float("0.5") == 0.5
    for bad in ("inf", "Infinity", "1e400"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be a number > 0"):
            positive_float(bad)


def test_an_oserror_names_the_file_in_its_one_line(capsys):
    """errors_as_one_line: an OSError with a file name is 'PROG: error: FILE: WHY', exit 2, so the user knows which file."""
    @errors_as_one_line("x.py")
    def main():
        raise FileNotFoundError(2, "No such file or directory", "runs/a.jsonl")
    assert main() == 2
    assert capsys.readouterr().err == "x.py: error: runs/a.jsonl: No such file or directory\n"


def test_load_baseline_gives_numba_its_cache_folder_back(tmp_path, monkeypatch):
    """numba's CACHE_DIR is the baseline's own only while it is imported: afterwards this checkout's kernels cache where they did."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.delitem(sys.modules, "baseline_scopa_env", raising=False)
    (tmp_path / "old" / "scopa_env").mkdir(parents=True)
    (tmp_path / "old" / "scopa_env" / "__init__.py").write_text("X = 1\n")
    mod = load_baseline(str(tmp_path / "old"), needs=("X",))
    assert mod.X == 1
    assert numba.config.CACHE_DIR == str(tmp_path / "mine")
    sys.modules.pop("baseline_scopa_env", None)


# ---- match_margin.py and hand_points.py ---------------------------------------------------
def test_move_chance_moves_a_point_worth_two_of_margin():
    """Moving one point adds 2 to the margin: shift s needs chance s / (2 * share of hands that can)."""
    hands = np.array([[0, 1], [3, 1], [2, 0], [1, 0]])     # the opponent scored in half the hands
    assert match_margin.move_chance(hands, 0.5) == pytest.approx(0.5)
    assert match_margin.move_chance(hands, 0.0) == 0.0


def test_a_hand_where_the_opponent_scored_one_point_can_give_it():
    """A hand the opponent scored exactly 1 point in can move that point to the agent."""
    assert match_margin.move_chance(np.array([[0, 1], [2, 1]]), 1.0) == pytest.approx(0.5)


def test_the_largest_shift_the_hands_allow_is_accepted():
    """Shift 2 is allowed when the opponent scored in every hand (a point moved in each)."""
    hands = np.array([[0, 1], [2, 3], [4, 1]])
    assert match_margin.move_chance(hands, 2.0) == 1.0
    with pytest.raises(ScopaError, match="is more than moving a point"):
        match_margin.move_chance(np.array([[0, 1], [2, 0]]), 1.5)


def test_a_hand_the_opponent_scored_nothing_in_stays_uneven_at_any_shift():
    """Only hands the opponent scored in move a point: 3-0 beside 0-2 at the largest shift (every
    such point moved, 0-2 always level) still ends matches, and is no error."""
    rng = np.random.default_rng(0)
    assert match_margin.move_chance(np.array([[0, 2], [3, 0]]), 1.0) == 1.0
    assert match_margin.resampled_win_rate(np.array([[0, 2], [3, 0]]), 1.0, 11, 20, rng) == 1.0


def test_a_moved_point_leaves_the_opponent():
    """Hands of 1-2 with shift 1 become 1-2 or 2-1 evenly: a fair race, about half the matches won."""
    rng = np.random.default_rng(0)
    rate = match_margin.resampled_win_rate(np.array([[1, 2]]), 1.0, 11, 2000, rng)
    assert 0.4 < rate < 0.6


def test_main_reads_each_hand_from_the_agents_side(monkeypatch, capsys):
    """The measured points per hand are the agent's first, whichever seat it played."""
    results = [SimpleNamespace(agent_side=1, hand_points=[[0, 3], [1, 4]], agent_won=True),
               SimpleNamespace(agent_side=0, hand_points=[[5, 1], [2, 0]], agent_won=True)]
    monkeypatch.setattr(match_margin, "run_pairs", lambda *a, **k: results)
    assert match_margin.main(["--agent", "x", "--matches", "2", "--samples", "5", "--shifts", "0"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "points per hand 3.500 - 0.500 = +3.000" in head, head


def _hand_points_record(path, hands, seed=1):
    hand = lambda x, y: {"score": [{"total": x}, {"total": y}]}      # noqa: E731
    path.write_text(json.dumps({"rules": {"target": 11}, "seed": seed, "players": ["agent", "easy"],
                                "hands": [hand(x, y) for x, y in hands]}) + "\n")


def test_symmetric_counts_a_level_hand_both_ways_round_too():
    """--symmetric counts every hand twice, a level one included (the shipped soft table's even counts)."""
    assert hand_points.symmetric({(2, 2): 3, (1, 0): 1}) == {(0, 1): 1, (1, 0): 1, (2, 2): 6}


def test_symmetric_output_of_main_doubles_level_hands(tmp_path, capsys):
    """main --symmetric prints a level hand with twice its count."""
    rec = tmp_path / "r.jsonl"
    _hand_points_record(rec, [(2, 2), (3, 1)])
    assert hand_points.main([str(rec), "--player", "agent", "--symmetric"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "{(1, 3): 1, (2, 2): 2, (3, 1): 1}"


def test_records_without_hands_are_a_one_line_error(tmp_path, capsys):
    """Records holding no hand are 'no hands in the records' (exit 2), not a ZeroDivisionError."""
    rec = tmp_path / "r.jsonl"
    _hand_points_record(rec, [])
    with pytest.raises(ScopaError, match="no hands in the records"):
        hand_points.count_hands([str(rec)], "agent")
    assert hand_points.main([str(rec), "--player", "agent"]) == 2
    assert capsys.readouterr().err == "hand_points.py: error: no hands in the records\n"


# ---- hand_value.py ---------------------------------------------------------------------------
class _FakeGame:
    """What tell() reads of a game: deck_left and hand(seat)."""

    def __init__(self, deck_left: int, hands: dict):
        self.deck_left = deck_left
        self._hands = hands

    def hand(self, p):
        return self._hands[p]


def _result(seat, points):
    return MatchResult(seed=0, agent_seat=seat, winner=0, totals=[0, 0], hand_points=points,
                       hand_scope=[[0, 0] for _ in points])


def test_the_told_search_is_told_the_opponents_hand_only_at_its_turn_in_the_told_deals(monkeypatch):
    """play() tells the told search the opponent's hand before its own moves, in deals 1..6 as --told-deals numbers them."""
    rules = Rules()
    _fair, told = hand_value.fair_and_told("hard", rules, 0, 10)
    hands = {0: [0, 1, 2], 1: [10, 11, 12]}
    for seat in (0, 1):
        seen = []

        def fake_play_match(seats, rules_, seed, seeds, agent_seat, before_move):
            assert seats[agent_seat] is told and agent_seat == seat
            for deal in range(1, 7):            # deal k leaves 36 - 6k cards in the deck
                g = _FakeGame(36 - 6 * deal, hands)
                told.told = "unset"
                before_move(g, 1 - seat)        # the opponent's move: nothing to tell
                seen.append(("opp", deal, told.told))
                before_move(g, seat)
                seen.append(("me", deal, told.told))
            return "done"

        monkeypatch.setattr(hand_value, "play_match", fake_play_match)
        assert hand_value.play(told, object(), rules, 7, seat, frozenset({2, 5})) == "done"
        theirs = sum(1 << c for c in hands[1 - seat])
        want = []
        for deal in range(1, 7):
            want += [("opp", deal, "unset"), ("me", deal, theirs if deal in (2, 5) else None)]
        assert seen == want


def test_margin_is_per_hand_not_per_match():
    """_margin divides the agent's points margin by the hands played, not by the matches."""
    results = [_result(0, [[5, 1], [6, 2]]), _result(1, [[4, 2]])]
    assert hand_value._margin(results) == (4 + 4 - 2) / 3


def test_a_told_decision_still_weighs_the_models_on_the_deals_evidence(monkeypatch):
    """ToldHard told a hand returns it as the one world and still weighs the opponent models on the deal's moves."""
    t = hand_value.ToldHard(Rules(), 0, budget=10, infer=True)
    calls = []
    monkeypatch.setattr(t, "_weigh", lambda obs, rows: calls.append((obs, rows)))
    t.told = 0b111 << 10
    obs = np.zeros(3, dtype=np.int8)
    hands, weights = t.hand_posterior(obs)
    assert hands.tolist() == [0b111 << 10] and weights.shape == (1,) and weights[0] > 0
    assert len(calls) == 1 and calls[0][0] is obs and calls[0][1] is t.rows


def test_main_prints_the_per_deal_gain_with_students_t_interval(monkeypatch, capsys):
    """main's last line: the told-minus-fair mean per deal with a t95(n - 1) interval; the default deals add no 'told in' note."""
    margins = [1.0, 2.0, 4.0]
    deals = [[[_result(0, [[1, 1]]), _result(1, [[1, 1]])],
              [_result(0, [[1 + int(m), 1]]), _result(1, [[1, 1]])]] for m in margins]
    # the told margin of a deal: (m + 0) / its 2 hands; the fair one's 0
    monkeypatch.setattr(hand_value, "_init", lambda *a: None)
    it = iter(deals)
    monkeypatch.setattr(hand_value, "_deal", lambda i: next(it))
    assert hand_value.main(["--matches", "6", "--workers", "1", "--budget", "10"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "told in deals" not in out[0]
    gain = np.array([m / 2 for m in margins])
    half = t95(len(gain) - 1) * gain.std(ddof=1) / np.sqrt(len(gain))
    want = (f"mean {gain.mean():+.3f}, 95% CI [{gain.mean() - half:+.3f}, {gain.mean() + half:+.3f}]")
    assert out[-1].endswith(want), out[-1]
    assert re.match(r"^told minus fair, per deal", out[-1])


# ---- opponent_fit.py -------------------------------------------------------------------------
class _Plays(Agent):
    """A level that plays the action it is set to."""

    name = "plays"
    action = 0

    def act(self, observation):
        return self.action


class _Judge:
    def __init__(self, legal, scores):
        self.legal, self.values = np.array(legal), np.array(scores, dtype=np.float64)

    def scores(self, observation):
        return self.legal, self.values


def _obs(deck_left: int) -> dict:
    o = np.zeros(layout_for(Rules()).size, dtype=np.int8)
    o[SLICES["deck_left"].start] = deck_left
    return {"observation": o, "action_mask": np.zeros(16_200, dtype=np.int8)}


def test_a_choice_keeps_the_scores_less_the_best_and_the_index_played():
    """Recording keeps (normal's scores minus their max, the index of the move played among the legal ones)."""
    level = opponent_fit.recording(_Plays)(Rules(), 0)
    level.judge = _Judge([5, 9, 12], [1.0, 3.0, 2.0])
    level.action = 5
    assert level.act(_obs(4)) == 5
    level.action = 12
    level.act(_obs(4))
    assert [(v.tolist(), i) for v, i in level.choices] == [([-2.0, 0.0, -1.0], 0), ([-2.0, 0.0, -1.0], 2)]


def test_only_choices_before_the_deck_is_empty_with_two_moves_or_more_count():
    """A move once the deck is empty, or a forced move (one legal), is not a choice."""
    level = opponent_fit.recording(_Plays)(Rules(), 0)
    level.judge = _Judge([5, 9], [1.0, 3.0])
    level.action = 9
    level.act(_obs(0))                      # the deck is empty: the last deal is left out
    assert level.choices == []
    level.judge = _Judge([5], [1.0])
    level.action = 5
    level.act(_obs(10))                     # one legal move: no choice
    assert level.choices == []


def test_main_prints_the_models_log_likelihoods_of_the_choices(monkeypatch, capsys):
    """main's share of best moves and its soft/normal/uniform mean log-likelihoods, from the recorded choices."""
    choices = [(np.array([0.0, -1.0]), 0), (np.array([-2.0, 0.0, -0.5]), 2), (np.array([0.0, -3.0, 0.0]), 2)]

    def fake_run_pairs(level, opponent, pairs, seed, rules, workers=1):
        level.choices.extend(choices)
        return []
    monkeypatch.setattr(opponent_fit, "run_pairs", fake_run_pairs)
    assert opponent_fit.main(["--level", "easy", "--pairs", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "easy vs normal, 6 matches (seed 2): 3 choices, 66.7% of them normal's best move"
    got = {line.split(":")[0].strip(): float(re.search(r"log-likelihood (\S+)$", line)[1]) for line in out[1:]}
    for beta in (1.0, 2.0, 2.5, 3.0, 5.0, 10.0):
        want = sum(beta * v[i] - math.log(sum(math.exp(beta * x) for x in v)) for v, i in choices) / 3
        assert got[f"soft model, beta {beta:>4}"] == pytest.approx(want, abs=6e-4)
    for eps in (0.02, 0.1, 0.3, 0.5):
        want = sum(math.log((1 - eps) * (v[i] == 0) + eps / len(v)) for v, i in choices) / 3
        assert got[f"normal model, eps {eps:>4}"] == pytest.approx(want, abs=6e-4)
    assert got["uniformly random"] == pytest.approx(-(math.log(2) + 2 * math.log(3)) / 3, abs=6e-4)


# ---- max_moves.py ----------------------------------------------------------------------------
class _Spy:
    """core as max_moves sees it, noting each position's legal move count and each hand's margin."""

    def __init__(self):
        self.counts, self.check, self.hands = [], 0, 0

    def __getattr__(self, name):
        return getattr(core, name)

    def legal_moves(self, state, buf):
        n = core.legal_moves(state, buf)
        self.counts.append(int(n))
        return n

    def apply_move(self, state, card, mask):
        flags = core.apply_move(state, card, mask)
        if flags & core.F_HAND_OVER:
            self.hands += 1
            self.check += int(state[core.LINES + core.LINE_TOTAL] - state[core.LINES + core.NLINES + core.LINE_TOTAL])
        return flags


def test_most_moves_is_the_most_of_random_hands_rules_play(monkeypatch):
    """most_moves plays core.random_hands_rules' games (same checksum) and returns the most legal moves of any position met."""
    header = rules_from_preset("classic").to_header()
    for seed in (0, 3):
        spy = _Spy()
        monkeypatch.setattr(max_moves, "core", spy)
        most = max_moves.most_moves.py_func(seed, 25, header)
        monkeypatch.setattr(max_moves, "core", core)
        assert spy.hands == 25
        assert spy.check == core.random_hands_rules(seed, 25, header)
        assert most == max(spy.counts) >= 4


def test_main_plays_seeds_from_0_and_flags_only_a_count_past_the_width(monkeypatch, capsys):
    """main runs seeds 0..--seeds-1 and says '(past the start width)' only when a run's most exceeds it."""
    width = initial_max_legal(rules_from_preset("classic"))
    for extra, past in ((0, False), (1, True)):
        seeds = []

        def fake(seed, hands, header):
            seeds.append((seed, hands))
            return width + extra if seed == 1 else width - 5
        monkeypatch.setattr(max_moves, "most_moves", fake)
        assert max_moves.main(["--rules", "classic", "--hands", "7", "--seeds", "2"]) == 0
        row = capsys.readouterr().out.splitlines()[2]
        assert seeds == [(0, 7), (1, 7)]
        assert row.split()[:2] == ["classic", str(width + extra)]
        assert row.endswith("(past the start width)") == past, row
