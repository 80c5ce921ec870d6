"""The one exception type the toolkit raises for bad input (and the one message for a path that is
not a file)."""
import os
from pathlib import Path


class ScopaError(ValueError):
    """Bad input: an unknown card, a card not in hand, an illegal capture, an unknown option.

    The message names the problem. Whatever raised it left the game state unchanged.
    """


class RenderModeError(ScopaError, TypeError):
    """A render_mode the env does not have. Also a TypeError, the error of a keyword an env does
    not take: stable-baselines3's make_vec_env asks first for render_mode='rgb_array' and makes
    the env without one on a TypeError, where a ScopaError alone stopped it (an interop
    review)."""


def _control(ch: str) -> bool:
    """A control character: C0, DEL or C1 (U+0080-U+009F, which some terminals read as an escape
    too)."""
    return ord(ch) < 32 or 127 <= ord(ch) < 160


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (_control). A name or spec printed in a message
    or a table must have none: from a file made elsewhere, escapes and newlines reached the
    terminal raw (review)."""
    return any(map(_control, text))


def escape_control(text: str) -> str:
    """`text` with each control character (_control) written as its Python escape (`\\x1b`,
    `\\n`): for text from a file quoted inside a message, such as a key torch names in its own
    error."""
    return "".join(repr(ch)[1:-1] if _control(ch) else ch for ch in text)


# the end of an error about a file naming something this version lacks (a rules option, a config
# key, an algorithm): adding one changes no format number, so the file may well be newer
NEWER_FILE = "written by a newer version of scopa-rl, or edited"


class RulesMismatch(ScopaError):
    """A checkpoint asked to play other rules than those it was trained for; `trained` holds its
    rules (the scripts say which flags give them)."""

    def __init__(self, message: str, trained):
        super().__init__(message)
        self.trained = trained

    def __reduce__(self):       # pickled whole (worker processes): the default lost `trained`
        return type(self), (self.args[0], self.trained)


def regular_file(kind: str, path) -> Path:
    """`path` as a Path when it is a regular file; else one ScopaError: what is there instead
    (not_a_file), or what the system said when it could not look (a name too long, a folder it
    may not search: Path.is_file() let those out as OSError tracebacks)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        # Path('') is '.', which was then said to be "a folder" (review)
        raise ScopaError(f"{kind} needs a file's path, got {path!r}")
    p = Path(path)
    try:
        if p.is_file():
            return p
        error = not_a_file(kind, p)
    except OSError as e:
        raise ScopaError(f"{kind} {str(path)!r}: {e.strerror or e}") from None
    raise error


def not_a_file(kind: str, path) -> ScopaError:
    """The error for a `kind` ('checkpoint', 'config file') at `path` that is not a file: a folder
    is said to be one, and anything else there (a pipe, a device) not a regular file, rather than
    not to exist."""
    p = Path(path)
    what = ("is a folder, not a file" if p.is_dir() else
            "is not a regular file" if p.exists() else "does not exist")
    return ScopaError(f"{kind} {str(path)!r} {what}")
