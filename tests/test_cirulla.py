"""Cirulla (RULES.md's variant table, seeds 003 and 004): the hand bonuses, the 7 of coppe as a
joker, the piccola and grande, and the `cirulla` presets, from the seeds' worked examples."""
import json

import numpy as np
import pytest

from positions import seat0_values
from reference_rules import check_record
from reference_rules import hand_bonus as reference_bonus
from reference_rules import DEFAULTS, sweep_only
from reference_rules import sweep_scope as reference_sweep
from scopa_env import core, records
from scopa_env.cards import card_str, parse_card
from scopa_env.errors import ScopaError
from scopa_env.game import Game
from scopa_env.observation import layout_for, observe, view
from scopa_env.presets import rules_from_preset
from scopa_env.rules import Rules

CIRULLA = rules_from_preset("cirulla")


def mask(cards):
    return sum(1 << parse_card(c) for c in cards)


# (hand, joker on, points, the joker's value: 0 when it stays a 7)
BONUS_CASES = [
    # seed 003: "a player holding Q♦ Q♣ 7♥ can say the 7♥ is a Queen" (the cavallo, 9): 10 points
    (["9D", "9C", "7C"], True, 10, 9),
    # "... but Q♦ K♣ 7♥ cannot take advantage of the joker: no value gives a bonus"
    (["9D", "10C", "7C"], True, 0, 0),
    # three of a kind: 10 (boña de dexe); three 3s are also 9 or less, and score the 10 only
    (["4D", "4C", "4S"], False, 10, 0),
    (["3D", "3C", "3S"], False, 10, 0),
    # capture values summing to 9 or less: 3 (seed 004: "three cards that sum to 9 or less")
    (["1D", "3C", "5S"], False, 3, 0),
    (["2D", "3C", "4S"], False, 3, 0),
    (["2D", "3C", "5S"], False, 0, 0),
    (["1D", "1C", "8S"], False, 0, 0),     # a figure counts its capture value (8)
    # the joker for the 3 points: the engine shows it as an ace (any value up to 9 - 5 would do)
    (["2D", "3C", "7C"], True, 3, 1),
    (["3D", "5C", "7C"], True, 3, 1),      # 3 + 5 + 1 = 9, the bound itself (mutation review)
    (["4D", "5C", "7C"], True, 0, 0),      # 4 + 5 + 1 = 10: no value makes it
    # the joker among two aces: three aces (10), not 1 + 1 + 7 = 9 (3)
    (["1D", "1S", "7C"], True, 10, 1),
    (["1D", "1S", "7C"], False, 3, 0),     # without the joker option: the 9
    (["7D", "7S", "7C"], True, 10, 0),     # three sevens: the joker stays a 7
    (["9D", "9C", "7C"], False, 0, 0),     # no joker option: 9 + 9 + 7
]


@pytest.mark.parametrize("hand,joker,points,value", BONUS_CASES)
def test_hand_bonus_worked_examples(hand, joker, points, value):
    assert tuple(core.hand_bonus_of(np.int64(mask(hand)), joker)) == (points, value)
    ref_points, ref_value = reference_bonus(hand, joker)
    assert (ref_points, ref_value or 0) == (points, value)


def deal(rules, seat1, seat0, table, dealer=0):
    """A hand dealt by `dealer` (2 players): seat 1 gets `seat1`, seat 0 `seat0`, then the table
    and the rest of the deck in card-id order."""
    first = [parse_card(c) for c in seat1 + seat0 + table]
    deck = first + [c for c in range(40) if c not in first]
    g = Game(rules, 0)
    g.deal_hand(dealer, deck)
    return g


