"""The OS sandbox every command the agent runs goes through (DESIGN §11).

- ``policy``: what is allowed (modes, deny-read list, write roots, protected names, domains);
- ``bwrap``: the Linux command line and the availability probe; ``seatbelt``: the macOS profile;
- ``proxy`` (outside) and ``bridge`` (inside, when socat is missing): the one network route;
- ``runtime``: the session's ``Sandbox`` and one ``Launch`` per command;
- ``blocked``: what a command was stopped doing, in words; ``escalate``: asking to go further;
- ``cli``: ``agent-tui sandbox [--mode M] -- CMD``.
"""
