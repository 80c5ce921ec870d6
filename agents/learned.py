"""A trained policy behind the agent interface: loads a checkpoint, plays its best-scoring move.

The network (training/model.py) scores each legal move from the observation vector and the move's
features (card played, cards captured), which it reads from the action table: so the agent
decides from the observation dict alone, like every other agent. Play is greedy and
deterministic; ties go to the lowest action id.
"""
from __future__ import annotations

import os

import numpy as np
import torch

from scopa_env.errors import ScopaError
from scopa_env.rules import Rules

from .base import Agent


class LearnedAgent(Agent):
    """LearnedAgent(rules, seed, path=...) or LearnedAgent(rules, seed, model=MoveScorer)."""

    name = "learned"

    def __init__(self, rules: Rules | None = None, seed: int = 0, path: str | None = None,
                 model=None, name: str | None = None):
        from training import checkpoint
        from training.model import build_model

        if (path is None) == (model is None):
            raise ScopaError("LearnedAgent needs exactly one of a checkpoint path or a model")
        if path is not None:
            ckpt = checkpoint.load(path)
            trained = Rules.from_dict(ckpt["rules"])
            if rules is not None and rules != trained:
                raise ScopaError(f"checkpoint {str(path)!r} was trained for rules {trained.to_dict()}, "
                                 f"not {rules.to_dict()}")
            rules = trained
            try:
                model = build_model(ckpt["model_config"])
                model.load_state_dict(ckpt["model"])
            except (ValueError, KeyError, RuntimeError, TypeError) as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ScopaError(f"checkpoint {str(path)!r} holds no usable network ({first})") from None
            self.name = name or str(path).rsplit("/", 1)[-1].removesuffix(".pt")
        elif name:
            self.name = name
        model.eval()
        self.model = model
        super().__init__(rules, seed)
        self._card = torch.from_numpy(self.actions.card)
        self._captured = torch.from_numpy(self.actions.captured)
        self._pid = os.getpid()

    def _fork_safe(self) -> None:
        """In a forked child (arena workers), run torch on one thread: the OpenMP pool the
        parent started does not survive fork, and using it hangs the child (observed)."""
        if os.getpid() != self._pid:
            torch.set_num_threads(1)
            self._pid = os.getpid()

    @torch.no_grad()
    def scores(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and the network's score of each."""
        from training.model import obs_tensor

        self._fork_safe()
        legal = self.legal_actions(observation)
        if len(legal) == 0:
            raise ScopaError("the observation's action mask has no legal move")
        ids = torch.from_numpy(legal)
        obs = obs_tensor(np.asarray(observation["observation"], dtype=np.int8)[None])
        h = self.model.encode(obs)
        s = self.model.score_moves(obs, h, self._card[ids][None], self._captured[ids][None])[0]
        return legal, s.numpy()

    def act(self, observation: dict) -> int:
        legal, s = self.scores(observation)
        return int(legal[int(np.argmax(s))])
