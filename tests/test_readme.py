"""The README's Python examples run as written (a copied example must not raise)."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index, capsys):
    exec(compile(BLOCKS[index], f"README.md python block {index + 1}", "exec"), {})


def test_the_engine_example_prints_what_its_comment_shows(capsys):
    """The Rules engine example says what it prints (hand, table, legal moves): the output is
    checked against that comment, not only run (a wrong comment passed; review)."""
    block = next(b for b in BLOCKS if "g = Game(Rules(napola=True, target=11), seed=7)" in b)
    shown = re.search(r"# (\[.*?), \.\.\.\]", block).group(1)    # up to the '...' that ends the list
    exec(compile(block, "README.md engine example", "exec"), {})
    printed = capsys.readouterr().out.splitlines()[0]
    assert printed.startswith(shown), (printed, shown)


def test_the_setup_example_prints_what_its_comment_shows(capsys):
    """Game.setup, the public way to build a position, had no word in the README (review): its
    example's comment is the moves it prints."""
    block = next(b for b in BLOCKS if "g.setup(" in b)
    shown = re.search(r"# (\[.*?\]):", block).group(1)
    exec(compile(block, "README.md setup example", "exec"), {})
    assert capsys.readouterr().out.strip() == shown
