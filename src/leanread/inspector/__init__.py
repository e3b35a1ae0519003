"""``leanread inspect``: a local web page over the ledger showing what each session's model was shown.

``server.build_app`` makes the Starlette app, ``server.serve`` runs it on the loopback interface;
``queries``, ``files`` and ``chart`` turn the store's records into what the pages show (pure
functions; ``files`` rebuilds each read with ``view.reconstruct``); ``report`` renders a replay
report (``bench-results/…/results.json``).

Layer 9 of leanread (see ``docs/ARCHITECTURE.md``), beside ``mcp`` and ``adapters``: imports
``ledger``, ``view`` and what is below them; never ``bench``.
"""
