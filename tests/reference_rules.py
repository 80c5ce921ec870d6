"""An independent, deliberately plain reading of RULES.md and its variant table, used only by the
tests to check the engine's legal moves and scores on recorded games. It shares no code with
scopa_env: rules come in as the record's plain "rules" dict (missing keys: the classic game).

Where the seeds leave a choice open it follows the choices documented in scopa_env/core.py
(legal_moves, end_hand) and the README: 15-captures come on top of the classic ones with "both";
fewest_cards applies to every capture of the card but not to the ace sweep; a sweep that is also
a regular capture is that capture (a scopa); most sevens compares 7s, 6s, aces, 5s, 4s, 3s, 2s,
then the figures. dealer_sweep: the first table summing to 15 (30) is the dealer's, with 1 (2)
scope, and the dealer is then the last to have captured. equal_first off: the sums of two or
more cards are captures beside the equal ones. ace_redeal: 2+ aces on a 4-card first table void it.
Cirulla's bonuses: at a seat's first move of each deal its dealt hand scores 10 for three of a
kind, else 3 for values summing to 9 or less; with the joker (7C) the hand is scored for every
value 1..10 of the joker, the best points kept, and the joker takes the lowest value giving them
(a 7: it stays itself) as its capture value until it is captured or the deal ends; on a first
table it counts as any value that makes the dealer's 15 or 30.
"""
PRIM = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
SCALES = {
    "standard": PRIM,
    "figures0": {**PRIM, 8: 0, 9: 0, 10: 0},
    "veneto": {1: 5.5, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 0.5, 9: 0.5, 10: 0.5},
    "southern": {**PRIM, 8: 8, 9: 9, 10: 10},
}
DEFAULTS = {"napola": False, "target": 11, "players": 2, "hand_cards": 3, "table_cards": 4,
            "re_bello": False, "napoleone": "off", "ace_takes_all": False, "ace_scopa": False,
            "burned_ace": True, "quindici": "off", "fewest_cards": False, "free_capture": False,
            "primiera": "standard", "capotto": 0, "re_redeal": True, "dealer_sweep": False,
            "equal_first": True, "ace_redeal": False, "napola_max": 10, "grande": False,
            "hand_bonus": False, "joker": False}
JOKER = "7C"


def rank(card: str, jv: int | None = None) -> int:
    """The capture value of a card; `jv`: the value the joker was shown as (None: it is a 7)."""
    if jv is not None and card == JOKER:
        return jv
    return int(card[:-1])


def hand_bonus(hand: list[str], joker: bool) -> tuple[int, int | None]:
    """(points, the joker's value or None) of a dealt hand of three cards."""
    if len(hand) != 3:
        return 0, None
    best, value = 0, None
    options = range(1, 11) if joker and JOKER in hand else [None]
    for v in options:
        vals = [rank(c, v) for c in hand]
        pts = 10 if len(set(vals)) == 1 else 3 if sum(vals) <= 9 else 0
        if pts > best:
            best, value = pts, v
    return best, (None if value == 7 else value)


def sweep_scope(table: list[str], joker: bool) -> int:
    """The dealer's scope for a first table (0 if it makes neither 15 nor 30)."""
    if not table:
        return 0
    values = range(1, 11) if joker and JOKER in table else [None]
    for v in values:
        total = sum(rank(c, v) for c in table)
        if total in (15, 30):
            return total // 15
    return 0


def _subsets(table, total, min_size, jv=None):
    """Every set of table cards with ranks summing to `total` and at least min_size cards."""
    found = []

    def grow(chosen, rest, left):
        if left == 0:
            if len(chosen) >= min_size:
                found.append(frozenset(chosen))
            return
        for i, c in enumerate(rest):
            if rank(c, jv) <= left:
                grow(chosen + [c], rest[i + 1:], left - rank(c, jv))

    grow([], list(table), total)
    return found


def regular_captures(card: str, table: list[str], rules: dict | None = None, jv=None) -> list[frozenset]:
    """The captures of `card` other than the ace sweep (`jv`: the joker's shown value)."""
    r = {**DEFAULTS, **(rules or {})}
    v = rank(card, jv)
    caps = []
    if r["quindici"] != "only":
        equal = [frozenset([t]) for t in table if rank(t, jv) == v]
        caps += equal if equal and r["equal_first"] else equal + _subsets(table, v, 2, jv)
    aces = [t for t in table if rank(t, jv) == 1]
    if r["ace_takes_all"] and v == 1 and aces and r["burned_ace"] and r["quindici"] == "only":
        caps += [frozenset([a]) for a in aces]
    if r["quindici"] != "off":
        caps += _subsets(table, 15 - v, 1, jv)
    if r["fewest_cards"] and caps:
        least = min(len(s) for s in caps)
        caps = [s for s in caps if len(s) == least]
    return caps