def test_the_first_player_declares_before_its_first_card_and_the_other_at_its_turn():
    """Seed 003: a bonus is declared in one's own turn, before playing the first card, by showing
    the hand. Seat 1 leads (dealer 0): its bonus shows at once; seat 0's only when its turn comes,
    so seat 1 chose its first card without seeing it."""
    g = deal(CIRULLA, ["2D", "3C", "4S"], ["6D", "6C", "6S"], ["5B", "8B", "9B", "10B"])
    assert g.hand_bonus(1) == 3 and g.hand_bonus(0) == 0
    assert [card_str(c) for c in g.shown(1)] == ["2D", "3C", "4S"] and g.shown(0) == []
    obs1 = observe(g.state, 1)
    assert view(obs1, "opp_shown").sum() == 0 and view(obs1, "opp_bonus")[0] == 0
    obs0 = observe(g.state, 0)
    assert view(obs0, "opp_bonus")[0] == 3
    assert sorted(np.flatnonzero(view(obs0, "opp_shown"))) == sorted(parse_card(c) for c in ["2D", "3C", "4S"])
    # the shown cards are seen: not in the unseen mask
    assert not view(obs0, "unseen")[[parse_card(c) for c in ["2D", "3C", "4S"]]].any()
    g.play("4S")
    assert g.hand_bonus(0) == 10 and [card_str(c) for c in g.shown(0)] == ["6D", "6C", "6S"]
    assert [card_str(c) for c in g.shown(1)] == ["2D", "3C"]      # the shown cards still held
    obs1 = observe(g.state, 1)
    assert view(obs1, "opp_bonus")[0] == 10 and view(obs1, "my_bonus")[0] == 3
    assert view(obs1, "my_shown").sum() == 2 and view(obs1, "opp_shown").sum() == 3


def test_a_hand_without_a_bonus_stays_hidden():
    """Only a hand that declares a bonus is shown (RULES.md: the opponent's cards are never seen
    otherwise). A mutation review (2026-12-07) marked every hand shown at its first turn and no
    test noticed: the hidden-cards test takes the engine's own shown cards as its truth."""
    g = deal(CIRULLA, ["9D", "10C", "8S"], ["6D", "6C", "6S"], ["5B", "8B", "9B", "10B"])
    hidden = [parse_card(c) for c in ["9D", "10C", "8S"]]
    assert g.hand_bonus(1) == 0 and g.shown(1) == []
    g.play("9D")                                  # seat 1 has had its turn: still nothing shown
    assert g.shown(1) == [] and g.hand_bonus(0) == 10
    obs0 = observe(g.state, 0)
    assert view(obs0, "opp_shown").sum() == 0 and view(obs0, "opp_bonus")[0] == 0
    assert view(obs0, "unseen")[hidden[1:]].all()       # 9D was played: seen
    obs1 = observe(g.state, 1)
    assert view(obs1, "my_shown").sum() == 0


def test_the_bonuses_score_in_the_hand_total():
    g = deal(CIRULLA.replace(target=100), ["2D", "3C", "4S"], ["6D", "6C", "6S"], ["5B", "8B", "9B", "10B"])
    g.play("4S")
    while not g.hand_over:
        g.play(g.legal_moves()[0].card, g.legal_moves()[0].captured)
    lines = g.hand_score()
    assert lines[1]["hand_bonus"] >= 3 and lines[0]["hand_bonus"] >= 10
    assert all(ln["total"] == sum(v for k, v in ln.items() if k != "total") for ln in lines)


def test_the_joker_keeps_the_value_it_was_shown_as_until_it_is_captured():
    """Seed 003: 'the 7♥ keeps the declared value (a Queen, 9) for the rest of the hand for
    captures (it can capture a 6, 9 + 6 = 15) ... if it is captured it is the 7♥ again'."""
    g = deal(CIRULLA, ["9D", "9C", "7C"], ["2S", "4B", "5D"], ["6S", "7S", "8B", "3B"])
    assert g.hand_bonus(1) == 10 and g.joker_value() == 9
    moves = sorted(str(m) for m in g.legal_moves() if card_str(m.card) == "7C")
    assert moves == ["7C x 6S", "7C x 6S 3B"]          # a 9: 9 + 6 = 15, and 6 + 3; not the 7
    # laid on the table (no capture there), it is still a 9
    g = deal(CIRULLA, ["9D", "9C", "7C"], ["6D", "8C", "5S"], ["10S", "10B", "8S", "4B"])
    assert [str(m) for m in g.legal_moves() if card_str(m.card) == "7C"] == ["7C"]
    g.play("7C")
    assert g.joker_value() == 9 and parse_card("7C") in g.table
    takes = sorted(str(m) for m in g.legal_moves() if m.captured >> parse_card("7C") & 1)
    assert takes == ["6D x 7C"]                        # 6 + 9 = 15; an 8 no longer makes 15 with it
    g.play("6D", ["7C"])
    assert g.joker_value() == 7 and parse_card("7C") in g.pile(0)


