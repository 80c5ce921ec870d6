"""The `hard` level: determinized Monte Carlo from the observation alone.

RULES.md: it tracks every card that has left the deck, samples the cards it cannot see
consistently with what it knows, simulates each candidate play to the end of the hand and keeps
the play with the best average outcome. Here:

- the unseen cards are the observation's `unseen` slice (opponent's hand + deck); a world deals
  them uniformly at random: `opp_hand_size` to the opponent, the rest as the deck order;
- option `infer` (off by default; on in the learned agent's `search`): opponent modelling.
  Hard rebuilds each move the opponent made in this deal, and the table, piles and counts it was
  made on, from its own successive observations and moves (nothing hidden is read). Every hand
  the opponent may hold now (all of them: at most C(33, 3) = 5,456) is weighed by the chance of
  those moves under three models of the opponent (`_rollout.hand_weights`): it judges like the
  normal level (its best move, kept with probability 1 - `infer_eps`, else a random one); like
  the easy level (a random capture when it has one); or it leans on the normal judgement without
  following it ("soft": each legal move with a chance in proportion to exp(`infer_beta` x its
  normal score); 2.5 is the most likely value for the hard level's own moves, only 69% of which
  are normal's best: `python benchmarks/opponent_fit.py`, 3,425 of its choices). The three
  models are weighed in turn by how well they explained the opponent's moves over the match's
  earlier deals and this one (Bayes, equal odds at the start of a match; the last deal, where its
  hand is known, tells them apart best), and each world draws the opponent's hand from that
  mixture, the rest of the unseen cards making the deck. Against the normal level the normal
  model takes all the weight and the worlds hold only the hands that explain its play (the true
  one always does); against easy the easy model takes it in most matches, against hard the soft
  one. Measured in docs/experiments.md ("Opponent modelling"): about +0.17 points per hand against normal, no
  change against easy, about +2 points of match win rate against hard (the soft model). Without
  the soft model a player like hard (or a person) is explained by neither level, and the weights
  then lean on whichever model its luckiest moves fit;
- every legal move is played in the same worlds and the hand finished by the `normal` scoring
  kernel for both sides (agents/_scoring.py, in the rollouts of agents/_rollout.py, compiled);
- in the last deal (empty deck) the opponent's hand is exactly the unseen cards, so the deal is
  solved exactly instead (alpha-beta, `_rollout.last_deal_values`); with `infer` and option
  `easy_last_deal` (off for the level, which stays as the ladder measured it; on in the learned
  agent's search, docs/experiments.md, "Opponent modelling"), once the
  inference takes the opponent for easy (its model weight >= 0.5) the deal is played for the
  mean outcome over easy's random captures instead of the worst case (expectimax,
  `_rollout.last_deal_values_easy`): minimax assumes a best reply easy does not make (docs/experiments.md,
  "Opponent modelling");
- the outcome is the hand's point difference, or, when a hand can decide the match (a score
  within `endgame_margin` of the target), the chance of winning the match from the score the hand
  leaves: guessed from the score difference alone (`_exact.linear_equity`), or with option
  `match_equity` (needs `infer`; off by default, and in a learned agent's search) counted out
  from measured hand scores against each of the inference's opponent models, weighed by the
  model weights (agents/_equity.py).

Strength settings: `worlds` (fixed number of worlds per decision) or, by default, a deterministic
budget of simulated plies (`budget`) shared between the candidates, so decisions late in the hand
(short rollouts) use more worlds (30,000 plies measured no stronger than 12,000; default 9,000
for the speed target); `rollouts` per world and candidate with `epsilon` random moves in the
rollouts; `exact_last_deal` plays the rollouts' last deal perfectly (off: about twice the time,
no measured gain); `time_budget` (seconds) stops early, which makes play depend on machine speed
and so is off by default. Same observation and seed, same move.

Any other rules (variants, 3 players, pairs; `_rollout.search_any`): the world is rebuilt from
the observation with the rules header (`Rules.to_header()`, the slots core.init_match_rules
reads), so the rollouts play the actual rules through the engine's kernels; a world deals the
unseen cards to every other seat (each seat's hand size is in the observation) and the rest to the
deck; every seat is played by the generalised normal judgement (`_scoring.score_any`), and the
outcome is my side's hand points minus the best other side's (partners pooled by the engine).
When nothing is hidden any more (deck empty and at most one other seat holding cards, at most
`_exact.EXACT_PLIES` cards left) the rest of the hand is solved exactly, other sides assumed
against me. `infer` is for the classic rules only (a ScopaError otherwise).
"""
from __future__ import annotations

