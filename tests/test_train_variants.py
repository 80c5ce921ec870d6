"""Training and play under other rules: presets in the config and on the command line, N seats
with side returns, 4-player checkpoints, rules mismatches, play.py with a partner."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent
from scopa_env import Game, Rules, ScopaError, core
from scopa_env.batched import BatchedScopa
from scopa_env.observation import layout, layout_for
from scopa_env.presets import rules_from_preset
from agents import checkpoint
from training.config import load_toml, make_config
from training.loop import Run, start

ROOT = Path(__file__).resolve().parents[1]
SCOPONE = rules_from_preset("scopone")
TINY = dict(total_steps=1024, num_envs=16, rollout_steps=32, hidden=32, minibatch_size=256,
            eval_every=0, final_matches=0, checkpoint_every=1024, torch_threads=1)


def tiny_cfg(tmp_path, **kw):
    return make_config(dict(TINY, runs_dir=str(tmp_path / "runs"),
                            checkpoints_dir=str(tmp_path / "ck"), **kw))


def cli(script, *args, cwd=ROOT, feed=""):
    return subprocess.run([sys.executable, str(ROOT / script), *args], cwd=cwd, input=feed,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})


from test_train import run_main  # noqa: E402  train.py's main() in this process


def one_line_error(r, *words):
    assert r.returncode == 2, (r.stdout, r.stderr)
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


# ---- config ---------------------------------------------------------------------------------
def test_rules_key_preset_table_and_overrides(tmp_path):
    assert make_config(rules="scopone").rules == SCOPONE
    assert make_config(rules={"preset": "scopone", "target": 21}).rules == SCOPONE.replace(target=21)
    assert make_config(rules={"napola": True}).rules == Rules(napola=True)
    # a command-line preset replaces the file's rules; single options apply on top of it
    base = {"rules": {"napola": True, "target": 16}}
    assert make_config(base, rules="scopone").rules == SCOPONE
    assert make_config(base, **{"rules.target": 31}).rules == Rules(napola=True, target=31)
    assert make_config(base, rules="pairs", target=11).rules == rules_from_preset("pairs").replace(target=11)
    # configs and checkpoints from before the variants: top-level napola / target
    assert make_config({"napola": True, "target": 21}).rules == Rules(napola=True, target=21)
    for path, text in (("preset.toml", 'algo = "ppo"\nrules = "scopone"\n'),
                       ("table.toml", '[rules]\npreset = "quindici"\ntarget = 11\n')):
        (tmp_path / path).write_text(text)
    assert make_config(load_toml(tmp_path / "preset.toml")).rules == SCOPONE
    assert make_config(load_toml(tmp_path / "table.toml")).rules == \
        rules_from_preset("quindici").replace(target=11)
    cfg = make_config(rules="scopone-scientifico", seed=4)
    assert make_config(tomllib.loads(cfg.to_toml())) == cfg       # --print-config reads back


def test_rules_errors_name_the_problem(tmp_path, capsys):
    with pytest.raises(ScopaError, match="unknown rules preset 'scopa-x'.*scopone"):
        make_config(rules="scopa-x")
    with pytest.raises(ScopaError, match="'rules.frob'"):
        make_config(rules={"preset": "scopone", "frob": 1})
    with pytest.raises(ScopaError, match="'rules.frob'"):
        make_config(**{"rules.frob": 1})
    with pytest.raises(ScopaError, match=r"^rules option players must be one of 2, 3, 4, 6, got 5$"):
        make_config(rules={"players": 5})
    with pytest.raises(ScopaError, match="bot_games.*2-player"):
        make_config(rules="scopone", bot_games=0.25)
    (tmp_path / "bad.toml").write_text('[rules]\npreset = "nope"\n')
    with pytest.raises(ScopaError, match="bad.toml.*'nope'"):
        load_toml(tmp_path / "bad.toml")
    one_line_error(cli("train.py", "--rules", "nope", cwd=tmp_path), "unknown rules preset 'nope'")
    one_line_error(run_main(capsys, "--set", "rules.nope=1"), "'rules.nope'")
    r = run_main(capsys, "--list-rules")
    assert r.returncode == 0 and "scopone-scientifico" in r.stdout and "quindici" in r.stdout


# ---- returns with N seats -------------------------------------------------------------------
def test_side_returns_with_four_seats():
    from training.dmc import episode_returns, lambda_targets
    # one game, seats 0..3 in turn; the hand ends at t=3 paying side 0 (seats 0, 2) +2
    rewards = np.zeros((4, 1, 4), dtype=np.float32)
    rewards[3, 0] = [2, -2, 2, -2]
    dones = np.array([[False], [False], [False], [True]])
    seat = np.array([[0], [1], [2], [3]])
    ret, complete = episode_returns(rewards, dones)
    assert ret[np.arange(4), 0, seat[:, 0]].tolist() == [2, -2, 2, -2] and complete.all()
    lam = lambda_targets(rewards, dones, seat, np.zeros((4, 1), np.float32), 0.5)
    assert lam[:, 0].tolist() == [2, -2, 2, -2]


def test_ppo_learner_holds_both_partner_seats(tmp_path):
    from training.ppo import PPO
    cfg = tiny_cfg(tmp_path, algo="ppo", rules="scopone")
    model = __import__("agents.network", fromlist=["MoveScorer"]).MoveScorer.for_rules(32, SCOPONE)
    algo = PPO(cfg, model, torch.optim.Adam(model.parameters()), np.random.default_rng(0))
    assert algo.learner_seat.tolist() == [b % 2 for b in range(16)]
    _, _, _, learner = algo._act()
    assert learner.tolist() == (algo.env.to_move % 2 == np.arange(16) % 2).tolist()


# ---- whole runs -----------------------------------------------------------------------------
@pytest.mark.parametrize("preset,algo,how", [("scopone", "dmc", "subprocess"),
                                             ("quindici", "ppo", "subprocess"),
                                             ("scopone", "ppo", "main"),
                                             ("cirulla", "dmc", "main")])
def test_train_py_smoke_for_presets(tmp_path, capsys, monkeypatch, preset, algo, how):
    ppo_only = ("--snapshot-every", "1") if algo == "ppo" else ()    # dmc refuses a ppo setting
    args = ("--rules", preset, "--algo", algo, "--total-steps", "1024",
            "--num-envs", "16", "--rollout-steps", "32", "--hidden", "32", *ppo_only,
            "--eval-every", "0", "--final-matches", "2", "--final-opponents", "random",
            "--checkpoint-every", "0", "--torch-threads", "1", "--run-name", "v")
    if how == "subprocess":
        r = cli("train.py", *args, cwd=tmp_path)
    else:
        monkeypatch.chdir(tmp_path)
        r = run_main(capsys, *args)
    assert r.returncode == 0, r.stderr
    assert "Final evaluation of v" in r.stdout and "random" in r.stdout
    ckpt = checkpoint.load(tmp_path / "checkpoints" / "v" / "latest.pt")
    rules = rules_from_preset(preset)
    assert ckpt["rules"] == rules.to_dict() and ckpt["algo"] == algo
    assert ckpt["obs_layout"] == {"players": rules.players, "size": layout_for(rules).size}
    assert ckpt["model_config"]["players"] == rules.players
    assert ckpt["model_config"].get("bonus", False) is rules.hand_bonus


def test_a_cirulla_checkpoint_plays_and_its_layout_is_checked(tmp_path):
    """Under cirulla's hand bonuses the network reads the longer observation (shown cards,
    bonus points, the joker's value); a file whose network lacks those parts is one error."""
    cirulla = rules_from_preset("cirulla")
    run = Run(tiny_cfg(tmp_path, rules="cirulla", run_name="cir"), log=lambda *_: None)
    run.train(stop_at=512)
    path = tmp_path / "ck" / "cir" / "latest.pt"
    raw = torch.load(path, weights_only=True)
    assert raw["model"]["encoder.0.weight"].shape[1] == layout_for(cirulla).size == 374
    agent = make_agent(str(path), None, seed=1)
    g = Game(cirulla, seed=4)
    while not g.hand_over:
        obs = g.observation(g.to_move)
        a = agent.act(obs)
        assert obs["action_mask"][a] == 1
        g.play_action(a)
    bad = dict(raw, model_config={k: v for k, v in raw["model_config"].items() if k != "bonus"})
    checkpoint.save_atomic(bad, tmp_path / "bad.pt")
    with pytest.raises(ScopaError, match="without the hand bonuses' observation parts, but its rules "
                                         "have hand_bonus on"):
        make_agent(str(tmp_path / "bad.pt"), None, 0)
    with pytest.raises(ScopaError, match="was trained for rules cirulla"):
        make_agent(str(path), Rules(), 0)


