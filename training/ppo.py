"""PPO with action masking, self-play against a pool of past snapshots of the policy.

In game b the learner plays side b % sides (with 2 players: seat b % 2; in pairs both partners'
seats, so partners are the same network); every other seat is played by the game's opponent: the
current policy (with probability `latest_opponent_prob`) or a snapshot drawn from the pool (one
snapshot for all of a game's opponent seats), redrawn whenever that game's episode ends; with
`bot_games` > 0 (2 players only) that share of the games is played against the rule bots of `bot_levels`
instead (training/bots.py). A snapshot of the policy joins the pool every `snapshot_every` iterations (the oldest
leaves the draw past `pool_size`, and the pool once no game is still playing it: a game's opponent
changes only when its episode ends). Both sides sample from their softmax over the legal moves only; the
network scores legal moves by their features (agents/network.py), so masking is simply leaving
the padding out of the softmax.

Only the learner's decisions are trained on. A learner decision's reward is what its side earns
until the side's next decision (partners share the side's reward, so in pairs the side's decisions,
alternating between the partners, form one sequence); GAE runs over each game's sequence of learner
decisions. A rollout ends wherever its last step falls, so the last learner decision of a game
whose episode goes on (its "tail") has an unfinished return. The tail is not trained in that
iteration: it is carried into the next one as row 0 of its buffer (the observation, the legal
moves, the move and its log-probability under the policy that played it, and the reward earned
after it so far), and trained in the first iteration that holds the learner's next decision or the
episode's end (with rollouts shorter than the gap between a side's turns, one that holds neither
carries it again, adding up its reward). GAE in the iteration that made the tail bootstraps at the
tail's own value, computed by the value head at a learner decision, where the head is trained. (The
first version bootstrapped at the current position seen from the learner's seat, which in about
half the games is another seat's turn, where the value head is never trained: a review measured
+0.22 points of bias there.) The carried row's value is computed again by the network of the
iteration that trains it; its log-probability stays the one it was played with, as PPO's ratio
needs. The tails are part of the run's state, so a resume continues exactly; a checkpoint written
before tails were carried (it trained every decision, bootstrapping as above) resumes with none.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import torch

from agents import checkpoint
from agents.network import MoveScorer
from .bots import BotSeats
from .config import TrainConfig
from .env import env_state, legal_slice, make_env, set_env_state

_PAD = -1e9


def masked_logits(model: MoveScorer, obs: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor,
                  count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits over padded legal moves (padding at -1e9) and state values."""
    h = model.encode(obs)
    logits = model.score_moves(obs, h, cards, captured)
    pad = torch.arange(cards.shape[1]).unsqueeze(0) >= count.unsqueeze(1)
    return logits.masked_fill(pad, _PAD), model.value(h)


