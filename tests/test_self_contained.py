"""A clone of the repository alone passes its tests: nothing in it reads from beside the repo.

The Codex apply_patch scenarios used to be read from ``../shared/fixtures`` (a folder next to the
checkout that only the project's own machines had), so a fresh clone failed. Third-party fixtures
now live in tests/fixtures/ with their source and licence.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Ways a path has reached outside the checkout: the sibling ``shared`` folder, the peer-benchmark
# harness kept there, or the project machines' absolute work dir.
OUTSIDE = re.compile(
    r"\.\./shared\b|\bshared/(fixtures|peer-bench)|[\"']shared[\"']|peer-bench|/work/"
)


def tracked(*folders: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *folders], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed if name.endswith((".py", ".sh", ".toml", ".cfg"))]


def test_no_test_script_or_benchmark_reads_outside_the_repository() -> None:
    files = tracked("tests", "scripts", "bench", "agent_tui", "pyproject.toml")
    assert files, "git ls-files listed nothing"
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, "\n".join(offenders)


def test_codex_fixtures_carry_their_source_and_licence() -> None:
    folder = ROOT / "tests" / "fixtures" / "codex-apply-patch"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "github.com/openai/codex" in readme and "Apache" in readme
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert "OpenAI" in (folder / "NOTICE").read_text(encoding="utf-8")
    assert len([p for p in (folder / "scenarios").iterdir() if p.is_dir()]) == 23
