"""Focus on a grep result with any backend: its match blocks pruned through their lines."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Pruner
from .local import literal_heads


def keep_blocks_by(pruner: Pruner, blocks: Sequence[str], heads: Sequence[str], question: str) -> list[int]:
    """Indices (0-based, ascending) of the text ``blocks`` to keep for ``question``, as ``pruner`` judges.

    The blocks' lines are given to the pruner as one output; a block is kept when the pruner keeps
    any of its lines, and every block whose head literally contains a distinguishing term of the
    question (``local.literal_heads``) is kept whatever the pruner says, as ``keep_blocks`` does.

    Raises:
        whatever the pruner raises (the caller fails open).
    """
    lines: list[str] = []
    owner: list[int] = []
    for index, block in enumerate(blocks):
        block_lines = block.split("\n")
        lines.extend(block_lines)
        owner.extend([index] * len(block_lines))
    kept = literal_heads(heads, question)
    for first, last in pruner.keep(lines, question, None):
        kept.update(owner[n - 1] for n in range(max(first, 1), min(last, len(lines)) + 1))
    return sorted(kept)
