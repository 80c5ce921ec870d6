"""The rules variants of issue 7: worked examples from the seeds (003, 004) as tables, the deals of
each player count, scoring per side, and invariants of every preset under random play."""
import hashlib
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scopa_env import Game, Rules, ScopaError, core, records
from scopa_env.cards import ALL_CARDS_MASK, card_str, parse_card
from scopa_env.game import primiera
from scopa_env.presets import PRESETS, list_rules_text, rules_from_preset
from scopa_env.simulate import random_match

from reference_rules import DEFAULTS, check_record, legal as reference_legal, score as reference_score, sweep_only


def moves(g):
    return sorted(str(m) for m in g.legal_moves())


def position(rules, hand, table, to_move=0):
    """Seat `to_move` holds `hand`, every other seat one card; the deck is not empty (no last play)."""
    spare = iter(["9B", "9C", "9S", "9D", "6D"])
    n = rules.players
    hands = [list(hand) if p == to_move else [next(spare)] for p in range(n)]
    return Game(rules).setup(hands=hands, table=table, deck=["8S"], dealer=(to_move - 1) % n)


ASSI = dict(ace_takes_all=True)

# (rules options, hand, table, expected legal moves) -- each from a sentence of the seeds
CAPTURE_CASES = [
    # scopa d'assi (003, 004): the ace takes the whole table ...
    (ASSI, ["1D"], ["5C", "3S", "10B"], ["1D x 5C 3S 10B"]),
    # ... unless an ace is on it: then it takes that ace ("queimar um Ás")
    (ASSI, ["1D"], ["1C", "5S", "3B"], ["1D x 1C"]),
    (ASSI, ["1D"], ["1C", "1S", "3B"], ["1D x 1C", "1D x 1S"]),
    # burned_ace off: "as regras variam sobre se o jogador ainda pode pegar todas as cartas"
    (dict(ASSI, burned_ace=False), ["1D"], ["1C", "5S", "3B"], ["1D x 1C", "1D x 1C 5S 3B"]),
    (dict(ASSI, burned_ace=False), ["1D"], ["1C"], ["1D x 1C"]),
    # on an empty table the ace stays ("Se a mesa estiver vazia, o ás fica nela")
    (ASSI, ["1D", "5C"], [], ["1D", "5C"]),
    # other cards capture as usual
    (ASSI, ["5D"], ["5C", "1S", "4B"], ["5D x 5C"]),
    # scopa a quindici, strict (003): A 3 5 7 on the table, a 2 takes A 5 7 (2+1+5+7 = 15)
    (dict(quindici="only"), ["2D"], ["1C", "3S", "5B", "7C"], ["2D x 1C 7C 5B"]),
    # ... and a 5 does not take a 5 (004: "um 5 não leva um 5 (daria 10)")
    (dict(quindici="only"), ["5D"], ["5C"], ["5D"]),
    (dict(quindici="only"), ["5D"], ["5C", "10S", "4B", "6C"], ["5D x 10S", "5D x 4B 6C"]),
    # both kinds of capture: the player chooses
    (dict(quindici="both"), ["5D"], ["5C", "10S"], ["5D x 10S", "5D x 5C"]),
    # cirulla (003): two sevens on the table, an ace takes both by the ace rule or by 15 -- one move
    (dict(ASSI, quindici="both"), ["1D"], ["7C", "7S"], ["1D x 7C 7S"]),
    # ... with an ace on the table the sweep is burned, but 10, 3 and the ace make 15 with it
    (dict(ASSI, quindici="both"), ["1D"], ["10C", "3S", "1B"], ["1D x 10C 3S 1B", "1D x 1B"]),
    (dict(ASSI, quindici="only"), ["1D"], ["10C", "3S", "1B"], ["1D x 10C 3S 1B", "1D x 1B"]),
    # fewest cards (003): table 1, 3, 4, 8 and a fante takes only the fante
    (dict(fewest_cards=True), ["8D"], ["1C", "3S", "4B", "8C"], ["8D x 8C"]),
    # ... and among sums only those with the fewest cards
    (dict(fewest_cards=True), ["8D"], ["1C", "3S", "4B", "5C", "3B"], ["8D x 5C 3B", "8D x 5C 3S"]),
    (dict(), ["8D"], ["1C", "3S", "4B", "5C", "3B"],
     ["8D x 1C 3B 4B", "8D x 1C 3S 4B", "8D x 5C 3B", "8D x 5C 3S"]),
    # with both kinds, fewest cards across all of a card's captures (004 "o menor número de cartas")
    (dict(quindici="both", fewest_cards=True), ["5D"], ["5C", "6S", "4B"], ["5D x 5C"]),
    # cirulla (003): no equal-first rule, "with J, 5 and 3 on the table, playing a J may take the
    # other J or the 3 and the 5" (equal_first off); the classic rule takes the J only
    (dict(equal_first=False), ["8D"], ["8C", "5S", "3B"], ["8D x 8C", "8D x 5S 3B"]),
    (dict(), ["8D"], ["8C", "5S", "3B"], ["8D x 8C"]),
    (dict(equal_first=False), ["5D"], ["5C", "5S", "2B", "3C"], ["5D x 5C", "5D x 5S", "5D x 2B 3C"]),
    # ... and beside the 15s (cirulla's captures: equal, sums and 15s, the player chooses)
    (dict(equal_first=False, quindici="both"), ["5D"], ["5C", "10S", "2B", "3S"],
     ["5D x 5C", "5D x 2B 3S", "5D x 10S", "5D x 5C 2B 3S"]),
    # ... fewest_cards still keeps the fewest (the one-card equal capture)
    (dict(equal_first=False, fewest_cards=True), ["8D"], ["8C", "5S", "3B"], ["8D x 8C"]),
    # free capture (004, scopone tables): a card that can capture may also be laid
    (dict(free_capture=True), ["5D", "2C"], ["5C"], ["2C", "5D", "5D x 5C"]),
    # the classic worked example is untouched by the options that do not apply to it
    (dict(re_bello=True, napoleone="ten", primiera="veneto"), ["2D", "5S", "7B"], ["1D", "5B", "6S"],
     ["2D", "5S x 5B", "7B x 1D 6S"]),
]


def _move_text(card, captured):
    """'5D x 4B 6C' written the way Move.__str__ does (captured cards in card-id order)."""
    return card if not captured else f"{card} x " + " ".join(sorted(captured, key=parse_card))


def _normal(expected):
    return sorted(_move_text(m.split(" x ")[0], m.split(" x ")[1].split() if " x " in m else [])
                  for m in expected)


@pytest.mark.parametrize("options,hand,table,expected", CAPTURE_CASES)
def test_worked_capture_examples(options, hand, table, expected):
    g = position(Rules(**options), hand, table)
    assert moves(g) == _normal(expected)
    ref = sorted(_move_text(c, s) for c, s in reference_legal(hand, table, Rules(**options).to_dict()))
    assert ref == _normal(expected)


# (rules options, hand, table, move, is it a scopa)
SCOPA_CASES = [
    (ASSI, ["1D", "4C"], ["5C", "3S"], ("1D", ["5C", "3S"]), False),       # the sweep is no scopa
    (dict(ASSI, ace_scopa=True), ["1D", "4C"], ["5C", "3S"], ("1D", ["5C", "3S"]), True),
    (ASSI, ["1D", "4C"], ["1C"], ("1D", ["1C"]), True),                   # an ace taking an ace
    (dict(ASSI, quindici="both"), ["1D", "4C"], ["7C", "7S"], ("1D", ["7C", "7S"]), True),  # a 15
    (dict(quindici="only"), ["2D", "4C"], ["1C", "5B", "7C"], ("2D", ["1C", "5B", "7C"]), True),
    # the sweep is "also a regular capture" only where the rules in force make that set one
    # (hypothesis found the first against the reference, seed 1202788, 4 players):
    # no equal capture under quindici "only", so a lone ace swept with burned_ace off is the sweep
    (dict(ASSI, burned_ace=False, quindici="only"), ["1S", "4C"], ["1D"], ("1S", ["1D"]), False),
    (dict(ASSI, burned_ace=False), ["1S", "4C"], ["1D"], ("1S", ["1D"]), True),        # equal ace
    (dict(ASSI, quindici="only"), ["1S", "4C"], ["1D"], ("1S", ["1D"]), True),         # burned ace
    # fewest_cards leaves the 15 of three cards out (the ace takes the ace): the sweep is no 15
    (dict(ASSI, burned_ace=False, quindici="both", fewest_cards=True), ["1S", "4C"],
     ["1D", "6C", "7S"], ("1S", ["1D", "6C", "7S"]), False),
    (dict(ASSI, burned_ace=False, quindici="both"), ["1S", "4C"], ["1D", "6C", "7S"],
     ("1S", ["1D", "6C", "7S"]), True),
]


