"""Agent Skills (the open ``SKILL.md`` format): discovery, the system prompt's list, file access.

A skill is a folder holding ``SKILL.md`` (front matter ``name`` and ``description``, a Markdown body)
and any files beside it. The system prompt lists each skill's name and description; the model loads
the body and the files on demand with the ``read_skill`` tool, so an unused skill costs one line.
"""
