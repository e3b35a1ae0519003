"""``leanread bench fuzz``: random and hostile tool calls against the real server over stdio.

See ``runner.run_fuzz`` (the run), ``tree`` (the workspace), ``calls`` (the calls), ``check``
(what is checked) and ``report`` (the summary table).
"""

from .runner import FuzzConfig, Summary, run_fuzz

__all__ = ["FuzzConfig", "Summary", "run_fuzz"]