@pytest.mark.parametrize("options,hand,table,move,scopa", SCOPA_CASES)
def test_which_sweeps_are_scope(options, hand, table, move, scopa):
    g = position(Rules(**options), hand, table)
    r = g.play(*move)
    assert r.scopa == scopa and g.scope(0) == int(scopa) and g.table == []
    assert sorted(card_str(c) for c in g.pile(0)) == sorted([move[0]] + move[1])
    # the reference reading agrees on the same sweep
    rules = {**DEFAULTS, **Rules(**options).to_dict()}
    assert (rules["ace_scopa"] or not sweep_only(move[0], frozenset(move[1]), table, rules)) == scopa


def test_ace_sweep_on_the_last_play_is_no_scopa_and_an_ace_on_an_empty_table_stays():
    g = Game(Rules(ace_takes_all=True, ace_scopa=True)).setup(hands=[["1D"], []], table=["5C"], deck=[],
                                                              dealer=1, to_move=0)
    r = g.play("1D", ["5C"])
    assert r.hand_over and not r.scopa
    g = position(Rules(ace_takes_all=True), ["1D", "4C"], [])
    assert not g.play("1D").scopa and g.table == [0]


# ---- primiera scales and most sevens ---------------------------------------------------------
def test_primiera_scales_worked_examples():
    seven = ["7D", "7C", "6B", "1S"]          # 004: 21 + 21 + 18 + 16
    assert primiera(seven) == 76
    assert primiera(seven, "veneto") == 7 + 7 + 6 + 5.5
    assert primiera(["7D", "8C", "9S", "10B"], "figures0") == 21
    assert primiera(["7D", "8C", "9S", "10B"], "standard") == 51
    assert primiera(["7D", "8C", "9S", "10B"], "southern") == 21 + 8 + 9 + 10
    assert primiera(["7D", "8C", "9S", "10B"], "veneto") == 8.5
    assert primiera(["7D", "7C", "7S"], "veneto") == 0   # a suit missing: no primiera
    with pytest.raises(ScopaError, match="^primiera scale must be one of standard, figures0, veneto, "
                                         "southern, got 'most_sevens'$"):
        primiera(seven, "most_sevens")


def _score(rules, piles, scope=None, scores=None):
    n = rules.players
    g = Game(rules).setup(hands=[[]] * n, table=[], piles=piles, scope=scope, scores=scores)
    core.end_hand(g.state)
    return g


# (scale, pile A, pile B, primiera point to A, to B)
PRIMIERA_CASES = [
    ("standard", ["7D", "10C", "10S", "10B"], ["2D", "2C", "2S", "2B"], 1, 0),   # 51 - 48
    ("figures0", ["7D", "10C", "10S", "10B"], ["2D", "2C", "2S", "2B"], 0, 1),   # 21 - 48
    ("veneto", ["7D", "10C", "10S", "10B"], ["2D", "2C", "2S", "2B"], 1, 0),     # 8.5 - 8
    ("standard", ["7D", "8C", "8S", "8B"], ["7C", "9D", "10S", "10B"], 0, 0),    # 51 - 51
    ("southern", ["7D", "8C", "8S", "8B"], ["7C", "9D", "10S", "10B"], 0, 1),    # 45 - 50
    ("veneto", ["1D", "2C", "4S", "3B"], ["5D", "3C", "2S", "4B"], 1, 0),        # 14.5 - 14
    ("standard", ["7D", "7C", "7S", "10B"], ["6D", "6C", "6S", "6B"], 1, 0),     # 73 - 72
    ("veneto", ["7D", "7C", "7S", "10B"], ["6D", "6C", "6S", "6B"], 0, 1),       # 21.5 - 24
    ("figures0", ["8D", "8C", "8S", "8B"], ["7D", "7C", "7S"], 1, 0),            # 0 beats none
    # most sevens (003): two sevens win without bastoni; then 6s, then aces, ...
    ("most_sevens", ["7D", "7C", "1S"], ["7S", "6D", "6C", "6S", "6B"], 1, 0),
    ("standard", ["7D", "7C", "1S"], ["7S", "6D", "6C", "6S", "6B"], 0, 1),
    ("most_sevens", ["7D", "6C", "1S", "1B"], ["7C", "6D", "5S", "5B"], 1, 0),
    ("most_sevens", ["7D", "6C", "5S"], ["7C", "6D", "5B"], 0, 0),
    ("most_sevens", ["7D", "6C", "8S"], ["7C", "6D"], 1, 0),                     # then the figures
    # each count weighs more than any count below it (mutation testing: a count of 4 sixes carried
    # into the sevens, 12 figures into the twos, and the re left out of the figures, unseen)
    ("most_sevens", ["7D", "7C"], ["7S", "6D", "6C", "6S", "6B"], 1, 0),
    ("most_sevens", ["2D"], ["8D", "9D", "10D", "8C", "9C", "10C", "8S", "9S"], 1, 0),
    ("most_sevens", ["8D", "9D"], ["10D", "10C", "10S"], 0, 1),
    # each count before the next: sixes before aces (mutation review: aces first was caught only
    # by chance, in the property tests), then aces, fives, fours, threes, twos, in that order
    ("most_sevens", ["7D", "6C", "6S"], ["7C", "1D", "1S", "1B"], 1, 0),
    ("most_sevens", ["1D", "1C"], ["5D", "5C", "5S"], 1, 0),
    ("most_sevens", ["5D", "5C"], ["4D", "4C", "4S"], 1, 0),
    ("most_sevens", ["4D", "4C"], ["3D", "3C", "3S"], 1, 0),
    ("most_sevens", ["3D", "3C"], ["2D", "2C", "2S"], 1, 0),
]


@pytest.mark.parametrize("scale,a,b,pa,pb", PRIMIERA_CASES)
def test_primiera_point_by_scale(scale, a, b, pa, pb):
    lines = _score(Rules(primiera=scale), [a, b]).hand_score()
    assert (lines[0]["primiera"], lines[1]["primiera"]) == (pa, pb)


@pytest.mark.parametrize("cap", range(3, 11))
def test_all_ten_denari_score_napola_max(cap):
    """Every napola_max from 3 to 10 caps the napola at itself (mutation testing: 9 scored as 10,
    the tests using only 6 and 10); a run of 1-2-3 alone scores 3 whatever the cap."""
    denari = [f"{k}D" for k in range(1, 11)]
    lines = _score(Rules(napola=True, napola_max=cap), [denari, ["1C"]]).hand_score()
    assert (lines[0]["napola"], lines[1]["napola"]) == (cap, 0)
    lines = _score(Rules(napola=True, napola_max=cap), [["1D", "2D", "3D", "5D"], ["4D"]]).hand_score()
    assert (lines[0]["napola"], lines[1]["napola"]) == (3, 0)


# ---- extra points and early ends --------------------------------------------------------------
DENARI = [f"{r}D" for r in range(1, 11)]


def test_re_bello_is_a_point_of_its_own_only_when_on():
    a, b = ["10D", "1D", "1C"], ["7D"]
    on = _score(Rules(re_bello=True), [a, b]).hand_score()
    assert on[0]["re_bello"] == 1 and on[1]["re_bello"] == 0 and on[1]["settebello"] == 1
    assert on[0]["total"] == 3 and on[1]["total"] == 1   # re bello + carte + denari; settebello
    off = _score(Rules(), [a, b]).hand_score()
    assert "re_bello" not in off[0] and off[0]["total"] == 2


@pytest.mark.parametrize("napoleone,napola,over,line", [("ten", False, False, 10), ("ten", True, False, 10),
                                                        ("win", True, True, 0), ("off", True, False, None)])
def test_napoleone(napoleone, napola, over, line):
    g = _score(Rules(napoleone=napoleone, napola=napola, target=31), [DENARI, ["1C", "2C"]])
    s = g.hand_score()[0]
    assert s.get("napoleone") == line
    assert s["napola"] == (10 if napola else 0)
    assert g.match_over == over and (g.winner == 0) == over
    assert g.napoleone_side == (None if napoleone == "off" else 0)


def test_napoleone_side_is_the_hands_own():
    """A napoleone is judged each hand: under napoleone="ten" the match goes on, and the next
    hand's result names no napoleone side unless it has one (a mutation review: the side was
    never cleared, and play.py shows it)."""
    den = [f"{r}D" for r in range(1, 11)]
    g = Game(Rules(napoleone="ten", target=51), seed=0)
    g.setup(hands=[["1C"], []], table=[], piles=[den, []])
    g.play("1C")
    assert g.hand_over and not g.match_over and g.napoleone_side == 0
    g.setup(hands=[["1C"], []], table=[], piles=[den[1:], den[:1]])
    g.play("1C")
    assert g.hand_over and g.napoleone_side is None


def test_napoleone_win_beats_a_higher_score():
    g = _score(Rules(napoleone="win"), [DENARI, ["1C", "2C", "3C"]], scores=[0, 30])
    assert g.match_over and g.winner == 0 and g.scores[1] > g.scores[0]


@pytest.mark.parametrize("before,b_pile,over", [([5, 0], [], True), ([5, 0], ["1C", "2C", "3C", "4C", "5C"], False),
                                                ([3, 0], [], False), ([4, 0], [], True)])
