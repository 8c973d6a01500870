"""The app's first screen, drawn before the app has loaded, and what is typed on it.

Importing Textual, Rich and the agent takes a few hundred milliseconds of a start; Codex, a native
binary, shows its prompt in about a hundred. So the launcher (``launch.py``) draws the chat's empty
first screen at once — status bar, empty transcript, the prompt with its placeholder, the key
hints, in the app's own colours — and reads the keyboard while the rest loads: what is typed shows
in the prompt, and goes into the app's prompt when the app takes the terminal over (Enter typed
meanwhile sends it then; Ctrl+C twice quits before anything else starts).

Only where the app's first screen is exactly that (``decide.py``): a terminal on both ends, a
colour system Textual would use, no flag that opens something else first (``-p``, ``--continue``,
``--resume``…), no ``[ui]`` setting that changes the look or the keys (a light theme, ``keys``,
``vim``). ``AGENT_TUI_EARLY_SCREEN=0`` turns it off.

Nothing here imports more than the standard library's terminal modules: it runs before the rest.

Imported by parts: the launcher reads ``decide`` on every start (``-p`` too) and loads the rest
only when the early screen is drawn.
"""