def test_the_joker_that_captures_goes_to_the_pile_as_the_7():
    """Seed 003: the joker keeps its value until it is captured; played to capture, it goes face
    down to the player's pile (RULES.md section 3) and is the 7 of coppe again (a mutation
    review: only a joker taken by another card was checked)."""
    g = deal(CIRULLA, ["7C", "2D", "3S"], ["8C", "9C", "10C"], ["1S", "4D", "5B", "6B"])
    assert g.hand_bonus(1) == 3 and g.joker_value() == 1        # shown as an ace
    g.play("7C", ["1S"])
    assert parse_card("7C") in g.pile(1) and g.joker_value() == 7


def test_the_joker_captures_at_its_value_without_the_other_cirulla_options():
    """The joker alone with the hand bonuses (no quindici, ace or other capture option): the
    engine's classic capture path must still read the joker's value (mutation testing: it
    captured as a 7 there, and only the cirulla preset was tested)."""
    g = deal(Rules(hand_bonus=True, joker=True), ["9D", "9C", "7C"], ["2S", "4D", "5D"],
             ["6S", "3B", "4B", "8B"])
    assert g.hand_bonus(1) == 10 and g.joker_value() == 9
    assert sorted(str(m) for m in g.legal_moves() if card_str(m.card) == "7C") == ["7C x 6S 3B"]


def test_the_joker_is_a_7_again_when_its_deal_ends():
    """Seed 003: the joker keeps its value 'for the rest of the mão ... and after the end of the
    mão it reverts to the 7': a joker shown as a 5 and laid on the table captures as a 7 in the
    next deal (a 10 no longer takes it for 15; an ace and the 7 of denari with it make 15)."""
    deck = ["7C", "5B", "5D", "2S", "5C", "7D", "10D", "4D", "3C", "1B", "6C", "1S", "10B", "1C",
            "3D", "2D", "7S", "2C", "7B", "10S", "4B", "4S", "2B", "8B", "3S", "4C", "9S", "8S",
            "6B", "8C", "5S", "8D", "9D", "10C", "9C", "9B", "1D", "6D", "3B", "6S"]
    g = Game(CIRULLA, 0)
    g.deal_hand(1, [parse_card(c) for c in deck])
    assert g.hand_bonus(0) == 10 and g.joker_value() == 5      # 5B 5D and the 7C as a 5
    for card, taken in [("5B", ["10D"]), ("2S", []), ("5D", ["4D", "1B"]), ("5C", ["3C", "2S"]),
                        ("7C", [])]:
        g.play(card, taken)
        assert g.joker_value() == 5                            # laid: still a 5 in its deal
    assert [str(m) for m in g.legal_moves()] == ["7D"]         # the deal's last card
    assert g.play("7D").dealt                                  # the deal ends, a new one is dealt
    assert g.joker_value() == 7 and parse_card("7C") in g.table
    assert sorted(str(m) for m in g.legal_moves()) == ["10B", "1S x 7D 7C", "6C"]


def test_the_joker_on_the_first_table_makes_the_dealers_15_or_30():
    """Seed 003: the 7♥ helps the dealer's bonuses too: it counts as whatever value makes the four
    first cards sum to 15 (one scopa) or 30 (two)."""
    cases = [(["7C", "2D", "3S", "1B"], 1),       # 6 + joker as a 9
             (["7C", "10D", "10S", "5B"], 2),     # 25 + joker as a 5
             (["7C", "10D", "10S", "10B"], 0),    # 30 + at least 1
             (["7C", "1D", "2S", "1B"], 0),       # 4 + at most 10
             (["7C", "8D", "1S", "6B"], 0),       # 15 already: the joker cannot be a 0
             # the ends of each range (a mutation review: 5 and 29, the joker as a re and as an
             # ace, were not checked, and a range cut short by one passed)
             (["7C", "1D", "2S", "2B"], 1),       # 5 + joker as a re (10)
             (["7C", "10D", "3S", "1B"], 1),      # 14 + joker as an ace
             (["7C", "10D", "5S", "5B"], 2),      # 20 + joker as a re
             (["7C", "10D", "10S", "9B"], 2)]     # 29 + joker as an ace
    for table, scope in cases:
        got = core.dealer_sweep_scope(np.int64(mask(table)), True)
        assert got == scope == reference_sweep(table, True), table
    # without the joker option the 7C is a 7: 7 + 2 + 3 + 1 = 13
    assert core.dealer_sweep_scope(np.int64(mask(["7C", "2D", "3S", "1B"])), False) == 0
    g = deal(CIRULLA, ["2C", "3C", "4C"], ["5C", "6C", "8C"], ["7C", "2D", "3S", "1B"])
    assert g.dealer_sweep() == 1 and g.table == [] and g.scope(0) == 1