def test_capotto(before, b_pile, over):
    # A takes carte, denari and settebello: 5-0 becomes 8-0, a capotto at 7; a point for B spoils
    # it; 4-0 becomes exactly 7-0, a capotto too (">= capotto": '>' passed every test; review)
    g = _score(Rules(capotto=7), [["7D", "2D"], b_pile], scores=before)
    assert g.match_over == over and (g.winner == 0) == over and g.scores[0] < 11


@pytest.mark.parametrize("before,over", [([4, 0, 0], True), ([4, 0, 1], False), ([4, 1, 0], False)])
def test_capotto_with_three_sides_needs_every_other_side_at_0(before, over):
    """Six players, three sides: side 0 (seats 0 and 3) takes carte, denari and settebello, 7 in
    all; a capotto only while both other sides have 0 (a check of the next side alone passed
    every test; review)."""
    g = _score(Rules(players=6, capotto=7), [["7D", "2D"], [], [], [], [], []], scores=before)
    assert g.scores[0] == 7 and g.match_over == over and (g.winner == 0) == over


# ---- players and sides -----------------------------------------------------------------------
def _cards(n, start):
    return [card_str(c) for c in range(start, start + n)]


@pytest.mark.parametrize("sizes,points", [((14, 13, 13), (1, 0, 0)), ((14, 14, 12), (0, 0, 0)),
                                          ((13, 13, 14), (0, 0, 1))])
def test_three_players_carte_at_fourteen(sizes, points):
    deck = [card_str(c) for c in range(40)]
    piles, at = [], 0
    for k in sizes:
        piles.append(deck[at:at + k])
        at += k
    lines = _score(Rules(players=3), piles).hand_score()
    assert tuple(line["carte"] for line in lines) == points


def test_pairs_pool_piles_and_scope():
    # seats 0 and 2 are partners: 12 + 10 = 22 cards against 9 + 9
    piles = [_cards(12, 0), _cards(9, 12), _cards(10, 21), _cards(9, 31)]
    g = _score(Rules(players=4), piles, scope=[1, 0, 2, 1])
    a, b = g.hand_score()
    assert len(g.hand_score()) == 2 and g.scores == [a["total"], b["total"]]
    assert a["carte"] == 1 and a["scope"] == 3 and b["scope"] == 1
    assert a["denari"] == 1 and a["settebello"] == 1   # all denari are in seat 0's pile


