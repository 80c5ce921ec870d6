"""Checkpoints: plain dicts written atomically, checked when read.

A checkpoint is a dict of tensors, numbers, strings, lists and dicts, so
`torch.load(path, weights_only=True)` reads it. Keys:

| key                     | holds                                                          |
|-------------------------|----------------------------------------------------------------|
| format                  | "scopa-rl checkpoint"                                          |
| format_version          | 1                                                              |
| algo                    | "dmc" or "ppo" (ALGOS; another is refused)                     |
| model_config            | {"kind": "MoveScorer", "hidden": H, "features": F,             |
|                         |  "players": N, "hand_cards": K} (the last two: 2, 3 if absent) |
|                         |  and "bonus": true for rules with hand_bonus (else absent)     |
|                         | F: move features version, 3, 4 or 5 (agents/network.py); a key |
|                         | not listed here is refused (MODEL_CONFIG_KEYS)                 |
| model                   | the network's state_dict                                       |
| optimizer               | the optimizer's state_dict (absent in an exported agent)       |
| rng                     | python / numpy / torch generator states (absent in an export); |
|                         | a resume restores numpy's, the run's own, alone                |
| counters                | steps, iterations, elapsed_s, best_score (None before a        |
|                         | periodic evaluation), next_eval, next_checkpoint (the steps of |
|                         | the next ones; 0 with eval_every / checkpoint_every 0: none),  |
|                         | run_name                                                       |
| config                  | the TrainConfig as a dict                                      |
| rules                   | the Rules as a dict (every option; older files: napola, target)|
| obs_layout              | {"players": N, "size": S}: the observation layout trained on   |
|                         | (S counts the hand bonuses' parts under hand_bonus rules)      |
|                         | (absent in files from before the variants: 2 players, 291)     |
| obs_layout_version      | scopa_env.observation.OBS_LAYOUT_VERSION at training time      |
| action_layout_version   | scopa_env.actions.ACTION_LAYOUT_VERSION at training time       |
| algo_state              | what the algorithm needs to continue (env state, pool, ...;    |
|                         | absent in an exported agent, train.py --export: agent_only())  |
| checksum                | "sha256:HEX" over every other key (digest(); added by          |
|                         | save_atomic; files written before it have none and still load) |

A zip of tensors flips a byte silently (torch does not check the zip's CRCs), so a file with a
checksum is checked against it when read: a damaged one is an error, not a network that plays a
little differently.

Writing goes to a temporary file in the same folder, is flushed to disk, then renamed over the
target (os.replace is atomic), so a killed process leaves either the old file or the new one
(and at worst a `.NAME.*.tmp` file, which the next run in that folder deletes).
"""
from __future__ import annotations

import hashlib
import io
import math
import os
import pickle
import random
import stat
import struct
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import torch

from scopa_env.actions import ACTION_LAYOUT_VERSION
from scopa_env.atomic import deferred_interrupts, sync_folder
from scopa_env.errors import NEWER_FILE, ScopaError, escape_control, has_control, regular_file
from scopa_env.observation import OBS_LAYOUT_VERSION, layout, layout_for
from scopa_env.rules import Rules

FORMAT = "scopa-rl checkpoint"
FORMAT_VERSION = 1
ALGOS = ("dmc", "ppo")     # what training/config.py's ALGOS trains (a test checks they agree)
MODEL_CONFIG_KEYS = {"kind", "hidden", "features", "players", "hand_cards", "bonus"}  # network.model_config
REQUIRED = ("format", "format_version", "algo", "model_config", "model", "config", "rules",
            "obs_layout_version", "action_layout_version")


def save_atomic(obj: dict, path: str | Path) -> Path:
    """torch.save to a temp file next to `path`, fsync, then os.replace onto `path`; the dict
    gets its `checksum` (digest() of everything else). Ctrl-C, SIGTERM and SIGHUP wait for the write
    to end (scopa_env/atomic.py `deferred_interrupts`: torch.save interrupted mid-file failed with a
    RuntimeError traceback instead of the clean interrupt)."""
    obj = dict(obj, checksum=digest(obj))     # digest() leaves out any old checksum
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with deferred_interrupts():
        _write_replace(obj, path)
        sync_folder(path.parent)        # make the rename itself durable
    return path


