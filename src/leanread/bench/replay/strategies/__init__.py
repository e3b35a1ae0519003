"""The replay strategies, one small class per module; ``available()`` finds them all, so adding a
strategy is adding a module here with a ``Strategy`` subclass that has a ``name``."""

from __future__ import annotations

import importlib
import pkgutil

from ..strategy import Strategy


def available() -> dict[str, type[Strategy]]:
    """Every strategy class in this package by name, in report order (``order``, then name)."""
    found: dict[str, type[Strategy]] = {}
    for module in pkgutil.iter_modules(__path__):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        for value in vars(loaded).values():
            own = isinstance(value, type) and issubclass(value, Strategy) and value.__module__ == loaded.__name__
            if own and value.name:
                found[value.name] = value
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
