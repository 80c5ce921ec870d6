"""The rules of scopa as compiled kernels over one flat int64 state array.

This module *is* the rules engine: the Python `Game`, the environments, the batched env and the
hard opponent's rollouts all call these kernels, so each rule exists once. A state is a 1-D
int64 numpy array of `STATE_SIZE` slots (layout below); copying it is copying ~1 KB. Card sets
are 40-bit masks (bit = card id, see cards.py). All randomness comes from the xorshift64*
generator whose state lives in slot RNG, seeded by `new_match(seed)`: same seed, same match.

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
WINNER = 11         # -1 until the match is over
PLAYS = 12          # cards played this hand
CARDS_PER_DEAL = 13
TABLE_DEAL = 14     # cards dealt face up at the start of a hand
LAST_FLAGS = 15     # flags returned by the last apply_move
MAXP = 6            # room for up to 6 seats
HANDS = 16          # HANDS + p: mask of player p's hand
PILES = HANDS + MAXP      # captured cards of player p
PLAYED = PILES + MAXP     # cards player p has played this hand
SCOPE = PLAYED + MAXP     # scope of player p this hand
SCORES = SCOPE + MAXP     # match total of player p
NLINES = 8
LINES = SCORES + MAXP     # LINES + p * NLINES + line: the last finished hand's score lines
DECK = LINES + MAXP * NLINES   # 40 card ids in dealing order
STATE_SIZE = DECK + 40

LINE_CARTE, LINE_DENARI, LINE_SETTEBELLO, LINE_PRIMIERA, LINE_SCOPE, LINE_NAPOLA, LINE_TOTAL = range(7)
LINE_NAMES = ("carte", "denari", "settebello", "primiera", "scope", "napola", "total")

PLAYING, HAND_OVER, MATCH_OVER = 0, 1, 2

# flags returned by apply_move
F_CAPTURE, F_SCOPA, F_DEALT, F_HAND_OVER, F_MATCH_OVER = 1, 2, 4, 8, 16

MAX_MOVES = 1024    # far above any reachable table; legal_moves raises if ever exceeded

RANK = np.array([c % 10 + 1 for c in range(40)], dtype=np.int64)
RANK_MASK = np.array([sum(1 << (s * 10 + r - 1) for s in range(4)) if r else 0 for r in range(11)],
                     dtype=np.int64)
_PRIM_BY_RANK = np.array([0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10], dtype=np.int64)
# best primiera value of a 10-bit suit mask (0 for an empty suit)
PRIM_OF_SUIT = np.array(
    [max([0] + [int(_PRIM_BY_RANK[r + 1]) for r in range(10) if m >> r & 1]) for m in range(1024)],
    dtype=np.int64)
DENARI_MASK = (1 << 10) - 1
SETTEBELLO_BIT = 1 << 6


# ---- small helpers ------------------------------------------------------------------------
@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x + (x >> 8) + (x >> 16) + (x >> 24) + (x >> 32) + (x >> 40)) & 0x7F


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
    """Deal CARDS_PER_DEAL cards to each player, starting left of the dealer."""
    n = state[NPLAYERS]
    k = state[CARDS_PER_DEAL]
    pos = state[DECK_POS]
    for i in range(n):
        p = (state[DEALER] + 1 + i) % n
        for _ in range(k):
            state[HANDS + p] |= np.int64(1) << state[DECK + pos]
            pos += 1
    state[DECK_POS] = pos


@njit(cache=True)
def start_hand(state):
    """Collect, shuffle and deal a new hand for the current dealer (redeal on 3+ re on the table)."""
    first_table = state[NPLAYERS] * state[CARDS_PER_DEAL]
    while True:
        _shuffle_deck(state)
        re = 0
        for i in range(state[TABLE_DEAL]):
            if RANK[state[DECK + first_table + i]] == 10:
                re += 1
        if re < 3:
            break
    deal_from_deck(state)


@njit(cache=True)
def deal_from_deck(state):
    """Start a hand dealt from DECK as it stands: 3 each from left of the dealer, then the table.

    Records are replayed (and deals set up by hand) by writing DECK and calling this.
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