def test_six_players_three_pairs():
    r = Rules(players=6)
    assert r.teams == 3 and [r.team_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    piles = [_cards(7, 0), _cards(7, 7), _cards(6, 14), _cards(7, 20), _cards(6, 27), _cards(7, 33)]
    lines = _score(r, piles, scope=[0, 1, 0, 0, 1, 0]).hand_score()
    assert len(lines) == 3
    assert [line["carte"] for line in lines] == [1, 0, 0]   # 14 - 13 - 13
    assert [line["scope"] for line in lines] == [0, 2, 0]


@pytest.mark.parametrize("preset,hand,table,deals", [
    ("classic", 3, 4, 6), ("three-players", 3, 4, 4), ("pairs", 3, 4, 3), ("six-players", 3, 4, 2),
    ("scopone", 9, 4, 1), ("scopone-scientifico", 10, 0, 1)])
def test_deals_per_hand_and_turn_order(preset, hand, table, deals):
    rules = rules_from_preset(preset)
    assert rules.deals_per_hand == deals
    g = Game(rules, seed=3)
    rng = np.random.default_rng(3)
    dealers = []
    for _ in range(2):
        n = rules.players
        assert all(len(g.hand(p)) == hand for p in range(n)) and len(g.table) == table
        assert g.deck_left == 40 - table - n * hand
        dealers.append(g.dealer)
        seen_deals, expected_mover = 1, (g.dealer + 1) % n
        if table == 0:
            assert all(m.captured == 0 for m in g.legal_moves())   # the first player must lay
        while True:
            assert g.to_move == expected_mover
            ms = g.legal_moves()
            m = ms[rng.integers(len(ms))]
            r = g.play(m.card, m.captured)
            seen_deals += r.dealt
            expected_mover = (expected_mover + 1) % n
            if r.hand_over:
                break
        assert seen_deals == deals
        if g.match_over:
            break
        g.next_hand()
    if len(dealers) == 2:
        assert dealers[1] == (dealers[0] + 1) % rules.players


def _first_shuffle(seed, players):
    """The 40 cards of a seed's first shuffle in dealing order, before any redeal: the draws
    core.init_match_rules makes (the dealer, then the shuffle)."""
    s = np.zeros(core.STATE_SIZE, dtype=np.int64)
    core.seed_rng(s, core.RNG, seed)
    s[core.DECK:core.DECK + 40] = np.arange(40)
    core.rng_below(s, core.RNG, players)        # the dealer
    core._shuffle_deck(s)
    return s[core.DECK:core.DECK + 40].tolist()


@pytest.mark.parametrize("preset", ["classic", "three-players", "pairs", "six-players", "scopone"])
def test_redeal_on_three_re_only_with_a_four_card_table(preset):
    """Seeds whose first shuffle puts 3+ re among the 4 table cards are redealt, wherever the
    table's cards lie in the deck (after players x hand cards: 12 in pairs, 36 in scopone; only
    the pairs were tested, and reading scopone's table at 12 passed every test; review)."""
    rules = rules_from_preset(preset)
    first_table = rules.players * rules.hand_cards
    found = 0
    for seed in range(20_000 if preset == "scopone" else 3000):
        first = _first_shuffle(seed, rules.players)
        if sum(c % 10 == 9 for c in first[first_table:first_table + 4]) >= 3:
            found += 1
            assert sum(c % 10 == 9 for c in Game(rules, seed).table) < 3, seed
    assert found > 0


def test_no_redeal_without_a_four_card_table():
    """Scientifico's empty table: the 3-re rule is for a 4-card table only (README), so the deal
    stands with 3+ re among the cards dealt where a table would be."""
    rules = rules_from_preset("scopone-scientifico")
    kept = 0
    for seed in range(20_000):
        first = _first_shuffle(seed, rules.players)
        if sum(c % 10 == 9 for c in first[36:40]) >= 3:
            g = Game(rules, seed)
            blocks = sorted(sorted(first[10 * k:10 * k + 10]) for k in range(4))
            assert g.table == [] and sorted(sorted(g.hand(p)) for p in range(4)) == blocks, seed
            kept += 1
    assert kept > 0


@pytest.mark.parametrize("preset", ["classic", "pairs", "escoba"])
def test_ace_redeal_voids_a_first_table_of_two_aces(preset):
    """ace_redeal (cirulla, seed 004: "if two or more aces are among the first table cards, the
    deal is made again"): such seeds are dealt again with the option and kept without it, with
    the 3-re rule as the preset has it (escoba keeps 3 re on the table)."""
    rules = rules_from_preset(preset)
    first_table = rules.players * rules.hand_cards
    found = 0
    for seed in range(400):
        first = _first_shuffle(seed, rules.players)
        aces = sum(c % 10 == 0 for c in first[first_table:first_table + 4])
        res = sum(c % 10 == 9 for c in first[first_table:first_table + 4])
        voided = aces >= 2 or (res >= 3 and rules.re_redeal)
        on = Game(rules.replace(ace_redeal=True), seed)
        off = Game(rules, seed)
        assert sum(c % 10 == 0 for c in on.table) < 2, seed
        if aces >= 2:
            found += 1
            if not voided or res < 3:       # without the option only the re may void it
                assert off.first_table() == first[first_table:first_table + 4], seed
        if not voided:                      # a table the option keeps is the same deal
            assert on.table == off.table and on.hand(0) == off.hand(0), seed
    assert found > 10


def test_which_first_tables_void_the_deal_by_option():
    """RULES.md: 3 or 4 re among the 4 table cards void the deal; re_redeal=False keeps them,
    ace_redeal voids 2 aces, and another table size voids nothing (core.void_first_table). The
    mixed settings went unchecked (a mutation review: an engine changed to void 3 re under
    re_redeal=False when ace_redeal is on, or a 10-card table by its first four cards, passed
    every test; the engine itself is right)."""
    three_re = _deck(["10D", "10C", "10S", "2D"])
    two_aces = _deck(["1D", "1C", "3S", "2D"])
    cases = [(Rules(), three_re, True), (Rules(re_redeal=False), three_re, False),
             (Rules(re_redeal=False, ace_redeal=True), three_re, False),
             (Rules(re_redeal=False, ace_redeal=True), two_aces, True),
             (Rules(ace_redeal=True), three_re, True), (Rules(), two_aces, False),
             (Rules(table_cards=10), three_re, False),
             (Rules(table_cards=10, ace_redeal=True), two_aces, False)]
    for rules, deck, void in cases:
        g = Game(rules, 0)
        if void:
            words = (r"the table 10D 10C 10S 2D holds 3 or more re, a void deal that is dealt again "
                     r"\(re_redeal=False plays it\)" if deck is three_re else
                     r"the table 1D 1C 3S 2D holds 2 or more aces, a void deal under ace_redeal that is dealt again")
            with pytest.raises(ScopaError, match=f"^{words}$"):
                g.deal_hand(0, deck)
        else:
            g.deal_hand(0, deck)
            assert sorted(g.table) == sorted(deck[6:6 + rules.table_cards]), rules


def test_a_record_with_two_aces_on_a_first_table_replays_only_without_ace_redeal():
    """A record of a hand dealt with two aces on the table (a later hand: the first is the seed's,
    whose check names the seed) replays under the classic rules and is refused, naming the rule,
    under ace_redeal."""
    for seed in range(100):
        rec = json.loads(records.dumps(random_match(Rules(), seed, np.random.default_rng(seed))))
        late = [h for h, hand in enumerate(rec["hands"]) if h > 0
                and sum(c.startswith("1") and len(c) == 2 for c in hand["deals"][0]["table"]) >= 2]
        if late:
            break
    check_record(rec)
    records.replay(rec)
    rec["rules"]["ace_redeal"] = True
    with pytest.raises(AssertionError, match="2\\+ aces"):
        check_record(rec)
    with pytest.raises(ScopaError, match=f"hand {late[0]}: .* holds 2 or more aces, a void deal under ace_redeal"):
        records.replay(rec)


def _deck(table, players=2):
    """A 40-card deck in dealing order: 3 cards to each of `players` seats, then `table`, then
    the rest."""
    tab = [parse_card(c) for c in table]
    rest = [c for c in range(40) if c not in tab]
    return rest[:3 * players] + tab + rest[3 * players:]


@pytest.mark.parametrize("table,scope", [
    (["1D", "2D", "3D", "9S"], 1),          # 1 + 2 + 3 + 9 = 15
    (["7D", "5C", "2S", "1B"], 1),          # the seeds' example sums: 15, one scopa
    (["7C", "5D", "2S", "1B"], 1),          # no joker option: the 7 of coppe is a 7 (review)
    (["10D", "10C", "9S", "1B"], 2),        # 30: two scope
    (["8D", "9D", "9C", "4B"], 2),
    (["7D", "5C", "2S", "2B"], 0),          # 16: the table stays
    (["10D", "10C", "9S", "2B"], 0),        # 31
])
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_dealer_sweep_takes_a_first_table_of_15_or_30(table, scope, players):
    """Seeds 003, 004 (escoba de 15, cirulla): 'if the four first cards sum to 15 the dealer takes
    them and scores a scopa; if 30, two'. The first player then leads to an empty table, and the
    dealer is the hand's last capturer so far; in pairs the scope count for the dealer's side.
    Every dealer seat (a sweep given to seat dealer % 2 passed the 2-player cases; review)."""
    rules = Rules(dealer_sweep=True, players=players)
    for dealer in range(players):
        g = Game(rules, 1)
        g.deal_hand(dealer, _deck(table, players))
        assert g.dealer_sweep() == scope
        assert g.first_table() == [parse_card(c) for c in table]
        others = [p for p in range(players) if p != dealer]
        if scope:
            assert g.table == [] and sorted(g.pile(dealer)) == sorted(parse_card(c) for c in table)
            assert g.scope(dealer) == scope and all(g.scope(p) == 0 and g.pile(p) == [] for p in others)
            assert g.last_capturer == dealer and g.to_move == (dealer + 1) % players
            assert all(not m.captured for m in g.legal_moves())   # nothing to take on an empty table
        else:
            assert sorted(g.table) == sorted(parse_card(c) for c in table)
            assert g.scope(dealer) == 0 and g.pile(dealer) == [] and g.last_capturer is None
        plain = Game(rules.replace(dealer_sweep=False), 1)   # the option off: the table stays
        plain.deal_hand(dealer, _deck(table, players))
        assert sorted(plain.table) == sorted(parse_card(c) for c in table) and plain.dealer_sweep() == 0
        if scope:      # the side's score: play the hand out, the dealer's side counts the sweep
            rng = np.random.default_rng(dealer)
            while not g.hand_over:
                ms = g.legal_moves()
                m = ms[rng.integers(len(ms))]
                g.play(m.card, m.captured)
            side = rules.team_of(dealer)
            assert g.hand_score()[side]["scope"] >= scope


def test_dealer_sweep_of_a_set_up_position_is_none():
    """Game.dealer_sweep() is the deal's; a position put in place by setup was dealt by nobody
    (it read the deck's first table, and named a sweep the position did not hold; review)."""
    g = Game("escoba", 7)
    assert g.dealer_sweep() == 1
    g.setup([["2B"], ["1D"]], ["5C", "7S"], dealer=0, to_move=1)
    assert g.dealer_sweep() == 0
    g = Game(Rules(dealer_sweep=True, table_cards=10), 78)    # any table size: 10 cards to 30
    assert g.dealer_sweep() == 2 and g.table == [] and len(g.pile(g.dealer)) == 10


def test_the_dealer_sweep_counts_in_the_hand_score_and_the_record_replays():
    """The swept scope are the dealer's in the hand's score line, the reference agrees, and a
    record of such a hand replays (its deal lists the table as dealt)."""
    rules = rules_from_preset("escoba").replace(target=3)
    seen = 0
    for seed in range(60):
        g = Game(rules, seed)
        rng = np.random.default_rng(seed)
        rec = records.Recorder(g, ["random", "random"], with_legal=True)
        swept = {}
        while not g.match_over:
            if g.hand_over:
                rec.next_hand()
            if g.state[core.PLAYS] == 0 and g.dealer_sweep():
                swept[g.hand_no] = (g.dealer, g.dealer_sweep())
            ms = g.legal_moves()
            m = ms[rng.integers(len(ms))]
            if rec.play(m.card, m.captured).hand_over:
                if g.hand_no in swept:
                    dealer, k = swept[g.hand_no]
                    assert g.hand_score()[dealer]["scope"] >= k
        rec = json.loads(records.dumps(rec.record))
        check_record(rec, require_legal=True)
        assert records.replay(rec).scores == g.scores
        seen += len(swept)
    assert seen >= 5


def test_escoba_voids_no_table_of_re():
    """Seed 004's table: the three-re redeal is classic scopa's; escoba de 15 voids no first table
    (a 15 or 30 goes to the dealer instead). With re_redeal off the first shuffle is dealt even
    with 3+ re on the table; the classic game deals such a seed again."""
    rules = rules_from_preset("escoba")
    assert not rules.re_redeal and rules.dealer_sweep
    kept = 0
    for seed in range(3000):
        table = _first_shuffle(seed, 2)[6:10]
        if sum(c % 10 == 9 for c in table) >= 3:
            g = Game(rules, seed)
            assert g.first_table() == table, seed
            assert Game(Rules(), seed).first_table() != table
            if not kept:                              # a record of such a deal replays
                rec = json.loads(records.dumps(random_match(rules.replace(target=3), seed,
                                                            np.random.default_rng(seed))))
                check_record(rec)
                records.replay(rec)
                rec["rules"]["re_redeal"] = True              # the classic rule deals this seed again
                with pytest.raises(ScopaError, match="the engine dealt"):
                    records.replay(rec)
            kept += 1
    assert kept > 0


def test_match_to_target_with_three_sides_needs_a_strict_leader():
    # one card, no denari: the carte point alone
    g = _score(Rules(players=6, target=11), [[], [], ["1C"], [], [], []], scores=[11, 10, 10])
    assert g.scores == [11, 10, 11] and not g.match_over and g.phase == core.HAND_OVER
    g = _score(Rules(players=6, target=11), [[], ["1C"], [], [], [], []], scores=[11, 9, 10])
    assert g.scores == [11, 10, 10] and g.match_over and g.winner == 0


# ---- rules objects and presets ----------------------------------------------------------------
@pytest.mark.parametrize("bad,match", [
    (dict(players=5), r"^rules option players must be one of 2, 3, 4, 6, got 5$"),
    (dict(players=4, hand_cards=4), r"^rules options hand_cards=4, table_cards=4: the 36 cards left after the "
                                    r"table are not a whole number of deals of 4 x 4$"),
    (dict(table_cards=3), r"^rules options hand_cards=3, table_cards=3: the 37 cards left after the table "
                          r"are not a whole number of deals of 2 x 3$"),
    (dict(napoleone="yes"), r"^rules option napoleone must be one of 'off', 'win', 'ten', got 'yes'$"),
    (dict(quindici=True), r"^rules option quindici must be one of 'off', 'only', 'both', got True$"),
    (dict(primiera="veneta"), r"^rules option primiera must be one of 'standard', 'figures0', 'veneto', "
                              r"'southern', 'most_sevens', got 'veneta'$"),
    (dict(capotto=-1), r"^rules option capotto must be a whole number 0\.\.1000, got -1$"),
    (dict(ace_scopa=True), r"^rules option ace_scopa needs ace_takes_all$"),
    (dict(burned_ace=False), r"^rules option burned_ace=false needs ace_takes_all$"),
    (dict(fewest_cards=1), r"^rules option fewest_cards must be true or false, got 1$"),
    (dict(equal_first="no"), r"^rules option equal_first must be true or false, got 'no'$"),
    (dict(ace_redeal=1), r"^rules option ace_redeal must be true or false, got 1$"),
    (dict(teams=2), r"^unknown rules option 'teams' \(known: ace_redeal, ace_scopa, ace_takes_all, burned_ace, "
                    r"capotto, dealer_sweep, equal_first, fewest_cards, free_capture, grande, hand_bonus, "
                    r"hand_cards, joker, napola, napola_max, napoleone, players, primiera, quindici, re_bello, "
                    r"re_redeal, table_cards, target\)$"),
    # an option without effect under the others (review: accepted, and played as equal_first on)
    (dict(quindici="only", equal_first=False), r"^rules option equal_first=false needs equal-value captures: "
                                               r"quindici='only' has none \(a card takes only cards that "
                                               r"with it sum to 15\)$"),
    # an option's own type before its relations: this was "hand_bonus needs 3 cards a deal ...
    # got hand_cards=3" (review)
    (dict(hand_bonus=True, hand_cards="3"), r"^rules option hand_cards must be a whole number 1\.\.20, got '3'$"),
    (dict(joker=True, napoleone="yes"), r"^rules option napoleone must be one of 'off', 'win', 'ten', got 'yes'$"),
    # the observations hold scores as int8, clipped at 127: past it every agent saw 127 - 127
    (dict(target=101), r"^rules option target must be a whole number 1\.\.100, got 101$"),
    (dict(target=0), r"^rules option target must be a whole number 1\.\.100, got 0$"),
    # a start table past 10 is no game the sources describe; 12 with hands of 2 makes whole
    # deals, so only the bound refuses it (a mutation review: a bound of 12 passed)
    (dict(table_cards=12, hand_cards=2), r"^rules option table_cards must be a whole number 0\.\.10, got 12$"),
])
def test_bad_rules_are_one_error_naming_the_option(bad, match):
    with pytest.raises(ScopaError, match=match):
        Rules.from_dict(bad)


def test_presets():
    for name in ("classic", "scopone", "scopone-scientifico", "scopa-d-assi", "quindici", "napola",
                 "re-bello", "three-players", "pairs", "six-players"):
        assert name in PRESETS
    # every preset has its own line in the list (a name found inside another's description or
    # options passed: 'classic' and 'napola' could go missing unseen; review)
    text = list_rules_text()
    for name in PRESETS:
        assert re.search(rf"^  {re.escape(name)} +\S", text, re.M), name
    assert rules_from_preset("classic") == Rules()
    assert rules_from_preset("scopone") == Rules(players=4, hand_cards=9, table_cards=4)
    assert rules_from_preset("Scopone-Scientifico").table_cards == 0
    for p in PRESETS.values():
        assert Rules.from_dict(p.rules.to_dict()) == p.rules and p.description and p.source
    with pytest.raises(ScopaError, match=re.escape(f"(known: {', '.join(PRESETS)})")):
        rules_from_preset("briscola")       # every name, the last one too (mutation review)


def test_list_rules_lines_up_the_descriptions_and_shows_each_options_values():
    """--list-rules: every preset's description starts in the same column, after the longest
    name; a choice's values are listed with ' | ' (a mutation review found both unchecked)."""
    lines = list_rules_text().splitlines()      # the presets first, then the options
    starts = {next(m.end() for m in (re.match(rf"  {re.escape(name)} +(?=\S)", line) for line in lines) if m)
              for name in PRESETS}
    assert starts == {2 + max(map(len, PRESETS)) + 2}
    assert "  quindici = off | only | both (classic off)" in lines
    # within 79 columns, a long description continued under its own column, never under the
    # names' (lines of up to 540 characters wrapped back into it: a terminal review)
    column = 2 + max(map(len, PRESETS)) + 2
    assert max(map(len, lines)) <= 79
    head = lines.index(next(line for line in lines if line.startswith("Rules options")))
    presets = lines[next(i for i, line in enumerate(lines) if line.startswith("  ")):head]
    named = [line for line in presets if not line.startswith(" " * column)]
    assert len(named) == len(PRESETS) and len(presets) > 2 * len(PRESETS)     # some were continued


# ---- the classic game is the game it was --------------------------------------------------------
def test_classic_matches_unchanged_from_the_engine_before_the_variants():
    # values printed by the engine of commit abae5a2 (before the variants) for the same calls
    assert [int(core.random_hands(s, 2000, 2, s % 2, 11)) for s in range(5)] == [-81, -170, -76, -148, 144]
    g = Game(seed=42)
    assert (g.dealer, g.hand(0), g.hand(1), g.table) == (0, [11, 16, 32], [5, 17, 23], [1, 2, 3, 6])
    for seed, napola, digest in ((7, False, "6082811e67522ea6"), (8, True, "7b42fa6cc5669335")):
        r = random_match(Rules(napola=napola), seed, np.random.default_rng(seed))
        r.pop("rules")
        assert r.pop("format") == 1       # a field added later: the game itself is unchanged
        assert hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()[:16] == digest


def test_old_records_without_the_new_keys_replay_as_classic():
    rec = json.loads(records.dumps(random_match(Rules(napola=True), 5, np.random.default_rng(5))))
    rec["rules"] = {"napola": True, "target": 11}
    assert records.replay(rec).rules == Rules(napola=True)
    rec["rules"] = {"napola": True, "target": 11, "players": 5}
    with pytest.raises(ScopaError, match=r"^rules option players must be one of 2, 3, 4, 6, got 5$"):
        records.replay(rec)


# ---- invariants of every preset under random play ----------------------------------------------
def _conserved(g):
    s = g.state
    n = g.n_players
    parts = [int(s[core.HANDS + p]) for p in range(n)] + [int(s[core.PILES + p]) for p in range(n)]
    parts.append(int(s[core.TABLE]))
    deck = 0
    for c in s[core.DECK + int(s[core.DECK_POS]):core.DECK + 40]:
        deck |= 1 << int(c)
    union = 0
    for m in parts + [deck]:
        if union & m:
            return False
        union |= m
    return union == ALL_CARDS_MASK


def _invariant_match(rules, seed):
    g = Game(rules, seed)
    rng = np.random.default_rng(seed % 2 ** 32)
    rec = records.Recorder(g, ["random"] * rules.players, with_legal=True)
    totals = [0] * rules.teams
    while True:
        assert _conserved(g)
        ms = g.legal_moves()
        assert ms, "the mover always has a legal move"
        assert len(set(ms)) == len(ms), "no move listed twice"
        last = g.deck_left == 0 and sum(len(g.hand(p)) for p in range(rules.players)) == 1
        m = ms[rng.integers(len(ms))]
        r = rec.play(m.card, m.captured)
        if last:
            assert r.hand_over and not r.scopa
        if r.hand_over:
            lines = g.hand_score()
            assert len(lines) == rules.teams
            for s, line in enumerate(lines):
                assert set(line) == set(g.score_lines())
                assert line["total"] == sum(v for k, v in line.items() if k != "total")
                totals[s] += line["total"]
            for k in ("carte", "denari", "primiera"):
                assert sum(line[k] for line in lines) <= 1
            assert sum(line["settebello"] for line in lines) == 1
            assert totals == g.scores
            if r.match_over:
                return g, rec.record
            rec.next_hand()


SMALL_TARGET = 5   # shorter matches: every preset's rules but the target


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2 ** 40))
def test_preset_invariants_record_replay_and_reference(preset, seed):
    rules = rules_from_preset(preset).replace(target=SMALL_TARGET)
    g, rec = _invariant_match(rules, seed)
    assert g.scores[g.winner] == max(g.scores)
    rec = json.loads(records.dumps(rec))
    assert rec["rules"] == rules.to_dict()
    check_record(rec, require_legal=True)
    assert records.replay(rec).scores == g.scores
    again = random_match(rules, seed, np.random.default_rng(9))
    assert again == random_match(rules, seed, np.random.default_rng(9))   # same seed, same match


