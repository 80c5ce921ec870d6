"""Deep Monte-Carlo (DouZero-style): learn the value of each (state, move) from finished episodes.

Every seat of every game plays with the current network (partners in pairs too), epsilon-greedy
(a random legal move with probability epsilon, else the best-scoring one). Every move is stored;
when its episode ends, its target is the return the mover's seat collected from that move on
(undiscounted; the env's side rewards, which partners share: the hand's points, my side's minus
the other side's (three sides: minus the mean of the other two), or +/-1 for the match). The
network is regressed onto these targets with a squared error. Moves whose episode has not ended by the end of an iteration are carried over to
the next one, so no move is lost. With `td_lambda` < 1 the target is instead the lambda-return
over the mover's own decisions, bootstrapped from the greedy value the network gave each of the
mover's later positions when it acted there (no extra forward pass).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from agents import checkpoint
from agents.network import MoveScorer, masked_scores
from .config import TrainConfig
from .bots import BotSeats
from .env import make_env, env_state, set_env_state, legal_slice


def epsilon_span(cfg: TrainConfig, total_steps: int | None = None) -> float:
    """The steps over which epsilon decays: `epsilon_decay_frac` of the step budget the run
    started with (kept in the checkpoint: a resume with a new --total-steps keeps the schedule);
    at least 1, and 1 means no decay (epsilon_at: epsilon_end from the first step)."""
    total = cfg.total_steps if total_steps is None else total_steps
    return max(1.0, cfg.epsilon_decay_frac * total)


def epsilon_at(cfg: TrainConfig, steps: int, span: float) -> float:
    # a span of a step or none (epsilon_decay_frac = 0) explored its first iteration, thousands
    # of moves, at epsilon_start
    frac = 1.0 if span <= 1.0 else min(1.0, steps / span)
    if frac >= 1.0:
        return cfg.epsilon_end      # exactly (start + 1.0 * (end - start) rounds)
    return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)


def episode_returns(rewards: np.ndarray, dones: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rewards (T, B, N), dones (T, B) -> returns-to-go per seat (T, B, N), complete (T, B)."""
    T = rewards.shape[0]
    ret = np.zeros_like(rewards)
    complete = np.zeros(dones.shape, dtype=bool)
    running = np.zeros(rewards.shape[1:], dtype=rewards.dtype)
    seen_done = np.zeros(dones.shape[1], dtype=bool)
    for t in range(T - 1, -1, -1):
        d = dones[t]
        running = rewards[t] + np.where(d[:, None], 0.0, running)
        ret[t] = running
        seen_done |= d
        complete[t] = seen_done
    return ret, complete


def lambda_targets(rewards: np.ndarray, dones: np.ndarray, seat: np.ndarray, vmax: np.ndarray,
                   lam: float) -> np.ndarray:
    """The mover's lambda-return of each step, (T, B).

    G_t = R_t + [next decision t' of the mover in this episode] * ((1 - lam) V_t' + lam G_t'),
    R_t the mover's rewards from t to t', V_t' the greedy value at t'. lam = 1 gives the
    Monte-Carlo return. Only steps whose episode ends within the arrays are meaningful.
    """
    T, B = dones.shape
    N = rewards.shape[2]
    rows = np.arange(B)
    out = np.zeros((T, B), dtype=np.float32)
    acc = np.zeros((B, N), dtype=np.float32)
    next_g = np.zeros((B, N), dtype=np.float32)
    next_v = np.zeros((B, N), dtype=np.float32)
    has_next = np.zeros((B, N), dtype=bool)
    for t in range(T - 1, -1, -1):
        d = dones[t]
        acc = rewards[t] + np.where(d[:, None], 0.0, acc)
        has_next[d] = False
        p = seat[t]
        boot = (1.0 - lam) * next_v[rows, p] + lam * next_g[rows, p]
        g = acc[rows, p] + np.where(has_next[rows, p], boot, 0.0)
        out[t] = g
        next_g[rows, p] = g
        next_v[rows, p] = vmax[t]
        has_next[rows, p] = True
        acc[rows, p] = 0.0
    return out