@njit(cache=True)
def init_match(state, seed, nplayers, napola, target):
    """Fill `state` (length STATE_SIZE) with a new match dealt from `seed`."""
    for i in range(STATE_SIZE):
        state[i] = 0
    seed_rng(state, RNG, seed)
    state[NPLAYERS] = nplayers
    state[NAPOLA] = napola
    state[TARGET] = target
    state[CARDS_PER_DEAL] = 3
    state[TABLE_DEAL] = 4
    state[WINNER] = -1
    for i in range(40):
        state[DECK + i] = i
    state[DEALER] = rng_below(state, RNG, nplayers)
    start_hand(state)


@njit(cache=True)
def next_hand(state):
    """After HAND_OVER: the deal passes to the next player and a new hand is dealt."""
    state[DEALER] = (state[DEALER] + 1) % state[NPLAYERS]
    state[HAND_NO] += 1
    start_hand(state)


# ---- legal moves --------------------------------------------------------------------------
@njit(cache=True)
def _table_by_rank(table, ids, ranks):
    """Table cards sorted by rank into ids/ranks; returns how many."""
    t = 0
    for r in range(1, 11):
        if (table & RANK_MASK[r]) == 0:
            continue
        for s in range(4):
            c = s * 10 + r - 1
            if (table >> c) & 1:
                ids[t] = c
                ranks[t] = r
                t += 1
    return t


@njit(cache=True)
def _sum_captures(ids, ranks, pos, t, v, card, out_card, out_mask, n):
    """Append every set of table cards (ranks ascending in ids/ranks) summing to v."""
    depth = 0
    i = 0
    s = 0
    m = np.int64(0)
    while True:
        if i < t and s + ranks[i] <= v:
            pos[depth] = i
            depth += 1
            s += ranks[i]
            m |= np.int64(1) << ids[i]
            if s == v:
                if n >= MAX_MOVES:
                    raise ValueError("more legal moves than MAX_MOVES")
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
    """The work area legal_moves writes to: row 0 played cards, row 1 captured masks, row 2 scratch."""
    return np.zeros((3, MAX_MOVES), dtype=np.int64)


@njit(cache=True)
def legal_moves(state, buf):
    """Write the mover's legal moves into buf[0, :n] (played card) and buf[1, :n] (captured
    mask) and return n. `buf` comes from new_move_buffer().

    For each card in hand, in card-id order: a table card of equal rank must be taken (one
    move per such card, the player chooses); otherwise every set of table cards summing to its
    rank is a move; a card with no capture is laid on the table (captured mask 0).
    """
    out_card = buf[0]
    out_mask = buf[1]
    ids = buf[2, 0:40]
    ranks = buf[2, 40:80]
    pos = buf[2, 80:121]
    table = state[TABLE]
    t = _table_by_rank(table, ids, ranks)
    hand = state[HANDS + state[TO_MOVE]]
    n = 0
    while hand != 0:
        low = hand & -hand
        hand ^= low
        card = popcount(low - 1)
        v = RANK[card]
        k0 = n
        for i in range(t):
            if ranks[i] == v:
                out_card[n] = card
                out_mask[n] = np.int64(1) << ids[i]
                n += 1
        if n == k0:
            n = _sum_captures(ids, ranks, pos, t, v, card, out_card, out_mask, n)
        if n == k0:
            out_card[n] = card
            out_mask[n] = 0
            n += 1
    return n


# ---- playing ------------------------------------------------------------------------------
@njit(cache=True)
def apply_move(state, card, captured):
    """Play `card` capturing `captured` (a mask; 0 lays it) for the mover. Returns F_* flags.

    Deals the next round when all hands are empty, and scores the hand after its last play.
    """
    n = state[NPLAYERS]
    p = state[TO_MOVE]
    bit = np.int64(1) << card
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
        state[SCOPE + p] += 1
        flags |= F_SCOPA
    state[TO_MOVE] = (p + 1) % n
    if hands_empty:
        if state[DECK_POS] < 40:
            _deal_round(state)
            flags |= F_DEALT
        else:
            flags |= F_HAND_OVER
            if end_hand(state):
                flags |= F_MATCH_OVER
    state[LAST_FLAGS] = flags
    return flags


