"""The Gymnasium env Scopa-v0: check_env, the opponent, rewards, masks, illegal moves."""

import gymnasium
import numpy as np
import pytest

import scopa_env  # noqa: F401  (registers Scopa-v0)
from agents import REGISTRY, RandomAgent
from scopa_env import Rules, ScopaError, ScopaGymEnv
from scopa_env.observation import observe
from strict_checks import check_env_strictly


def _play(env, rng, info):
    legal = np.flatnonzero(info["action_mask"])
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("kwargs", [{}, {"opponent": "random", "episode": "hand"},
                                    {"opponent": "random", "reward": "points", "napola": True}])
def test_check_env(kwargs):
    env = gymnasium.make("Scopa-v0", **kwargs)
    check_env_strictly(env.unwrapped, skip_render_check=True)
    ansi = gymnasium.make("Scopa-v0", render_mode="ansi", **kwargs)
    check_env_strictly(ansi.unwrapped)


def test_default_opponent_and_instances():
    env = ScopaGymEnv()
    assert env.opponent.name == ("normal" if "normal" in REGISTRY else "random")
    mine = RandomAgent(Rules(), seed=3)
    assert isinstance(ScopaGymEnv(opponent=mine).opponent, RandomAgent)
    with pytest.raises(ScopaError, match="unknown agent"):
        ScopaGymEnv(opponent="grandmaster")
    with pytest.raises(ScopaError, match="opponent must be"):
        ScopaGymEnv(opponent=42)

    class ActsOnly:                 # taken, then an AttributeError at the first reset (review)
        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])
    with pytest.raises(ScopaError, match=r"^opponent must be an agent with act\(\) and reset\(seed=\.\.\.\)"):
        ScopaGymEnv(opponent=ActsOnly())
    # an agent made for other rules would read its observations with the wrong action table
    with pytest.raises(ScopaError, match="opponent 'random' was made for rules classic"):
        ScopaGymEnv(opponent=mine, rules="quindici")
    assert ScopaGymEnv(opponent=RandomAgent("quindici"), rules="quindici").opponent.rules.quindici == "only"


def test_human_render_on_reset_and_step(capsys):
    env = ScopaGymEnv(opponent="random", render_mode="human")
    obs, info = env.reset(seed=0)
    shown = capsys.readouterr().out
    assert "Scores" in shown
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "Scores" in capsys.readouterr().out


def test_stable_baselines3s_make_vec_env_way_makes_the_env():
    """stable-baselines3's make_vec_env asks gymnasium.make for render_mode='rgb_array' and, on
    a TypeError, makes the env without it; the env's ScopaError (a ValueError) stopped it (an
    interop review). The refusal is a ScopaError and a TypeError, its message unchanged."""
    import gymnasium
    import scopa_env    # noqa: F401  (registers Scopa-v0)
    try:
        with pytest.warns(UserWarning, match="render_mode='rgb_array' that is not in the possible"):
            env = gymnasium.make("Scopa-v0", opponent="random", render_mode="rgb_array")
    except TypeError:
        env = gymnasium.make("Scopa-v0", opponent="random")
    assert env.unwrapped.render_mode is None
    env.reset(seed=0)
    for make in (ScopaGymEnv, scopa_env.raw_env):
        with pytest.raises(ScopaError) as err:
            make(render_mode="rgb_array")
        assert isinstance(err.value, TypeError)
        assert str(err.value) == "render_mode must be one of ['human', 'ansi'] or None, got 'rgb_array'"


@pytest.mark.parametrize("reward", ["win", "points"])
def test_random_episodes(reward):
    env = ScopaGymEnv(opponent="random", reward=reward, napola=True)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(60):
        obs, info = env.reset(seed=ep)
        seat = info["learner_seat"]
        seats.add(seat)
        total, done = 0.0, False
        while not done:
            g = env.game
            assert g.to_move == seat
            assert np.array_equal(obs, observe(g.state, seat))
            assert np.array_equal(info["action_mask"], env.action_masks())
            legal = np.sort(g.legal_action_ids())
            assert np.array_equal(np.flatnonzero(info["action_mask"]), legal)
            obs, r, done, trunc, info = env.step(_play(env, rng, info))
            assert not trunc
            total += r
        assert not info["action_mask"].any()
        s = env.game.scores
        if reward == "win":
            assert total == (1.0 if info["winner"] == seat else -1.0)
            assert s[info["winner"]] > s[1 - info["winner"]]
        else:
            assert total == s[seat] - s[1 - seat]
    assert seats == {0, 1}


