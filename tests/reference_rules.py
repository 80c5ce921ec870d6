"""An independent, deliberately plain reading of RULES.md, used only by the tests to check the
engine's legal moves and scores on recorded games. It shares no code with scopa_env."""
from itertools import combinations

PRIM = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


def rank(card: str) -> int:
    return int(card[:-1])


def legal(hand: list[str], table: list[str]) -> list[tuple[str, frozenset]]:
    out = []
    for c in hand:
        v = rank(c)
        equal = [t for t in table if rank(t) == v]
        if equal:
            out += [(c, frozenset([t])) for t in equal]
            continue
        sums = [frozenset(s) for k in range(2, len(table) + 1) for s in combinations(table, k)
                if sum(rank(t) for t in s) == v]
        out += [(c, s) for s in sums] if sums else [(c, frozenset())]
    return out


def primiera(pile: list[str]) -> int:
    best = {}
    for c in pile:
        best[c[-1]] = max(best.get(c[-1], 0), PRIM[rank(c)])
    return sum(best.values()) if len(best) == 4 else 0


def napola(pile: list[str]) -> int:
    if not {"1D", "2D", "3D"} <= set(pile):
        return 0
    k = 3
    while k < 10 and f"{k + 1}D" in pile:
        k += 1
    return k


def score(piles: list[list[str]], scope: list[int], with_napola: bool) -> list[dict]:
    def one_point(values):
        best = max(values)
        return [int(v == best and values.count(best) == 1 and v > 0) for v in values]

    carte = one_point([len(p) for p in piles])
    denari = one_point([sum(c.endswith("D") for c in p) for p in piles])
    prim = one_point([primiera(p) for p in piles])
    out = []
    for i, p in enumerate(piles):
        line = {"carte": carte[i], "denari": denari[i], "settebello": int("7D" in p),
                "primiera": prim[i], "scope": scope[i], "napola": napola(p) if with_napola else 0}
        line["total"] = sum(line.values())
        out.append(line)
    return out


def check_record(record: dict) -> None:
    """Replay a record with these rules alone; AssertionError at the first disagreement."""
    n = len(record["players"])
    totals = [0] * n
    for hand in record["hands"]:
        deals = hand["deals"]
        hands = [list(h) for h in deals[0]["hands"]]
        table = list(deals[0]["table"])
        assert sum(rank(c) == 10 for c in table) < 3, "3+ re on the table must be redealt"
        piles = [[] for _ in range(n)]
        scope = [0] * n
        next_deal = 1
        last = None
        mover = (hand["dealer"] + 1) % n
        moves = hand["moves"]
        for i, mv in enumerate(moves):
            assert mv["player"] == mover, "turns alternate from the dealer's left"
            options = legal(hands[mover], table)
            if "legal" in mv:
                assert sorted((c, sorted(s)) for c, s in options) == sorted(
                    (c, sorted(s)) for c, s in mv["legal"]), "legal moves differ"
            chosen = (mv["card"], frozenset(mv["captured"]))
            assert chosen in options, f"illegal move {mv}"
            hands[mover].remove(mv["card"])
            if mv["captured"]:
                for t in mv["captured"]:
                    table.remove(t)
                piles[mover] += mv["captured"] + [mv["card"]]
                last = mover
            else:
                table.append(mv["card"])
            end_of_hand = next_deal == len(deals) and not any(hands) and i == len(moves) - 1
            if mv["captured"] and not table and not end_of_hand:
                scope[mover] += 1
            if not any(hands) and next_deal < len(deals):
                hands = [list(h) for h in deals[next_deal]["hands"]]
                next_deal += 1
            mover = (mover + 1) % n
        assert not any(hands) and next_deal == len(deals), "the hand was not played out"
        if last is not None:
            piles[last] += table
        all_cards = sorted(c for p in piles for c in p)
        assert len(all_cards) == 40 and len(set(all_cards)) == 40, "40 cards must be conserved"
        expected = score(piles, scope, record["rules"].get("napola", False))
        assert expected == hand["score"], f"score {hand['score']} != {expected}"
        totals = [t + s["total"] for t, s in zip(totals, expected)]
    assert totals == record["totals"]
    best = max(totals)
    assert best >= record["rules"].get("target", 11) and totals.count(best) == 1
    assert record["winner"] == totals.index(best)
