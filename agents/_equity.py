"""Match equity: the chance of winning a classic 2-player match from its score, for the search's
endgame (hard option `match_equity`; a learned agent's search option of that name; off by
default in both, docs/experiments.md, "Match equity").

When a hand can decide the match, the search values a finished hand by the chance of winning the
match from the score it leaves. The hard level guesses that chance from the score difference alone
(`_exact.linear_equity`: 0.5 + 0.08 a point, within 0.1 and 0.9), whatever the distance to the
target. Here the chance is counted out instead: from how often a hand ends with each score
(HAND_POINTS, measured), the chance of reaching the target first from every score follows
(`equity_table`: hands independent; level at or past the target plays another hand, RULES.md).

One table per opponent model of hard's inference (normal, easy, soft), each from the shipped
agent's hands against the matching opponent; the search weighs the three by the inference's model
weights (`mixed`). The counts are the shipped network's alone (no search), from evaluate.py
records read by `benchmarks/hand_points.py` (its text has the commands):

- normal: `python evaluate.py --agent checkpoints/scopa-default.pt --opponent normal --matches 1000
  --seed 21 --workers 2 --record R`, 4,187 hands, mean margin +0.532;
- easy: `... --opponent easy --matches 640 --seed 0 ...`, 2,431 hands, +1.546;
- soft (a player neither level, the hard level first): `... --opponent hard --matches 400 --seed 0
  ...`, read `--symmetric` (every hand both ways round: a match between equals), 1,669 hands (3,338 in
  the table).
"""
from __future__ import annotations

import functools

import numpy as np

HAND_POINTS = {
    # (the agent's points, the opponent's points) in a hand: hands
    "normal": {
        (0, 1): 1, (0, 2): 21, (0, 3): 103, (0, 4): 251, (0, 5): 86, (0, 6): 28, (0, 7): 4,
        (0, 8): 2, (1, 0): 3, (1, 1): 22, (1, 2): 144, (1, 3): 266, (1, 4): 177, (1, 5): 59,
        (1, 6): 24, (1, 7): 3, (2, 0): 28, (2, 1): 186, (2, 2): 386, (2, 3): 200, (2, 4): 64,
        (2, 5): 24, (2, 6): 11, (2, 7): 2, (3, 0): 144, (3, 1): 325, (3, 2): 230, (3, 3): 91,
        (3, 4): 27, (3, 5): 6, (3, 6): 2, (4, 0): 461, (4, 1): 210, (4, 2): 83, (4, 3): 51,
        (4, 4): 11, (4, 5): 4, (4, 6): 1, (5, 0): 180, (5, 1): 87, (5, 2): 40, (5, 3): 18,
        (5, 4): 1, (5, 5): 1, (6, 0): 46, (6, 1): 22, (6, 2): 17, (6, 3): 3, (7, 0): 13, (7, 1): 7,
        (7, 2): 3, (7, 3): 3, (8, 0): 3, (8, 1): 1, (8, 3): 1,
    },
    "easy": {
        (0, 2): 9, (0, 3): 33, (0, 4): 90, (0, 5): 24, (0, 6): 8, (0, 7): 1, (0, 8): 1, (1, 1): 17,
        (1, 2): 71, (1, 3): 99, (1, 4): 68, (1, 5): 25, (1, 6): 3, (1, 7): 2, (1, 8): 1, (2, 0): 11,
        (2, 1): 83, (2, 2): 160, (2, 3): 97, (2, 4): 30, (2, 5): 10, (2, 6): 7, (2, 7): 1,
        (3, 0): 70, (3, 1): 172, (3, 2): 134, (3, 3): 52, (3, 4): 17, (3, 5): 8, (3, 7): 1,
        (4, 0): 313, (4, 1): 169, (4, 2): 85, (4, 3): 24, (4, 4): 8, (4, 5): 4, (5, 0): 178,
        (5, 1): 88, (5, 2): 35, (5, 3): 14, (5, 4): 1, (6, 0): 74, (6, 1): 50, (6, 2): 21,
        (6, 3): 3, (7, 0): 21, (7, 1): 15, (7, 2): 6, (7, 3): 4, (7, 4): 1, (8, 0): 5, (8, 1): 2,
        (8, 3): 1, (9, 0): 1, (9, 3): 1, (10, 0): 1, (10, 2): 1,
    },
    "soft": {
        (0, 2): 17, (0, 3): 87, (0, 4): 257, (0, 5): 93, (0, 6): 25, (0, 7): 5, (0, 8): 1,
        (0, 9): 1, (1, 1): 14, (1, 2): 120, (1, 3): 217, (1, 4): 183, (1, 5): 65, (1, 6): 24,
        (1, 7): 3, (1, 8): 3, (2, 0): 17, (2, 1): 120, (2, 2): 272, (2, 3): 178, (2, 4): 84,
        (2, 5): 36, (2, 6): 9, (3, 0): 87, (3, 1): 217, (3, 2): 178, (3, 3): 98, (3, 4): 38,
        (3, 5): 12, (3, 6): 5, (3, 7): 1, (4, 0): 257, (4, 1): 183, (4, 2): 84, (4, 3): 38,
        (4, 4): 16, (4, 5): 5, (5, 0): 93, (5, 1): 65, (5, 2): 36, (5, 3): 12, (5, 4): 5,
        (6, 0): 25, (6, 1): 24, (6, 2): 9, (6, 3): 5, (7, 0): 5, (7, 1): 3, (7, 3): 1, (8, 0): 1,
        (8, 1): 3, (9, 0): 1,
    },
}
MODELS = ("normal", "easy", "soft")      # the order of hard's model_weights


