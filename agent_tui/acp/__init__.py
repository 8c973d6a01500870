"""``agent-tui acp``: agent-tui as an Agent Client Protocol agent, for editors (Zed, JetBrains,
Neovim, Toad) and headless clients (acpx).

A third front end beside the app and ``-p``: it speaks JSON-RPC on stdio through the
``agent-client-protocol`` library and reaches the core only through ``front.Front``.

- ``stdio.py``: ``run_acp``, the stdio the protocol runs on (stdout carries only the protocol;
  anything else written there goes to stderr); ``handshake.py`` answers ``initialize`` before the
  library is imported (most of a second of start-up).
- ``server.py``: the protocol's agent side (sessions new, load and list, prompt, cancel, modes).
- ``session.py``: one ACP session around one ``Front``: a turn's events become ``session/update``
  notifications, approvals become ``session/request_permission``.
- ``updates.py``: the pure mapping of the core's events to ACP updates (kinds, titles, locations,
  diffs, command output); ``live_output.py`` a running command's output, at most 10 updates a
  second; ``permission.py`` the approval options and answers; ``prompt.py`` the
  prompt's content blocks as a ``UserInput``.
- ``client_files.py``, ``client_terminal.py``: the client's ``fs/*`` and ``terminal/*`` where its
  ``initialize`` offered them (``AcpSession.use_client`` hands them to ``Front.use_editor``).

The ``acp`` library is imported only here, so ``-p`` never pays for it.
"""