def sweep_only(card: str, captured: frozenset, table: list[str], r: dict, jv=None) -> bool:
    """Whether taking `captured` with `card` is the scopa d'assi sweep and no regular capture
    (such a sweep is a scopa only with ace_scopa)."""
    return (r["ace_takes_all"] and rank(card, jv) == 1 and captured == frozenset(table)
            and captured not in regular_captures(card, table, r, jv))


def legal(hand: list[str], table: list[str], rules: dict | None = None, jv=None) -> list[tuple[str, frozenset]]:
    r = {**DEFAULTS, **(rules or {})}
    out = []
    for c in hand:
        caps = regular_captures(c, table, r, jv)
        burned = any(rank(t, jv) == 1 for t in table) and r["burned_ace"]
        if r["ace_takes_all"] and rank(c, jv) == 1 and table and not burned and frozenset(table) not in caps:
            caps.append(frozenset(table))
        out += [(c, s) for s in caps]
        if not caps or r["free_capture"]:
            out.append((c, frozenset()))
    return out


def primiera(pile: list[str], scale: str = "standard"):
    """The primiera total, or None when a suit is missing."""
    best = {}
    for c in pile:
        best[c[-1]] = max(best.get(c[-1], -1), SCALES[scale][rank(c)])
    return sum(best.values()) if len(best) == 4 else None


def most_sevens(pile: list[str]) -> tuple:
    return tuple(sum(rank(c) == k for c in pile) for k in (7, 6, 1, 5, 4, 3, 2)) + (
        sum(rank(c) >= 8 for c in pile),)


def napola(pile: list[str], most: int = 10) -> int:
    if not {"1D", "2D", "3D"} <= set(pile):
        return 0
    k = 3
    while k < most and f"{k + 1}D" in pile:
        k += 1
    return k


def score(piles: list[list[str]], scope: list[int], rules, bonus: list[int] | None = None) -> list[dict]:
    """Score lines per side from the sides' pooled piles and scope (and hand-bonus points).
    `rules` is a rules dict (or, as before the variants, a bool saying whether the napola is on)."""
    r = {**DEFAULTS, **({"napola": rules} if isinstance(rules, bool) else (rules or {}))}

    def one_point(values):
        present = [v for v in values if v is not None]
        best = max(present) if present else None
        return [int(v is not None and v == best and values.count(best) == 1) for v in values]

    carte = one_point([len(p) or None for p in piles])
    denari = one_point([sum(c.endswith("D") for c in p) or None for p in piles])
    if r["primiera"] == "most_sevens":
        prim = one_point([most_sevens(p) if p else None for p in piles])
    else:
        prim = one_point([primiera(p, r["primiera"]) for p in piles])
    out = []
    for i, p in enumerate(piles):
        line = {"carte": carte[i], "denari": denari[i], "settebello": int("7D" in p)}
        if r["re_bello"]:
            line["re_bello"] = int("10D" in p)
        line.update(primiera=prim[i], scope=scope[i], napola=napola(p, r["napola_max"]) if r["napola"] else 0)
        if r["grande"]:
            line["grande"] = 5 if {"8D", "9D", "10D"} <= set(p) else 0
        if r["napoleone"] != "off":
            all_denari = all(f"{k}D" in p for k in range(1, 11))
            line["napoleone"] = 10 if all_denari and r["napoleone"] == "ten" else 0
        if r["hand_bonus"]:
            line["hand_bonus"] = (bonus or [0] * len(piles))[i]
        line["total"] = sum(line.values())
        out.append(line)
    return out


