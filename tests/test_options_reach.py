"""Every rules option reaches the engine, and the agents' shortcut for classic captures holds
only where the engine's captures are the classic ones.

A contributor review added a no-op option to Rules: with the field alone it was accepted with
any value, and with a value it never reached the engine's header (`Rules.to_header`), records
written and replayed without it; the one test that failed compared an error's text. And
`agents/_rollout.classic_captures`, a hand-kept list of the options that change captures (the
agents then use their compiled classic reply estimate), was checked only against the same list.
Here each option's values come from the Rules fields themselves: a new option without a value
below fails by name, and one that does not reach the header, or changes captures unseen by
classic_captures, fails on its behaviour."""
from dataclasses import fields

import numpy as np
import pytest

from agents import _rollout
from scopa_env import core
from scopa_env.rules import NAPOLEONE, PRIMIERA_SCALES, QUINDICI, Rules
from positions import random_play

# the values tried for the options that are not true/false or one of a list of names
WHOLE_VALUES = {"target": [5, 21], "players": [3, 4, 6], "hand_cards": [9], "table_cards": [0],
                "capotto": [1, 6], "napola_max": [3, 6]}
NAMED = {"napoleone": NAPOLEONE, "quindici": QUINDICI, "primiera": PRIMIERA_SCALES}
# what an option's value needs of the others to be valid rules
NEEDS = {"ace_scopa": dict(ace_takes_all=True), "burned_ace": dict(ace_takes_all=True),
         "joker": dict(hand_bonus=True), "hand_cards": dict(players=4),
         "table_cards": dict(hand_cards=2), "napola_max": dict(napola=True)}


def option_values():
    """(option, value, the rules with it, the rules it changes): each value of each option but
    its default, on the rules it needs."""
    out = []
    for f in fields(Rules):
        default = f.default
        if isinstance(default, bool):
            values = [not default]
        elif f.name in NAMED:
            values = [v for v in NAMED[f.name] if v != default]
        else:
            assert f.name in WHOLE_VALUES, f"rules option {f.name}: give it values to try in WHOLE_VALUES"
            values = WHOLE_VALUES[f.name]
        base = Rules(**NEEDS.get(f.name, {}))
        for v in values:
            changed = base.replace(**{f.name: v})
            out.append((f.name, v, changed, base))
    return out


OPTION_VALUES = option_values()


@pytest.mark.parametrize("name,value,rules,base", OPTION_VALUES, ids=[f"{n}={v}" for n, v, _, _ in OPTION_VALUES])
def test_every_option_reaches_the_engine(name, value, rules, base):
    """Each value of each option changes the header the engine plays from (and the field is its own:
    only it differs from the rules it changes)."""
    assert [k for k in rules.to_dict() if rules.to_dict()[k] != base.to_dict()[k]] == [name]
    assert not np.array_equal(np.asarray(rules.to_header()), np.asarray(base.to_header())), name


def test_true_or_false_options_refuse_other_values():
    """Each true/false option refuses a value that is not one, read from the field's default (a
    hand-kept list of them let a new option take any value)."""
    from scopa_env import ScopaError
    for f in fields(Rules):
        if isinstance(f.default, bool):
            with pytest.raises(ScopaError, match=f"rules option {f.name} must be true or false"):
                Rules(**{**NEEDS.get(f.name, {}), f.name: "maybe"})


def _moves(state) -> set:
    buf = core.new_move_buffer()
    n = core.legal_moves(state, buf)
    return {(int(buf[0, i]), int(buf[1, i])) for i in range(n)}


def _geometry(rules: Rules) -> Rules:
    """The classic game with `rules`' players and deal: the captures classic_captures stands for."""
    return Rules(players=rules.players, hand_cards=rules.hand_cards, table_cards=rules.table_cards)


@pytest.mark.parametrize("name,value,rules,base", OPTION_VALUES, ids=[f"{n}={v}" for n, v, _, _ in OPTION_VALUES])
def test_classic_captures_is_true_only_where_the_engine_captures_as_classic(name, value, rules, base):
    """Where classic_captures says the captures are the classic ones, the engine's legal moves in
    positions of play under `rules` are those of the same position under the classic rules of
    that deal; where it says they are not, some position shows the difference (or the shortcut
    is kept from rules it would serve: a slow path, not a wrong one, and said here)."""
    classic = np.asarray(_geometry(rules).to_header(), dtype=np.int64)
    slots = list(core.OPTION_SLOTS)     # the rest of the header is the game's (the table, the mover)
    differs = 0
    for seed in range(60):
        g = random_play(rules, seed, seed % 7)
        if g is None:
            continue
        state = g.state.copy()
        mine = _moves(state)
        state[slots] = classic[slots]
        differs += mine != _moves(state)
    if _rollout.classic_captures(rules):
        assert differs == 0, f"{name}={value} changes captures in {differs} positions: classic_captures must say False"
    else:
        assert differs > 0 or (name, value) in SLOW_ONLY, f"{name}={value}: no position differs"


# options classic_captures sends to the general path although their captures are the classic
# ones in every position of play: the joker with hand_bonus changes the values of a shown hand's
# 7C, which the positions above may not reach
SLOW_ONLY = {("joker", True)}


def test_the_reference_rules_know_every_option():
    """tests/reference_rules.py, the independent oracle the engine's records are replayed
    against, holds every option at the engine's default: it read an option it lacked as absent,
    and a record played with it passed (a contributor review); check_record now refuses one."""
    from reference_rules import DEFAULTS, check_record
    assert DEFAULTS == Rules().to_dict()
    with pytest.raises(AssertionError, match="do not know the option"):
        check_record({"rules": {**DEFAULTS, "noop_dummy": True}, "players": ["a", "b"], "hands": []})


def test_the_network_s_reply_features_are_the_engine_s_captures():
    """agents/network.py reply_tactics, a feature of the network (which ranks capture on the
    table a move leaves, and which sweep it), keeps its own copy of the classic captures for
    speed: here against the engine's legal moves of a card of each rank on random tables (its
    own test compares it with a second copy of the rule)."""
    from agents.network import reply_tactics
    from scopa_env.cards import as_mask
    rng = np.random.default_rng(7)
    header = np.asarray(Rules().to_header(), dtype=np.int64)
    checked = 0
    for n in list(range(1, 13)) * 12:
        table = [int(c) for c in rng.permutation(40)[:n]]
        out = np.zeros((1, 20), dtype=np.float32)
        reply_tactics(np.array([as_mask(table)], dtype=np.int64), out)
        for r in range(1, 11):
            free = [c for c in range(40) if c % 10 + 1 == r and c not in table]
            if not free:
                continue
            state = np.zeros(core.STATE_SIZE, dtype=np.int64)
            state[:core.HEADER_SIZE] = header
            state[core.TABLE] = as_mask(table)
            state[core.TO_MOVE] = 0
            state[core.HANDS] = 1 << free[0]
            caught = {m for _, m in _moves(state)} - {0}
            assert bool(out[0, r - 1]) == bool(caught), (table, r)
            assert bool(out[0, 10 + r - 1]) == (as_mask(table) in caught), (table, r)
            checked += 1
    assert checked > 1000
