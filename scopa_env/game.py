"""The Python face of the engine: a `Game` that validates input and calls the kernels in core.py.

A Game holds one match: `rules`, the state array, and a move buffer. Use it for anything a person
or a tool does move by move (records, the play loop, tests); the environments and the hard
opponent use the same kernels directly on state arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import core
from .cards import ALL_CARDS_MASK, as_card, as_mask, card_str, cards_of, cards_str, is_list, is_whole, mask_of, number_text
from .actions import action_id, action_table
from .errors import ScopaError
from .observation import observe
from .presets import resolve_rules
from .rules import Rules
from .seeds import check_seed


SETUP_COUNT_MAX = 1_000_000_000     # scope and scores of a set-up position


def _cards_once(cards, what: str) -> list[int]:
    """A list of cards (ids or notation; a mask as its cards) as ids; a card given twice in the
    list is refused, the error naming `what` (the hand, pile, table or deck it was given in)."""
    if is_whole(cards):
        return cards_of(as_mask(cards, what))
    if isinstance(cards, str):
        raise ScopaError(f"{what} must be a list of cards, got the text {cards!r}")
    if not is_list(cards):
        raise ScopaError(f"{what} must be a list of cards or a 40-bit mask, got {number_text(cards)}")
    ids = [as_card(c) for c in cards]
    twice = sorted({c for c in ids if ids.count(c) > 1})
    if twice:
        raise ScopaError(f"card(s) {' '.join(cards_str(twice))} given twice in {what}")
    return ids


@dataclass(frozen=True)
class Move:
    """A legal move: the played card id and the captured cards as a 40-bit mask (0: laid)."""

    card: int
    captured: int

    @property
    def captured_cards(self) -> list[int]:
        return cards_of(self.captured)

    def __str__(self) -> str:
        if not self.captured:
            return card_str(self.card)
        return card_str(self.card) + " x " + " ".join(cards_str(self.captured))

    def to_json(self) -> list:
        return [card_str(self.card), cards_str(self.captured)]


@dataclass(frozen=True)
class PlayResult:
    """What one play did. `hand_over` means the hand was scored (see Game.hand_score())."""

    player: int
    move: Move
    scopa: bool
    dealt: bool
    hand_over: bool
    match_over: bool


class Game:
    """One match under `rules` (a Rules object, a preset name such as 'scopone', or None for the
    classic game, as the environments and agents take them), dealt from `seed`."""

    def __init__(self, rules: Rules | str | None = None, seed: int = 0, napola: bool | None = None,
                 target: int | None = None):
        # Game('scopone') was refused: only Game took no names; napola= and target= change the
        # rules as the environments' do (Game(napola=True) was a TypeError: an API review)
        self.rules = resolve_rules(rules, napola, target)
        self.seed = check_seed(seed)
        self.state = np.zeros(core.STATE_SIZE, dtype=np.int64)
        core.init_match_rules(self.state, self.seed, self.rules.to_header())
        self._buf = None     # the move buffer, made at the first legal_moves (1.8 MB: copies stay cheap)

    # ---- copying -------------------------------------------------------------------------
    def copy(self) -> "Game":
        g = Game.__new__(Game)
        g.rules, g.seed = self.rules, self.seed
        g.state = self.state.copy()
        g._buf = None
        return g

    # copy.copy(game) shared the state array: a move on the copy was a move on the original
    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> "Game":
        # deepcopy copied the 1.8 MB move buffer too (63 us and 1.8 MB a copy; copy() 0.5 us)
        return self.copy()

    def __getstate__(self) -> dict:
        # a pickle without the move buffer (1.8 MB once legal moves were asked for)
        return {"rules": self.rules, "seed": self.seed, "state": self.state, "_buf": None}

    @classmethod
    def from_state(cls, rules: Rules | str, state: np.ndarray, seed: int = 0) -> "Game":
        if rules is None:     # None is the classic game in Game(): a state says nothing of that
            raise ScopaError("from_state needs the rules the state was played under: a Rules object "
                             "or a preset name, got None")
        rules = resolve_rules(rules)
        g = cls.__new__(cls)
        g.rules, g.seed = rules, check_seed(seed)
        try:
            given = np.asarray(state)
        except (TypeError, ValueError):     # a ragged list was numpy's ValueError (review)
            raise ScopaError(f"a state is an array of {core.STATE_SIZE} integers, got {type(state).__name__} "
                             f"that is no array") from None
        if not np.issubdtype(given.dtype, np.integer):      # a float state was truncated
            raise ScopaError(f"a state array holds integers, got {given.dtype}")
        g.state = np.array(given, dtype=np.int64, copy=True)
        if g.state.shape != (core.STATE_SIZE,):
            raise ScopaError(f"a state array has {core.STATE_SIZE} slots, got shape {g.state.shape}")
        st = g.state
        # the slots that index others: out of range, they read other slots (to_move 7: no moves)
        for name, slot, lo in (("dealer", core.DEALER, 0), ("to_move", core.TO_MOVE, 0),
                               ("last_capturer", core.LAST_CAPTURER, -1)):
            if not lo <= st[slot] < rules.players:
                raise ScopaError(f"the state's {name} {int(st[slot])} is not a seat 0..{rules.players - 1}"
                                 + (" (or -1)" if lo < 0 else ""))
        # each slot named with its range (one message for the three named them all; review)
        if st[core.PHASE] not in (core.PLAYING, core.HAND_OVER, core.MATCH_OVER):
            raise ScopaError(f"the state's phase {int(st[core.PHASE])} is not 0..2 (playing, hand over, "
                             f"match over)")
        if not 0 <= st[core.DECK_POS] <= 40:
            raise ScopaError(f"the state's deck position {int(st[core.DECK_POS])} is not 0..40")
        if not -1 <= st[core.WINNER] < rules.teams:
            raise ScopaError(f"the state's winner {int(st[core.WINNER])} is not a side 0..{rules.teams - 1} "
                             f"(or -1)")
        header = rules.to_header()
        for slot in core.OPTION_SLOTS:
            if g.state[slot] != header[slot]:
                raise ScopaError(f"the state's rules (header slot {slot} = {int(g.state[slot])}) are not "
                                 f"these rules ({rules.describe()}: {int(header[slot])})")
        # every card in one place: hands, piles, table and the undealt deck (a card in two places
        # was played twice and the hand's points did not add up)
        places = [(f"hand {p}", int(st[core.HANDS + p])) for p in range(rules.players)]
        places += [(f"pile {p}", int(st[core.PILES + p])) for p in range(rules.players)]
        places.append(("table", int(st[core.TABLE])))
        deck = st[core.DECK + int(st[core.DECK_POS]):core.DECK + 40]
        if ((deck < 0) | (deck >= 40)).any():
            raise ScopaError(f"the state's undealt deck holds {int(deck[(deck < 0) | (deck >= 40)][0])}, "
                             "not a card id 0..39")
        places.append(("the undealt deck", mask_of(_cards_once([int(c) for c in deck], "the undealt deck"))))
        seen = 0
        for name, m in places:
            if not 0 <= m <= ALL_CARDS_MASK:
                raise ScopaError(f"the state's {name} is not a mask of 40 cards: {m}")
            if seen & m:
                card = (seen & m).bit_length() - 1
                first = next(other for other, om in places if om >> card & 1)
                raise ScopaError(f"the state holds {card_str(card)} twice: in {first} and in {name}")
            seen |= m
        # counts never negative (a score of -200 showed as +56 in the int8 observation) and
        # within int64 with room (play from a setup of 1e9 points goes past setup's bound)
        counts = [(f"scope of seat {p}", core.SCOPE + p) for p in range(rules.players)]
        counts += [(f"score of side {t}", core.SCORES + t) for t in range(rules.teams)]
        counts += [("count of cards played this hand", core.PLAYS), ("hand number", core.HAND_NO)]
        for name, slot in counts:
            if not 0 <= st[slot] < 2**62:
                raise ScopaError(f"the state's {name} {int(st[slot])} is not a whole number "
                                 f"0..2**62-1")
        for p in range(rules.players):
            if not 0 <= st[core.PLAYED + p] <= ALL_CARDS_MASK:
                raise ScopaError(f"the state's cards played by seat {p} are not a mask of 40 cards: "
                                 f"{int(st[core.PLAYED + p])}")
        if not 0 <= st[core.NAPOLEONE_SIDE] <= rules.teams:
            raise ScopaError(f"the state's napoleone side {int(st[core.NAPOLEONE_SIDE])} is not "
                             f"0..{rules.teams} (0 none, else 1 + a side)")
        if not 0 <= st[core.SWEPT] <= (2 if rules.dealer_sweep else 0):
            raise ScopaError(f"the state's dealer sweep {int(st[core.SWEPT])} is not "
                             + ("0..2 (scope)" if rules.dealer_sweep else "0 (these rules have no dealer_sweep)"))
        if not 0 <= st[core.JOKER_VALUE] <= (10 if rules.joker else 0) or \
                not 0 <= st[core.SHOWN] <= ALL_CARDS_MASK or not 0 <= st[core.DECLARED] < (1 << rules.players) or \
                any(not 0 <= st[core.BONUS + p] <= (10 * rules.deals_per_hand if rules.hand_bonus else 0)
                    for p in range(rules.players)):
            raise ScopaError("the state's hand-bonus slots (joker value, shown cards, declared seats, "
                             "bonus points) are out of range for these rules")
        if st[core.JOKER_VALUE] and any(int(st[core.HANDS + p]).bit_count() > 3 for p in range(rules.players)):
            # the joker's extra moves are bounded for hands of 3 (core.MAX_MOVES)
            raise ScopaError("the state has a joker value beside a hand of more than 3 cards: the "
                             "hand bonuses give the joker a value only in hands of 3")
        hands = [int(st[core.HANDS + p]) for p in range(rules.players)]
        if st[core.PHASE] == core.PLAYING and hands[int(st[core.TO_MOVE])] == 0 and any(hands):
            # no legal move and the hand not over: the game stalled (setup refuses it too)
            raise ScopaError(f"the state's seat {int(st[core.TO_MOVE])} is to move with no card while "
                             f"other hands hold cards")
        if st[core.PHASE] == core.PLAYING and not any(hands) and st[core.DECK_POS] < 40:
            raise ScopaError(f"the state's hands are all empty while the deck holds "
                             f"{40 - int(st[core.DECK_POS])} cards (setup refuses it too)")
        g._buf = None
        return g

    def setup(self, hands, table, piles=None, deck=(), dealer: int = 1, to_move: int | None = None,
              scope=None, scores=None, last_capturer: int | None = None) -> "Game":
        """Put the game in a given position (tests, puzzles, replays).

        Cards are lists of ids or notation; `deck` lists the undealt cards in dealing order.
        Cards need not total 40 (a position may leave some out), but none may appear twice.
        Hands need not go round evenly: a seat with no card then passes (core.apply_move), but the
        seat to move must hold one. Every hand and the deck empty is a position for core.end_hand
        to score (no moves; the hand is not over until it is called); every hand empty with cards
        in the deck is refused (nothing would deal them).
        `hands`, `piles` and `scope` are per seat, `scores` per side (rules.teams).
        """
        n = self.n_players
        sides = self.n_sides
        # every check before the first write: a failure leaves the game as it was
        for what, value in (("hands", hands), ("piles", piles), ("scope", scope), ("scores", scores)):
            if (value is not None or what == "hands") and not is_list(value):
                raise ScopaError(f"setup {what} must be a list, one entry per "
                                 f"{'side' if what == 'scores' else 'seat'}, got {number_text(value)}")
        # as lists (a numpy array's truth value, a generator's length were errors mid-write)
        hands = list(hands)
        piles = [[]] * n if piles is None else list(piles)
        scope = [0] * n if scope is None else list(scope)
        scores = [0] * sides if scores is None else list(scores)
        groups = [_cards_once(h, "a hand") for h in hands]
        groups += [_cards_once(p, "a pile") for p in piles]
        groups += [_cards_once(table, "the table"), _cards_once(deck, "the deck")]
        masks = [mask_of(cards) for cards in groups]
        seen = 0
        for m in masks:
            if seen & m:
                raise ScopaError(f"card(s) {' '.join(cards_str(seen & m))} given twice")
            seen |= m
        hands, piles = masks[:len(hands)], masks[len(hands):-2]
        table_m, deck = masks[-2], groups[-1]
        for what, values in (("scope", scope), ("scores", scores)):
            # bounded: the engine's int64 slots (2**70 was an OverflowError halfway through)
            if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                       and 0 <= v <= SETUP_COUNT_MAX for v in values):
                raise ScopaError(f"setup {what} must be whole numbers 0..{SETUP_COUNT_MAX:,}, "
                                 f"got {number_text(list(values))}")
        for what, given in (("hands", hands), ("piles", piles)):
            # each named alone: 'needs 2 hands and 2 piles' named piles nobody had given (review)
            if len(given) != n:
                raise ScopaError(f"setup needs {n} {what}, one per seat, got {len(given)}")
        if len(scope) != n:
            raise ScopaError(f"setup needs {n} scope counts, one per seat")
        if len(scores) != sides:
            raise ScopaError(f"setup needs {sides} scores, one per side")
        for what, seat in (("dealer", dealer), ("to_move", to_move), ("last_capturer", last_capturer)):
            if (seat is not None or what == "dealer") and not self.rules.is_seat(seat):
                raise ScopaError(f"setup {what} {number_text(seat)} is not a seat 0..{n - 1}")
        mover = (dealer + 1) % n if to_move is None else to_move
        if hands[mover] == 0 and any(hands):
            # no legal move and the hand not over: the game stalled
            raise ScopaError(f"setup: seat {mover} is to move with no card while other hands hold "
                             f"cards")
        if not any(hands) and deck:
            # nothing deals them: the engine deals the next cards as the last hand empties
            raise ScopaError(f"setup: every hand is empty while the deck holds {len(deck)} "
                             f"card{'s' * (len(deck) != 1)}: put the next deal in the hands")
        st = self.state
        for p in range(n):
            st[core.HANDS + p] = hands[p]
            st[core.PILES + p] = piles[p]
            st[core.PLAYED + p] = 0
            st[core.SCOPE + p] = scope[p]
        st[core.PLAYS] = 0          # a fresh position: no move made in it (review: kept from before)
        for s in range(sides):
            st[core.SCORES + s] = scores[s]
        st[core.TABLE] = table_m
        st[core.SWEPT] = 0
        # hand bonuses: a set-up deal was dealt by nobody and declares nothing (the next deal does)
        st[core.JOKER_VALUE] = 0
        st[core.SHOWN] = 0
        st[core.DECLARED] = (1 << n) - 1
        st[core.BONUS:core.BONUS + core.MAXP] = 0
        st[core.DEALER] = dealer
        st[core.TO_MOVE] = (dealer + 1) % n if to_move is None else to_move
        st[core.DECK_POS] = 40 - len(deck)
        st[core.DECK + 40 - len(deck):core.DECK + 40] = deck
        st[core.LAST_CAPTURER] = -1 if last_capturer is None else last_capturer
        st[core.PHASE] = core.PLAYING
        st[core.WINNER] = -1
        return self

    def deal_hand(self, dealer: int, deck) -> None:
        """Start a new hand with `dealer` and the 40 cards in `deck` in dealing order (hand_cards
        each from the seat after the dealer, table_cards to the table, then the later deals). Used to
        replay records. A deck whose first table the rules void (3 or more re; 2 or more aces under
        ace_redeal) is refused: the engine's own dealer deals again there."""
        if not is_list(deck):
            # a text was read letter by letter, a number was a TypeError
            raise ScopaError(f"a deal is a list of the 40 cards in dealing order, got {number_text(deck)}")
        cards = [as_card(c) for c in deck]
        if sorted(cards) != list(range(40)):
            raise ScopaError(f"a deal must hold each of the 40 cards once, got {len(cards)} cards "
                             f"({len(set(cards))} different)")
        if not self.rules.is_seat(dealer):
            raise ScopaError(f"dealer {number_text(dealer)} is not a seat 0..{self.n_players - 1}")
        if self.match_over:
            raise ScopaError("the match is over: no more hands")
        if self.phase == core.PLAYING and self.state[core.PLAYS] > 0:
            # it replaced the cards in play and the hand's points lost them
            made = int(self.state[core.PLAYS])
            raise ScopaError(f"a hand is being played ({made} move{'s' * (made != 1)} made): "
                             "deal_hand starts a hand before its first move or after it ends")
        probe = self.state.copy()
        probe[core.DECK:core.DECK + 40] = cards
        void = core.void_first_table(probe)
        if void:
            # core.start_hand deals such a deck again (RULES.md voids the deal): no game plays it
            table = ' '.join(cards_str(probe[core.DECK + self.n_players * int(probe[core.CARDS_PER_DEAL]):][:4]))
            raise ScopaError(f"the table {table} holds " + (
                "3 or more re, a void deal that is dealt again (re_redeal=False plays it)" if void == 1 else
                "2 or more aces, a void deal under ace_redeal that is dealt again"))
        if self.phase == core.HAND_OVER:
            self.state[core.HAND_NO] += 1
        self.state[core.DEALER] = int(dealer)
        self.state[core.DECK:core.DECK + 40] = cards
        core.deal_from_deck(self.state)

    def last_deal(self) -> list[list[int]]:
        """Cards of the most recent deal round, per player, in dealing order."""
        n = self.n_players
        k = int(self.state[core.CARDS_PER_DEAL])
        pos = int(self.state[core.DECK_POS])
        if pos == n * k + int(self.state[core.TABLE_DEAL]):  # the first deal of the hand
            pos = n * k
        start = pos - n * k
        out = [[] for _ in range(n)]
        for i in range(n):
            p = (self.dealer + 1 + i) % n
            out[p] = [int(c) for c in self.state[core.DECK + start + i * k:core.DECK + start + (i + 1) * k]]
        return out

    def first_table(self) -> list[int]:
        """The table as dealt at the start of this hand, in dealing order."""
        at = self.n_players * int(self.state[core.CARDS_PER_DEAL])
        return [int(c) for c in self.state[core.DECK + at:core.DECK + at + int(self.state[core.TABLE_DEAL])]]

    def dealer_sweep(self) -> int:
        """The scope the dealer took with this hand's first table under `Rules.dealer_sweep`: 1 for
        a table summing to 15, 2 for 30, else 0 (those cards went to the dealer's pile, and the
        hand began on an empty table). A position put in place by `setup` was dealt by nobody: 0."""
        return int(self.state[core.SWEPT])

    def hand_bonus(self, player: int) -> int:
        """The hand-bonus points `player` declared this hand (`Rules.hand_bonus`: 10 for three of a
        kind, 3 for three cards summing to 9 or less, at its first turn of each deal)."""
        return int(self.state[core.BONUS + self._seat(player)])

    def shown(self, player: int) -> list[int]:
        """The cards of `player`'s hand that every player sees: a hand that declared a bonus is
        shown for the rest of its deal (`Rules.hand_bonus`)."""
        return cards_of(int(self.state[core.HANDS + self._seat(player)]) & int(self.state[core.SHOWN]))

    def joker_value(self) -> int:
        """The capture value of the 7 of coppe this hand: 7, or the value it was shown as in a hand
        bonus (`Rules.joker`; it keeps it until it is captured or its deal ends)."""
        return int(self.state[core.JOKER_VALUE]) or 7

    # ---- reading the state ---------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return int(self.state[core.NPLAYERS])

    @property
    def n_sides(self) -> int:
        """Sides that score: the players with 2 or 3, the pairs with 4 or 6."""
        return core.n_sides(self.n_players)

    def side_of(self, player: int) -> int:
        """The side seat `player` plays for (partners opposite: seats s and s + n_sides)."""
        return self._seat(player) % self.n_sides

    @property
    def to_move(self) -> int:
        """The seat to move while the hand is in play; once it is over (`hand_over`), the seat
        after the last mover, which has no move: the observations then show nobody to move."""
        return int(self.state[core.TO_MOVE])

    @property
    def dealer(self) -> int:
        return int(self.state[core.DEALER])

    @property
    def phase(self) -> int:
        return int(self.state[core.PHASE])

    @property
    def hand_over(self) -> bool:
        return self.phase != core.PLAYING

    @property
    def match_over(self) -> bool:
        return self.phase == core.MATCH_OVER

    @property
    def winner(self) -> int | None:
        """The winning side (a seat with 2 or 3 players), None while the match goes on."""
        w = int(self.state[core.WINNER])
        return None if w < 0 else w

    @property
    def napoleone_side(self) -> int | None:
        """The side that held all ten denari in the last finished hand (napoleone on), or None."""
        s = int(self.state[core.NAPOLEONE_SIDE])
        return None if s == 0 else s - 1

    @property
    def hand_no(self) -> int:
        return int(self.state[core.HAND_NO])

    @property
    def table(self) -> list[int]:
        return cards_of(self.state[core.TABLE])

    @property
    def deck_left(self) -> int:
        return 40 - int(self.state[core.DECK_POS])

    @property
    def last_capturer(self) -> int | None:
        p = int(self.state[core.LAST_CAPTURER])
        return None if p < 0 else p

    def _seat(self, player) -> int:
        """`player` as a seat index, or ScopaError (a bad index read other state slots)."""
        if not self.rules.is_seat(player):
            raise ScopaError(f"player {number_text(player)} is not a seat 0..{self.n_players - 1}")
        return int(player)

    def hand(self, player: int) -> list[int]:
        return cards_of(self.state[core.HANDS + self._seat(player)])

    def pile(self, player: int) -> list[int]:
        return cards_of(self.state[core.PILES + self._seat(player)])

    def played(self, player: int) -> list[int]:
        return cards_of(self.state[core.PLAYED + self._seat(player)])

    def scope(self, player: int) -> int:
        return int(self.state[core.SCOPE + self._seat(player)])

    @property
    def scores(self) -> list[int]:
        """Match totals, one per side."""
        return [int(self.state[core.SCORES + s]) for s in range(self.n_sides)]

    def score_lines(self) -> tuple[str, ...]:
        """The names of the score lines these rules use, in the order a score sheet shows them:
        the classic lines (napola always, 0 when off) plus re_bello, grande, napoleone and
        hand_bonus when on."""
        names = ["carte", "denari", "settebello"]
        if self.rules.re_bello:
            names.append("re_bello")
        names += ["primiera", "scope", "napola"]
        if self.rules.grande:
            names.append("grande")
        if self.rules.napoleone != "off":
            names.append("napoleone")
        if self.rules.hand_bonus:
            names.append("hand_bonus")
        return tuple(names + ["total"])

    def hand_score(self) -> list[dict]:
        """The score lines of the last finished hand, one dict per side (keys score_lines(); for
        the classic rules exactly the keys of records written before the variants existed)."""
        if not self.hand_over:
            raise ScopaError("the hand is not over yet: no score to show")
        out = []
        for s in range(self.n_sides):
            base = core.LINES + s * core.NLINES
            out.append({name: int(self.state[base + core.LINE_NAMES.index(name)])
                        for name in self.score_lines()})
        return out

    # ---- moves ---------------------------------------------------------------------------
    def _legal(self) -> tuple[np.ndarray, int]:
        """The mover's legal moves, written into this game's move buffer, and their count."""
        if self._buf is None:
            self._buf = core.new_move_buffer()
        return self._buf, core.legal_moves(self.state, self._buf)

    def legal_moves(self) -> list[Move]:
        if self.hand_over:
            return []
        buf, n = self._legal()
        return [Move(int(c), int(m)) for c, m in zip(buf[0, :n], buf[1, :n], strict=True)]

    def legal_action_ids(self) -> np.ndarray:
        """Action ids (scopa_env/actions.py) of the legal moves, in the engine's move order."""
        if self.hand_over:
            return np.zeros(0, dtype=np.int64)
        buf, n = self._legal()
        out = action_table(self.rules).encode_moves(buf[0], buf[1], n,
                                                    int(self.state[core.TABLE]))
        if n and out.min() < 0:
            raise ScopaError("a legal move has no action id in the action table of these rules")
        return out

    def observation(self, player: int) -> dict:
        """What `player` is handed: {"observation": int8 vector, "action_mask": int8 mask}.

        The mask is all zeros unless `player` is to move in a hand in play.
        """
        player = self._seat(player)
        mask = np.zeros(action_table(self.rules).size, dtype=np.int8)
        if not self.hand_over and player == self.to_move:
            mask[self.legal_action_ids()] = 1
        return {"observation": observe(self.state, player), "action_mask": mask}

    def play_action(self, action) -> PlayResult:
        """Play an action id; ScopaError if it is not legal now (move_of_action)."""
        move = self.move_of_action(action)
        return self.play(move.card, move.captured)

    def move_of_action(self, action) -> Move:
        """The legal move action id `action` stands for now; ScopaError if it is not among
        legal_action_ids() (an ace-takes-the-table id decodes against any table, so decoding
        alone let one play a move under another id)."""
        a = action_id(action)
        if self.hand_over:
            raise ScopaError(self._over_message())
        table = action_table(self.rules)
        board = int(self.state[core.TABLE])
        card, captured = table.decode(a, table=board)
        move = self.resolve(card, captured)        # ScopaError when the move itself is illegal
        if table.encode(move.card, move.captured, table=board) != a:
            raise ScopaError(f"action {a} is not a legal id now: it decodes to {move}, legal "
                             f"under another id (legal ids: {self.legal_action_ids().tolist()})")
        return move

    def _over_message(self) -> str:
        if self.match_over:
            return "the match is over: no more moves (a new Game plays a new match)"
        return "the hand is over: call next_hand() before playing"

    def resolve(self, card, captured=None) -> Move:
        """The legal move meant by (card, captured), or ScopaError saying why there is none.

        `captured` may be None when the card has exactly one legal move; cards may be ids or
        notation ('7D'); the captured set may be a list of cards or a mask. A Move (one of
        legal_moves()) is itself, alone: `g.play(g.legal_moves()[0])`.
        """
        if self.hand_over:
            raise ScopaError(self._over_message())
        if isinstance(card, Move):      # was "bad card Move(...)" (an API review)
            if captured is not None:
                raise ScopaError(f"a Move says what it captures: give it alone, got {card} and captured={captured!r}")
            card, captured = card.card, card.captured
        c = as_card(card)
        p = self.to_move
        if not (int(self.state[core.HANDS + p]) >> c) & 1:
            raise ScopaError(
                f"{card_str(c)} is not in player {p}'s hand ({' '.join(cards_str(self.hand(p))) or 'empty'})")
        options = [m for m in self.legal_moves() if m.card == c]
        if captured is None:
            if len(options) == 1:
                return options[0]
            listed = "; ".join(str(m) if m.captured else f"{m} laid (captured=[])" for m in options)
            verb = "be played" if any(not m.captured for m in options) else "capture"
            raise ScopaError(f"{card_str(c)} can {verb} in {len(options)} ways, say which: {listed}")
        mask = as_mask(captured, "the captured cards")
        for m in options:
            if m.captured == mask:
                return m
        wanted = " ".join(cards_str(mask)) or "nothing"
        allowed = "; ".join(str(m) for m in options)
        raise ScopaError(f"illegal capture: {card_str(c)} cannot take {wanted} (legal: {allowed})")

    def play(self, card, captured=None) -> PlayResult:
        """Validate and apply a move for the player to move. Bad input leaves the state as it was."""
        move = self.resolve(card, captured)
        player = self.to_move
        left = self.deck_left
        per_deal = self.n_players * self.rules.hand_cards
        if 0 < left < per_deal and sum(len(self.hand(p)) for p in range(self.n_players)) == 1:
            # a deck set up short of a whole deal (setup allows it for positions that end
            # sooner): dealing from it read past the deck's end, garbage cards
            raise ScopaError(f"this move ends the deal, but the deck set up holds {left} cards "
                             f"and a deal takes {per_deal} ({self.n_players} players x "
                             f"{self.rules.hand_cards})")
        flags = core.apply_move(self.state, move.card, move.captured)
        return PlayResult(player, move, bool(flags & core.F_SCOPA), bool(flags & core.F_DEALT),
                          bool(flags & core.F_HAND_OVER), bool(flags & core.F_MATCH_OVER))

    def next_hand(self) -> None:
        if self.phase != core.HAND_OVER:
            raise ScopaError("next_hand() is for a finished hand of a match that goes on")
        core.next_hand(self.state)


def primiera(cards, scale: str = "standard") -> float:
    """Primiera of a set of cards (ids, notation or mask) under a scale of rules.PRIMIERA_SCALES
    other than most_sevens; 0 when a suit is missing. Veneto's ace is 5.5, its figures 0.5.
    Under figures0 a suit of figures only is present but worth 0, so cards of all four suits can
    total 0 too, and still have a primiera (they beat cards missing a suit): tell the two apart
    by the suits, as the engine does."""
    mask = as_mask(cards, "cards")     # a bad mask was read as other cards (review)
    scales = ("standard", "figures0", "veneto", "southern")
    if not isinstance(scale, str) or scale not in scales:       # an array: numpy's ValueError (review)
        raise ScopaError(f"primiera scale must be one of {', '.join(scales)}, got {number_text(scale)}")
    half = int(core.primiera_half_points(np.int64(mask), scales.index(scale)))
    if half < 0:
        return 0
    return half // 2 if half % 2 == 0 else half / 2


def napola(cards) -> int:
    mask = as_mask(cards, "cards")     # a bad mask was read as other cards (review)
    return int(core.napola_points(np.int64(mask)))
