"""The rules of scopa as compiled kernels over one flat int64 state array.

This module *is* the rules engine: the Python `Game`, the environments, the batched env and the
hard opponent's rollouts all call these kernels, so each rule exists once here. Two fast copies
of the classic captures serve the agents' judgement, not the game: agents/_scoring.py's reply
estimate and agents/network.py's reply features; tests hold both to these kernels
(tests/test_agents.py, tests/test_options_reach.py), and agents/_rollout.py's classic_captures
says under which options the first applies. A state is a 1-D
int64 numpy array of `STATE_SIZE` slots (layout below); copying it is copying ~1.5 KB. Card sets
are 40-bit masks (bit = card id, see cards.py). All randomness comes from the xorshift64*
generator whose state lives in slot RNG, seeded by `init_match_rules(state, seed, header)` (or
the classic `init_match(state, seed, nplayers, napola, target)`): same seed, same match.

Every rules option (rules.py) lives in a header slot of the state, written once per match by
init_match_rules from `Rules.to_header()`; a zero in an option slot is the classic default. Seats
are 0..NPLAYERS-1 and play in seat order from the seat after the dealer (the dealer's right in
the seeds, whose play goes anticlockwise; seats are abstract here); with 4 or 6 players
partners sit opposite and seat s plays for side s % n_sides(NPLAYERS). Per-seat slots (HANDS,
PILES, PLAYED, SCOPE) are per seat; the scores (SCORES, LINES, WINNER) are per side.

Kernels trust their input (they are the hot path); `game.py` validates what people and agents
send before calling them.
"""
import numpy as np
from numba import njit

# ---- state layout -------------------------------------------------------------------------
RNG = 0             # xorshift64* state (bit pattern of a uint64)
NPLAYERS = 1
NAPOLA = 2
TARGET = 3
DEALER = 4
TO_MOVE = 5
TABLE = 6           # mask of the cards on the table
LAST_CAPTURER = 7   # -1 before the first capture of the hand
DECK_POS = 8        # index in DECK of the next card to deal
PHASE = 9           # PLAYING, HAND_OVER or MATCH_OVER
HAND_NO = 10        # 0-based hand number in the match
WINNER = 11         # -1 until the match is over (a side: a team with 4 or 6 players)
PLAYS = 12          # cards played this hand
CARDS_PER_DEAL = 13 # rules.hand_cards
TABLE_DEAL = 14     # cards dealt face up at the start of a hand (rules.table_cards)
LAST_FLAGS = 15     # flags returned by the last apply_move
# The variant options (rules.py). 0 is the classic default in every slot, so a header with only
# NPLAYERS, NAPOLA, TARGET, CARDS_PER_DEAL and TABLE_DEAL filled in is the classic game.
RE_BELLO = 16       # 1: the 10D is a point
NAPOLEONE = 17      # NAPOLEONE_OFF, NAPOLEONE_WIN or NAPOLEONE_TEN
ACE_TAKES_ALL = 18  # 1: scopa d'assi
ACE_SCOPA = 19      # 1: an ace sweep counts as a scopa
ACE_UNBURNED = 20   # 1: rules.burned_ace is False (an ace on the table does not stop the sweep)
QUINDICI = 21       # QUINDICI_OFF, QUINDICI_ONLY or QUINDICI_BOTH
FEWEST_CARDS = 22   # 1: among a card's captures only those with the fewest cards
FREE_CAPTURE = 23   # 1: a card that can capture may be laid
PRIMIERA_SCALE = 24 # PRIM_STANDARD, PRIM_FIGURES0, PRIM_VENETO, PRIM_SOUTHERN or PRIM_MOST_SEVENS
CAPOTTO = 25        # 0 off; k: a side with >= k points while all others have 0 wins
NAPOLEONE_SIDE = 26 # result of the last finished hand: 1 + the side holding all ten denari, 0 none
DEALER_SWEEP = 27   # 1: a first table summing to 15 (30) goes to the dealer with 1 (2) scope
NO_RE_REDEAL = 28   # 1: rules.re_redeal is False (3 or 4 re on a 4-card table stay dealt)
SWEPT = 29          # scope the dealer took with this hand's first table (DEALER_SWEEP), else 0
SUMS_BESIDE_EQUAL = 30  # 1: rules.equal_first is False (a card's sum captures stay legal beside an equal card)
ACE_REDEAL = 31     # 1: 2 or more aces on a 4-card first table void the deal
NAPOLA_CAP = 32     # 0: the napola runs to the 10 of denari; k: its points stop at k (cirulla's piccola: 6)
GRANDE = 33         # 1: fante, cavallo and re of denari in one side's pile score 5 (cirulla)
HAND_BONUS = 34     # 1: cirulla's hand bonuses, shown at each player's first turn of a deal
JOKER = 35          # 1: the 7 of coppe is a joker for the hand bonuses and the dealer's sweep
# the hand bonuses' state for the hand being played (zeroed by deal_from_deck)
JOKER_VALUE = 36    # 0, or the capture value the joker was shown as (until captured or the deal ends)
SHOWN = 37          # mask of the cards shown this hand (hands that declared a bonus)
DECLARED = 38       # bit p: seat p's turn came in this deal (its bonus, if any, is declared)
BONUS = 39          # BONUS + p: hand-bonus points seat p declared this hand (slots 39..44)
HEADER_SIZE = 48    # slots 45..47 are free
OPTION_SLOTS = (NPLAYERS, NAPOLA, TARGET, CARDS_PER_DEAL, TABLE_DEAL) + tuple(range(RE_BELLO, CAPOTTO + 1)) \
    + (DEALER_SWEEP, NO_RE_REDEAL, SUMS_BESIDE_EQUAL, ACE_REDEAL, NAPOLA_CAP, GRANDE, HAND_BONUS, JOKER)
