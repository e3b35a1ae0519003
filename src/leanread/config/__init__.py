"""Configuration: limits, the deny list, what a project's file may only tighten, the optional extras.

Layer 2 of leanread (see ``docs/ARCHITECTURE.md``): imports only the base modules (``errors``,
``result``, ``memo``, ``tokens``); every other layer may import it.

- ``settings``: ``Limits``, ``Focus``, ``Settings`` and ``load_settings`` (the user's file, then
  the project's ``leanread.toml`` or ``[tool.leanread]``);
- ``policy``: the deny list and its exceptions, decided from names alone;
- ``tighten``: what a project's own configuration may change (only tighten);
- ``extras``: which optional extra installs a missing module.
"""
