"""A trained policy behind the agent interface: loads a checkpoint, plays its best-scoring move.

The network (agents/network.py) scores each legal move from the observation vector and the move's
features (card played, cards captured), which it reads from the action table: so the agent
decides from the observation dict alone, like every other agent. Play is greedy and
deterministic; ties go to the lowest action id.

Any rules set: the checkpoint carries its rules and observation layout (players), and the agent
plays only those rules (another rules set is a ScopaError naming both). Moves are read from the
rules' action table; an ace-takes-the-table id is given the table of the moment as its captured
mask.

`count_last` (default: 6 under the classic 2-player rules, else 0 = the network plays every card;
the README's tables give the network alone, `PATH.pt:count_last=0`, too): once the deck is empty
the unseen cards are exactly the opponent's hand, so nothing is hidden any more; with at most
`count_last` cards left in the two hands the agent plays the rest of the deal exactly (alpha-beta
to the hand's score, the solver the normal level uses for its last 4 cards, agents/_rollout.py).
6 solves the whole last deal (300 matches against normal, with the 60M-step network of an earlier
version: +0.13 points per hand without, +0.47 with; with the shipped 169M one the gain is +0.19,
docs/experiments.md, "Settings, and longer training"). It is a perfect-information endgame, not
a search over hidden cards. As for the hard level, when a hand can decide the match (a score
within 7 of the target) the solver plays for the match (win, then points) rather than for the
hand's points. The solver knows the classic 2-player game (napola and target may vary): for
other rules (more players, variant captures or scoring) count_last > 0 is a ScopaError, not
silently ignored.

`search` (default 0 = off; the classic 2-player game only): until the deck is empty, blend the
network's scores with the hard level's determinized Monte Carlo with opponent modelling (hard
options `budget=search`, `infer=True`: the worlds draw the opponent's hand from those that
explain its moves this deal, agents/hard.py): the move played maximises
(1 - search_weight) * network + search_weight * search (default weight 0.5). Both are the hand's
expected point difference, so they share a scale (a DMC network's; a PPO checkpoint's scores are
logits, and search with one is a ScopaError). When a hand can decide the match (a score
within 7 of the target) the search scores a move by its chance of winning the match; the network
knows nothing of the match score's stakes, so its points enter the blend in the chance they are
worth by the levels' guess, 0.08 a point (`_exact.EQUITY_SLOPE`; also with `match_equity`, whose
counted chance has no one slope). Option `blend_deciding` (on with search;
`blend_deciding=false` lets the search alone choose in those hands, as before 2026-12-03):
measured under a rule fixed beforehand, it won more matches than the search alone on 2,000
matches against each level (docs/experiments.md, "Blending in deciding hands"). The search's
generator is seeded from the agent's seed: same observations after the same reset, same moves.
With search the last deal is the hard level's too; option `easy_last_deal` (on with search,
`easy_last_deal=false` turns it off) passes on the hard option: against an opponent the
inference takes for easy, the mean outcome under easy's play rather than minimax's worst case
(docs/experiments.md, "Opponent modelling": 88.4% -> 90.8% of matches against easy; against hard, pooled
over two runs of 2,000 matches, 50.9% -> 51.0%; both measured before blend_deciding).
Option `match_equity` passes on the hard option of that name (needs search; default
MATCH_EQUITY below): once a hand can decide the match, the chance of winning it from a score is
counted out from measured hand scores against each of the inference's opponent models, weighed
by the model weights (agents/_equity.py), instead of the levels' guess from the score difference
(docs/experiments.md, "Match equity").
A decision costs a few milliseconds (median 3.7 ms on this 2-core machine against hard's 2.7 ms,
measured 2026-11-30; the README's bench_hard run of 2026-12-05 gives hard 2.99 ms).
Off by default: training evaluates with the network alone. Measured in docs/experiments.md
("Opponent modelling").
"""
from __future__ import annotations

import numpy as np
import torch

from scopa_env.actions import TAKES_TABLE
from scopa_env.cards import number_text
from scopa_env.errors import RulesMismatch, ScopaError
from scopa_env.observation import layout_for
from scopa_env.presets import preset_name, resolve_rules
from scopa_env.rules import Rules

