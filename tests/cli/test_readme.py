"""The README's Quickstart: one code block of exactly two commands, the second being the
test command that .ci/run runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST_COMMAND = 'python -m pytest -q -m "not slow" -n auto'


def _quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```[a-z]*\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "the Quickstart has one code block"
    return [line for line in blocks[0].splitlines() if line.strip()]


def test_quickstart_has_exactly_two_commands() -> None:
    commands = _quickstart_commands()
    assert len(commands) == 2
    assert "gradc build examples/gmm.py" in commands[0]
    assert "python examples/gmm_main.py" in commands[0]
    assert commands[1].endswith(TEST_COMMAND)


def test_ci_runs_the_readme_test_command() -> None:
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
