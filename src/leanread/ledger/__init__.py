"""What the model of each session has been shown, and what follows from it.

Layer 6 of leanread (see ``docs/ARCHITECTURE.md``), beside ``pruning``: imports ``view``,
``files``, ``code``, ``config`` and the base modules, nothing above.

- ``store``: ``ViewRecord``, the ``LedgerStore`` protocol and the memory store;
- ``sqlite_store``, ``redis_store``: the default store on disk, and the store a fleet shares;
  ``sqlite_file`` the SQLite file's connection and held writes, ``sqlite_schema`` its schema and
  upgrades, ``sqlite_rows`` its rows; the Redis
  store's connection, keys and shown versions in ``redis_base``, its transcript in
  ``redis_transcript``;
- ``callwrites``: what one tool call records, kept until it ends and written as one;
- ``behind``, ``held``: the SQLite store's end-of-call writes, held until the process is idle
  and read from there until made;
- ``open``: which store a ``--ledger`` value names;
- ``transcript``, ``transcript_sqlite``: every call as the model saw it (``leanread inspect``);
- ``viewcache``: a process's copy of the records it fetched from a shared store;
- ``knowledge``: what the model knows of a file's current version (pure);
- ``dedup``, ``resume``: when a re-read may be answered from what the model has, and where a
  ``read`` without a path goes on.
"""