def equity_table(counts: dict, target: int) -> np.ndarray:
    """E[a, b]: the chance of winning the match from scores a (mine) and b between hands, for
    0 <= a, b <= target + 40 (the size of `_exact.linear_equity(target)`; the score of a finished
    hand is looked up clipped to it), when every hand scores (x, y) with the chance counts[(x, y)] /
    all. A score with a side at or past the target and ahead is won or lost; level there, another
    hand follows until one is ahead: P(x > y) / P(x != y) from any level score past the target.
    Both short of the target: the next hand's mean, iterated to the fixed point (a hand of no
    points comes back to the same score; every other hand moves up, at most 10 points a side
    short of the clip)."""
    top = target + 40
    total = sum(counts.values())
    moves = [(x, y, n / total) for (x, y), n in counts.items()]
    ahead = sum(q for x, y, q in moves if x > y)
    behind = sum(q for x, y, q in moves if x < y)
    if ahead + behind == 0:
        raise ValueError("every hand level: a level score past the target would never end")
    a = np.arange(top + 1)[:, None]
    b = np.arange(top + 1)[None, :]
    settled = (a >= target) | (b >= target)
    fixed = np.where(a > b, 1.0, np.where(a < b, 0.0, ahead / (ahead + behind)))
    e = np.where(settled, fixed, 0.5)
    idx = np.arange(top + 1)
    for _ in range(1_000):
        new = np.zeros_like(e)
        for x, y, q in moves:
            new += q * e[np.ix_(np.minimum(idx + x, top), np.minimum(idx + y, top))]
        new = np.where(settled, fixed, new)
        done = np.abs(new - e).max() < 1e-13
        e = new
        if done:
            return np.ascontiguousarray(e)
    raise ValueError("the match equity table did not converge")


@functools.lru_cache(maxsize=None)
def model_tables(target: int) -> tuple[np.ndarray, ...]:
    """The table of each opponent model (MODELS' order) for matches to `target`."""
    return tuple(equity_table(HAND_POINTS[m], target) for m in MODELS)


def mixed(target: int, weights) -> np.ndarray:
    """The models' tables weighed by `weights` (hard's model_weights: normal, easy, soft)."""
    tables = model_tables(target)
    if len(weights) != len(tables):
        raise ValueError(f"{len(tables)} model weights expected ({', '.join(MODELS)}), got {len(weights)}")
    out = np.zeros_like(tables[0])
    for w, t in zip(weights, tables, strict=True):
        out += float(w) * t
    return out


__all__ = ["HAND_POINTS", "MODELS", "equity_table", "mixed", "model_tables"]
