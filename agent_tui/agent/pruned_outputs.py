"""Tool outputs that a request leaves out are let go from memory too.

``agent/prompt.py`` keeps each request within the context window: it drops older turns whole and
elides the oldest tool outputs of the current turn. The conversation used to keep those outputs
anyway, so a long turn (300 rounds each reading a 2,000-line file) held every output ever read and
its memory grew by a quarter of a MiB a round (115 MiB at round 300), though no request would ever
carry most of it again.

Once a request has been built, every tool output of the conversation that it does not carry (its
turn was dropped, or its content was elided) is replaced in the conversation by the same
placeholder the request used, ``conversation.ELIDED``, which tells the model to run the tool again.
Pruning only grows within a session (the window is fixed or only learnt smaller, and the
conversation only gets longer), so a later request would have left the output out anyway. The one
exception: after ``/model`` switches to a larger window, such an output stays a placeholder (the
model can run the tool again). A turn dropped whole may fit again once slimmed, and then comes back
with its calls and placeholders, never with the outputs. Saved sessions hold the placeholders too.

Messages are replaced, never changed in place: a request already built keeps the message objects
it was built from.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.conversation import ELIDED, Block, Conversation, Message, ToolResultBlock


def forget_pruned_outputs(conversation: Conversation, sent: Sequence[Message]) -> int:
    """Replace the tool outputs that ``sent`` left out by the placeholder, in ``conversation``.

    Args:
        conversation: the session's conversation, every message of which ``sent`` was built from.
        sent: the messages of the request just built (``BuiltPrompt.messages``).

    Returns:
        How many outputs were let go now.
    """
    messages = conversation.messages
    # Most of a long turn's results are placeholders already: only the others are looked at.
    holding = [i for i, m in enumerate(messages) if m.holds_output]
    if not holding:
        return 0
    # An output sent as the placeholder counts as left out, as one not sent at all.
    carried: dict[str, str] = {
        block.tool_use_id: block.content
        for message in sent
        if message.holds_output
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }

    def left_out(block: Block) -> bool:
        if not isinstance(block, ToolResultBlock) or block.content == ELIDED:
            return False
        # ``==`` is an identity check first: a carried output costs no comparison of its text.
        sent_as = carried.get(block.tool_use_id)
        return sent_as is None or sent_as == ELIDED

    forgotten = 0
    for index in holding:
        message = messages[index]
        if not any(left_out(b) for b in message.content):
            continue
        blocks: list[Block] = []
        for block in message.content:
            if left_out(block):
                assert isinstance(block, ToolResultBlock)
                block = ToolResultBlock(block.tool_use_id, ELIDED, block.is_error)
                forgotten += 1
            blocks.append(block)
        conversation.lighten(index, Message(message.role, blocks))
    return forgotten