def test_a_joker_shown_as_an_ace_sweeps_as_an_ace_and_is_a_scopa_only_with_ace_scopa():
    """Seed 003: the 7 of coppe keeps the value it was shown with "para efeito de capturas"; shown
    as an ace for a bonus, it takes the whole table as an ace does (ace_takes_all). RULES.md: that
    sweep is "usually not counted as a scopa" (ace_scopa off); the cirulla presets count it, so
    the option's off side went unchecked for a joker (a mutation review: reading the joker's face
    rank there counted it)."""
    base = Rules(ace_takes_all=True, hand_bonus=True, joker=True)
    for ace_scopa in (False, True):
        rules = base.replace(ace_scopa=ace_scopa)
        g = deal(rules, ["7C", "2D", "3C"], ["4B", "5B", "6C"], ["5S", "6B", "8C", "9D"])
        assert g.to_move == 1 and g.hand_bonus(1) == 3 and g.joker_value() == 1
        table = [card_str(c) for c in g.table]
        assert sweep_only("7C", frozenset(table), table, {**DEFAULTS, **rules.to_dict()}, 1)
        r = g.play("7C", table)
        assert g.table == [] and r.scopa == ace_scopa and g.scope(1) == int(ace_scopa)


def test_piccola_and_grande():
    """Seed 004: the piccola (1D 2D 3D: 3, +1 for each denari in sequence, at most 6) and the
    grande (fante, cavallo, re of denari: 5)."""
    assert core.napola_points(np.int64(mask(["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D"])), 6) == 6
    assert core.napola_points(np.int64(mask(["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D"])), 10) == 8
    assert core.napola_points(np.int64(mask(["1D", "2D", "3D", "5D"])), 6) == 3
    g = Game(CIRULLA).setup(hands=[[], []], table=[], deck=[], dealer=1,
                            piles=[["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D"], []])
    core.end_hand(g.state)
    line = g.hand_score()[0]
    assert line["napola"] == 6 and line["grande"] == 5
    g = Game(CIRULLA).setup(hands=[[], []], table=[], deck=[], dealer=1,
                            piles=[["8D", "9D"], ["10D", "1D", "2D", "3D"]])
    core.end_hand(g.state)
    assert [ln["grande"] for ln in g.hand_score()] == [0, 0]
    assert g.hand_score()[1]["napola"] == 3


def test_a_set_up_deal_declares_nothing():
    g = Game(CIRULLA).setup(hands=[["2D", "3C", "4S"], ["6D", "6C", "6S"]], table=["5B"], deck=[])
    assert g.hand_bonus(0) == g.hand_bonus(1) == 0
    g.play(g.legal_moves()[0].card, g.legal_moves()[0].captured)
    assert g.hand_bonus(0) == g.hand_bonus(1) == 0


@pytest.mark.parametrize("preset", ["cirulla", "cirulla-pairs"])
def test_cirulla_matches_agree_with_the_reference_and_replay(preset):
    """Random matches of the presets against the test oracle (reference_rules.py), move by move
    and in every score line; the bonuses and the joker's values did come up."""
    rules = rules_from_preset(preset).replace(target=31)
    rng = np.random.default_rng(3)
    bonuses = jokers = 0
    for seed in range(12):
        g = Game(rules, seed)
        rec = records.Recorder(g, ["random"] * rules.players, with_legal=True)
        while not g.match_over:
            if g.hand_over:
                rec.next_hand()
                continue
            ms = g.legal_moves()
            m = ms[rng.integers(len(ms))]
            rec.play(m.card, m.captured)
            bonuses += any(g.hand_bonus(p) for p in range(rules.players))
            jokers += g.joker_value() != 7
        record = json.loads(records.dumps(rec.record))
        check_record(record, require_legal=True)
        assert records.replay(record).scores == g.scores
    assert bonuses > 50 and jokers > 5


@pytest.mark.parametrize("bad,match", [
    (dict(hand_bonus=True, hand_cards=9, players=4), r"^rules option hand_bonus needs 3 cards a deal "
                                                     r"\(cirulla's bonuses are for a hand of three\), got hand_cards=9$"),
    (dict(hand_bonus=True, hand_cards=2), r"^rules option hand_bonus needs 3 cards a deal "      # fewer too
                                          r"\(cirulla's bonuses are for a hand of three\), got hand_cards=2$"),
    (dict(joker=True), r"^rules option joker needs hand_bonus or dealer_sweep \(the joker serves only them\)$"),
    (dict(napola=True, napola_max=2), r"^rules option napola_max must be a whole number 3\.\.10, got 2$"),
    (dict(grande="yes"), r"^rules option grande must be true or false, got 'yes'$"),
])
def test_bad_cirulla_options_are_one_error(bad, match):
    with pytest.raises(ScopaError, match=match):
        Rules(**bad)


