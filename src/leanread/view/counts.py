"""How a count is written in model-visible text: plain digits and the noun in agreement.

Digits are written without thousands separators: measured with o200k_base on leanread's own
notices (``(End of file - total 400000 lines)`` against ``400,000``), every number of four or more
digits costs one token less, and the model reads both alike. The noun agrees with the count:
``1 line``, ``2 lines``, ``1 match``, ``3 matches``, ``1 entry``, ``5 entries``.
"""

from __future__ import annotations

#: Plurals that do not just add ``s``.
_IRREGULAR = {"entry": "entries", "match": "matches", "directory": "directories", "index": "indexes"}


def plural_of(noun: str) -> str:
    """The plural of ``noun`` (``line`` → ``lines``, ``match`` → ``matches``, ``entry`` → ``entries``)."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("ch", "sh", "s", "x")):
        return noun + "es"
    return noun + "s"


def plural(count: int, noun: str) -> str:
    """``count`` in plain digits and ``noun`` agreeing with it: ``1 line``, ``12000 lines``."""
    return f"{count} {noun if count == 1 else plural_of(noun)}"