class DMC:
    """One learner: `iterate()` plays cfg.rollout_steps steps in every game, then learns."""

    def __init__(self, cfg: TrainConfig, model: MoveScorer, optimizer: torch.optim.Optimizer,
                 rng: np.random.Generator):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.rng = rng
        self.env = make_env(cfg)
        self.steps = 0
        self.epsilon_span = epsilon_span(cfg)
        B = cfg.num_envs
        N = self.env.n_players
        # games b < round(bot_games * B) have a rule bot in seat b % 2 (training/bots.py)
        self.bots = BotSeats(cfg.bot_games, cfg.bot_levels, B, rng)
        self.bot_seat = self.bots.seat
        # moves of unfinished episodes, right-aligned in time (valid=False pads the left)
        self.carry = {
            "obs": np.zeros((0, B, self.env.obs.shape[1]), dtype=np.int8),
            "card": np.zeros((0, B), dtype=np.int64),
            "captured": np.zeros((0, B), dtype=np.int64),
            "seat": np.zeros((0, B), dtype=np.int64),
            "reward": np.zeros((0, B, N), dtype=np.float32),
            "done": np.zeros((0, B), dtype=bool),
            "valid": np.zeros((0, B), dtype=bool),
            "vmax": np.zeros((0, B), dtype=np.float32),
        }

    # ---- acting ------------------------------------------------------------------------------
    @torch.no_grad()
    def choose(self, epsilon: float) -> np.ndarray:
        env = self.env
        count = env.legal_count.astype(np.int64)
        cards, captured = legal_slice(env)
        scores, _ = masked_scores(self.model, self.model.obs_tensor(env.obs), torch.from_numpy(cards),
                                  torch.from_numpy(captured), torch.from_numpy(count))
        best, greedy = scores.max(dim=1)
        greedy = greedy.numpy()
        self.last_vmax = best.numpy()
        explore = self.rng.random(len(count)) < epsilon
        random_idx = (self.rng.random(len(count)) * count).astype(np.int64)
        idx = np.where(explore, random_idx, greedy)
        self.bots.play(env, idx)
        return idx

    def rollout(self, epsilon: float) -> tuple[dict, dict]:
        env = self.env
        T, B = self.cfg.rollout_steps, self.cfg.num_envs
        buf = {
            "obs": np.zeros((T, B, env.obs.shape[1]), dtype=np.int8),
            "card": np.zeros((T, B), dtype=np.int64),
            "captured": np.zeros((T, B), dtype=np.int64),
            "seat": np.zeros((T, B), dtype=np.int64),
            "reward": np.zeros((T, B, env.n_players), dtype=np.float32),
            "done": np.zeros((T, B), dtype=bool),
            "valid": np.ones((T, B), dtype=bool),
            "vmax": np.zeros((T, B), dtype=np.float32),
        }
        rows = np.arange(B)
        episodes = 0
        for t in range(T):
            idx = self.choose(epsilon)
            buf["obs"][t] = env.obs
            buf["card"][t] = env.legal_card[rows, idx]
            buf["captured"][t] = env.legal_captured[rows, idx]
            buf["seat"][t] = env.to_move
            buf["vmax"][t] = self.last_vmax
            buf["valid"][t] = env.to_move != self.bot_seat
            _, rewards, dones, _ = env.step_index(idx)
            buf["reward"][t] = rewards
            buf["done"][t] = dones
            episodes += int(dones.sum())
        self.steps += T * B
        return buf, {"episodes": episodes}

    # ---- learning ----------------------------------------------------------------------------
    def samples(self, buf: dict) -> dict:
        """Join the carried moves with this rollout; return finished moves, carry the rest."""
        seq = {k: np.concatenate([self.carry[k], buf[k]]) for k in buf}
        ret, complete = episode_returns(seq["reward"], seq["done"])
        T, B = seq["done"].shape
        t_idx, b_idx = np.nonzero(seq["valid"] & complete)
        if self.cfg.td_lambda < 1.0:
            lam = lambda_targets(seq["reward"], seq["done"], seq["seat"], seq["vmax"], self.cfg.td_lambda)
            target = lam[t_idx, b_idx]
        else:
            target = ret[t_idx, b_idx, seq["seat"][t_idx, b_idx]]
        out = {"obs": seq["obs"][t_idx, b_idx], "card": seq["card"][t_idx, b_idx],
               "captured": seq["captured"][t_idx, b_idx], "target": target.astype(np.float32)}
        pending = seq["valid"] & ~complete
        # carry from the earliest unfinished move of any game on (a count of pending moves fell
        # short of that in bot games, whose bot moves sit between the learner's, and lost moves)
        started = pending.any(axis=0)
        tail = T - int(pending.argmax(axis=0)[started].min()) if started.any() else 0
        self.carry = {k: v[T - tail:].copy() for k, v in seq.items()}
        self.carry["valid"] = pending[T - tail:].copy()
        return out

    def learn(self, data: dict) -> dict:
        n = len(data["target"])
        if n == 0:      # no finished move to learn from yet (tiny settings): nothing learned,
            return {"charts/samples": 0}     # said as PPO says it (the curve had a gap: review)
        obs = self.model.obs_tensor(data["obs"])
        card = torch.from_numpy(data["card"])
        captured = torch.from_numpy(data["captured"])
        target = torch.from_numpy(data["target"])
        losses = []
        mb = self.cfg.minibatch_size
        for _ in range(self.cfg.update_epochs):
            order = torch.from_numpy(self.rng.permutation(n))
            for start in range(0, n, mb):
                i = order[start:start + mb]
                q = self.model.score_chosen(obs[i], card[i], captured[i])
                loss = torch.nn.functional.mse_loss(q, target[i])
                losses.append(loss.item())
                if not math.isfinite(losses[-1]):
                    raise self._diverged(f"the value loss became {losses[-1]}")
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)
                self.optimizer.step()
        bad = checkpoint.nonfinite_weights(self.model)
        if bad:
            raise self._diverged(f"the network's weights ({bad}) became NaN or inf")
        return {"losses/value_loss": float(np.mean(losses)),
                "charts/mean_target": float(target.mean()), "charts/samples": n}

    def _diverged(self, what: str):
        return checkpoint.diverged(self.steps, what, f"lower learning_rate (now "
                                   f"{self.cfg.learning_rate:g}) or max_grad_norm (now "
                                   f"{self.cfg.max_grad_norm:g})")

    def iterate(self) -> dict:
        eps = epsilon_at(self.cfg, self.steps, self.epsilon_span)
        buf, info = self.rollout(eps)
        stats = self.learn(self.samples(buf))
        stats["charts/epsilon"] = eps
        stats["charts/episodes"] = info["episodes"]
        return stats

    # ---- resuming ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {"env": env_state(self.env),
                "carry": {k: torch.from_numpy(v.copy()) for k, v in self.carry.items()},
                "steps": self.steps, "epsilon_span": self.epsilon_span}

    def load_state_dict(self, d: dict) -> None:
        set_env_state(self.env, d["env"])
        self.carry = {k: v.numpy().copy() for k, v in d["carry"].items()}
        self.steps = int(d["steps"])
        if "epsilon_span" in d:    # checkpoints before it: the caller sets it from the saved config
            self.epsilon_span = float(d["epsilon_span"])