def test_the_layout_grows_only_under_hand_bonus():
    assert layout_for("classic").size == 291 and layout_for("cirulla").size == 374
    assert layout_for("cirulla-pairs").size == 634
    g = Game("cirulla-pairs", 4)
    obs = observe(g.state, 2)
    assert obs.shape == (634,) and view(obs, "shown").shape == (4, 40)


def test_the_search_view_holds_the_shown_cards_where_they_are():
    """What hard and normal rebuild from an observation (agents/_rollout.View): a shown hand sits
    in its seat's hand, only the rest is dealt at random in a world, and the bonus state (points,
    the joker's value, whose turn came in this deal) is the game's."""
    from agents._rollout import View
    g = deal(CIRULLA, ["9D", "9C", "7C"], ["6D", "8C", "5S"], ["10S", "10B", "8S", "4B"])
    g.play("9D")                                   # seat 1 (it showed three 9s) lays a card
    obs = g.observation(0)["observation"]
    v = View(obs, CIRULLA, np.asarray(CIRULLA.to_header(), dtype=np.int64))
    # seats relative to the viewer: seat 1 of the view is the game's seat 1 (2 players)
    assert v.base[core.HANDS + 1] == mask(["9C", "7C"]) and v.hidden[1] == 0 and v.sizes[1] == 2
    assert v.base[core.JOKER_VALUE] == 9 and v.base[core.BONUS + 1] == 10 and v.base[core.BONUS] == 0
    assert v.base[core.DECLARED] == 0b11 and v.holder() is None     # the deck still hides cards
    assert v.unseen & mask(["9C", "7C"]) == 0
    buf, mine = core.new_move_buffer(), core.new_move_buffer()
    n = core.legal_moves(v.base, buf)
    m = core.legal_moves(g.state, mine)
    assert sorted(zip(buf[0, :n], buf[1, :n], strict=True)) == sorted(zip(mine[0, :m], mine[1, :m], strict=True))



def test_the_levels_judgement_follows_the_cirulla_options():
    """The compiled reply estimate for classic captures is not used where sums stand beside an
    equal card or the joker has a value, and the napola's worth stops at napola_max (review)."""
    from agents import _scoring
    from agents._rollout import classic_captures
    assert classic_captures(Rules()) and not classic_captures(Rules(equal_first=False))
    assert not classic_captures(Rules(hand_bonus=True, joker=True))
    run = np.int64(mask(["1D", "2D", "3D", "4D", "5D", "6D"]))
    seven = np.int64(mask(["7D"]))
    assert _scoring.napola_gain(seven, run, np.int64(0), 10) == 1.0
    assert _scoring.napola_gain(seven, run, np.int64(0), 6) == 0.0


def test_the_levels_value_the_grande():
    """With Rules.grande the levels' card values count the grande as they count the napola: the
    card that completes 8D 9D 10D in a side's pile is worth its 5 points (to that side, or to
    the side that keeps it from them), a card towards a grande still open a part of them, and
    none once another side holds one of the three; cards of it taken together count what they
    add together (an ace taking the table with all three: the 5 points)."""
    from agents import _scoring
    g = lambda cards: np.int64(mask(cards))                         # noqa: E731
    nine, none = g(["9D"]), np.int64(0)
    assert _scoring.grande_gain(nine, g(["8D", "10D"]), none) == 5.0
    assert _scoring.grande_gain(nine, g(["8D", "10D"]), g(["1D", "5D"])) == 5.0   # other denari: no matter
    assert 0 < _scoring.grande_gain(nine, g(["8D"]), none) < 5.0
    # progress from the pile the card joins: the first of the three, the first part
    assert _scoring.grande_gain(nine, none, none) == pytest.approx(_scoring.GRANDE_PROGRESS[1])
    assert _scoring.grande_gain(nine, g(["8D"]), g(["10D"])) == 0.0     # another side holds one
    assert _scoring.grande_gain(g(["1D"]), g(["8D", "10D"]), none) == 0.0

    # the opponent holds 8D and 10D: taking the 9D keeps 5 points from it; without the option
    # the 9D is worth what the 9S is, a denaro more
    cirulla = rules_from_preset("cirulla")
    plain = cirulla.replace(grande=False)
    nine_d, nine_s = parse_card("9D"), parse_card("9S")
    with_grande = seat0_values(cirulla, 0, mask(["8D", "10D"]))
    without = seat0_values(plain, 0, mask(["8D", "10D"]))
    assert with_grande[nine_d] - without[nine_d] == pytest.approx(5.0)
    assert with_grande[nine_s] == without[nine_s]
    # each of the three is valued, the 8D (card 7) too
    eight_d = parse_card("8D")
    assert seat0_values(cirulla, mask(["9D", "10D"]), 0)[eight_d] - seat0_values(plain, mask(["9D", "10D"]), 0)[eight_d] == \
        pytest.approx(5.0)