def _write_replace(obj: dict, path: Path) -> None:
    # serialized in memory, then written: torch.save to the file met a full disk partway through
    # as a RuntimeError ("unexpected pos"), not the OSError that callers turn into one line
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buffer.getbuffer())
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)      # mkstemp makes it private; a checkpoint is not
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def digest(obj: dict) -> str:
    """"sha256:HEX" of a checkpoint dict's contents, its `checksum` key left out: every key and
    value in a fixed order (dict keys sorted), tensors by dtype, shape and bytes."""
    h = hashlib.sha256()
    _feed(h, {k: v for k, v in obj.items() if k != "checksum"})
    return "sha256:" + h.hexdigest()


def network_digest(ckpt: dict) -> str:
    """"net-sha256:HEX" of what plays in a checkpoint: its `model_config` and `model` (the
    weights), nothing else. The same network gives the same digest whatever else its file holds
    (a finished run resumed rewrites latest.pt with other counters and the same weights), and
    an export (agent_only) the digest of the run it came from. evaluate.py --json names each
    checkpoint's network by it; the prefix tells it from a whole-file `checksum`."""
    h = hashlib.sha256()
    _feed(h, {"model_config": ckpt["model_config"], "model": ckpt["model"]})
    return "net-sha256:" + h.hexdigest()


def _feed(h, v) -> None:
    if isinstance(v, torch.Tensor):
        t = v.detach().cpu().contiguous().reshape(-1)
        h.update(f"T{str(t.dtype)}{tuple(v.shape)}{t.numel()}:".encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    elif isinstance(v, dict):
        h.update(f"D{len(v)}:".encode())
        for k in sorted(v, key=lambda k: (type(k).__name__, repr(k))):
            _feed(h, k)
            _feed(h, v[k])
    elif isinstance(v, (list, tuple)):
        h.update(f"{type(v).__name__[0]}{len(v)}:".encode())
        for x in v:
            _feed(h, x)
    elif v is None or isinstance(v, (bool, int, float, str)):
        text = repr(v)
        h.update(f"{type(v).__name__}{len(text)}:{text}".encode())
    else:   # torch.load(weights_only=True) gives nothing else; a new kind of value is a bug here
        raise TypeError(f"cannot checksum a {type(v).__name__} in a checkpoint")


def remove_partial_saves(folder: str | Path) -> list[Path]:
    """Delete the temporary files of saves that never finished (save_atomic's `.NAME.*.tmp`, left
    when the process was killed between writing and renaming); returns them. Only one process
    writes a run's folder, so at the start of a run none of them is being written."""
    gone = []
    for tmp in Path(folder).glob(".*.pt.*.tmp"):
        try:
            mode = tmp.lstat().st_mode
        except FileNotFoundError:
            continue
        # what save_atomic leaves is a file; a folder of that name (a run folder from elsewhere)
        # was an IsADirectoryError traceback (a security review), and is no save: left alone.
        # A link is removed as a link, its target kept
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            continue
        tmp.unlink(missing_ok=True)
        gone.append(tmp)
    return gone


def first_line(e: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none), for one-line
    errors about a file. Control characters in it are escaped: torch's errors quote a file's
    keys as they are, and a key holding an escape reached the terminal raw (left alone at an
    earlier stop)."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    if not lines:
        return type(e).__name__
    if lines[0].endswith(":") and len(lines) > 1:
        # "Error(s) in loading state_dict for MoveScorer:" says nothing without the line after
        # it ("size mismatch for ...")
        return escape_control(f"{lines[0]} {lines[1]}")
    return escape_control(lines[0])


def _chunks(path: Path):
    """The file's bytes in 1 MiB chunks, each read as 'has a non-zero byte'."""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            yield chunk.strip(b"\0") != b""


def load(path: str | Path) -> dict:
    """Read and check a checkpoint; any problem is one ScopaError naming it."""
    path = regular_file("checkpoint", path)     # a FIFO or device: reading it could block
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:        # no read permission: the file may be fine, so not "corrupt"
        raise ScopaError(f"checkpoint {str(path)!r} cannot be read ({e.strerror or e})") from None
    _refuse_compressed(path, magic)
    try:
        with warnings.catch_warnings():
            # a plain pickle file makes torch warn ("Detected pickle protocol 4") before it
            # fails: the error below is the one line that says what is wrong
            warnings.simplefilter("ignore", UserWarning)
            ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, EOFError, zipfile.BadZipFile, OSError,
            ValueError, AttributeError, TypeError, KeyError, IndexError, struct.error) as e:
        first = first_line(e)
        try:
            first = _what_is_wrong(path, magic, first, e)
        except OSError as gone:     # removed or replaced since torch opened it (a step_*.pt
            # pruned by a training run): the second look was a traceback (a concurrency review)
            raise ScopaError(f"checkpoint {str(path)!r} cannot be read "
                             f"({gone.strerror or gone})") from None
        raise ScopaError(f"checkpoint {str(path)!r} is corrupt or not a checkpoint ({first})") from None
    check(ckpt, str(path))
    return ckpt