# ---- scoring ------------------------------------------------------------------------------
@njit(cache=True)
def primiera(pile):
    """Primiera of a pile: best card of each suit, summed; 0 if a suit is missing."""
    total = 0
    for s in range(4):
        best = PRIM_OF_SUIT[(pile >> (10 * s)) & DENARI_MASK]
        if best == 0:
            return 0
        total += best
    return total


@njit(cache=True)
def napola_points(pile):
    """1D 2D 3D: 3 points, +1 for each further denari in unbroken sequence (up to 10)."""
    if (pile & 7) != 7:
        return 0
    k = 3
    while k < 10 and (pile >> k) & 1:
        k += 1
    return k


@njit(cache=True)
def _award_unique_max(state, values, line):
    """One point on `line` to the single player with the highest value (> 0); a tie gives none."""
    n = state[NPLAYERS]
    best = 0
    who = -1
    for p in range(n):
        if values[p] > best:
            best = values[p]
            who = p
        elif values[p] == best:
            who = -1
    if who >= 0 and best > 0:
        state[LINES + who * NLINES + line] = 1


@njit(cache=True)
def end_hand(state):
    """Give the table to the last capturer, write the score lines, add to the match totals.

    Returns True when the match is over: someone reached the target with a strict lead (a tie at
    the top plays another hand).
    """
    n = state[NPLAYERS]
    if state[LAST_CAPTURER] >= 0:
        state[PILES + state[LAST_CAPTURER]] |= state[TABLE]
        state[TABLE] = 0
    for i in range(MAXP * NLINES):
        state[LINES + i] = 0
    values = np.zeros(MAXP, dtype=np.int64)
    for p in range(n):
        values[p] = popcount(state[PILES + p])
    _award_unique_max(state, values, LINE_CARTE)
    for p in range(n):
        values[p] = popcount(state[PILES + p] & DENARI_MASK)
    _award_unique_max(state, values, LINE_DENARI)
    for p in range(n):
        values[p] = primiera(state[PILES + p])
    _award_unique_max(state, values, LINE_PRIMIERA)
    for p in range(n):
        base = LINES + p * NLINES
        pile = state[PILES + p]
        if pile & SETTEBELLO_BIT:
            state[base + LINE_SETTEBELLO] = 1
        state[base + LINE_SCOPE] = state[SCOPE + p]
        if state[NAPOLA]:
            state[base + LINE_NAPOLA] = napola_points(pile)
        total = 0
        for line in range(LINE_TOTAL):
            total += state[base + line]
        state[base + LINE_TOTAL] = total
        state[SCORES + p] += total
    best = -1
    who = -1
    for p in range(n):
        if state[SCORES + p] > best:
            best = state[SCORES + p]
            who = p
        elif state[SCORES + p] == best:
            who = -1
    if best >= state[TARGET] and who >= 0:
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
def random_hands(seed, n_hands, nplayers, napola, target):
    """Play n_hands hands by uniformly random legal moves (new matches as matches end).

    Returns the sum over hands of player 0's hand points minus player 1's, a checksum that
    makes the work observable.
    """
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    init_match(state, seed, nplayers, napola, target)
    rng = np.zeros(1, dtype=np.int64)
    seed_rng(rng, 0, seed ^ 0x5DEECE66D)
    buf = np.zeros((3, MAX_MOVES), dtype=np.int64)
    done = 0
    check = 0
    while done < n_hands:
        flags = random_move(state, rng, 0, buf)
        if flags & F_HAND_OVER:
            done += 1
            check += state[LINES + LINE_TOTAL] - state[LINES + NLINES + LINE_TOTAL]
            if flags & F_MATCH_OVER:
                init_match(state, seed + done, nplayers, napola, target)
            else:
                next_hand(state)
    return check


@njit(cache=True)
def clone_many(state, n):
    """Copy `state` n times inside compiled code (the cost the hard opponent pays per world)."""
    acc = 0
    for i in range(n):
        s = state.copy()
        acc += s[TABLE] & 1
    return acc
