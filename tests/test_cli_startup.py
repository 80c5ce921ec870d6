"""What every CLI does at its edges: Ctrl-C while it loads its modules (numba's caches take
about half a second) is the CLI's one line, not a traceback (made deterministic: an import hook
raises KeyboardInterrupt when the CLI first imports the project's packages); a bad flag is one
line, not argparse's usage block; a reader that goes away (`| head -1`) ends it quietly."""
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from scopa_env import cli as scopa_cli

ROOT = Path(__file__).resolve().parents[1]

INTERRUPT_ON_IMPORT = """
import runpy, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("agents", "scopa_env"):
            raise KeyboardInterrupt
        return None

for name in [m for m in sys.modules if m.split(".")[0] in ("agents", "scopa_env")]:
    del sys.modules[name]
sys.meta_path.insert(0, CtrlC())
sys.argv = [sys.argv[1]] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("cli, args, code, stdout, stderr", [
    ("evaluate.py", ["--agent", "easy", "--opponent", "random", "--matches", "2"], 130, "",
     "evaluate.py: interrupted; nothing written\n"),
    ("train.py", ["--total-steps", "100"], 130, "",
     "train.py: interrupted before the run started: nothing written\n"),
    ("play.py", ["--opponent", "easy"], 0, "\nCiao!\n", ""),
])
def test_ctrl_c_while_the_modules_load_is_one_line(cli, args, code, stdout, stderr, tmp_path):
    p = subprocess.run([sys.executable, "-c", INTERRUPT_ON_IMPORT, str(ROOT / cli), *args],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout, p.stderr) == (code, stdout, stderr), p.stderr
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_train_py_builds_its_parser_is_one_line(tmp_path):
    """train.py's parser imports the training package (torch), after the imports above: Ctrl-C
    there was a traceback and death by SIGINT (review)."""
    hook = INTERRUPT_ON_IMPORT.replace('("agents", "scopa_env")', '("training",)')
    p = subprocess.run([sys.executable, "-c", hook, str(ROOT / "train.py"), "--total-steps", "100"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout, p.stderr) == (
        130, "", "train.py: interrupted before the run started: nothing written\n"), p.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, line", [
    (["train.py", "--stop-at", "abc"], "train.py: error: argument --stop-at: invalid int value: 'abc'"),
    (["evaluate.py", "--matches", "x"], "evaluate.py: error: argument --matches: invalid int value: 'x'"),
    (["play.py", "--target", "abc"], "play.py: error: argument --target: invalid int value: 'abc'"),
    (["-m", "scopa_env.simulate", "--seed", "s"],
     "python -m scopa_env.simulate: error: argument --seed: invalid int value: 's'"),
    # a flag given twice kept the last value without a word (play.py played hard)
    (["play.py", "--opponent", "easy", "--opponent", "hard"],
     "play.py: error: --opponent given twice: 'easy' and 'hard'"),
    (["evaluate.py", "--agent", "easy", "--opponent", "random", "--matches", "2", "--matches", "4"],
     "evaluate.py: error: --matches given twice: 2 and 4"),
    (["-m", "scopa_env.simulate", "--seed", "1", "--seed", "2"],
     "python -m scopa_env.simulate: error: --seed given twice: 1 and 2"),
    (["train.py", "--resume", "a", "--resume", "b"], "train.py: error: --resume given twice: 'a' and 'b'"),
    # --list-rules ignored every other flag, bad values included (review)
    (["train.py", "--list-rules", "--seed", "-1", "--resume", "t1"],
     "train.py: error: --list-rules lists the rules presets and does nothing else: drop --resume, --seed"),
    (["play.py", "--list-rules", "--opponent", "bogus"],
     "play.py: error: --list-rules lists the rules presets and does nothing else: drop --opponent"),
    (["evaluate.py", "--list-rules", "--matches", "3"],
     "evaluate.py: error: --list-rules lists the rules presets and does nothing else: drop --matches"),
    (["-m", "scopa_env.simulate", "--list-rules", "--napola"],
     "python -m scopa_env.simulate: error: --list-rules lists the rules presets and does nothing else: "
     "drop --napola"),
    # a flag typed at its own default passed (the check compared values with the defaults)
    (["play.py", "--list-rules", "--rules", "classic"],
     "play.py: error: --list-rules lists the rules presets and does nothing else: drop --rules"),
    (["evaluate.py", "--list-rules", "--seed", "0"],
     "evaluate.py: error: --list-rules lists the rules presets and does nothing else: drop --seed"),
    (["-m", "scopa_env.simulate", "--list-rules", "--rules", "classic"],
     "python -m scopa_env.simulate: error: --list-rules lists the rules presets and does nothing else: "
     "drop --rules"),
    (["train.py", "--print-config", "--stop-at", "5"],
     "train.py: error: --print-config prints the config and trains nothing: drop --stop-at"),
])
def test_a_bad_flag_is_one_line(argv, line, tmp_path):
    """argparse's own errors printed its usage block first (17 lines for train.py)."""
    cmd = [str(ROOT / argv[0])] if argv[0].endswith(".py") else argv[:2]
    rest = argv[1:] if argv[0].endswith(".py") else argv[2:]
    p = subprocess.run([sys.executable, *cmd, *rest], capture_output=True, text=True, cwd=ROOT,
                       timeout=300, stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stderr) == (2, line + "\n")