import math
import time

import numpy as np

from scopa_env import core
from scopa_env.core import seed_rng
from scopa_env.cards import number_text
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from . import _equity, _exact, _rollout
from .base import Agent, flag_option, number_option, weights_option, whole_option
from .normal import WEIGHTS, obs_mask, obs_scalar


ENDGAME_MARGIN = 7     # a hand can decide the match once a score is within this of the target
EASY = 1               # model_weights: normal, easy, soft
EASY_GATE = 0.5        # the last deal is played against easy's policy from this model weight on
MAX_WORLDS = 100_000   # worlds, min_worlds, max_worlds: at most this many per decision
MAX_ROLLOUTS = 1_000
INFER_EPS = 0.02       # infer_eps: the chance the normal model's move is a uniformly random legal one
INFER_BETA = 2.5       # infer_beta: the soft model's exp(beta x score) (benchmarks/opponent_fit.py)


def deciding(obs: np.ndarray, target: int, margin: int = ENDGAME_MARGIN) -> bool:
    """Whether this hand can decide the match (2-player observation): then hard, and the learned
    agent's last-deal solver and search, play for the match rather than the hand's points."""
    return max(obs_scalar(obs, "my_score"), obs_scalar(obs, "opp_score")) + margin >= target


# the defaults of options budget, min_worlds and max_worlds
BUDGET, MIN_WORLDS, MAX_SHARE_WORLDS = 9_000, 8, 400