def _refuse_compressed(path: Path, magic: bytes) -> None:
    """torch.save stores its zip's entries as they are; torch.load also reads compressed ones, so
    a 1 MB file could unpack to gigabytes before any check (3 GB from a crafted file: a security
    review). A zip with a compressed entry, or entries larger than the file, is refused unread;
    one that zipfile cannot list is left to torch, whose error says what it is."""
    if magic != b"PK\x03\x04":
        return
    try:
        with zipfile.ZipFile(path) as z:
            entries = z.infolist()
        size = path.stat().st_size
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error, NotImplementedError):
        return
    packed = [e.filename for e in entries if e.compress_type != zipfile.ZIP_STORED]
    if packed or sum(e.file_size for e in entries) > size:
        what = f"its entry {packed[0]!r} is compressed" if packed else "its entries are larger than it"
        raise ScopaError(f"checkpoint {str(path)!r} is not a file torch.save writes ({what}): refused "
                         f"unread, as a small file could unpack to gigabytes")


def _what_is_wrong(path: Path, magic: bytes, first: str, e: BaseException) -> str:
    """What a file torch could not load is, for the error: torch's first line where it says."""
    if path.stat().st_size == 0:
        return "an empty file"           # torch says only "EOFError"
    if magic == b"PK\x03\x04" and not zipfile.is_zipfile(path):
        return "a zip file cut short"    # torch says "[Errno 22] Invalid argument"
    if magic == b"PK\x03\x04" and first.startswith("[enforce fail"):
        return "a zip file that is not a torch file"     # torch's own C++ check
    if magic == b"\0\0\0\0" and not any(_chunks(path)):
        return "all zero bytes"         # torch took it for its legacy tar format
    if magic != b"PK\x03\x04" or first.startswith("Weights only load failed") or \
            "weights_only" in str(e):
        # not a zip (what torch.save writes): torch's old-format reader took a text file
        # for a pickle and said "(101)" or "pop from empty list" (a file starting with 't',
        # review); torch's advice to load with weights_only=False would run what a file holds
        return "not a torch file of plain tensors and values"
    return first


def check(ckpt, where: str = "checkpoint") -> None:
    """Raise ScopaError unless `ckpt` is a checkpoint this version of the code can use."""
    try:
        _check(ckpt, where)
    except RecursionError:      # torch's reader builds a list nested 200,000 deep; the walks
        # over the file's values met it as a traceback (a security review)
        raise ScopaError(f"checkpoint {where!r} is corrupt (its values are nested too deeply)") from None


