"""A warm session server for the ``leanread`` command (``server``) and its thin client (``client``)."""