def test_seeded_and_seat_option():
    def run(seed, **kw):
        env = ScopaGymEnv(opponent="random", **kw)
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=seed)
        out = [obs]
        done = False
        while not done:
            obs, r, done, _, info = env.step(_play(env, rng, info))
            out += [obs, r]
        return out, env

    a, _ = run(4)
    b, _ = run(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)) and len(a) == len(b)
    for seat in (0, 1):
        _, env = run(9, learner_seat=seat)
        assert env.seat == seat


def test_hand_episodes_continue_the_match():
    env = ScopaGymEnv(opponent="random", episode="hand")
    rng = np.random.default_rng(2)
    obs, info = env.reset(seed=1)
    for hand in range(3):
        if hand:
            obs, info = env.reset()
        assert env.game.hand_no == hand
        done = False
        while not done:
            obs, r, done, _, info = env.step(_play(env, rng, info))
        assert "hand_score" in info


def test_resets_without_a_seed_draw_from_the_seeded_generator():
    """After reset(seed=s), later resets without a seed replay: their deals, the learner's seat
    and the opponent's seed come from the generator s made."""
    def games(seed):
        env, out = ScopaGymEnv(opponent="easy"), []
        env.reset(seed=seed)
        for _ in range(4):
            env.reset()
            out.append((env.game.state.copy(), env.seat, env.opponent.rng.integers(2**62)))
        return out
    a, b = games(3), games(3)
    assert all(np.array_equal(x[0], y[0]) and x[1:] == y[1:] for x, y in zip(a, b, strict=True))
    assert len({x[1] for x in a}) == 2 and not np.array_equal(a[0][0], a[1][0])


def test_illegal_action_ends_the_episode_with_reason():
    env = ScopaGymEnv(opponent="random")
    with pytest.raises(ScopaError, match=r"^call reset\(\) before step\(\)$"):   # not 'is over'
        env.step(0)
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(bad)
    assert term and not trunc and r == -1.0
    assert f"action {bad}" in info["illegal_move"] and "legal:" in info["illegal_move"]
    with pytest.raises(ScopaError, match=r"^the episode is over: call reset\(\) before step\(\)$"):
        env.step(bad)
    obs, info = env.reset(seed=0)
    good = int(np.flatnonzero(info["action_mask"])[0])
    # not truncated to a legal move
    with pytest.raises(ScopaError, match=rf"^an action is an integer id, got {good}\.5$"):
        env.step(good + 0.5)
    env.step(np.array([good]))                                  # a one-element integer array is fine
    with pytest.raises(ScopaError, match=r"^learner_seat must be a seat 0\.\.1 or None, got 2$"):
        ScopaGymEnv(learner_seat=2)
    for bad in ("x", float("nan"), True):
        with pytest.raises(ScopaError, match="illegal_reward must be a finite number"):
            ScopaGymEnv(illegal_reward=bad)
    # a long value is cut to 40 characters (only 10**400 was tried, which a limit of 400 also
    # cut; mutation-testing review)
    with pytest.raises(ScopaError, match=r"^illegal_reward must be a finite number, got 'x{36}\.\.\.$"):
        ScopaGymEnv(opponent="random", illegal_reward="x" * 100)
    # the one id past the table is an illegal move that ends the episode, as any other (with
    # <= for <, describing it was 'action id 16200 is not in 0..16199', raised; mutation-testing
    # review)
    obs, info = env.reset(seed=0)
    n = env.action_space.n
    obs, r, term, trunc, info = env.step(n)
    assert term and not trunc and r == -1.0
    assert info["illegal_move"].startswith(f"illegal move: action {n} (outside the table) is not legal now"), info