MAXP = 6            # room for up to 6 seats
HANDS = HEADER_SIZE       # HANDS + p: mask of player p's hand
PILES = HANDS + MAXP      # captured cards of player p
PLAYED = PILES + MAXP     # cards player p has played this hand
SCOPE = PLAYED + MAXP     # scope of player p this hand
SCORES = SCOPE + MAXP     # SCORES + side: match total of a side (a side is a seat with 2 or 3 players)
NLINES = 11
LINES = SCORES + MAXP     # LINES + side * NLINES + line: the last finished hand's score lines
DECK = LINES + MAXP * NLINES   # 40 card ids in dealing order
STATE_SIZE = DECK + 40

LINE_CARTE, LINE_DENARI, LINE_SETTEBELLO, LINE_PRIMIERA, LINE_SCOPE, LINE_NAPOLA, LINE_TOTAL = range(7)
LINE_RE_BELLO, LINE_NAPOLEONE, LINE_GRANDE, LINE_HAND_BONUS = 7, 8, 9, 10
LINE_NAMES = ("carte", "denari", "settebello", "primiera", "scope", "napola", "total", "re_bello",
              "napoleone", "grande", "hand_bonus")

NAPOLEONE_OFF, NAPOLEONE_WIN, NAPOLEONE_TEN = 0, 1, 2
QUINDICI_OFF, QUINDICI_ONLY, QUINDICI_BOTH = 0, 1, 2
PRIM_STANDARD, PRIM_FIGURES0, PRIM_VENETO, PRIM_SOUTHERN, PRIM_MOST_SEVENS = range(5)

PLAYING, HAND_OVER, MATCH_OVER = 0, 1, 2

# flags returned by apply_move
F_CAPTURE, F_SCOPA, F_DEALT, F_HAND_OVER, F_MATCH_OVER = 1, 2, 4, 8, 16

# The most legal moves any position of any rules set can have, so a move buffer of this width
# (new_move_buffer) always holds them. Every legal move has its own action id, and every id
# belongs to one played card (scopa_env/actions.py), so a hand's moves are at most the ids of its
# cards; a hand holds at most 20 cards (Rules.hand_cards), and the widest table (scopa a quindici
# with scopa d'assi) gives the 20 cards with the most ids 4 x 6,410 (the aces) + 4 x 4,894 + ...
# = 76,680 ids (tests/test_engine_rules.py recomputes it). Cirulla's joker adds ids (actions.py)
# that count only while it has a value (JOKER_VALUE), which only hands of 3 give it: their 3 cards
# with the most ids have 62,099. Real positions stay far below it (80
# with the classic captures, scopa_env/batched.py), but free_capture lets any card be laid, so
# the table can hold 30 cards and more, and one re may then have over a thousand sum captures.
MAX_MOVES = 76_680

RANK = np.array([c % 10 + 1 for c in range(40)], dtype=np.int64)
RANK_MASK = np.array([sum(1 << (s * 10 + r - 1) for s in range(4)) if r else 0 for r in range(11)],
                     dtype=np.int64)
# the primiera scales in half points (Veneto's ace is 5.5), by rank 1..10; rows PRIM_STANDARD..SOUTHERN
PRIM2_BY_RANK = np.array([
    [0, 32, 24, 26, 28, 30, 36, 42, 20, 20, 20],   # standard: 16 12 13 14 15 18 21, figures 10
    [0, 32, 24, 26, 28, 30, 36, 42, 0, 0, 0],      # figures 0
    [0, 11, 4, 6, 8, 10, 12, 14, 1, 1, 1],         # Veneto: 2-7 face value, ace 5.5, figures 0.5
    [0, 32, 24, 26, 28, 30, 36, 42, 16, 18, 20],   # southern: figures at their capture value
], dtype=np.int64)
# best half-point value of each 10-bit suit mask under each scale (0 also for an empty suit:
# whether a suit is present is tested on the mask itself)
PRIM2_OF_SUIT = np.array(
    [[max([0] + [int(PRIM2_BY_RANK[k, r + 1]) for r in range(10) if m >> r & 1]) for m in range(1024)]
     for k in range(4)], dtype=np.int64)
# the standard scale in points, read from the table the scoring uses (the agents' judgement reads
# these; a second copy of the scale here could disagree with the score unseen)
PRIM_BY_RANK = PRIM2_BY_RANK[0] // 2
PRIM_OF_SUIT = PRIM2_OF_SUIT[0] // 2     # best value of a 10-bit suit mask, 0 for an empty suit
DENARI_MASK = (1 << 10) - 1
SETTEBELLO_BIT = 1 << 6
RE_BELLO_BIT = 1 << 9
GRANDE_MASK = 7 << 7        # 8D 9D 10D: fante, cavallo and re of denari
JOKER_CARD = 16             # 7C, the 7 of coppe (cards.py: suit C is 1)
JOKER_BIT = 1 << JOKER_CARD