_deals = st.sampled_from([(2, 3, 4), (3, 3, 4), (4, 3, 4), (6, 3, 4), (4, 9, 4), (4, 10, 0), (2, 6, 4),
                          (2, 10, 0), (2, 5, 0)])


@st.composite
def any_rules(draw):
    players, hand_cards, table_cards = draw(_deals)
    ace = draw(st.booleans())
    napola = draw(st.booleans())
    bonus = hand_cards == 3 and draw(st.booleans())
    sweep = draw(st.booleans())
    quindici = draw(st.sampled_from(["off", "only", "both"]))   # "only": no equal captures to order
    return Rules(players=players, hand_cards=hand_cards, table_cards=table_cards, target=draw(st.integers(3, 8)),
                 napola=napola, napola_max=draw(st.integers(3, 10)) if napola else 10,
                 grande=draw(st.booleans()), hand_bonus=bonus,
                 joker=(bonus or sweep) and draw(st.booleans()), re_bello=draw(st.booleans()),
                 napoleone=draw(st.sampled_from(["off", "win", "ten"])), ace_takes_all=ace,
                 ace_scopa=ace and draw(st.booleans()), burned_ace=not ace or draw(st.booleans()),
                 quindici=quindici, fewest_cards=draw(st.booleans()),
                 free_capture=draw(st.booleans()),
                 primiera=draw(st.sampled_from(["standard", "figures0", "veneto", "southern", "most_sevens"])),
                 capotto=draw(st.sampled_from([0, 0, 2, 4])), re_redeal=draw(st.booleans()),
                 dealer_sweep=sweep, equal_first=quindici == "only" or draw(st.booleans()),
                 ace_redeal=draw(st.booleans()))