def test_an_agent_that_remembers_the_match_gets_a_copy_per_env():
    """hard with infer rebuilds the match from its own successive observations: one instance in
    two envs (gymnasium.make_vec hands every sub-env the same object) read each game's moves as
    the other's (review: 12 of 162 decisions rebuilt a move, against 58 of 72 alone). Such an
    instance is copied per env and seat; one that remembers nothing is still shared."""
    import gymnasium

    from agents.hard import HardAgent

    hard = HardAgent(Rules(), worlds=2, infer=True)
    assert hard.remembers_match and not RandomAgent(Rules()).remembers_match
    vec = gymnasium.make_vec("Scopa-v0", num_envs=2, vectorization_mode="sync", opponent=hard)
    envs = [e.unwrapped for e in vec.envs]
    assert envs[0].opponent is not hard and envs[0].opponent is not envs[1].opponent
    obs, infos = vec.reset(seed=0)
    rebuilt = 0
    for _ in range(40):
        actions = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
        obs, _, term, trunc, infos = vec.step(np.array(actions))
        rebuilt += sum(len(e.opponent.rows) > 0 for e in envs)
    assert rebuilt > 40
    vec.close()


def test_an_agent_that_remembers_the_match_is_one_object_per_seat_of_three_players():
    """With three players both other seats are played by a copy of their own (one copy for both
    seats passed the two-player tests; mutation-testing review): an agent that rebuilds the match
    from its observations would read two seats' observations as one player's."""
    from scopa_env.presets import rules_from_preset

    rules = rules_from_preset("three-players")
    acted = []

    class Remembers(RandomAgent):
        remembers_match = True

        def act(self, observation):
            acted.append(id(self))
            return super().act(observation)

    env = ScopaGymEnv(rules=rules, opponent=Remembers(rules, seed=1), learner_seat=0)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(6):
        obs, _, term, trunc, info = env.step(_play(env, rng, info))
    assert len(acted) >= 12 and len(set(acted)) == 2, acted


def test_an_instance_is_copied_for_each_env_so_seeded_matches_do_not_depend_on_the_others():
    """Review: an instance that remembers nothing was shared by every env it was given to
    (gymnasium.make_vec hands each sub-env the same object), and each env's reset reseeded its one
    generator: sub-env 0 with seed 5 did not play a single env's seed-5 match, and sync and async
    vectorization differed. Now each env plays its own copy; the user's object is untouched."""
    import gymnasium

    def episode(env_of, seed):
        env = env_of()
        obs, info = env.reset(seed=seed)
        seen, done = [obs.copy()], False
        while not done:
            obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            seen.append(obs.copy())
            done = term or trunc
        return seen

    mine = RandomAgent(Rules(), seed=3)
    before = mine.rng.bit_generator.state
    alone = episode(lambda: ScopaGymEnv(opponent=mine, learner_seat=0), 5)
    vec = gymnasium.make_vec("Scopa-v0", num_envs=2, vectorization_mode="sync", opponent=mine, learner_seat=0)
    envs = [e.unwrapped for e in vec.envs]
    assert envs[0].opponent is not mine and envs[0].opponent is not envs[1].opponent
    obs, infos = vec.reset(seed=[5, 6])
    first, done = [obs[0].copy()], False
    while not done:                       # both sub-envs stepped in lockstep, env 0 recorded
        # (a sub-env that ended has no legal move: its next step only resets it)
        actions = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in infos["action_mask"]]
        obs, _, term, trunc, infos = vec.step(np.array(actions))
        done = term[0] or trunc[0]
        if not done:
            first.append(obs[0].copy())
    vec.close()
    assert len(first) == len(alone) - 1 and all(np.array_equal(a, b) for a, b in zip(first, alone[:-1], strict=True))
    assert mine.rng.bit_generator.state == before


ASYNC_LEARNED = """
import gymnasium, numpy as np, scopa_env
vec = gymnasium.make_vec("Scopa-v0", num_envs=2, vectorization_mode="async",
                         opponent="checkpoints/scopa-default.pt")
obs, info = vec.reset(seed=[1, 2])
for _ in range(12):
    obs, r, term, trunc, info = vec.step(np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]]))
vec.close()
print("stepped")
"""

