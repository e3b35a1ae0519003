"""Configuration: limits, the deny list, what a project's file may only tighten, the optional extras.

Layer 2 of leanread (see ``docs/ARCHITECTURE.md``): imports only the base modules (``errors``,
``result``, ``memo``, ``tokens``); every other layer may import it.

- ``limits``: what is configurable: ``Limits``, ``Focus``, ``Settings``;
- ``settings``: ``load_settings`` (the user's file, then the project's ``leanread.toml`` or
  ``[tool.leanread]``), with the names of ``limits`` and ``policy`` for its callers;
- ``policy``: the deny list and its exceptions, decided from names alone;
- ``tighten``: what a project's own configuration may change (only tighten);
- ``extras``: which optional extra installs a missing module.
"""