def check_record(record: dict, require_legal: bool = False) -> None:
    """Replay a record with these rules alone; AssertionError at the first disagreement.
    `require_legal`: every move must carry its legal moves (a record made with_legal=True), so
    that the comparison of legal moves cannot switch itself off unseen."""
    unknown = sorted(set(record["rules"]) - set(DEFAULTS))
    # an option the engine has and these rules do not would be replayed as if absent, and pass
    assert not unknown, f"the reference rules do not know the option(s) {unknown}: add them here"
    r = {**DEFAULTS, **record["rules"]}
    n = r["players"]
    sides = n if n <= 3 else n // 2
    assert len(record["players"]) == n
    totals = [0] * sides
    winner = None
    for hand in record["hands"]:
        assert winner is None, "a hand after the match was won"
        deals = hand["deals"]
        assert len(deals) == (40 - r["table_cards"]) // (n * r["hand_cards"])
        hands = [list(h) for h in deals[0]["hands"]]
        assert all(len(h) == r["hand_cards"] for h in hands)
        table = list(deals[0]["table"])
        assert len(table) == r["table_cards"]
        if r["table_cards"] == 4 and r["re_redeal"]:
            assert sum(rank(c) == 10 for c in table) < 3, "3+ re on the table must be redealt"
        if r["table_cards"] == 4 and r["ace_redeal"]:
            assert sum(rank(c) == 1 for c in table) < 2, "2+ aces on the table must be redealt"
        piles = [[] for _ in range(n)]
        scope = [0] * n
        bonus = [0] * n
        jv = None
        turn_came = set()       # seats whose first move of the deal came
        next_deal = 1
        last = None
        if r["dealer_sweep"] and sweep_scope(table, r["joker"]):
            piles[hand["dealer"]] += table
            scope[hand["dealer"]] += sweep_scope(table, r["joker"])
            table = []
            last = hand["dealer"]
        mover = (hand["dealer"] + 1) % n
        moves = hand["moves"]
        for i, mv in enumerate(moves):
            assert mv["player"] == mover, "turns go round from the seat after the dealer"
            if r["hand_bonus"] and mover not in turn_came:
                turn_came.add(mover)
                points, value = hand_bonus(hands[mover], r["joker"])
                bonus[mover] += points
                if points and value is not None:
                    jv = value
            options = legal(hands[mover], table, r, jv)
            assert "legal" in mv or not require_legal, "a move without its legal moves"
            if "legal" in mv:
                assert sorted((c, sorted(s)) for c, s in options) == sorted(
                    (c, sorted(s)) for c, s in mv["legal"]), "legal moves differ"
            chosen = (mv["card"], frozenset(mv["captured"]))
            assert chosen in options, f"illegal move {mv}"
            swept = sweep_only(mv["card"], chosen[1], table, r, jv)
            hands[mover].remove(mv["card"])
            if mv["captured"]:
                for t in mv["captured"]:
                    table.remove(t)
                piles[mover] += mv["captured"] + [mv["card"]]
                last = mover
                if JOKER in mv["captured"] or mv["card"] == JOKER:
                    jv = None
            else:
                table.append(mv["card"])
            end_of_hand = next_deal == len(deals) and not any(hands) and i == len(moves) - 1
            if mv["captured"] and not table and not end_of_hand and (r["ace_scopa"] or not swept):
                scope[mover] += 1
            if not any(hands) and next_deal < len(deals):
                hands = [list(h) for h in deals[next_deal]["hands"]]
                next_deal += 1
                turn_came = set()
                jv = None               # the joker's shown value lasts to the end of its deal
            mover = (mover + 1) % n
        assert not any(hands) and next_deal == len(deals), "the hand was not played out"
        if last is not None:        # nobody captured (free_capture): the table goes to nobody
            piles[last] += table
            table = []
        all_cards = sorted(c for p in piles + [table] for c in p)
        assert len(all_cards) == 40 and len(set(all_cards)) == 40, "40 cards must be conserved"
        side_piles = [sum((piles[p] for p in range(n) if p % sides == s), []) for s in range(sides)]
        side_scope = [sum(scope[p] for p in range(n) if p % sides == s) for s in range(sides)]
        side_bonus = [sum(bonus[p] for p in range(n) if p % sides == s) for s in range(sides)]
        expected = score(side_piles, side_scope, r, side_bonus)
        assert expected == hand["score"], f"score {hand['score']} != {expected}"
        totals = [t + s["total"] for t, s in zip(totals, expected, strict=True)]
        all_denari = [s for s in range(sides) if all(f"{k}D" in side_piles[s] for k in range(1, 11))]
        if r["napoleone"] == "win" and all_denari:
            winner = all_denari[0]
        elif r["capotto"] and any(totals[s] >= r["capotto"] and sum(totals) == totals[s] for s in range(sides)):
            winner = max(range(sides), key=lambda s: totals[s])
        elif max(totals) >= r["target"] and totals.count(max(totals)) == 1:
            winner = totals.index(max(totals))
    assert totals == record["totals"]
    assert winner is not None and record["winner"] == winner