def test_four_player_checkpoint_round_trip_resume_and_mismatch(tmp_path):
    run = Run(tiny_cfg(tmp_path, rules="scopone", run_name="four"), log=lambda *_: None)
    run.train(stop_at=512)
    path = tmp_path / "ck" / "four" / "latest.pt"
    raw = torch.load(path, weights_only=True)
    assert raw["rules"] == SCOPONE.to_dict() and raw["obs_layout"]["players"] == 4
    assert raw["model"]["encoder.0.weight"].shape[1] == layout(4).size
    # an agent from the file reads the rules from it and plays every seat legally
    agents = [make_agent(str(path), None, seed=s) for s in range(4)]
    assert agents[0].rules == SCOPONE
    g = Game(SCOPONE, seed=2)
    while not g.hand_over:
        obs = g.observation(g.to_move)
        a = agents[g.to_move].act(obs)
        assert obs["action_mask"][a] == 1
        g.play_action(a)
    # resuming continues the 4-player run; the rules cannot change on resume
    resumed = start(tiny_cfg(tmp_path), resume=str(path.parent), log=lambda *_: None)
    assert resumed.cfg.rules == SCOPONE
    resumed.train()
    assert resumed.counters["steps"] >= 1024
    # naming both rules sets, as the README says (it named neither)
    with pytest.raises(ScopaError, match="'rules' cannot change when resuming: the run trains for rules "
                                         "scopone.*, not rules classic"):
        start(tiny_cfg(tmp_path), resume=str(path), overrides={"rules": Rules()})
    with pytest.raises(ScopaError, match="the run trains for rules scopone.*, not napola=true"):
        start(tiny_cfg(tmp_path), resume=str(path), overrides={"napola": True})
    # other rules for the agent, or a file whose rules disagree with its network: clear errors
    with pytest.raises(ScopaError, match="was trained for rules scopone"):
        make_agent(str(path), Rules(), 0)
    bad = dict(raw, rules=Rules().to_dict())
    checkpoint.save_atomic(bad, tmp_path / "bad.pt")
    with pytest.raises(ScopaError, match=r"^checkpoint '.*bad\.pt' has observation layout "
                                         r"\{'players': 4, 'size': 469\}, but its rules have 2 players \(291 values\)$"):
        make_agent(str(tmp_path / "bad.pt"), None, 0)
    with pytest.raises(ScopaError, match=r"^learned option count_last solves the classic 2-player last deal; these "
                                         r"rules \(scopone \(players=4, hand_cards=9\)\) are another game: "
                                         r"use count_last=0$"):
        make_agent(str(path), SCOPONE, 0, count_last=4)
    with pytest.raises(ScopaError, match="learned option search is the hard level's classic"):
        make_agent(str(path), SCOPONE, 0, search=100)
    r = cli("play.py", "--rules", "classic", "--opponent", str(path), "--seed", "1")
    one_line_error(r, "was trained for rules scopone")
    # the flags that give its rules end the scripts' error (it named only the rules; review)
    assert r.stderr.endswith("; it plays only under --rules scopone\n"), r.stderr
    r = cli("evaluate.py", "--agent", str(path), "--opponent", "easy", "--matches", "2")
    one_line_error(r, "was trained for rules scopone")
    assert r.stderr.endswith("; it plays only under --rules scopone\n"), r.stderr