def _check(ckpt, where: str) -> None:
    if not isinstance(ckpt, dict) or not isinstance(ckpt.get("format"), str) or \
            ckpt["format"] != FORMAT:
        raise ScopaError(f"{where!r} is not a scopa-rl checkpoint")
    _check_plain(ckpt, where, "checkpoint")     # first: a meta tensor has no bytes to digest
    if "checksum" in ckpt:      # files from before checksums have none
        have = ckpt["checksum"]
        try:
            want = digest(ckpt)
        except TypeError as e:
            raise ScopaError(f"checkpoint {where!r} is corrupt ({e})") from None
        if not isinstance(have, str) or have != want:
            raise ScopaError(f"checkpoint {where!r} is damaged: its contents do not match its "
                             f"checksum (bytes changed since it was written)")
    missing = [k for k in REQUIRED if k not in ckpt]
    if missing:
        raise ScopaError(f"checkpoint {where!r} lacks {', '.join(missing)}")
    if not _whole(ckpt["format_version"]) or ckpt["format_version"] != FORMAT_VERSION:
        raise ScopaError(f"checkpoint {where!r} has format version {show_value(ckpt['format_version'])}, "
                         f"this code reads {FORMAT_VERSION}")
    if not _whole(ckpt["obs_layout_version"]) or ckpt["obs_layout_version"] != OBS_LAYOUT_VERSION:
        raise ScopaError(f"checkpoint {where!r} was trained on observation layout version "
                         f"{show_value(ckpt['obs_layout_version'])}, this code has version {OBS_LAYOUT_VERSION}")
    if not _whole(ckpt["action_layout_version"]) or \
            ckpt["action_layout_version"] != ACTION_LAYOUT_VERSION:
        raise ScopaError(f"checkpoint {where!r} was trained on action layout version "
                         f"{show_value(ckpt['action_layout_version'])}, this code has version "
                         f"{ACTION_LAYOUT_VERSION}")
    if ckpt["algo"] not in ALGOS:       # any value was taken (review)
        raise ScopaError(f"checkpoint {where!r} has algo {show_value(ckpt['algo'])}, which this version "
                         f"does not know ({' and '.join(ALGOS)}): {NEWER_FILE}")
    rules = rules_of(ckpt, where)
    lay = ckpt.get("obs_layout", {"players": 2, "size": layout(2).size})
    size = layout_for(rules).size
    if not isinstance(lay, dict) or not _whole(lay.get("players")) or not _whole(lay.get("size")) or \
            lay["players"] != rules.players or lay["size"] != size:
        raise ScopaError(f"checkpoint {where!r} has observation layout {show_value(lay)}, but its rules have "
                         f"{rules.players} players ({size} values"
                         + (", with the hand bonuses' parts)" if rules.hand_bonus else ")"))
    mc = ckpt["model_config"]
    if not isinstance(mc, dict):
        raise ScopaError(f"checkpoint {where!r} has a model_config of {show_value(mc)}, not a table")
    unknown = sorted(set(mc) - MODEL_CONFIG_KEYS, key=str)
    if unknown:         # ignored before: a newer network's setting, built without it (review)
        raise ScopaError(f"checkpoint {where!r} has model_config key {show_value(unknown[0])}, which this "
                         f"version does not know: {NEWER_FILE}")
    for key in ("hidden", "features", "players", "hand_cards"):
        if key in mc and not (_whole(mc[key]) and mc[key] >= 1):
            raise ScopaError(f"checkpoint {where!r} has model_config {key!r} = {show_value(mc[key])}: "
                             f"it must be a whole number, at least 1")
    if mc.get("hidden", 1) > MAX_HIDDEN:
        # no run trains a wider one; a 39 KB file saying 20,000 had a reader build a 5 GB network
        # before the weights' size mismatch was found (a security review)
        raise ScopaError(f"checkpoint {where!r} has model_config 'hidden' = {mc['hidden']}: it must "
                         f"be at most {MAX_HIDDEN}, the widest network a run trains")
    players = mc.get("players", 2)
    if players != rules.players:
        raise ScopaError(f"checkpoint {where!r} holds a network for {show_value(players)} players, but its "
                         f"rules have {rules.players}")
    if not isinstance(mc.get("bonus", False), bool):
        # 1 or 0 fell to the message below, which then said "with ... but hand_bonus on" (review)
        raise ScopaError(f"checkpoint {where!r} has model_config 'bonus' = {show_value(mc['bonus'])}: "
                         f"it must be true or false")
    if mc.get("bonus", False) is not rules.hand_bonus:
        raise ScopaError(f"checkpoint {where!r} holds a network {'with' if mc.get('bonus') else 'without'} "
                         f"the hand bonuses' observation parts, but its rules have hand_bonus "
                         f"{'on' if rules.hand_bonus else 'off'}")
    hand_cards = mc.get("hand_cards", 3)     # the observation's hand-size scale (network.py)
    if hand_cards != rules.hand_cards:
        raise ScopaError(f"checkpoint {where!r} holds a network for hands of {show_value(hand_cards)} "
                         f"cards, but its rules deal {rules.hand_cards}")
    if not isinstance(ckpt["config"], dict):
        raise ScopaError(f"checkpoint {where!r} has a config of {show_value(ckpt['config'])}, not a table "
                         f"of config keys")
    if "algo" in ckpt["config"] and ckpt["config"]["algo"] != ckpt["algo"]:
        # a resume rebuilt the config's algorithm onto the other one's state without a word
        raise ScopaError(f"checkpoint {where!r} says algo {show_value(ckpt['algo'])} but its config says "
                         f"{show_value(ckpt['config']['algo'])}")
    _check_counters(ckpt, where)
    model = ckpt["model"]
    if isinstance(model, dict):
        for k, t in model.items():
            # a bool, int or complex weight was cast to float32 without a word (review)
            if isinstance(t, torch.Tensor) and t.dtype != torch.float32:
                raise ScopaError(f"checkpoint {where!r} is unusable: model tensor {show_value(k)} is "
                                 f"{str(t.dtype).removeprefix('torch.')}, the network's weights are float32")
    # the training state too: NaN rewards carried in algo_state were reported as the run
    # diverging, with advice to lower the learning rate (review)
    for key in ("model", "optimizer", "algo_state"):
        if key in ckpt:
            _check_finite(ckpt[key], where, key)