@pytest.mark.parametrize("argv", [["train.py", "--list-rules"], ["train.py", "--print-config"],
                                  ["evaluate.py", "--list-rules"], ["play.py", "--list-rules"],
                                  # its table: "error: Broken pipe", exit 2 (review)
                                  ["evaluate.py", "--agent", "easy", "--opponent", "random", "--matches", "2"],
                                  ["play.py", "--opponent", "easy", "--seed", "3"],
                                  ["-m", "scopa_env.simulate", "--list-rules"],
                                  # 'error: Broken pipe', exit 2, or Python's 'Exception ignored'
                                  # at exit, exit 120 (review)
                                  ["benchmarks/bench_hard.py", "--matches", "1", "--budget", "300"],
                                  ["benchmarks/opponent_fit.py", "--level", "easy", "--pairs", "2"]])
@pytest.mark.parametrize("buffered", [False, True])
def test_output_into_a_closed_pipe_ends_quietly(argv, buffered):
    """`python train.py --list-rules | head -1`: the reader may be gone before the CLI writes. Here
    it always is (the pipe's read end is closed first): no BrokenPipeError traceback, exit 0."""
    cmd = [str(ROOT / argv[0]), *argv[1:]] if argv[0].endswith(".py") else argv
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:     # block-buffered, simulate's output met the closed pipe only at exit
        env["PYTHONUNBUFFERED"] = "1"
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, *cmd], stdout=w, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL, env=env)
    finally:
        os.close(w)
    assert (p.returncode, p.stderr) == (0, "")


