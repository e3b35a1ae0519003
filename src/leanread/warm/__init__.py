"""A warm session server for the ``leanread`` command (``server``) and its thin client (``client``).

The top layer of leanread with ``__main__`` (see ``docs/ARCHITECTURE.md``): it runs the command
line (``cli.main``); nothing imports it.
"""
