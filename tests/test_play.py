"""play.py: whole matches through stdin in a subprocess, and every command with injected I/O."""
from __future__ import annotations

import importlib.util
import io
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from agents import REGISTRY, RandomAgent, make_agent
from scopa_env import Game, Rules, ScopaError
from scopa_env.cards import parse_card
from scopa_env.presets import rules_from_preset

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("play", ROOT / "play.py")
play = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(play)


@pytest.fixture(autouse=True)
def no_thinking_notice(monkeypatch):
    """In-process sessions print no timing-dependent line (test_slow_computer_move_says_so)."""
    monkeypatch.setattr(play, "THINKING_NOTICE_S", None)


class Script:
    """input_fn fed from a list of lines (EOFError once they run out); prompts go to `out`."""

    def __init__(self, lines, out):
        self.lines = list(lines)
        self.out = out
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.out.write(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        self.out.write(line + "\n")
        return line


def session(lines=(), seed=3, opponent="random", rules=None, input_fn=None):
    out = io.StringIO()
    fn = input_fn or Script(lines, out)
    s = play.PlaySession(opponent, rules or Rules(), seed, input_fn=fn, output=out)
    return s, out, fn


def run_from(s, game):
    """Play on from a set-up position instead of a fresh deal."""
    s.new_match()
    s.log = []
    s.game = game
    return s.loop()


# ---- whole matches ------------------------------------------------------------------------
def answer_one_then_no(prompt: str) -> str:
    return "n" if prompt.startswith("New match?") else "1"


@pytest.mark.parametrize("seed,napola", [(0, False), (5, True)])
def test_full_match_injected(seed, napola):
    s, out, _ = session(seed=seed, rules=Rules(napola=napola), input_fn=answer_one_then_no)
    assert s.run() == 0
    text = out.getvalue()
    g = s.game
    assert g.match_over and max(g.scores) >= 11 and g.winner is not None
    you, cpu = g.scores
    won = f"You win the match {you}-{cpu}!" if g.winner == 0 else f"computer wins the match {cpu}-{you}"
    assert won in text
    assert text.count("hand total") == g.hand_no + 1          # every hand scored
    assert text.rstrip().endswith("Ciao!")
    assert ("napola" in text.split("Hand 1 score")[1].split("hand total")[0]) == napola


def test_full_match_subprocess_stdin():
    """The README command with scripted stdin: a whole match, the winner, the offer, clean EOF."""
    feed = "1\n" * 600
    r = subprocess.run([sys.executable, "play.py", "--opponent", "random", "--seed", "7"],
                       input=feed, capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert "wins the match" in r.stdout or "win the match" in r.stdout
    assert "New match? (y/n)" in r.stdout and "answer y or n" in r.stdout
    assert r.stdout.rstrip().endswith("Ciao!")
    assert "Hand 1 score" in r.stdout


def test_subprocess_new_match_yes_then_quit():
    """'y' at the offer starts match 2 from seed+1; target 1 keeps it short."""
    lines = []
    for _ in range(60):            # one hand is at most 18 plays by you; '1' picks capture 1 too
        lines.append("1")
    feed = "\n".join(lines + ["y", "q"]) + "\n"
    # the '1's left over after the match end answer the offer ("answer y or n"), then 'y'
    r = subprocess.run([sys.executable, "play.py", "--opponent", "random", "--seed", "11",
                        "--target", "1", "--napola"],
                       input=feed, capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert r.returncode == 0, r.stderr
    assert "(seed 11)" in r.stdout and "(seed 12)" in r.stdout
    assert "napola on" in r.stdout


def test_subprocess_bad_options_one_line_exit_2():
    for args in (["--opponent", "no-such-level"], ["--opponent", "missing.pt"],
                 ["--target", "0"], ["--seed", "-1"]):
        r = subprocess.run([sys.executable, "play.py", *args], input="", capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.startswith("play.py: ") and r.stderr.count("\n") == 1, r.stderr
        assert "Traceback" not in r.stderr


def test_subprocess_ctrl_c_exits_cleanly():
    p = subprocess.Popen([sys.executable, "play.py", "--opponent", "random", "--seed", "2"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=ROOT, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    seen = b""
    deadline = time.monotonic() + 300   # a first start compiles the kernels (a minute loaded)
    while b"Your play" not in seen and time.monotonic() < deadline:
        # waits at most a second, so the deadline holds when play.py says nothing (review)
        if select.select([p.stdout], [], [], 1.0)[0]:
            data = os.read(p.stdout.fileno(), 4096)
            if not data:        # it exited before its prompt: the failure below says so
                break
            seen += data
    if b"Your play" not in seen:
        p.kill()
        _, err = p.communicate()
        pytest.fail(f"no prompt from play.py: {seen[-300:]!r} {err[-300:]!r}")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0
    assert b"Traceback" not in err and b"Ciao!" in out


def test_arrow_keys_edit_the_line_on_a_terminal():
    """On a terminal input() edits lines (readline): '1q', a left arrow and a backspace leave
    'q', which quits. Without it the arrow reached the game as '\\x1b[D', "not a command" (a
    terminal review). A pipe reads plain lines (the other tests)."""
    pytest.importorskip("pty")
    pytest.importorskip("readline")
    from terminal import play_on_pty
    out, code = play_on_pty(["--opponent", "random", "--seed", "2"], b"1q\x1b[D\x7f\r",
                            stop=lambda out: b"Ciao!" in out or b"not a command" in out, env={"TERM": "xterm"})
    assert b"not a command" not in out and b"Ciao!" in out, out[-300:]
    assert code == 0


# ---- commands with injected I/O -----------------------------------------------------------
def test_eof_at_once_is_clean():
    s, out, _ = session([])
    assert s.run() == 0
    assert out.getvalue().rstrip().endswith("Ciao!")


def test_turn_screen_shows_what_the_issue_lists():
    s, out, _ = session(["q"], seed=3)
    s.run()
    text = out.getvalue()
    for part in ("You 0 · Computer 0 (to 11)", "deals", "deck 30", "Table:", "Your hand: 1) ",
                 "2) ", "3) ", "You took:  0 cards · 0 denari · 0 sevens · 0 scope"):
        assert part in text, part



def screen_at(s, game) -> list[str]:
    """The turn screen of `game`'s position, as play.py shows it, line by line."""
    s.new_match()
    s.game, s.out = game, io.StringIO()
    s.show_state()
    return s.out.getvalue().splitlines()


def test_turn_screen_lines_are_each_seats_own():
    """Every count on the screen is its own seat's (a review: the computer's line showing the
    person's hand size or scope passed, since every screen tested had equal hands and no scope)."""
    s, _, _ = session([])
    g = Game(Rules(), seed=0).setup(hands=[["1C", "2C", "3C"], ["4C", "5C"]], table=["6C", "7S"],
                                    piles=[["7D", "8D"], ["1D", "2S", "3S"]], scope=[1, 2],
                                    deck=["9C", "10C", "9S"], dealer=1, scores=[4, 6])
    assert screen_at(s, g) == [
        "--- You 4 · Computer 6 (to 11) · hand 1, computer deals · deck 3 ---",
        "Table:     6♥  7♠",
        "Computer:  2 in hand · took 3 cards · 1 denaro · 0 sevens · 2 scope",
        "You took:  2 cards · 2 denari · settebello · 1 seven · 1 scopa",
        "Your hand: 1) 1♥   2) 2♥   3) 3♥"]


def test_many_seat_screen_lines_are_each_seats_and_sides_own():
    """With six players in three pairs: each side's score, each seat's hand, pile and scope, and
    each side's pooled pile are its own (a review: side 0's score or pile on every side's line,
    or one seat's scope on every seat's, passed: the screens tested were at 0-0, piles empty)."""
    six = rules_from_preset("six-players")
    s, _, _ = session([], rules=six)
    g = Game(six, seed=0).setup(
        hands=[["1C", "2C"], ["4C"], ["3C", "5C"], ["6S"], [], ["7C", "8C"]], table=["6C"],
        piles=[["7D"], ["1D", "2S"], ["3S", "4S", "5S"], [], ["9D", "10D"], ["1S"]],
        scope=[0, 1, 2, 3, 4, 5], deck=["9C", "10C"], dealer=5, scores=[3, 9, 14])
    assert screen_at(s, g) == [
        "--- Us: 3 · Side B: 9 · Side C: 14 (to 21) · hand 1, Opponent C2 deals · deck 2 ---",
        "Table:     6♥",
        "Opponent B1: 1 in hand · took 2 cards · 1 denaro · 0 sevens · 1 scopa",
        "Opponent C1: 2 in hand · took 3 cards · 0 denari · 0 sevens · 2 scope",
        "Partner:     1 in hand · took 0 cards · 0 denari · 0 sevens · 3 scope",
        "Opponent B2: 0 in hand · took 2 cards · 2 denari · 0 sevens · 4 scope",
        "Opponent C2: 2 in hand · took 1 card · 0 denari · 0 sevens · 5 scope",
        "You took:    1 card · 1 denaro · settebello · 1 seven · 0 scope",
        "  Us (you + partner) together: 1 card · 1 denaro · settebello · 1 seven · 3 scope",
        "  Side B together: 4 cards · 3 denari · 0 sevens · 5 scope",
        "  Side C together: 4 cards · 0 denari · 0 sevens · 7 scope",
        "Your turn (then Opponent B1, Opponent C1, Partner, Opponent B2, Opponent C2).",
        "Your hand: 1) 1♥   2) 2♥"]

def hidden_cards_never_shown(s, out):
    """An input_fn for whole matches: at each of the person's prompts, no card another seat holds
    now is named on the screen since the last prompt (in the names the session shows), but those
    it showed with a hand bonus (cirulla: shown for the rest of the deal)."""
    state = {"seen": 0, "prompts": 0}

    def answer(prompt: str) -> str:
        text, state["seen"] = out.getvalue()[state["seen"]:], len(out.getvalue())
        if prompt.startswith("Your play") or prompt.startswith("Your turn"):
            state["prompts"] += 1
            g = s.game
            for seat in range(1, g.n_players):
                for c in set(g.hand(seat)) - set(g.shown(seat)):
                    name = s.name(c)
                    assert not re.search(r"(?<![0-9])" + re.escape(name), text), (seat, name, text)
        return "n" if prompt.startswith("New match?") else "1"
    return answer, state


@pytest.mark.parametrize("preset, italian", [("classic", False), ("classic", True), ("pairs", False),
                                             ("cirulla", False), ("cirulla-pairs", True)])
def test_the_screen_never_shows_a_hand_but_the_persons(preset, italian):
    """Nothing checked what the screen must not show: printing the computer's hand passed every
    play.py test (review). Whole matches (to 3), compact and Italian names, and in pairs the
    partner's hand too; under cirulla only the cards a hand bonus showed (mutation testing: the
    whole hand printed as "shown" went unseen)."""
    out = io.StringIO()
    rules = rules_from_preset(preset).replace(target=3)
    s = play.PlaySession("easy", rules, 5, italian=italian, output=out)
    s.input_fn, state = hidden_cards_never_shown(s, out)
    assert s.run() == 0 and s.game.match_over and state["prompts"] >= 9


class TerminalOut(io.StringIO):
    """A session's output that says it is a terminal of the window `columns` wide (a pty's)."""

    def __init__(self, columns: int):
        super().__init__()
        import fcntl
        import struct
        import termios
        self.leader, self.follower = os.openpty()
        fcntl.ioctl(self.follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.follower

    def close(self) -> None:
        os.close(self.leader)
        os.close(self.follower)


@pytest.mark.parametrize("columns", [80, 40])
def test_every_line_of_whole_matches_fits_the_terminal(columns):
    """Whole matches under every preset, in compact and Italian names, on a terminal `columns`
    wide: each line the session says fits WIDTH columns, or one less than a narrower window (its
    prompts are under 50). A capture in Italian names, a pairs banner or
    a shown cirulla hand ran to 85-162 columns and wrapped mid-word in an 80-column terminal (a
    terminal review); long lines now wrap at spaces (play.fit). To a file they stay whole."""
    pytest.importorskip("termios")
    from scopa_env.presets import PRESETS, rules_from_preset
    width = min(play.WIDTH, columns - 1)
    long, whole = {}, 0
    for key in PRESETS:
        for italian in (False, True):
            for out in (TerminalOut(columns), io.StringIO()):
                def answer(prompt: str) -> str:      # prompts (50 columns at most) left out
                    assert len(prompt) < 50, prompt
                    return "n" if prompt.startswith("New match?") else "1"
                s = play.PlaySession("random", rules_from_preset(key), 5, input_fn=answer, output=out,
                                     italian=italian)
                assert s.run() == 0
                text = out.getvalue()
                assert "win" in text and text.rstrip().endswith("Ciao!")
                if isinstance(out, TerminalOut):
                    out.close()
                    long.update({line: key for line in text.splitlines() if len(line) > width})
                else:
                    whole += any(len(line) > play.WIDTH for line in text.splitlines())
    assert long == {}
    assert whole > 0        # to a file the long lines were there to wrap


def test_fit_wraps_at_spaces_with_words_whole():
    """play.fit on a terminal: a long line wrapped at spaces, continuation lines indented two more,
    never inside a card's Italian name, an announcement or a short listed item; a short line,
    or any line to a file, as it is."""
    pytest.importorskip("termios")
    out = TerminalOut(200)
    try:
        line = "  " + "Cavallo di bastoni, " * 9 + "end"
        said = play.fit(line, out)
        assert said.split() == line.split() and said != line
        rows = said.splitlines()
        assert all(len(r) <= play.WIDTH for r in rows)
        assert rows[0].startswith("  Cav") and all(r.startswith("    ") and r[4] != " " for r in rows[1:])
        assert play.fit("short", out) == "short" and play.fit(line, io.StringIO()) == line
        # an Italian card name, an announcement and a short item of a ' · ' list stay whole
        said = play.fit("Partner played Asso di denari and took 2 di denari, 7 di spade, Fante di spade   "
                        "*** SCOPA! ***", out).splitlines()
        assert said == ["Partner played Asso di denari and took 2 di denari, 7 di spade, Fante di spade",
                        "  *** SCOPA! ***"]
        said = play.fit("Opponent 2: 0 in hand · took 9 cards · 2 denari · settebello · 1 seven · 0 scope",
                        out).splitlines()
        assert said == ["Opponent 2: 0 in hand · took 9 cards · 2 denari · settebello · 1 seven ·", "  0 scope"]
    finally:
        out.close()


def test_italian_card_names():
    """The names --italian shows (mutation testing: Fante and Cavallo swapped went unseen; only
    the help's 'Fante 8, Cavallo 9, Re 10' was read)."""
    from scopa_env.cards import card_name_it
    assert [card_name_it(parse_card(c)) for c in ("8D", "9S", "10B", "1C", "7D")] == \
        ["Fante di denari", "Cavallo di spade", "Re di bastoni", "Asso di coppe", "7 di denari"]


def test_help_and_quit():
    s, out, script = session(["?", "q"])
    assert s.run() == 0
    text = out.getvalue()
    assert "napola on/off" in text and "7d x 4c 3s" in text
    # the face cards' values (the Italian names hide them), every line within 79 columns (review)
    assert "Fante 8, Cavallo 9, Re 10" in text
    help_lines = text[text.index("  1 2 3 "):text.index("(both start a new match)") + 24].splitlines()
    assert len(help_lines) == 7 and max(map(len, help_lines)) <= 79, help_lines
    assert text.rstrip().endswith("Ciao!")
    assert len(script.prompts) == 2


def test_help_gives_a_15_for_its_capture_example_where_only_15s_capture():
    """7 + 4 + 3 is no 15: the example was an illegal capture in escoba and quindici (review,
    2026-12-07); where both capture (quindici-both) the classic example is still one."""
    from scopa_env.presets import rules_from_preset
    for preset, example in (("escoba", "7d x 5c 3s"), ("quindici", "7d x 5c 3s"), ("quindici-both", "7d x 4c 3s")):
        s, out, _ = session(["?", "q"], rules=rules_from_preset(preset))
        assert s.run() == 0
        assert example in out.getvalue() and "7d x" not in out.getvalue().replace(example, ""), preset


def test_prompt_keeps_the_cards_in_hand_after_help():
    # with 2 cards left, help (which lists the 3 of a deal) used to make the next prompt say 1-3
    s, out, script = session(["1", "?", "q"])
    s.run()
    hand_prompts = [p for p in script.prompts if p.startswith("Your play")]
    assert hand_prompts[1:] == ["Your play (1-2, ? help): "] * 2, hand_prompts


def test_d_switches_card_names():
    s, out, _ = session(["d", "d", "q"])
    s.run()
    screens = out.getvalue().split("Your hand: ")
    assert "♦" in screens[1] or "♥" in screens[1] or "♠" in screens[1] or "♣" in screens[1]
    assert " di " in screens[2].splitlines()[0]
    assert " di " not in screens[3].splitlines()[0]


def test_n_starts_a_new_match_from_the_next_seed():
    s, out, _ = session(["n", "q"], seed=40)
    s.run()
    text = out.getvalue()
    assert "(seed 40)" in text and "Match abandoned." in text and "(seed 41)" in text
    assert s.game.seed == 41
    # 'l' and 'a' start a new match too, and said nothing of the one in play (review)
    s, out, _ = session(["l easy", "a", "l nobody", "l", "", "q"], seed=40)
    s.run()
    text = out.getvalue()
    assert text.count("Match abandoned.") == 2 and "(seed 42)" in text and "(seed 43)" not in text
    assert text.index("Match abandoned.") < text.index("(seed 41)")


@pytest.mark.parametrize("seed", [0, 7, 40])
def test_the_computer_is_not_seeded_with_the_deal(seed):
    """The computer's seed is derived one way from the match's (review: seat 1 was given the
    match seed itself, and Game(rules, bot.seed) dealt the person's hand and the deck)."""
    s, _, _ = session(["q"], seed=seed)
    s.new_match()
    for seat, bot in s.agents.items():
        assert bot.seed != s.game.seed
        twin = Game(s.game.rules, bot.seed)
        assert twin.hand(0) != s.game.hand(0) or twin.table != s.game.table


def test_a_toggles_napola_and_restarts():
    s, out, _ = session(["a", "a", "q"], seed=1)
    s.run()
    text = out.getvalue()
    assert "napola off (seed 1)" in text and "napola on (seed 2)" in text
    assert "napola off (seed 3)" in text
    assert s.rules == Rules() and s.game.rules == Rules()


def test_l_changes_level_or_keeps_it():
    # a bad answer to the question asks again; a bad level typed after l is one error
    s, out, _ = session(["l", "", "l", "no-such-level", "", "l nope.pt", "l", "no", "random", "q"],
                        seed=9)
    s.run()
    text = out.getvalue()
    assert text.count("Level unchanged.") == 2 and text.count("Level (") == 5
    assert "unknown agent 'no-such-level'" in text and "unknown agent 'no'" in text
    assert "checkpoint 'nope.pt' does not exist" in text
    assert "(seed 9)" in text and "(seed 10)" in text      # 'random' started match 2
    assert text.count("=== New match") == 2


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_levels_play_a_short_match(level):
    if level not in REGISTRY:
        pytest.skip(f"level {level!r} is not in agents.REGISTRY yet")
    s, out, _ = session(seed=4, opponent=level, rules=Rules(target=1),
                        input_fn=answer_one_then_no)
    assert s.run() == 0
    assert s.game.match_over
    assert "win the match" in out.getvalue() or "wins the match" in out.getvalue()


JUNK = ["", "   ", "hello", "²", "²d", "١", "1 x ²d", "0", "4", "9", "10", "7", "11d", "7z", "x", "1 x 99d", "1 2",
        "zz 3", "+", ",,", "xx", "ñ", "💥", "1 x", "d d", "ll", "?!", "-1", "1.5", "3 x 1d 1d", "9 c",
        "8 b x 2c 6s"]


def test_bad_input_never_crashes_and_says_something():
    s, out, script = session(JUNK + ["q"], seed=3)
    assert s.run() == 0
    text = out.getvalue()
    assert "'hello' is not a command" in text
    assert "you hold 3 cards: type 1-3" in text
    assert "bad card" in text
    assert "bad card '7z': write rank 1-10 then suit" in text      # a card's error, not a command's
    # a card with a stray space (review)
    assert "or ? for help (a card is written without a space: 9c)" in text
    assert "or ? for help (a card is written without a space: 8b)" in text   # with captures too
    assert s.game.hand_no == 0 and len(s.game.hand(0)) in (2, 3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=12),
    st.sampled_from(["1", "2", "3", "", "?", "d", "n", "a", "l", "random", "y", "7d", "7d x 4c 3s",
                     "10b x", "1 x 1c"]),
    st.from_regex(r"[0-9]{1,2}[dcsbDCSB]( x( [0-9]{1,2}[dcsb]){0,3})?", fullmatch=True)),
    max_size=40))
def test_any_text_never_crashes(lines):
    s, out, _ = session(lines, seed=8)
    assert s.run() == 0
    assert out.getvalue().rstrip().endswith("Ciao!")


def test_parse_move_text():
    assert play.parse_move_text("7d x 4c 3s") == ("7d", ["4c", "3s"])
    assert play.parse_move_text("7d 4c,3s") == ("7d", ["4c", "3s"])
    assert play.parse_move_text("7♦ x 4♥ + 3♠") == ("7D", ["4C", "3S"])
    assert play.parse_move_text("7d") == ("7d", None)
    assert play.parse_move_text("7d x") == ("7d", [])
    with pytest.raises(ScopaError, match=r"^type a card to play$"):
        play.parse_move_text("   ")


# ---- positions: choices, notation, scopa, hand and match end ------------------------------
def choice_position(dealer: int = 1) -> Game:
    g = Game(Rules(), seed=0)
    # 7D takes 4C+3S or 5S+2B; the computer holds re that take nothing here
    return g.setup(hands=[["7D", "1C", "1S"], ["10B", "10C", "10S"]],
                   table=["4C", "3S", "5S", "2B"], deck=["6C", "6S", "6B", "8C", "8S", "8B"],
                   dealer=dealer)


def test_the_turn_screen_says_who_deals():
    """Who deals this hand, as the status line says it: "you deal" only when you do (a mutation
    review: the line's only test read the word "deals")."""
    s, out, _ = session(["q"])
    run_from(s, choice_position())                       # the computer deals: you move first
    assert "hand 1, computer deals · deck 6" in out.getvalue() and "you deal" not in out.getvalue()
    s, out, _ = session(["q"])
    run_from(s, choice_position(dealer=0))               # you deal: the computer moves, then you
    assert "hand 1, you deal · deck 6" in out.getvalue() and "computer deals" not in out.getvalue()


def test_several_captures_are_listed_and_picked():
    s, out, _ = session(["3", "9", "", "7d", "2", "q"])
    run_from(s, choice_position())
    text = out.getvalue()
    assert "7♦ can take:" in text and "1) 2♣  5♠" in text and "2) 3♠  4♥" in text
    assert "type a number 1-2" in text
    assert text.count("7♦ can take:") == 2                  # Enter went back, '7d' asked again
    assert "You played 7♦ and took 3♠  4♥" in text
    assert {parse_card(c) for c in ("7D", "4C", "3S")} <= set(s.game.pile(0))


def test_numbers_longer_than_int_reads_are_answered_not_crashed():
    """int() refuses a string of over 4,300 digits with a ValueError: a pasted long number at
    the move or the capture prompt was a traceback."""
    big = "9" * 5000
    s, out, _ = session([big, "7d", big, "1", "q"])
    run_from(s, choice_position())
    text = out.getvalue()
    assert "you hold 3 cards: type 1-3" in text and "type a number 1-2" in text
    assert "You played 7♦ and took 2♣  5♠" in text


def test_card_notation_with_captures_and_illegal_capture():
    s, out, _ = session(["7d x 4c", "7d x", "1s x 4c", "d", "7d x 4c", "d", "7d x 4c 3s", "q"])
    run_from(s, choice_position())
    text = out.getvalue()
    # the cards as the screen names them, not the engine's codes (it said '7D cannot take 4C')
    assert "illegal capture: 7♦ cannot take 4♥ (legal: 7♦ x 2♣  5♠; 7♦ x 3♠  4♥)" in text
    assert "illegal capture: 7♦ must take something (legal: 7♦ x 2♣  5♠; 7♦ x 3♠  4♥)" in text
    assert "illegal capture: 1♠ cannot take 4♥ (legal: 1♠)" in text
    assert "illegal capture: 7 di denari cannot take 4 di coppe (legal: 7 di denari x 2 di " in text
    assert "7D" not in text and "4C" not in text
    assert "You played 7♦ and took 3♠  4♥" in text
    assert set(s.game.pile(0)) >= {parse_card(c) for c in ("7D", "4C", "3S")}


def test_index_with_captures():
    s, out, _ = session(["3 x 5s 2b", "q"])
    run_from(s, choice_position())
    assert "You played 7♦ and took 2♣  5♠" in out.getvalue()


def test_scopa_is_announced():
    g = Game(Rules(), seed=0).setup(hands=[["7D", "1C"], ["10B", "10C"]], table=["4C", "3S"],
                                    deck=["6C", "6S"], dealer=1)
    s, out, _ = session(["7d", "q"])
    run_from(s, g)
    assert "You played 7♦ and took 3♠  4♥   *** SCOPA! ***" in out.getvalue()
    assert "1 scopa" in out.getvalue()


def end_position(scores=(0, 0), rules=None) -> Game:
    g = Game(rules or Rules(napola=True), seed=0)
    # last two plays of a hand: you take 7C with 7B, the computer lays 5C, the table goes to you
    return g.setup(hands=[["7B"], ["5C"]], table=["7C", "9S"],
                   piles=[["1D", "2D", "3D", "4D", "7D", "6D", "7S", "1C"], ["8D", "10C", "2S"]],
                   deck=[], dealer=1, scores=list(scores), last_capturer=1)


def test_end_of_hand_scoring_line_by_line():
    s, out, _ = session(["1", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    text = out.getvalue()
    lines = s.game.hand_score()
    assert "Cards left on the table (5♥  9♠) go to you." in text
    block = text.split("Hand 1 score")[1].split("Match:")[0]
    for key, label in play.SCORE_LINES:
        row = next(line for line in block.splitlines() if line.strip().startswith(label))
        assert row.split()[1:3] == [str(lines[0][key]), str(lines[1][key])], row
    assert lines[0]["napola"] == 4 and lines[0]["settebello"] == 1
    total_row = next(line for line in block.splitlines() if "hand total" in line)
    assert total_row.split()[2:4] == [str(lines[0]["total"]), str(lines[1]["total"])]
    assert f"Match: you {s.game.scores[0]}, computer {s.game.scores[1]} (to 11)" in text
    assert "Enter for the next hand" in text
    # each side's detail in its own place (a review: the denari or primiera detail reversed passed)
    for label, detail in (("cards", "(12 - 3)"), ("denari", "(6 - 1)"), ("primiera", "(84 - none)")):
        row = next(line for line in block.splitlines() if line.strip().startswith(label))
        assert row.endswith("   " + detail), row


def test_enter_goes_on_to_the_next_hand():
    s, out, _ = session(["1", "", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    assert "--- Hand 2:" in out.getvalue() and s.game.hand_no == 1


def test_between_hands_the_commands_work():
    """At 'Enter for the next hand', n went on to the next hand though help says it starts a
    new match (review); ? and d answer and ask again, a number still goes on."""
    s, out, _ = session(["1", "?", "d", "n", "q"], rules=Rules(napola=True), seed=20)
    run_from(s, end_position())
    text = out.getvalue()
    assert "  Enter  next hand · n  new match · l  level · a  napola on/off · d  names · q  quit" in text
    assert "card names: Italian" in text and "Match abandoned." in text
    assert s.game.seed == 21 and s.game.hand_no == 0 and "--- Hand 2:" not in text
    s, out, _ = session(["1", "a", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    assert not s.rules.napola and "Match abandoned." in out.getvalue()
    s, out, _ = session(["1", "7", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    assert "--- Hand 2:" in out.getvalue() and s.game.hand_no == 1


def test_match_end_winner_and_offer():
    s, out, _ = session(["1", "maybe", "y", "q"], rules=Rules(napola=True), seed=20)
    run_from(s, end_position(scores=(10, 3)))
    text = out.getvalue()
    assert s.game.seed == 21                                 # 'y' started the next match
    assert "*** You win the match" in text
    assert "answer y or n" in text and "(seed 21)" in text


def test_match_end_no_quits():
    s, out, _ = session(["1", "n"], rules=Rules(napola=True))
    assert run_from(s, end_position(scores=(10, 3))) == 0
    assert out.getvalue().rstrip().endswith("Ciao!")


class IllegalAgent(RandomAgent):
    def act(self, observation):
        return 0 if not observation["action_mask"][0] else 1


def test_illegal_computer_move_is_reported_not_replaced():
    s, out, _ = session(["1"] * 5)
    s.agent = IllegalAgent(Rules(), 0)
    g = Game(Rules(), 0).setup(hands=[["7D"], ["5C", "1B"]], table=["9S"], deck=["2C", "3C"],
                               dealer=0)
    with pytest.raises(ScopaError, match="the computer .* chose an illegal move"):
        run_from(s, g)


def test_default_opponent(tmp_path, monkeypatch):
    monkeypatch.setattr(play, "DEFAULT_CHECKPOINT", tmp_path / "scopa-default.pt")
    assert play.default_opponent() == play.FALLBACK_LEVEL == "normal"
    (tmp_path / "scopa-default.pt").write_bytes(b"x")
    assert play.default_opponent() == str(tmp_path / "scopa-default.pt") + ":search=9000"
    assert play.opponent_label(play.default_opponent()) == "scopa-default.pt:search=9000"
    assert play.opponent_label(str(tmp_path / "x.pt")) == "x.pt"
    assert play.opponent_label("hard:infer=true") == "hard:infer=true"
    # a name= option is the name (game records use it): the banner showed the spec as typed
    assert play.opponent_label(f"{play.default_opponent()},name=champion") == "champion"
    assert play.opponent_label(str(tmp_path / "x.pt") + ":name=v1:best") == "v1:best"
    # a level typed in another case is shown by its name, as it plays (`l` then ' HARD': 'HARD')
    assert play.opponent_label("HARD") == "hard" and play.opponent_label("Hard:infer=true") == "hard:infer=true"
    assert play.opponent_label("Zorro") == "Zorro"


def test_main_reports_bad_opponent(capsys):
    assert play.main(["--opponent", "nope", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("play.py: error: unknown agent 'nope'") and err.count("\n") == 1
    for empty in ("", " "):     # used to play the default shipped agent without a word
        assert play.main(["--opponent", empty, "--seed", "1"]) == 2
        out, err = capsys.readouterr()
        assert err == "play.py: error: --opponent needs an agent: easy, normal, hard, random or a .pt checkpoint\n"
        assert out == ""
        # --partner's own words, as evaluate.py's (it was "unknown agent ''")
        assert play.main(["--rules", "pairs", "--partner", empty, "--seed", "1"]) == 2
        out, err = capsys.readouterr()
        assert (out, err) == ("", "play.py: error: --partner needs an agent: got an empty value\n")


def test_terminal_without_suit_symbols_falls_back_to_italian_names():
    r = subprocess.run([sys.executable, "play.py", "--opponent", "random", "--seed", "1"],
                       input="d\n1\nq\n", capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONIOENCODING": "ascii"}, encoding="ascii",
                       errors="replace")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert " di " in r.stdout.split("Your hand: ")[1].splitlines()[0]


def test_unusable_shipped_agent_is_announced_then_the_fallback_level_plays(tmp_path, monkeypatch,
                                                                             capsys):
    bogus = tmp_path / "scopa-default.pt"
    bogus.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(play, "DEFAULT_CHECKPOINT", bogus)
    monkeypatch.setattr(play, "FALLBACK_LEVEL", "random")
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play.main(["--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The shipped agent cannot play here (")
    assert "you play the random level instead" in out and "against random" in out
    # named explicitly, the same checkpoint is an error (exit 2), not replaced
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play.main(["--opponent", str(bogus), "--seed", "1"]) == 2
    assert capsys.readouterr().err.startswith("play.py: ")


def test_long_italian_tables_wrap_between_card_names():
    s, _, _ = session([])
    s.italian = True
    cards = [parse_card(c) for c in ("1B", "2B", "3S", "4C", "5S", "6D", "8C", "8S", "9B", "10D")]
    lines = s.wrapped("Table:     ", cards).splitlines()
    assert len(lines) > 1 and all(len(line) <= play.WIDTH for line in lines)
    names = " ".join(line.strip() for line in lines).removeprefix("Table: ").strip().split(", ")
    assert names == [play.card_name_it(c) for c in cards]


def untrained_checkpoint(path: Path, rules: Rules) -> Path:
    """A real checkpoint file (small untrained network): play.py's path to learned agents."""
    torch = pytest.importorskip("torch")
    from agents.checkpoint import base_dict, save_atomic
    from agents.network import MoveScorer, model_config

    torch.manual_seed(0)
    model = MoveScorer(hidden=16)
    return save_atomic(base_dict("dmc", model_config(model), model.state_dict(), {},
                                 rules.to_dict()), path)


def test_checkpoint_opponent_plays_a_match_and_refuses_other_rules(tmp_path):
    ckpt = untrained_checkpoint(tmp_path / "tiny.pt", Rules(target=1))
    lines = iter(["a"])                       # napola on: the checkpoint was trained without it

    def answer(prompt):
        if prompt.startswith("New match?"):
            return "n"
        return next(lines, "1")

    s, out, _ = session(seed=6, opponent=str(ckpt), rules=Rules(target=1), input_fn=answer)
    assert s.run() == 0
    text = out.getvalue()
    assert "against tiny.pt" in text and "was trained for rules" in text
    assert s.rules == Rules(target=1) and text.count("=== New match") == 1
    assert s.game.match_over and "the match" in text.split("hand total")[-1]


# ---- other rules: 3 players, pairs with a partner ------------------------------------------
def test_pairs_screen_shows_partner_opponents_and_side_scores():
    s, out, _ = session(["q"], seed=3, rules=rules_from_preset("six-players"))
    s.run()
    text = out.getvalue()
    assert "New match of six-players to 21 with your partner (random) against random" in text
    for part in ("Us: 0 · Side B: 0 · Side C: 0 (to 21)", "Partner:", "Opponent B1:", "Opponent C2:",
                 "You took:", "Us (you + partner) together:", "Side C together:",
                 "Your turn (then ", "Your hand: 1) "):
        assert part in text, part
    assert set(s.agents) == {1, 2, 3, 4, 5} and len({id(a) for a in s.agents.values()}) == 5


def test_pairs_match_scores_each_side_and_partner_follows_the_level():
    rules = rules_from_preset("pairs").replace(target=1)
    s, out, _ = session(seed=8, opponent="easy", rules=rules, input_fn=answer_one_then_no)
    s.partner = None
    assert s.run() == 0
    text = out.getvalue()
    g = s.game
    assert g.match_over and text.count("hand total") == g.hand_no + 1
    header = text.split("Hand 1 score")[1].splitlines()[0]
    assert "Us" in header and "Them" in header
    assert "Match: Us: " in text and ("You and your partner win" in text or "They win" in text)
    # each side's numbers in its own column, in a hand the sides score unequally (a review:
    # every side's match total as side 0's, or the hand totals reversed, passed)
    g = Game(rules.replace(target=21), seed=0).setup(
        hands=[["1B"], ["2B"], ["9B"], ["4B"]], table=["10S"],
        piles=[["7D", "1D", "2D", "3D", "4D", "5D", "6D"], ["8S"], ["7C", "7S", "1C", "2C", "3C", "4C"], ["9S"]],
        scope=[1, 0, 2, 0], deck=[], dealer=3, scores=[5, 8], last_capturer=0)
    s, out, _ = session(["1", "q"], seed=8, opponent="easy", rules=rules.replace(target=21))
    run_from(s, g)
    lines, block = s.game.hand_score(), out.getvalue().split("Hand 1 score")[1]
    total_row = next(line for line in block.splitlines() if "hand total" in line)
    assert total_row.split()[2:] == [str(ln["total"]) for ln in lines] and lines[0]["total"] != lines[1]["total"]
    assert f"Match: Us: {s.game.scores[0]}, Them: {s.game.scores[1]} (to 21)" in block
    assert s.game.scores[0] != s.game.scores[1]
    # the details are the sides' pooled piles, and the napola's row is left out while it is off
    for label, detail in (("cards", "(18 - 2)"), ("denari", "(7 - 0)"), ("primiera", "(79 - none)")):
        row = next(line for line in block.splitlines() if line.strip().startswith(label))
        assert row.endswith("   " + detail), row
    assert "  napola " not in block
    s2, _, _ = session(["l", "normal", "q"], seed=1, rules=rules)
    s2.run()
    assert {type(a).__name__ for a in s2.agents.values()} == {"NormalAgent"}
    s3 = play.PlaySession("random", rules, 1, input_fn=Script(["l", "normal", "q"], io.StringIO()),
                          output=io.StringIO(), partner="easy")
    s3.run()
    assert type(s3.agents[2]).__name__ == "EasyAgent" and type(s3.agents[1]).__name__ == "NormalAgent"



def test_three_players_new_deal_count_and_who_takes_the_table_left():
    """With 3 players the new deal's deck count is the deck's, and the cards left at the hand's
    end go to the seat that captured last, named (a review: neither was checked)."""
    r = rules_from_preset("three-players")
    hands, piles = [["1B"], ["2B"], ["9B"]], [["1D"], ["2D"], ["3D"]]      # nothing captures
    deck = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "4S", "5S", "6S", "7S"]
    s, out, _ = session(["1", "q"], seed=8, opponent="easy", rules=r)
    run_from(s, Game(r, seed=0).setup(hands=hands, table=["10S"], piles=piles, deck=deck, dealer=2,
                                      last_capturer=2))
    assert "New deal: 3 cards each, 3 left in the deck." in out.getvalue() and s.game.deck_left == 3
    for capturer in (1, 2):
        s, out, _ = session(["1", "q"], seed=8, opponent="easy", rules=r)
        run_from(s, Game(r, seed=0).setup(hands=hands, table=["10S"], piles=piles, dealer=2,
                                          last_capturer=capturer))
        assert f"Cards left on the table (1♣  2♣  9♣  10♠) go to Computer {capturer}." in out.getvalue()
        assert len(s.game.pile(capturer)) == 5


def test_many_seat_lines_of_a_match():
    """Lines the 3-6 player screens write apart from the 2-player ones (a review: each could go
    wrong unseen): the hand's banner names the dealer and the first to play, the table dealt is
    shown when another seat plays first, a 3-player win is the person's alone, and a pairs
    napoleone is 'We took'; and escoba's dealer sweep names no joker."""
    r3 = Rules(players=3)
    s, out, _ = session(["q"], seed=0, rules=r3)       # Computer 1 deals, Computer 2 leads
    s.run()
    text = out.getvalue()
    assert "--- Hand 1: Computer 1 deals, Computer 2 plays first ---" in text
    assert text.index("Table dealt: 1♦  5♦  9♣  10♣") > text.index("--- Hand 1:")
    s, out, _ = session(["q"], seed=2, rules=rules_from_preset("six-players"))
    s.run()
    assert "--- Hand 1: Partner deals, Opponent B2 plays first ---" in out.getvalue()
    # escoba has no joker: its dealer's sweep names no card "as a 7"
    s, out, _ = session(["q"], seed=203, opponent="easy", rules=rules_from_preset("escoba"))
    s.run()
    assert "The table dealt (6♠  7♥  8♠  9♥) sums to 30: the computer takes it, 2 scope." in out.getvalue()
    g = Game(r3, seed=0).setup(hands=[["7B"], ["2C"], ["3S"]], table=["7C"],
                               piles=[["1D", "2D", "3D", "4D", "5D", "6D", "7D"], ["8S"], ["9S"]],
                               dealer=2, scores=[10, 3, 4], last_capturer=0)
    s, out, _ = session(["1", "n"], seed=8, opponent="easy", rules=r3)
    run_from(s, g)
    assert "*** You win the match with 15 (Computer 1: 3, Computer 2: 4)! ***" in out.getvalue()
    pairs = rules_from_preset("pairs").replace(napoleone="ten")
    denari = [f"{r}D" for r in range(1, 11)]
    g = Game(pairs, seed=0).setup(hands=[["1B"], ["2B"], ["9B"], ["4B"]], table=["10S"],
                                  piles=[denari, ["8S"], ["7C"], ["9S"]], dealer=3, last_capturer=0)
    s, out, _ = session(["1", "q"], seed=8, opponent="easy", rules=pairs)
    run_from(s, g)
    assert "Napoleone: We took all ten denari." in out.getvalue()


def shown_cards_and_the_joker_said(s, out):
    """An input_fn for whole matches: at each of the person's turns, every computer seat's line
    says the cards it showed with a hand bonus and still holds, and the joker's line is there
    while the joker holds another value on the table or in the person's hand."""
    from scopa_env.cards import parse_card
    joker = parse_card("7C")
    state = {"seen": 0, "shown": 0, "joker": 0}

    def answer(prompt: str) -> str:
        text, state["seen"] = out.getvalue()[state["seen"]:], len(out.getvalue())
        if prompt.startswith("Your play") or prompt.startswith("Your turn"):
            screen, g = text[text.rindex("\n--- "):], s.game
            for seat in range(1, g.n_players):
                line = next(ln for ln in screen.splitlines() if ln.startswith(s.seat_name(seat) + ":"))
                assert ("(shown: " in line) == bool(g.shown(seat)), (seat, line)
                state["shown"] += bool(g.shown(seat))
            told = g.joker_value() != 7 and (joker in g.table or joker in g.hand(0))
            assert ("captures as" in screen) == told, screen
            state["joker"] += told
        return "n" if prompt.startswith("New match?") else "1"
    return answer, state


@pytest.mark.parametrize("rules", [rules_from_preset("cirulla").replace(players=3, target=21),
                                   rules_from_preset("cirulla-pairs").replace(target=21),
                                   rules_from_preset("cirulla").replace(target=21)])
def test_screens_say_the_cards_shown_and_the_jokers_value(rules):
    """cirulla with 2, 3 and 4 players (a review: with 3 or more, dropping a seat's shown cards or
    the joker's line from the screen passed; only the 2-player screen was read), and who shows
    what: the partner's bonus is the partner's (it was said as an opponent's unseen)."""
    out = io.StringIO()
    s = play.PlaySession("easy", rules, 1, output=out)
    s.input_fn, state = shown_cards_and_the_joker_said(s, out)
    assert s.run() == 0 and s.game.match_over
    assert state["shown"] and (state["joker"] or rules.players != 3)   # seed 1: a joker told with 3
    if rules.players == 4:
        assert ("Partner shows 2♣  6♥  7♥ (three cards summing to 9 or less, the 7♥ as an ace): 3 points."
                in out.getvalue())


def test_two_player_lines_a_review_found_unread():
    """The table left goes to 'the computer' (not 'Computer'), a laid card 'stays on the table',
    the napola is marked on the status line, a capotto is not said when the target ended the
    match, and a 2-card hand is 'you hold 2 cards'."""
    g = Game(Rules(), seed=0).setup(hands=[["2B"], ["5C"]], table=["7C", "9S"], piles=[["1D"], ["8D"]],
                                    dealer=1, last_capturer=1)
    s, out, _ = session(["1", "q"], seed=8, opponent="easy")
    run_from(s, g)
    text = out.getvalue()
    assert "Cards left on the table (2♣  5♥  7♥  9♠) go to the computer." in text
    assert "Computer played 5♥ (stays on the table)" in text
    s, _, _ = session([], rules=Rules(napola=True))
    assert screen_at(s, Game(Rules(napola=True), seed=0))[0].endswith(" · deck 30 · napola ---")
    capotto = Rules(napola=True, capotto=2, target=8)
    s, out, _ = session(["1", "q"], rules=capotto)
    run_from(s, end_position(rules=capotto))
    assert s.game.match_over and s.game.scores == [8, 0] and "Capotto" not in out.getvalue()
    s, out, _ = session(["1", "9", "q"], seed=3)       # seed 3: the person plays first
    s.run()
    assert "you hold 2 cards: type 1-2" in out.getvalue()

def test_three_players_and_scopa_d_assi_play_a_whole_match():
    """A whole match of each (the computer's ace taking the table: the next test but one)."""
    for name in ("three-players", "scopa-d-assi"):
        rules = rules_from_preset(name).replace(target=1)
        s, out, _ = session(seed=2, opponent="easy", rules=rules, input_fn=answer_one_then_no)
        assert s.run() == 0 and s.game.match_over
        text = out.getvalue()
        assert f"New match of {name} to 1" in text and "hand total" in text


def test_partner_needs_pairs():
    with pytest.raises(ScopaError, match="partner.*pairs"):
        play.PlaySession("random", Rules(), 1, partner="easy", output=io.StringIO())


def test_computer_ace_takes_the_table_is_decoded_with_the_table():
    rules = rules_from_preset("scopa-d-assi")
    s, out, _ = session(["1", "q"], seed=1, opponent="easy", rules=rules)
    g = Game(rules, seed=1).setup([["2B"], ["1D"]], ["5C", "7S"], dealer=0, to_move=1)
    assert run_from(s, g) == 0
    text = out.getvalue()
    assert "Computer played 1♦ and took 5♥  7♠\n" in text      # no scopa: ace_scopa is off


def test_without_torch_the_clis_say_what_to_install(tmp_path):
    # a core install (`pip install -e .`, no [train] extra) has no torch: play.py plays the
    # normal level and says why, evaluate.py and train.py give one error naming what to install
    block = "import sys, runpy; sys.modules['torch'] = None; sys.argv = {argv!r}; " \
            "runpy.run_path({script!r}, run_name='__main__')"
    root = Path(play.__file__).resolve().parent

    def run(script, *argv, stdin=""):
        code = block.format(argv=[script, *argv], script=str(root / script))
        return subprocess.run([sys.executable, "-c", code], cwd=root, input=stdin, text=True,
                              capture_output=True, timeout=300)

    r = run("play.py", "--seed", "1", stdin="q\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith("The shipped agent cannot play here (") and "needs torch" in r.stdout
    assert "against normal" in r.stdout
    r = run("evaluate.py", "--agent", str(root / "checkpoints" / "scopa-default.pt"), "--opponent",
            "easy", "--matches", "2")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "needs torch" in r.stderr, r.stderr
    r = run("train.py", "--checkpoints-dir", str(tmp_path / "c"), "--runs-dir", str(tmp_path / "r"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "training needs torch, which is not installed" in r.stderr
    assert not (tmp_path / "c").exists() and not (tmp_path / "r").exists()
    # the benchmark that takes a checkpoint too (a traceback from torch's import: review)
    r = run("benchmarks/hand_value.py", "--agent", str(root / "checkpoints" / "scopa-default.pt"),
            "--matches", "4")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "needs torch" in r.stderr, r.stderr


def test_slow_computer_move_says_so(monkeypatch):
    # the first game after an install compiles the engine (about a minute): never silence
    class Slow(RandomAgent):
        def act(self, observation):
            time.sleep(0.3)
            return super().act(observation)

    s, out, _ = session(["q"], seed=4)          # seed 4: the computer plays first
    s.agents = {1: Slow(Rules(), 0)}
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 0.05)
    s.run()
    assert play.THINKING in out.getvalue()
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 5.0)     # a quick move: no line
    s, out, _ = session(["q"], seed=4)
    s.run()
    assert play.THINKING not in out.getvalue()


def test_a_slow_start_says_so_before_the_first_screen(monkeypatch):
    """Building the computer players compiles the kernels they use on a first start: the
    terminal stayed blank for 13 to 28 s before any line (a timing review). A slow build says
    why; the first thinking notice after it is then the short one. A quick build says nothing."""
    def slow_agent(spec, rules, seed):
        time.sleep(0.3)
        return RandomAgent(rules, seed)

    class Slow(RandomAgent):
        def act(self, observation):
            time.sleep(0.3)
            return super().act(observation)

    monkeypatch.setattr(play, "THINKING_NOTICE_S", 0.05)
    monkeypatch.setattr(play, "make_agent", slow_agent)
    s, out, _ = session(["q"], seed=4)          # seed 4: the computer plays first
    assert out.getvalue() == play.LOADING + "\n"
    s.agents = {1: Slow(Rules(), 0)}
    s.run()
    assert play.THINKING_AGAIN in out.getvalue() and play.THINKING not in out.getvalue()
    monkeypatch.undo()
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 5.0)
    s, out, _ = session(["q"], seed=4)
    assert out.getvalue() == ""


def test_a_slow_build_in_play_or_of_the_partner_says_so(monkeypatch, capsys):
    """A level typed in play (l) and main's own build of --partner compile on a cold cache as
    the start-up does, and left the terminal silent (review): each says so, the long notice
    only the first time."""
    def slow_agent(spec, rules, seed):
        time.sleep(0.3)
        return RandomAgent(rules, seed)

    s, out, _ = session(["q"], seed=4)
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 0.05)
    monkeypatch.setattr(play, "make_agent", slow_agent)
    assert s.change_level("easy") and out.getvalue().startswith(play.LOADING + "\n")
    out.truncate(0)
    out.seek(0)
    assert s.change_level("easy") and out.getvalue().startswith(play.LOADING_AGAIN + "\n")
    out.truncate(0)
    out.seek(0)
    assert s.change_rules(Rules(napola=True))
    assert out.getvalue().startswith(play.LOADING_AGAIN + "\n")

    # pairs with --partner: main builds the partner first (its own error first), and says why
    # it waits there; the session's build after it says the short notice, not the long one again
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play.main(["--rules", "pairs", "--partner", "easy", "--opponent", "easy",
                      "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(play.LOADING + "\n" + play.LOADING_AGAIN + "\n"), text[:300]
    assert text.count(play.LOADING) == 1


def test_the_thinking_notice_shows_during_a_long_search(monkeypatch):
    """The notice is printed by a timer thread, which the hard level's compiled search kept
    waiting (it held the GIL) until the search was over: at 100,000 worlds it came after ten
    seconds, with the move (review). It must come while the search runs, not as it ends."""
    hard = make_agent("hard:worlds=8000", Rules(), 1)        # about half a second a move here
    times = {}

    class Watched:
        def __getattr__(self, name):        # reset and the rest: the hard agent's
            return getattr(hard, name)

        def act(self, observation):
            times["start"] = time.perf_counter()
            action = hard.act(observation)
            times["end"] = time.perf_counter()
            return action

    g = Game(Rules(), seed=4)
    hard.act(g.observation(g.to_move))                       # compiled before the timed move
    s, out, _ = session(["q"], seed=4)                       # seed 4: the computer plays first
    s.agents = {1: Watched()}
    notice = s._thinking_notice

    def timed_notice():
        times["notice"] = time.perf_counter()
        notice()
    s._thinking_notice = timed_notice
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 0.05)
    s.run()
    assert play.THINKING in out.getvalue()
    # held back, it came a fraction of a millisecond before the search's end; judged against
    # the same move's own time (a move timed apart from it, which load slowed, once took twice
    # as long as the move under test: review), so load only lengthens the move and widens the margin
    move = times["end"] - times["start"]
    assert times["notice"] - times["start"] < move / 2, (times, move)


def test_the_screen_is_flushed_before_the_computer_thinks():
    """Piped (`python play.py | tee log`) the output is block-buffered: during the first move's
    compile (a minute) not even the match's first lines showed (review). Each line is flushed."""
    class Buffered(io.StringIO):
        shown = ""

        def flush(self):
            self.shown = self.getvalue()

    seen = []

    class Watching(RandomAgent):
        def act(self, observation):
            seen.append(out.shown)
            return super().act(observation)

    out = Buffered()
    s = play.PlaySession("random", Rules(), 4, input_fn=Script(["q"], out), output=out)
    s.agents = {1: Watching(Rules(), 0)}                     # seed 4: the computer plays first
    s.run()
    assert len(seen) == 1 and "=== New match" in seen[0] and seen[0] == out.getvalue()[:len(seen[0])]


def test_primiera_detail_says_none_only_without_four_suits():
    """Under figures0 a pile of figures in all four suits is worth 0 and still counts (with 3 or
    more sides it can take the point): it was shown as 'none'."""
    figures = [parse_card(c) for c in ("8D", "9C", "10S", "8B")]
    three_suits = [parse_card(c) for c in ("7D", "7C", "7S")]
    assert play.primiera_detail([figures, three_suits], "figures0") == "0 - none"
    assert play.primiera_detail([figures, three_suits], "standard") == "40 - none"


def test_the_thinking_notice_thread_is_quiet_when_the_reader_has_gone():
    """`python play.py | head -1`: the notice of a slow computer move is printed from a timer
    thread, which printed a BrokenPipeError traceback of its own; the main thread ends quietly."""
    class Gone(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    s = play.PlaySession("random", Rules(), 3, input_fn=lambda _: "q", output=Gone())
    s._thinking_notice()         # raised BrokenPipeError
    s.out = io.StringIO()
    s._thinking_notice()
    assert s.out.getvalue() == play.THINKING + "\n"


def test_quitting_after_a_computer_move_exits_cleanly():
    """The 'thinking' timer of a computer move was cancelled but not joined: a timer thread still
    alive when the interpreter ended aborted play.py about one quit in two with the shipped agent
    ('terminate called without an active exception', exit 134). No timer outlives its move."""
    s, _, _ = session(["q"], seed=4)          # seed 4: the computer plays first
    s.new_match()
    s.computer_turn()
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
    for _ in range(6):     # the output to /dev/null, where it aborted (into a pipe it rarely did)
        r = subprocess.run([sys.executable, "play.py", "--seed", "7"], input="1\n?\nq\n",
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                           timeout=300, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        assert r.returncode == 0 and r.stderr == "", (r.returncode, r.stderr)


def test_pile_summary_counts_in_the_singular_and_plural():
    """'1 denari' read as the plural: one denaro, as one card, one seven, one scopa."""
    one = [parse_card(c) for c in ("7D",)]
    assert play.pile_summary(one, 1) == "1 card · 1 denaro · settebello · 1 seven · 1 scopa"
    two = [parse_card(c) for c in ("7D", "2D")]
    assert play.pile_summary(two, 2) == "2 cards · 2 denari · settebello · 1 seven · 2 scope"


def test_napola_toggle_against_the_default_opponent_falls_back_and_comes_back():
    """'a' against the shipped agent (trained for the classic rules) only printed the checkpoint's
    error and napola stayed off; as at start-up, the fallback level plays napola, and the shipped
    agent comes back with the classic rules. An opponent named by the person is not replaced."""
    pytest.importorskip("torch")
    if not play.DEFAULT_CHECKPOINT.is_file():
        pytest.skip("no shipped checkpoint")
    s, out, _ = session(["a", "a", "q"], seed=3, opponent=play.default_opponent())
    s.implicit_opponent = True
    s.run()
    text = out.getvalue()
    assert "you play the normal level instead" in text
    assert "against normal, napola on" in text
    assert text.count("against scopa-default.pt:search=9000, napola off") == 2
    named, out, _ = session(["a", "q"], seed=3, opponent=play.default_opponent())
    named.run()
    assert "was trained for rules classic" in out.getvalue() and not named.rules.napola


def test_lines_the_terminal_cannot_decode_are_answered_not_a_crash():
    """input() raising UnicodeDecodeError (a stray byte, '7♦' typed into an ASCII terminal) ended
    play.py with a traceback; the line is refused and the prompt comes back."""
    lines = iter([UnicodeDecodeError("ascii", b"\xe2", 0, 1, "ordinal not in range"), "q"])

    def read(prompt):
        item = next(lines)
        if isinstance(item, Exception):
            raise item
        return item

    s, out, _ = session(input_fn=read)
    assert s.run() == 0
    assert "could not read that line" in out.getvalue()
    for data, encoding in ((b"7\xe2\x99\xa6\nq\n", "ascii"), (b"\xff\nq\n", "utf-8")):
        r = subprocess.run([sys.executable, "play.py", "--opponent", "easy", "--seed", "3"],
                           input=data, capture_output=True, cwd=ROOT, timeout=300,
                           env={**os.environ, "PYTHONIOENCODING": encoding})
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr


def test_an_ascii_terminal_gets_letters_not_question_marks():
    """Without the suit symbols every '·' and, after 'd', every suit printed as '?' (the help
    command's character): the session writes the notation's letters and '-'."""
    s, out, _ = session(["d", "", "q"], seed=3)
    s.ascii_only = True
    s.run()
    text = out.getvalue()
    assert all(ord(ch) < 128 for ch in text), [ch for ch in text if ord(ch) >= 128]
    assert "You 0 - Computer 0" in text and "Table:     1C  3B  5D  5B" in text


def test_most_sevens_detail_shows_the_rank_that_decided():
    """escopa-15's point went to one side of '2 sevens - 2 sevens' with no reason shown: the
    counts now run to the first rank that differs (core.most_sevens_key's order)."""
    cards = lambda text: [parse_card(c) for c in text.split()]   # noqa: E731
    a, b = cards("7D 7C 6D 6C 6S"), cards("7S 7B 6B 1D")
    assert play.most_sevens_detail([a, b]) == "2 sevens, 3 sixes - 2 sevens, 1 six"
    assert play.most_sevens_detail([cards("7D 1C"), cards("7S 1B")]) == "1 seven - 1 seven"   # a tie
    assert play.most_sevens_detail([cards("7D 8C"), cards("7S 2B")]) == \
        "1 seven, 0 sixes, 0 aces, 0 fives, 0 fours, 0 threes, 0 twos - 1 seven, 0 sixes, 0 aces, 0 fives, 0 fours, 0 threes, 1 two"
    assert play.primiera_detail([a, b], "most_sevens") == "2 sevens, 3 sixes - 2 sevens, 1 six"
    # three sides: the third's missing sevens decided nothing; the sixes between the two leaders
    # did (it stopped at the sevens: '2 sevens - 2 sevens - 0 sevens'; review)
    assert play.most_sevens_detail([cards("7D 7C 6B"), cards("7S 7B"), cards("6D")]) == \
        "2 sevens, 1 six - 2 sevens, 0 sixes - 0 sevens, 1 six"
    assert play.most_sevens_detail([cards("7D 6B"), cards("7S 6C"), cards("6D")]) == \
        "1 seven - 1 seven - 0 sevens"          # the leaders level all the way: nobody
    # the order shown is the engine's: one card of a rank against one of each other rank
    # (play.py keeps its own list for the words; a contributor review)
    from scopa_env import core
    key = {r: core.most_sevens_key(1 << parse_card(f"{r}D")) for r in range(1, 11)}
    engine = sorted(range(1, 11), key=lambda r: -key[r])
    shown = [r for r, _ in play.MOST_SEVENS_ORDER if r is not None]
    assert engine[:len(shown)] == shown and len({key[r] for r in engine[len(shown):]}) == 1
    assert all(key[r] < key[shown[-1]] for r in (8, 9, 10))     # the figures last, together


def test_typed_text_is_echoed_cut_short_and_7h_is_explained():
    s, out, _ = session(["a" * 100000, "6s x " + " ".join(f"{r}{u}" for r in range(1, 11) for u in "dcb"), "q"])
    s.run()
    said = [line for line in out.getvalue().splitlines() if not line.startswith("Your play")]  # not the input
    assert max(len(line) for line in said) < 300      # was 100,070 characters
    assert "(100,000 characters) is not a command" in out.getvalue()
    assert "30 cards named, the table holds" in out.getvalue()
    # a card named twice said "3 cards named, the table holds 2" (review)
    s, out, _ = session(["1 x 1d 1d 2c", "q"], seed=3)
    s.run()
    assert "illegal capture: 1\u2666 is named twice" in out.getvalue()
    # a card with a stray space, in the hand's range too (review)
    s, out, _ = session(["2 c", "99 c", "q"], seed=3)
    s.run()
    assert "(a card is written without a space: 2c)" in out.getvalue()
    assert "99c" not in out.getvalue()
    with pytest.raises(ScopaError, match="\u2665 is C, coppe"):
        play.read_card("7h")


def test_a_tie_reached_in_play_is_said_on_the_screen():
    """The hand ends 11-11 (3 + 8 for you, 11 + 0 for the computer): the screen says another hand
    decides, and one is dealt (the test below calls say_tie itself; this one goes through the
    hand's end as a person sees it)."""
    s, out, _ = session(["1", "", "q"], rules=Rules(napola=True))
    run_from(s, end_position(scores=(3, 11)))
    text = out.getvalue()
    assert s.game.scores == [11, 11] and not s.game.match_over
    assert "Tied at 11: another hand decides." in text
    assert text.index("Tied at 11") > text.index("Hand 1 score") and "Hand 2" in text


def test_a_tie_at_the_target_says_another_hand_decides():
    s, out, _ = session()
    s.game = Game(Rules()).setup(hands=[["1D"], ["2D"]], table=["3D"], scores=[11, 11])
    s.say_tie()
    assert out.getvalue() == "Tied at 11: another hand decides.\n"
    s, out, _ = session()
    s.game = Game(Rules()).setup(hands=[["1D"], ["2D"]], table=["3D"], scores=[12, 11])
    s.say_tie()
    assert out.getvalue() == ""


def test_the_persons_move_is_shown_before_the_thinking_notice(monkeypatch):
    class Slow(RandomAgent):
        def act(self, observation):
            time.sleep(0.3)
            return super().act(observation)

    s, out, _ = session(["1", "q"], seed=3)       # seed 3: the person plays first
    s.agents = {1: Slow(Rules(), 0)}
    monkeypatch.setattr(play, "THINKING_NOTICE_S", 0.05)
    s.run()
    text = out.getvalue()
    assert text.index("You played") < text.index(play.THINKING) < text.index("Computer played")
    assert text.count(play.THINKING) == 1        # the compile note once; later ones are short


def test_napoleone_win_has_no_score_row():
    """Under napoleone "win" the line is always 0 (the match ends instead): no row for it."""
    rules = rules_from_preset("scopone-trentino")
    assert rules.napoleone == "win"
    s, out, _ = session(rules=rules)
    s.new_match()
    g = s.game
    while not g.hand_over:
        g.play_action(g.legal_action_ids()[0])
    s.show_hand_score()
    assert "hand total" in out.getvalue() and "napoleone " not in out.getvalue()


def test_two_player_napoleone_says_why_the_match_ended():
    """Cirulla, 2 players: all ten denari win the match whatever the scores, and the screen ended
    it at 18-41 ('You win the match 18-41!') without a word of why; the screens of 3 or more
    players said it (review)."""
    rules = rules_from_preset("cirulla")
    s, out, _ = session(["1", "", "n"], rules=rules)
    s.new_match()
    denari = [parse_card(f"{r}D") for r in range(1, 11)]
    others = [c for c in range(40) if c not in denari and c != parse_card("9C")]
    s.game.setup(hands=[[parse_card("9D")], []], table=[parse_card("9C")],
                 piles=[[d for d in denari if d != parse_card("9D")] + others[:2], others[2:]],
                 dealer=1, to_move=0, scores=[5, 40], scope=[0, 0])
    s.log = []
    s.loop()
    text = out.getvalue()
    assert "Napoleone: you took all ten denari." in text
    assert text.index("Napoleone: you") < text.index("*** You win the match")


def test_napola_key_with_a_checkpoint_partner_that_cannot_follow_keeps_the_match(tmp_path):
    """Pairs with a checkpoint partner and the default opponent: 'a' (napola on) fell back to the
    normal level for the opponent, then the partner's own refusal ended play.py with exit 2."""
    torch = pytest.importorskip("torch")
    from agents.checkpoint import base_dict, save_atomic
    from agents.network import MoveScorer, model_config
    rules = rules_from_preset("pairs")
    torch.manual_seed(0)
    model = MoveScorer(hidden=16, players=4)
    ckpt = save_atomic(base_dict("dmc", model_config(model), model.state_dict(), {}, rules.to_dict()),
                       tmp_path / "pairs.pt")
    out = io.StringIO()
    s = play.PlaySession(play.FALLBACK_LEVEL, rules, 3, input_fn=Script(["a", "q"], out), output=out,
                         partner=str(ckpt), implicit_opponent=True)
    assert s.run() == 0
    text = out.getvalue()
    assert "was trained for rules pairs" in text and "level instead" not in text
    assert s.rules == rules and text.count("=== New match") == 1


@pytest.mark.parametrize("word", ["quit", "exit", "Q"])
def test_quit_words_at_every_prompt(word):
    """'quit' was 'not a command' at the play prompt, started the next hand at the end-of-hand
    prompt (any other text still does: scripts pipe numbers), and was an unknown agent at the
    level prompt (review)."""
    s, out, _ = session([word, "1"])
    assert s.run() == 0 and out.getvalue().rstrip().endswith("Ciao!") and not s.game.pile(0)
    s, out, _ = session(["1", word, ""], rules=Rules(napola=True))
    assert run_from(s, end_position()) == 0 and s.game.hand_over and "--- Hand 2:" not in out.getvalue()
    s, out, _ = session(["l", word, "easy"])
    assert s.run() == 0 and "unknown agent" not in out.getvalue() and s.opponent == "random"
    # and at the match's end, "New match? (y/n)" (a mutation review: a quit word there was "answer
    # y or n", and the next 'y' started a match)
    s, out, _ = session(["1", word, "y"], rules=Rules(napola=True), seed=20)
    assert run_from(s, end_position(scores=(10, 3))) == 0
    assert out.getvalue().rstrip().endswith("Ciao!") and "answer y or n" not in out.getvalue()
    assert s.game.seed != 21


def test_the_turn_screen_puts_each_sides_score_by_its_name_and_refuses_cards_not_held():
    """A mutation review swapped the two scores on the turn screen, let 0 pick the last listed
    capture, and dropped the screen's own "you don't hold" answer (the engine's words came
    instead), and no test failed."""
    s, out, _ = session(["2d", "7d", "0", "1", "q"])
    # choice_position() with the match at 3 to 8
    g = Game(Rules(), seed=0).setup(hands=[["7D", "1C", "1S"], ["10B", "10C", "10S"]],
                                    table=["4C", "3S", "5S", "2B"], deck=["6C", "6S", "6B", "8C", "8S", "8B"],
                                    dealer=1, scores=[3, 8])
    run_from(s, g)
    text = out.getvalue()
    assert "--- You 3 · Computer 8 (to 11)" in text
    assert "you don't hold 2♦: your hand is" in text
    assert "type a number 1-2" in text and "You played 7♦ and took 2♣  5♠" in text


def test_ascii_terminal_help_and_hints_name_the_suits_once():
    s, out, _ = session(["?", "7h", "q"], seed=3)
    s.ascii_only = True
    s.run()
    text = out.getvalue()
    assert "D denari, C coppe, S spade, B bastoni" in text and "denari D" not in text
    assert "e.g. 7d or 10b\n" in text and "is C, coppe" not in text


def test_free_capture_choice_to_lay_the_card_says_so():
    rules = Rules(free_capture=True)
    s, out, _ = session(["7d", "3", "q"], rules=rules)
    g = Game(rules, seed=1).setup([["7D", "2B"], ["1S"]], ["4C", "3S", "5S", "2C"], dealer=1, to_move=0)
    run_from(s, g)
    text = out.getvalue()
    assert "  3) nothing (it stays on the table)\n" in text and "(empty)" not in text
    assert 0 in s.game.table or parse_card("7D") in s.game.table


@pytest.mark.parametrize("redirect", ["<&-", ">&-"])
def test_closed_standard_stream_is_one_error(redirect):
    r = subprocess.run(f"{sys.executable} play.py --opponent easy --seed 1 {redirect}", shell=True,
                       cwd=ROOT, capture_output=redirect == "<&-", stderr=subprocess.PIPE
                       if redirect == ">&-" else None, timeout=300, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"standard {'input' if redirect == '<&-' else 'output'} is closed" in r.stderr


def test_a_long_level_spec_is_cut_short_and_huge_numbers_are_not_inf():
    """`l` with a pasted 100,000-character spec printed it whole in the error; an option of
    5,000 nines was reported as 'got inf' (int() refuses over 4,300 digits, float() took them)
    (review)."""
    from agents import make_agent
    s, out, _ = session(["l " + "x" * 100000, "l hard:worlds=" + "9" * 5000, "q"])
    s.run()
    said = [line for line in out.getvalue().splitlines() if not line.startswith("Your play")]
    assert max(len(line) for line in said) < 400
    assert "(100,0" in out.getvalue() and "characters)" in out.getvalue()
    assert "an option value of 5,000 digits is no number an option takes" in out.getvalue()
    assert "inf" not in out.getvalue()
    with pytest.raises(ScopaError, match="5,000 digits"):
        make_agent("hard:worlds=" + "9" * 5000)


@pytest.mark.parametrize("seed,said", [(7, "(1\u2666  2\u2666  3\u2666  9\u2660) sums to 15: you take it, 1 scopa."),
                                       (15, "(4\u2663  8\u2666  9\u2666  9\u2665) sums to 30: the computer takes it, 2 scope.")])
def test_the_dealer_sweep_is_said_under_the_hand_banner(seed, said):
    """escoba (dealer_sweep): a first table of 15 or 30 goes to the dealer before the first
    play; the screen said nothing, and showed an empty table with scope already taken."""
    s, out, _ = session(["q"], seed=seed, opponent="easy", rules=rules_from_preset("escoba"))
    s.run()
    text = out.getvalue()
    banner = text.index("--- Hand 1:")
    assert text.index(f"The table dealt {said}") > banner
    assert ("1 scopa" if seed == 7 else "2 scope") in text.split("The table dealt")[1]


@pytest.mark.parametrize("players,seed,said", [(3, 2, "15: Computer 1 takes it, 1 scopa."),
                                               (4, 22, "15: Opponent 1 takes it, 1 scopa."),
                                               (6, 27, "30: Partner takes it, 2 scope.")])
def test_the_dealer_sweep_names_the_dealer_with_more_players(players, seed, said):
    """With 3 or more seats the sweep names the seat that dealt (only the 2-player line was
    tested; review)."""
    s, out, _ = session(["q"], seed=seed, opponent="easy", rules=Rules(dealer_sweep=True, players=players))
    s.run()
    assert f"sums to {said}" in out.getvalue()


def test_cirulla_bonuses_and_the_joker_are_said():
    """cirulla: each declared hand bonus is said with the cards shown and the joker's value,
    the computer's shown cards stay on its line, and the score has the grande and hand bonus
    lines (seed 0: the computer shows 1C 4D 7C with the 7C as an ace, then holds it shown)."""
    s, out, _ = session(seed=0, rules=rules_from_preset("cirulla").replace(target=21),
                        input_fn=answer_one_then_no, opponent="easy")
    assert s.run() == 0
    text = out.getvalue()
    assert "Computer shows 1\u2665  4\u2666  7\u2665 (three cards summing to 9 or less, the 7\u2665 as an ace): 3 points." in text
    assert "You show 1\u2660  3\u2665  3\u2663 (three cards summing to 9 or less): 3 points." in text
    assert "(shown: 1\u2665  7\u2665; the 7\u2665 as an ace)" in text
    assert "The 7\u2665 captures as an ace until it is taken or this deal ends." in text      # later, in the person's hand
    assert "  grande  " in text and "  hand bonus  " in text
    # beside the grande the napola is the piccola, its name in cirulla (review, 2026-12-07)
    assert "  piccola  " in text and "  napola  " not in text
    # the napoleone wins the match under cirulla: no score row for it (a review: shown as 0 0)
    assert "  napoleone " not in text
    bonuses_said_add_up(text)


def bonuses_said_add_up(text: str) -> None:
    """Each hand's declared bonuses, as said ("You show ...: 3 points."), add up to its score
    table's hand bonus row, each side in its column (a review: a bonus said with the running
    total, or none said after the first hand, passed)."""
    said_hands = 0
    parts = re.split(r"^Hand \d+ score.*$", text, flags=re.M)   # [play of hand 1, table 1 + play of hand 2, ...]
    for k in range(1, len(parts)):
        played = parts[k - 1] if k == 1 else parts[k - 1].split("\nMatch:", 1)[1]
        table = parts[k].split("\nMatch:", 1)[0]
        row = next(line for line in table.splitlines() if line.strip().startswith("hand bonus"))
        points = [int(n) for n in row.split()[2:]]
        said = re.findall(r"^(You show|Computer shows) .*\): (\d+) points\.$", played, re.M)
        for side, who in enumerate(("You show", "Computer shows")):
            assert sum(int(n) for w, n in said if w == who) == points[side], (who, row, said)
        said_hands += bool(said)
    assert said_hands >= 2


def test_the_joker_in_the_dealers_sweep_is_named():
    """cirulla: a first table of 15 or 30 made with the 7 of coppe says what the joker counted
    as (the line read "sums to 15" for cards adding to 13; review)."""
    for seed, said in ((9, "(2\u2665  3\u2660  7\u2665  9\u2660) sums to 15 with the 7\u2665 as an ace: you "
                           "take it, 1 scopa."),
                       (50, "(1\u2660  7\u2665  10\u2666  10\u2665) sums to 30 with the 7\u2665 as a cavallo "
                            "(9): you take it, 2 scope.")):
        s, out, _ = session(["q"], seed=seed, opponent="easy", rules=rules_from_preset("cirulla"))
        s.run()
        assert f"The table dealt {said}" in out.getvalue()


def test_cirulla_shown_joker_with_italian_names_reads_as_the_cards_held():
    """With Italian names the shown line said '(shown: 5 di bastoni, 7 di coppe, 7 di coppe =
    5)': the comma that parts the cards made the joker two of them (review)."""
    out = io.StringIO()
    s = play.PlaySession("easy", rules_from_preset("cirulla"), 169, input_fn=Script(["q"], out), output=out,
                         italian=True)
    s.run()
    text = out.getvalue()
    assert "(shown: 5 di bastoni, 7 di coppe; the 7 di coppe as a 5)" in text, text[-2000:]
    assert "7 di coppe, 7 di coppe" not in text


# ---- review 2026-12-04 ----------------------------------------------------------------------
def test_capturing_cards_not_on_the_table_says_so_and_hints_at_bastoni():
    """`8d x 3c 5c` with 3♣ 5♣ on the table (C typed for the screen's clubs) said '8♦ cannot
    take 3♥ 5♥', as if the cards were there (review)."""
    s, out, _ = session(["7d x 2c 5s", "7d x 4d", "q"])
    run_from(s, choice_position())
    text = out.getvalue()
    assert "illegal capture: 2♥ is not on the table (the screen's ♣ is B, bastoni; C is coppe ♥)\n" in text
    assert "illegal capture: 4♦ is not on the table\n" in text


def test_playing_a_card_typed_c_for_clubs_hints_at_bastoni():
    """`7c` for the screen's 7♣ said only "you don't hold 7♥" (review); the capture's hint is
    given here too, and not where no held card of that rank is bastoni."""
    s, out, _ = session(["7c", "1b", "q"])
    g = Game(Rules(), seed=0)
    run_from(s, g.setup(hands=[["7B", "1C", "1S"], ["10B", "10C", "10S"]],
                        table=["4C", "3S", "5S", "2B"], deck=["6C", "6S", "6B", "8C", "8S", "8D"],
                        dealer=1))
    text = out.getvalue()
    assert "you don't hold 7♥: your hand is 1♥  1♠  7♣ (the screen's ♣ is B, bastoni; C is coppe ♥)\n" in text
    assert "you don't hold 1♣: your hand is 1♥  1♠  7♣\n" in text


def test_the_dealt_table_is_shown_when_others_play_first():
    """When the person deals, the computer's first move came before any table was shown: the
    four cards it chose from were never seen (review). The dealt table is said under the banner
    then, and not when the person plays first (the screen shows it)."""
    for seed, first_is_computer in ((11, True), (12, True), (3, False)):
        s, out, _ = session(["q"], seed=seed, opponent="easy")
        s.run()
        text = out.getvalue()
        g = Game(Rules(), seed=seed)
        dealt = "  ".join(s.name(c) for c in play.by_rank(g.first_table()))
        assert ("you deal" in text.splitlines()[2].lower()) is first_is_computer, text
        if first_is_computer:
            banner = text.index("--- Hand 1:")
            assert text.index(f"Table dealt: {dealt}\n") > banner
            assert text.index(f"Table dealt: {dealt}\n") < text.index("Computer played")
        else:
            assert "Table dealt" not in text


def test_capotto_ending_says_why():
    """A match the capotto ended short of the target showed 'wins the match 5-0' with no
    reason (review)."""
    s, out, _ = session(seed=1, opponent="easy", rules=Rules(capotto=2, target=21),
                        input_fn=answer_one_then_no)
    assert s.run() == 0
    text = out.getvalue()
    g = s.game
    top = max(g.scores)
    assert g.match_over and top < 21 and min(g.scores) == 0
    assert f"Capotto: {top} points against none ends the match (these rules end it at 2 or more " \
           f"against none).\n" in text
    s, out, _ = session(seed=0, rules=Rules(napola=True), input_fn=answer_one_then_no)
    assert s.run() == 0 and "Capotto" not in out.getvalue()


def test_banner_names_the_nearest_preset_and_what_differs():
    """The banner repeated napola and target (`of napola=True, target=15, fewest_cards=True to
    15`) and listed cirulla's every option for one change (review)."""
    assert play.rules_label(Rules(fewest_cards=True, napola=True, target=15)) == "classic with fewest_cards=true"
    assert play.rules_label(rules_from_preset("cirulla").replace(joker=False)) == "cirulla with joker=false"
    assert play.rules_label(rules_from_preset("cirulla").replace(napola=False)) == "cirulla"
    s, out, _ = session(["q"], rules=Rules(fewest_cards=True, napola=True, target=15))
    s.run()
    assert "=== New match of classic with fewest_cards=true to 15 against random, napola on" in out.getvalue()


def test_shipped_agent_under_other_rules_is_one_short_line(capsys, monkeypatch):
    """The fallback notice listed every option cirulla changes (795 characters): review."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play.main(["--rules", "cirulla", "--seed", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == ("The shipped agent plays only classic to 11, napola off; you play the normal "
                     "level instead.")


def test_turn_order_in_the_last_deal_leaves_out_seats_with_no_cards():
    """With 3 players the last round said 'Your turn (then Computer 1, Computer 2)' with
    Computer 2 out of cards: the hand ends first (review). Earlier deals name every seat."""
    rules = Rules(players=3, hand_cards=3, table_cards=4)
    s, out, _ = session(["q"], rules=rules)
    s.new_match()
    g = s.game
    while not (g.deck_left == 0 and g.to_move == 0 and len(g.hand(2)) == 0 and len(g.hand(1)) > 0):
        if g.hand_over:
            g.next_hand() if not g.match_over else pytest.fail("no such turn")
            continue
        m = g.legal_moves()[0]
        g.play(m.card, m.captured)
    out.seek(0), out.truncate(0)
    s.show_state_many()
    assert "Computer 2: 0 in hand" in out.getvalue() and "Your turn (then Computer 1).\n" in out.getvalue()
    s.new_match()       # the first deal: every seat plays after you before your next turn
    while s.game.to_move != 0:
        m = s.game.legal_moves()[0]
        s.game.play(m.card, m.captured)
    out.seek(0), out.truncate(0)
    s.show_state_many()
    assert "Your turn (then Computer 1, Computer 2).\n" in out.getvalue()


# ---- a second mutation review of play.py (2026-12-05): each test failed on a change that the
# rest of this file let through
def _cli(monkeypatch, capsys, stdin, *args, opponent="easy"):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert play.main(["--opponent", opponent, *args]) == 0
    return capsys.readouterr().out


def test_the_banner_the_seed_and_commands_that_only_look_like_one(monkeypatch, capsys):
    """The computer deals, so you play first; --seed 0 is a seed; classic rules to 21 are not
    named as a preset; 'lol' is no level change; '10 b' gets the no-space hint as '1 b' does."""
    out = _cli(monkeypatch, capsys, "lol\n10 b\nq\n", "--seed", "3", "--target", "21")
    assert "=== New match to 21 against easy" in out and "of classic" not in out
    banner = next(line for line in out.splitlines() if line.startswith("--- Hand 1:"))
    assert banner in ("--- Hand 1: Computer deals, you play first ---",
                      "--- Hand 1: You deal, computer plays first ---")
    assert "'lol' is not a command" in out
    assert "(a card is written without a space: 10b)" in out
    assert "(seed 0)" in _cli(monkeypatch, capsys, "q\n", "--seed", "0")


def test_naming_the_whole_table_takes_it():
    """'7d x 3c 4s' names every card on the table: a scopa, not an illegal capture."""
    s, out, _ = session(["7d x 3c 4s", "q"])
    g = Game(Rules(), seed=0)
    g.setup(hands=[["7D"], ["2S"]], table=["3C", "4S"], piles=[["1D", "2D"], ["5B"]], dealer=1, to_move=0)
    run_from(s, g)
    assert "SCOPA" in out.getvalue() and "illegal capture" not in out.getvalue()


def test_the_hand_score_detail_reads_you_then_computer():
    """The end-of-hand detail of the 2-player screen puts your count first, as its columns do,
    and says nothing of cards left on an empty table."""
    s, out, _ = session(["1", "q"])
    g = Game(Rules(), seed=0)
    g.setup(hands=[["4S"], ["7D"]], table=["3C"], piles=[["1D", "2D"], ["5B"]], dealer=1, to_move=0)
    run_from(s, g)
    text = out.getvalue()
    # you lay 4S, the computer's 7D takes 3C 4S (a scopa): you 2 cards, it 4
    assert re.search(r"cards\s+0\s+1\s+\(2 - 4\)", text), text
    assert "Cards left on the table" not in text


def test_an_italian_yes_starts_a_new_match_and_a_pair_wins_in_the_plural():
    """'s' (si) answers yes at 'New match? (y/n)'; 'They win the match', not 'wins'."""
    asked = []

    def fn(prompt):
        if prompt.startswith("New match?"):
            asked.append(prompt)
            return "s" if len(asked) == 1 else "n"
        return "1"
    s, out, _ = session(opponent="easy", rules=Rules(target=1), input_fn=fn)
    s.run()
    assert len(asked) == 2 and out.getvalue().count("=== New match") == 2
    assert "answer y or n" not in out.getvalue()
    rules = rules_from_preset("scopone").replace(target=1)
    for seed in range(20):
        s, out, _ = session(seed=seed, opponent="easy", rules=rules, input_fn=answer_one_then_no)
        s.run()
        if s.game.winner == 1:
            assert "*** They win the match" in out.getvalue()
            break
    else:
        pytest.fail("no match of 20 won by the other pair")


# ---- pinned by a third mutation review (2026-12-05) ---------------------------------------
def test_typed_moves_read_x_and_h_in_either_case_and_three_digits_as_bad_notation():
    """Seed 3's first position: hand 2S 6S 8D, table 1C 3B 5D 5B. 'X' is 'x' (takes nothing, or
    the word before the captures), '8H' gets the coppe hint as '8h' does, '100d' the notation
    help (not 'rank 100 is not in 1..10'), 'h' is help at the turn prompt, and '8 c 3s' is
    hinted as a card with a stray space (that hint was for one suit letter alone; a bad-input
    review found '8 b x 2c 6s' answered "type 1-3" alone, which pointed at the wrong thing)."""
    s, out, _ = session(["100d", "8d X", "8H", "8 c 3s", "h", "8d X 5d 3b", "q"])
    s.run()
    text = out.getvalue()
    assert "bad card '100d': write rank 1-10 then suit D/C/S/B, e.g. 7d or 10b\n" in text
    assert "illegal capture: 8♦ must take something (legal: 8♦ x 3♣  5♦; 8♦ x 3♣  5♣)" in text
    assert "bad card '8H': write rank 1-10 then suit D/C/S/B, e.g. 7d or 10b (the screen's ♥ is C, coppe)" in text
    assert "8 c 3s\n  you hold 3 cards: type 1-3, a card like 7d, or ? for help (a card is " \
        "written without a space: 8c)\n" in text
    assert "h\n  1 2 3           play that card of your hand" in text
    assert "You played 8♦ and took 3♣  5♦" in text


def test_one_card_in_hand_is_number_1_not_1_to_1():
    s, out, script = session(["1", "1", "9", "q"])
    s.run()
    prompts = [p for p in script.prompts if p.startswith("Your play")]
    assert prompts[2:] == ["Your play (1, ? help): "] * 2, prompts
    assert "  you hold 1 card: type 1, a card like 7d, or ? for help\n" in out.getvalue()


def test_l_q_at_the_turn_prompt_names_an_agent_q_and_keeps_playing():
    """'q' alone quits; after 'l' it is the level asked for, an unknown agent, and the match goes
    on (only the Level prompt's own answer reads quit words)."""
    s, out, script = session(["l q", "q"])
    assert s.run() == 0
    text = out.getvalue()
    assert "unknown agent 'q': use easy, hard, normal, random or a path to a checkpoint .pt" in text
    assert [p for p in script.prompts if p.startswith("Your play")] == ["Your play (1-3, ? help): "] * 2


def test_l_keeps_the_case_of_a_checkpoint_path(tmp_path):
    """The spec after 'l' is used as typed: lowercased, a path with capitals was not found."""
    path = untrained_checkpoint(tmp_path / "MyAgent.pt", Rules())
    s, out, _ = session([f"l {path}", "q"])
    s.run()
    text = out.getvalue()
    assert "does not exist" not in text and text.count("=== New match") == 2
    assert s.opponent == str(path)


def test_between_hands_h_is_help_and_an_unchanged_level_asks_again():
    s, out, _ = session(["1", "h", "l", "", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    text = out.getvalue()
    assert "(q quits) h\n  Enter  next hand · n  new match · l  level" in text
    after = text.split("Level unchanged.\n", 1)[1]
    assert after.startswith("Enter for the next hand (q quits) q") and "--- Hand 2:" not in text


def test_a_computer_winning_three_player_match_ends_with_a_full_stop():
    """'!' is for the person's win only (three players, seed 2, always the first card)."""
    def answer(prompt):
        if prompt.startswith("New match"):
            raise EOFError
        return "" if prompt.startswith("Enter for the next") else "1"
    out = io.StringIO()
    play.PlaySession("random", rules_from_preset("three-players"), 2, input_fn=answer, output=out).run()
    assert "*** Computer 2 wins the match with 16 (You: 12, Computer 1: 8). ***" in out.getvalue()


def test_no_in_full_at_the_new_match_offer_quits():
    s, out, _ = session(["1", "no", "y"], rules=Rules(napola=True), seed=20)
    assert run_from(s, end_position(scores=(10, 3))) == 0
    text = out.getvalue()
    assert text.rstrip().endswith("New match? (y/n) no\nCiao!") and text.count("=== New match") == 1


# ---- found by a fourth mutation review of play.py ------------------------------------------------
def test_the_match_after_seed_2_63_minus_1_is_dealt_from_seed_0():
    """Match k is dealt from seed + k, past 2**63-1 from 0 again (the README; seed + 1 was a
    traceback at 'n', and no test failed)."""
    s, out, _ = session(["n", "q"], seed=2**63 - 1)
    assert s.run() == 0
    text = out.getvalue()
    assert f"(seed {2**63 - 1})" in text and "(seed 0)" in text and s.game.seed == 0


def test_a_quit_word_in_capitals_quits_at_the_capture_choice():
    """'Q' quits at 'Which (1-2, Enter to pick another card)?' as at every other prompt (there
    it was not a number, and the next '1' played the capture)."""
    s, out, fn = session(["7d", "Q", "1"])
    assert run_from(s, choice_position()) == 0
    text = out.getvalue()
    assert fn.prompts[-1] == "Which (1-2, Enter to pick another card)? "
    assert text.rstrip().endswith("Ciao!") and "You played" not in text


def test_a_level_chosen_with_l_is_kept_when_napola_is_toggled():
    """The person's choice replaces the default opponent for good: after 'l easy', 'a' played
    the default's fallback (normal) with napola, not easy."""
    pytest.importorskip("torch")
    if not play.DEFAULT_CHECKPOINT.is_file():
        pytest.skip("no shipped checkpoint")
    s, out, _ = session(["l easy", "a", "q"], seed=3)
    s.implicit_opponent = True
    s.run()
    text = out.getvalue()
    assert "against easy, napola on" in text and "instead" not in text and s.opponent == "easy"


def test_three_players_banner_and_an_illegal_move_name_the_computer_seat():
    """With three players the banner says 'against two ... players' and an illegal move names
    the seat that made it ('the computer' passed; mutation-testing review)."""
    rules = Rules(players=3)
    s, out, _ = session(["q"], rules=rules)
    s.run()
    assert "=== New match of three-players to 11 against two random players, napola off (seed 3)." in out.getvalue()
    s, out, _ = session(["1"] * 10, rules=rules)
    s.agents[1] = IllegalAgent(rules, 0)
    with pytest.raises(ScopaError, match=r"^Computer 1 \(random\) chose an illegal move"):
        s.run()


def test_prompts_and_score_headers_as_they_are_laid_out():
    """Texts no test pinned (mutation-testing review): the level prompt's 'Enter keeps', the help
    line for more than three cards dealt, and the score tables' headers over their columns."""
    s, out, fn = session(["l", ""])
    s.run()
    assert "Level (easy, hard, normal, random, or a .pt checkpoint; Enter keeps random): " in fn.prompts
    scopone = rules_from_preset("scopone")
    s, out, _ = session(["?", "q"], rules=scopone)
    s.run()
    assert "  1 2 ... 9       play that card of your hand" in out.getvalue()
    s, out, _ = session(["1"] * 12 + ["q"], rules=scopone)
    s.run()
    assert "\nHand 1 score          Us    Them\n" in out.getvalue()
    s, out, _ = session(["1", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    assert "\nHand 1 score      You  Computer\n" in out.getvalue()


def test_bad_seed_and_partner_options_are_named_as_given(capsys):
    """The errors name '--seed' and pairs' players, and a bad --partner is named before a bad
    --opponent (mutation-testing review); a session made with a partner under three players is
    refused too, not only main's."""
    for args, err in ((["--opponent", "easy", "--seed", "-1"], "--seed must be a whole number 0..2**63-1, got -1"),
                      (["--opponent", "easy", "--partner", "easy", "--seed", "1"],
                       "--partner plays only in pairs (4 or 6 players); these rules have 2 players"),
                      (["--rules", "scopone", "--opponent", "bogus", "--partner", "bogus2", "--seed", "1"],
                       "unknown agent 'bogus2'")):
        assert play.main(args) == 2
        got = capsys.readouterr().err
        assert got.startswith(f"play.py: error: {err}") and got.count("\n") == 1, got
    with pytest.raises(ScopaError, match=r"^a partner plays only in pairs \(4 or 6 players\); these rules have 3 players"):
        play.PlaySession("random", Rules(players=3), 1, partner="easy", output=io.StringIO())


# ---- found by a mutation review of play.py (2026-12-06) ----------------------------------------
def test_the_hand_is_numbered_as_1_to_3_play_it_and_enter_shows_the_table_again():
    """The turn screen numbers the hand in the order '1'-'3' read it (by rank: seed 3's 2S 6S
    8D, where the engine's order is by suit, 8D first); Enter shows the table again, as help
    says. Both could change with no test failing."""
    s, out, _ = session(["1", "q"], seed=3)
    s.run()
    text = out.getvalue()
    assert "Your hand: 1) 2♠   2) 6♠   3) 8♦" in text and "You played 2♠" in text
    s, out, _ = session(["", "q"], seed=3)
    s.run()
    assert out.getvalue().count("Your hand: ") == 2


@pytest.mark.parametrize("word", ["quit", "exit"])
def test_every_quit_word_quits_at_the_capture_choice(word):
    """q, quit and exit quit at every prompt: only 'Q' was tried at 'Which (1-2)'."""
    s, out, _ = session(["7d", word, "1"])
    assert run_from(s, choice_position()) == 0
    text = out.getvalue()
    assert text.rstrip().endswith("Ciao!") and "You played" not in text


def test_between_hands_d_switches_back_help_is_help_and_answers_are_stripped():
    """Between hands: 'd' twice is the compact names again, 'help' is help (not the next hand),
    ' n ' is a new match (not the next hand); at the match's end 'sì', ' y ', 'si' and 'yes'
    are each a yes."""
    s, out, _ = session(["1", "d", "d", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    text = out.getvalue()
    assert "card names: Italian" in text and "card names: compact" in text and s.italian is False
    s, out, _ = session(["1", "help", "q"], rules=Rules(napola=True))
    run_from(s, end_position())
    text = out.getvalue()
    assert "(q quits) help\n  Enter  next hand · n  new match" in text and "--- Hand 2:" not in text
    s, out, _ = session(["1", " n ", "q"], rules=Rules(napola=True), seed=20)
    run_from(s, end_position())
    text = out.getvalue()
    assert "Match abandoned." in text and s.game.seed == 21 and "--- Hand 2:" not in text
    for yes in ("sì", " y ", "si", "yes"):
        s, out, _ = session(["1", yes, "q"], rules=Rules(napola=True), seed=20)
        run_from(s, end_position(scores=(10, 3)))
        assert "answer y or n" not in out.getvalue() and s.game.seed == 21, yes


def test_every_rule_flag_italian_and_a_six_player_partner_reach_the_game(monkeypatch, capsys):
    """Each --rule applies (only the first could have), --italian names the cards in Italian,
    and the six-player pairs game takes a --partner (only scopone's 4 players were tried)."""
    out = _cli(monkeypatch, capsys, "q\n", "--seed", "3", "--rule", "napola=true", "--rule", "target=5",
               opponent="random")
    assert " to 5 against random, napola on (seed 3)" in out, out
    out = _cli(monkeypatch, capsys, "q\n", "--seed", "3", "--italian", opponent="random")
    assert "1) 2 di spade" in out, out
    out = _cli(monkeypatch, capsys, "q\n", "--rules", "six-players", "--partner", "easy", "--seed", "1",
               opponent="random")
    assert "with your partner (easy) against random" in out, out