def to_v1_layout(new: np.ndarray) -> np.ndarray:
    """Classic engine states in the 134-slot layout from before the variants (training/env.py
    moves them back): the same games."""
    from scopa_env import core
    from training.env import V1_DECK, V1_HEADER, V1_LINES, V1_NLINES, V1_STATE_SIZE
    assert not new[:, V1_HEADER:core.HANDS].any()          # the classic option slots are 0
    old = np.zeros((new.shape[0], V1_STATE_SIZE), dtype=np.int64)
    old[:, :V1_HEADER] = new[:, :V1_HEADER]
    old[:, V1_HEADER:V1_LINES] = new[:, core.HANDS:core.LINES]
    for side in range(6):
        old[:, V1_LINES + side * V1_NLINES:V1_LINES + side * V1_NLINES + 7] = \
            new[:, core.LINES + side * core.NLINES:core.LINES + side * core.NLINES + 7]
    old[:, V1_DECK:] = new[:, core.DECK:core.DECK + 40]
    return old


def to_v2_layout(new: np.ndarray) -> np.ndarray:
    """Engine states in the 156-slot layout from before cirulla's options (training/env.py moves
    them back): the same games, for rules without those options."""
    from scopa_env import core
    from training.env import V2_DECK, V2_HEADER, V2_LINES, V2_NLINES, V2_STATE_SIZE
    assert not new[:, V2_HEADER:core.HANDS].any()          # cirulla's slots are 0
    old = np.zeros((new.shape[0], V2_STATE_SIZE), dtype=np.int64)
    old[:, :V2_HEADER] = new[:, :V2_HEADER]
    old[:, V2_HEADER:V2_LINES] = new[:, core.HANDS:core.LINES]
    for side in range(6):
        old[:, V2_LINES + side * V2_NLINES:V2_LINES + side * V2_NLINES + V2_NLINES] = \
            new[:, core.LINES + side * core.NLINES:core.LINES + side * core.NLINES + V2_NLINES]
    old[:, V2_DECK:] = new[:, core.DECK:core.DECK + 40]
    return old