@pytest.mark.parametrize("buffered", [False, True])
def test_a_closed_pipe_that_loses_evaluate_py_files_says_so(buffered, tmp_path):
    """evaluate.py stopped at its first line into a closed pipe and dropped the --json and
    --record files it was asked for without a word, exit 0 (review): said on stderr, exit 1
    (block-buffered too: the table's lines are flushed as they come)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--agent", "easy", "--opponent",
                            "random", "--matches", "2", "--json", "x.json", "--record", "r.jsonl"],
                           stdout=w, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=300,
                           stdin=subprocess.DEVNULL, env=env)
    finally:
        os.close(w)
    assert (p.returncode, p.stderr) == (1, "evaluate.py: standard output was closed before the "
                                           "evaluation ended: stopped, nothing written to --record "
                                           "r.jsonl, --json x.json\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["train.py", "--list-rules"], ["train.py", "--print-config"],
                                  ["evaluate.py", "--list-rules"], ["play.py", "--list-rules"],
                                  ["play.py", "--opponent", "easy", "--seed", "3"],
                                  ["evaluate.py", "--agent", "easy", "--opponent", "random", "--matches", "2"],
                                  ["-m", "scopa_env.simulate", "--list-rules"],
                                  ["-m", "scopa_env.simulate", "--matches", "1", "--seed", "1", "--out", "-"],
                                  # argparse dropped the failed write: exit 0, no word (review)
                                  ["train.py", "--help"], ["evaluate.py", "--help"], ["play.py", "--help"],
                                  ["-m", "scopa_env.simulate", "--help"]])
@pytest.mark.parametrize("buffered", [False, True])
def test_output_onto_a_full_disk_is_one_line(argv, buffered):
    """Standard output that cannot be written (`> /dev/full`) was a traceback from print: one
    line naming standard output, exit code 1 (review); block-buffered too (play.py's short output
    was lost at exit, exit 0, when PYTHONUNBUFFERED was not set)."""
    cmd = [str(ROOT / argv[0]), *argv[1:]] if argv[0].endswith(".py") else argv
    prog = argv[0] if argv[0].endswith(".py") else "python -m scopa_env.simulate"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, *cmd], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL, env=env)
    assert (p.returncode, p.stderr) == (1, f"{prog}: error: cannot write to standard output "
                                           f"(No space left on device)\n")


def test_no_stray_escape_at_exit_on_a_terminal():
    """With colorama installed (other tools bring it), numba coloured its own error messages as
    it loaded, through colorama.init(), whose exit hook wrote ESC[0m to the terminal: play.py
    ended with a stray '\\x1b[0m'. Played on a pseudo-terminal, quitting at the first prompt."""
    pytest.importorskip("colorama")     # without it there is no hook to write the escape
    pytest.importorskip("pty")
    from terminal import play_on_pty
    out, code = play_on_pty(["--opponent", "easy", "--seed", "1"], b"quit\n")
    assert b"Ciao!" in out and code == 0, out[-300:]
    assert b"\x1b" not in out, out[-300:]


# ---- scopa_env/cli.py in-process, pinned by mutation testing (2026-12-04) ------------------
def test_an_explicit_store_action_may_be_given_once_too(capsys):
    """Parser: every flag that stores a value may be given once, action='store' spelt out included (argparse kept the last)."""
    p = scopa_cli.Parser(prog="prog")
    p.add_argument("--opponent", action="store")
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--opponent", "easy", "--opponent", "hard"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "prog: error: --opponent given twice: 'easy' and 'hard'\n"


def test_run_main_gives_back_the_stdout_it_found(monkeypatch):
    """run_main wraps sys.stdout only while main runs: a caller in the same process gets its own stream back."""
    mine = io.StringIO()
    monkeypatch.setattr(sys, "stdout", mine)
    old_term = signal.getsignal(signal.SIGTERM)        # run_main installs its SIGTERM handler
    seen = []

    def main():
        seen.append(sys.stdout)
        print("hello")
        return 0
    try:
        assert scopa_cli.run_main(main, "prog") == 0
    finally:
        signal.signal(signal.SIGTERM, old_term)
    assert sys.stdout is mine and seen[0] is not mine       # wrapped while it ran, given back after
    assert mine.getvalue() == "hello\n"


@pytest.mark.parametrize("signame,code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_run_main_after_a_sigterm_starts_afresh_and_gives_the_handler_back(signame, code):
    """A SIGTERM during one run_main made every later one in the process return 143 (its flag was
    never reset; mutation-testing review), and run_main left its own SIGTERM handler installed.
    SIGHUP (a closed terminal) takes the same path, exit 129: it killed the scripts where they
    stood and left their temporary files."""
    import os
    if not hasattr(signal, signame):
        pytest.skip(f"no {signame} here")
    signum = getattr(signal, signame)
    before = signal.getsignal(signum)

    def killed():
        os.kill(os.getpid(), signum)
        return 0
    assert scopa_cli.run_main(killed, "prog") == code
    assert signal.getsignal(signum) is before
    assert scopa_cli.run_main(lambda: 0, "prog") == 0


def test_a_signal_ignored_at_the_start_stays_ignored():
    """`nohup python train.py &` starts the script with SIGHUP ignored, so that the run outlives
    the session: run_main's SIGHUP handler must not undo that (it would stop the run at logout)."""
    import os
    if not hasattr(signal, "SIGHUP"):
        pytest.skip("no SIGHUP here")
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        seen = []

        def hung_up():
            seen.append(signal.getsignal(signal.SIGHUP))
            os.kill(os.getpid(), signal.SIGHUP)
            return 0
        assert scopa_cli.run_main(hung_up, "prog") == 0
        assert seen == [signal.SIG_IGN] and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_after_a_hang_up_the_terminal_s_failed_writes_are_quiet(monkeypatch):
    """After a SIGHUP the terminal has gone and its writes fail (EIO): the script's own
    "interrupted" line and run_main's report of a failed stdout were tracebacks to nowhere, exit
    1. Now exit 129, and both streams point at /dev/null. A failed write without a hang-up is
    still the script's error."""
    import errno
    if not hasattr(signal, "SIGHUP"):
        pytest.skip("no SIGHUP here")

    class Gone(io.StringIO):
        def __init__(self, fd):
            super().__init__()
            self.fd = fd

        def write(self, text):
            raise OSError(errno.EIO, "Input/output error")

        def fileno(self):
            return self.fd
    # two descriptors of this test's own, which _quiet may point at /dev/null
    out_fd, err_fd = os.open(os.devnull, os.O_WRONLY), os.open(os.devnull, os.O_WRONLY)
    monkeypatch.setattr(sys, "stdout", Gone(out_fd))
    monkeypatch.setattr(sys, "stderr", Gone(err_fd))
    quieted = []
    monkeypatch.setattr(scopa_cli, "_quiet", lambda stream: quieted.append(stream.fileno()))

    def hung_up():
        try:
            os.kill(os.getpid(), signal.SIGHUP)
        except KeyboardInterrupt:
            print("prog: interrupted", file=sys.stderr)
            return 130
        return 0
    try:
        assert scopa_cli.run_main(hung_up, "prog") == 129
        assert quieted == [out_fd, err_fd]

        def failed():
            print("x", file=sys.stderr)
            return 0
        with pytest.raises(OSError):
            scopa_cli.run_main(failed, "prog")
    finally:
        os.close(out_fd)
        os.close(err_fd)


def test_an_interrupt_during_a_compile_acts_once_the_kernel_is_compiled(monkeypatch):
    """cli.compiles_whole (run_main's): a Ctrl-C that comes while numba compiles a kernel is
    raised when the compile is done, the kernel whole (the next call runs it); raised inside
    the compile it left numba half done (a traceback, a swallowed interrupt, a crash: the
    cold-cache cases of test_cli_ctrl_c_is_one_line_and_writes_nothing). The hook is the
    dispatcher's own again after the block, and run_main's block holds it."""
    from numba import njit
    from numba.core.dispatcher import Dispatcher
    real = Dispatcher.compile

    def interrupted(self, sig):
        signal.raise_signal(signal.SIGINT)      # Ctrl-C as the compile starts
        return real(self, sig)
    monkeypatch.setattr(Dispatcher, "compile", interrupted)
    with scopa_cli.compiles_whole():
        kernel = njit(lambda x: x + 1)
        with pytest.raises(KeyboardInterrupt):
            kernel(1)
        assert len(kernel.overloads) == 1 and kernel(2) == 3      # compiled: no second compile
    assert Dispatcher.compile is interrupted
    seen = []
    assert scopa_cli.run_main(lambda: seen.append(Dispatcher.compile) or 0) == 0
    assert seen[0] is not interrupted and Dispatcher.compile is interrupted


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_first_compile_of_a_process_is_said_on_a_terminal(monkeypatch):
    """compiles_whole's note: a silent minute on a cold cache (evaluate.py's bar at 0, train.py
    before its first line; a timing review). Said once, when numba starts its first compile, on
    a terminal only (a pipe or a log gets nothing, nor does a cache load, which is no compile),
    not with note=False (play.py's own notices say it)."""
    from numba import njit
    for tty, note, said in ((True, True, True), (False, True, False), (True, False, False)):
        monkeypatch.setattr(scopa_cli, "_compile_noted", False)
        err = _Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        with scopa_cli.compiles_whole(note):
            assert njit(lambda x: x + 1)(1) == 2 and njit(lambda x: x * 3)(2) == 6
        assert err.getvalue() == (scopa_cli.COMPILE_NOTE + "\n" if said else ""), (tty, note)
    monkeypatch.setattr(scopa_cli, "_compile_noted", False)
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    with scopa_cli.compiles_whole():
        pass
    assert njit(lambda x: x - 1)(1) == 0 and err.getvalue() == ""      # after the block: nothing


def test_a_cold_cache_is_said_on_a_terminal_and_a_warm_one_is_not(tmp_path):
    """The note in a real script on a pseudo-terminal: `scopa_env.simulate` compiling into an
    empty kernel cache says it once, on a line of its own under the live bar (tqdm's write: a
    plain print put it on the bar's line); the same run again, loading them, says nothing."""
    import fcntl
    import pty
    import re
    import struct
    import termios
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}
    outputs = []
    for _ in range(2):
        leader, follower = pty.openpty()
        # a window as a terminal has one: at 0 x 0 tqdm draws no bar (the diff review)
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        try:
            p = subprocess.Popen([sys.executable, "-m", "scopa_env.simulate", "--matches", "2", "--seed",
                                  "1", "--out", str(tmp_path / "m.jsonl")], cwd=ROOT, env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
            os.close(follower)
            err = b""
            while True:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:         # the other end closed (Linux: EIO)
                    break
                if not chunk:
                    break
                err += chunk
            out, _ = p.communicate(timeout=300)
        finally:
            os.close(leader)
        assert p.returncode == 0 and out.startswith(b"wrote 2 matches"), (out, err)
        outputs.append(err.decode())
    assert outputs[0].count(scopa_cli.COMPILE_NOTE) == 1, outputs[0]
    assert scopa_cli.COMPILE_NOTE in re.split(r"[\r\n]+", outputs[0]), outputs[0]
    assert "2/2" in outputs[0] and "2/2" in outputs[1] and "note" not in outputs[1], outputs[1]


def test_simulate_shows_a_bar_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    """`scopa_env.simulate` had no progress at all: 3,000 matches were half a minute without a
    word (a timing review). On a terminal a bar counts the matches; to a pipe nothing is added."""
    from scopa_env import simulate
    out = tmp_path / "m.jsonl"
    for tty in (True, False):
        err = _Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        assert simulate.main(["--matches", "3", "--seed", "1", "--out", str(out)]) == 0
        assert ("3/3" in err.getvalue() and "match/s" in err.getvalue()) is tty, err.getvalue()
        assert len(out.read_text().splitlines()) == 3
    assert capsys.readouterr().out.startswith("wrote 3 matches")
    # the records on the terminal itself (`--out -`): no bar between their lines (the diff review)
    records, err = _Terminal(), _Terminal()
    monkeypatch.setattr(sys, "stdout", records)
    monkeypatch.setattr(sys, "stderr", err)
    assert simulate.main(["--matches", "3", "--seed", "1", "--out", "-"]) == 0
    assert len(records.getvalue().splitlines()) == 3 and "match/s" not in err.getvalue(), err.getvalue()


def test_run_main_works_off_the_main_thread():
    """Only the main thread may set signal handlers: off it, run_main sets none (no SIGTERM
    handler, no compile hook) and returns main()'s code; without the check signal.signal raised
    ValueError (a mutation review found no test calling it from a thread)."""
    import threading
    from numba.core.dispatcher import Dispatcher
    before, compile_before = signal.getsignal(signal.SIGTERM), Dispatcher.compile
    seen, codes = [], []

    def main():
        seen.append((signal.getsignal(signal.SIGTERM), Dispatcher.compile))
        return 7
    t = threading.Thread(target=lambda: codes.append(scopa_cli.run_main(main)))
    t.start()
    t.join()
    assert codes == [7] and seen == [(before, compile_before)]


def test_quiet_stdout_leaves_no_descriptor_open(tmp_path, monkeypatch):
    """quiet_stdout points stdout at /dev/null by dup2 and closes its own descriptor of it: each
    call left one open (a leak review: 20 calls, 20 descriptors)."""
    target = open(tmp_path / "out", "w")
    monkeypatch.setattr(sys, "stdout", target)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        scopa_cli.quiet_stdout()
    assert len(os.listdir("/proc/self/fd")) == before
    print("gone", file=target, flush=True)
    target.close()
    assert (tmp_path / "out").read_text() == ""


WINDOWS_LIKE = r"""
import builtins, os, signal, sys
import numba, numpy, torch     # built for this platform: their Windows builds do without these
# what Windows lacks (Python's docs, "Availability: Unix"): those names removed, those modules
# refused; then the project's modules imported and the scripts started
for name in ("register_at_fork", "getuid", "getloadavg", "fork", "killpg", "mkfifo"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("SIGHUP", "SIGKILL", "SIGQUIT", "SIGUSR1", "pthread_sigmask", "setitimer"):
    if hasattr(signal, name):
        delattr(signal, name)
real_import = builtins.__import__
def no_posix(name, *args, **kwargs):
    if name.split(".")[0] in ("fcntl", "termios", "pty", "resource", "readline", "grp", "pwd"):
        raise ImportError(f"No module named {name!r} (Windows)")
    return real_import(name, *args, **kwargs)
builtins.__import__ = no_posix
import runpy
import agents, agents.arena, agents.hard, scopa_env.aec, scopa_env.gym_env, scopa_env.simulate
import training.config, training.loop
for script, flag in (("play.py", "--list-rules"), ("evaluate.py", "--list-rules"), ("train.py", "--print-config")):
    sys.argv = [script, flag]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        assert e.code == 0, (script, e.code)
print("started")
"""


def test_the_scripts_start_where_posix_is_missing():
    """On Windows `import scopa_env` died at os.register_at_fork (Unix only), so every script and
    the tests did (a portability review). Here what Windows lacks is taken away (POSIX-only
    names of os and signal, fcntl, termios, pty, readline, ...): the project's modules import,
    and play.py and evaluate.py list the rules, train.py prints its config."""
    r = subprocess.run([sys.executable, "-c", WINDOWS_LIKE], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("started"), r.stderr[-2000:]


def test_a_pipe_closed_on_windows_ends_quietly(monkeypatch):
    """Windows reports a pipe whose reader has gone as OSError EINVAL, not BrokenPipeError
    (CPython issue 79935): `| Select-Object -First 1` was 'cannot write to standard output
    (Invalid argument)', exit 1. There it is the closed pipe (exit 0); elsewhere EINVAL stays
    the failure it is."""
    import errno

    class Gone(io.StringIO):
        def write(self, text):
            raise OSError(errno.EINVAL, "Invalid argument")
    monkeypatch.setattr(scopa_cli, "quiet_stdout", lambda: None)

    def main():
        print("a line")
        return 0
    for platform, code in (("win32", 0), ("linux", 1)):
        monkeypatch.setattr(sys, "stdout", Gone())
        monkeypatch.setattr(sys, "platform", platform)
        assert scopa_cli.run_main(main, "prog") == code, platform
