"""The small tasks of ``bench_local_tasks.py``: each a fresh folder, one prompt, one objective check.

A task is its files (written into a fresh git repo), the prompt both agents get word for word, the
files Aider is started with (Aider edits only the files in its chat; agent-tui finds them itself)
and a check that looks only at the folder afterwards and at the agent's final answer: a script
that must pass, a file's exact content, or the answer containing a value. Test scripts are plain
``python FILE`` with ``assert`` so no test runner has to be installed in the scratch repo; a check
that runs a test script also requires it unchanged, so "delete the test" never passes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Task:
    name: str
    files: dict[str, str]
    prompt: str
    aider_files: tuple[str, ...]
    check: Callable[[Path, str], bool]
    kept: tuple[str, ...] = field(default=())  # files that must be unchanged afterwards


def runs_ok(repo: Path, *argv: str) -> str | None:
    """stdout of ``python ARGV…`` in ``repo`` when it exits 0 within 60 s, else None."""
    try:
        done = subprocess.run(
            [sys.executable, *argv], cwd=repo, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return None
    return done.stdout if done.returncode == 0 else None


def read(repo: Path, name: str) -> str:
    path = repo / name
    return path.read_text(errors="replace") if path.is_file() else ""


def _create_file(repo: Path, answer: str) -> bool:
    return read(repo, "hello.txt").strip() == "Hello, bench!"


def _off_by_one(repo: Path, answer: str) -> bool:
    return runs_ok(repo, "test_window.py") is not None


def _answer(repo: Path, answer: str) -> bool:
    return "8437" in answer


def _cli_flag(repo: Path, answer: str) -> bool:
    loud = runs_ok(repo, "greet.py", "--name", "bob", "--shout")
    plain = runs_ok(repo, "greet.py", "--name", "bob")
    return (
        loud is not None
        and loud.strip() == "HELLO, BOB!"
        and (plain or "").strip() == "Hello, bob!"
    )


def _rename(repo: Path, answer: str) -> bool:
    both = read(repo, "prices.py") + read(repo, "main.py")
    out = runs_ok(repo, "main.py")
    return "calc_total" not in both and "def sum_prices" in both and (out or "").strip() == "6"


def _assertion(repo: Path, answer: str) -> bool:
    return runs_ok(repo, "test_temperature.py") is not None


def _docstring(repo: Path, answer: str) -> bool:
    return runs_ok(repo, "test_text_utils.py") is not None


def _config(repo: Path, answer: str) -> bool:
    try:
        data = json.loads(read(repo, "config.json"))
    except ValueError:
        return False
    return bool(data == {"debug": False, "workers": 8, "name": "bench"})


WINDOW = '''def last_n(items, n):
    """The last n items of the list."""
    return items[len(items) - n - 1 :]
'''
WINDOW_TEST = """from window import last_n

assert last_n([1, 2, 3, 4], 2) == [3, 4], last_n([1, 2, 3, 4], 2)
assert last_n([5, 6], 1) == [6]
print("ok")
"""
GREET = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="world")
args = parser.parse_args()
print(f"Hello, {args.name}!")
"""
PRICES = '''def calc_total(prices):
    """Sum of the prices."""
    return sum(prices)
'''
MAIN = """from prices import calc_total

print(calc_total([1, 2, 3]))
"""
TEMPERATURE = '''def c_to_f(celsius):
    """Degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 23
'''
TEMPERATURE_TEST = """from temperature import c_to_f

assert c_to_f(100) == 212, c_to_f(100)
assert c_to_f(0) == 32, c_to_f(0)
print("ok")
"""
TEXT_UTILS = '''def is_palindrome(text):
    """Return True if text reads the same backwards, ignoring case and spaces."""
    raise NotImplementedError
'''
TEXT_UTILS_TEST = """from text_utils import is_palindrome

assert is_palindrome("Never odd or even")
assert is_palindrome("abba")
assert not is_palindrome("abc")
print("ok")
"""
SETTINGS = """# Server settings.
HOST = "127.0.0.1"
DEFAULT_PORT = 8437
TIMEOUT_S = 30
"""

TASKS: tuple[Task, ...] = (
    Task(
        "create-file",
        {"README.md": "# scratch\n"},
        "Create a file named hello.txt whose whole content is the line: Hello, bench!",
        ("hello.txt",),
        _create_file,
    ),
    Task(
        "off-by-one",
        {"window.py": WINDOW, "test_window.py": WINDOW_TEST},
        "`python test_window.py` fails. Fix the off-by-one bug in window.py so that it passes. "
        "Do not change the test.",
        ("window.py", "test_window.py"),
        _off_by_one,
        ("test_window.py",),
    ),
    Task(
        "answer",
        {"settings.py": SETTINGS, "app.py": "from settings import DEFAULT_PORT\n"},
        "Which port number does settings.py set as the default port? Answer with the number.",
        ("settings.py",),
        _answer,
    ),
    Task(
        "cli-flag",
        {"greet.py": GREET},
        "Add a --shout flag to greet.py: with it the greeting is printed in upper case "
        "(`python greet.py --name bob --shout` prints HELLO, BOB!); without it nothing changes.",
        ("greet.py",),
        _cli_flag,
    ),
    Task(
        "rename",
        {"prices.py": PRICES, "main.py": MAIN},
        "Rename the function calc_total to sum_prices everywhere (prices.py and main.py).",
        ("prices.py", "main.py"),
        _rename,
    ),
    Task(
        "fix-assertion",
        {"temperature.py": TEMPERATURE, "test_temperature.py": TEMPERATURE_TEST},
        "`python test_temperature.py` fails with an AssertionError. Fix temperature.py so the "
        "test passes. Do not change the test.",
        ("temperature.py", "test_temperature.py"),
        _assertion,
        ("test_temperature.py",),
    ),
    Task(
        "docstring",
        {"text_utils.py": TEXT_UTILS, "test_text_utils.py": TEXT_UTILS_TEST},
        "Implement is_palindrome in text_utils.py as its docstring says, so that "
        "`python test_text_utils.py` passes. Do not change the test.",
        ("text_utils.py", "test_text_utils.py"),
        _docstring,
        ("test_text_utils.py",),
    ),
    Task(
        "config",
        {"config.json": '{\n  "debug": false,\n  "workers": 2,\n  "name": "bench"\n}\n'},
        "In config.json set workers to 8. Leave the other values as they are.",
        ("config.json",),
        _config,
    ),
)