def sample(logits: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """One index per row from softmax(logits), drawn with the run's numpy generator: the first
    index whose cumulative probability passes the draw (never a move of probability 0), or, when
    rounding leaves the draw past every one, the last move of positive probability. (The old
    rule clamped to the count of positive moves, as if those came first: with a legal move
    underflowed to 0 before the last, the 0 was drawn and the last never.)"""
    p = torch.softmax(logits, dim=1).double().numpy()
    cum = np.cumsum(p, axis=1)
    u = rng.random(len(p))[:, None] * cum[:, -1:]
    above = cum > u
    last = p.shape[1] - 1 - np.argmax(p[:, ::-1] > 0, axis=1)
    return np.where(above.any(axis=1), np.argmax(above, axis=1), last).astype(np.int64)


class PPO:
    """One learner: `iterate()` plays cfg.rollout_steps steps in every game, then learns."""

    def __init__(self, cfg: TrainConfig, model: MoveScorer, optimizer: torch.optim.Optimizer,
                 rng: np.random.Generator):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.rng = rng
        self.env = make_env(cfg)
        self.steps = 0
        self.iterations = 0
        B = cfg.num_envs
        self.sides = self.env.n_sides
        # the learner's side in game b (seat s plays for side s % sides)
        self.learner_seat = np.arange(B) % self.sides
        self.pool: list[dict] = []          # state_dicts of past policies
        self.pool_models: list[MoveScorer] = []
        # opponent of each game: -1 a rule bot (games b < n_bot, always; training/bots.py),
        # 0 the current policy, k > 0 pool[k - 1]
        self.bots = BotSeats(cfg.bot_games, cfg.bot_levels, B, rng)
        self.opponent = np.zeros(B, dtype=np.int64)
        self.opponent[self.bots.seat >= 0] = -1
        self._draw_opponents(np.ones(B, dtype=bool))
        self.tail = self._no_tails()

    # ---- opponents ---------------------------------------------------------------------------
    def _draw_opponents(self, which: np.ndarray) -> None:
        which = which & (self.opponent >= 0)
        n = int(which.sum())
        if n == 0:
            return
        latest = self.rng.random(n) < self.cfg.latest_opponent_prob
        k = len(self.pool)
        first = max(0, k - self.cfg.pool_size)      # pool[first:] are drawn; older ones play out
        picks = self.rng.integers(first + 1, k + 1, size=n) if k else np.zeros(n, dtype=np.int64)
        self.opponent[which] = np.where(latest | (k == 0), 0, picks)
        self._retire_snapshots()

    def _add_snapshot(self) -> None:
        sd = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        self.pool.append(sd)
        self.pool_models.append(self._snapshot_model(sd))
        self._retire_snapshots()

    def _retire_snapshots(self) -> None:
        """Drop the snapshots past the newest `pool_size` that no game plays any more, and
        renumber the games' opponents. (Popping the oldest at once shifted every pool game onto
        the next-newer snapshot, mid-episode.)"""
        k = len(self.pool)
        if k <= self.cfg.pool_size:
            return
        first = k - self.cfg.pool_size
        used = set((self.opponent[self.opponent > 0] - 1).tolist())
        keep = [i for i in range(k) if i >= first or i in used]
        if len(keep) == k:
            return
        renumber = np.zeros(k + 1, dtype=np.int64)
        renumber[np.array(keep) + 1] = np.arange(1, len(keep) + 1)
        self.opponent = np.where(self.opponent > 0, renumber[np.maximum(self.opponent, 0)], self.opponent)
        self.pool = [self.pool[i] for i in keep]
        self.pool_models = [self.pool_models[i] for i in keep]

    def _snapshot_model(self, sd: dict) -> MoveScorer:
        """A network playing snapshot `sd`, on `sd`'s own tensors (assign): loaded as copies, each
        snapshot was held twice, and a pool of 120 snapshots of a 1,024-wide network took 4.1 GB
        (a scale review). Nothing writes to them: they only play, under no_grad."""
        # the copy takes the snapshot's tensors in place of the policy's parameters, so none is
        # allocated only to be replaced: 40 snapshots of a 1,024-wide network (13.8 MiB of
        # weights) grew RSS by 27.7 MiB each as copies, 19.0 assigned after a copy, 13.9 so
        params = dict(self.model.named_parameters())
        if sd.keys() != self.model.state_dict().keys() or any(
                not isinstance(sd[k], torch.Tensor) or sd[k].shape != p.shape or sd[k].dtype != p.dtype
                for k, p in params.items()):
            # not the network's own layout (a damaged or edited file's pool): loaded as copies,
            # so that load_state_dict checks it and says what differs, and converts a dtype, as
            # before the tensors were shared (assigned, a wrong shape went unchecked: a review)
            m = copy.deepcopy(self.model)
            m.load_state_dict(sd)
        else:
            memo = {id(p): torch.nn.Parameter(sd[k], requires_grad=False) for k, p in params.items()}
            m = copy.deepcopy(self.model, memo)
            m.load_state_dict(sd, assign=True)
        m.eval()
        return m

    def _sync_pool_models(self) -> None:
        self.pool_models = [self._snapshot_model(sd) for sd in self.pool]

    # ---- acting ------------------------------------------------------------------------------
    @torch.no_grad()
    def _act(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Indices for every game; the learner's log-probs and values (zeros elsewhere)."""
        env = self.env
        count = torch.from_numpy(env.legal_count.astype(np.int64))
        cards, captured = (torch.from_numpy(a) for a in legal_slice(env))
        obs = self.model.obs_tensor(env.obs)
        logits, values = masked_logits(self.model, obs, cards, captured, count)
        learner_moves = env.to_move % self.sides == self.learner_seat
        for k, m in enumerate(self.pool_models, start=1):
            rows = np.flatnonzero(~learner_moves & (self.opponent == k))
            if len(rows):
                r = torch.from_numpy(rows)
                logits[r], _ = masked_logits(m, obs[r], cards[r], captured[r], count[r])
        if not bool(torch.isfinite(logits).all()):
            # weights grown huge but finite in the last update overflow here; sampling from NaN
            # would pick no legal move
            raise self._diverged("the policy's move scores became NaN or inf while playing")
        idx = sample(logits, self.rng)
        self.bots.play(env, idx, ~learner_moves & (self.opponent == -1))
        logp = torch.log_softmax(logits, dim=1)[torch.arange(len(idx)), torch.from_numpy(idx)]
        return idx, logp.numpy(), values.numpy(), learner_moves

    # ---- the carried tails (module docstring) -------------------------------------------------
    _TAIL_ROW = ("obs", "cards", "captured", "count", "idx", "logp")    # copied from its buffer row

    def _no_tails(self) -> dict:
        B, L = self.cfg.num_envs, self.env.legal_card.shape[1]
        return {"on": np.zeros(B, dtype=bool), "obs": np.zeros((B, self.env.obs_size), dtype=np.int8),
                "cards": np.zeros((B, L), dtype=np.int64), "captured": np.zeros((B, L), dtype=np.int64),
                "count": np.zeros(B, dtype=np.int64), "idx": np.zeros(B, dtype=np.int64),
                "logp": np.zeros(B, dtype=np.float32), "reward": np.zeros(B, dtype=np.float32)}

    @staticmethod
    def find_tails(buf: dict) -> tuple[np.ndarray, np.ndarray]:
        """(T+1, B) mask of each game's tail: its last learner decision with no episode end at
        or after it; and per game the reward earned from the tail's move to the rollout's end."""
        T1, B = buf["done"].shape
        tail = np.zeros((T1, B), dtype=bool)
        running = np.ones(B, dtype=bool)        # no episode end seen yet, scanning backward
        found = np.zeros(B, dtype=bool)
        carried = np.zeros(B, dtype=np.float32)
        for t in range(T1 - 1, -1, -1):
            running &= ~buf["done"][t]
            open_ = running & ~found
            carried += np.where(open_, buf["reward"][t], 0.0).astype(np.float32)
            tail[t] = open_ & buf["learner"][t]
            found |= tail[t]
        return tail, np.where(found, carried, 0.0).astype(np.float32)

    def _carry_tails(self, buf: dict, tail: np.ndarray, carried: np.ndarray) -> None:
        on = tail.any(axis=0)
        row = np.argmax(tail, axis=0)
        games = np.arange(len(on))
        new = {"on": on, "reward": carried}
        for key in self._TAIL_ROW:
            new[key] = buf[key][row, games].copy()
            new[key][~on] = 0
        self.tail = new

    @torch.no_grad()
    def rollout(self) -> dict:
        """cfg.rollout_steps steps in every game, in rows 1..T of the buffer; row 0 holds the
        tails carried from the last iteration."""
        env, cfg = self.env, self.cfg
        T, B = cfg.rollout_steps, cfg.num_envs
        T1 = T + 1
        L = max(env.legal_card.shape[1], self.tail["cards"].shape[1])
        buf = {
            "obs": np.zeros((T1, B, env.obs_size), dtype=np.int8),
            "cards": np.zeros((T1, B, L), dtype=np.int64),
            "captured": np.zeros((T1, B, L), dtype=np.int64),
            "count": np.zeros((T1, B), dtype=np.int64),
            "idx": np.zeros((T1, B), dtype=np.int64),
            "logp": np.zeros((T1, B), dtype=np.float32),
            "value": np.zeros((T1, B), dtype=np.float32),
            "learner": np.zeros((T1, B), dtype=bool),
            "reward": np.zeros((T1, B), dtype=np.float32),
            "done": np.zeros((T1, B), dtype=bool),
        }
        on = self.tail["on"]
        for key in ("obs", "count", "idx", "logp", "reward"):
            buf[key][0] = self.tail[key]
        width = self.tail["cards"].shape[1]
        buf["cards"][0, :, :width] = self.tail["cards"]
        buf["captured"][0, :, :width] = self.tail["captured"]
        buf["learner"][0] = on
        if on.any():        # valued again by this iteration's network
            buf["value"][0, on] = self.model.value(self.model.encode(
                self.model.obs_tensor(buf["obs"][0, on]))).numpy()
        rows = np.arange(B)
        episodes, learner_return = 0, 0.0
        for t in range(1, T1):
            idx, logp, value, learner = self._act()
            if env.legal_card.shape[1] > buf["cards"].shape[2]:
                # the env widened its legal arrays (a position with more moves): widen ours
                for key, pad in (("cards", 0), ("captured", 0)):
                    wide = np.full((T1, B, env.legal_card.shape[1]), pad, dtype=np.int64)
                    wide[:, :, :buf[key].shape[2]] = buf[key]
                    buf[key] = wide
            buf["obs"][t] = env.obs
            buf["cards"][t] = np.maximum(env.legal_card, 0)
            buf["captured"][t] = env.legal_captured
            buf["count"][t] = env.legal_count
            buf["idx"][t], buf["logp"][t], buf["value"][t], buf["learner"][t] = idx, logp, value, learner
            _, rewards, dones, _ = env.step_index(idx)
            buf["reward"][t] = rewards[rows, self.learner_seat]
            buf["done"][t] = dones
            episodes += int(dones.sum())
            learner_return += float(buf["reward"][t][dones].sum())
            self._draw_opponents(dones)
        self.steps += T * B
        buf["tail"], carried = self.find_tails(buf)
        self._carry_tails(buf, buf["tail"], carried)
        buf["episodes"], buf["learner_return"] = episodes, learner_return
        return buf

    def advantages(self, buf: dict) -> tuple[np.ndarray, np.ndarray]:
        """GAE over each game's learner decisions -> advantages and returns, shape (T + 1, B).
        A tail is where its game's sequence is cut: the decisions before it bootstrap at its
        value, with no advantage beyond it; its own entries are 0 (it is trained next time)."""
        cfg = self.cfg
        T, B = buf["done"].shape
        adv = np.zeros((T, B), dtype=np.float32)
        next_value = np.zeros(B, dtype=np.float32)
        next_adv = np.zeros(B, dtype=np.float32)
        acc_r = np.zeros(B, dtype=np.float32)
        acc_done = np.zeros(B, dtype=bool)
        for t in range(T - 1, -1, -1):
            d = buf["done"][t]
            acc_r = buf["reward"][t] + np.where(d, 0.0, acc_r)
            acc_done = d | acc_done
            mine = buf["learner"][t]
            cont = (~acc_done).astype(np.float32)
            delta = acc_r + cfg.gamma * next_value * cont - buf["value"][t]
            a = delta + cfg.gamma * cfg.gae_lambda * cont * next_adv
            a = np.where(buf["tail"][t], 0.0, a)
            adv[t] = np.where(mine, a, 0.0)
            next_value = np.where(mine, buf["value"][t], next_value)
            next_adv = np.where(mine, a, next_adv)
            acc_r = np.where(mine, 0.0, acc_r)
            acc_done = np.where(mine, False, acc_done)
        return adv, adv + buf["value"]

    # ---- learning ----------------------------------------------------------------------------
    def learn(self, buf: dict) -> dict:
        cfg = self.cfg
        adv, ret = self.advantages(buf)
        t_idx, b_idx = np.nonzero(buf["learner"] & ~buf["tail"])
        width = max(1, int(buf["count"].max()))
        obs = self.model.obs_tensor(buf["obs"][t_idx, b_idx])
        cards = torch.from_numpy(buf["cards"][t_idx, b_idx, :width])
        captured = torch.from_numpy(buf["captured"][t_idx, b_idx, :width])
        count = torch.from_numpy(buf["count"][t_idx, b_idx])
        idx = torch.from_numpy(buf["idx"][t_idx, b_idx])
        old_logp = torch.from_numpy(buf["logp"][t_idx, b_idx])
        advantages = torch.from_numpy(adv[t_idx, b_idx])
        returns = torch.from_numpy(ret[t_idx, b_idx].astype(np.float32))
        n = len(t_idx)
        if n == 0:      # no learner decision in this rollout (tiny settings): nothing to learn,
            return {"charts/samples": 0}     # and no mean of nothing (NaN losses, numpy warnings)
        stats = {"pg": [], "v": [], "ent": [], "kl": [], "clip": []}
        for _ in range(cfg.update_epochs):
            order = torch.from_numpy(self.rng.permutation(n))
            for start in range(0, n, cfg.minibatch_size):
                i = order[start:start + cfg.minibatch_size]
                logits, value = masked_logits(self.model, obs[i], cards[i], captured[i], count[i])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, idx[i].unsqueeze(1)).squeeze(1)
                entropy = -(logp_all.exp() * logp_all).sum(dim=1).mean()
                ratio = (logp - old_logp[i]).exp()
                a = advantages[i]
                a = (a - a.mean()) / (a.std() + 1e-8) if len(a) > 1 else a
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_loss = 0.5 * ((value - returns[i]) ** 2).mean()
                loss = pg - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                if not math.isfinite(loss.item()):
                    raise self._diverged(f"the loss became {loss.item()} (policy loss {pg.item():g}, "
                                         f"value loss {v_loss.item():g}, entropy {entropy.item():g})")
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    stats["pg"].append(pg.item())
                    stats["v"].append(v_loss.item())
                    stats["ent"].append(entropy.item())
                    stats["kl"].append(((ratio - 1) - (logp - old_logp[i])).mean().item())
                    stats["clip"].append(((ratio - 1).abs() > cfg.clip_coef).float().mean().item())
        bad = checkpoint.nonfinite_weights(self.model)
        if bad:
            raise self._diverged(f"the network's weights ({bad}) became NaN or inf")
        return {"losses/policy_loss": float(np.mean(stats["pg"])),
                "losses/value_loss": float(np.mean(stats["v"])),
                "losses/entropy": float(np.mean(stats["ent"])),
                "losses/approx_kl": float(np.mean(stats["kl"])),
                "losses/clipfrac": float(np.mean(stats["clip"])),
                "charts/samples": n}

    def _diverged(self, what: str):
        cfg = self.cfg
        return checkpoint.diverged(self.steps, what, f"lower learning_rate (now "
                                   f"{cfg.learning_rate:g}), max_grad_norm (now {cfg.max_grad_norm:g}) "
                                   f"or the loss coefficients vf_coef (now {cfg.vf_coef:g}) and "
                                   f"ent_coef (now {cfg.ent_coef:g})")

    def iterate(self) -> dict:
        buf = self.rollout()
        stats = self.learn(buf)
        self.iterations += 1
        if self.iterations % self.cfg.snapshot_every == 0:
            self._add_snapshot()
        stats["charts/episodes"] = buf["episodes"]
        if buf["episodes"]:
            stats["charts/learner_return"] = buf["learner_return"] / buf["episodes"]
        stats["charts/pool_size"] = min(len(self.pool), self.cfg.pool_size)     # the ones drawn
        return stats

    # ---- resuming ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {"env": env_state(self.env), "pool": list(self.pool),
                "opponent": torch.from_numpy(self.opponent.copy()),
                "tail": {k: torch.from_numpy(v.copy()) for k, v in self.tail.items()},
                "steps": self.steps, "iterations": self.iterations}

    def load_state_dict(self, d: dict) -> None:
        set_env_state(self.env, d["env"])
        # a run keeps the newest pool_size snapshots and those its games still play, at most
        # one a game: a file with more (20,000 copies of one snapshot in 305 KB) took a network
        # each, minutes and gigabytes, before anything said so (a security review)
        most = self.cfg.pool_size + self.cfg.num_envs
        if not isinstance(d["pool"], list) or len(d["pool"]) > most:
            raise ValueError(f"pool: a list of at most pool_size + num_envs = {most} snapshots, got "
                             f"{len(d['pool']) if isinstance(d['pool'], list) else type(d['pool']).__name__}")
        self.pool = list(d["pool"])
        self._sync_pool_models()
        self.opponent = d["opponent"].numpy().copy()
        # written before the tails were carried: that run trained every decision, none waits
        self.tail = ({k: v.numpy().copy() for k, v in d["tail"].items()} if "tail" in d
                     else self._no_tails())
        self.steps = int(d["steps"])
        self.iterations = int(d["iterations"])
