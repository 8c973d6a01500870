"""Hooks in Claude Code's format (issue 16, item 1), through `agent-tui -p` and real hook scripts.

The three examples of Claude Code's hooks documentation run unchanged (a Bash-command validator
that exits 2, a PostToolUse formatter, a UserPromptSubmit context adder); what reached the fake
model and the files on disk are checked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake

# Claude Code docs' Bash validator, unchanged but for the interpreter line.
VALIDATOR = r"""
import json
import re
import sys

_VALIDATION_RULES = [
    (
        r"\bgrep\b(?!.*\|)",
        "Use 'rg' (ripgrep) instead of 'grep' for better performance and features",
    ),
    (
        r"\bfind\s+\S+\s+-name\b",
        "Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name' for better performance",
    ),
]


def _validate_command(command: str) -> list[str]:
    issues = []
    for pattern, message in _VALIDATION_RULES:
        if re.search(pattern, command):
            issues.append(message)
    return issues


try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
tool_input = input_data.get("tool_input", {})
command = tool_input.get("command", "")

if tool_name != "Bash" or not command:
    sys.exit(1)

issues = _validate_command(command)
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    sys.exit(2)
"""

# A formatter: rewrites the edited file (its path from tool_input.file_path, as Claude Code sends).
FORMATTER = r"""
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"]["file_path"]
text = open(path).read()
open(path, "w").write(text.upper())
"""

# The docs' UserPromptSubmit context adder: stdout on exit 0 is context.
CONTEXT_ADDER = r"""
import json, sys, datetime
input_data = json.load(sys.stdin)
prompt = input_data.get("prompt", "")
if "secret" in prompt.lower():
    print(json.dumps({"decision": "block", "reason": "Security policy violation: Prompt contains potential secrets."}))
    sys.exit(0)