TORCH_FIRST = """
import multiprocessing as mp, numpy as np, torch
torch.set_num_threads(2)
x = torch.randn(256, 256)
for _ in range(5):
    x = torch.tanh(x @ x.T / 256)        # the parent's own torch work starts the OpenMP pool
import scopa_env                          # nothing of agents.learned imported here


def work(seed):
    import gymnasium
    env = gymnasium.make("Scopa-v0", opponent="checkpoints/scopa-default.pt")
    obs, info = env.reset(seed=seed)
    for _ in range(6):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    return seed


with mp.get_context("fork").Pool(1) as pool:
    print("results", pool.map(work, [0, 1]))
"""


def test_forked_workers_with_a_learned_opponent_do_not_hang():
    """A forked child of a process that has run torch on several threads hung at its first torch
    op (the parent's OpenMP pool does not survive fork; py-spy: torch.isfinite in the checkpoint
    load). gymnasium's async make_vec does that: it builds one env in the parent, then forks its
    workers. So does a user's fork Pool after torch work of their own, before anything of agents
    is imported (review). A forked child of a process that imported scopa_env now runs torch on
    one thread (scopa_env/__init__.py)."""
    from isolated import run_isolated

    assert "stepped" in run_isolated(ASYNC_LEARNED, 300, "async make_vec with a learned opponent")
    assert "results [0, 1]" in run_isolated(TORCH_FIRST, 300, "a fork Pool after the parent's torch work")


def test_make_vec_end_of_episode_masks_as_the_readme_says():
    """README: a sub-env ended by the game returns an all-zero mask; one cut by a TimeLimit keeps
    its position's mask (the README said every ending step's mask was all zero: review); the
    next step only resets it and pays 0."""
    import gymnasium
    vec = gymnasium.make_vec("Scopa-v0", num_envs=2, vectorization_mode="sync", opponent="random",
                             max_episode_steps=3)
    obs, info = vec.reset(seed=0)
    for _ in range(3):
        obs, r, term, trunc, info = vec.step(np.array([np.flatnonzero(m)[0] for m in info["action_mask"]]))
    assert trunc.all() and not term.any() and (info["action_mask"].sum(1) > 0).all()
    obs, r, term, trunc, info = vec.step(np.zeros(2, dtype=np.int64))
    assert (r == 0).all() and not (term | trunc).any()
    vec.close()
    vec = gymnasium.make_vec("Scopa-v0", num_envs=1, vectorization_mode="sync", opponent="random")
    obs, info = vec.reset(seed=0)
    while True:
        obs, r, term, trunc, info = vec.step(np.array([np.flatnonzero(info["action_mask"][0])[0]]))
        if term[0]:
            break
    assert info["action_mask"][0].sum() == 0 and r[0] in (-1, 1)
    vec.close()


def test_gym_last_observation_is_the_learners():
    """gym_env.py: 'The learner sees its own observation vector', the final one too (mutation
    testing: the last observation from the seat to move went unseen)."""
    env = ScopaGymEnv(opponent="random", episode="hand")
    rng = np.random.default_rng(0)
    for ep in range(30):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            obs, r, done, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        assert np.array_equal(obs, observe(env.game.state, info["learner_seat"]))


class SeedSpy(RandomAgent):
    """Records the seeds every instance is reset with."""
    seeds = []

    def reset(self, seed=None):
        SeedSpy.seeds.append(seed)
        return super().reset(seed=seed)


def test_gym_seeds_the_other_seats_agents_from_its_generator():
    """gym_env.py: 'reset(seed=s) seeds self.np_random, which deals the matches, picks the
    learner's seat (when not fixed) and seeds the other seats' agents' (mutation testing: a
    constant seed went unseen)."""
    env = ScopaGymEnv(opponent=SeedSpy(Rules(), seed=0), learner_seat=0)
    got = []
    for s in (1, 2, 1):
        SeedSpy.seeds.clear()
        env.reset(seed=s)
        got.append(list(SeedSpy.seeds))
    assert got[0] == got[2] and got[0] != got[1]


def test_gym_seeded_reset_starts_a_new_match_in_hand_episodes():
    """episode 'hand' as in aec.py: reset(seed=...) always starts a new match (mutation testing: a
    seeded reset carrying on the old match went unseen; the gym test never reseeded)."""
    env = ScopaGymEnv(opponent="random", episode="hand", learner_seat=0)
    first, info = env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    again, _ = env.reset(seed=1)
    assert env.game.hand_no == 0 and env.game.scores == [0, 0]
    assert np.array_equal(first, again)