def _score_any(state, sizes, unseen, cards, masks):
    """The levels' values of seat 0's moves (cards[i], masks[i]) under the state's rules."""
    from agents import _scoring
    out = np.zeros(len(cards))
    _scoring.score_any(state, 0, sizes, np.int64(unseen), cards, masks, len(cards), _scoring.WEIGHTS, False, out,
                       _scoring.new_scratch(), np.zeros(core.STATE_SIZE, dtype=np.int64), core.new_move_buffer(),
                       np.zeros(6, dtype=np.int64))
    return out


def test_the_levels_fear_the_replies_of_shown_cards():
    """A cirulla hand shown for a bonus is a reply the next seat holds for sure: the levels'
    reply estimate counts it at chance 1 (before, the shown cards were neither unseen nor
    counted, so a shown 10 that sweeps a lone 5 for 15 went unfeared)."""
    from agents import _scoring
    rules = rules_from_preset("cirulla")
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[:core.HEADER_SIZE] = rules.to_header()
    state[core.DECK_POS] = 40                           # the last deal: nothing left to deal
    state[core.HANDS] = mask(["5D", "9C"])               # seat 0 to move, the table empty
    state[core.HANDS + 1] = mask(["10S", "2B"])          # seat 1 holds the 10S and 2B it showed
    state[core.SHOWN] = mask(["10S", "2B"])
    sizes = np.array([2, 2, 0, 0, 0, 0], dtype=np.int64)
    # what seat 0 has not seen: every card but its hand and seat 1's shown cards
    unseen = np.int64(mask([card_str(i) for i in range(40)]) & ~mask(["5D", "9C", "10S", "2B"]))
    cards = np.array([parse_card("5D"), parse_card("9C")], dtype=np.int64)
    masks = np.zeros(2, dtype=np.int64)                 # both laid on the empty table
    lay_5, lay_9 = _score_any(state, sizes, unseen, cards, masks)
    # the shown 10S takes a lone 5 (15) with a scopa; a lone 9 it cannot take (the 2B neither)
    assert lay_5 < lay_9 - _scoring.WEIGHTS[_scoring.I_SCOPA] * _scoring.WEIGHTS[_scoring.I_REPLY] * 0.9
    # the same seat 1 unshown (its two cards among 36 unseen): the 5 is feared far less
    state[core.SHOWN] = 0
    state[core.HANDS + 1] = 0
    assert _score_any(state, sizes, unseen | np.int64(mask(["10S", "2B"])), cards, masks)[0] > lay_5 + 1.0


def test_grande_cards_taken_together_count_what_they_add_together():
    """An ace taking the table with 8D 9D 10D makes the grande at once: its cards' values (each
    alone) plus set_joint come to the 5 points, as one card completing it would; with the
    opponent holding the 8D, taking 9D and 10D keeps from it what one of them keeps (review:
    the grande had no joint term, so the sweep counted 1.5 of its 5 points)."""
    from agents import _scoring
    g3 = np.int64(mask(["8D", "9D", "10D"]))
    piles = np.zeros(2, dtype=np.int64)
    alone = sum(_scoring.grande_gain(np.int64(mask([c])), piles[0], piles[1]) for c in ["8D", "9D", "10D"])
    assert alone + _scoring.set_joint(g3, piles, 2, 0, 0, True) == pytest.approx(5.0)
    piles[1] = mask(["8D"])
    two = np.int64(mask(["9D", "10D"]))
    alone = sum(max(_scoring.grande_gain(np.int64(mask([c])), piles[s], piles[1 - s]) for s in (0, 1))
                for c in ["9D", "10D"])
    one = _scoring.grande_gain(np.int64(mask(["9D"])), piles[1], piles[0])
    assert alone + _scoring.set_joint(two, piles, 2, 0, 0, True) == pytest.approx(one)
    assert _scoring.set_joint(two, piles, 2, 0, 0, False) == 0.0      # the napola's denari: none here
    # in the levels' move values: an ace taking 8D 9D 10D is worth the grande more than one
    # taking 8S 9S 10S (the rest: the denari's own worth)
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[:core.HEADER_SIZE] = CIRULLA.to_header()
    state[core.DECK_POS] = 40
    state[core.HANDS] = mask(["1S"])
    sizes = np.array([1, 1, 0, 0, 0, 0], dtype=np.int64)
    ace = np.array([parse_card("1S")], dtype=np.int64)
    worth = []
    for table in (["8D", "9D", "10D"], ["8S", "9S", "10S"]):
        state[core.TABLE] = mask(table)
        unseen = mask([card_str(i) for i in range(40)]) & ~mask(["1S"] + table)
        worth.append(_score_any(state, sizes, unseen, ace, np.array([mask(table)], dtype=np.int64))[0])
    assert 5.0 < worth[0] - worth[1] < 5.0 + 3 * 0.5


