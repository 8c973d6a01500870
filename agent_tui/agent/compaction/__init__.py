"""Compaction: older turns replaced by a summary the model writes.

- ``boundary``: where a cut may land (never between a call and its result);
- ``transcript``: the older part as fenced text for the summariser;
- ``summarize``: the summary request (``prompts/compact.md``) and its answer;
- ``run``: ``compact`` (``/compact``) and ``auto_compact`` (near the window, before pruning);
- ``command``: the ``/compact`` slash command.
"""
