"""Running git on the app's own initiative (``get_changed_files``, ``#changes``) without running
anything the repository configured.

A repository's ``.git/config`` can name programs that plain ``git status`` and ``git diff`` start:
``core.fsmonitor`` (a hook run on every status), ``filter.<name>.clean``/``process`` (run on every
file whose stat data changed, chosen by ``.gitattributes``), ``diff.<name>.textconv`` and
``diff.external``/``diff.<name>.command``, hooks, a pager. The user asked for none of them, and the
model can call ``get_changed_files`` without approval, so :class:`SafeGit` turns them all off:

- ``-c core.fsmonitor=false``, ``-c core.hooksPath=/dev/null``, ``-c diff.external=``,
  ``-c core.pager=cat``, ``--no-pager``, and ``GIT_PAGER=cat``;
- every ``filter.<name>.clean|smudge|process`` that the config defines is emptied (an empty command
  means "no filter" to git) and ``filter.<name>.required`` set false. Driver names are arbitrary, so
  they are read first (git_config.read_program_keys, shared with the approval policy's check of
  terminal git commands), with ``git config --get-regexp``, which reads config and runs nothing;
- :meth:`SafeGit.work_tree` refuses a repository whose ``core.worktree`` puts the work tree
  somewhere that does not hold the workspace (a diff would show those files);
- callers pass ``--no-ext-diff --no-textconv`` to ``git diff`` (:data:`DIFF_FLAGS`) and
  ``--ignore-submodules=dirty``, so git never starts a ``git status`` inside a submodule, whose own
  config we did not read.

``GIT_OPTIONAL_LOCKS=0`` keeps git from writing the index while the user's own git may be running.
The user's global config (name, email, aliases) stays in force: only the programs are switched off.
Left alone on purpose: ``core.sshCommand``, credential helpers and proxies (these commands use no
network) and ``core.untrackedCache`` (a cache; it runs nothing).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ToolError
from agent_tui.key_env import child_environ
from agent_tui.tools.git_config import filter_drivers, read_program_keys
from agent_tui.tools.workspace_paths import is_inside, real_root

# What no git run of ours may start, whatever the repository's config says.
HARDENING: tuple[str, ...] = (
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "diff.external=",
    "-c",
    "core.pager=cat",
)
# For every `git diff`: no external diff program, no textconv filter, no look inside submodules.
DIFF_FLAGS: tuple[str, ...] = ("--no-color", "--no-ext-diff", "--no-textconv")
SUBMODULES = "--ignore-submodules=dirty"


class GitMissing(ToolError):
    """The ``git`` executable is not on PATH."""


@dataclass(frozen=True)
class GitResult:
    """A git command's exit code and its output."""

    code: int
    out: str
    err: str


def git_env() -> dict[str, str]:
    """This process's environment (without the app's API keys) plus what keeps git quiet,
    lock-free and non-interactive."""
    quiet = {"GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
    return {**child_environ(), **quiet}


class SafeGit:
    """Runs git commands in one folder with the repository's programs switched off.

    Args:
        cwd: the folder git runs in (any folder inside the repository).
    """

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._prefix: tuple[str, ...] | None = None

    def run(self, *args: str) -> GitResult:
        """Run ``git ARGS`` (blocking) and return its exit code and decoded output.

        Raises:
            GitMissing: git is not installed.
        """
        return self._exec(*self._hardened(), *args)

    def run_bytes(self, *args: str) -> tuple[int, bytes]:
        """Like :meth:`run`, with stdout as bytes (file contents: ``git cat-file blob``).

        Raises:
            GitMissing: git is not installed.
        """
        proc = self._spawn(*self._hardened(), *args)
        return proc.returncode, proc.stdout

    def _hardened(self) -> tuple[str, ...]:
        if self._prefix is None:
            self._prefix = (*HARDENING, *self._filter_overrides())
        return self._prefix

    def work_tree(self, workspace: Path) -> Path | None:
        """The top folder of the repository ``cwd`` is in; None when it is in none.

        Raises:
            GitMissing: git is not installed.
            ToolError: the work tree does not hold ``workspace``: ``core.worktree`` in the
                repository's config can point git anywhere (``~/.ssh``), and a diff against it
                would put those files in front of the model.
        """
        found = self.run("rev-parse", "--show-toplevel")
        if found.code != 0 or not found.out.strip():
            return None
        top = real_root(Path(found.out.strip()))
        if not is_inside(top, real_root(workspace)):
            raise ToolError(
                f"the git repository here says its work tree is {top}, which does not hold the "
                f"workspace {workspace} (core.worktree in its config?); its changes are not read."
            )
        return top

    def _filter_overrides(self) -> list[str]:
        # Every scope's drivers, yours too (git-lfs): the app's own git runs none of them.
        drivers = filter_drivers(read_program_keys(self.cwd, env=git_env()))
        overrides: list[str] = []
        for driver in drivers:
            for key in ("clean=", "smudge=", "process=", "required=false"):
                overrides += ["-c", f"{driver}.{key}"]
        return overrides

    def _exec(self, *args: str) -> GitResult:
        proc = self._spawn(*args)
        return GitResult(
            proc.returncode,
            proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"),
        )

    def _spawn(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        from agent_tui.sandbox.runtime import current

        sandbox = current()  # read-only, no network: these runs only read
        argv = ["git", *args] if sandbox is None else sandbox.wrap_sync(["git", *args], self.cwd)
        try:
            return subprocess.run(
                argv,
                cwd=self.cwd,
                env=git_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        except FileNotFoundError:
            raise GitMissing("git is not installed (not on PATH)") from None
