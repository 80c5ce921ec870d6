"""The layers look only down (README, 'Rules engine'): the engine imports no environment library,
torch or upper package; the adapters no agents but the one documented place; agents nothing of
training; no library module the command-line module or a script. Read from the source: every
import statement, inside functions too, so a lazy import cannot hide an upward one."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ENGINE = ["actions", "atomic", "batched", "cards", "core", "errors", "game", "kernel_cache",
          "observation", "presets", "records", "rules", "seeds"]
ADAPTERS = ["aec", "gym_env"]
COMMAND_LINE = ["cli", "simulate"]          # the scripts' shared parser; `python -m scopa_env.simulate`
SCRIPTS = {"train", "evaluate", "play", "benchmarks"}


def imports(path: Path, package: str | None = None) -> set[str]:
    """Every module a file imports, relative imports made absolute (`package`: the file's, by
    default from its place in the project)."""
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" if base else a.name for a in node.names)
    return found


def under(names: set[str], *roots: str) -> set[str]:
    return {n for n in names if n.split(".")[0] in roots or any(n == r or n.startswith(r + ".")
                                                                  for r in roots)}


def test_every_module_of_scopa_env_has_its_layer():
    """A new module joins a list above, so that its imports are checked (one left out was not)."""
    have = {p.stem for p in (ROOT / "scopa_env").glob("*.py")}
    assert have == set(ENGINE) | set(ADAPTERS) | set(COMMAND_LINE) | {"__init__"}


def test_the_package_init_loads_the_engine_and_adapters_only():
    """`import scopa_env` runs for every engine import: it may register the adapters, nothing above."""
    got = imports(ROOT / "scopa_env" / "__init__.py")
    assert not under(got, "gymnasium", "pettingzoo", "torch", "tensorboard", "agents", "training",
                     "scopa_env.cli", "scopa_env.simulate", *SCRIPTS), got


@pytest.mark.parametrize("name", COMMAND_LINE)
def test_the_command_line_modules_import_no_upper_layer(name):
    got = imports(ROOT / "scopa_env" / f"{name}.py")
    assert not under(got, "torch", "tensorboard", "agents", "training", *SCRIPTS), got


@pytest.mark.parametrize("name", ENGINE)
def test_the_engine_imports_no_environment_library_torch_or_upper_layer(name):
    got = imports(ROOT / "scopa_env" / f"{name}.py")
    assert not under(got, "gymnasium", "pettingzoo", "torch", "tensorboard", "agents", "training",
                     "scopa_env.aec", "scopa_env.gym_env", "scopa_env.cli", "scopa_env.simulate",
                     *SCRIPTS), got


@pytest.mark.parametrize("name", ADAPTERS)
def test_the_adapters_import_no_torch_training_or_cli(name):
    got = imports(ROOT / "scopa_env" / f"{name}.py")
    assert not under(got, "torch", "training", "scopa_env.cli", *SCRIPTS), got
    # Scopa-v0's opponent may be named ('normal'): the one import of agents, in the function
    # that turns the name into an agent (README, 'Environments')
    assert under(got, "agents") <= ({"agents", "agents.REGISTRY", "agents.make_agent"}
                                    if name == "gym_env" else set()), got


@pytest.mark.parametrize("path", sorted((ROOT / "agents").glob("*.py")), ids=lambda p: p.name)
def test_agents_import_nothing_of_training_or_the_command_line(path):
    got = imports(path)
    assert not under(got, "training", "scopa_env.cli", "scopa_env.aec", "scopa_env.gym_env",
                     *SCRIPTS), got
    if path.name not in ("learned.py", "network.py", "checkpoint.py"):
        assert not under(got, "torch"), got        # the rule levels run without torch


@pytest.mark.parametrize("path", sorted((ROOT / "training").glob("*.py")), ids=lambda p: p.name)
def test_training_imports_no_script_or_command_line_module(path):
    got = imports(path)
    assert not under(got, "scopa_env.cli", *SCRIPTS), got


def test_the_check_sees_relative_and_function_level_imports(tmp_path):
    """The reader above finds what a layer breach would look like (so the tests can fail)."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from training import checkpoint\n    from .network import build_model\n"
                     "    from . import checkpoint\n")
    got = imports(probe, "agents")
    assert {"training", "training.checkpoint", "agents.network", "agents.network.build_model"} <= got
    assert under(got, "training") and "agents.checkpoint" in got