def _tensors(obj, path: tuple = ()):
    """(path, tensor) for every tensor in `obj`, nested dicts and lists walked."""
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _tensors(v, path + (k,))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _tensors(v, path + (i,))


def _check_plain(obj, where: str, key: str) -> None:
    """Every tensor in `obj` is a plain CPU tensor: a meta tensor (no values) or a sparse one
    failed in every reader with torch's error (review)."""
    for path, t in _tensors(obj):
        if t.is_meta or t.device.type != "cpu" or t.layout != torch.strided:
            kind = "a meta tensor (no values)" if t.is_meta else f"a {t.layout} tensor on {t.device}"
            raise ScopaError(f"checkpoint {where!r} is unusable: {key} tensor "
                             f"{'.'.join(map(str, path))!r} is {kind}, not one of plain values")
        if t.numel() * t.element_size() > t.untyped_storage().nbytes():
            # values repeated by its strides (expand): 168 KB of file made a 500-million-value
            # tensor, which the checks below made whole, 4 GB (a security review); torch.save
            # of a network or an optimizer writes none
            raise ScopaError(f"checkpoint {where!r} is unusable: {key} tensor "
                             f"{'.'.join(map(str, path))!r} repeats its stored values "
                             f"({t.numel():,} values from {t.untyped_storage().nbytes():,} bytes), "
                             f"not one of plain values")


# what a resumed run reads back (training/loop.py, Run._restore): every checkpoint a run writes
# has them all; a whole number of steps etc. (not negative), a time, a score or None, a name
COUNTERS = {"steps": "count", "iterations": "count", "elapsed_s": "time", "best_score": "score",
            "next_eval": "count", "next_checkpoint": "count", "run_name": "name"}


def resumable(ckpt: dict) -> bool:
    """Whether a checkpoint holds a run's training state (--resume continues it), not an agent's
    alone (agent_only, --export)."""
    return "optimizer" in ckpt and "algo_state" in ckpt


MAX_COUNT = 2**53            # training/config.py MAX_WHOLE (a test checks they agree)
MAX_SECONDS = 10**10         # 317 years of training
MAX_RUN_NAME = 100           # training/config.py MAX_RUN_NAME (a test checks they agree)
MAX_HIDDEN = 4_096           # training/config.py MAX_INT["hidden"] (a test checks they agree)


def _check_counters(ckpt: dict, where: str) -> None:
    """A resumable checkpoint (optimizer and algo_state) must have every counter; any file's
    counters must be of their kinds. The run name becomes a folder under checkpoints_dir and
    runs_dir, so it is one plain name, as a config's run_name: no path separator or control
    character, not '.' or '..'."""
    run_state = resumable(ckpt)
    if "counters" not in ckpt:
        if run_state:
            raise ScopaError(f"checkpoint {where!r} lacks counters")
        return
    counters = ckpt["counters"]
    if not isinstance(counters, dict):
        raise ScopaError(f"checkpoint {where!r} has counters {show_value(counters)}, not a table of counters")
    for key, kind in COUNTERS.items():
        if key not in counters:
            if run_state:
                raise ScopaError(f"checkpoint {where!r} lacks counter {key!r}")
            continue
        v = counters[key]
        # the bounds a run's own config keeps (training/config.py MAX_WHOLE, MAX_RUN_NAME): a
        # file past them (steps 10**30, a name with terminal escapes and a newline) was a
        # traceback from TensorBoard's writer, or printed raw and made into folders (a security
        # review)
        if kind == "count":
            ok, want = _whole(v) and 0 <= v <= MAX_COUNT, "a whole number from 0 to 2**53"
        elif kind == "time":
            ok, want = _real(v) and 0 <= v <= MAX_SECONDS, "a number of seconds from 0 to 10**10"
        elif kind == "score":
            ok, want = v is None or _real(v), "a number or None"
        else:
            ok = isinstance(v, str) and v not in ("", ".", "..") and len(v) <= MAX_RUN_NAME and \
                not any(ch in v for ch in ("/", "\\", os.sep, os.altsep or "/")) and \
                not has_control(v)
            want = (f"a plain name of at most {MAX_RUN_NAME} characters (no path separator or "
                    f"control character, not '.' or '..')")
        if not ok:
            raise ScopaError(f"checkpoint {where!r} has counter {key!r} = {show_value(v)}: it must be {want}")


