"""The ``ls`` tool: a compact tree of a folder, with the noise left out.

Result: the folder listed, then its tree, then a note only when one is needed (a folder the
entry cap collapsed, a cut listing, an empty folder, other roots)::

    src:
    leanread/
      bench/ (7 files)
      tools/
        common.py
      cli.py
    main/java/com/example/ (12 files)
    CLAUDE.md -> AGENTS.md
    README.md

No ``<path>``/``<type>``/``<content>`` envelope, as grep has none: it cost about 19 tokens a
listing. When a name reads like leanread's frame, or ends with ``:`` as the first line does, the
rows come in the envelope a read gets (``frame.framed``; sealed when a name reads like the frame),
so no file name can pose as the tool or as another folder's head.

Folders come first, then files and links, each sorted by name; two spaces of indent per level. The
files are ``rg --files`` below the folder: ``.gitignore`` rules, ``.git``, ``node_modules``,
``__pycache__`` and the deny list left out by ripgrep, virtualenvs (a folder holding ``pyvenv.cfg``)
here. So a folder with no file left is not shown. A chain of folders that each hold only the next
is one row and one level (``main/java/com/example/``). Up to ``depth`` levels are shown; deeper
folders, and folders whose entries do not fit in the entry cap, are shown collapsed with their file
count, except in a flat listing (``depth=1``), whose folders are all closed as ``ls`` shows them.

ripgrep reports neither symbolic links nor FIFOs, sockets and devices, so each folder shown is
scanned for them: a link is listed as ``name -> target`` (the target as the tools take it, ``/``
after a folder, what it is after a FIFO, socket or device), ``-> … (missing)`` when its target
does not exist, ``-> (outside the workspace)`` without naming a target outside, and never
followed; a FIFO, socket or device as ``name (a socket; read does not open it)``, never opened
(the metadata counts them, ``special_files``); one on the deny list, or a link through which a
denied name is reached, is left out. Every name is escaped as every path is (``names.show_path``),
so a newline in a name cannot split a row, nor a name pose as a link or as one of those files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidArgument, NotAFile
from ..files.names import parse_optional, show_path
from ..files.ripgrep import RgOptions, glob_under
from ..files.search_files import list_files
from ..result import ToolResult
from ..view.counts import plural
from ..view.frame import Own, frame_like, framed, one_line
from .common import ToolContext, replaces_nothing
from .leftout import left_out, left_out_note
from .lstree import SKIPPED, Folder, Scanner, build_tree, collapsed_by, expand, files_label, folder_count, tree_rows
from .spec import READ_ONLY, Arguments, ToolSpec, count, flag, string

NAME = "ls"

#: Levels of the tree shown when no ``depth`` is given.
DEPTH = 2
#: Levels shown when a glob is given and no ``depth``: every level, so each match is shown (up to
#: the entry cap).
GLOB_DEPTH = 1_000
#: Entries (lines) shown at most when no ``max_entries`` is given.
MAX_ENTRIES = 100

#: The constants ``ls.txt`` quotes (see ``tools.description``).
FACTS: dict[str, object] = {"depth": DEPTH, "max_entries": MAX_ENTRIES}


@dataclass(frozen=True)
class LsRequest:
    """The parameters of one ``ls`` call (see ``SPEC``)."""

    path: str | None = None
    depth: int | None = None
    max_entries: int | None = None
    include_ignored: bool = False
    glob: str | None = None


def _collapsed_note(reasons: set[bool], cap: int) -> str | None:
    """How to open the folders shown collapsed when the entry cap left some so: a larger depth
    helps only those the depth left so, a larger cap only those the cap did. None when the depth
    alone did: a folder at the depth asked for, shown with its file count, says that itself."""
    if reasons == {False}:
        return None
    if reasons == {True}:
        return (
            f"(A folder shown with a file count is collapsed to keep the listing to {cap} entries: ls it, "
            "or pass a larger max_entries.)"
        )
    return (
        f"(A folder shown with a file count is collapsed, by the depth or to keep the listing to {cap} entries: "
        "ls it, or pass a larger depth or max_entries.)"
    )


def _shown(folder: Folder, rows: Callable[[Folder], dict[str, str]]) -> int:
    """The rows of a kind (``rows``: a folder's links, or its FIFOs, sockets and devices) shown:
    those of the expanded folders."""
    return len(rows(folder)) + sum(_shown(child, rows) for child in folder.folders.values() if child.expanded)


def _notes(
    where: str,
    root: Folder,
    cap: int | None,
    collapsed: int,
    folders: int,
    odd: tuple[int, int],
    limit: int,
    glob: str | None = None,
) -> list[str]:
    """The notes after the rows: why a listing is empty, what a cut one left out (``cap``: the
    entries shown of the top folder's, None when all are; ``odd``: the links and the FIFOs,
    sockets and devices shown) and how to see it, how to open a collapsed folder; none for a
    whole tree, whose rows say it all."""
    if not root.entries():
        matching = f" match {one_line(glob)}" if glob else ""
        return [
            Own(
                f"(No files in {where}{matching}; .gitignored paths, .git, node_modules, __pycache__, virtualenvs "
                "and secrets on the deny list are left out.)"
            )
        ]
    if cap is not None:
        links, specials = odd
        counts = f"{plural(folders, 'folder')}, {files_label(root.count)}"
        counts += (f", {plural(links, 'link')}" if links else "") + (
            f", {plural(specials, 'special file')}" if specials else ""
        )
        more = (
            "Pass a larger max_entries, or narrow the glob or the path."
            if glob
            else f"Read {where} for a paged listing of every entry, ls a subfolder, or pass a larger max_entries."
        )
        return [Own(f"(Showing {cap} of {root.entries()} entries of {where}; {counts} below it. {more})")]
    note = _collapsed_note(collapsed_by(root), limit) if collapsed else None
    return [Own(note)] if note is not None else []


def tree_text(where: str, rows: Sequence[str], notes: Sequence[str]) -> str:
    """An ``ls`` result's text: ``where:`` (the folder listed), the rows, then a blank line and the
    notes; only the notes when there is no row. In a read's envelope (``frame.framed``, sealed when
    a name reads like leanread's frame) when a row reads like the frame or ends with ``:`` as the
    first line does."""
    if any(frame_like(row) or row.endswith(":") for row in rows if not isinstance(row, Own)):
        return framed(where, "tree", [*rows, "", *notes] if rows and notes else [*rows, *notes])
    if not rows:
        return "\n".join(notes)
    head = Own(one_line(where) + ":")
    return "\n".join([head, *rows, "", *notes] if notes else [head, *rows])


def run(ctx: ToolContext, request: LsRequest, call_id: str) -> ToolResult:
    """Execute one ``ls``. Nothing is recorded in the ledger: a tree shows no file's lines.

    Raises:
        LeanreadError: a bad depth or cap, a path outside the workspace, denied, missing or not a
            folder, ripgrep missing or failing.
    """
    if request.depth is not None and request.depth < 1:
        raise InvalidArgument(f"depth must be 1 or more (got {request.depth}); depth=1 lists the folder's own entries.")
    if request.max_entries is not None and request.max_entries < 1:
        raise InvalidArgument(f"max_entries must be 1 or more (got {request.max_entries}).")
    cap = request.max_entries or MAX_ENTRIES
    target = ctx.workspace.resolve(request.path or ".")
    if not target.is_dir:
        raise NotAFile(f"{target.display} is a file, not a folder; read it, or ls the folder it is in.")
    glob = glob_under(request.glob, target.display) if request.glob else None
    depth = request.depth or (GLOB_DEPTH if glob else DEPTH)
    log = bytearray()
    options = RgOptions(policy=ctx.policy, skip=SKIPPED, no_ignore=request.include_ignored)
    paths = list_files(target.real, options, cwd=target.real, log=log)
    # ripgrep's glob overrides ignore files: here it only narrows the listing and its note (the
    # files it matches, ignored or not, ignore files left to the run above)
    globbed = replace(options, glob=glob, no_ignore=True)
    matching = set(list_files(target.real, globbed, cwd=target.real)) if glob else None
    dropped: list[str] = []
    root = build_tree(paths, target.real, ctx, dropped, matching)
    folders = folder_count(root)  # before chains of folders are merged into one row each
    used, cut = expand(root, target.real, depth, cap, Scanner(ctx, odd=not glob))
    rows: list[str] = []
    collapsed = tree_rows(root, "", rows, cap if cut else None, counts=depth > 1)
    where = target.display
    links, specials = _shown(root, lambda f: f.links), _shown(root, lambda f: f.specials)
    notes = _notes(where, root, cap if cut else None, collapsed, folders, (links, specials), cap, glob)
    selects = None if matching is None else matching.__contains__
    left = left_out_note(left_out(ctx, bytes(log), target.real, dropped, selects=selects), "ls")
    if left is not None:
        notes.append(Own(left))
    others = ctx.workspace.roots[1:] if request.path is None else ()
    if others:  # ls of the workspace lists its first root; say where the rest are
        listed = ", ".join(show_path(r) for r in others)
        notes.append(Own(f"(The workspace has {plural(len(others), 'other root')} too: {listed}; ls one by its path.)"))
    text = tree_text(where, rows, notes)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": target.display,
        "type": "tree",
        "depth": depth,
        "folders": folders,
        "files": root.count,
        "links": links,
        "special_files": specials,
        "entries_shown": used,
        "collapsed": collapsed,
        "truncated": "limit" if cut else None,
        **replaces_nothing(text),
    }
    return ToolResult(text, metadata=metadata)


def _call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    request = LsRequest(
        parse_optional(args["path"]), args["depth"], args["max_entries"], args["include_ignored"], args["glob"]
    )
    return run(ctx, request, call_id)


SPEC = ToolSpec(
    NAME,
    (
        string("path", "Folder. Default: the root."),
        count("depth", f"Levels to show. Default: {DEPTH}.", 1),
        string("glob", "Only files it matches (*test*.py), at any depth."),
        count("max_entries", f"Entries to show. Default: {MAX_ENTRIES}.", 1, hidden=True),
        flag("include_ignored", "true: list ignored paths too (not secrets).", hidden=True),
    ),
    READ_ONLY,
    _call,
    facts=FACTS,
)