context = f"Current time marker: hook-context-7f3 (prompt was {prompt!r})"
print(context)
sys.exit(0)
"""


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / "scripts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return f"{sys.executable} {path}"


def _settings(ws: Path, hooks: dict[str, Any], name: str = "settings.json") -> None:
    (ws / ".claude").mkdir(exist_ok=True)
    (ws / ".claude" / name).write_text(json.dumps({"hooks": hooks}))


def _group(command: str, matcher: str = "", timeout: float | None = None) -> list[dict[str, Any]]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return [{"matcher": matcher, "hooks": [hook]}]


def _run(
    tmp_path: Path, fake_llm: FakeLLM, script: list[dict[str, Any]], *extra: str, prompt: str = "go"
) -> Any:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    fake_llm.set_script(script)
    return run_on_fake(
        tmp_path / "ws",
        fake_llm,
        "-p",
        prompt,
        *extra,
        home=home,
        state=tmp_path / "state",
        env={"ANTHROPIC_API_KEY": "sk-test-key"},
    )


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ws


def _last_tool_result(fake_llm: FakeLLM) -> str:
    return json.dumps(fake_llm.requests[-1]["messages"][-1])


def test_docs_bash_validator_blocks_grep_and_the_model_gets_stderr(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    (ws / "marker.txt").write_text("")
    _settings(ws, {"PreToolUse": _group(_script(tmp_path, "v.py", VALIDATOR), "Bash")})
    calls = [
        {"id": "a", "name": "run_in_terminal", "input": {"command": "grep foo *.py; touch ran-a"}},
    ]
    proc = _run(tmp_path, fake_llm, [{"tool_calls": calls}, {"text": "ok"}], "--trust", "--yolo")
    assert proc.returncode == 0, proc.stderr
    result = _last_tool_result(fake_llm)
    assert "Use 'rg' (ripgrep) instead of 'grep'" in result
    assert "blocked by a PreToolUse hook" in result
    assert not (ws / "ran-a").exists()  # the command never ran, even under --yolo


def test_validator_lets_other_commands_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PreToolUse": _group(_script(tmp_path, "v.py", VALIDATOR), "Bash")})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch ran-b"}}]
    proc = _run(tmp_path, fake_llm, [{"tool_calls": calls}, {"text": "ok"}], "--trust", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "ran-b").exists()


def test_docs_post_tool_use_formatter_rewrites_the_edited_file(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PostToolUse": _group(_script(tmp_path, "f.py", FORMATTER), "Edit|Write")})
    calls = [{"id": "w", "name": "create_file", "input": {"path": "new.txt", "content": "hello"}}]
    proc = _run(tmp_path, fake_llm, [{"tool_calls": calls}, {"text": "ok"}], "--trust", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "new.txt").read_text() == "HELLO"


def test_docs_user_prompt_submit_context_reaches_the_model(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"UserPromptSubmit": _group(_script(tmp_path, "c.py", CONTEXT_ADDER))})
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust", prompt="hello there")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests[-1]["messages"])
    assert "hook-context-7f3" in sent and "hello there" in sent


def test_user_prompt_submit_block_keeps_the_prompt_from_the_model(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"UserPromptSubmit": _group(_script(tmp_path, "c.py", CONTEXT_ADDER))})
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust", prompt="my secret is x")
    assert "Security policy violation" in proc.stderr + proc.stdout
    assert fake_llm.requests == []


def _decider(decision: str) -> str:
    return (
        "import json,sys; json.load(sys.stdin); print(json.dumps({'hookSpecificOutput': "
        f"{{'hookEventName': 'PreToolUse', 'permissionDecision': '{decision}', "
        "'permissionDecisionReason': 'policy-reason-9'}}))"
    )


def test_permission_decision_allow_runs_without_asking(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PreToolUse": _group(_script(tmp_path, "d.py", _decider("allow")), "Bash")})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch allowed"}}]
    script = [{"tool_calls": calls}, {"text": "ok"}]
    proc = _run(tmp_path, fake_llm, script, "--trust", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "allowed").exists()


def test_permission_decision_deny_refuses_even_under_yolo(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PreToolUse": _group(_script(tmp_path, "d.py", _decider("deny")), "*")})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch denied"}}]
    script = [{"tool_calls": calls}, {"text": "ok"}]
    proc = _run(tmp_path, fake_llm, script, "--trust", "--yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "denied").exists()
    assert "policy-reason-9" in _last_tool_result(fake_llm)
    assert "denied by hook `" in proc.stdout and "in .claude/settings.json" in proc.stdout


def test_permission_decision_ask_asks_even_under_yolo(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PreToolUse": _group(_script(tmp_path, "d.py", _decider("ask")), "Bash")})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch asked"}}]
    script = [{"tool_calls": calls}, {"text": "ok"}]
    proc = _run(tmp_path, fake_llm, script, "--trust", "--yolo", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "asked").exists()  # asked; -p with --on-approval deny declined
    assert "declined" in _last_tool_result(fake_llm)


def test_untrusted_workspace_hooks_are_ignored_with_a_notice(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    touch = f"{sys.executable} -c \"open('hook-ran-{{}}', 'w')\""
    _settings(ws, {"UserPromptSubmit": _group(touch.format("json"))})
    _settings(ws, {"UserPromptSubmit": _group(touch.format("local"))}, "settings.local.json")
    (ws / ".agentrc").write_text(
        f"[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ncommand = '''{touch.format('rc')}'''\n"
    )
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}])
    assert proc.returncode == 0, proc.stderr
    assert list(ws.glob("hook-ran-*")) == []
    assert "not trusted" in proc.stderr
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust")
    assert sorted(p.name for p in ws.glob("hook-ran-*")) == [
        "hook-ran-json",
        "hook-ran-local",
        "hook-ran-rc",
    ]


def test_hook_timeout_is_killed_and_the_call_goes_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    slow = f'{sys.executable} -c "import time; time.sleep(30)"; touch late'
    _settings(ws, {"PreToolUse": _group(slow, "Bash", timeout=0.5)})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch ran"}}]
    proc = _run(tmp_path, fake_llm, [{"tool_calls": calls}, {"text": "ok"}], "--trust", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "ran").exists() and not (ws / "late").exists()
    assert "timed out after 0.5 s" in proc.stderr


def test_hooks_of_one_event_run_in_parallel(tmp_path: Path, fake_llm: FakeLLM) -> None:
    # Each hook waits until the other has started (a file each): one after another, they would
    # both time out; in parallel both finish and both contexts reach the model.
    ws = _ws(tmp_path)
    wait = (
        "import os,sys,time; open('started-{me}','w');\n"
        "for _ in range(400):\n"
        "    if os.path.exists('started-{other}'): print('both-running-{me}'); sys.exit(0)\n"
        "    time.sleep(0.01)\n"
        "sys.exit(1)\n"
    )
    a = _script(tmp_path, "a.py", wait.format(me="a", other="b"))
    b = _script(tmp_path, "b.py", wait.format(me="b", other="a"))
    _settings(ws, {"UserPromptSubmit": [{"hooks": [{"command": a}, {"command": b}]}]})
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests[-1]["messages"])
    assert "both-running-a" in sent and "both-running-b" in sent


def test_hooks_do_not_see_api_keys(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    dump = f'{sys.executable} -c "import os; print(sorted(os.environ.items()))"'
    _settings(ws, {"UserPromptSubmit": _group(dump)})
    home = tmp_path / "home"
    home.mkdir()
    fake_llm.set_script([{"text": "ok"}])
    secrets = {"ANTHROPIC_API_KEY": "sk-ant-mark-11", "MY_TOKEN": "tok-mark-22"}
    env = {**secrets, "VISIBLE_MARK": "vis-33"}
    proc = run_on_fake(
        ws, fake_llm, "-p", "go", "--trust", home=home, state=tmp_path / "state", env=env
    )
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests[-1]["messages"])
    assert "vis-33" in sent and "CLAUDE_PROJECT_DIR" in sent
    assert "sk-ant-mark-11" not in sent and "tok-mark-22" not in sent


RECORD = "import json,sys; d=json.load(sys.stdin); open('{name}','a').write(json.dumps(d)+'\\n')"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_agentrc_hook_gets_our_names_and_claude_file_hook_gets_claude_code_names(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    ours = _script(tmp_path, "ours.py", RECORD.format(name="ours.jsonl"))
    theirs = _script(tmp_path, "theirs.py", RECORD.format(name="theirs.jsonl"))
    (ws / ".agentrc").write_text(
        f"[[hooks.PreToolUse]]\nmatcher = 'Edit'\n[[hooks.PreToolUse.hooks]]\ncommand = '{ours}'\n"
    )
    _settings(ws, {"PreToolUse": _group(theirs, "replace_string_in_file")})
    (ws / "a.txt").write_text("one two\n")
    edit = {"path": "a.txt", "old_string": "one", "new_string": "uno"}
    calls = [{"id": "e", "name": "replace_string_in_file", "input": edit}]
    proc = _run(tmp_path, fake_llm, [{"tool_calls": calls}, {"text": "ok"}], "--trust", "--yolo")
    assert proc.returncode == 0, proc.stderr
    [mine] = _records(ws / "ours.jsonl")
    assert mine["tool_name"] == "replace_string_in_file" and mine["tool_input"] == edit
    [claude] = _records(ws / "theirs.jsonl")
    assert claude["tool_name"] == "Edit" and claude["hook_event_name"] == "PreToolUse"
    assert claude["tool_input"]["file_path"] == str(ws / "a.txt")
    assert claude["tool_input"]["old_string"] == "one" and claude["cwd"] == str(ws)
    assert claude["session_id"] and claude["transcript_path"].endswith(".jsonl")
    assert (ws / "a.txt").read_text() == "uno two\n"


def test_session_start_context_and_session_end_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    start = f"{sys.executable} -c \"print('start-context-5a')\""
    end = _script(tmp_path, "end.py", RECORD.format(name="end.jsonl"))
    _settings(ws, {"SessionStart": _group(start), "SessionEnd": _group(end)})
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust")
    assert proc.returncode == 0, proc.stderr
    assert "start-context-5a" in json.dumps(fake_llm.requests[-1]["messages"])
    [ended] = _records(ws / "end.jsonl")
    assert ended["hook_event_name"] == "SessionEnd"


def test_stop_hook_exit_2_keeps_the_model_going_once(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    stop = _script(
        tmp_path,
        "stop.py",
        "import json,sys\nd=json.load(sys.stdin)\n"
        "if not d['stop_hook_active']:\n    print('run the tests first', file=sys.stderr); sys.exit(2)\n",
    )
    _settings(ws, {"Stop": _group(stop)})
    proc = _run(tmp_path, fake_llm, [{"text": "done?"}, {"text": "tests ran"}], "--trust")
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.requests) == 2
    assert "run the tests first" in json.dumps(fake_llm.requests[-1]["messages"][-1])
    assert "tests ran" in proc.stdout


def test_slash_hooks_lists_every_hook_and_its_source(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    _settings(ws, {"PreToolUse": _group("echo from-claude-file", "Bash")})
    (ws / ".agentrc").write_text(
        "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 'echo from-agentrc'\ntimeout = 5\n"
    )
    proc = _run(tmp_path, fake_llm, [], "--trust", prompt="/hooks")
    assert proc.returncode == 0, proc.stderr
    assert "| PreToolUse | `Bash` | `echo from-claude-file` | 60 s | .claude/settings.json |" in (
        proc.stdout
    )
    assert "| Stop | `*` | `echo from-agentrc` | 5 s | .agentrc |" in proc.stdout


def test_malformed_claude_settings_are_skipped_and_good_hooks_still_run(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    # Hostile or broken settings files: none may crash the run or run something half-read.
    ws = _ws(tmp_path)
    good = _script(tmp_path, "good.py", RECORD.format(name="good.jsonl"))
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.local.json").write_text("{not json")
    broken = {
        "hooks": {
            "UserPromptSubmit": [
                "a string, not a group",
                {"matcher": 5, "hooks": [{"type": "command", "command": good, "timeout": "x"}]},
                {"hooks": [{"type": "prompt", "prompt": "judge this"}]},
                {"hooks": [{"command": ""}, {"command": 42}, None]},
                {"hooks": "not a list"},
            ],
            "NoSuchEvent": [{"hooks": [{"command": "touch never"}]}],
            "Stop": {"not": "a list"},
        }
    }
    (ws / ".claude" / "settings.json").write_text(json.dumps(broken))
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust")
    assert proc.returncode == 0, proc.stderr
    assert len(_records(ws / "good.jsonl")) == 1  # the one well-formed command, default timeout
    assert not (ws / "never").exists()
    assert "settings.local.json not read" in proc.stderr
    assert "unknown event 'NoSuchEvent'" in proc.stderr


def test_a_flooding_hook_is_capped_and_its_escapes_are_not_shown_raw(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    flood = _script(
        tmp_path,
        "flood.py",
        "import sys\nsys.stdout.write('x' * 5_000_000)\n",
    )
    noisy = _script(
        tmp_path,
        "noisy.py",
        "import sys\nsys.stderr.write('bad\\x1b]0;pwned\\x07\\x1b[2J')\nsys.exit(1)\n",
    )
    _settings(ws, {"UserPromptSubmit": [{"hooks": [{"command": flood}, {"command": noisy}]}]})
    proc = _run(tmp_path, fake_llm, [{"text": "ok"}], "--trust")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests[-1]["messages"])
    assert "xxxx" in sent and len(sent) < 200_000  # 64 KiB of it, not 5 MB
    assert "failed (exit 1)" in proc.stderr and "\x1b" not in proc.stderr


def test_home_as_workspace_reads_the_user_settings_once(tmp_path: Path, fake_llm: FakeLLM) -> None:
    home = tmp_path / "ws"  # the workspace is the home folder
    home.mkdir()
    hook = _script(tmp_path, "h.py", RECORD.format(name="once.jsonl"))
    _settings(home, {"UserPromptSubmit": _group(hook)})
    fake_llm.set_script([{"text": "ok"}])
    env = {"ANTHROPIC_API_KEY": "sk-test-key"}
    proc = run_on_fake(home, fake_llm, "-p", "go", home=home, state=tmp_path / "state", env=env)
    assert proc.returncode == 0, proc.stderr
    assert len(_records(home / "once.jsonl")) == 1  # the user's file: runs untrusted, once
    assert "not trusted" not in proc.stderr


@pytest.mark.usefixtures("unsandboxed")  # a command that asks
def test_notification_hook_runs_when_an_approval_waits(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = _ws(tmp_path)
    note = _script(tmp_path, "note.py", RECORD.format(name="note.jsonl"))
    _settings(ws, {"Notification": _group(note)})
    calls = [{"id": "a", "name": "run_in_terminal", "input": {"command": "touch x"}}]
    script = [{"tool_calls": calls}, {"text": "ok"}]
    proc = _run(tmp_path, fake_llm, script, "--trust", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    [sent] = _records(ws / "note.jsonl")
    assert sent["hook_event_name"] == "Notification"
    assert "run_in_terminal" in sent["message"]


def test_pre_compact_runs_before_slash_compact_with_its_trigger(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = _ws(tmp_path)
    hook = _script(tmp_path, "pc.py", RECORD.format(name="compact.jsonl"))
    never = _script(tmp_path, "never.py", RECORD.format(name="auto-only.jsonl"))
    _settings(ws, {"PreCompact": _group(hook, "manual") + _group(never, "auto")})
    answers = [{"text": f"ANSWER-{n}"} for n in range(3)] + [{"text": "SUMMARY-1"}]
    fake_llm.set_script(answers)
    for n in range(3):
        flags = ["--continue"] if n else []
        proc = _run(tmp_path, fake_llm, answers[n:], "--trust", *flags, prompt=f"Q-{n}")
        assert proc.returncode == 0, proc.stderr
    proc = _run(tmp_path, fake_llm, answers[3:], "--trust", "--continue", prompt="/compact tests")
    assert proc.returncode == 0, proc.stderr
    [sent] = _records(ws / "compact.jsonl")
    assert sent["hook_event_name"] == "PreCompact" and sent["trigger"] == "manual"
    assert sent["custom_instructions"] == "tests"
    assert not (ws / "auto-only.jsonl").exists()  # its matcher names the other trigger