def _threat(state, table, unseen, h, known=0, new_deal=False):
    from agents import _scoring
    return _scoring.reply_threat_moves(state, np.int64(mask(table)), np.int64(unseen), h, False, _scoring.WEIGHTS,
                                       np.ones(40) * 0.1, _scoring.new_scratch(),
                                       np.zeros(core.STATE_SIZE, dtype=np.int64), core.new_move_buffer(),
                                       np.int64(known), new_deal)


def test_the_reply_estimate_draws_only_the_cards_not_shown():
    """A seat of 2 cards that showed one which cannot capture is feared as a seat of 1 unseen
    card (h - |known| drawn from the unseen cards); and a reply in the next deal sees the joker
    as a 7 again, as the engine does."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[:core.HEADER_SIZE] = CIRULLA.to_header()
    unseen = mask([card_str(i) for i in range(40)]) & ~mask(["5D", "2B"])
    shown_2 = _threat(state, ["5D"], unseen, 2, known=mask(["2B"]))
    assert shown_2 == pytest.approx(_threat(state, ["5D"], unseen, 1))
    assert shown_2 < _threat(state, ["5D"], unseen, 2)
    # the 7C lying on the table shown as a 5: a 10 takes it for 15 in this deal, not in the next
    state[core.JOKER_VALUE] = 5
    only_10s = mask(["10S", "10B", "10C"])
    assert _threat(state, ["7C"], only_10s, 1) > 0
    assert _threat(state, ["7C"], only_10s, 1, new_deal=True) == 0


def test_a_shown_card_is_a_reply_for_sure_when_no_card_of_its_rank_is_unseen():
    """The next seat showed the 10S and no other 10 is unseen: the 10S is still a reply it holds,
    taking a lone 5D for 15 with a scopa (the 5D and the 10S at 0.1 each), where a seat that
    showed nothing fears only its drawn card, the 2C. (A mutation review found the shown card
    looked up among the unseen cards of its rank, so feared only while one was unseen.)"""
    from agents import _scoring
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[:core.HEADER_SIZE] = CIRULLA.to_header()
    assert _threat(state, ["5D"], mask(["2C"]), 1, known=mask(["10S"])) == \
        pytest.approx(0.2 + _scoring.WEIGHTS[_scoring.I_SCOPA])
    assert _threat(state, ["5D"], mask(["2C"]), 1) == 0.0


def test_the_joker_has_no_value_once_its_hand_is_over():
    """A joker shown and still on the table when the hand ends goes to the last capturer's pile
    (review: its value outlived the hand until the next deal)."""
    rng = np.random.default_rng(0)
    joker = parse_card("7C")
    seen = 0
    for seed in range(2000):
        g = Game(CIRULLA, seed)
        while not g.hand_over:
            ms = g.legal_moves()
            m = ms[rng.integers(len(ms))]
            # at the hand's last move: valued, on the table, and not taken by that move
            left = g.joker_value() != 7 and joker in g.table and not (m.captured >> joker) & 1
            g.play(m.card, m.captured)
        seen += left
        assert g.joker_value() == 7
        assert int(g.observation(0)["observation"][layout_for(CIRULLA).slices["joker_value"].start]) == 0
        if seen >= 2:
            break
    assert seen >= 2


def test_the_observation_stays_within_its_box_with_a_joker_shown_as_a_re_and_the_largest_bonus():
    """layout.high bounds every slot (the Box bound): a joker shown as a re (10) and a hand
    bonus of 60 (10 points a deal, 6 deals) stay within it (a mutation review: 9 and 59 passed)."""
    lay = layout_for(CIRULLA)
    g = deal(CIRULLA, ["10D", "10C", "7C"], ["2S", "4B", "5D"], ["6S", "7S", "8B", "3B"])
    obs = g.observation(1)["observation"]
    assert g.joker_value() == 10 and view(obs, "joker_value")[0] == 10 and (obs <= lay.high).all()
    s = Game(CIRULLA, 0).state.copy()
    s[core.BONUS] = 60
    obs = observe(s, 0)
    assert view(obs, "my_bonus")[0] == 60 and (obs <= lay.high).all()


def test_hard_under_cirulla_gives_the_search_its_hidden_counts_and_options():
    """The hard agent's values under any rules are the search kernel's, given the number of
    hidden cards beside the shown ones (view.hidden, not the hand sizes: a world then dealt the
    showing seat two cards too many) and the agent's epsilon, rollouts and exact_last_deal (a
    mutation review: the test below calls the kernel itself, so the agent's plumbing went unseen)."""
    from agents import _exact, _rollout
    from agents.hard import HardAgent
    g = deal(CIRULLA, ["9D", "9C", "7C"], ["6D", "8C", "5S"], ["10S", "10B", "8S", "4B"])
    g.play("9D")
    obs = g.observation(0)
    h = HardAgent(CIRULLA, seed=1, worlds=50, exact_last_deal=True, epsilon=0.2, rollouts=2)
    legal, values = h.move_values(obs)
    v = _rollout.View(obs["observation"], CIRULLA, np.asarray(CIRULLA.to_header(), dtype=np.int64))
    assert v.hidden[1] == 0 and v.deck_left > 0      # seat 1 holds its shown 9C 7C, nothing else
    rng = np.zeros(1, dtype=np.int64)
    core.seed_rng(rng, 0, int(HardAgent(CIRULLA, seed=1).rng.integers(1, 2**62)))   # the agent's first draw
    masks = _rollout.resolve_masks(h.actions, legal, int(v.base[core.TABLE]))
    totals = np.zeros(len(legal))
    _rollout.search_any(v.base, v.hidden, v.unseen, h.actions.card[legal].astype(np.int64), masks, len(legal),
                        50, 2, _exact.POINTS, h.weights, 0.2, True, _rollout.classic_captures(CIRULLA), rng, totals)
    np.testing.assert_allclose(values, totals / 100, rtol=1e-12)


