"""A training run: set up, iterate the algorithm, log, evaluate, checkpoint, resume.

Each iteration of the algorithm (training/dmc.py, training/ppo.py) plays and learns; between
iterations the loop logs to TensorBoard (`runs/<run>`), evaluates against the levels
(agents/arena.py) every `eval_every` steps (writing best.pt when the mean points per hand over
the evaluation opponents improves), and writes `step_<N>.pt` + `latest.pt` every
`checkpoint_every` steps, and `latest.pt` at the end.
Checkpoints are taken only between iterations and hold everything random (generators, environment
state, unfinished episodes), so a resumed run makes the same updates as one never stopped.
"""
from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from agents import checkpoint
from agents.learned import check_network_scores
from agents.network import FEATURE_SIZES, FEATURES_VERSION, MoveScorer, model_config, widen_features
from scopa_env.atomic import deferred_interrupts
from scopa_env.errors import NEWER_FILE, ScopaError, has_control
from scopa_env.presets import preset_name
from scopa_env.rules import Rules, option_text
from scopa_env.seeds import offset_seed
from . import saved_state
from .config import (FIELDS, LEGACY_RULES_KEYS, RULES_KEYS, TrainConfig, check_bot_games, check_read,
                     make_config, rules_overrides, saved_config)
from .tensorboard_log import TensorBoardLog, quiet_log_thread

KEEP_PERIODIC = 3
LOCK_FILE = ".lock"   # in a run's checkpoint and log folders: held (flock) by the process training it

try:
    import fcntl
except ImportError:   # Windows: no folder lock (README, "Checkpoints")
    fcntl = None
# what may change when a run is resumed: budgets and reporting, never what shapes the updates
RESUME_OVERRIDABLE = {"total_steps", "max_minutes", "eval_every", "eval_matches", "eval_opponents",
                      "final_matches", "final_opponents", "checkpoint_every", "torch_threads",
                      "runs_dir", "checkpoints_dir"}


def make_algo(cfg: TrainConfig, model: MoveScorer, optimizer, rng: np.random.Generator):
    if cfg.algo == "dmc":
        from .dmc import DMC
        return DMC(cfg, model, optimizer, rng)
    from .ppo import PPO
    return PPO(cfg, model, optimizer, rng)


def duration(seconds: float) -> str:
    """'42.3 s' under a minute, else '2.3 min' (a short leg read '0.0 min': review)."""
    return f"{seconds:.1f} s" if seconds < 59.95 else f"{seconds / 60:.1f} min"


def resolve_resume(target: str, checkpoints_dir: str = "checkpoints") -> Path:
    """A checkpoint file, a run folder, or a run name -> the checkpoint file to resume."""
    try:
        return _resolve_resume(target, checkpoints_dir)
    except OSError as e:        # a name too long, a folder it may not search
        raise ScopaError(f"cannot look for a checkpoint at {target!r}: {e.strerror or e}") from None


def _resolve_resume(target: str, checkpoints_dir: str) -> Path:
    p = Path(target)
    # a file here named like the run (`train.py --run-name exp1 > exp1`) hid checkpoints/exp1
    # (review): a file is the checkpoint when it is named .pt or no run folder has its name
    if p.is_file() and (p.suffix == ".pt" or not (Path(checkpoints_dir) / target).is_dir()):
        return p
    # a folder of that name here need not be the run: checkpoints_dir/target is looked at too
    # (review: a folder 'exp1' in the working directory hid checkpoints/exp1/latest.pt)
    folders = [f for f in (p, Path(checkpoints_dir) / target) if f.is_dir()]
    for folder in folders:
        if (folder / "latest.pt").is_file():
            return folder / "latest.pt"
    for folder in folders:
        holder = _lock_holder(folder)
        if holder is not None:     # a run before its first checkpoint: say who trains it
            raise ScopaError(f"run folder {str(folder)!r} has no latest.pt yet: another process "
                             f"(pid {holder}) is training that run; wait for it or stop it")
    for folder in folders:
        newest = newest_checkpoint(folder)
        if newest is not None:
            raise ScopaError(f"run folder {str(folder)!r} has no latest.pt to resume; its newest "
                             f"checkpoint is {str(newest)!r}: --resume {str(newest)} continues from it")
    if folders:
        raise ScopaError(f"run folder {str(folders[0])!r} has no latest.pt to resume (nor any "
                         f"other checkpoint)")
    raise ScopaError(f"nothing to resume at {target!r}: not a checkpoint file, run folder or run name")


def periodic_checkpoints(folder: Path) -> list[Path]:
    """A run folder's own step_<digits>.pt files, oldest first by step count (names sort so only
    up to 10 digits). Files (or links) only: a folder of such a name (a run folder from
    elsewhere) failed the pruning after each save, and training stopped (a security review)."""
    found = sorted((int(m.group(1)), p) for p in folder.glob("step_*.pt")
                   if (m := re.fullmatch(r"step_([0-9]+)\.pt", p.name)) and not p.is_dir())
    return [p for _, p in found]


def newest_checkpoint(folder: Path) -> Path | None:
    """The run folder's newest checkpoint other than latest.pt: its last step_<N>.pt, else
    best.pt; None if it has neither."""
    periodic = periodic_checkpoints(folder)
    if periodic:
        return periodic[-1]
    best = folder / "best.pt"
    return best if best.is_file() else None


def _lock_holder(folder: Path) -> str | None:
    """The pid in `folder`'s lock file when a process holds the lock, else None (the lock is
    only probed: released at once, the file never created)."""
    if fcntl is None:
        return None
    try:
        f = _open_lock(folder / LOCK_FILE, create=False)
    except (OSError, ScopaError):   # none, or no lock file (a link, a pipe): no one holds it
        return None
    with f:
        try:
            holder = _flock_or_holder(f)
        except _NoLocks:        # no locks there: no one can hold one
            return None
        if holder is None:
            fcntl.flock(f, fcntl.LOCK_UN)
        return holder


def _check_log_name(logs: Path, fsencode=os.fsencode) -> None:
    """TensorBoard opens its log folder by the UTF-8 bytes of the name, where Python and this
    project use the system's file-name encoding: under a Latin-1 locale a run name or --runs-dir
    with an accented letter made one folder and logged into another that was not there, after
    the start (an environment review). Refused first, naming the way out."""
    text = str(logs)
    try:
        same = fsencode(text) == text.encode("utf-8", "surrogateescape")
    except UnicodeError:        # a name this system's encoding cannot write at all
        same = False
    if not same:
        raise ScopaError(f"the TensorBoard log folder {text!r} is named in this system's "
                         f"file-name encoding ({sys.getfilesystemencoding()}), and TensorBoard "
                         f"opens it by its UTF-8 bytes: use an ASCII --run-name and --runs-dir, "
                         f"or a UTF-8 locale (PYTHONUTF8=1)")