@settings(max_examples=60, deadline=None)
@given(any_rules(), st.integers(0, 2 ** 40))
def test_any_combination_of_options_agrees_with_the_reference(rules, seed):
    g, rec = _invariant_match(rules, seed)
    rec = json.loads(records.dumps(rec))
    check_record(rec, require_legal=True)
    records.replay(rec)


def test_compiled_random_play_of_every_preset_plays_its_rules():
    """The compiled random play (what bench_engine.py --presets times) follows each preset's
    options: its checksum differs from the same deal under plain rules (a kernel that ignored
    the options, or returned 0, passed the determinism check this test made alone; review)."""
    differ = 0
    for p in PRESETS.values():
        r, h = p.rules, p.rules.to_header()
        plain = Rules(players=r.players, hand_cards=r.hand_cards, table_cards=r.table_cards, target=r.target)
        got = core.random_hands_rules(5, 30, h)
        assert got == core.random_hands_rules(5, 30, h)        # deterministic
        if r != plain:
            assert got != core.random_hands_rules(5, 30, plain.to_header()), p.name
            differ += 1
    assert differ >= 9
    assert core.random_hands(5, 30, 2, 0, 11) == core.random_hands_rules(5, 30, Rules().to_header())


# ---- validated play under the options --------------------------------------------------------
@pytest.mark.parametrize("options,hand,table,move", [
    (ASSI, ["1D"], ["1C", "5S", "3B"], ("1D", ["1C", "5S", "3B"])),      # a burned ace cannot sweep
    (ASSI, ["1D", "4C"], ["5S"], ("1D", [])),                             # an ace that can sweep must
    (dict(quindici="only"), ["5D"], ["5C", "10S"], ("5D", ["5C"])),       # no equal capture
    (dict(quindici="both", fewest_cards=True), ["5D"], ["5C", "6S", "4B"], ("5D", ["6S", "4B"])),
    (dict(), ["5D"], ["5C"], ("5D", [])),                                  # no free capture
])
def test_illegal_variant_moves_are_refused_and_leave_the_state(options, hand, table, move):
    g = position(Rules(**options), hand, table)
    before = g.state.copy()
    with pytest.raises(ScopaError, match="illegal capture"):
        g.play(*move)
    assert np.array_equal(g.state, before)


def test_ace_sweep_through_an_action_id():
    rules = Rules(ace_takes_all=True)
    g = position(rules, ["1D", "4C"], ["5S", "3B"])
    ids = g.legal_action_ids()
    assert len(ids) == 2 and (ids >= 0).all()
    sweep = [a for a, m in zip(ids, g.legal_moves(), strict=True) if m.card == 0][0]
    r = g.play_action(sweep)
    assert r.move.captured_cards == [24, 32] and not r.scopa and g.table == []   # 5S 3B


_SPARE = {"9B", "9C", "9S", "9D", "6D", "8S"}          # the cards position() gives the other seats
_POOL = [c for c in (f"{r}{s}" for s in "DCSB" for r in range(1, 11)) if c not in _SPARE]


@st.composite
def capture_positions(draw):
    ace = draw(st.booleans())
    quindici = draw(st.sampled_from(["off", "only", "both"]))
    options = dict(ace_takes_all=ace, ace_scopa=ace and draw(st.booleans()),
                   burned_ace=not ace or draw(st.booleans()), quindici=quindici,
                   fewest_cards=draw(st.booleans()), free_capture=draw(st.booleans()),
                   equal_first=quindici == "only" or draw(st.booleans()))
    # biased toward the corners: an ace in hand, small tables, low cards (sweeps, sums, 15s)
    hand = draw(st.lists(st.sampled_from(_POOL), min_size=1, max_size=3, unique=True))
    if draw(st.booleans()) and not any(c.startswith("1") and len(c) == 2 for c in hand):
        hand[0] = next(c for c in ("1S", "1C", "1B", "1D") if c not in hand)
    rest = [c for c in _POOL if c not in hand]
    if draw(st.booleans()):
        rest = [c for c in rest if int(c[:-1]) <= 4]
    size = draw(st.sampled_from([0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 8]))
    table = draw(st.lists(st.sampled_from(rest), min_size=size, max_size=size, unique=True))
    return options, hand, table


@settings(max_examples=3000, deadline=None)      # ~8 s; found the old ace-sweep bug in 5 runs of 5
@given(capture_positions())
def test_every_capture_and_sweep_agrees_with_the_reference(case):
    # position by position, where the corners are (random play found the ace-sweep one slowly):
    # the legal moves, and whether each move that empties the table is a scopa
    options, hand, table = case
    rules = Rules(**options)
    ref_rules = {**DEFAULTS, **rules.to_dict()}
    g = position(rules, hand, table)
    assert moves(g) == sorted(_move_text(c, s) for c, s in reference_legal(hand, table, ref_rules))
    for m in g.legal_moves():
        taken = [card_str(c) for c in range(40) if m.captured >> c & 1]
        if m.captured and sorted(taken) == sorted(table):
            r = position(rules, hand, table).play(card_str(m.card), taken)
            assert r.scopa == (ref_rules["ace_scopa"] or not sweep_only(card_str(m.card),
                                                                       frozenset(taken), table, ref_rules))


@st.composite
def hand_ends(draw):
    """Rules with every option of the end-of-hand score (the hand bonuses are scored during a deal:
    test_cirulla; capotto ends a match, it scores nothing), the 40 cards split between the seats'
    piles (skewed, now and then every denaro to one seat) but one card, laid on an empty table by
    the last mover. (Until a review broke grande's 5 unseen here, grande and napola_max were not drawn.)"""
    players = draw(st.sampled_from([2, 3, 4, 6]))
    napola = draw(st.booleans())
    rules = Rules(players=players, napola=napola, napola_max=draw(st.integers(3, 10)) if napola else 10,
                  grande=draw(st.booleans()), re_bello=draw(st.booleans()),
                  napoleone=draw(st.sampled_from(["off", "win", "ten"])),
                  primiera=draw(st.sampled_from(["standard", "figures0", "veneto", "southern", "most_sevens"])))
    order = draw(st.permutations([f"{r}{s}" for s in "DCSB" for r in range(1, 11)]))
    owners = draw(st.lists(st.integers(0, players - 1), min_size=39, max_size=39))
    piles = [[c for c, o in zip(order[1:], owners, strict=True) if o == p] for p in range(players)]
    if draw(st.booleans()):
        denari = [c for p in piles for c in p if c.endswith("D")]
        piles = [[c for c in p if not c.endswith("D")] for p in piles]
        piles[draw(st.integers(0, players - 1))] += denari
    scope = draw(st.lists(st.integers(0, 3), min_size=players, max_size=players))
    last = draw(st.sampled_from([p for p in range(players) if piles[p]]))
    return rules, order[0], draw(st.integers(0, players - 1)), piles, scope, last


@settings(max_examples=300, deadline=None)
@given(hand_ends())
def test_every_score_line_agrees_with_the_reference(case):
    rules, card, mover, piles, scope, last = case
    hands = [[] for _ in piles]
    hands[mover] = [card]
    g = Game(rules).setup(hands=hands, table=[], piles=piles, deck=[], dealer=(mover - 1) % rules.players,
                          scope=scope, last_capturer=last)
    assert g.play(card).hand_over
    piles[last] = piles[last] + [card]                  # the table goes to the last capturer
    sides = rules.teams
    side_piles = [sum((piles[p] for p in range(rules.players) if p % sides == s), []) for s in range(sides)]
    side_scope = [sum(scope[p] for p in range(rules.players) if p % sides == s) for s in range(sides)]
    assert g.hand_score() == reference_score(side_piles, side_scope, {**DEFAULTS, **rules.to_dict()})


def test_free_capture_asks_which_way_to_play_the_card_naming_the_lay():
    """Under free_capture a card that captures may also be laid; a play that leaves the choice
    open names the lay and how to ask for it (review: it said '5C can capture in 2 ways', the lay
    counted among the captures and shown as a bare '5C')."""
    g = Game(Rules(free_capture=True))
    g.setup([["5C"], ["5D"]], ["5S"], dealer=1, to_move=0)
    with pytest.raises(ScopaError, match=r"5C can be played in 2 ways, say which: 5C x 5S; "
                                         r"5C laid \(captured=\[\]\)"):
        g.play("5C")
    assert g.play("5C", []).move.captured == 0 and sorted(g.table) == sorted(map(parse_card, ["5S", "5C"]))