def test_gym_learner_in_seat_2_of_three_players_gets_side_2s_points():
    """'the learner gets its side's reward there': seat 2 of three players is side 2 (mutation
    testing: seat % 2 went unseen, equal for 2 players and pairs)."""
    from scopa_env.batched import side_rewards
    env = ScopaGymEnv(opponent="random", rules="three-players", target=5, reward="points", learner_seat=2)
    obs, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        obs, r, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += r
    assert total == side_rewards(env.game.scores)[2]


def test_gym_render_is_from_the_learners_seat_at_episode_end():
    """render_mode: 'shown from the learner's seat', at the end too, where another seat is to
    move (mutation testing: rendering from the seat to move went unseen)."""
    env = ScopaGymEnv(opponent="random", learner_seat=1, episode="hand", render_mode="ansi")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, r, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    text = env.render()
    assert "player_1 hand:" in text, text


def test_an_illegal_action_is_rewarded_illegal_reward():
    """illegal_reward is what an illegal step returns (only the default -1 was played: a
    mutation review hard-coded -1 and no test failed)."""
    env = ScopaGymEnv(opponent="random", illegal_reward=-5.0)
    obs, info = env.reset(seed=0)
    _, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert r == -5.0 and term and not trunc and "illegal_move" in info


def test_illegal_reward_too_large_for_numpy_is_a_clear_error():
    """np.isfinite(2**70) was a TypeError and 10**400 an OverflowError (review); 2**70 is a
    finite number, taken as a float."""
    assert ScopaGymEnv(opponent="random", illegal_reward=2**70).illegal_reward == float(2**70)
    with pytest.raises(ScopaError, match=r"illegal_reward must be a finite number, got 1000000000"):
        ScopaGymEnv(opponent="random", illegal_reward=10**400)


def test_an_opponent_object_is_held_to_the_learners_rules():
    """Found by a review of the agent contract: an opponent object's answer went through int(),
    so 14.9 and '14' were played as 14 and None was a TypeError; an agent class (not an
    instance) passed the check and failed at the first reset()."""
    from agents import Agent

    class Answers(Agent):
        def __init__(self, answer, **kw):
            self.answer = answer
            super().__init__(**kw)

        def act(self, observation):
            legal = self.legal_actions(observation)
            return self.answer(legal)

    for answer, shown in ((lambda legal: float(legal[0]) + 0.9, r"got \d+\.9"),
                          (lambda legal: str(legal[0]), r"got '\d+'"), (lambda legal: None, "got None")):
        env = ScopaGymEnv(opponent=Answers(answer), learner_seat=1)
        with pytest.raises(ScopaError, match=rf"agent 'agent' \(seat 0\): an action is an integer id, {shown}"):
            env.reset(seed=0)
    with pytest.raises(ScopaError, match=r"opponent must be an agent .* got the class RandomAgent: pass an instance"):
        ScopaGymEnv(opponent=RandomAgent)
    # an integer id that is not legal names the id (it said 'an illegal action'; mutation-testing
    # review); the table's last id, not legal at the opponent's first move here
    last = ScopaGymEnv(opponent="random").action_space.n - 1
    env = ScopaGymEnv(opponent=Answers(lambda legal: last), learner_seat=1)
    with pytest.raises(ScopaError, match=rf"^agent 'agent' \(seat 0\) chose illegal action {last}$"):
        env.reset(seed=0)
    # the error ends the episode: the game stands at the opponent's turn, and a step() after the
    # error was caught played the opponent's move as the learner's (a mutation review of gym_env)
    with pytest.raises(ScopaError, match=r"the episode is over: call reset\(\) before step\(\)"):
        env.step(0)
    assert not env.action_masks().any()
    turns = []
    env = ScopaGymEnv(opponent=Answers(lambda legal: last if len(turns) else (turns.append(1), legal[0])[1]),
                      learner_seat=0)
    obs, info = env.reset(seed=0)
    with pytest.raises(ScopaError, match="chose illegal action"):
        for _ in range(5):
            info = env.step(int(np.flatnonzero(info["action_mask"])[0]))[4]
    assert env.game.to_move != env.seat
    with pytest.raises(ScopaError, match=r"the episode is over"):
        env.step(0)
    turns.clear()
    obs, info = env.reset(seed=1)             # a new episode plays on
    assert info["action_mask"].any() and env.game.to_move == env.seat