def _open_lock(path: Path, create: bool):
    """The lock file `path` open for reading (and writing, created if need be, with `create`),
    never through a symbolic link and only when it is a regular file: opened as any file, a
    `.lock` link in a run folder from elsewhere had its target truncated to a pid (a `.bashrc`),
    and a named pipe there hung the start (a security review). ScopaError for what is no lock
    file; OSError for what the system refuses."""
    flags = (os.O_RDWR | os.O_CREAT if create else os.O_RDONLY) | os.O_NONBLOCK | \
        getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    if path.is_symlink():
        raise ScopaError(f"the lock file {str(path)!r} is a symbolic link: a run folder's .lock is "
                         f"a file of its own; remove the link")
    fd = os.open(path, flags, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ScopaError(f"the lock file {str(path)!r} is not a regular file (a pipe, a device or a "
                         f"folder): remove it")
    return os.fdopen(fd, "r+" if create else "r", encoding="utf-8")


class _NoLocks(Exception):
    """The file system of a lock file cannot lock files (NFS or SMB mounted without locking:
    flock says ENOLCK or EOPNOTSUPP); the text is the system's."""


def _flock_or_holder(f) -> str | None:
    """Take the lock of the open lock file `f` without waiting: None when taken, else the pid
    its holder wrote in it; _NoLocks where the file system has no locks (that OSError was a
    traceback: a portability review)."""
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        return f.read().strip() or "unknown"
    except OSError as e:
        raise _NoLocks(e.strerror or checkpoint.first_line(e)) from None
    return None


def saved_model_config(ckpt: dict) -> dict:
    """A checkpoint's network shape, with the 2-player classic sizes that files written before
    the variants did not store."""
    return {"players": 2, "hand_cards": 3, **dict(ckpt.get("model_config") or {})}


class InitFromError(ScopaError):
    """The checkpoint config key `init_from` names cannot start this run (train.py names the
    config file when the key came from it)."""


def load_init_from(cfg: TrainConfig, model: MoveScorer | None = None) -> MoveScorer:
    """`model` (else a new network of `cfg`) with the weights of the checkpoint config
    `init_from` names, which must be for the same rules, algorithm and network shape; every
    error names the key (a missing file said only "checkpoint '...' does not exist")."""
    path = cfg.init_from
    try:
        ckpt = checkpoint.load(path)
        rules = checkpoint.rules_of(ckpt, path)
    except ScopaError as e:
        raise InitFromError(f"config key 'init_from': {e}") from None
    if rules != cfg.rules:
        raise InitFromError(f"init_from {path!r} was trained for rules ({rules.describe()}), this "
                             f"run is for ({cfg.rules.describe()}): {rules.differences(cfg.rules)}")
    if ckpt["algo"] != cfg.algo:
        # taken without a word before (review), as the search refuses a ppo network
        raise InitFromError(f"init_from {path!r} is a {ckpt['algo']} network, this run trains "
                             f"{cfg.algo}: dmc scores a move in expected points, ppo in policy "
                             f"logits, so one is no start for the other")
    if model is None:
        model = MoveScorer.for_rules(cfg.hidden, cfg.rules)
    want = model_config(model)
    have = saved_model_config(ckpt)
    shape = [k for k in want if k != "features"]
    old, new = have.get("features"), want["features"]
    # the keys that differ are named, not every key: features 3 against 4 is no problem (it
    # widens; review: the message named it beside the hidden size that was)
    differ = [k for k in shape if have.get(k) != want[k]]
    if old not in FEATURE_SIZES or old > new:
        differ.append("features")
    if differ:
        said = ", ".join(f"{k} {have.get(k)!r} where this run builds {want[k]!r}" for k in differ)
        raise InitFromError(f"init_from {path!r} holds a network of another shape: {said} "
                            f"({have}; this run: {want})")
    try:
        state = ckpt["model"]
        if old < new:     # an earlier features version: the new inputs start at zero weight
            state = widen_features(state, old, new)
        model.load_state_dict(state)
    except (KeyError, RuntimeError, ValueError, TypeError, AttributeError, IndexError) as e:
        first = checkpoint.first_line(e)
        raise InitFromError(f"init_from {path!r} holds no usable network ({first})") from None
    why = check_network_scores(model, cfg.rules)      # weights of 3e38: NaN losses (review)
    if why:
        raise InitFromError(f"init_from {path!r} holds no usable network ({why})")
    return model


def check_new_run(cfg: TrainConfig) -> None:
    """What a new run checks of its config before it builds anything (also for --print-config,
    which printed configs the run then refused)."""
    check_bot_games(cfg)
    if cfg.init_from:
        load_init_from(cfg)     # its rules, shape and weights, into a network thrown away


class Run:
    """One training run (new or resumed). `train()` runs it to the end and returns the results."""

    def __init__(self, cfg: TrainConfig, resume: dict | None = None, log=print,
                 source: str | None = None):
        """`source`: the file `resume` was read from, named in its errors."""
        if resume is None:
            check_bot_games(cfg)
        self.cfg = cfg
        self.log = log
        self.rng = np.random.default_rng(cfg.seed)
        self.source_path = None if source is None else Path(source)
        # the first weights from the seed, under a fork of torch's generator: the caller's
        # stream (a notebook's, a script's) is as it was, and Python's was reseeded for nothing
        # (training draws only from self.rng; a side-effects review)
        with torch.random.fork_rng(devices=[]):
            # the CPU generator alone, the one the network is built with (torch.manual_seed
            # seeded every device's, a CUDA one's outside the fork: the diff review)
            torch.default_generator.manual_seed(cfg.seed)
            self.model = MoveScorer.for_rules(cfg.hidden, cfg.rules, self._features_of(resume, self.source))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate)
        self.algo = make_algo(cfg, self.model, self.optimizer, self.rng)
        self.counters = {"steps": 0, "iterations": 0, "elapsed_s": 0.0, "best_score": None,
                         "next_eval": cfg.eval_every, "next_checkpoint": cfg.checkpoint_every}
        game = "scopa" if cfg.rules == Rules() else f"scopa-{preset_name(cfg.rules) or 'variant'}"
        self.name = cfg.run_name or f"{game}__{cfg.algo}__{cfg.seed}__{int(time.time())}"
        self.resumed = resume is not None
        # the checkpoints folder the resumed run wrote to (a resume may name another one)
        saved = resume.get("config") if resume is not None else None
        home = saved.get("checkpoints_dir") if isinstance(saved, dict) else None
        self.saved_checkpoints_dir = Path(home) if isinstance(home, str) and home else None
        if resume is not None:
            self._restore(resume)
        elif cfg.init_from:         # another checkpoint's network: same rules, same shape
            load_init_from(cfg, self.model)
        self.ckpt_dir = Path(cfg.checkpoints_dir) / self.name
        self._lock = None           # the checkpoint folder's lock while train() runs
        self._log_lock = None       # and the log folder's
        self.lock_notes: list[str] = []     # folders that could not be locked (_take_lock)
        # whether this run has a latest.pt to resume from (a resumed run has; Ctrl-C says which)
        self.checkpointed = self.resumed
        self.restarted = False      # prepare_folders: in the empty folder of an earlier start
        self.made_folders: list[Path] = []     # prepare_folders: the run folders this start made

    @property
    def log_dir(self) -> Path:
        """The run's TensorBoard folder: runs_dir / its name (which a start may suffix)."""
        return Path(self.cfg.runs_dir) / self.name

    # ---- checkpoints -------------------------------------------------------------------------
    def to_checkpoint(self) -> dict:
        d = checkpoint.base_dict(self.cfg.algo, model_config(self.model), self.model.state_dict(),
                                 self.cfg.to_dict(), self.cfg.rules.to_dict())
        d["optimizer"] = self.optimizer.state_dict()
        d["rng"] = checkpoint.rng_state(self.rng)
        d["counters"] = dict(self.counters, run_name=self.name)
        d["algo_state"] = self.algo.state_dict()
        return d

    @property
    def source(self) -> str:
        """The checkpoint resumed, as its errors name it."""
        return "checkpoint" if self.source_path is None else f"checkpoint {str(self.source_path)!r}"

    @staticmethod
    def _features_of(resume: dict | None, where: str = "checkpoint") -> int:
        """The move features version of the network to build: a resumed run keeps its checkpoint's
        (a version 3 run continues as version 3, exactly), a new run gets this code's latest."""
        if resume is None:
            return FEATURES_VERSION
        mc = resume.get("model_config")
        have = mc.get("features") if isinstance(mc, dict) else None
        if have not in FEATURE_SIZES:
            raise ScopaError(f"{where} cannot be resumed (move features version {have!r}, this "
                             f"code builds {', '.join(map(str, FEATURE_SIZES))})")
        return int(have)

    def _restore(self, ckpt: dict) -> None:
        where = self.source
        want = model_config(self.model)
        have = saved_model_config(ckpt)
        if {k: have.get(k) for k in want} != want:
            raise ScopaError(f"{where} cannot be resumed: it holds a network {have}, its "
                             f"config builds {want}")
        # what a fresh run of this config writes: where a key the checkpoint lacks belongs
        template = {"model": {k: v.clone() for k, v in self.model.state_dict().items()},
                    "optimizer": self.optimizer.state_dict(),
                    "algo_state": self.algo.state_dict(), "rng": checkpoint.rng_state(self.rng)}
        loads = (("model", self.model.load_state_dict), ("optimizer", self.optimizer.load_state_dict),
                 ("algo_state", self.algo.load_state_dict),
                 ("rng", lambda d: checkpoint.set_rng_state(d, self.rng)))
        for key, load in loads:
            if key not in ckpt:
                raise ScopaError(f"{where} cannot be resumed: it lacks {key!r}")
            try:
                load(ckpt[key])
            except KeyError as e:        # "KeyError: 'env'" said neither the file nor where
                missing = e.args[0] if e.args else "?"
                lacking = (saved_state.lacking(ckpt[key], template[key], missing, key)
                           or f"{key}: key {missing!r}")
                raise ScopaError(f"{where} cannot be resumed: it lacks {lacking}") from None
            # OverflowError: a generator state of -1 or 2**200 (review)
            except (RuntimeError, ValueError, TypeError, AttributeError, IndexError, OverflowError) as e:
                first = checkpoint.first_line(e)
                raise ScopaError(f"{where} cannot be resumed: its {key} ({type(e).__name__}: "
                                 f"{first})") from None
        counters = dict(ckpt["counters"])        # checkpoint.check: a table with every counter
        self.name = counters.pop("run_name")
        self.counters.update(counters)
        if not self.optimizer.state and self.counters["steps"] > 0 and not self.cfg.init_from:
            # an empty state is a run whose iterations had nothing to learn yet (tiny settings:
            # no episode ended), so its weights are still the seed's; trained weights with none
            # would resume with Adam's moments reset: not the updates of a run never stopped.
            # (A fine-tuning run starts from init_from's weights, which may be gone: not checked.)
            trained = [k for k, v in self.model.state_dict().items() if not torch.equal(v, template["model"][k])]
            if trained:
                raise ScopaError(f"{where} cannot be resumed: its optimizer state is empty, but its "
                                 f"network was trained (step {self.counters['steps']:,}; "
                                 f"{trained[0]!r} differs from the seed's initial weights)")
        wrong = (saved_state.misshapen(ckpt["algo_state"], template["algo_state"], "algo_state")
                 or saved_state.misshapen_optimizer(self.optimizer, self.model, template["optimizer"],
                                                  ckpt["optimizer"]))
        if wrong:                                   # again only an edited file with a new checksum
            raise ScopaError(f"{where} cannot be resumed: its {wrong}")
        why = check_network_scores(self.model, self.cfg.rules)    # reported as divergence (review)
        if why:
            raise ScopaError(f"{where} cannot be resumed: its network ({why})")
        misfit = saved_state.ppo_misfit if self.cfg.algo == "ppo" else saved_state.dmc_misfit
        wrong = misfit(self.algo)
        if wrong:
            raise ScopaError(f"{where} cannot be resumed: its {wrong}")
        if self.algo.steps != self.counters["steps"]:     # only an edited file with a new checksum
            raise ScopaError(f"{where} cannot be resumed: its {self.cfg.algo} state is at step "
                             f"{self.algo.steps:,} and its counters at step "
                             f"{self.counters['steps']:,}")
        if self.cfg.algo == "dmc" and "epsilon_span" not in ckpt["algo_state"]:
            # saved before the span was kept: the budget of the config saved with it (a resume
            # may have given a new total_steps, which must not move the schedule)
            total = dict(ckpt["config"]).get("total_steps")
            if isinstance(total, int) and total > 0:
                from .dmc import epsilon_span
                self.algo.epsilon_span = epsilon_span(self.cfg, total)
        span = getattr(self.algo, "epsilon_span", 1.0)
        if not 1.0 <= span < float("inf"):                  # nan too; an edited file again
            raise ScopaError(f"{where} cannot be resumed: its exploration span is {span!r} steps")

    def save(self, tag: str | None = None) -> None:
        """The step file `tag`, the old ones pruned, and latest.pt: Ctrl-C, SIGTERM and SIGHUP act
        once all are done (one landing during the step file's write left a 4th step file and a
        latest.pt one checkpoint behind it, and the resume went back to it: review)."""
        d = self.to_checkpoint()
        first = not self.checkpointed
        if first:
            # a run's first checkpoint is latest.pt: killed between two writes, a folder holding
            # only a step_*.pt refused a new run of its name and had no latest.pt to resume
            self._write_first(d)
        with deferred_interrupts():
            if tag:
                self._write(d, self.ckpt_dir / f"{tag}.pt")
                for old in periodic_checkpoints(self.ckpt_dir)[:-KEEP_PERIODIC]:
                    try:
                        old.unlink()
                    except OSError as e:
                        raise ScopaError(f"cannot remove the old checkpoint {str(old)!r} "
                                         f"({e.strerror or checkpoint.first_line(e)})") from None
            if not first:
                self._write(d, self.ckpt_dir / "latest.pt")

    def _write_first(self, d: dict) -> None:
        """The run's first latest.pt, and the note that it exists, together: a Ctrl-C held off
        during the write (save_atomic) acts after both (it said no checkpoint was written)."""
        with deferred_interrupts():
            self._write(d, self.ckpt_dir / "latest.pt")
            self.checkpointed = True

    @staticmethod
    def _write(d: dict, path: Path) -> None:
        """save_atomic, a failed write (a full disk) one ScopaError: the file there is untouched."""
        try:
            checkpoint.save_atomic(d, path)
        except OSError as e:
            raise ScopaError(f"cannot write the checkpoint {str(path)!r} "
                             f"({e.strerror or checkpoint.first_line(e)}); the file there, if "
                             f"any, is as it was") from None

    def prepare_folders(self) -> None:
        """Create the run's checkpoint and log folders before anything is trained (an unusable
        folder is one ScopaError naming it) and take the checkpoint folder's lock (`.lock`, held
        until train() returns): two processes never train into one folder, whether two resumes of
        a run or two new runs of one name started at once. A new run never writes into a folder
        holding checkpoints: a name given in the config is refused (--resume continues that run);
        a default name, taken within the same second by a run of the same algo and seed, gets a
        suffix (-2, -3, ...)."""
        # the config goes to TensorBoard as TOML (_train): a value TOML cannot hold (a byte that
        # is not UTF-8 in --run-name or --runs-dir) is refused here, before any folder is made;
        # it was a traceback from TensorBoard's writer after both were (review)
        self.cfg.to_toml()
        base, k = self.name, 1
        while True:
            # the folders this start creates, deepest first: a failed start removes them
            # as absolute paths without '..' ('c2/..' could not be removed and stopped the
            # removal; 'c2/../mine' seemed missing while 'mine' was there, and was removed)
            chain = [Path(os.path.abspath(f)) for f in (self.ckpt_dir, *self.ckpt_dir.parents)
                     if f.name != ".."]
            created = [f for f in dict.fromkeys(chain) if not f.exists()]
            self._mkdir("checkpoint folder", self.ckpt_dir)
            holder, held = self._lock_folder(), ""
            if holder is None:
                held = "" if self.resumed else _checkpoints_in(self.ckpt_dir)
                # a default name whose log folder a live run of that name holds (its checkpoints
                # in another folder) takes the next suffix too: _lock_logs refused it (a review)
                taken = not (self.resumed or self.cfg.run_name) and self._log_folder_taken()
                if not held and not taken:
                    break
                self.release_folder()
                if taken and created:   # the folder made for this name: empty but its .lock
                    (self.ckpt_dir / LOCK_FILE).unlink(missing_ok=True)
                    self.ckpt_dir.rmdir()
                # taken: a default name (neither resumed nor named), to the next suffix below
            if self.resumed:
                raise ScopaError(f"run {self.name} is being trained by another process (pid "
                                 f"{holder}) in {str(self.ckpt_dir)!r}: wait for it or stop it; "
                                 f"two processes would write the same checkpoints")
            if self.cfg.run_name:
                if holder is not None:
                    raise ScopaError(f"checkpoint folder {str(self.ckpt_dir)!r} is in use by "
                                     f"another training process (pid {holder}): give a new run "
                                     f"another --run-name")
                if (self.ckpt_dir / "latest.pt").is_file():
                    resume = self._resume_arg()
                else:           # only periodic or best files: --resume NAME would find nothing
                    resume = newest_checkpoint(self.ckpt_dir)
                how = "" if resume is None else f"--resume {resume} continues that run, or "
                raise ScopaError(f"checkpoint folder {str(self.ckpt_dir)!r} already holds a "
                                 f"run's checkpoints ({held}): {how}give a new run another "
                                 f"--run-name")
            k += 1
            self.name = f"{base}-{k}"
            self.ckpt_dir = Path(self.cfg.checkpoints_dir) / self.name
        # a new run in a checkpoint folder that was there without checkpoints: an earlier start
        # of the run stopped before its first one (its logs are purged, _train)
        ckpt_made = Path(os.path.abspath(self.ckpt_dir)) in created
        self.restarted = not self.resumed and not ckpt_made
        logs = self.log_dir
        try:
            if self.resumed:
                self._refuse_going_back()
                self._refuse_purging_the_runs_logs()
            _check_log_name(logs)
            # the run's two folders where this start made them: a run stopped before its first
            # checkpoint names them (train.py), and only them: a log folder that was there may
            # hold another run's events (the diff review)
            self.made_folders = [f for f, made in
                                 ((logs, not logs.exists()), (self.ckpt_dir, ckpt_made)) if made]
            self._mkdir("log folder", logs)
            self._check_writable()
            self._check_log_writable(logs)
            self._lock_logs(logs)
        except ScopaError:
            if created:         # a failed start left a run folder holding only its .lock
                try:            # removed while the lock is held: no other run can be in it
                    (self.ckpt_dir / LOCK_FILE).unlink(missing_ok=True)
                    for folder in created:  # and the --checkpoints-dir folders it made
                        folder.rmdir()
                except OSError:     # something else is in it: it stays, and those above it
                    pass
            self.release_folder()
            raise

    def _refuse_going_back(self) -> None:
        """A resumed run writes into its own folder (checkpoints_dir / its run name). If that
        folder's latest.pt is another run's (a config that differs beyond what a resume may
        change: a run folder renamed and a new run of the old name begun, another working
        directory), resuming would overwrite it: refused. Resumed from an earlier file of the
        same run (a step_*.pt, best.pt) it would overwrite a later latest.pt, and its own periodic
        files, numbered below the later ones, would be the first pruned: refused, naming both ways
        on. A latest.pt that cannot be read does not stop it: resuming an earlier file is how a
        run recovers from one."""
        latest = self.ckpt_dir / "latest.pt"
        there = _readable_latest(latest)
        if there is None:
            return
        later, theirs = there
        mine = self.cfg.to_dict()
        # a config this version cannot read is not compared; its steps still are
        differ = [] if theirs is None else self._differing(theirs)
        if differ:
            k = differ[0]
            raise ScopaError(f"the run folder {str(self.ckpt_dir)!r} holds another run's checkpoints "
                             f"({k} {theirs.get(k)!r} there, {mine[k]!r} in this checkpoint): "
                             f"resuming here would overwrite them; resume this checkpoint with "
                             f"another --checkpoints-dir"
                             + (f" (--resume {str(self.source_path)} --checkpoints-dir OTHER)"
                                if self.source_path is not None else ""))
        steps = int(self.counters["steps"])
        if later > steps:
            raise ScopaError(f"this checkpoint is at {steps:,} steps but the run's {str(latest)!r} is "
                             f"at {later:,}: resuming it here would overwrite the later checkpoints. "
                             f"--resume {self._resume_arg()} continues the run; to branch from this file, resume "
                             f"it with another --checkpoints-dir and --runs-dir")

    def _refuse_purging_the_runs_logs(self) -> None:
        """A branch (an earlier file of a run resumed into another checkpoints folder while the
        run itself went on) would log into the run's own TensorBoard folder, and its writer drops
        every event logged there after the resumed step (purge_step, there to clear what a killed
        run logged past its checkpoint): the run's later curves and final evaluation were lost.
        Refused unless the branch logs elsewhere (--runs-dir). The run's latest.pt is looked
        for beside the file resumed and in the run's own folder (the checkpoints folder it was
        saved with / its name: a step file copied out of it went through; review), there only
        when it holds the same run (its config as this one's, but for what a resume changes)."""
        src = self.source_path
        if src is None or src.parent.resolve() == self.ckpt_dir.resolve():
            return          # resumed in its own folder: _refuse_going_back has looked
        steps = int(self.counters["steps"])
        later, latest, live = steps, None, None
        home = None if self.saved_checkpoints_dir is None else self.saved_checkpoints_dir / self.name
        for folder in (src.parent, home):
            if folder is None or folder.resolve() == self.ckpt_dir.resolve():
                continue
            candidate = folder / "latest.pt"
            # the file resumed is not read again: only its folder's lock matters below
            there = None if candidate.resolve() == src.resolve() else _readable_latest(candidate)
            if folder is home and (there is None or there[1] is None or self._differing(there[1])):
                continue
            # a process training the run there goes on past this step, even from the latest.pt
            # resumed here (a branch of a live run was let through: review)
            holder = _lock_holder(folder)
            if holder is not None and live is None:
                live = (folder, holder)
            if there is not None and there[0] > later:
                later, latest = there[0], candidate
        logs = self.log_dir
        if (latest is not None or live is not None) and logs.is_dir() and \
                any(p.name != LOCK_FILE for p in logs.iterdir()):
            went_on = (f"{str(latest)!r} went on to {later:,}" if latest is not None else
                       f"another process (pid {live[1]}) still trains it in {str(live[0])!r}")
            raise ScopaError(f"this resume branches run {self.name!r} at {steps:,} steps, where "
                             f"{went_on}: its TensorBoard logs would go "
                             f"to the run's own folder {str(logs)!r} and drop every event logged "
                             f"there after step {steps:,}; give the branch another --runs-dir too")

    def _differing(self, theirs: dict) -> list[str]:
        """The keys where a latest.pt's config (from _readable_latest) is not this run's, but
        for what a resume may change."""
        mine = self.cfg.to_dict()
        return [k for k in mine if k not in RESUME_OVERRIDABLE and theirs.get(k) != mine[k]]

    def _resume_arg(self) -> str:
        """What --resume takes to continue this run: its name in the default checkpoints folder,
        else its folder."""
        if Path(self.cfg.checkpoints_dir) == Path(TrainConfig.checkpoints_dir):
            return self.name
        return str(self.ckpt_dir)

    @staticmethod
    def _mkdir(what: str, folder: Path) -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ScopaError(f"cannot create the {what} {str(folder)!r} "
                             f"({e.strerror or checkpoint.first_line(e)})") from None

    def _check_writable(self) -> None:
        """Write and delete a file in the checkpoint folder: a read-only folder that still held a
        writable .lock (chmod a-w on a run folder) let a resume train its whole leg and fail at
        the first save, losing it (review). The probe is named as save_atomic's temporary files
        are, so a kill here leaves one that the next start deletes."""
        try:
            fd, probe = tempfile.mkstemp(dir=self.ckpt_dir, prefix=".write-check.pt.", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            raise ScopaError(f"cannot write in the checkpoint folder {str(self.ckpt_dir)!r} "
                             f"({e.strerror or checkpoint.first_line(e)}): nothing was trained") from None

    @staticmethod
    def _check_log_writable(logs: Path) -> None:
        """An unwritable log folder (there already, read-only) failed only when TensorBoard's
        writer opened its file, after the start: a checkpoint folder holding only its .lock was
        left, and the error spoke of "the checkpoints written so far" where there were none
        (review). Probed here with a nameless file (O_TMPFILE where the file system has it), so a
        kill leaves nothing in the user's log folder."""
        try:
            tempfile.TemporaryFile(dir=logs).close()
        except OSError as e:
            raise ScopaError(f"cannot write the TensorBoard log in {str(logs)!r} "
                             f"({e.strerror or checkpoint.first_line(e)}): nothing was trained") from None

    def _lock_folder(self) -> str | None:
        """Take the checkpoint folder's lock: None when taken, else the holder's pid (as the lock
        file says it). The kernel drops the lock when its process ends, however it ends. Without
        fcntl (Windows) there is no lock, and nothing stops two processes (README)."""
        self._lock, holder = self._take_lock(self.ckpt_dir, self.lock_notes)
        return holder

    def _log_folder_taken(self) -> bool:
        """Whether another process holds this run's log folder (not the checkpoint folder,
        which this process holds when the two are one)."""
        logs = self.log_dir
        return logs.is_dir() and not os.path.samefile(logs, self.ckpt_dir) and \
            _lock_holder(logs) is not None

    def _lock_logs(self, logs: Path) -> None:
        """Take the log folder's lock (`.lock` there too), held as the checkpoint folder's is. Two
        runs of one name with their checkpoints in two folders log to the same folder: one of
        them starting again where it had saved nothing purged the other's live curves from
        TensorBoard, and two live runs made one series of both (left alone at earlier stops).
        A log folder that is the checkpoint folder (--runs-dir as --checkpoints-dir) is locked
        already."""
        if os.path.samefile(logs, self.ckpt_dir):
            return
        self._log_lock, holder = self._take_lock(logs, self.lock_notes)
        if holder is not None:
            raise ScopaError(f"the TensorBoard log folder {str(logs)!r} is in use by another "
                             f"training process (pid {holder}), a run of this name with its "
                             f"checkpoints elsewhere: give this run another --run-name or "
                             f"--runs-dir")

    @staticmethod
    def _take_lock(folder: Path, notes: list):
        """(the open lock file, None) when this process takes `folder`'s lock; (None, the
        holder's pid) when another holds it; (None, None) without fcntl, and where the file
        system cannot lock files, which `notes` then says for the run's log."""
        if fcntl is None:
            return None, None
        path = folder / LOCK_FILE
        try:
            f = _open_lock(path, create=True)
        except OSError as e:
            raise ScopaError(f"cannot create the lock file {str(path)!r} "
                             f"({e.strerror or checkpoint.first_line(e)})") from None
        try:
            holder = _flock_or_holder(f)
        except _NoLocks as e:
            f.close()
            notes.append(f"note: {folder} is on a file system that cannot lock files ({e}): nothing "
                         f"stops a second training process from using it at the same time")
            return None, None
        if holder is not None:
            f.close()
            return None, holder
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        return f, None

    def release_folder(self) -> None:
        """Drop the checkpoint and log folders' locks (their files stay; the locks are the
        kernel's), and the notes of folders that could not be locked: a default name moving on
        to its next suffix noted the folder it left (the diff review)."""
        self.lock_notes.clear()
        for attr in ("_lock", "_log_lock"):
            lock = getattr(self, attr)
            setattr(self, attr, None)
            if lock is not None:
                lock.close()

    # ---- evaluation --------------------------------------------------------------------------
    def evaluate(self, opponents, matches: int) -> dict:
        from .evaluation import evaluate_model
        return evaluate_model(self.model, opponents, matches, seed=offset_seed(self.cfg.seed, 12345),
                              rules=self.cfg.rules)

    def periodic_eval(self, writer) -> None:
        cfg = self.cfg
        results = self.evaluate(cfg.eval_opponents, cfg.eval_matches)
        step = self.counters["steps"]
        for opp, r in results.items():
            writer.add_scalar(f"eval/win_rate_vs_{opp}", r["win_rate"], step)
            writer.add_scalar(f"eval/points_per_hand_vs_{opp}", r["points_per_hand"], step)
        score = float(np.mean([r["points_per_hand"] for r in results.values()]))
        best = self.counters["best_score"]
        summary = ", ".join(f"{o} {r['win_rate']:.0%} ({r['points_per_hand']:+.2f} pts/hand)"
                            for o, r in results.items())
        self.log(f"[eval @ {step:,} steps] {summary}")
        if best is None or score > best:
            self.counters["best_score"] = score
            d = self.to_checkpoint()
            if not self.checkpointed:
                # best.pt is never a run's only checkpoint: the first one comes after a latest.pt,
                # so a kill or Ctrl-C at any moment leaves a run that --resume continues (and a
                # new run of this name is rightly refused)
                self._write_first(d)
            self._write(d, self.ckpt_dir / "best.pt")

    # ---- the loop ----------------------------------------------------------------------------
    def train(self, stop_at: int | None = None) -> dict:
        """Run to the step budget (or to `stop_at` steps, leaving the run resumable), evaluate;
        the checkpoint folder is locked meanwhile."""
        if stop_at is not None and stop_at < 1:
            raise ScopaError(f"--stop-at must be a number of steps, at least 1, got {stop_at}")
        self.prepare_folders()
        # torch's threads are the run's while it trains, the caller's again after (set in the
        # constructor, they stayed the run's for the rest of a Python session: review)
        threads = torch.get_num_threads()
        torch.set_num_threads(self.cfg.torch_threads)
        try:
            with quiet_log_thread():
                return self._train(stop_at)
        finally:
            torch.set_num_threads(threads)
            self.release_folder()

    def _train(self, stop_at: int | None) -> dict:
        cfg, c = self.cfg, self.counters
        # a resumed run may follow a process killed after its last checkpoint, whose logs went
        # past it: TensorBoard drops the events after the checkpoint's step, which this process
        # logs again (the evaluation logged at that step stays). A new run started in the
        # checkpoint folder of an earlier start that stopped before its first checkpoint (killed,
        # interrupted: the folder was there, empty) drops that start's events: the curves showed
        # the dead start's steps, then this run's same steps again (review). Events beside a
        # checkpoint folder this start made are another run's (its checkpoints elsewhere): kept
        logs = self.log_dir
        earlier = sorted(logs.glob("events.out.tfevents.*")) if self.restarted else []
        others = not self.resumed and not earlier and any(logs.glob("events.out.tfevents.*"))
        writer = TensorBoardLog(logs, purge_step=c["steps"] + 1 if self.resumed else
                                (0 if earlier else None))
        try:
            return self._train_logged(stop_at, writer, logs, earlier, others)
        finally:
            # a run that raised (a failed checkpoint write, an interrupt, an error in a step)
            # left the writer's thread running and its events file open: one of each per failed
            # Run.train() in a Python session (review); closed quietly here, the error raised is
            # the run's own (a writer closed on the way out is closed again at no cost)
            writer.close_quietly()

    def _train_logged(self, stop_at: int | None, writer, logs: Path, earlier: list,
                      others: bool) -> dict:
        from tqdm import tqdm

        cfg, c = self.cfg, self.counters
        if earlier:
            # not necessarily a start that stopped early: its checkpoints may have been deleted
            self.log(f"note: {logs} held TensorBoard events ({len(earlier)} file"
                     f"{'s' if len(earlier) > 1 else ''}) from before this start, and "
                     f"{self.ckpt_dir} no checkpoint; TensorBoard shows this run's instead (the "
                     f"files stay)")
        elif others:
            # another run of this name (its checkpoint folder deleted, or elsewhere): its curves
            # and this run's became one series without a word (review)
            self.log(f"note: {logs} already holds TensorBoard events of another run named "
                     f"{self.name}; TensorBoard shows the two as one run (remove {logs}, or give "
                     f"another --run-name, to keep them apart)")
        for note in self.lock_notes:
            self.log(note)
        self.lock_notes.clear()     # said once for each time the folders are taken
        writer.add_text("config", "```toml\n" + cfg.to_toml() + "```", c["steps"])
        for tmp in checkpoint.remove_partial_saves(self.ckpt_dir):
            # a name with a control character (a file made by hand) is shown escaped: it reached
            # the terminal raw (left alone at an earlier stop)
            shown = repr(tmp.name) if has_control(tmp.name) else tmp.name
            self.log(f"removed {shown}, a checkpoint save cut short")
        self.log(f"run {self.name}: {cfg.algo}, {cfg.total_steps:,} steps, logs in "
                 f"{self.log_dir}, checkpoints in {self.ckpt_dir}")
        from agents.arena import round_matches
        for name, used in (("eval_matches", cfg.eval_every > 0),
                           ("final_matches", cfg.final_matches > 0 and cfg.final_opponents)):
            given = getattr(cfg, name)
            if used and round_matches(given, cfg.rules) != given:
                # duplicate deals: each deal once per side (evaluate.py refuses such a count)
                self.log(f"{name} {given} is played as {round_matches(given, cfg.rules)} "
                         f"(a multiple of the {cfg.rules.teams} sides: each deal once per side)")
        # no bar object at all without a terminal: tqdm's, even disabled, made a multiprocessing
        # lock (fixing the process's start method: a caller's set_start_method("spawn") after
        # train() failed) and started its monitor thread (a side-effects review)
        bar = tqdm(total=cfg.total_steps, initial=min(c["steps"], cfg.total_steps), unit="step",
                   unit_scale=True, dynamic_ncols=True) if sys.stderr.isatty() else \
            _NoBar(cfg.total_steps, min(c["steps"], cfg.total_steps))
        log = self.log
        if not bar.disable and log is print:
            # a line printed under a live bar landed on the bar's own line
            self.log = lambda *a, **k: bar.write(" ".join(map(str, a)))
        # durations on the monotonic clock: the wall clock jumps with a suspend or an NTP step,
        # which stopped a --max-minutes run at once (or pushed SPS to 1e12 going back: review)
        start, start_elapsed, leg_start = time.monotonic(), c["elapsed_s"], c["steps"]
        stopped_by_time = False
        end = cfg.total_steps if stop_at is None else min(stop_at, cfg.total_steps)
        if c["steps"] >= end:      # a resume past its budget: say so rather than seem to train
            limit = "--stop-at" if end < cfg.total_steps else "total_steps"
            self.log(f"nothing to train: the run is at {c['steps']:,} steps, {limit} is {end:,}")
        try:
            while c["steps"] < end:
                t0 = time.monotonic()
                stats = self.algo.iterate()
                done = self.algo.steps - c["steps"]
                c["steps"] = self.algo.steps
                c["iterations"] += 1
                c["elapsed_s"] = start_elapsed + time.monotonic() - start
                # the last iteration overshoots total_steps: tqdm then dropped the % and ETA
                bar.update(max(0, min(done, bar.total - bar.n)))
                writer.add_scalar("charts/SPS", done / max(time.monotonic() - t0, 1e-9), c["steps"])
                for k, v in stats.items():
                    writer.add_scalar(k, v, c["steps"])
                # both schedules advance before anything is saved: a checkpoint written here
                # (best.pt, latest.pt, step_*) resumes past this step's evaluation and save
                eval_due = cfg.eval_every and c["steps"] >= c["next_eval"]
                save_due = cfg.checkpoint_every and c["steps"] >= c["next_checkpoint"]
                while eval_due and c["next_eval"] <= c["steps"]:
                    c["next_eval"] += cfg.eval_every
                while save_due and c["next_checkpoint"] <= c["steps"]:
                    c["next_checkpoint"] += cfg.checkpoint_every
                if eval_due:
                    self.periodic_eval(writer)
                if save_due:
                    self.save(f"step_{c['steps']:010d}")
                if cfg.max_minutes and c["elapsed_s"] - start_elapsed >= cfg.max_minutes * 60:
                    stopped_by_time = True
                    break
        finally:
            bar.close()
            self.log = log
        c["elapsed_s"] = start_elapsed + time.monotonic() - start
        self.save()
        # the budget is spent when the steps reach it, whichever limit stopped the loop (an
        # iteration crossing --stop-at and total_steps at once skipped the final evaluation)
        spent = c["steps"] >= cfg.total_steps
        # a run whose last iteration both spends the budget and reaches the time limit is done:
        # "(time limit)" there invited a --resume that had nothing left to train
        why = "step budget" if spent else "time limit" if stopped_by_time else "--stop-at"
        if c["steps"] == leg_start:     # a resume past its budget: "trained N steps" misled
            self.log(f"trained nothing this time: the run is at {c['steps']:,} steps ({why}); "
                     f"latest checkpoint {self.ckpt_dir / 'latest.pt'}")
        else:
            # a resumed run's totals count every leg; this leg's share is said beside them (the
            # total read as this leg's time, which --max-minutes limits; review)
            leg = (f", this leg {c['steps'] - leg_start:,} steps in "
                   f"{duration(c['elapsed_s'] - start_elapsed)}" if leg_start else "")
            self.log(f"trained {c['steps']:,} steps in {duration(c['elapsed_s'])}{leg} ({why}); "
                     f"latest checkpoint {self.ckpt_dir / 'latest.pt'}")
        results = {}
        if not spent and not stopped_by_time:
            writer.close()
            return results
        if cfg.final_matches and cfg.final_opponents:
            from .evaluation import format_table
            t0 = time.monotonic()
            results = self.evaluate(cfg.final_opponents, cfg.final_matches)
            # tags of their own: a periodic evaluation (other matches) is often at this step. A
            # resume of a finished run evaluates again and adds its points at the same step
            for opp, r in results.items():
                writer.add_scalar(f"final/win_rate_vs_{opp}", r["win_rate"], c["steps"])
                writer.add_scalar(f"final/points_per_hand_vs_{opp}", r["points_per_hand"], c["steps"])
            self.log(format_table(results, f"Final evaluation of {self.name} ({c['steps']:,} steps; "
                                           f"duplicate deals, {time.monotonic() - t0:.0f} s):"))
        writer.close()
        return results


class _NoBar:
    """The progress bar's place without a terminal: counts, shows nothing."""
    disable = True

    def __init__(self, total: int, initial: int):
        self.total, self.n = total, initial

    def update(self, n: int) -> None:
        self.n += n

    def close(self) -> None:
        pass


def _checkpoints_in(folder: Path) -> str:
    """The checkpoint files (latest.pt, best.pt, step_*.pt) a run folder holds, named; '' if none."""
    if not folder.is_dir():
        return ""
    held = sorted(p.name for p in folder.iterdir()
                  if p.name in ("latest.pt", "best.pt") or
                  (p.name.startswith("step_") and p.name.endswith(".pt")))
    return ", ".join(held[:3]) + (", ..." if len(held) > 3 else "")


def _readable_latest(latest: Path) -> tuple[int, dict | None] | None:
    """A run's latest.pt as the resume checks read it: its steps and its config as a dict (None
    when the config is not one this version reads), or None when there is no file or it cannot
    be read (resuming an earlier file is how a run recovers from an unreadable latest.pt, so that
    does not stop a resume)."""
    if not latest.is_file():
        return None
    try:
        there = checkpoint.load(latest)
        steps = int(there["counters"]["steps"])
    except (ScopaError, KeyError, TypeError, ValueError):
        return None
    try:
        return steps, make_config(saved_config(dict(there["config"]))).to_dict()
    except (ScopaError, KeyError, TypeError, ValueError):
        return steps, None


def _unchanged(saved: dict, overrides: dict, keys) -> set:
    """Those of `keys` whose override leaves the saved config as it is (the rules, for a rules
    key); none when the saved config cannot be made, and not a key whose own config cannot be.
    The keys that touch the rules count together: `--rules napola --set rules.target=31` on a
    run of those rules was refused, `--rules napola` alone meaning target 21 (review)."""
    try:
        old = make_config(saved)
    except ScopaError:
        return set()
    same = set()
    rules_keys = set(rules_overrides({k: overrides[k] for k in keys}))
    if rules_keys:
        try:
            if make_config(saved, **{k: overrides[k] for k in rules_keys}) == old:
                same |= rules_keys
        except ScopaError:
            pass
    for key in set(keys) - rules_keys:
        try:
            if make_config(saved, **{key: overrides[key]}) == old:
                same.add(key)
        except ScopaError:
            pass
    return same


def _unknown_saved_keys(saved: dict) -> list[str]:
    """The keys of a checkpoint's stored config (and of its rules table) that this version's
    TrainConfig and Rules do not have, as config keys ('rules.X' for a rules option)."""
    keys = sorted(k for k in saved if k not in FIELDS and k not in LEGACY_RULES_KEYS)
    table = saved.get("rules")
    if isinstance(table, dict):
        keys += sorted(f"rules.{k}" for k in table if k != "preset" and k not in RULES_KEYS)
    return keys


def start(cfg: TrainConfig, resume: str | None = None, overrides: dict | None = None,
          log=print) -> Run:
    """A new run from `cfg`, or the run saved at `resume` with budget/reporting `overrides`."""
    if resume is None:
        return Run(cfg, log=log)
    path = resolve_resume(resume, cfg.checkpoints_dir)
    try:
        ckpt = checkpoint.load(path)
    except ScopaError as e:
        other = newest_checkpoint(path.parent) if path.name == "latest.pt" else None
        if other is None:
            raise
        raise ScopaError(f"{e}; the run's newest other checkpoint is {str(other)!r}: --resume "
                         f"{str(other)} continues from it") from None
    if not checkpoint.resumable(ckpt):
        raise ScopaError(f"{resume!r} holds an agent only (no optimizer/environment state): "
                         "it cannot be resumed")
    overrides = dict(overrides or {})
    saved = ckpt["config"]
    if not isinstance(saved, dict):
        raise ScopaError(f"{resume!r} holds no config table (got {type(saved).__name__}): it cannot "
                         "be resumed")
    newer = _unknown_saved_keys(saved)
    if newer:       # "unknown config key" read as a typo of the user's (review)
        raise ScopaError(f"{str(path)!r}: the checkpoint's config has key {newer[0]!r}, which this "
                         f"version does not know: {NEWER_FILE}; resume it with the version that "
                         f"wrote it")
    if not {"final_opponents", "final_matches"} & set(overrides):
        saved = saved_config(saved)     # the resume's own values for these are taken as given
    for key in _unchanged(saved, overrides, set(overrides) - RESUME_OVERRIDABLE):
        del overrides[key]          # --seed 1 on a seed-1 run: "cannot change" to what it is
    counters = ckpt.get("counters")
    if isinstance(counters, dict) and "run_name" in overrides and not saved.get("run_name") and \
            overrides["run_name"] == counters.get("run_name"):
        # a default-named run stores run_name '' and its name in the counters: its own name
        # was refused as a change (review)
        del overrides["run_name"]
    bad = sorted(set(overrides) - RESUME_OVERRIDABLE)
    if bad:
        trained = ""
        if bad[0] == "rules" or bad[0].startswith("rules.") or bad[0] in LEGACY_RULES_KEYS:
            def named(r: Rules) -> str:
                return preset_name(r) or r.describe()
            asked = overrides[bad[0]]
            shown = option_text(asked) if isinstance(asked, bool) else repr(asked)
            asked = f"rules {named(asked)}" if isinstance(asked, Rules) else f"{bad[0]}={shown}"
            several = rules_overrides(overrides)
            if len(several) > 1:    # the rules they ask for together, not the first key's
                try:
                    asked = f"rules {named(make_config(saved, **several).rules)}"
                except ScopaError:
                    pass
            try:       # name both rules sets, as an agent for other rules does
                trained = f": the run trains for rules {named(Rules.from_dict(ckpt.get('rules')))}, not {asked}"
            except (ScopaError, TypeError):
                trained = f": the run's rules cannot change, not {asked}"
        raise ScopaError(f"config key {bad[0]!r} cannot change when resuming{trained} (only "
                         f"{', '.join(sorted(RESUME_OVERRIDABLE))} may)")
    # checked with the overrides applied: a saved value that today's checks refuse (eval_matches
    # = 0 with evaluations on, say) can be overridden on resume
    try:
        cfg = make_config(saved, **(overrides or {}))
    except ScopaError as e:
        # the stored config's own error says so (an override's is the override's)
        try:
            make_config(saved)
        except ScopaError as own:
            if str(own) == str(e):
                raise ScopaError(f"{path}: the checkpoint's config: {e}") from None
        raise
    check_read(overrides, cfg)      # --eval-matches on a run without evaluations (review)
    if checkpoint.rules_of(ckpt) != cfg.rules:
        raise ScopaError(f"checkpoint rules ({checkpoint.rules_of(ckpt).describe()}) do not match "
                         f"its config's ({cfg.rules.describe()})")
    run = Run(cfg, resume=ckpt, log=log, source=str(path))
    try:
        was = tuple(make_config(eval_opponents=saved.get("eval_opponents",
                                                         TrainConfig.eval_opponents)).eval_opponents)
    except ScopaError:
        was = ()
    if run.counters["best_score"] is not None and sorted(cfg.eval_opponents) != sorted(was):
        # best.pt's score is a mean over the evaluation opponents: another set measures
        # something else, and the saved best would be compared with it (the same set in another
        # order measures the same: each opponent's deals are seeded alike, review)
        run.counters["best_score"] = None
        log(f"evaluation opponents changed ({', '.join(was)} -> {', '.join(cfg.eval_opponents)}): "
            f"best.pt starts again from the next evaluation")
    was_matches = saved.get("eval_matches", TrainConfig.eval_matches)
    if run.counters["best_score"] is not None and cfg.eval_matches != was_matches:
        # another number of matches is another measurement: a best of 40 matches was replaced
        # by a lucky 2-match score without a word (review)
        run.counters["best_score"] = None
        log(f"evaluation matches changed ({was_matches} -> {cfg.eval_matches}): best.pt starts "
            f"again from the next evaluation")
    # a new interval starts a new schedule: the next one at the first multiple of it past the
    # run's steps (an unchanged interval keeps the saved counter, exactly as an unstopped run)
    for key, counter in (("eval_every", "next_eval"), ("checkpoint_every", "next_checkpoint")):
        every = getattr(cfg, key)
        if every and every != saved.get(key, getattr(TrainConfig, key)):
            run.counters[counter] = (run.counters["steps"] // every + 1) * every
        elif not every:     # none scheduled: 0, as a run started so has (README; review)
            run.counters[counter] = 0
    return run