def test_version_one_checkpoint_still_loads_and_resumes(tmp_path):
    """A file as written before the variants (no obs_layout, no players, rules and config with
    napola/target only, the env's games in the 134-slot layout) is a 2-player classic
    checkpoint, and resumes to where an uninterrupted run ends (only 'it trains on' was checked;
    review)."""
    whole = Run(tiny_cfg(tmp_path, run_name="whole"), log=lambda *_: None)
    whole.train()
    run = Run(tiny_cfg(tmp_path, run_name="old"), log=lambda *_: None)
    run.train(stop_at=512)
    path = tmp_path / "ck" / "old" / "latest.pt"
    raw = torch.load(path, weights_only=True)
    del raw["obs_layout"]
    raw["model_config"] = {k: raw["model_config"][k] for k in ("kind", "hidden", "features")}
    raw["rules"] = {"napola": False, "target": 11}
    config = {k: v for k, v in raw["config"].items() if k != "rules"}
    raw["config"] = dict(config, napola=False, target=11)
    states = raw["algo_state"]["env"]["states"].numpy()
    raw["algo_state"]["env"]["states"] = torch.from_numpy(to_v1_layout(states))
    assert raw["algo_state"]["env"]["states"].shape[1] == 134
    checkpoint.save_atomic(raw, path)
    agent = make_agent(str(path), Rules(), 0)
    assert agent.rules == Rules()
    resumed = start(tiny_cfg(tmp_path), resume=str(path), log=lambda *_: None)
    assert resumed.cfg.rules == Rules()
    resumed.train()
    assert resumed.counters["steps"] == whole.counters["steps"] >= 1024
    a = torch.load(tmp_path / "ck" / "whole" / "latest.pt", weights_only=True)
    b = torch.load(path, weights_only=True)
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert torch.equal(a["algo_state"]["env"]["states"], b["algo_state"]["env"]["states"])


# ---- play.py ----------------------------------------------------------------------------------
def test_play_py_scopone_with_a_partner_scripted():
    feed = "1\n" * 12 + "n\n"
    r = cli("play.py", "--rules", "scopone", "--opponent", "random", "--partner", "easy",
            "--target", "1", "--seed", "5", feed=feed)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "New match of scopone to 1 with your partner (easy) against random" in out
    assert "Partner:" in out and "Opponent 1:" in out and "Opponent 2:" in out
    assert "Us: 0 · Them: 0 (to 1)" in out and "Your turn (then " in out
    score = out.split("Hand 1 score")[1]
    assert "Us" in score.splitlines()[0] and "Them" in score.splitlines()[0]
    assert "hand total" in score and "Match: Us: " in score
    assert "win the match" in out or "wins the match" in out or "They win the match" in out
    assert out.rstrip().endswith("Ciao!")


def test_play_py_bad_rules_and_partner_are_one_line_errors():
    one_line_error(cli("play.py", "--rules", "nope"), "unknown rules preset 'nope'")
    one_line_error(cli("play.py", "--partner", "easy", "--opponent", "random"), "partner",
                   "pairs")
    r = cli("play.py", "--list-rules")
    assert r.returncode == 0 and "scopone" in r.stdout


