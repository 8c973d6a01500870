"""What fits in a model's context: the window, the token estimate's calibration, and overflows.

``agent/prompt.py`` builds a request within a budget from a chars/4 estimate. This module keeps,
per model, what the server has taught us since:

- ``token_scale``: real tokens per estimated token, from the prompt tokens the server reports
  (``Usage``) divided by our estimate of the request it counted. It only ever tightens the
  estimate (at least 1.0): chars/4 is already generous for English and code, and letting a lucky
  request loosen it would only make the next overflow more likely.
- a learnt window: when the server refuses a request as too long and states its context size
  (``ContextOverflow.limit``), that size replaces ``model.context_window`` for the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.agent.context_window import known_window
from agent_tui.agent.prompt import BuiltPrompt, build_followup_prompt
from agent_tui.config import ModelConfig
from agent_tui.conversation import Message
from agent_tui.errors import ContextOverflow
from agent_tui.providers.base import Usage

DEFAULT_CONTEXT_WINDOW = 200_000
MAX_TOKEN_SCALE = 4.0  # one token per character: any denser is a bad usage report
OVERFLOW_SHRINK = 0.75  # when the server does not say its size: try a quarter smaller


def prompt_tokens(usage: Usage) -> int:
    """Every token of the prompt, cached or not (both APIs report the cached part apart)."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens


@dataclass
class ContextBudget:
    """The context knowledge of one session, keyed by model name."""

    token_scale: dict[str, float] = field(default_factory=dict)
    windows: dict[str, int] = field(default_factory=dict)
    # What the server said its window is when asked (agent/context_window.py), per model.
    served: dict[str, int] = field(default_factory=dict)

    def window(self, model: ModelConfig) -> int:
        """The window to budget for: the smaller of what the server says and config, else the
        model's published size, else the default; a "too long" answer since can only lower it."""
        stated = [n for n in (self.served.get(model.name), model.context_window) if n]
        base = min(stated) if stated else known_window(model.name) or DEFAULT_CONTEXT_WINDOW
        return min(self.windows.get(model.name, base), base)

    def prompt_limit(self, model: ModelConfig) -> int:
        """The tokens a request may hold: the window less what is kept for the reply."""
        window = self.window(model)
        return window - min(self.reply_tokens(model), window // 2)

    def reply_tokens(self, model: ModelConfig) -> int:
        """The ``max_tokens`` requests ask for (``ModelConfig.reply_tokens``)."""
        return model.reply_tokens(self.local_server(model))

    def local_server(self, model: ModelConfig) -> bool:
        """Whether ``model``'s server said its window: a local server (llama.cpp, Ollama, vLLM,
        LM Studio; ``providers/context_probe.py``), which gets the local sampling defaults."""
        return model.name in self.served

    def calibrate(self, model: ModelConfig, built: BuiltPrompt, exact: int) -> None:
        """Take in the server tokenizer's exact count of ``built`` (agent/exact_count.py)."""
        if exact <= 0 or built.estimated_tokens <= 0:
            return
        scale = min(max(exact / built.estimated_tokens, 1.0), MAX_TOKEN_SCALE)
        self.token_scale[model.name] = scale

    def build(
        self, model: ModelConfig, system: str, messages: list[Message], tools_chars: int
    ) -> BuiltPrompt:
        """The request for ``messages`` (the whole conversation) within the model's window.

        Raises:
            UsageError: the system prompt and the current request alone do not fit.
        """
        window = self.window(model)
        return build_followup_prompt(
            system,
            messages,
            context_window=window,
            # A small server (llama.cpp at 4,096) under the default max_tokens (8,192) would leave
            # no room at all: the reply may have at most half of the window.
            reply_budget=window - self.prompt_limit(model),
            tools_chars=tools_chars,
            token_scale=self.token_scale.get(model.name, 1.0),
        )

    def scaled(self, model: ModelConfig, built: BuiltPrompt) -> int:
        """The estimate of ``built``'s tokens, with what the server taught us applied."""
        return int(built.estimated_tokens * self.token_scale.get(model.name, 1.0))

    def observe(self, model: ModelConfig, built: BuiltPrompt, usage: Usage) -> None:
        """Calibrate the estimate from the prompt tokens the server counted for ``built``."""
        counted = prompt_tokens(usage)
        if counted <= 0 or built.estimated_tokens <= 0:
            return
        scale = min(max(counted / built.estimated_tokens, 1.0), MAX_TOKEN_SCALE)
        self.token_scale[model.name] = scale

    def learn_overflow(self, model: ModelConfig, built: BuiltPrompt, exc: ContextOverflow) -> None:
        """Take in what a "too long" answer says about the request ``built``.

        The stated size becomes the window; the stated prompt size calibrates the estimate. A
        server that states neither gets a window a quarter smaller than the one that failed.
        """
        before = self.window(model)
        if exc.prompt_tokens and built.estimated_tokens > 0:
            scale = min(max(exc.prompt_tokens / built.estimated_tokens, 1.0), MAX_TOKEN_SCALE)
            self.token_scale[model.name] = max(scale, self.token_scale.get(model.name, 1.0))
        if exc.limit:
            self.windows[model.name] = min(exc.limit, before)
        elif not exc.prompt_tokens:
            self.windows[model.name] = int(before * OVERFLOW_SHRINK)

    @staticmethod
    def overflow_notice(model: ModelConfig, exc: ContextOverflow) -> str:
        """What the user is told when a pruned request is sent again after a "too long"."""
        said = []
        if exc.limit:
            said.append(f"its context is {exc.limit:,} tokens")
        if exc.prompt_tokens:
            said.append(f"the request had {exc.prompt_tokens:,}")
        detail = f" ({' and '.join(said)})" if said else ""
        return (
            f"The server found the request too long{detail}; model.context_window is "
            f"{model.context_window or 'not set'}. Pruned to fit and sent again."
        )
