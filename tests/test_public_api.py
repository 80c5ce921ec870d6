"""The public Python API as a library user meets it: calls an API review made that gave a raw
Python error deep inside, ran with a value silently read as another, or let one user's write
change every game of a rules set."""
import numpy as np
import pytest

from scopa_env import Game, Rules, ScopaError


def test_a_move_from_legal_moves_is_played_as_it_is():
    """g.play(g.legal_moves()[0]) was 'bad card Move(...)': the engine's own move type."""
    g = Game(seed=3)
    move = g.legal_moves()[-1]
    assert g.play(move).move == move
    g = Game(seed=3)
    with pytest.raises(ScopaError, match="a Move says what it captures: give it alone"):
        g.play(g.legal_moves()[0], [])


@pytest.mark.parametrize("seed", [1.7, 1.0, True, "3", None, -1, 2**70])
def test_evaluate_refuses_a_seed_that_is_no_seed(seed):
    """arena.evaluate played seed 1's deals for 1.7 (truncated), took True and '3', and gave raw
    ValueError/TypeError tracebacks for -1, 2**70 and None, where the README promises one
    ScopaError (agents given as objects: a spec's make_agent checked it); a numpy integer is a
    seed."""
    from agents import RandomAgent
    from agents.arena import evaluate
    with pytest.raises(ScopaError, match=r"^seed must be a whole number 0\.\.2\*\*63-1, got "):
        evaluate(RandomAgent(), RandomAgent(), matches=2, seed=seed)     # objects: no make_agent checks it
    assert evaluate("random", "easy", matches=2, seed=np.int64(1))["matches"] == 2
    with pytest.raises(ScopaError, match="^progress must be a function"):
        evaluate("random", "easy", matches=2, seed=0, progress=True)


def test_the_shared_action_tables_are_read_only():
    """An action table is shared by every env and agent of its rules (Agent.actions): writing
    into one made every later env of scopa d'assi play an ace's sweep as a lay, an illegal move,
    without an error. Its arrays are read-only."""
    from agents import make_agent
    from scopa_env.actions import action_table
    table = make_agent("random", rules="scopa-d-assi").actions
    assert table is action_table("scopa-d-assi")
    for arr in (table.card, table.captured, table.base, *table.kernel):
        assert not arr.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0


def test_game_takes_the_rules_keywords_the_environments_take():
    """Game(napola=True) was a TypeError where env(), Scopa-v0 and BatchedScopa take napola= and
    target=; Rules('scopone') read the preset's name as napola's value."""
    assert Game(napola=True).rules == Rules(napola=True)
    assert Game("scopone", seed=0, target=21).rules == Rules(players=4, hand_cards=9, target=21)
    with pytest.raises(ScopaError, match=r"for the preset 'scopone' use scopa_env.rules_from_preset\('scopone'\)"):
        Rules("scopone")


def test_a_train_config_built_directly_says_how_to_give_rules():
    """TrainConfig(rules='scopone') refused the preset name its field's text lists, with no word
    of make_config, which reads it."""
    from training.config import TrainConfig, make_config
    for rules in ("scopone", {"napola": True}):
        with pytest.raises(ScopaError, match="TrainConfig holds a Rules object; make_config reads a preset name"):
            TrainConfig(rules=rules)
    assert make_config(rules="scopone").rules.players == 4


def test_view_reads_the_observation_dict_the_environments_give():
    """observation.view(obs, 'table') on the dict of Game.observation and the environments was
    an AttributeError; it reads its 'observation', and a list as an array."""
    from scopa_env.observation import view
    g = Game(seed=1)
    obs = g.observation(g.to_move)
    table = view(obs["observation"], "table")
    assert (view(obs, "table") == table).all() and (view(list(obs["observation"]), "table") == table).all()
    assert table.sum() == len(g.table)
    with pytest.raises(ScopaError, match="an observation is a vector of values"):
        view(3, "table")