def test_pre_variant_env_states_are_moved_to_the_new_layout():
    """A checkpoint's env state in the 134-slot layout (before the rules header) becomes the
    same games in today's layout (checked against the old engine when written: 2,000 steps of
    64 games equal)."""
    from scopa_env.batched import BatchedScopa
    from training.env import env_state, migrate_v1_states, migrate_v2_states, set_env_state
    env = BatchedScopa(8, rules=Rules(napola=True), seed=3, episode="hand")
    env.reset()
    for _ in range(50):
        env.step_index(np.zeros(8, dtype=np.int64))
    new = env.states.copy()
    old = to_v1_layout(new)                                # the same games, old layout
    assert np.array_equal(migrate_v2_states(migrate_v1_states(old)), new)
    v2 = to_v2_layout(new)                                 # the layout before cirulla's options
    assert v2.shape[1] == 156 and np.array_equal(migrate_v2_states(v2), new)
    for layout_before in (old, v2):
        saved = env_state(env)
        saved["states"] = torch.from_numpy(layout_before)
        other = BatchedScopa(8, rules=Rules(napola=True), seed=99, episode="hand")
        other.reset()
        set_env_state(other, saved)
        assert np.array_equal(env.states, other.states)
    idx = np.zeros(8, dtype=np.int64)
    a, b = env.step_index(idx), other.step_index(idx)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert np.array_equal(env.states, other.states)


def test_ppo_keeps_moves_when_the_env_widens_its_legal_arrays(tmp_path, monkeypatch):
    """The batched env widens its legal arrays when a position has more moves (quindici tables
    grow); a rollout in progress widens its buffers instead of failing or dropping moves: every
    row, those written before the widening and the carried tail in row 0 included, still holds
    the moves the env offered (a review: dropping the earlier rows at a widening passed, since
    only the shapes and the chosen move's row were checked)."""
    import scopa_env.batched as batched
    monkeypatch.setattr(batched, "MAX_LEGAL_QUINDICI", 2)
    run = Run(tiny_cfg(tmp_path, algo="ppo", rules="quindici", run_name="wide"), log=lambda *_: None)
    env = run.algo.env
    offered = []
    step_index = env.step_index

    def recording(idx):
        offered.append((np.maximum(env.legal_card, 0), env.legal_captured.copy(), env.legal_count.copy()))
        return step_index(idx)
    monkeypatch.setattr(env, "step_index", recording)

    def same(row, cards, captured, count):
        w = cards.shape[1]
        return (np.array_equal(row["cards"][:, :w], cards) and not row["cards"][:, w:].any()
                and np.array_equal(row["captured"][:, :w], captured) and not row["captured"][:, w:].any()
                and np.array_equal(row["count"], count))
    widened_with_a_tail = widened_wide_positions = 0
    for _ in range(6):
        tail = {k: run.algo.tail[k].copy() for k in ("cards", "captured", "count", "on")}
        start_width = env.legal_card.shape[1]
        offered.clear()
        buf = run.algo.rollout()
        assert buf["cards"].shape[2] == env.legal_card.shape[1] and len(offered) == len(buf["count"]) - 1
        for t, (cards, captured, count) in enumerate(offered, start=1):
            assert same({k: buf[k][t] for k in ("cards", "captured", "count")}, cards, captured, count), t
        assert same({k: buf[k][0] for k in ("cards", "captured", "count")},
                    tail["cards"], tail["captured"], tail["count"])
        if env.legal_card.shape[1] > start_width:
            widened_with_a_tail += bool(tail["on"].any() and tail["count"].any())
            t, b = np.nonzero(buf["count"] > start_width)
            widened_wide_positions += len(t)
            assert (buf["idx"][t, b] < buf["count"][t, b]).all()
    assert widened_with_a_tail and widened_wide_positions      # both cases were met
    run.algo.learn(buf)



def test_the_rounding_notice_counts_sides_not_seats(tmp_path):
    """Scopone has 4 seats in 2 sides: 3 matches are played as 4, 'a multiple of the 2 sides'
    (a review: the seats' count passed, the tests having only games where the two agree)."""
    said = []
    Run(tiny_cfg(tmp_path, rules="scopone", run_name="sc", total_steps=512, eval_every=512,
                 eval_matches=3, eval_opponents=("random",)), log=said.append).train()
    assert "eval_matches 3 is played as 4 (a multiple of the 2 sides: each deal once per side)" in said, said

