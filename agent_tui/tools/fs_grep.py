"""The two engines behind grep_search: ripgrep (streamed, stopped early) and a pure-Python scan."""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.errors import ToolError
from agent_tui.key_env import child_environ
from agent_tui.safe_read import read_bytes
from agent_tui.tools.fs_walk import glob_to_regex, rg_base_args, walk_files
from agent_tui.tools.rg_watch import POLL_S, RgStuck, waiting_on_fifo

Match = tuple[str, int, str]  # (path, line number, line text)
MAX_LINE = 20_000  # characters of a line kept from either engine; the tool cuts around the match
SNIFF = 8192
MAX_SEARCH_FILE_BYTES = 64 << 20  # larger files count as unreadable (ripgrep is the fast path)


@dataclass
class SearchOutcome:
    """A search's matches, and whether it stopped early or skipped unreadable files."""

    matches: list[Match] = field(default_factory=list)
    incomplete: bool = False  # stopped after `collect` matches
    unreadable: int = 0  # files skipped because they could not be read


@dataclass(frozen=True)
class GrepQuery:
    """What grep_search looks for: the text or regex, where, and how many matches it shows."""

    query: str
    is_regexp: bool
    include: str | None
    limit: int

    @property
    def case_sensitive(self) -> bool:
        # Smart case, as ripgrep's -S: lowercase queries ignore case, any capital makes it exact.
        return any(ch.isupper() for ch in self.query)


def _bad_regex(detail: str) -> ToolError:
    return ToolError(
        f"Invalid regular expression: {detail.strip()}\nFix the pattern (ripgrep's Rust syntax: no "
        "look-around or backreferences), or set is_regexp=false to search for the literal text."
    )


async def rg_search(rg: str, root: Path, q: GrepQuery, *, collect: int) -> SearchOutcome:
    """Run ripgrep and parse ``path\\0line:text`` lines, stopping it after ``collect`` matches.

    Raises:
        ToolError: ripgrep rejected the regex or the glob.
    """
    proc = await asyncio.create_subprocess_exec(
        *_rg_args(rg, q),
        cwd=root,
        env=child_environ(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.ensure_future(proc.stderr.read())  # drained alongside so rg never blocks on it
    watch = asyncio.ensure_future(_watch(proc))  # kills rg if it waits on a FIFO (rg_watch.py)
    outcome = SearchOutcome()
    try:
        await _read_matches(proc, proc.stdout, outcome, collect)
        await proc.wait()
        stderr = (await errors).decode("utf-8", "replace")
    finally:
        if proc.returncode is None:  # cancelled: do not leave rg running
            await _stop(proc, proc.stdout)
        errors.cancel()
        watch.cancel()
    if watch.done() and not watch.cancelled() and watch.result():
        raise RgStuck("ripgrep waited on a named pipe")
    if proc.returncode == 2 and not outcome.matches and not outcome.incomplete:
        if "regex" in stderr or "literal" in stderr:
            raise _bad_regex(stderr.removeprefix("rg: "))
        if "glob" in stderr:
            raise ToolError(f"Invalid include_pattern: {stderr.strip()}")
    outcome.unreadable = sum(1 for line in stderr.splitlines() if line.startswith("rg: ./"))
    return outcome


def _rg_args(rg: str, q: GrepQuery) -> list[str]:
    args = [
        *rg_base_args(rg),
        "--line-number",
        "--no-heading",
        "--with-filename",
        "--null",  # a NUL after the path: paths may contain ':'
        "--max-columns", str(MAX_LINE),
        "--max-columns-preview",
        "--case-sensitive" if q.case_sensitive else "--ignore-case",
    ]  # fmt: skip
    if not q.is_regexp:
        args.append("--fixed-strings")
    if q.include:
        args += ["--iglob", q.include]
    return [*args, "--regexp", q.query, "--", "."]


async def _read_matches(
    proc: asyncio.subprocess.Process,
    stdout: asyncio.StreamReader,
    outcome: SearchOutcome,
    collect: int,
) -> None:
    """Parse rg's lines into ``outcome``; rg is stopped once ``collect`` matches are in."""
    pending = b""
    while chunk := await stdout.read(1 << 16):
        *complete, pending = (pending + chunk).split(b"\n")
        for raw in complete:
            _add_rg_line(outcome, raw)
        if len(outcome.matches) >= collect:
            outcome.incomplete = True
            del outcome.matches[collect:]
            await _stop(proc, stdout)
            break
    if pending and not outcome.incomplete:
        _add_rg_line(outcome, pending)


async def _watch(proc: asyncio.subprocess.Process) -> bool:
    """Kill rg when it is seen waiting on a FIFO twice in a row; True if it was."""
    seen = 0
    while proc.returncode is None:
        await asyncio.sleep(POLL_S)
        seen = seen + 1 if waiting_on_fifo(proc.pid) else 0
        if seen >= 2:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            return True
    return False


async def _stop(proc: asyncio.subprocess.Process, stdout: asyncio.StreamReader) -> None:
    """Kill rg and reap it. Its unread output is drained to EOF first: on Python 3.11
    ``Process.wait()`` returns only once every pipe has closed, and a pipe whose reader paused on a
    full buffer never sees its EOF, so waiting without draining can hang forever."""
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    await stdout.read()
    await proc.wait()


def _add_rg_line(outcome: SearchOutcome, raw: bytes) -> None:
    path, sep, rest = raw.partition(b"\0")
    if not sep:
        return
    number, _, text = rest.partition(b":")
    if not number.isdigit():
        return
    outcome.matches.append(
        (
            path.decode("utf-8", "surrogateescape").removeprefix("./"),
            int(number),
            text.decode("utf-8", "replace").rstrip("\r"),
        )
    )


def python_search(root: Path, q: GrepQuery, *, collect: int) -> SearchOutcome:
    """The same search without ripgrep (blocking; run it in a thread).

    Raises:
        ToolError: the regex does not compile.
    """
    flags = re.MULTILINE | (0 if q.case_sensitive else re.IGNORECASE)
    try:
        regex = re.compile(q.query if q.is_regexp else re.escape(q.query), flags)
    except re.error as exc:
        raise _bad_regex(str(exc)) from None
    wanted = (
        re.compile(glob_to_regex(q.include).pattern, re.IGNORECASE | re.DOTALL)
        if q.include
        else None
    )
    outcome = SearchOutcome()
    for rel in walk_files(root):
        if wanted is not None and not wanted.match(rel):
            continue
        try:
            # Never follows a link, never blocks on a FIFO swapped in since the walk listed it.
            data = read_bytes(root / rel, MAX_SEARCH_FILE_BYTES, follow_symlinks=False)
        except OSError:
            outcome.unreadable += 1
            continue
        if b"\0" in data[:SNIFF]:
            continue  # binary, skipped as ripgrep does
        text = data.decode("utf-8", "replace")
        if regex.search(text) is None:
            continue  # the common case: one scan of the whole file, no per-line work
        for number, line in enumerate(text.split("\n"), 1):
            if regex.search(line):
                outcome.matches.append((rel, number, line.rstrip("\r")[:MAX_LINE]))
                if len(outcome.matches) >= collect:
                    outcome.incomplete = True
                    return outcome
    return outcome
