"""A project's own configuration may only tighten leanread, never loosen it.

The project being read is not trusted with its own sandbox: a model that can write
``leanread.toml`` must not be able to give the next ``leanread`` run its ``.env``. So what a
project's file proposes is merged into the settings in force (defaults, then the user's own
config file) by these rules, and each part that would loosen is ignored and named in one warning:

- the deny list: the project may add patterns; patterns in force always stay;
- the allow list (exceptions to the deny list): the project may drop exceptions, not add any;
- the whole-number limits: the project may lower them, not raise them above the value in force;
- ``allow_write_protected``: only the user may turn it on.

The other keys (``read_mode``, instruction files, the local focus backends) are the project's
to choose; where its files are sent (a remote focus backend) is refused outright by ``config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Patterns named in a warning at most; more are counted.
_NAMED = 3


def _patterns(patterns: list[str]) -> str:
    if len(patterns) <= _NAMED:
        return ", ".join(patterns)
    return f"{len(patterns)} patterns ({', '.join(patterns[:_NAMED])}, …)"


def tighten(
    limits: Mapping[str, Any],
    policy: Mapping[str, Any],
    proposed_limits: dict[str, Any],
    proposed_policy: dict[str, Any],
    defaults: Mapping[str, int],
) -> list[str]:
    """Undo in ``proposed_limits`` and ``proposed_policy`` (a project's file merged over
    ``limits`` and ``policy``, the settings in force) every change that loosens, and describe each.

    Args:
        limits, policy: the settings in force before the project's file, as ``load_settings``
            builds them (``policy`` holds ``deny`` and ``allow``).
        proposed_limits, proposed_policy: the same with the project's file applied; changed in place.
        defaults: the default of each whole-number limit (for a limit not set before).

    Returns:
        One phrase per loosening part ignored, e.g. ``"max_bytes = 999999 (above 51200)"``.
    """
    ignored: list[str] = []
    for key, value in list(proposed_limits.items()):
        if not isinstance(value, int):
            continue
        current = limits.get(key, defaults[key])
        if value > current:
            ignored.append(f"{key} = {value} (above {current})")
            proposed_limits[key] = current
    deny = list(policy["deny"])
    dropped = [p for p in deny if p not in proposed_policy["deny"]]
    if dropped:
        ignored.append(f"dropping {_patterns(dropped)} from the deny list")
    proposed_policy["deny"] = tuple(dict.fromkeys([*deny, *proposed_policy["deny"]]))
    allow = list(policy["allow"])
    added = [p for p in proposed_policy["allow"] if p not in allow]
    if added:
        ignored.append(f"allowing {_patterns(added)} past the deny list")
        proposed_policy["allow"] = tuple(p for p in proposed_policy["allow"] if p in allow)
    if proposed_policy.get("allow_write_protected") and not policy.get("allow_write_protected"):
        ignored.append("allow_write_protected = true")
        proposed_policy["allow_write_protected"] = False
    return ignored