def test_resume_takes_the_runs_own_rules_given_as_a_preset_and_an_option(tmp_path):
    """README: a key given with the value the run has is accepted on resume. `--rules napola
    --set rules.target=31` on a run of those rules was refused, each key compared alone
    (`--rules napola` means target 21), and the error named only the preset (review)."""
    napola31 = rules_from_preset("napola").replace(target=31)
    run = Run(tiny_cfg(tmp_path, rules=napola31, run_name="n31"), log=lambda *_: None)
    run.train(stop_at=512)
    path = tmp_path / "ck" / "n31"
    same = {"rules": rules_from_preset("napola"), "rules.target": 31}
    resumed = start(tiny_cfg(tmp_path), resume=str(path), overrides=dict(same), log=lambda *_: None)
    assert resumed.cfg.rules == napola31
    with pytest.raises(ScopaError, match=r"the run trains for rules napola=true, target=31, not rules "
                                         r"napola=true, target=41 \("):
        start(tiny_cfg(tmp_path), resume=str(path), overrides=dict(same, **{"rules.target": 41}))


def test_a_checkpoint_of_rules_no_preset_gives_plays_from_the_command_line(tmp_path):
    """A run with `--set rules.fewest_cards=true` trains, but no --rules/--napola/--target
    flags gave its rules: evaluate.py's error ended with no way forward (review), then with a
    Python call. evaluate.py and play.py now take --rule OPTION=VALUE, the error names the flags
    that give its rules, and evaluate.py plays it under them."""
    rules = rules_from_preset("quindici-both").replace(fewest_cards=True)
    Run(tiny_cfg(tmp_path, rules=rules, run_name="fc"), log=lambda *_: None).train(stop_at=512)
    path = str(tmp_path / "ck" / "fc" / "latest.pt")
    r = cli("evaluate.py", "--rules", "quindici-both", "--agent", path, "--opponent", "easy", "--matches", "2")
    one_line_error(r, "was trained for rules")
    flags = "--rules quindici-both --rule fewest_cards=true"
    assert r.stderr.endswith(f"; it plays only under {flags}\n"), r.stderr
    r = cli("evaluate.py", *flags.split(), "--agent", path, "--opponent", "easy", "--matches", "2",
            "--json", str(tmp_path / "fc.json"))
    assert r.returncode == 0, r.stderr
    assert "changed by --rule: fewest_cards=true" in r.stdout, r.stdout
    out = json.loads((tmp_path / "fc.json").read_text())
    assert Rules.from_dict(out["rules"]) == rules and out["results"][0]["matches"] == 2


# ---- training/env.py, pinned by mutation testing (2026-12-04) -------------------------------
def test_v2_migration_keeps_the_last_header_slot_ace_redeal():
    """A version-2 env state keeps header slot 31 (ACE_REDEAL) when moved to today's layout."""
    from training.env import env_state, migrate_v2_states, set_env_state
    rules = Rules(ace_redeal=True)
    env = BatchedScopa(4, rules=rules, seed=3, episode="hand")
    env.reset()
    for _ in range(10):
        env.step_index(np.zeros(4, dtype=np.int64))
    assert (env.states[:, core.ACE_REDEAL] == 1).all()
    v2 = to_v2_layout(env.states.copy())
    assert np.array_equal(migrate_v2_states(v2), env.states)
    saved = env_state(env)
    saved["states"] = torch.from_numpy(v2)
    other = BatchedScopa(4, rules=rules, seed=99, episode="hand")
    other.reset()
    set_env_state(other, saved)
    assert (other.states[:, core.ACE_REDEAL] == 1).all()


@pytest.mark.parametrize("rules", [Rules(players=3, target=16), rules_from_preset("six-players")],
                         ids=["three-players", "six-players"])
def test_v2_migration_keeps_the_score_lines_of_every_side(rules):
    """A version-2 env state of a run with three or six sides keeps the score lines of sides 2
    and up (a mutation review: copying the lines of sides 0 and 1 alone passed every test, all of
    2-sided games)."""
    from training.env import env_state, migrate_v2_states, set_env_state
    env = BatchedScopa(4, rules=rules, seed=5)
    env.reset()
    for _ in range(120):
        env.step_index(np.zeros(4, dtype=np.int64))
    side2 = slice(core.LINES + 2 * core.NLINES, core.LINES + 3 * core.NLINES)
    assert env.states[:, side2].any()                  # there is something to keep
    v2 = to_v2_layout(env.states.copy())
    assert np.array_equal(migrate_v2_states(v2), env.states)
    saved = env_state(env)
    saved["states"] = torch.from_numpy(v2)
    other = BatchedScopa(4, rules=rules, seed=99)
    other.reset()
    set_env_state(other, saved)
    assert np.array_equal(other.states, env.states)
