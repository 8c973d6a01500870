"""Values for ``${input:ID}`` in server configs, looked up when a server starts.

In order: the user's ``~/.agentrc`` ``[mcp.input_values]``, the environment variable
``AGENT_TUI_INPUT_<ID>`` (upper case, other characters as ``_``), then the user's answer to the
UI's ``ask_input`` hook, which is kept for the session only: these are often secrets, so they are
never written down. With nobody to ask (headless), an input's ``default`` is used if it has one.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Mapping

from agent_tui.mcp.types import InputHook, InputSpec


def env_var(input_id: str) -> str:
    """The environment variable that supplies an input: ``api-key`` -> ``AGENT_TUI_INPUT_API_KEY``."""
    return "AGENT_TUI_INPUT_" + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


def missing_message(spec: InputSpec, *, cancelled: bool) -> str:
    """Why a server did not start, and the three ways to give the input a value."""
    about = f" ({spec.description})" if spec.description else ""
    why = "was not given" if cancelled else "has no value and there is nobody to ask"
    return (
        f"input {spec.id!r}{about} {why}: set it in ~/.agentrc under [mcp.input_values] "
        f'("{spec.id}" = "..."), or in the environment as {env_var(spec.id)}, or answer the '
        "question when the server starts in the TUI"
    )


class InputValues:
    """The session's source of ``${input:ID}`` values.

    Args:
        configured: reads ``[mcp.input_values]`` (only the user's own ``.agentrc`` may set it,
            ``config_schema`` NEVER); called at each lookup.
        env: the environment (defaults to ``os.environ`` at the time of each lookup).
    """

    def __init__(
        self,
        configured: Callable[[], Mapping[str, str]] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.configured = configured
        self.env = env
        self.answers: dict[str, str] = {}  # this session's answers, never stored
        self._locks: dict[str, asyncio.Lock] = {}
        self._questions: dict[str, int] = {}  # how many questions for each input were answered

    def known(self, spec: InputSpec) -> str | None:
        """The value without asking: configured, environment, or an earlier answer."""
        configured = self.configured() if self.configured is not None else {}
        if spec.id in configured:
            return configured[spec.id]
        env = os.environ if self.env is None else self.env
        return env.get(env_var(spec.id)) or self.answers.get(spec.id)

    async def value(self, server: str, spec: InputSpec, ask: InputHook | None) -> str | None:
        """The input's value, asking through ``ask`` if nothing else supplies it.

        Servers starting together that need the same input share one question: whoever waits
        while it is asked takes that answer, or, if it was cancelled, gives up too.

        Returns:
            The value; None when it was cancelled, or nobody can be asked and it has no default.
        """
        value = self.known(spec)
        if value is not None:
            return value
        if ask is None:
            return spec.default
        asked_before = self._questions.get(spec.id, 0)
        async with self._locks.setdefault(spec.id, asyncio.Lock()):
            value = self.known(spec)
            if value is not None or self._questions.get(spec.id, 0) != asked_before:
                return value  # answered, or cancelled, while this server waited
            value = await ask(server, spec)
            self._questions[spec.id] = asked_before + 1
            if value is not None:
                self.answers[spec.id] = value
            return value