def test_a_rules_mismatch_names_the_options_that_differ():
    """Review: 'was trained for rules quindici (target=21, quindici=only), not quindici=only'
    hid what differed (describe() leaves out options at their default: target 11)."""
    from agents import make_agent
    trained, asked = rules_from_preset("quindici"), rules_from_preset("quindici").replace(target=11)
    assert trained.differences(asked) == "target 21 there, 11 here"
    assert Rules(napola=True).differences(Rules(target=21)) == "napola true there, false here; target 11 there, 21 here"
    assert Rules().differences(Rules()) == ""
    with pytest.raises(ScopaError, match=r"^checkpoint '.*scopa-default.pt' was trained for rules classic, "
                                         r"not target=21 \(target 11 there, 21 here\)$"):
        make_agent("checkpoints/scopa-default.pt", rules=Rules(target=21))


def test_preset_flags_give_back_the_rules(tmp_path):
    """The flags the scripts name for a checkpoint's rules (preset_flags) give exactly those
    rules through the three scripts' own parsing, for every rules set: options no preset gives
    (a run's `--set rules.fewest_cards=true`, a napola a preset has turned off) by --rule, which
    evaluate.py and play.py lacked (review: such checkpoints played from Python only). The
    third script is scopa_env.simulate, read back from the rules its record carries (its import
    here went unused until 2026-12-07)."""
    import evaluate
    import play
    from scopa_env import simulate
    from scopa_env.presets import PRESETS, preset_flags, rules_from_flags
    from scopa_env.records import read, rules_of
    cases = [p.rules for p in PRESETS.values()] + [
        Rules(napola=True, target=31), Rules(target=16), PRESETS["scopone"].rules.replace(napola=True),
        PRESETS["scopone-milanese"].rules.replace(napola=False), Rules(fewest_cards=True),
        PRESETS["quindici-both"].rules.replace(fewest_cards=True, target=21),
        PRESETS["cirulla"].rules.replace(napola=False, primiera="veneto", capotto=5),
        Rules(players=4, hand_cards=9, table_cards=4, napoleone="ten")]
    for rules in cases:
        flags = preset_flags(rules)
        args = evaluate.parse_args(["--agent", "easy", "--opponent", "easy", *flags.split()])
        assert evaluate.build_rules(args) == rules, (flags, rules)
        args = play.parse_args(flags.split())
        assert rules_from_flags(args.rules, args.napola, args.target, args.rule) == rules, (flags, rules)
        out = tmp_path / "one.jsonl"
        assert simulate.main([*flags.split(), "--matches", "1", "--seed", "0", "--out", str(out),
                              "--no-check"]) == 0
        assert [rules_of(r) for r in read(str(out))] == [rules], (flags, rules)
    assert preset_flags(PRESETS["scopone-milanese"].rules.replace(napola=False)) == \
        "--rules scopone-milanese --rule napola=false"
    assert preset_flags(Rules(fewest_cards=True)) == "--rules classic --rule fewest_cards=true"
    assert preset_flags(Rules(napola=True)) == "--rules classic --napola"
    assert preset_flags(Rules()) == "--rules classic"


@pytest.mark.parametrize("flags, error", [
    (["--rule", "fewest=true"], r"^--rule 'fewest=true': unknown rules option 'fewest' \(known: napola, "),
    (["--rule", "fewest_cards"], r"^--rule 'fewest_cards' must look like OPTION=VALUE \(e\.g\. --rule fewest_cards=true\)$"),
    (["--rule", "fewest_cards=yes"], r"^--rule 'fewest_cards=yes': fewest_cards is true or false, got 'yes'$"),
    (["--rule", "target=2.5"], r"^--rule 'target=2.5': target is a whole number, got '2.5'$"),
    (["--rule", "target=0"], r"^--rule 'target=0': rules option target must be a whole number 1\.\.100, got 0$"),
    (["--rule", "quindici=sometimes"], r"^--rule 'quindici=sometimes': quindici is one of off, only, both, got 'sometimes'$"),
    # the Rules checks' errors did not say they came from --rule (review)
    (["--rule", "ace_scopa=true"], r"^--rule 'ace_scopa=true': rules option ace_scopa needs ace_takes_all$"),
    (["--rules", "scopone", "--rule", "players=3"],
     r"^--rule 'players=3': rules options hand_cards=9, table_cards=4: the 36 cards left after the table "
     r"are not a whole number of deals of 3 x 9$"),
    # a 101-digit value was "not a whole number", echoed whole twice (review)
    (["--rule", "target=" + "1" * 5000],
     r"^--rule 'target=1{53}'\.\.\. \(5,007 characters\): target is out of range \(5,000 digits; "
     r"--list-rules shows the classic value\)$"),
    (["--rule", "target=21", "--rule", "target=31"], r"^--rule sets target twice \(21 and 31\): keep one$"),
    (["--napola", "--rule", "napola=false"], r"^--napola and --rule napola=\.\.\. both set the rules option napola: keep one$"),
    (["--target", "21", "--rule", "target=16"], r"^--target and --rule target=\.\.\. both set the rules option target: keep one$"),
    # a mutation review found these unchecked: a negative count is out of range, not "not a
    # whole number"; every --rule is named when the options do not go together; --target 0
    # is given too (the clash, not the range)
    (["--rule", "target=-5"], r"^--rule 'target=-5': rules option target must be a whole number 1\.\.100, got -5$"),
    (["--rule", "target=21", "--rule", "ace_scopa=true"],
     r"^--rule 'target=21' --rule 'ace_scopa=true': rules option ace_scopa needs ace_takes_all$"),
    (["--target", "0", "--rule", "target=16"], r"^--target and --rule target=\.\.\. both set the rules option target: keep one$"),
])
def test_rule_flag_errors(flags, error):
    """A bad --rule is one error naming it, the same in the three scripts (they share
    rules_from_flags)."""
    import evaluate
    from scopa_env.presets import rules_from_flags
    args = evaluate.parse_args(["--agent", "easy", "--opponent", "easy", *flags])
    with pytest.raises(ScopaError, match=error):
        rules_from_flags(args.rules, args.napola, args.target, args.rule)


def test_rule_flag_sets_options_after_the_preset():
    from scopa_env.presets import rules_from_flags
    assert rules_from_flags("cirulla", options=["napola=false"]) == \
        PRESETS["cirulla"].rules.replace(napola=False)
    assert rules_from_flags("classic", True, 21, [" fewest_cards = TRUE ", "primiera=Veneto"]) == \
        Rules(napola=True, target=21, fewest_cards=True, primiera="veneto")   # any case, as true/false
    for options in (["ace_takes_all=true", "ace_scopa=true"], ["ace_scopa=true", "ace_takes_all=true"]):
        # checked together, in any order: ace_scopa alone needs ace_takes_all
        assert rules_from_flags("classic", options=options) == Rules(ace_takes_all=True, ace_scopa=True)


def test_the_rules_hint_names_the_flags_a_checkpoint_plays_under():
    """evaluate.py and play.py end a checkpoint's rules error with the flags of the rules it was
    trained for; any other error gets no hint (a mutation review: '' every time went unseen)."""
    from scopa_env.cli import rules_hint
    from scopa_env.errors import RulesMismatch
    assert rules_hint(RulesMismatch("x", Rules(target=21))) == "; it plays only under --rules classic --target 21"
    assert rules_hint(ScopaError("x")) == ""


def test_a_rules_mismatch_survives_pickling():
    """RulesMismatch crosses process boundaries whole (the default pickling lost `trained` and
    failed to rebuild it: a TypeError in a worker pool's result thread; review)."""
    import pickle
    from scopa_env.errors import RulesMismatch
    e = pickle.loads(pickle.dumps(RulesMismatch("trained for other rules", Rules(target=21))))
    assert isinstance(e, ScopaError) and str(e) == "trained for other rules" and e.trained == Rules(target=21)