def _check_finite(obj, where: str, key: str) -> None:
    """Every floating-point tensor in `obj` holds finite numbers: NaN or inf weights come from a
    damaged file or a diverged run, and would play or train silently."""
    for path, t in _tensors(obj):
        if (t.is_floating_point() or t.is_complex()) and not bool(torch.isfinite(t).all()):
            bad = int((~torch.isfinite(t)).sum())
            raise ScopaError(f"checkpoint {where!r} is unusable: {key} tensor "
                             f"{'.'.join(map(str, path))!r} has {bad} of {t.numel()} values NaN "
                             f"or inf (a damaged file or a diverged run)")


def _whole(v) -> bool:
    """A plain int (not a bool, not a tensor)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _real(v) -> bool:
    """A plain finite int or float (not a bool, not a tensor)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def show_value(v) -> str:
    """A value for a one-line message: a tensor by its kind and shape, anything else by its repr
    on one line, cut at 80 characters."""
    if isinstance(v, torch.Tensor):
        return f"a tensor of shape {tuple(v.shape)} ({str(v.dtype).removeprefix('torch.')})"
    text = " ".join(repr(v).split())
    return text if len(text) <= 80 else text[:77] + "..."


def rules_of(ckpt: dict, where: str = "checkpoint") -> Rules:
    """The rules a checkpoint was trained for (ScopaError if they are not valid rules)."""
    try:
        return Rules.from_dict(ckpt["rules"], stored=True)
    except ScopaError as e:
        raise ScopaError(f"checkpoint {where!r} has bad rules ({e})") from None


def diverged(steps: int, what: str, advice: str) -> ScopaError:
    """The error for an update that made the loss or the weights non-finite (NaN or inf). The
    algorithms raise it inside the update, before the loop saves anything, so the run's
    checkpoints stay its last good state."""
    return ScopaError(f"training diverged at step {steps:,}: {what}; nothing of this iteration "
                      f"was saved (the run's checkpoints hold its last good state): {advice}")


def nonfinite_weights(model: torch.nn.Module) -> str:
    """The name of the first parameter of `model` holding NaN or inf, '' if none."""
    for name, p in model.named_parameters():
        if not bool(torch.isfinite(p).all()):
            return name
    return ""


def rng_state(np_rng: np.random.Generator) -> dict:
    """Python, numpy and torch generator states as plain values and tensors: the run's numpy
    generator, and the process's Python and torch generators at the save (the format keeps
    them; training draws from neither, and a resume does not restore them: set_rng_state)."""
    version, internal, gauss = random.getstate()
    return {
        "python": {"version": version, "internal": list(internal), "gauss": gauss},
        "numpy": np_rng.bit_generator.state,
        "torch": torch.get_rng_state(),
    }


def set_rng_state(state: dict, np_rng: np.random.Generator) -> None:
    """The run's numpy generator, the only one training draws from (a network's first weights
    are drawn under a fork of torch's, Run), as saved. The process's Python and torch
    generators stay the caller's: restoring them rewound a library user's own streams to their
    state at the save, and changed nothing in the run (review)."""
    np_rng.bit_generator.state = state["numpy"]


def base_dict(algo: str, model_cfg: dict, model_state: dict, config: dict, rules: dict) -> dict:
    r = Rules.from_dict(rules)
    players = r.players
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "algo": algo,
        "model_config": model_cfg,
        "model": model_state,
        "config": config,
        "rules": rules,
        "obs_layout": {"players": players, "size": layout_for(r).size},
        "obs_layout_version": OBS_LAYOUT_VERSION,
        "action_layout_version": ACTION_LAYOUT_VERSION,
    }


def agent_only(ckpt: dict) -> dict:
    """What an agent needs (for a shipped file): weights, config, rules, versions, counters."""
    keep = REQUIRED + ("obs_layout", "counters")
    return {k: ckpt[k] for k in keep if k in ckpt}
