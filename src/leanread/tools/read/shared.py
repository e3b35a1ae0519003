"""What the readers share: the metadata every window gives, what the plain full read of a request
costs (``plain_tokens``), the file's facts line, the window in its envelope, instruction files
attached after the content, and ``sight``, the ledger's record of something shown whole that is
not the file's lines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ... import documents
from ...documents import registry as document_registry
from ...errors import NotText
from ...files.textfile import TextFile, load_text
from ...files.workspace import Resolved, read_regular_file
from ...ledger.knowledge import Knowledge
from ...memo import LRU
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.formats import Format
from ...view.render import Window, file_facts, render_body, render_window, select_window
from ..common import ToolContext, new_instructions
from ..instructions import Instruction, reminder
from .request import Job, ReadRequest


@dataclass(frozen=True)
class Lines:
    """What a reader hands to the window pipeline (``pipeline.serve``): lines that stand for the
    file's, and how to answer with a window of them.

    ``view``: the file as the ledger knows these lines (a document's extracted text is a version
    of its own, ``path#kind``); ``request``: the call as the window reads it (a symbol's range as
    offset and limit); ``kind``: the result's ``<type>``; ``facts``: the kind's metadata fields;
    ``unpruned_as``: None when a focus question prunes the window, else what the focus metadata
    says it was shown as; ``outline_instead``: the outline to give, for a reason, when a focus
    question does not prune the window; ``problem``: why the file's outline is unsure (``what``
    after it in the note)."""

    view: Resolved
    text_file: TextFile
    request: ReadRequest
    instructions: list[Instruction]
    kind: str = "file"
    facts: dict[str, Any] = field(default_factory=dict)
    unpruned_as: str | None = None
    outline_instead: Callable[[str], ToolResult] | None = None
    problem: str | None = None
    what: str = ""
    #: A focus question on a whole read: prune the whole file, then apply the caps (``focus``).
    focus_whole: bool = False
    #: The request whose plain full read this one stands for, when not ``request`` (a symbol
    #: read: the whole file, as an agent without ``symbol=`` reads it).
    plain_request: ReadRequest | None = None


@dataclass(frozen=True)
class Opened:
    """A text file opened for one read: the read (``job``), the file's text as decoded (whole, or
    the window through the line index), and the instruction files this read attaches. The text
    reader and the outline reader take it whole."""

    job: Job
    text_file: TextFile
    instructions: list[Instruction]

    @property
    def resolved(self) -> Resolved:
        """The path as ``Workspace.resolve`` checked it."""
        return self.job.resolved

    @property
    def attached(self) -> tuple[str, ...]:
        """The realpaths of the instruction files attached, as the ledger records them."""
        return tuple(i.real for i in self.instructions)


def window_metadata(call_id: str, display: str, kind: str, window: Window, tokens: int) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "path": display,
        "type": kind,
        "offset": window.first,
        "last_line": window.last,
        "total_lines": window.total,
        "next_offset": window.next_offset,
        "truncated": None if window.stop == "eof" else window.stop,
        "cut_lines": [number for number, _ in window.cut_lines],
        "unchanged_since": None,
        "tokens": tokens,
        "full_tokens": tokens,
    }


#: Tokens of plain full reads, per (path shown, version, window, limits, type): a stub or an outline
#: of a big file renders and counts its plain window once per version, not on every call.
_PLAIN_TOKENS: LRU[int] = LRU(2048)


def plain_tokens(
    ctx: ToolContext, view: Resolved, text_file: TextFile, first: int, limit: int | None, kind: str = "file"
) -> int:
    """o200k_base tokens of the plain full read of ``limit`` lines (None: ``limits.max_lines``)
    from line ``first`` of ``text_file``: the text ``read(..., mode="full", fresh=true)`` shows in
    the ``plain`` format, within the same caps (``max_lines``, ``max_bytes``, the line cut), as
    ``<type>kind</type>``, without stubs, markers, diffs, outlines or focus, and without the
    instruction files (``with_instructions`` adds those to both counts)."""
    key = (view.display, text_file.content_hash, facts_of(text_file), first, limit, ctx.limits, kind)
    return _PLAIN_TOKENS.get_or_make(key, lambda: count_tokens(_plain_text(ctx, view, text_file, first, limit, kind)))


def _plain_text(ctx: ToolContext, view: Resolved, text_file: TextFile, first: int, limit: int | None, kind: str) -> str:
    """The text ``plain_tokens`` counts."""
    window = select_window(text_file.lines, first, limit or ctx.limits.max_lines, ctx.limits, "plain")
    facts = facts_of(text_file)
    text = render_window(view.display, window, "plain", ctx.limits, final_newline=text_file.final_newline, facts=facts)
    return retyped(text, kind)


def file_tokens(ctx: ToolContext, path: str) -> int:
    """o200k_base tokens of the plain full read of the text file ``path`` (relative to the first
    root, or absolute) in this session: its first window as ``plain_tokens`` counts it, and the
    instruction files the read would attach (``with_instructions``) after it.

    Raises:
        LeanreadError: as ``Workspace.resolve`` and ``load_text`` (a path outside the workspace or
            denied, a file gone, binary or undecodable content).
    """
    resolved = ctx.workspace.resolve(path)
    text_file = load_text(resolved, ctx.limits, 1, ctx.limits.max_lines)
    instructions = new_instructions(ctx, resolved)
    if not instructions:
        return plain_tokens(ctx, resolved, text_file, 1, None)
    return count_tokens(_plain_text(ctx, resolved, text_file, 1, None, "file") + "\n" + reminder(instructions))


def facts_of(text_file: TextFile) -> str | None:
    growing = (len(text_file.lines), text_file.size) if text_file.growing else None
    return file_facts(
        text_file.encoding,
        text_file.newline,
        text_file.invalid_bytes,
        text_file.mixed_newlines,
        nul_bytes=text_file.nul_bytes,
        growing=growing,
        others=text_file.other_encodings,
    )


@dataclass(frozen=True)
class Page:
    """One window of a read being served: the read (``job``), the lines it serves (``lines``),
    the window taken of them, and what the model holds of the file as text (``knowledge``,
    ``Knowledge.as_text``: what a stub, a diff or a marker may stand for). Every step
    of ``pipeline.serve`` (``answer``, ``focus``) takes it whole."""

    job: Job
    lines: Lines
    window: Window
    knowledge: Knowledge

    @property
    def display(self) -> str:
        """The path as the model knows it."""
        return self.lines.view.display

    @property
    def named(self) -> bool:
        """The window is a definition asked for by name (``symbol=``): never cut up by markers."""
        return self.lines.request.symbol is not None

    def render(self, fmt: Format | None = None) -> str:
        """The window in its envelope, each line decorated as ``fmt`` (default: the read's)."""
        return render_window(
            self.display,
            self.window,
            self.job.fmt if fmt is None else fmt,
            self.job.ctx.limits,
            final_newline=self.lines.text_file.final_newline,
            facts=facts_of(self.lines.text_file),
        )

    def render_lines(self, body: list[str], *, note: str | None = None, shown_as: str | None = None) -> str:
        """The window given as ``body`` (decorated lines, markers or diff hunks) in its envelope,
        with the file's facts (``note`` above them)."""
        facts = facts_of(self.lines.text_file)
        if note:
            facts = f"{note}\n{facts}" if facts else note
        return render_body(
            self.display,
            self.window,
            body,
            self.job.ctx.limits,
            final_newline=self.lines.text_file.final_newline,
            facts=facts,
            shown_as=shown_as,
        )


def with_instructions(result: ToolResult, instructions: list[Instruction]) -> ToolResult:
    """The result with newly found instruction files attached after its content; the plain full
    read would attach them too, so ``full_tokens`` grows by what they add to ``tokens``."""
    if not instructions:
        return result
    text = result.text + "\n" + reminder(instructions)
    tokens = count_tokens(text)
    metadata = dict(result.metadata, tokens=tokens)
    full = result.metadata.get("full_tokens")
    if isinstance(full, int):
        metadata["full_tokens"] = full + tokens - int(result.metadata.get("tokens") or count_tokens(result.text))
    return replace(result, text=text, metadata=metadata)


def retyped(text: str, kind: str) -> str:
    """``text`` with its ``<type>file</type>`` naming the document's kind (``"file"``: as it is)."""
    if kind == "file":
        return text
    return text.replace("</path>\n<type>file</type>\n", f"</path>\n<type>{kind}</type>\n", 1)


def sight(resolved: Resolved, what: str, digest: str, size: int) -> tuple[Resolved, TextFile]:
    """Something shown whole that is not the file's lines (an image, an outline page) as the
    ledger knows it: a one-line version of a file of its own (``path#what``), named by
    ``digest``; that line is the thing shown."""
    return replace(resolved, real=f"{resolved.real}#{what}"), TextFile(
        (what,), "utf-8", False, "\n", True, f"{digest}:{what}", size
    )


def load_document(resolved: Resolved, kind: str) -> bytes:
    """The bytes of a document (or image) of ``kind``.

    Raises:
        NotText: the file is over ``documents.MAX_DOCUMENT_BYTES``.
        PathError: it cannot be read.
    """
    if resolved.size > documents.MAX_DOCUMENT_BYTES:
        what = document_registry.NAMES.get(kind, "document")
        raise NotText(
            f"{resolved.display} is a {what} of {resolved.size} bytes, over the "
            f"{documents.MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB leanread extracts; split or convert it first."
        )
    return read_regular_file(resolved)
