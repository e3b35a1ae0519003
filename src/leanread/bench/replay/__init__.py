"""``leanread bench replay``: real agent traces replayed through leanread and the anchors' read
behaviours, side by side (issue 6).

- ``source``: the traced release from PyPI (sdist, else an old-interpreter wheel, else the sdist
  fetched without pip's build step), cached.
- ``engine``: one trace, every strategy in lockstep on one scratch copy; ``sandbox`` re-runs the
  agent's file-changing shell commands confined to it.
- ``strategies/``: one class per file (``strategy.Strategy``).
- ``reconstruct``: the model's view rebuilt from leanread's outputs alone (the truthfulness check).
- ``figures``: totals and ratios per strategy; ``report``: them as Markdown, JSON, chart; ``run``:
  the whole folder with a progress bar.
"""

from __future__ import annotations

from .engine import TraceResult, replay
from .run import ReplayRun, pick_strategies, run_all, trace_files

__all__ = ["ReplayRun", "TraceResult", "pick_strategies", "replay", "run_all", "trace_files"]
