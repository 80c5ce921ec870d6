"""Statistics for tournaments: Wilson intervals, per-hand means with intervals, Elo ratings.

Duplicate deals make observations correlated: the two matches of a pair share every deal, and
the hands of one match share a running score. So the unit of independence here is the
duplicate pair (a "cluster"): points per hand is a ratio estimator (sum of point differences /
sum of hands) whose variance comes from the spread between pairs (cluster-robust, delta
method), never from treating hands as independent. Match win rates use the Wilson interval over
matches, as users expect from a win rate; pairing makes the two matches of a pair negatively
correlated (the luck of a deal favours one seat, and each agent sits in both), which makes that
interval conservative rather than too narrow from 3 deals on (at 2 deals, 4 matches, it covered
88-93% in a review's measurement); `correlation` of the two results of each pair is
reported with every evaluation (arena.summarize) so that this can be checked.
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
ELO_SCALE = 400.0 / math.log(10.0)
# Student's t, two-sided 95% (the 0.975 quantile), for 1..30 degrees of freedom
_T95 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
        2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
        2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t95(df: float) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (table to 30, whole
    numbers only there, then the Cornish-Fisher expansion around the normal quantile, within 1e-5
    there); Z95 for df = inf. A 95% interval from n clusters uses t95(n - 1): with 1.96 one from
    3 deals covered about 81% of the time, from 5 about 88% (resampled real deals)."""
    if not df >= 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df!r}")
    if math.isinf(df):
        return Z95
    if df <= 30:
        if not float(df).is_integer():   # the expansion was 2.5% off at 1.5 (review)
            raise ValueError(f"degrees of freedom up to 30 must be a whole number, got {df!r}")
        return _T95[int(df) - 1]
    z, v = Z95, float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; (0, 1) when n == 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at 0 or n successes the bound is exactly 0 or 1 (the formula leaves a rounding error)
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def mean_ci(values, z: float | None = None) -> tuple[float, tuple[float, float]]:
    """Mean of independent values and its 95% interval (Student's t with n - 1 degrees of
    freedom unless `z` is given)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return math.nan, (math.nan, math.nan)
    m = float(v.mean())
    if v.size == 1:
        return m, (-math.inf, math.inf)
    se = float(v.std(ddof=1)) / math.sqrt(v.size)
    z = t95(v.size - 1) if z is None else z
    return m, (m - z * se, m + z * se)


def ratio_ci(totals, counts, z: float | None = None) -> tuple[float, tuple[float, float]]:
    """Ratio sum(totals) / sum(counts) over independent clusters, with a cluster-robust interval.

    totals[i] is the summed quantity of cluster i (e.g. point difference over every hand of a
    duplicate pair), counts[i] its size (hands). Delta-method variance:
    n / (n - 1) * sum((y_i - R x_i)^2) / (sum x)^2; the 95% interval takes Student's t with
    n - 1 degrees of freedom (t95) unless `z` is given.
    """
    y = np.asarray(totals, dtype=float)
    x = np.asarray(counts, dtype=float)
    if y.size == 0 or x.sum() <= 0:
        return math.nan, (math.nan, math.nan)
    r = float(y.sum() / x.sum())
    n = y.size
    if n == 1:
        return r, (-math.inf, math.inf)
    resid = y - r * x
    if np.all(np.abs(resid) <= 1e-9 * max(1.0, float(np.abs(y).max()))):
        # every cluster at the same ratio (2 deals alike: about 2% of 2-deal runs): a zero
        # spread measures no spread, and its [r, r] went on into --pool as a standard error of
        # 0 (review). No interval, as with one cluster.
        return r, (-math.inf, math.inf)
    var = n / (n - 1) * float((resid ** 2).sum()) / float(x.sum()) ** 2
    half = (t95(n - 1) if z is None else z) * math.sqrt(var)
    return r, (r - half, r + half)


def ratio_difference_ci(totals_a, counts_a, totals_b, counts_b,
                        z: float | None = None) -> tuple[float, tuple[float, float]]:
    """R_b - R_a, two ratios (as ratio_ci's) measured on the same clusters (two runs on the same
    duplicate deals), with a cluster-robust interval. Delta method on the paired residuals:
    n / (n - 1) * sum(((y_b - R_b x_b) / sum x_b - (y_a - R_a x_a) / sum x_a)^2); Student's t
    with n - 1 degrees of freedom (t95) unless `z` is given. With equal counts everywhere it is
    mean_ci of the per-cluster differences of (y_b - y_a) / count."""
    ya, xa = np.asarray(totals_a, dtype=float), np.asarray(counts_a, dtype=float)
    yb, xb = np.asarray(totals_b, dtype=float), np.asarray(counts_b, dtype=float)
    if not ya.size == xa.size == yb.size == xb.size:
        raise ValueError("ratio_difference_ci: the two runs must have the same clusters")
    if ya.size == 0 or xa.sum() <= 0 or xb.sum() <= 0:
        return math.nan, (math.nan, math.nan)
    ra, rb = float(ya.sum() / xa.sum()), float(yb.sum() / xb.sum())
    d = rb - ra
    n = ya.size
    if n == 1:
        return d, (-math.inf, math.inf)
    resid = (yb - rb * xb) / xb.sum() - (ya - ra * xa) / xa.sum()
    if np.all(np.abs(resid) <= 1e-12 * max(1.0, abs(d))):
        return d, (-math.inf, math.inf)     # deals all alike: no spread, as in ratio_ci
    half = (t95(n - 1) if z is None else z) * math.sqrt(n / (n - 1) * float((resid ** 2).sum()))
    return d, (d - half, d + half)


def correlation(x, y) -> float:
    """Pearson correlation of two equal-length samples; nan when either is constant."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def elo(wins, games, prior_draws: float = 1.0, z: float = Z95, iters: int = 100):
    """Elo ratings from a cross table by Bradley-Terry maximum a posteriori.

    wins[i][j]: matches i won against j; games[i][j]: matches i and j played (symmetric).
    `prior_draws` virtual draws per played pair keep ratings finite when one side won every
    match. Returns (ratings, (low, high)) as arrays centred on mean 0, intervals from the
    inverse Fisher information (a pseudo-inverse: ratings are only defined up to a shift).
    """
    w = np.asarray(wins, dtype=float)
    g = np.asarray(games, dtype=float)
    k = w.shape[0]
    played = g > 0
    w = w + prior_draws / 2 * played
    g = g + prior_draws * played
    theta = np.zeros(k)
    info = np.zeros((k, k))
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (w - g * p).sum(axis=1)
        fisher_w = g * p * (1 - p)
        info = np.diag(fisher_w.sum(axis=1)) - fisher_w
        step = np.linalg.pinv(info) @ grad
        theta = theta + step
        theta -= theta.mean()
        if np.abs(step).max() < 1e-10:
            break
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    ratings = theta * ELO_SCALE
    half = z * se * ELO_SCALE
    return ratings, (ratings - half, ratings + half)


def no_interval_reason(row: dict) -> str:
    """Why an evaluation row (agents.arena.evaluate's) has no points interval: 'one deal', or
    'no spread' (its deals all had the same points per hand)."""
    sides = len(row.get("points_per_side") or ()) or 2
    return "one deal" if row["matches"] // sides <= 1 else "no spread"


def points_interval_text(lo, hi, none: str = "one deal") -> str:
    """A points interval as tables print it, '[-0.123, +0.456]'; '[n/a, one deal]' when there is
    none (ratio_ci over one deal, or over deals all alike, gives infinite bounds, null in JSON);
    `none` says why (no_interval_reason; a pool: 'a run had one deal or no spread')."""
    if lo is None or hi is None or not math.isfinite(hi - lo):
        return f"[n/a, {none}]"
    return f"[{lo:+.3f}, {hi:+.3f}]"