def test_a_search_world_keeps_the_cards_a_seat_showed_in_its_hand():
    """search_any deals a world's hidden cards beside the cards each seat showed, not in their
    place. The position of the test above, with the deck taken out so that nothing is left to
    chance: the opponent holds only its shown 9C 7C, so the search's value of each of my moves
    (one world, the last deal played exactly) is the exact solver's, which gives the holder its
    cards itself (mutation testing: a world's hand without the shown cards went unseen)."""
    from agents import _exact, _rollout, _scoring
    g = deal(CIRULLA, ["9D", "9C", "7C"], ["6D", "8C", "5S"], ["10S", "10B", "8S", "4B"])
    g.play("9D")
    v = _rollout.View(g.observation(0)["observation"], CIRULLA, np.asarray(CIRULLA.to_header(), dtype=np.int64))
    base = v.base.copy()
    base[core.DECK_POS] = 40                       # the deck's cards out of the game
    assert v.hidden[1] == 0 and base[core.HANDS + 1] == mask(["9C", "7C"])
    buf = core.new_move_buffer()
    k = core.legal_moves(base, buf)
    cards, masks = buf[0, :k].copy(), buf[1, :k].copy()
    exact = np.zeros(k)
    assert _exact.exact_values_any(base, 1, np.int64(0), cards, masks, k, _exact.POINTS, exact, False, 0)
    totals = np.zeros(k)
    rng = np.zeros(1, dtype=np.int64)
    core.seed_rng(rng, 0, 3)
    _rollout.search_any(base, v.hidden, np.int64(0), cards, masks, k, 1, 1, _exact.POINTS, _scoring.WEIGHTS,
                        0.0, True, _rollout.classic_captures(CIRULLA), rng, totals)
    assert k == 4 and np.array_equal(totals, exact)
    assert len(set(exact.tolist())) > 1          # the moves differ in worth: the check can fail