def test_rule_flag_in_the_three_scripts(tmp_path):
    """evaluate.py, play.py and scopa_env.simulate take --rule: a bad one is one line and exit
    2 in each; simulate's records carry the option, play.py deals under it."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    runs = {"evaluate.py": [str(root / "evaluate.py"), "--agent", "easy", "--opponent", "easy", "--matches", "2"],
            "play.py": [str(root / "play.py"), "--opponent", "easy", "--seed", "1"],
            "simulate": ["-m", "scopa_env.simulate", "--matches", "2", "--seed", "0",
                         "--out", str(tmp_path / "r.jsonl")]}
    for name, argv in runs.items():
        r = subprocess.run([sys.executable, *argv, "--rule", "fewest=true"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300, input="q\n")
        assert r.returncode == 2 and "Traceback" not in r.stderr, (name, r.stderr)
        assert r.stderr.count("\n") == 1 and "--rule 'fewest=true': unknown rules option 'fewest'" in r.stderr, \
            (name, r.stderr)
    r = subprocess.run([sys.executable, *runs["simulate"], "--rules", "quindici-both", "--rule", "fewest_cards=true"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    for line in (tmp_path / "r.jsonl").read_text().splitlines():
        assert Rules.from_dict(json.loads(line)["rules"]) == PRESETS["quindici-both"].rules.replace(fewest_cards=True)
    r = subprocess.run([sys.executable, *runs["play.py"], "--rule", "primiera=veneto"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300, input="q\n")
    assert r.returncode == 0 and "primiera=veneto" in r.stdout, (r.stdout, r.stderr)


def test_presets_hold_their_described_options():
    """Mutation testing: the napola preset to 31 and cirulla-pairs without the piccola's cap went
    unseen. napola: "to 21"; cirulla-pairs: cirulla for 4 players in pairs."""
    assert rules_from_preset("napola") == Rules(napola=True, target=21)
    assert rules_from_preset("cirulla-pairs") == rules_from_preset("cirulla").replace(players=4)
    # "3 players ... to 16" (mutation testing, 2026-12-05: to 15 went unseen); a name is looked
    # up ignoring case and the spaces around it
    assert rules_from_preset("three-players").target == 16
    assert rules_from_preset(" Napola ") == rules_from_preset("napola")
    # their descriptions' targets and options (a mutation review, 2026-12-06: these four were
    # pinned nowhere)
    assert rules_from_preset("quindici-both") == Rules(quindici="both", target=21)
    assert rules_from_preset("quindici-assi") == Rules(quindici="both", ace_takes_all=True,
                                                       ace_scopa=True, target=31)
    assert rules_from_preset("escopa-15") == Rules(quindici="only", primiera="most_sevens", target=21)
    assert rules_from_preset("pairs") == Rules(players=4, target=21)
    # and the rest (a mutation review, 2026-12-06 again: six more presets could change unseen,
    # three of them into another preset)
    assert rules_from_preset("re-bello") == Rules(re_bello=True)
    assert rules_from_preset("scopa-d-assi") == Rules(ace_takes_all=True, target=21)
    assert rules_from_preset("asso-piglia-tutto") == Rules(ace_takes_all=True, ace_scopa=True, target=21)
    assert rules_from_preset("quindici") == Rules(quindici="only", target=21)
    assert rules_from_preset("escoba") == Rules(quindici="only", primiera="most_sevens", re_redeal=False,
                                                dealer_sweep=True, target=21)
    assert rules_from_preset("six-players") == Rules(players=6, target=21)
    assert rules_from_preset("scopone") == Rules(players=4, hand_cards=9)
    assert rules_from_preset("scopone-scientifico") == Rules(players=4, hand_cards=10, table_cards=0)
    assert rules_from_preset("scopone-trentino") == Rules(players=4, hand_cards=9, napola=True,
                                                          napoleone="win", target=21)
    assert rules_from_preset("scopone-milanese") == Rules(players=4, hand_cards=10, table_cards=0,
                                                          ace_takes_all=True, napola=True, target=21)
    assert len({rules_from_preset(name) for name in PRESETS}) == len(PRESETS) == 19    # no two alike


def test_only_an_ace_gets_the_take_the_table_id():
    """ace_takes_all: the extra ids are one per ace, 'this ace takes the whole table'; a 2 that
    would sweep the table is no move the rules allow, not an ace's id (a mutation review)."""
    from scopa_env.actions import action_table
    t = action_table(Rules(ace_takes_all=True))
    with pytest.raises(ScopaError, match="is not a move the rules allow"):
        t.encode("2D", ["3C", "4S"], table=["3C", "4S"])
    ace = t.encode("1D", ["3C", "4S"], table=["3C", "4S"])
    assert t.decode(ace, ["3C", "4S"])[0] == parse_card("1D")
    # a table holding the played card is no position the rules reach: the sweep id took it, as
    # '1D x 1D 5S' (a review; encode('7D', ['7D']) was refused already)
    with pytest.raises(ScopaError, match="is not a move the rules allow"):
        t.encode("1D", ["1D", "5S"], table=["1D", "5S"])


def test_only_the_joker_gets_the_jokers_take_the_table_id():
    """hand_bonus with joker and ace_takes_all: the joker's sweep id is 7C's alone; another 7
    that would sweep the table is no move (a mutation review: any 7 got 7C's id, which decodes
    to a move by another card), and the joker does not take itself."""
    from scopa_env.actions import action_table
    t = action_table(Rules(hand_bonus=True, joker=True, ace_takes_all=True))
    with pytest.raises(ScopaError, match="is not a move the rules allow"):
        t.encode("7D", ["1D", "2D"], table=["1D", "2D"])
    joker = t.encode("7C", ["1D", "2D"], table=["1D", "2D"])
    assert t.decode(joker, ["1D", "2D"])[0] == parse_card("7C")
    with pytest.raises(ScopaError, match="is not a move the rules allow"):
        t.encode("7C", ["7C", "2D"], table=["7C", "2D"])


# ---- Rules and --rule, pinned by mutation testing (2026-12-05) ----------------------------
def test_rules_options_at_their_edges_and_in_numpy_types():
    """capotto's top (1000) is in range; players=1 is out of 2..6 (before 'one of 2, 3, 4, 6');
    a numpy string is kept as a str; a stored dict's unknown options name the first."""
    assert Rules(capotto=1000).capotto == 1000
    with pytest.raises(ScopaError, match=r"^rules option players must be a whole number 2..6, got 1$"):
        Rules(players=1)
    r = Rules(primiera=np.str_("veneto"))
    assert type(r.primiera) is str and type(r.to_dict()["primiera"]) is str and "np.str_" not in repr(r)
    with pytest.raises(ScopaError, match="^unknown rules option 'aaa': "):
        Rules.from_dict({"aaa": 1, "zzz": 2}, stored=True)


def test_a_switch_is_true_or_false_in_words_only():
    """'--rule napola=1' is refused, not read as a switch (a mutation review: taking 1/0 too
    passed every test, only 'yes' was tried)."""
    from scopa_env.presets import rule_option
    assert rule_option("napola=TRUE") == ("napola", True) and rule_option("napola = false") == ("napola", False)
    for raw in ("1", "0", "on", ""):
        with pytest.raises(ScopaError, match=f"^--rule 'napola={raw}': napola is true or false, got '{raw}'$"):
            rule_option(f"napola={raw}")


def test_rule_option_text_reads_one_equals_ascii_digits_and_shows_60_characters_whole():
    from scopa_env.presets import rule_option
    assert rule_option("capotto=" + "0" * 99 + "5") == ("capotto", 5)          # 100 digits: read
    with pytest.raises(ScopaError, match=re.escape("capotto is out of range (101 digits")):
        rule_option("capotto=" + "0" * 100 + "5")                               # 101: refused
    with pytest.raises(ScopaError, match=re.escape("--rule 'target=\u0662\u0661': target is a whole number, got "
                                                   "'\u0662\u0661'")):
        rule_option("target=\u0662\u0661")                                     # Arabic-Indic 21
    with pytest.raises(ScopaError, match=re.escape("--rule 'primiera=veneto=x': primiera is one of standard, "
                                                   "figures0, veneto, southern, most_sevens, got 'veneto=x'")):
        rule_option("primiera=veneto=x")
    with pytest.raises(ScopaError, match=re.escape(f"target is a whole number, got '{'x' * 60}'") + "$"):
        rule_option("target=" + "x" * 60)                                        # 60: shown whole


def test_from_state_bounds_the_winner_by_sides_and_the_declared_seats_by_players():
    """A mutation review: a winner bounded by the players (side 2 of a pairs game, which has
    sides 0 and 1) and a declared-seats mask one past its bits were taken."""
    g = Game("pairs")
    st = g.state.copy()
    st[core.WINNER] = 2
    with pytest.raises(ScopaError, match=r"^the state's winner 2 is not a side 0\.\.1 \(or -1\)$"):
        Game.from_state("pairs", st)
    g = Game("cirulla")
    st = g.state.copy()
    st[core.DECLARED] = 3                       # both seats of two: the most there is
    assert Game.from_state("cirulla", st).state[core.DECLARED] == 3
    st[core.DECLARED] = 4
    with pytest.raises(ScopaError, match=r"^the state's hand-bonus slots \(joker value, shown cards, declared "
                                         r"seats, bonus points\) are out of range for these rules$"):
        Game.from_state("cirulla", st)


def test_the_joker_sweeps_the_table_only_under_scopa_d_assi():
    """The joker's 'takes the table' id exists only with ace_takes_all (a mutation review: a stray
    id without it went unseen): 190,021 ids with the hand bonuses and the joker, 190,026 with the
    four aces' and the joker's sweeps."""
    from scopa_env.actions import action_table
    assert action_table(Rules(hand_bonus=True, joker=True)).size == 190_021
    assert action_table(Rules(hand_bonus=True, joker=True, ace_takes_all=True)).size == 190_026
    assert Game("napola").score_lines() == ("carte", "denari", "settebello", "primiera", "scope", "napola", "total")
