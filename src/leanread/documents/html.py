"""XHTML (EPUB chapters) to plain lines with the standard library's parser: headings as ``#``,
list items as ``- ``, one line per paragraph, a table row as ``| a | b |`` (``|`` in a cell as
``\\|``, a line break or paragraph in it as ``<br>``); scripts and styles dropped."""

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
        self._cell: int | None = None  # where the open table cell's text starts in ``_line``

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
        elif self._cell is not None and tag not in ("tr", "table", "td", "th"):
            self._break_in_cell(tag, self._cell)
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
            self._cell = len(self._line)

    def _break_in_cell(self, tag: str, start: int) -> None:
        """A ``<br>``, or a block (paragraph, list item…) after text, in the table cell whose text
        starts at ``_line[start]``: ``<br>``."""
        if tag == "br" or ((tag in _BLOCKS or tag == "li") and "".join(self._line[start:]).strip()):
            self._line.append("<br>")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.lines.append("")
        elif self._cell is not None and tag in ("tr", "table"):  # a row's blocks end with it
            self._cell = None
            self._line.append(" |")
            self._flush()
        elif self._cell is None and (tag in _BLOCKS or tag == "li"):
            self._flush()
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
            if tag == "p":
                self.lines.append("")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._line.append(data if self._cell is None else data.replace("|", "\\|"))


def html_lines(markup: str) -> list[str]:
    """The text of an HTML or XHTML document as lines."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    parser._flush()
    return squeeze(parser.lines)
