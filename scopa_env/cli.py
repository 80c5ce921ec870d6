"""What the command-line scripts share (train.py, evaluate.py, play.py, `python -m
scopa_env.simulate`, benchmarks/): a parser whose errors are one line, and a quiet end when the
reader of their output goes away.

Bad input on the command line is one line `PROG: error: WHAT` and exit code 2 (argparse's own
error prints its whole usage block first: up to 17 lines for train.py's config flags).

SIGTERM (`kill`, `timeout`, a job scheduler) and SIGHUP (a closed terminal or ssh session) take
the Ctrl-C path, so its clean-up runs too: temporary files are discarded (a killed `simulate
--out` left hundreds of MB in a hidden `.NAME.*.tmp`), the last checkpoint stays as it was; the
exit code is then 143 (SIGTERM) or 129 (SIGHUP); one ignored when the script starts (`nohup`'s
SIGHUP) stays ignored. After a hang-up the terminal's writes fail
(EIO): what the script would say there is dropped, not a traceback. Like Ctrl-C they act when
Python next runs, after a compiled call in progress returns, and after a kernel numba is
compiling is compiled (compiles_whole). SIGKILL cannot be caught: it may leave such a temporary
file (never a half-written target). A write that an interrupt would break in a way that is not a
clean KeyboardInterrupt runs under `scopa_env.atomic.deferred_interrupts()`: a Ctrl-C, SIGTERM or
SIGHUP then acts as soon as the write is done.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
import threading

from .atomic import STOP_SIGNALS as _STOP_SIGNALS


_GIVEN = "_flags_given"     # a namespace attribute while parsing: the flags met so far


def flags_given(parser: argparse.ArgumentParser, args, but: str) -> list[str]:
    """The flags given, `but` aside, as the user spells them: a flag that takes a value counts
    when it was typed (Parser.typed), even at its default value (`--rules classic`, `--seed 0`);
    any other flag when its value is not the default."""
    typed = getattr(parser, "typed", frozenset())
    return [a.option_strings[0] for a in parser._actions
            if a.option_strings and a.dest not in (but, "help")
            and (a.dest in typed or getattr(args, a.dest, a.default) != a.default)]


def first_repeat(values, key=lambda v: v) -> tuple | None:
    """The first two of `values` that `key` reads as one (a list option naming a value twice),
    or None."""
    seen: dict = {}
    for v in values:
        k = key(v)
        if k in seen:
            return seen[k], v
        seen[k] = v
    return None


def _preset_as_named(text: str) -> str:
    """--rules as the preset's own name (`' Scopone'` -> `scopone`): the scripts' lines and
    evaluate.py's JSON showed it as typed (left alone at earlier stops). An unknown name stays as
    it is, for rules_from_flags to refuse."""
    from .presets import PRESETS, preset_key
    key = preset_key(text)
    return PRESETS[key].name if key in PRESETS else text


def add_rules_flags(parser: argparse.ArgumentParser) -> None:
    """The rules flags of the scripts that play matches (evaluate.py, play.py, `python -m
    scopa_env.simulate`): --rules PRESET, --list-rules, --napola, --target T and --rule
    OPTION=VALUE, which `scopa_env.presets.rules_from_flags` turns into Rules. train.py names the
    rules in its config instead (`--set rules...`, `--rules`, `--rule` among its config flags)."""
    parser.add_argument("--rules", default="classic", metavar="PRESET", type=_preset_as_named,
                        help="rules preset (classic; scopone, pairs, ...: see --list-rules), default classic")
    parser.add_argument("--list-rules", action="store_true", help="list the rules presets and exit")
    parser.add_argument("--napola", action="store_true", help="score the napola (on top of the preset)")
    parser.add_argument("--target", type=int, default=None,
                        help="points that end a match (default: the preset's, 11 for classic)")
    parser.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                        help="set one rules option (scopa_env.rules.Rules, e.g. fewest_cards=true, "
                             "napola=false); repeat for several")


def list_rules_alone(parser: argparse.ArgumentParser, args) -> None:
    """--list-rules with another flag is a parser error: the other was ignored without a word,
    a bad value included (review)."""
    other = flags_given(parser, args, "list_rules")
    if other:
        parser.error(f"--list-rules lists the rules presets and does nothing else: drop {', '.join(other)}")


class Once(argparse.Action):
    """A flag that takes a value, given twice: an error (argparse kept the last one silently,
    so `--opponent easy --opponent hard` played hard without a word)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given:
            parser.error(f"{option_string} given twice: {given[self.dest]!r} and {values!r}")
        given[self.dest] = values
        setattr(namespace, self.dest, self.const if values is None else values)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block) and exit code 2, and whose
    flags that store a value may be given once (Once). After a parse, `typed` holds the dests of
    the flags that took a value on the command line (flags_given reads it)."""

    typed: frozenset = frozenset()

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def print_help(self, file=None):
        # argparse drops a failed write of the help: `--help > /dev/full` was exit 0 without a
        # word (review); the failure reaches run_main, which says so (exit 1)
        file = sys.stdout if file is None else file
        if file is not None:
            file.write(self.format_help())

    def add_argument(self, *args, **kwargs):
        if args and str(args[0]).startswith("-") and kwargs.get("action") in (None, "store"):
            kwargs["action"] = Once
        return super().add_argument(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        ns, extras = super().parse_known_args(args, namespace)
        self.typed = frozenset(ns.__dict__.pop(_GIVEN, {}))
        return ns, extras


class Terminated(KeyboardInterrupt):
    """Raised by the SIGTERM and SIGHUP handler run_main installs: the scripts' Ctrl-C handling
    catches it."""


# run_main stops on these as on Ctrl-C (the module text): atomic's STOP_SIGNALS but Ctrl-C's own
_SIGHUP = getattr(signal, "SIGHUP", None)
_STOPPED_ON = tuple(signum for signum in _STOP_SIGNALS if signum != signal.SIGINT)
_stopped_by: int | None = None      # the signal that stopped the run: exit code 128 + it


def _on_stop(signum, frame):
    global _stopped_by
    if _stopped_by is None:
        _stopped_by = signum
    raise Terminated()


def run_main(main, prog: str | None = None, compile_note: bool = True) -> int:
    """main()'s exit code; 143 after a SIGTERM, 129 after a SIGHUP (see the module text); when stdout's reader has gone
    (`--list-rules | head -1`), 0 without a BrokenPipeError traceback: stdout is pointed at
    /dev/null so Python's last flush is quiet too; when stdout cannot be written (a full disk),
    one line `PROG: error: cannot write to standard output (WHY)` (PROG: `prog`, else the
    script's file name) and exit code 1. The SIGTERM and SIGHUP handlers are the caller's again
    afterwards.
    compile_note: say on a terminal when numba starts compiling (compiles_whole); play.py, whose
    own notices say it, passes False."""
    global _stopped_by
    _stopped_by = None      # one SIGTERM made every later run_main in the process 143 (review)
    previous = []
    try:
        if threading.current_thread() is threading.main_thread():
            for signum in _STOPPED_ON:
                if signal.getsignal(signum) == signal.SIG_IGN:
                    continue        # ignored when the script started (nohup's SIGHUP): it stays so
                previous.append((signum, signal.signal(signum, _on_stop)))
        with compiles_whole(compile_note):
            return _hung_up_quietly(main, prog)
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)


def on_terminal(stream) -> bool:
    """Whether `stream` is a terminal: False for None (started with it closed), a closed stream,
    or a stand-in without isatty (a test's, a caller's)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


COMPILE_NOTE = ("note: compiling the engine's kernels (numba): about a minute, on the first run "
                "after an install or an update")
_compile_noted = False      # once a process


def _note_compile() -> None:
    """The first compile of the process, on a terminal: COMPILE_NOTE on stderr (through tqdm's
    write when a bar may be live, so that the bar is not torn). A stream that fails is left to
    the script's own output to report."""
    global _compile_noted
    if _compile_noted:
        return
    _compile_noted = True
    try:
        if not on_terminal(sys.stderr):
            return
        if "tqdm" in sys.modules:
            from tqdm import tqdm
            tqdm.write(COMPILE_NOTE, file=sys.stderr)
        else:
            print(COMPILE_NOTE, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


@contextlib.contextmanager
def compiles_whole(note: bool = True):
    """While the block runs, Ctrl-C, SIGTERM and SIGHUP wait for a kernel numba is compiling (its first
    call: about a minute for them all after an install or an update) and act once it is done
    (0.8 to 3.8 s later in evaluate.py's first match on an idle machine; a timing review saw 26 s
    for hard's search kernel with a busy job beside it, the wait silent). Raised inside the
    compile, they left numba half done (a review interrupted evaluate.py's first match on a cold
    cache: 8 of 110 runs went wrong): a traceback ('RuntimeError: no compiled object yet'), the
    interrupt swallowed ('Exception ignored on calling ctypes callback function') and the run
    going on, or a segmentation fault. Each compile runs under
    scopa_env.atomic.deferred_interrupts (a compile nested in another waits for the outer one);
    the main thread only, as signals.

    With `note`, the first kernel numba compiles in the process (not one it loads from its cache)
    prints COMPILE_NOTE on stderr when that is a terminal: evaluate.py waited 45 to 55 s on a
    cold cache on a bar at 0, train.py 20 s before its first line, simulate 14 s, with no word
    (a timing review). numba's compile event (numba.core.event) marks a compile, not a cache
    load. Compiles in evaluate.py's worker processes say nothing."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:         # no numba: nothing compiles
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        yield       # the hook is the process's: a thread's run_main leaves the main thread's compiles
        return
    from scopa_env.atomic import deferred_interrupts
    original = Dispatcher.compile

    def compile_whole(self, sig):
        with deferred_interrupts():
            return original(self, sig)
    Dispatcher.compile = compile_whole
    listener = None
    if note and not _compile_noted:
        try:
            from numba.core import event

            class _Noted(event.Listener):
                def on_start(self, ev):
                    _note_compile()

                def on_end(self, ev):
                    pass
            listener = _Noted()
            event.register("numba:compile", listener)
        except (ImportError, AttributeError, TypeError):    # a numba without the event API
            listener = None
    try:
        yield
    finally:
        Dispatcher.compile = original
        if listener is not None:
            event.unregister("numba:compile", listener)


def escaping_streams() -> None:
    """stdout and stderr, where they would refuse it, write what their encoding cannot hold as a
    backslash escape: a lone surrogate (the byte 0xff of `name=$'\\xff'`, or a record's
    "\\ud800") was a UnicodeEncodeError traceback under a strict UTF-8 locale (review). A stream
    that already takes them (surrogateescape under C.UTF-8 or UTF-8 mode writes the byte back)
    is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        stream = getattr(stream, "stream", stream)       # run_main's _Stdout holds the stream
        if getattr(stream, "errors", None) == "strict" and callable(getattr(stream, "reconfigure", None)):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):      # a stream that cannot: it writes as it did
                pass


def _hung_up_quietly(main, prog: str | None) -> int:
    """_run's exit code; after a SIGHUP whose terminal has gone, 129 without a word: every write
    there fails (EIO), the script's own "interrupted" line and run_main's report of a failed
    stdout included, and each failure was a traceback to nowhere (exit 1). Standard output and
    error are pointed at /dev/null so Python's last flush is quiet too."""
    try:
        return _run(main, prog)
    except OSError:
        if _SIGHUP is None or _stopped_by != _SIGHUP:
            raise
        for stream in (sys.stdout, sys.stderr):
            _quiet(stream)
        return 128 + _SIGHUP


def _run(main, prog: str | None) -> int:
    escaping_streams()
    if sys.stdout is not None and not isinstance(sys.stdout, _Stdout):
        sys.stdout = _Stdout(sys.stdout)
    try:
        try:
            code = main()
        except SystemExit:
            # argparse's --help exits from inside main(): its text is flushed here too
            # (`--help > /dev/full` was exit 0 without a word; review)
            _flush_stdout()
            raise
        _flush_stdout()
    except Terminated:       # outside the script's own Ctrl-C handling
        code = 128 + (_stopped_by or signal.SIGTERM)
    except BrokenPipeError:
        quiet_stdout()
        return 0
    except StdoutFailed as e:
        # stdout on a full disk (`> /dev/full`) was a traceback from print (review)
        quiet_stdout()
        if prog is None:
            prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "scopa"
        print(f"{prog}: error: cannot write to standard output ({e.strerror or e})", file=sys.stderr)
        return 1
    finally:
        if isinstance(sys.stdout, _Stdout):
            sys.stdout = sys.stdout.stream
    return 128 + _stopped_by if _stopped_by is not None else code


def _flush_stdout() -> None:
    """What a block-buffered stdout still holds is written now, while a failure is caught in
    _run (at exit it was lost without a word, exit 0; review)."""
    if sys.stdout is not None:
        sys.stdout.flush()


class StdoutFailed(OSError):
    """A write to standard output failed (not a closed pipe: that is BrokenPipeError)."""


class _Stdout:
    """sys.stdout while run_main runs: the same stream, whose failed writes are StdoutFailed,
    so that they are told apart from the other OSErrors a script may meet."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self._checked("write", text)

    def flush(self):
        return self._checked("flush")

    def _checked(self, method: str, *args):
        try:
            return getattr(self.stream, method)(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            if e.errno == errno.EINVAL and sys.platform == "win32":
                # Windows says EINVAL for a pipe whose reader has gone (CPython issue 79935): it
                # was "cannot write to standard output (Invalid argument)", exit 1, where `| head`
                # ends the scripts quietly (a portability review)
                raise BrokenPipeError(errno.EPIPE, "Broken pipe") from e
            raise StdoutFailed(e.errno, e.strerror) from e

    def __getattr__(self, name):
        return getattr(self.stream, name)


def quiet_stdout() -> None:
    """stdout pointed at /dev/null: Python's last flush of what it still holds is quiet."""
    _quiet(sys.stdout)


def _quiet(stream) -> None:
    """`stream`'s file descriptor pointed at /dev/null (a stream without one, or closed, is left)."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, ValueError, OSError):
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)   # dup2 made its copy: each call left one descriptor open (review)


def rules_hint(error: Exception) -> str:
    """For a checkpoint asked to play other rules (RulesMismatch): the flags of evaluate.py and
    play.py that give the rules it was trained for (`--rule OPTION=VALUE` for what no preset
    gives, e.g. a run's `--set rules.fewest_cards=true`); '' for another error. Said as a fact
    about that checkpoint, not as the command to run: with a --partner, or two checkpoints
    trained for different rules, those flags alone do not make a command that runs (review)."""
    from .errors import RulesMismatch
    from .presets import preset_flags
    if not isinstance(error, RulesMismatch):
        return ""
    return f"; it plays only under {preset_flags(error.trained)}"