# ---- small helpers ------------------------------------------------------------------------
@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x + (x >> 8) + (x >> 16) + (x >> 24) + (x >> 32) + (x >> 40)) & 0x7F


_DEBRUIJN = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN[((1 << _i) * 0x03F79D71B4CB0A89 & (2**64 - 1)) >> 58] = _i


@njit(cache=True, inline="always")
def lowest_bit(low):
    """The index of the single set bit of `low` (a power of two below 2**63): de Bruijn lookup."""
    return _DEBRUIJN[((low * np.int64(0x03F79D71B4CB0A89)) >> 58) & 63]


@njit(cache=True)
def splitmix64(seed):
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    return z


@njit(cache=True)
def rng_next(state, slot):
    """Next 64 random bits (xorshift64*) from the generator stored at state[slot]."""
    x = np.uint64(state[slot])
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[slot] = np.int64(x)
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True)
def rng_below(state, slot, n):
    """A uniform integer in [0, n) from the generator at state[slot]."""
    # multiply-shift instead of modulo: unbiased enough (n <= 2**20 here) and no division
    return np.int64(((rng_next(state, slot) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def seed_rng(state, slot, seed):
    state[slot] = np.int64(splitmix64(seed))


# ---- dealing ------------------------------------------------------------------------------
@njit(cache=True)
def _shuffle_deck(state):
    for i in range(39, 0, -1):
        j = rng_below(state, RNG, i + 1)
        t = state[DECK + i]
        state[DECK + i] = state[DECK + j]
        state[DECK + j] = t


@njit(cache=True)
def _deal_round(state):
    """Deal CARDS_PER_DEAL cards to each player, starting with the seat after the dealer. A new
    deal ends the joker's shown value (seed 003: it keeps it "for the rest of the mão ... and
    after the end of the mão it reverts to the 7", the mão being the deal of three cards, as in
    the same seed's "a última mão", the deal once the deck is used up; end_hand ends it too)."""
    n = state[NPLAYERS]
    k = state[CARDS_PER_DEAL]
    pos = state[DECK_POS]
    state[DECLARED] = 0
    state[JOKER_VALUE] = 0
    for i in range(n):
        p = (state[DEALER] + 1 + i) % n
        for _ in range(k):
            state[HANDS + p] |= np.int64(1) << state[DECK + pos]
            pos += 1
    state[DECK_POS] = pos


@njit(cache=True)
def start_hand(state):
    """Collect, shuffle and deal a new hand for the current dealer.

    With a 4-card table (the classic deal, the pairs and scopone) 3 or 4 re among the table cards
    void the deal: the deck is shuffled again, unless NO_RE_REDEAL (escoba de 15, seed 004: the
    four first cards are voided by no re there; a 15 or 30 goes to the dealer instead, DEALER_SWEEP).
    With ACE_REDEAL (cirulla, seed 004) 2 or more aces among them void it too.
    With another table size (scopone scientifico's empty table, or a custom deal) there is no
    redeal: RULES.md and seed 004 give the rules for 4 cards only.
    """
    while True:
        _shuffle_deck(state)
        if void_first_table(state) == 0:
            break
    deal_from_deck(state)


@njit(cache=True)
def void_first_table(state):
    """Whether the deck in DECK (dealing order) deals a void first table (start_hand): 1 for 3 or
    more re among a 4-card table (unless NO_RE_REDEAL), 2 for 2 or more aces there under
    ACE_REDEAL, else 0. Game.deal_hand refuses such a deck: no game plays that deal."""
    if state[TABLE_DEAL] != 4 or (state[NO_RE_REDEAL] != 0 and state[ACE_REDEAL] == 0):
        return 0
    first_table = state[NPLAYERS] * state[CARDS_PER_DEAL]
    re = 0
    aces = 0
    for i in range(4):
        r = RANK[state[DECK + first_table + i]]
        if r == 10:
            re += 1
        elif r == 1:
            aces += 1
    if re >= 3 and state[NO_RE_REDEAL] == 0:
        return 1
    if aces >= 2 and state[ACE_REDEAL] != 0:
        return 2
    return 0


@njit(cache=True)
def deal_from_deck(state):
    """Start a hand dealt from DECK as it stands: CARDS_PER_DEAL each from the seat after the dealer,
    then TABLE_DEAL cards to the table.

    Records are replayed (and deals set up by hand) by writing DECK and calling this.

    With DEALER_SWEEP (escoba de 15, cirulla: seeds 003, 004) a first table whose capture values
    sum to 15 goes to the dealer's pile with one scopa, one summing to 30 with two; the dealer is
    then the hand's last capturer, and the first player leads to an empty table.
    """
    n = state[NPLAYERS]
    for p in range(MAXP):
        state[HANDS + p] = 0
        state[PILES + p] = 0
        state[PLAYED + p] = 0
        state[SCOPE + p] = 0
    state[LAST_CAPTURER] = -1
    state[PLAYS] = 0
    state[LAST_FLAGS] = 0
    state[DECK_POS] = 0
    _deal_round(state)
    first_table = state[DECK_POS]
    table = np.int64(0)
    for i in range(state[TABLE_DEAL]):
        table |= np.int64(1) << state[DECK + first_table + i]
    state[TABLE] = table
    state[DECK_POS] = first_table + state[TABLE_DEAL]
    state[TO_MOVE] = (state[DEALER] + 1) % n
    state[PHASE] = PLAYING
    state[SWEPT] = 0
    state[JOKER_VALUE] = 0
    state[SHOWN] = 0
    for p in range(MAXP):
        state[BONUS + p] = 0
    if state[DEALER_SWEEP] != 0:
        sweep = dealer_sweep_scope(table, state[JOKER])
        state[SWEPT] = sweep
        if sweep:
            d = state[DEALER]
            state[PILES + d] |= table
            state[SCOPE + d] += sweep
            state[LAST_CAPTURER] = d
            state[TABLE] = 0
    declare_bonus(state)


@njit(cache=True)
def dealer_sweep_scope(table, joker):
    """The scope a dealt first table is worth to the dealer under DEALER_SWEEP: 1 if its capture
    values sum to 15, 2 if to 30, else 0 (an empty table: 0). With `joker` (JOKER) the 7 of coppe
    on the table counts as whatever value 1..10 makes 15 or 30 (seed 003)."""
    total = 0
    for c in range(40):
        if (table >> c) & 1 and not (joker and c == JOKER_CARD):
            total += RANK[c]
    if joker and table & JOKER_BIT:
        if 5 <= total <= 14:
            return 1
        if 20 <= total <= 29:
            return 2
        return 0
    if total == 15:
        return 1
    if total == 30:
        return 2
    return 0


@njit(cache=True)
def hand_bonus_of(hand, joker):
    """Cirulla's bonus for a dealt hand of 3 cards (seeds 003, 004): (points, joker value).
    Three cards of one value: 10 points; else capture values summing to 9 or less: 3 (a hand
    that is both scores the 10 only). With `joker`, the 7 of coppe in the hand is whatever value
    gives the best bonus: the value of the other two when they are equal (10 points), else an
    ace when the other two sum to 8 or less (3 points; any value up to 9 minus their sum would
    do, and the engine declares the ace); the value it is shown as is returned (0 when it is no
    joker or stays a 7). A hand of another size has no bonus."""
    if popcount(hand) != 3:
        return 0, 0
    ranks = np.zeros(3, dtype=np.int64)
    k = 0
    has_joker = joker and (hand & JOKER_BIT) != 0
    m = hand & ~np.int64(JOKER_BIT) if has_joker else hand
    while m != 0:
        low = m & -m
        m ^= low
        ranks[k] = RANK[lowest_bit(low)]
        k += 1
    if has_joker:
        a, b = ranks[0], ranks[1]
        if a == b:
            return 10, (0 if a == 7 else a)
        if a + b + 1 <= 9:
            return 3, 1
        return 0, 0
    if ranks[0] == ranks[1] and ranks[1] == ranks[2]:
        return 10, 0
    if ranks[0] + ranks[1] + ranks[2] <= 9:
        return 3, 0
    return 0, 0


@njit(cache=True)
def declare_bonus(state):
    """At the start of a turn under HAND_BONUS: the seat to move, at its first turn of the deal,
    declares its hand bonus if it has one (seeds 003, 004: declared in one's own turn before the
    first card is played, by showing the hand). The engine always declares: the points are
    added to the seat's BONUS, the hand's cards join SHOWN (face up for the rest of the deal)
    and a joker keeps the value it was shown as (JOKER_VALUE)."""
    if state[HAND_BONUS] == 0 or state[PHASE] != PLAYING:
        return
    p = state[TO_MOVE]
    if (state[DECLARED] >> p) & 1:
        return
    state[DECLARED] |= np.int64(1) << p
    points, value = hand_bonus_of(state[HANDS + p], state[JOKER] != 0)
    if points:
        state[BONUS + p] += points
        state[SHOWN] |= state[HANDS + p]
        if value:
            state[JOKER_VALUE] = value


@njit(cache=True)
def rules_header(players, napola, target, hand_cards, table_cards, re_bello, napoleone, ace_takes_all,
                 ace_scopa, ace_unburned, quindici, fewest_cards, free_capture, primiera_scale, capotto,
                 dealer_sweep, no_re_redeal, sums_beside_equal, ace_redeal, napola_cap, grande, hand_bonus,
                 joker):
    """The HEADER_SIZE option slots of a state for these rules (Rules.to_header() fills them)."""
    h = np.zeros(HEADER_SIZE, dtype=np.int64)
    h[NPLAYERS] = players
    h[NAPOLA] = napola
    h[TARGET] = target
    h[CARDS_PER_DEAL] = hand_cards
    h[TABLE_DEAL] = table_cards
    h[RE_BELLO] = re_bello
    h[NAPOLEONE] = napoleone
    h[ACE_TAKES_ALL] = ace_takes_all
    h[ACE_SCOPA] = ace_scopa
    h[ACE_UNBURNED] = ace_unburned
    h[QUINDICI] = quindici
    h[FEWEST_CARDS] = fewest_cards
    h[FREE_CAPTURE] = free_capture
    h[PRIMIERA_SCALE] = primiera_scale
    h[CAPOTTO] = capotto
    h[DEALER_SWEEP] = dealer_sweep
    h[NO_RE_REDEAL] = no_re_redeal
    h[SUMS_BESIDE_EQUAL] = sums_beside_equal
    h[ACE_REDEAL] = ace_redeal
    h[NAPOLA_CAP] = napola_cap
    h[GRANDE] = grande
    h[HAND_BONUS] = hand_bonus
    h[JOKER] = joker
    return h


@njit(cache=True)
def init_match_rules(state, seed, header):
    """Fill `state` (length STATE_SIZE) with a new match under the rules in `header` (the
    HEADER_SIZE vector of rules_header / Rules.to_header()), dealt from `seed`.

    The deals depend only on the seed, the number of players, the deal sizes and which first
    tables are void (NO_RE_REDEAL, ACE_REDEAL): the classic rules give exactly the matches
    init_match gives.
    """
    for i in range(STATE_SIZE):
        state[i] = 0
    seed_rng(state, RNG, seed)
    for i in OPTION_SLOTS:
        state[i] = header[i]
    state[WINNER] = -1
    for i in range(40):
        state[DECK + i] = i
    state[DEALER] = rng_below(state, RNG, state[NPLAYERS])
    start_hand(state)


@njit(cache=True)
def init_match(state, seed, nplayers, napola, target):
    """Fill `state` with a new classic match (3 cards a deal, 4 on the table) dealt from `seed`."""
    init_match_rules(state, seed, rules_header(nplayers, napola, target, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))


@njit(cache=True)
def next_hand(state):
    """After HAND_OVER: the deal passes to the next player and a new hand is dealt."""
    state[DEALER] = (state[DEALER] + 1) % state[NPLAYERS]
    state[HAND_NO] += 1
    start_hand(state)


@njit(cache=True, inline="always")
def n_sides(nplayers):
    """Sides of a game: each player for self with 2 or 3, pairs with 4 or 6 (seat s plays for s % sides)."""
    return nplayers if nplayers <= 3 else nplayers // 2


# ---- legal moves --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def rank_mask(r, jv):
    """The cards of capture value r when the joker is shown as jv (0: it is a 7)."""
    if jv == 0:
        return RANK_MASK[r]
    m = RANK_MASK[r] & ~np.int64(JOKER_BIT)
    if r == jv:
        m |= np.int64(JOKER_BIT)
    return m


@njit(cache=True, inline="always")
def card_value(card, jv):
    """The capture value of `card` when the joker is shown as jv (0: it is a 7)."""
    if jv != 0 and card == JOKER_CARD:
        return jv
    return RANK[card]


@njit(cache=True)
def _table_by_rank(table, ids, ranks, suffix, jv):
    """Table cards sorted by capture value (jv: JOKER_VALUE) into ids/ranks, and suffix[i] = the
    sum of ranks[i:] (which lets the sum search give up early); returns how many."""
    t = 0
    for r in range(1, 11):
        m = table & rank_mask(r, jv)
        while m != 0:
            low = m & -m
            m ^= low
            ids[t] = lowest_bit(low)
            ranks[t] = r
            t += 1
    total = 0
    suffix[t] = 0
    for i in range(t - 1, -1, -1):
        total += ranks[i]
        suffix[i] = total
    return t


@njit(cache=True)
def _sum_captures(ids, ranks, suffix, pos, t, v, card, out_card, out_mask, n):
    """Append every set of table cards (ranks ascending in ids/ranks) summing to v, in
    depth-first order. A branch stops when the next rank overshoots v or when all the ranks left
    (suffix) cannot reach it; both hold for every later card too (ranks ascending), so no set is
    missed and the order is the plain depth-first one."""
    depth = 0
    i = 0
    s = 0
    m = np.int64(0)
    while True:
        if i < t and s + ranks[i] <= v and s + suffix[i] >= v:
            pos[depth] = i
            depth += 1
            s += ranks[i]
            m |= np.int64(1) << ids[i]
            if s == v:
                if n >= out_card.shape[0]:
                    raise ValueError("more legal moves than the move buffer holds")
                out_card[n] = card
                out_mask[n] = m
                n += 1
            i += 1
        else:
            if depth == 0:
                break
            depth -= 1
            j = pos[depth]
            s -= ranks[j]
            m &= ~(np.int64(1) << ids[j])
            i = j + 1
    return n


def new_move_buffer():
    """The work area legal_moves writes to: row 0 played cards, row 1 captured masks, row 2 scratch.
    Left uninitialised (1.8 MB): legal_moves writes every slot it reads, and the compiled callers
    make theirs the same way."""
    return np.empty((3, MAX_MOVES), dtype=np.int64)


@njit(cache=True)
def _add_move(out_card, out_mask, n, card, mask):
    if n >= out_card.shape[0]:
        raise ValueError("more legal moves than the move buffer holds")
    out_card[n] = card
    out_mask[n] = mask
    return n + 1


@njit(cache=True)
def _regular_captures(state, card, table, ids, ranks, suffix, pos, t, out_card, out_mask, n):
    """Append the regular captures of `card` under the variant options (every capture but the
    scopa d'assi sweep, and no laying): see legal_moves."""
    jv = state[JOKER_VALUE]
    v = card_value(card, jv)
    quindici = state[QUINDICI]
    k0 = n
    # regular captures: the classic ones (equal value first, else sums; with SUMS_BESIDE_EQUAL
    # the sums of two or more cards too) and the 15-captures
    if quindici != QUINDICI_ONLY:
        equal = table & rank_mask(v, jv)
        while equal != 0:           # lowest card id first: the order of ids within a rank
            low = equal & -equal
            equal ^= low
            n = _add_move(out_card, out_mask, n, card, low)
        if n == k0:
            n = _sum_captures(ids, ranks, suffix, pos, t, v, card, out_card, out_mask, n)
        elif state[SUMS_BESIDE_EQUAL] != 0:
            k1 = n
            n = _sum_captures(ids, ranks, suffix, pos, t, v, card, out_card, out_mask, n)
            w = k1                  # the one-card sums are the equal captures already listed
            for i in range(k1, n):
                if popcount(out_mask[i]) > 1:
                    out_card[w] = out_card[i]
                    out_mask[w] = out_mask[i]
                    w += 1
            n = w
    ace_rule = state[ACE_TAKES_ALL] != 0 and v == 1 and table != 0
    burned = ace_rule and (table & rank_mask(1, jv)) != 0 and state[ACE_UNBURNED] == 0
    if burned and quindici == QUINDICI_ONLY:
        # the burned ace takes only an ace of the table (one move per table ace)
        for i in range(t):
            if ranks[i] == 1:
                n = _add_move(out_card, out_mask, n, card, np.int64(1) << ids[i])
    if quindici != QUINDICI_OFF:
        n = _sum_captures(ids, ranks, suffix, pos, t, 15 - v, card, out_card, out_mask, n)
    if state[FEWEST_CARDS] != 0 and n - k0 > 1:
        fewest = 99
        for i in range(k0, n):
            c = popcount(out_mask[i])
            if c < fewest:
                fewest = c
        w = k0
        for i in range(k0, n):
            if popcount(out_mask[i]) == fewest:
                out_card[w] = out_card[i]
                out_mask[w] = out_mask[i]
                w += 1
        n = w
    return n


@njit(cache=True)
def _variant_card_moves(state, card, table, ids, ranks, suffix, pos, t, out_card, out_mask, n):
    """Append the legal moves of `card` under the variant options (see legal_moves)."""
    k0 = n
    n = _regular_captures(state, card, table, ids, ranks, suffix, pos, t, out_card, out_mask, n)
    jv = state[JOKER_VALUE]
    ace_rule = state[ACE_TAKES_ALL] != 0 and card_value(card, jv) == 1 and table != 0
    burned = ace_rule and (table & rank_mask(1, jv)) != 0 and state[ACE_UNBURNED] == 0
    if ace_rule and not burned:
        # the ace takes the table; the same set taken by a regular capture is one move, not two
        dup = False
        for i in range(k0, n):
            if out_mask[i] == table:
                dup = True
        if not dup:
            n = _add_move(out_card, out_mask, n, card, table)
    if n == k0 or state[FREE_CAPTURE] != 0:
        n = _add_move(out_card, out_mask, n, card, np.int64(0))
    return n


@njit(cache=True)
def legal_moves(state, buf):
    """Write the mover's legal moves into buf[0, :n] (played card) and buf[1, :n] (captured
    mask) and return n. `buf` comes from new_move_buffer().

    For each card in hand, in card-id order, classic rules: a table card of equal rank must be
    taken (one move per such card, the player chooses); otherwise every set of table cards summing
    to its rank is a move; a card with no capture is laid on the table (captured mask 0).
    Variants, in this order for each card: the classic captures (not with quindici "only"; with
    equal_first off, the sums of two or more cards follow the equal captures); with
    scopa d'assi and a burned ace (an ace on the table) under quindici "only", one move per table
    ace; with quindici, every set of table cards summing to 15 minus the card's rank; with
    fewest_cards only the captures above with the fewest cards stay; with scopa d'assi and no burned
    ace, an ace on a non-empty table takes the whole table (unless a capture above already takes
    exactly that set); the card laid (mask 0) if it has no capture, or always with free_capture.
    """
    out_card = buf[0]
    out_mask = buf[1]
    ids = buf[2, 0:40]
    ranks = buf[2, 40:80]
    pos = buf[2, 80:121]
    suffix = buf[2, 121:162]
    table = state[TABLE]
    t = _table_by_rank(table, ids, ranks, suffix, state[JOKER_VALUE])
    hand = state[HANDS + state[TO_MOVE]]
    variant = (state[QUINDICI] | state[ACE_TAKES_ALL] | state[FEWEST_CARDS] | state[FREE_CAPTURE]
               | state[SUMS_BESIDE_EQUAL] | state[JOKER_VALUE]) != 0
    n = 0
    while hand != 0:
        low = hand & -hand
        hand ^= low
        card = lowest_bit(low)
        if variant:
            n = _variant_card_moves(state, card, table, ids, ranks, suffix, pos, t, out_card, out_mask, n)
            continue
        # the classic captures written out here as in _regular_captures: one shared function
        # (even inline="always") made classic play 0.75x as fast beside a 0.91x control
        # (bench_engine.py --baseline, 2026-12-02), so the few lines stay twice
        v = RANK[card]
        k0 = n
        equal = table & RANK_MASK[v]
        while equal != 0:           # lowest card id first: the order of ids within a rank
            low = equal & -equal
            equal ^= low
            out_card[n] = card
            out_mask[n] = low
            n += 1
        if n == k0:
            n = _sum_captures(ids, ranks, suffix, pos, t, v, card, out_card, out_mask, n)
        if n == k0:
            out_card[n] = card
            out_mask[n] = 0
            n += 1
    return n


@njit(cache=True)
def is_ace_sweep(state, card, captured, table):
    """Whether playing `card` taking `captured` from `table` is a scopa d'assi sweep that no
    regular capture makes (such a sweep is a scopa only with ACE_SCOPA)."""
    if state[ACE_TAKES_ALL] == 0 or card_value(card, state[JOKER_VALUE]) != 1 or captured != table:
        return False
    # a sweep is also a regular capture only if the rules in force make that set one: an equal
    # ace, a 15, a burned ace's capture, and only among the fewest cards with fewest_cards (so
    # not an equal ace under quindici "only", nor a 15 that fewest_cards leaves out)
    buf = np.empty((3, MAX_MOVES), dtype=np.int64)     # as new_move_buffer(); rare: an ace sweep
    ids = buf[2, 0:40]
    ranks = buf[2, 40:80]
    pos = buf[2, 80:121]
    suffix = buf[2, 121:162]
    t = _table_by_rank(table, ids, ranks, suffix, state[JOKER_VALUE])
    n = _regular_captures(state, card, table, ids, ranks, suffix, pos, t, buf[0], buf[1], 0)
    for i in range(n):
        if buf[1, i] == table:
            return False
    return True


# ---- playing ------------------------------------------------------------------------------
@njit(cache=True)
def apply_move(state, card, captured):
    """Play `card` capturing `captured` (a mask; 0 lays it) for the mover. Returns F_* flags.

    Deals the next round when all hands are empty, and scores the hand after its last play.
    A capture that empties the table is a scopa, except on the very last play of the hand and
    for a scopa d'assi sweep without ACE_SCOPA.
    """
    n = state[NPLAYERS]
    p = state[TO_MOVE]
    bit = np.int64(1) << card
    table_before = state[TABLE]
    state[HANDS + p] &= ~bit
    state[PLAYED + p] |= bit
    flags = 0
    if captured != 0:
        state[TABLE] &= ~captured
        state[PILES + p] |= captured | bit
        state[LAST_CAPTURER] = p
        flags |= F_CAPTURE
    else:
        state[TABLE] |= bit
    state[PLAYS] += 1
    hands_empty = True
    for q in range(n):
        if state[HANDS + q] != 0:
            hands_empty = False
    last_play = hands_empty and state[DECK_POS] >= 40
    if captured != 0 and state[TABLE] == 0 and not last_play:
        if state[ACE_SCOPA] != 0 or not is_ace_sweep(state, card, captured, table_before):
            state[SCOPE + p] += 1
            flags |= F_SCOPA
    if captured != 0 and ((captured | bit) & JOKER_BIT) != 0:
        state[JOKER_VALUE] = 0      # a captured joker is the 7 of coppe again (seed 003)
    q = (p + 1) % n
    if not hands_empty:
        while state[HANDS + q] == 0:    # never in a dealt hand (play goes round evenly); in a
            q = (q + 1) % n             # position set up with uneven hands a seat with no card passes
    state[TO_MOVE] = q
    if hands_empty:
        if state[DECK_POS] < 40:
            _deal_round(state)
            flags |= F_DEALT
        else:
            flags |= F_HAND_OVER
            if end_hand(state):
                flags |= F_MATCH_OVER
    if state[HAND_BONUS] != 0:
        declare_bonus(state)
    state[LAST_FLAGS] = flags
    return flags


# ---- scoring ------------------------------------------------------------------------------
@njit(cache=True)
def primiera_half_points(pile, scale):
    """Primiera of a pile under scale PRIM_STANDARD..PRIM_SOUTHERN in half points (Veneto's ace
    is 5.5); -1 if a suit is missing (a suit of figures only is present, worth 0 with figures0)."""
    total = 0
    for s in range(4):
        m = (pile >> (10 * s)) & DENARI_MASK
        if m == 0:
            return -1
        total += PRIM2_OF_SUIT[scale, m]
    return total


@njit(cache=True)
def most_sevens_key(pile):
    """The most-sevens comparison as one number: the count of 7s, then 6s, aces, 5s, 4s, 3s, 2s and
    last the figures (8, 9, 10 together), compared in that order (higher wins)."""
    key = 0
    for r in (7, 6, 1, 5, 4, 3, 2):
        key = key * 8 + popcount(pile & RANK_MASK[r])
    figures = popcount(pile & (RANK_MASK[8] | RANK_MASK[9] | RANK_MASK[10]))
    return key * 16 + figures


@njit(cache=True)
def napola_points(pile, cap=10):
    """1D 2D 3D: 3 points, +1 for each further denari in unbroken sequence (up to `cap`: 10, or
    6 for cirulla's piccola)."""
    if (pile & 7) != 7:
        return 0
    k = 3
    while k < cap and (pile >> k) & 1:
        k += 1
    return k


@njit(cache=True)
def _award_unique_max(state, values, sides, line):
    """One point on `line` to the single side with the highest value (> 0); a tie gives none."""
    best = 0
    who = -1
    for p in range(sides):
        if values[p] > best:
            best = values[p]
            who = p
        elif values[p] == best:
            who = -1
    if who >= 0 and best > 0:
        state[LINES + who * NLINES + line] = 1


@njit(cache=True)
def end_hand(state):
    """Give the table to the last capturer, write the score lines per side (partners pool their
    piles and scope), add to the match totals.

    Returns True when the match is over: napoleone "win" (a side holds all ten denari), capotto
    (a side with >= CAPOTTO points while every other side has 0), or a side reached the target with
    a strict lead (a tie at the top plays another hand).
    """
    n = state[NPLAYERS]
    sides = n_sides(n)
    state[JOKER_VALUE] = 0          # its deal is over (and it lies in a pile, or on a table no one takes)
    if state[LAST_CAPTURER] >= 0:
        state[PILES + state[LAST_CAPTURER]] |= state[TABLE]
        state[TABLE] = 0
    for i in range(MAXP * NLINES):
        state[LINES + i] = 0
    state[NAPOLEONE_SIDE] = 0
    work = np.zeros(3 * MAXP, dtype=np.int64)  # one allocation per hand: side piles, scope, values
    piles = work[0:MAXP]
    scope = work[MAXP:2 * MAXP]
    values = work[2 * MAXP:3 * MAXP]
    for p in range(n):
        piles[p % sides] |= state[PILES + p]
        scope[p % sides] += state[SCOPE + p]
    for s in range(sides):
        values[s] = popcount(piles[s])
    _award_unique_max(state, values, sides, LINE_CARTE)
    for s in range(sides):
        values[s] = popcount(piles[s] & DENARI_MASK)
    _award_unique_max(state, values, sides, LINE_DENARI)
    scale = state[PRIMIERA_SCALE]
    for s in range(sides):
        if scale == PRIM_MOST_SEVENS:
            values[s] = most_sevens_key(piles[s])
        else:
            values[s] = primiera_half_points(piles[s], scale) + 1  # 0: no primiera
    _award_unique_max(state, values, sides, LINE_PRIMIERA)
    for s in range(sides):
        base = LINES + s * NLINES
        pile = piles[s]
        if pile & SETTEBELLO_BIT:
            state[base + LINE_SETTEBELLO] = 1
        if state[RE_BELLO] and pile & RE_BELLO_BIT:
            state[base + LINE_RE_BELLO] = 1
        state[base + LINE_SCOPE] = scope[s]
        if state[NAPOLA]:
            state[base + LINE_NAPOLA] = napola_points(pile, 10 if state[NAPOLA_CAP] == 0 else state[NAPOLA_CAP])
        if state[GRANDE] and (pile & GRANDE_MASK) == GRANDE_MASK:
            state[base + LINE_GRANDE] = 5
        if state[HAND_BONUS]:
            bonus = 0
            for p in range(n):
                if p % sides == s:
                    bonus += state[BONUS + p]
            state[base + LINE_HAND_BONUS] = bonus
        if state[NAPOLEONE] and (pile & DENARI_MASK) == DENARI_MASK:
            state[NAPOLEONE_SIDE] = s + 1
            if state[NAPOLEONE] == NAPOLEONE_TEN:
                state[base + LINE_NAPOLEONE] = 10
        total = 0
        for line in range(NLINES):
            if line != LINE_TOTAL:
                total += state[base + line]
        state[base + LINE_TOTAL] = total
        state[SCORES + s] += total
    who = -1
    if state[NAPOLEONE] == NAPOLEONE_WIN and state[NAPOLEONE_SIDE] > 0:
        who = state[NAPOLEONE_SIDE] - 1
    if who < 0 and state[CAPOTTO] > 0:
        for s in range(sides):
            if state[SCORES + s] >= state[CAPOTTO]:
                others = 0
                for o in range(sides):
                    if o != s:
                        others += state[SCORES + o]
                if others == 0:
                    who = s
    if who < 0:
        best = -1
        for s in range(sides):
            if state[SCORES + s] > best:
                best = state[SCORES + s]
                who = s
            elif state[SCORES + s] == best:
                who = -1
        if best < state[TARGET]:
            who = -1
    if who >= 0:
        state[WINNER] = who
        state[PHASE] = MATCH_OVER
        return True
    state[PHASE] = HAND_OVER
    return False


# ---- random play (simulation, benchmarks, tests) ------------------------------------------
@njit(cache=True)
def random_move(state, rng_state, slot, buf):
    """Apply a uniformly random legal move, drawing from rng_state[slot]; returns the flags."""
    n = legal_moves(state, buf)
    k = rng_below(rng_state, slot, n)
    return apply_move(state, buf[0, k], buf[1, k])


@njit(cache=True)
def random_hands_rules(seed, n_hands, header):
    """Play n_hands hands under the rules in `header` by uniformly random legal moves (new matches
    as matches end).

    Returns the sum over hands of side 0's hand points minus side 1's, a checksum that makes the
    work observable.
    """
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    init_match_rules(state, seed, header)
    rng = np.zeros(1, dtype=np.int64)
    seed_rng(rng, 0, seed ^ 0x5DEECE66D)
    buf = np.empty((3, MAX_MOVES), dtype=np.int64)
    done = 0
    check = 0
    while done < n_hands:
        flags = random_move(state, rng, 0, buf)
        if flags & F_HAND_OVER:
            done += 1
            check += state[LINES + LINE_TOTAL] - state[LINES + NLINES + LINE_TOTAL]
            if flags & F_MATCH_OVER:
                init_match_rules(state, seed + done, header)
            else:
                next_hand(state)
    return check


@njit(cache=True)
def random_hands(seed, n_hands, nplayers, napola, target):
    """random_hands_rules for the classic rules with `nplayers`, napola and target."""
    return random_hands_rules(seed, n_hands,
                              rules_header(nplayers, napola, target, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))


@njit(cache=True)
def clone_many(state, n):
    """Copy `state` n times inside compiled code (the cost the hard opponent pays per world)."""
    acc = 0
    for i in range(n):
        s = state.copy()
        acc += s[TABLE] & 1
    return acc
