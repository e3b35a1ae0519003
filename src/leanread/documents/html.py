"""XHTML (EPUB chapters) to plain lines with the standard library's parser: headings as ``#``,
list items as ``- ``, one line per paragraph; scripts and styles dropped."""

from __future__ import annotations

from html.parser import HTMLParser

from .base import squeeze

_BLOCKS = frozenset(
    {"p", "div", "section", "article", "blockquote", "pre", "tr", "table", "ul", "ol", "dl", "dt", "dd", "figure"}
)
_SKIP = frozenset({"script", "style", "head", "title"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._line: list[str] = []
        self._skip = 0
        self._pre = 0

    def _flush(self) -> None:
        text = "".join(self._line)
        self._line = []
        if self._pre:
            self.lines.extend(text.split("\n"))
        elif text.strip():
            self.lines.append(" ".join(text.split()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.lines.append("")
            self._line.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self._flush()
            self._line.append("- ")
        elif tag == "br":
            self._flush()
        elif tag in _BLOCKS:
            self._flush()
            if tag == "pre":
                self._pre += 1
        elif tag in ("td", "th"):
            self._line.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.lines.append("")
        elif tag in _BLOCKS or tag == "li":
            if tag == "pre":
                self._flush()
                self._pre = max(0, self._pre - 1)
            else:
                self._flush()
            if tag == "p":
                self.lines.append("")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._line.append(data)


def html_lines(markup: str) -> list[str]:
    """The text of an HTML or XHTML document as lines."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    parser._flush()
    return squeeze(parser.lines)
