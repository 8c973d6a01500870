"""One exception hierarchy for agent-tui.

    AgentError                      base of everything we raise on purpose
    ├── ConfigError                 bad .agentrc / flags / env; carries file, key, reason (exit 2)
    ├── UsageError                  bad command line or input (unknown @participant, missing #file) (exit 2)
    ├── ProviderError               the model API failed (exit 1)
    │   ├── ProviderAuthError       401/403: key missing or refused
    │   ├── ProviderNotFoundError   404: wrong base URL or unknown model
    │   ├── ProviderRateLimitError  429/529/5xx after the retries ran out
    │   ├── ContextOverflow         the server says the prompt exceeds its context window
    │   └── StreamInterrupted       the stream broke mid-way; `partial_text` keeps what arrived
    ├── ToolError                   expected tool failure; message tells the model what to do next
    ├── ApprovalRequired            --on-approval fail stopped the run (exit 3)
    ├── RoundLimitReached           the round limit was hit and not continued (exit 4)
    ├── CostLimitReached            the next request would pass ``[agent] max_cost`` (exit 4)
    ├── UnusableReply               the model's replies were markup echoes or repeated themselves
    └── McpError                    an MCP server failed to start, crashed or answered badly

Stop conditions of the loop are exceptions carrying a message (CONVENTIONS: a small, linear loop).
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error agent-tui raises on purpose."""

    exit_code = 1


class ConfigError(AgentError):
    """A configuration file, flag or environment variable is wrong.

    Args:
        reason: what is wrong, in words a user can act on.
        file: the file it came from, if any.
        key: the dotted key, if any (``tools.terminal.auto_approve``).
    """

    exit_code = 2

    def __init__(self, reason: str, *, file: str | None = None, key: str | None = None) -> None:
        self.reason = reason
        self.file = file
        self.key = key
        where = ": ".join(part for part in (file, key) if part)
        super().__init__(f"{where}: {reason}" if where else reason)


class UsageError(AgentError):
    """The user's command line or chat input cannot be carried out as written."""

    exit_code = 2


class ProviderError(AgentError):
    """The model API failed. ``retryable`` says whether trying again may help."""

    exit_code = 1

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class ProviderAuthError(ProviderError):
    """401/403: the API key is missing, wrong or lacks access."""


class ProviderNotFoundError(ProviderError):
    """404: the base URL or model name is wrong."""


class ProviderRateLimitError(ProviderError):
    """429/529/5xx persisted after the retries."""


class ContextOverflow(ProviderError):
    """The server refused the request as longer than its context window.

    Args:
        limit: the context size in tokens the server states, if it does.
        prompt_tokens: the request's size as the server counted it, if it says.
    """

    def __init__(
        self, message: str, *, status: int, limit: int | None, prompt_tokens: int | None
    ) -> None:
        super().__init__(message, status=status)
        self.limit = limit
        self.prompt_tokens = prompt_tokens


class StreamInterrupted(ProviderError):
    """The response stream broke before it finished.

    Args:
        partial_text: the assistant text that arrived before the break.
    """

    def __init__(self, message: str, *, partial_text: str = "") -> None:
        super().__init__(message, retryable=True)
        self.partial_text = partial_text


class ToolError(AgentError):
    """An expected tool failure. The message is shown to the model: say what to do next."""


class ApprovalRequired(AgentError):
    """A tool call needed approval and the policy was to fail (``--on-approval fail``)."""

    exit_code = 3


class RoundLimitReached(AgentError):
    """The agent hit its round limit and the user did not continue."""

    exit_code = 4


class CostLimitReached(AgentError):
    """The next request would take the session past ``[agent] max_cost`` (``--max-cost``)."""

    exit_code = 4


class UnusableReply(AgentError):
    """The model's reply could not be used: only its chat template's markup twice in a row, or
    text repeating itself (``agent/reply_checks.py``, ``agent/repetition.py``)."""


class McpError(AgentError):
    """An MCP server failed to start, crashed, or answered with an error."""