from .base import Agent, flag_option, number_option, whole_option


MATCH_EQUITY = False     # the search's default for option match_equity
BLEND_DECIDING = True    # the search's default for option blend_deciding


class LearnedAgent(Agent):
    """LearnedAgent(rules, seed, path=...) or LearnedAgent(rules, seed, model=MoveScorer)."""

    name = "learned"

    def __init__(self, rules: Rules | None = None, seed: int = 0, path: str | None = None,
                 model=None, name: str | None = None, count_last: int | None = None,
                 search: int = 0, search_weight: float | None = None, easy_last_deal: bool | None = None,
                 match_equity: bool | None = None, blend_deciding: bool | None = None):
        from . import checkpoint
        from .network import build_model

        if (path is None) == (model is None):
            raise ScopaError("LearnedAgent needs exactly one of a checkpoint path or a model")
        if name is not None and (not isinstance(name, str) or not name):
            raise ScopaError(f"learned option name must be a non-empty text, got {name!r}")
        rules = None if rules is None else resolve_rules(rules)
        if path is not None:
            ckpt = checkpoint.load(path)
            trained = checkpoint.rules_of(ckpt, str(path))
            if rules is not None and rules != trained:
                raise RulesMismatch(f"checkpoint {str(path)!r} was trained for rules {_label(trained)}, "
                                    f"not {_label(rules)} ({trained.differences(rules)})", trained)
            rules = trained
            try:
                model = build_model(ckpt["model_config"])
                model.load_state_dict(ckpt["model"])
            except (ValueError, KeyError, RuntimeError, TypeError, AttributeError, IndexError) as e:
                first = checkpoint.first_line(e)
                raise ScopaError(f"checkpoint {str(path)!r} holds no usable network ({first})") from None
            self.name = name or str(path).rsplit("/", 1)[-1].removesuffix(".pt")
            # which network this is, whatever its file is called or else holds (evaluate.py --json
            # keeps it; the whole file's checksum changed when a finished run was resumed: review)
            self.network_digest = checkpoint.network_digest(ckpt)
        elif name:
            self.name = name
        rules = rules or Rules()
        if path is None and not isinstance(model, torch.nn.Module):
            # a state_dict given as the model was "'OrderedDict' object has no attribute 'eval'"
            raise ScopaError(f"LearnedAgent's model must be a network (agents.network.build_model), "
                             f"got {type(model).__name__}: a checkpoint's weights load with "
                             f"make_agent('path.pt')")
        if getattr(model, "players", 2) != rules.players:
            raise ScopaError(f"the network reads {getattr(model, 'players', 2)}-player observations, "
                             f"the rules have {rules.players} players")
        # a network of 3-card hands under 9-card rules (scopone) read the same 469 values and
        # scaled the hand counts by a third, without a word (review)
        for attr, want in (("hand_cards", rules.hand_cards), ("bonus", rules.hand_bonus)):
            if getattr(model, attr, want) != want:
                raise ScopaError(f"the network was built for {attr}={getattr(model, attr)!r}, the rules "
                                 f"have {want!r}: build it with MoveScorer.for_rules(hidden, rules)")
        classic = rules.replace(napola=False, target=11) == Rules()
        if count_last is None:
            count_last = 6 if classic else 0
        count_last = whole_option("learned", "count_last", count_last, 0, 6)
        if count_last and not classic:
            raise ScopaError(f"learned option count_last solves the classic 2-player last deal; "
                             f"these rules ({_label(rules)}) are another game: use count_last=0")
        self.count_last = count_last
        search = whole_option("learned", "search", search, 0)
        weight_given = search_weight is not None
        search_weight = number_option("learned", "search_weight", 0.5 if search_weight is None else search_weight)
        if not 0.0 <= search_weight <= 1.0:
            raise ScopaError(f"learned option search_weight must be a number in [0, 1], got {number_text(search_weight)}")
        if weight_given and not search:      # accepted without a word, and did nothing
            raise ScopaError("learned option search_weight blends the search: give search > 0 too")
        if search and not classic:
            raise ScopaError(f"learned option search is the hard level's classic 2-player search with "
                             f"opponent modelling; these rules ({_label(rules)}) are another game: use search=0")
        if search and path is not None and ckpt["algo"] != "dmc":
            # the blend adds the network's scores to the search's expected points: a DMC network's
            # scores are such points, a PPO policy's are logits on a scale of their own
            raise ScopaError(f"learned option search blends the network's expected points with the "
                             f"search's; checkpoint {str(path)!r} is a {ckpt['algo']} policy, whose "
                             f"move scores are logits, not points: use search=0 or a dmc checkpoint")
        self.search, self.search_weight = search, search_weight
        # easy_last_deal and blend_deciding are on with search unless turned off: the rules fixed
        # before measuring them made them the defaults (docs/experiments.md, "Opponent
        # modelling": pooled 2,041 of 4,000 against 2,038 against hard; "Blending in deciding hands")
        easy_last_deal = _search_flag("easy_last_deal", easy_last_deal, True, search)
        match_equity = _search_flag("match_equity", match_equity, MATCH_EQUITY, search)
        self.blend_deciding = _search_flag("blend_deciding", blend_deciding, BLEND_DECIDING, search)
        self._hard = None
        if search:
            from .hard import HardAgent
            self._hard = HardAgent(rules, seed, budget=search, infer=True, easy_last_deal=easy_last_deal,
                                   match_equity=match_equity)
        model.eval()
        self.model = model
        super().__init__(rules, seed)
        self._card = torch.from_numpy(self.actions.card.copy())      # the shared table is read-only
        self._captured = torch.from_numpy(self.actions.captured.copy())
        self._table = layout_for(self.rules).slices["table"]
        if path is not None:
            # finite weights of 3e38 score every move NaN, and argmax played the first legal move
            # of every position without a word (review): one position scored tells such a file
            try:
                self.scores(first_observation(self.rules))
            except NonFiniteScores as e:
                raise ScopaError(f"checkpoint {str(path)!r} holds no usable network ({e.why})") from None

    @torch.no_grad()
    def scores(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and the network's score of each."""
        legal = self.legal_actions(observation)
        ids = torch.from_numpy(legal)
        raw = np.asarray(observation["observation"], dtype=np.int8)
        try:
            obs = self.model.obs_tensor(raw[None])
        except ValueError as e:
            raise ScopaError(f"{self.name}: {e}") from None
        captured = self._captured[ids]
        if self.actions.ace_takes_all and bool((captured == TAKES_TABLE).any()):
            table = int(sum(1 << int(c) for c in np.flatnonzero(raw[self._table])))
            captured = torch.where(captured == TAKES_TABLE, table, captured)
        # one position is a tiny forward pass: more threads only wait on each other (two threads
        # on the busy 2-core machine: 20 scopone matches against normal in 26 s, one: 0.9 s)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            h = self.model.encode(obs)
            s = self.model.score_moves(obs, h, self._card[ids][None], captured[None])[0]
        finally:
            torch.set_num_threads(threads)
        if not bool(torch.isfinite(s).all()):
            raise NonFiniteScores(self.name, scores_not_finite(s))
        return legal, s.numpy()

    def act(self, observation: dict) -> int:
        observation = self.check_observation(observation)
        # first: _act's last-deal count read a short vector before any check (an IndexError)
        self.legal_actions(observation)     # another rules' observation named the search: 'hard was made for'
        if self._hard is None:
            return self._act(observation)
        obs = observation["observation"]
        self._hard.observe(obs)             # checks the observation before its model reads it
        action = self._act(observation)
        self._hard.remember(obs, action)
        return action

    def _act(self, observation: dict) -> int:
        if self.count_last:
            from ._exact import EXACT_NODES, POINTS, linear_equity
            from ._rollout import countable_last_deal, last_deal_values
            from .hard import deciding

            obs = np.asarray(observation["observation"], dtype=np.int8)
            # counted out when it can be (the opponent's hand known) and within EXACT_NODES
            # moves (set-up tables of many cards); else the network (and search) as before it
            if countable_last_deal(obs, self.count_last):
                if self._hard is not None:
                    # with search, its opponent model plays the last deal too (hard option
                    # easy_last_deal: against an opponent it takes for easy, easy's mean outcome)
                    solved = self._hard.last_deal(observation)
                else:
                    legal = self.legal_actions(observation)
                    values = np.zeros(len(legal))
                    equity = linear_equity(self.rules.target) if deciding(obs, self.rules.target) else POINTS
                    solved = (legal, values) if last_deal_values(
                        obs, self.rules.target, self.actions.card[legal], self.actions.captured[legal],
                        len(legal), equity, values, EXACT_NODES) else None
                if solved is not None:
                    legal, values = solved
                    return int(legal[int(np.argmax(values))])
        legal, s = self.scores(observation)
        if self._hard is not None and len(legal) > 1:
            s = self.blend(observation, s)
        return int(legal[int(np.argmax(s))])

    @property
    def remembers_match(self) -> bool:
        return getattr(self, "_hard", None) is not None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if getattr(self, "_hard", None) is not None:
            self._hard.reset(None if seed is None else _search_seed(seed))

    def blend(self, observation: dict, scores: np.ndarray) -> np.ndarray:
        """What `act` maximises with search on (module text); `scores` are the network's."""
        from ._exact import EQUITY_SLOPE
        from .hard import deciding

        if self._hard is None:      # was an AttributeError on None (a static-analysis review)
            raise ScopaError(f"{self.name}: blend weighs the network's scores with the search's, "
                             f"and this agent has no search (search=0)")
        _, values = self._hard.move_values(observation)
        if deciding(observation["observation"], self.rules.target, self._hard.endgame_margin):
            # the search's values are chances of winning the match: the network's points enter
            # in the chance they are worth (blend_deciding), or the search alone chooses
            if not self.blend_deciding:
                return values
            scores = EQUITY_SLOPE * scores
        return (1.0 - self.search_weight) * scores + self.search_weight * values


class NonFiniteScores(ScopaError):
    """A network's move scores hold NaN or inf (no move can be chosen by them); `why` says so
    without the agent's name."""

    def __init__(self, who: str, why: str):
        super().__init__(f"{who}: {why}")
        self.who, self.why = who, why

    def __reduce__(self):       # pickled whole (worker processes): the default could not rebuild it
        return type(self), (self.who, self.why)


def scores_not_finite(s: torch.Tensor) -> str:
    bad = int((~torch.isfinite(s)).sum())
    return (f"its scores of {bad} of {s.numel()} legal moves are NaN or inf: weights too large to "
            f"score with (a damaged file or a diverged run)")


def first_observation(rules: Rules) -> dict:
    """The first observation of a game dealt under `rules` (seed 0): a position to try a network on."""
    from scopa_env.game import Game
    g = Game(rules, seed=0)
    return g.observation(g.to_move)


def check_network_scores(model: torch.nn.Module, rules: Rules) -> str | None:
    """None, or why `model` cannot score a dealt game's first move with finite numbers (the
    network an init_from or a resume loads: such weights trained on NaN losses)."""
    try:
        LearnedAgent(rules=rules, model=model).scores(first_observation(rules))
    except NonFiniteScores as e:
        return e.why
    return None


def _search_flag(name: str, value, default: bool, search: int) -> bool:
    """A flag option of the search's: `default` with search, unless given; given without search
    (false as well) it is an error, since an option that does nothing is refused."""
    if value is None:
        return default and bool(search)
    value = flag_option("learned", name, value)
    if not search:
        raise ScopaError(f"learned option {name} is the search's: give search > 0 too")
    return value


def _search_seed(seed: int) -> int:
    """The search's seed from the agent's: a stream of its own, not a copy of the agent's."""
    return int(np.random.SeedSequence([int(seed), 7717]).generate_state(1, np.uint64)[0] & (2**62 - 1))


def _label(rules: Rules) -> str:
    """'scopone' or the options that differ from the classic game."""
    name = preset_name(rules)
    return f"{name} ({rules.describe()})" if name and name != "classic" else rules.describe()