class HardAgent(Agent):
    name = "hard"

    def __init__(self, rules=None, seed: int = 0, worlds: int | None = None, budget: int | None = None,
                 min_worlds: int | None = None, max_worlds: int | None = None, rollouts: int = 1, epsilon: float = 0.0,
                 time_budget: float | None = None, endgame_margin: int = ENDGAME_MARGIN, weights=None,
                 exact_last_deal: bool = False, infer: bool = False, infer_eps: float | None = None,
                 infer_beta: float | None = None, easy_last_deal: bool | None = None,
                 match_equity: bool | None = None):
        super().__init__(rules, seed)
        # a fixed count of worlds replaces the budget's share: those options would do nothing
        # (they were accepted without a word; review)
        shared = [n for n, v in (("budget", budget), ("min_worlds", min_worlds), ("max_worlds", max_worlds))
                  if v is not None]
        if worlds is not None and shared:
            raise ScopaError(f"hard option worlds fixes the worlds a decision plays: {', '.join(shared)} "
                             f"would do nothing (they share out the budget without worlds)")
        # a compiled search cannot be interrupted (Ctrl-C waits for it): worlds=10^9 ran for days.
        # The caps are the range an error names (worlds=0 named 1,000,000,000 as the top; review)
        hours = " (more: one decision would run for hours and Ctrl-C cannot stop it)"
        self.budget, self.min_worlds, self.max_worlds, self.rollouts = (
            whole_option("hard", name, v, 1, *most) for name, v, most in (
                ("budget", BUDGET if budget is None else budget, ()),
                ("min_worlds", MIN_WORLDS if min_worlds is None else min_worlds, (MAX_WORLDS, hours)),
                ("max_worlds", MAX_SHARE_WORLDS if max_worlds is None else max_worlds, (MAX_WORLDS, hours)),
                ("rollouts", rollouts, (MAX_ROLLOUTS, hours))))
        if self.min_worlds > self.max_worlds:     # max_worlds used to be ignored
            raise ScopaError(f"hard options min_worlds ({self.min_worlds}) > max_worlds "
                             f"({self.max_worlds}): min_worlds must be <= max_worlds")
        self.worlds = None if worlds is None else whole_option("hard", "worlds", worlds, 1, MAX_WORLDS, hours)
        # and together: worlds=100000,rollouts=1000 passed both caps, some 90 minutes a decision.
        # The most worlds a decision plays: `worlds`, else the budget's share (at most
        # budget // rollouts) between min_worlds and max_worlds
        most_worlds = self.worlds if self.worlds is not None else max(
            self.min_worlds, min(self.max_worlds, self.budget // self.rollouts))
        if most_worlds * self.rollouts > MAX_WORLDS:
            raise ScopaError(f"hard options: {most_worlds:,} worlds x {self.rollouts:,} rollouts is "
                             f"more than {MAX_WORLDS:,} rollouts a move (one decision would run for "
                             f"hours and Ctrl-C cannot stop it); lower worlds, max_worlds, budget "
                             f"or rollouts")
        self.endgame_margin = whole_option("hard", "endgame_margin", endgame_margin, 0)
        self.epsilon = number_option("hard", "epsilon", epsilon)
        if not 0.0 <= self.epsilon <= 1.0:
            raise ScopaError(f"hard option epsilon must be in [0, 1], got {number_text(epsilon)}")
        self.time_budget = None if time_budget is None else number_option("hard", "time_budget", time_budget)
        if self.time_budget is not None and not self.time_budget > 0:     # nan too
            raise ScopaError(f"hard option time_budget must be > 0 seconds, got {number_text(time_budget)}")
        self.exact_last_deal = flag_option("hard", "exact_last_deal", exact_last_deal)
        self.infer = flag_option("hard", "infer", infer)
        self.easy_last_deal = flag_option("hard", "easy_last_deal", False if easy_last_deal is None else easy_last_deal)
        self.match_equity = flag_option("hard", "match_equity", False if match_equity is None else match_equity)
        self.infer_eps = number_option("hard", "infer_eps", INFER_EPS if infer_eps is None else infer_eps)
        if not 0.0 < self.infer_eps <= 1.0:
            raise ScopaError(f"hard option infer_eps must be in (0, 1], got {number_text(infer_eps)}")
        self.infer_beta = number_option("hard", "infer_beta", INFER_BETA if infer_beta is None else infer_beta)
        if not 0.0 <= self.infer_beta <= 100.0:
            raise ScopaError(f"hard option infer_beta must be in [0, 100], got {number_text(infer_beta)}")
        # the inference's options do nothing without it: refused, as the learned agent's
        # easy_last_deal without search is (they were accepted without a word), false as well
        # (`hard:match_equity=false` passed, named a player that plays as `hard`; review)
        for name, value in (("infer_eps", infer_eps), ("infer_beta", infer_beta),
                            ("easy_last_deal", easy_last_deal), ("match_equity", match_equity)):
            if value is not None and not self.infer:
                raise ScopaError(f"hard option {name} is the inference's: give infer=true too")
        if self.match_equity and self.rules.napola:
            # its chances come from hand scores measured without the napola, where a hand scores
            # less: used under it they would be off without a word (review)
            raise ScopaError("hard option match_equity counts the match's chances from hand scores "
                             "measured without the napola (agents/_equity.py), and these rules "
                             "score it: leave match_equity out")
        self.weights = weights_option("hard", WEIGHTS if weights is None else weights, WEIGHTS.size)
        self.last_worlds = 0
        self._classic = _rollout.classic_rules(self.rules)
        if not self._classic:
            if self.infer:
                raise ScopaError("hard option infer is implemented for the classic 2-player rules only")
            self._header = np.asarray(self.rules.to_header(), dtype=np.int64)
            self._caps = _rollout.classic_captures(self.rules)

    def worlds_for(self, obs: np.ndarray, k: int) -> int:
        """Worlds for a decision among k moves: the fixed count, or budget / simulated plies."""
        plies = int(obs[SLICES["hand"]].sum()) + int(obs[SLICES["opp_hand_size"].start]) \
            + int(obs[SLICES["deck_left"].start])
        return self._budget_worlds(plies, k)

    def _budget_worlds(self, plies: int, k: int) -> int:
        """The fixed count, or budget / (k candidates x plies left x rollouts), clipped."""
        if self.worlds is not None:
            return self.worlds
        return max(self.min_worlds, min(self.max_worlds, self.budget // max(1, k * plies * self.rollouts)))

    def _move_values_any(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """move_values under any rules (see the module text)."""
        view = _rollout.View(observation["observation"], self.rules, self._header)
        legal = self.legal_actions(observation)
        k = len(legal)
        cards = self.actions.card[legal].astype(np.int64)
        masks = _rollout.resolve_masks(self.actions, legal, int(view.base[core.TABLE]))
        endgame = max(view.scores) + self.endgame_margin >= self.rules.target
        equity = _exact.linear_equity(self.rules.target) if endgame else _exact.POINTS
        rng = np.zeros(1, dtype=np.int64)
        seed_rng(rng, 0, int(self.rng.integers(1, 2**62)))
        holder = view.holder()
        if holder is not None and view.cards_left() <= _exact.EXACT_PLIES:
            values = np.zeros(k)
            if _exact.exact_values_any(view.base, holder, view.unseen, cards, masks, k, equity,
                                       values, False, _exact.EXACT_NODES):
                self.last_worlds = 1
                return legal, values
            # too many moves to count out (free_capture's big tables): the search instead
        totals = np.zeros(k)
        worlds = self._budget_worlds(view.cards_left() + view.deck_left, k)
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        done = 0
        while done < worlds and (deadline is None or done == 0 or time.perf_counter() < deadline):
            step = worlds - done if deadline is None else min(4, worlds - done)
            _rollout.search_any(view.base, view.hidden, view.unseen, cards, masks, k, step, self.rollouts,
                                equity, self.weights, self.epsilon, self.exact_last_deal, self._caps,
                                rng, totals)
            done += step
        self.last_worlds = done
        return legal, totals / (done * self.rollouts)

    def move_values(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and their mean simulated outcome."""
        if not self._classic:
            return self._move_values_any(observation)
        obs = observation["observation"]
        legal = self.legal_actions(observation)
        _rollout.check_observation(obs)
        k = len(legal)
        cards = self.actions.card[legal].astype(np.int64)
        masks = self.actions.captured[legal].astype(np.int64)
        rng = np.zeros(1, dtype=np.int64)
        seed_rng(rng, 0, int(self.rng.integers(1, 2**62)))
        if _rollout.countable_last_deal(obs, _exact.EXACT_PLIES):
            solved = self.last_deal(observation)
            if solved is not None:
                self.last_worlds = 1
                return solved
        # a last deal with more cards or moves (set up, never dealt) is searched like any other
        hands, cdf = self.hand_posterior(obs) if self.infer else (_NO_HANDS, _NO_CDF)
        equity = self.equity(obs)          # after the posterior: its model weights are this decision's
        totals = np.zeros(k)
        worlds = self.worlds_for(obs, k)
        if self.time_budget is None:
            _rollout.search(obs, self.rules.target, cards, masks, k, worlds, self.rollouts, equity,
                            self.weights, self.epsilon, self.exact_last_deal, hands, cdf, len(hands),
                            rng, totals)
            done = worlds
        else:
            deadline = time.perf_counter() + self.time_budget
            done = 0
            while done < worlds and (done == 0 or time.perf_counter() < deadline):
                step = min(4, worlds - done)
                _rollout.search(obs, self.rules.target, cards, masks, k, step, self.rollouts, equity,
                                self.weights, self.epsilon, self.exact_last_deal, hands, cdf,
                                len(hands), rng, totals)
                done += step
        self.last_worlds = done
        return legal, totals / (done * self.rollouts)

    def last_deal(self, observation: dict) -> tuple[np.ndarray, np.ndarray] | None:
        """Legal action ids and their exact values once the deck is empty (classic rules), with
        at most EXACT_PLIES cards in the two hands (_rollout.countable_last_deal): the opponent
        holds exactly the unseen cards. Minimax, or with easy_last_deal against an opponent the
        inference takes for easy, its mean outcome under easy's play. None when either gives up
        past EXACT_NODES moves (set-up tables of many cards). Draws nothing from the generator
        (the learned agent's last deal calls it too)."""
        obs = observation["observation"]
        legal = self.legal_actions(observation)
        k = len(legal)
        cards = self.actions.card[legal].astype(np.int64)
        masks = self.actions.captured[legal].astype(np.int64)
        values = np.zeros(k)
        w = self.model_weights[EASY] if self.infer and self.easy_last_deal else 0.0
        solve = _rollout.last_deal_values_easy if w >= EASY_GATE else _rollout.last_deal_values
        if not solve(obs, self.rules.target, cards, masks, k, self.equity(obs), values, _exact.EXACT_NODES):
            return None
        return legal, values

    def equity(self, obs: np.ndarray) -> np.ndarray:
        """How the search values a finished hand (classic rules): by its point difference
        (_exact.POINTS) unless this hand can decide the match (`deciding`); then by the chance of
        winning the match from the score it leaves: the levels' guess from the score difference
        (_exact.linear_equity), or with match_equity the chance counted out for each of the
        inference's opponent models, weighed by their weights now (agents/_equity.py)."""
        if not deciding(obs, self.rules.target, self.endgame_margin):
            return _exact.POINTS
        if self.match_equity:
            return _equity.mixed(self.rules.target, self.model_weights)
        return _exact.linear_equity(self.rules.target)

    @property
    def remembers_match(self) -> bool:
        return self.infer

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._previous = None      # (observation, my card, my captured mask) of my last decision
        self.rows: list[list[int]] = []     # the opponent's moves in this deal (_rollout.ROW_SIZE)
        self.log_evidence = np.zeros(3)     # log chance of its earlier deals' moves: normal, easy, soft
        self._deal_evidence = np.zeros(3)   # the same for this deal so far
        self._deal: int | None = None        # the deck_left of the deal _deal_evidence is for
        self._unweighed = None               # the observation of rows added since the last weighing
        self.model_weights = np.full(3, 1 / 3)

    def observe(self, obs: np.ndarray) -> None:
        """Add the opponent's move since my last decision to this deal's rows (infer): rebuilt
        from my previous observation, my move and this observation; at my first decision of a
        hand it leads, its opening move, rebuilt from this observation alone. A new hand or a new
        deal starts the rows afresh, after weighing the old deal's rows if no decision of mine
        weighed them all (a forced move searches nothing); the forced last card of a deal (it
        deals, so it moved last) is not a choice and is left out. The observation is checked
        first: a refused one changes nothing, and one the kernels cannot finish (an opponent hand
        larger than the unseen cards) never reaches them (review: a segmentation fault; a refused
        call had changed the opponent model)."""
        _rollout.check_observation(obs)
        if self._previous is None:
            self._opening(obs)
            return
        prev, my_card, my_captured = self._previous
        self._previous = None            # read once: observing the same moment twice adds nothing
        if obs_mask(obs, "my_played") != obs_mask(prev, "my_played") | (1 << my_card):
            self._new_deal()                             # another hand
            self._opening(obs)
            return
        if obs_scalar(obs, "deck_left") != obs_scalar(prev, "deck_left"):
            self._new_deal()                             # a deal since my move
            if not obs_scalar(obs, "i_deal"):
                return                                   # its move was the last card of the old deal
        new = obs_mask(obs, "opp_played") & ~obs_mask(prev, "opp_played")
        if new == 0 or new & (new - 1):
            return
        card = new.bit_length() - 1
        before = obs_mask(prev, "table")
        table = before & ~my_captured if my_captured else before | (1 << my_card)
        now = obs_mask(obs, "table")
        captured = 0 if now == table | (1 << card) else table & ~now
        their_pile = obs_mask(obs, "opp_pile") & ~(captured | (1 << card)) if captured else obs_mask(obs, "opp_pile")
        last = obs_scalar(prev, "last_capturer")        # mine: 0 nobody, 1 me, 2 them
        if my_captured:
            last = 1
        for row in self.rows:
            row[8] |= 1 << card
        self._add_row(obs, [table, card, captured, their_pile, obs_mask(obs, "my_pile"),
                            int(obs[SLICES["hand"]].sum()), obs_scalar(obs, "deck_left"),
                            {0: 0, 1: 2, 2: 1}[last], 1 << card])

    def _opening(self, obs: np.ndarray) -> None:
        """The opponent's first move of a hand it leads, seen at my first decision: the piles were
        empty and nobody had captured, so its pile now is what it took (with the card played)."""
        played = obs_mask(obs, "opp_played")
        if self.rows or obs_mask(obs, "my_played") or played == 0 or played & (played - 1):
            return
        card = played.bit_length() - 1
        taken = obs_mask(obs, "opp_pile")
        captured = taken & ~(1 << card)
        now = obs_mask(obs, "table")
        table = now | captured if taken else now & ~(1 << card)
        self._add_row(obs, [table, card, captured, 0, 0, int(obs[SLICES["hand"]].sum()),
                            obs_scalar(obs, "deck_left"), 0, 1 << card])

    def _add_row(self, obs: np.ndarray, row: list) -> None:
        """One more move of the opponent in this deal (observe)."""
        self.rows.append(row)
        self._unweighed = np.asarray(obs).copy() if obs_scalar(obs, "deck_left") > 0 else None
        if obs_scalar(obs, "deck_left") == 0:
            # the last deal: its hand is known (the unseen cards), so its moves tell the models
            # apart best; the normal level counts out the last 4 cards exactly, so only its moves
            # with more than 4 cards in the two hands are its judgement
            hand_n = obs_scalar(obs, "opp_hand_size")
            judged = [r for r in self.rows if r[5] + hand_n + r[8].bit_count() > 4]
            if judged:
                self._weigh(obs, judged)

    def _new_deal(self) -> None:
        """Forget the deal's rows, weighed first if my decisions since the last row were forced."""
        if self._unweighed is not None and self.rows:
            self._weigh(self._unweighed, self.rows)
        self._unweighed = None
        self.rows = []

    def remember(self, obs: np.ndarray, action: int) -> None:
        """My decision, for observe() at the next one."""
        card, captured = self.actions.decode(action)
        self._previous = (np.asarray(obs).copy(), card, captured)

    def _weigh(self, obs: np.ndarray, rows: list) -> tuple[np.ndarray, np.ndarray]:
        """The opponent's possible hands now and the chance of `rows` under each model for each
        hand (one row per model: normal, easy, soft); updates the model weights with this deal's
        evidence so far."""
        base = np.zeros(core.STATE_SIZE, dtype=np.int64)
        unseen = _rollout.build_base(obs, self.rules.target, base)
        h = obs_scalar(obs, "opp_hand_size")
        count = math.comb(int(unseen).bit_count(), h)
        if count == 0:      # the kernel writes at least one hand: empty arrays were overrun
            raise ScopaError(f"inconsistent observation: an opponent hand of {h} cards among "
                             f"{int(unseen).bit_count()} unseen")
        if count > _rollout.MAX_HANDS:
            # the kernel writes every hand: arrays of a dealt game's size were overrun (a crash)
            raise ScopaError(f"the opponent model (hard option infer, used by a learned agent's "
                             f"search) weighs every hand the opponent may hold: {count:,} hands of "
                             f"{h} cards here, more than the {_rollout.MAX_HANDS:,} it takes (a dealt "
                             f"game has at most 5,456); play this set-up position without it (hard: "
                             f"infer=false; a learned agent: search=0)")
        hands = np.zeros(count, dtype=np.int64)
        wm = np.zeros((3, count))
        table = np.array(rows, dtype=np.int64).reshape(-1, _rollout.ROW_SIZE)
        n = _rollout.hand_weights(base, unseen, h, table, len(table),
                                  self.weights, self.infer_eps, self.infer_beta, hands, wm[0], wm[1],
                                  wm[2])
        self._unweighed = None
        deal = obs_scalar(obs, "deck_left")             # names the deal: every deal has a decision
        if self._deal is not None and self._deal != deal:
            self.log_evidence += self._deal_evidence    # the last figure of the deal before
        self._deal = deal
        self._deal_evidence = np.log(np.maximum(wm[:, :n].mean(axis=1), 1e-300))
        log_post = self.log_evidence + self._deal_evidence
        post = np.exp(log_post - log_post.max())
        self.model_weights = post / post.sum()
        return hands[:n], wm[:, :n]

    def hand_posterior(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The opponent's possible hands now and their cumulative probabilities (module text);
        updates model_weights (normal, easy, soft)."""
        hands, models = self._weigh(obs, self.rows)
        p = np.zeros(len(hands))
        for weight, wm in zip(self.model_weights, models, strict=True):
            if wm.sum() > 0:
                p += weight * wm / wm.sum()
        if p.sum() <= 0:              # no hand explains the moves under any model
            p[:] = 1.0
        cdf = np.cumsum(p / p.sum())
        cdf[-1] = 1.0 + 1e-12
        return hands, cdf

    def act(self, observation: dict) -> int:
        observation = self.check_observation(observation)
        obs = observation["observation"]
        legal = self.legal_actions(observation)     # first: observe() reads the vector
        if self.infer:
            self.observe(obs)
        if len(legal) == 1:
            self.last_worlds = 0
            action = int(legal[0])
        else:
            legal, values = self.move_values(observation)
            action = int(legal[int(np.argmax(values))])
        if self.infer:
            self.remember(obs, action)
        return action


_NO_HANDS = np.zeros(0, dtype=np.int64)
_NO_CDF = np.zeros(0)