@pytest.mark.parametrize("preset,seats", [("three-players", {0, 1, 2}), ("pairs", {0, 1, 2, 3})])
def test_the_learner_is_drawn_to_every_seat(preset, seats):
    """learner_seat=None draws the learner's seat per match from every seat of the rules (a
    mutation review: drawing from two seats only, never 2 of 3, passed the test, which asked for
    more than one seat)."""
    env = ScopaGymEnv(opponent="random", rules=preset)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(40)} == seats


# ---- found by a second mutation review of gym_env.py --------------------------------------------
def test_gym_hand_end_info_has_the_match_scores():
    """The docstring: after a step in which a hand ended, info holds hand_score and scores."""
    env = ScopaGymEnv(opponent="random", reward="points", learner_seat=0)
    _, info = env.reset(seed=0)
    hands = 0
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if "hand_score" in info:
            hands += 1
            assert info["scores"] == env.game.scores
    assert hands >= 2 and "scores" in info


def test_gym_partner_defaults_to_the_opponent():
    """The docstring and README: the partner is by default the same as the opponent (a level other
    than random: a review of the tests found a partner fixed at random passed)."""
    env = ScopaGymEnv(opponent="easy", rules=Rules(players=4), learner_seat=0)
    env.reset(seed=0)
    assert env._agent_of(2).name == "easy" and env._agent_of(1).name == "easy"
    assert ScopaGymEnv(opponent="random", partner="easy", rules=Rules(players=4),
                       learner_seat=0)._agent_of(2).name == "easy"


def test_gym_opponent_attribute_is_the_agent_that_plays():
    """env.opponent is the env's copy that plays the next seat: patching it changes the play."""
    env = ScopaGymEnv(opponent="random", learner_seat=0)
    _, info = env.reset(seed=0)
    calls = []
    act = env.opponent.act
    env.opponent.act = lambda obs: (calls.append(1), act(obs))[1]
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert calls == [1]


def test_gym_an_instance_shared_by_two_seats_is_reset_once_a_match():
    """Three players, one opponent instance: its copy plays both other seats and is reseeded
    once at each new match, not once per seat (the last seat's seed would win)."""
    env = ScopaGymEnv(opponent=SeedSpy(Rules(players=3), seed=0), rules=Rules(players=3),
                      learner_seat=0)
    SeedSpy.seeds.clear()
    env.reset(seed=0)
    assert len(SeedSpy.seeds) == 1
    by_name = ScopaGymEnv(opponent="random", rules=Rules(players=3), learner_seat=0)
    by_name.reset(seed=0)
    assert by_name._agent_of(1) is not by_name._agent_of(2)      # a name: one agent per seat


def test_gym_illegal_message_lists_every_legal_move():
    env = ScopaGymEnv(opponent="random", learner_seat=0)
    _, info = env.reset(seed=0)
    legal = np.flatnonzero(info["action_mask"]).tolist()
    assert len(legal) >= 2
    table = int(env.game.state[scopa_env.core.TABLE])
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    listed = info["illegal_move"].split("(legal: ")[1][:-1]
    assert listed == "; ".join(f"{i} {env.table.describe(i, table)}" for i in legal)


def test_after_an_illegal_move_action_masks_is_empty():
    """The episode is over after an illegal move, though the game stands at the learner's turn:
    action_masks() (what MaskablePPO reads) is all zero, as the step's info mask is (a mutation
    review: only the info mask was checked)."""
    e = ScopaGymEnv(opponent="random", learner_seat=0)
    _, info = e.reset(seed=0)
    assert e.action_masks().sum() == 3
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = e.step(bad)
    assert reward == -1.0 and terminated and not truncated
    assert e.action_masks().sum() == 0 and info["action_mask"].sum() == 0
