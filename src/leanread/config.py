"""Limits of what one tool result may hold; the tool descriptions quote them from here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps on one ``read`` result.

    Attributes:
        max_lines: lines per window when the caller gives no ``limit`` (opencode and Claude Code
            both use 2000).
        max_bytes: UTF-8 bytes of file content per result; the window is cut at a line boundary
            before this (opencode's 50 KB).
        max_line_chars: characters of one line shown before it is cut (opencode's 2000).
        sniff_bytes: bytes inspected to tell text from binary.
    """

    max_lines: int = 2000
    max_bytes: int = 50 * 1024
    max_line_chars: int = 2000
    sniff_bytes: int = 8192

    def __post_init__(self) -> None:
        for name in ("max_lines", "max_bytes", "max_line_chars", "sniff_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1.")
