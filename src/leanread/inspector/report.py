"""The replay report (``leanread bench replay``'s ``results.json``) as the inspect page shows it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LeanreadError
from .chart import saving_chart

#: The strategy the chart sets against the baseline.
OURS, BASELINE = "leanread", "opencode"


@dataclass(frozen=True)
class Report:
    """The report page: the run, one row per strategy and per trace, the chart."""

    path: str
    command: str
    date: str
    strategies: list[dict[str, Any]]
    traces: list[dict[str, Any]]
    divergences: list[str]
    chart: str


def load_report(path: Path) -> Report:
    """Read and summarise a replay report.

    Raises:
        LeanreadError: the file cannot be read or is not a replay report.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        strategies = data["summary"]["strategies"]
        traces = data["traces"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LeanreadError(
            f"Cannot read the replay report {path} ({exc}); pass the results.json that `leanread bench replay` wrote."
        ) from exc
    rows = [
        {"name": name, "title": s.get("title", name), "read": s.get("read"), "all": s.get("all"),
         "ratio_read": s.get("ratio_read"), "ratio_all": s.get("ratio_all")}
        for name, s in strategies.items()
    ]  # fmt: skip
    ours = [int(t["tokens"].get(OURS, {}).get("read", 0)) for t in traces]
    base = [int(t["tokens"].get(BASELINE, {}).get("read", 0)) for t in traces]
    trace_rows = [
        {"trace": t["trace"], "reads": t.get("servable_reads"), "ours": o, "base": b,
         "ratio": o / b if b else None, "divergences": len(t.get("divergences", []))}
        for t, o, b in zip(traces, ours, base, strict=True)
    ]  # fmt: skip
    return Report(
        str(path),
        str(data.get("command", "")),
        str(data.get("date", "")),
        rows,
        trace_rows,
        [str(d) for d in data["summary"].get("divergences", [])],
        saving_chart(ours, base, "trace", ("leanread reads", "opencode reads")),
    )
