"""``… lines A-B unchanged since you read them …`` markers and stubs stand only where they pay:
for lines the model has as text (a read, an edit, a write: not grep rows, not outline rows), worth
``MARK_FACTOR`` times the marker, never inside a definition asked for by name (``symbol=``)."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.ledger.knowledge import KnownLine, know
from leanread.ledger.store import CARRY, ViewRecord
from leanread.tokens import count_tokens
from leanread.view.marks import MARK_FACTOR, MARK_MIN_TOKENS, marker_pays
from leanread.view.reconstruct import MARKER, View, apply_grep, apply_outline, apply_read

TS = """import { createHash } from "node:crypto";

export interface Options {
  secret: string;
  rounds: number;
}

export function signPayload(payload: Record<string, unknown>, options: Options, encoding: "hex" | "base64"): string {
  const hash = createHash("sha256");
  for (let i = 0; i < options.rounds; i++) {
    hash.update(options.secret);
  }
  hash.update(JSON.stringify(payload));
  return hash.digest(encoding);
}

export class Signer {
  constructor(private readonly options: Options) {}

  sign(payload: Record<string, unknown>): string {
    return signPayload(payload, this.options);
  }
}
"""

GO = """package main

import (
\t"fmt"
\t"strings"
)

// Greeting builds the text a user sees first, with every name in the list joined by commas.
func Greeting(names []string, punctuation string, uppercase bool, separator string) (string, error) {
\tif len(names) == 0 {
\t\treturn "", fmt.Errorf("no names")
\t}
\ttext := "Hello, " + strings.Join(names, separator) + punctuation
\tif uppercase {
\t\ttext = strings.ToUpper(text)
\t}
\treturn text, nil // the caller prints it, or logs the error it gets back
}

func main() {
\ttext, _ := Greeting([]string{"a", "b"}, "!", false, ", ")
\tfmt.Println(text)
}
"""

PY = '''"""Settings of the uploader."""

import os


class Uploader:
    """Sends files to the bucket named in the environment, in parts of a fixed size."""

    def upload_many(self, paths: list[str], bucket_name: str, part_size: int = 8_388_608, retries: int = 3) -> int:
        sent = 0
        for path in paths:
            with open(path, "rb") as handle:
                sent += self._send(handle.read(), bucket_name, part_size, retries)
        return sent

    def _send(self, data: bytes, bucket_name: str, part_size: int, retries: int) -> int:
        return len(data)
'''


def window(path: str, text: str, first: int, last: int) -> str:
    """The full text of lines first..last of ``text`` as ``read`` gives it (not at the end)."""
    lines = text.split("\n")[:-1]
    body = "".join(line + "\n" for line in lines[first - 1 : last])
    if last == len(lines):
        return (
            f"<path>{path}</path>\n<type>file</type>\n<content>\n{body}\n(End of file - total {last} lines)\n</content>"
        )
    return (
        f"<path>{path}</path>\n<type>file</type>\n<content>\n{body}\n"
        f"(Showing lines {first}-{last} of {len(lines)}. Use offset={last + 1} to continue.)\n</content>"
    )


def markers(text: str) -> list[str]:
    return [row for row in text.split("\n") if MARKER.match(row)]


def body(text: str) -> list[str]:
    """The rows of a read result between ``<content>`` and its closing notices."""
    return text.split("<content>\n", 1)[1].split("\n\n(", 1)[0].split("\n")


# --- a symbol read after the outline -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "symbol", "first", "last"),
    [
        ("svc.ts", TS, "signPayload", 8, 15),
        ("svc.ts", TS, "Signer.sign", 20, 22),
        ("main.go", GO, "Greeting", 8, 18),
        ("upload.py", PY, "Uploader.upload_many", 9, 14),
    ],
)
def test_a_symbol_read_after_the_outline_shows_the_definition_whole(
    session: Session, root: Path, name: str, text: str, symbol: str, first: int, last: int
) -> None:
    (root / name).write_text(text)
    outline = session.read(name, mode="outline")
    assert outline.metadata["type"] == "outline"
    result = session.read(name, symbol=symbol)
    assert result.text == window(name, text, first, last)
    assert result.metadata["mode"] == "full" and result.metadata["unchanged_since"] is None


@pytest.mark.parametrize(
    ("module", "symbol", "signature"),
    [
        (tarfile, "TarFile.extractall", '    def extractall(self, path=".", members=None, *, numeric_owner=False,'),
        (tarfile, "TarFile.add", "    def add(self, name, arcname=None, recursive=True, *, filter=None):"),
    ],
)
def test_the_stdlib_case_a_big_file_read_whole_then_one_definition(
    root: Path, module: object, symbol: str, signature: str
) -> None:
    source = Path(str(getattr(module, "__file__", "")))
    (root / source.name).write_bytes(source.read_bytes())
    text = source.read_text(encoding="utf-8")
    session = Session([root], ledger=MemoryLedger())
    assert session.read(source.name).metadata["type"] == "outline"  # the signature is one of its rows
    result = session.read(source.name, symbol=symbol)
    meta = result.metadata
    assert text.split("\n")[meta["offset"] - 1] == signature
    assert result.text == window(source.name, text, meta["offset"], meta["last_line"])


def test_a_symbol_read_partly_read_before_comes_whole_and_read_whole_before_a_stub(
    session: Session, root: Path
) -> None:
    (root / "upload.py").write_text(PY)
    session.read("upload.py", offset=1, limit=12)  # lines 9-12 of upload_many: a marker would pay
    assert session.read("upload.py", symbol="Uploader.upload_many").text == window("upload.py", PY, 9, 14)
    (root / "main.go").write_text(GO)
    session.read("main.go", symbol="Greeting")
    again = session.read("main.go", symbol="Greeting")
    assert again.text == (
        "<path>main.go</path>\n<type>file</type>\n<content>\n"
        "(Lines 8-18 unchanged since you read them, still in your context. Use fresh=true to see them again.)\n\n"
        "(Showing lines 8-18 of 23. Use offset=19 to continue.)\n</content>"
    )
    # one line added above it: the model has all of it, under numbers one less
    (root / "main.go").write_text(GO.replace("package main\n", "package main\n\n// Package main greets.\n", 1))
    session.read("main.go", offset=1, limit=4)
    moved = session.read("main.go", symbol="Greeting")
    assert body(moved.text) == ["… lines 10-20 unchanged since you read them as lines 8-18 …"], moved.text


def test_a_window_read_from_an_outline_row_shows_the_row_again(session: Session, root: Path) -> None:
    (root / "svc.ts").write_text(TS)
    session.read("svc.ts", mode="outline")
    assert session.read("svc.ts", offset=8, limit=8).text == window("svc.ts", TS, 8, 15)
    assert session.read("svc.ts", offset=1, limit=6).text == window("svc.ts", TS, 1, 6)  # the head rows too


def test_outline_and_grep_rows_still_grant_an_edit(session: Session, root: Path) -> None:
    (root / "main.go").write_text(GO)
    session.read("main.go", mode="outline")
    edited = session.edit("main.go", "func main() {", "func main() { // entry")
    assert not edited.is_error, edited.text
    (root / "upload.py").write_text(PY)
    session.grep("def _send", "upload.py")
    edited = session.edit("upload.py", "retries: int) -> int:", "retries: int = 1) -> int:")
    assert not edited.is_error, edited.text


# --- a read after a grep -----------------------------------------------------------------------

KEY = (
    "export const A = 1;\nexport const B = 2;\n"
    'export const SIGNATURE_TOKEN = process.env.SIGNATURE_TOKEN ?? "dev-signature";\n'
)


@pytest.mark.parametrize(
    ("name", "text", "pattern", "context"),
    [
        ("key.ts", KEY, "SIGNATURE_TOKEN", None),
        ("key.ts", KEY, "SIGNATURE_TOKEN", 2),  # every line of the file was a grep row
        ("upload.py", PY, "part_size", 1),
        ("main.go", GO, r"strings\.\w+\(", 3),
        (
            "two.py",
            'API_URL = "https://example.invalid/api/v2/upload/parts?bucket=default"\nTIMEOUT = 30\n',
            "API_URL",
            None,
        ),
    ],
)
def test_a_read_after_a_grep_shows_the_grep_rows_again(
    session: Session, root: Path, name: str, text: str, pattern: str, context: int | None
) -> None:
    (root / name).write_text(text)
    found = session.grep(pattern, name, context=context)
    assert not found.is_error and found.metadata["matches"], found.text
    total = text.count("\n")
    result = session.read(name)
    assert result.text == window(name, text, 1, total)
    assert result.metadata["mode"] == "full"


def test_after_a_grep_only_what_a_read_showed_is_marked(session: Session, root: Path) -> None:
    (root / "upload.py").write_text(PY)
    session.read("upload.py", offset=1, limit=9)
    session.grep("sent", "upload.py", context=1)  # rows 9-15, some of them read above
    result = session.read("upload.py")
    body = "".join(line + "\n" for line in PY.split("\n")[9:17])
    assert result.text == (
        "<path>upload.py</path>\n<type>file</type>\n<content>\n"
        "… lines 1-9 unchanged since you read them …\n"
        f"{body}\n(End of file - total 17 lines)\n</content>"
    )


# --- markers and stubs that pay, and those that do not ---------------------------------------------

LONG = "".join(
    f"def handler_{i}(request, response, settings): return dispatch(request, response, {i})\n" for i in range(1, 31)
)


def test_a_marker_that_pays_still_stands_for_lines_read(session: Session, root: Path) -> None:
    (root / "handlers.py").write_text(LONG)
    session.read("handlers.py", offset=1, limit=20)
    result = session.read("handlers.py")
    rest = "".join(LONG.splitlines(keepends=True)[20:])
    assert result.text == (
        "<path>handlers.py</path>\n<type>file</type>\n<content>\n"
        f"… lines 1-20 unchanged since you read them …\n{rest}\n(End of file - total 30 lines)\n</content>"
    )
    assert result.metadata["mode"] == "elided" and result.metadata["unchanged_since"] == ["r1"]
    assert session.read("handlers.py", offset=25, limit=6).metadata["mode"] == "stub"  # 6 lines: 114 tokens


def test_a_marker_for_one_or_two_short_lines_is_not_used(session: Session, root: Path) -> None:
    text = "".join(f"x_{i} = {i}\n" for i in range(1, 13))
    (root / "short.py").write_text(text)
    session.read("short.py", offset=1, limit=2)
    session.read("short.py", offset=6, limit=2)
    assert session.read("short.py").text == window("short.py", text, 1, 12)
    # every line held now, but twelve short lines (83 tokens) are not worth a stub (its note: 25)
    assert session.read("short.py").text == window("short.py", text, 1, 12)
    assert session.read("short.py", offset=3, limit=3).text == window("short.py", text, 3, 5)


def test_a_window_of_markers_only_pays_as_its_stub_would(session: Session, root: Path) -> None:
    text = "".join(f"value_{i} = compute(argument_{i})\n" for i in range(1, 41))
    (root / "values.py").write_text(text)
    session.read("values.py", offset=1, limit=5)
    session.read("values.py", offset=6, limit=5)
    # lines 1-10 (90 tokens) from two reads: one marker would pay, a stub would not (its note is 25)
    assert session.read("values.py", offset=1, limit=10).text == window("values.py", text, 1, 10)


def test_marker_pays_needs_the_factor_and_the_minimum() -> None:
    marker = "… lines 40-80 unchanged since you read them …"  # 12 tokens
    assert (MARK_FACTOR, MARK_MIN_TOKENS, count_tokens(marker)) == (4, 40, 12)
    assert not marker_pays(marker, ["word " * 46])  # 47 tokens
    assert marker_pays(marker, ["word " * 47])  # 48 tokens
    assert not marker_pays("… x …", ["word " * 38])  # 39 tokens: under the minimum, whatever the marker


# --- property: every marker pays, stands for text read, and the window rebuilds ---------------------

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon"]


@st.composite
def _module(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    for n in range(draw(st.integers(2, 8))):
        lines.append(f"def {draw(st.sampled_from(NAMES))}_{n}(value, other_argument, third_argument=None):")
        for k in range(draw(st.integers(1, 6))):
            word = draw(st.sampled_from(NAMES))
            lines.append(f"    {word}_{k} = value + {k}" + "  # padding to make it long" * draw(st.integers(0, 2)))
        lines.append("")
    return lines


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("read"), st.integers(1, 60), st.integers(1, 30)),
        st.tuples(st.just("whole"), st.just(0), st.just(0)),
        st.tuples(st.just("outline"), st.just(0), st.just(0)),
        st.tuples(st.just("grep"), st.sampled_from(range(len(NAMES))), st.integers(0, 3)),
        st.tuples(st.just("symbol"), st.integers(0, 7), st.just(0)),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=_module(), ops=OPS)
def test_every_marker_pays_and_every_window_rebuilds(
    root: Path, lines: list[str], ops: list[tuple[str, int, int]]
) -> None:
    text = "\n".join(lines) + "\n"
    (root / "mod.py").write_text(text)
    session = Session([root], ledger=MemoryLedger())
    views: dict[str, View] = {}
    read_as_text: set[int] = set()  # lines a read showed or marked: what a marker may stand for
    for op, a, b in ops:
        if op == "grep":
            found = session.grep(rf"\b{NAMES[a]}_", "mod.py", context=b)
            apply_grep(views, found)
            continue
        if op == "outline":
            apply_outline(views.setdefault("mod.py", View()), session.read("mod.py", mode="outline"))
            continue
        if op == "symbol":
            names = [m.group(1) for line in lines if (m := re.match(rf"def (\w+_{a})\(", line))]
            if not names:
                continue
            result = session.read("mod.py", symbol=names[0])
        elif op == "whole":
            result = session.read("mod.py", mode="full")
        else:
            result = session.read("mod.py", offset=min(a, len(lines)), limit=b)
        meta = result.metadata
        rebuilt = apply_read(views.setdefault("mod.py", View()), result)
        assert rebuilt == lines[meta["offset"] - 1 : meta["last_line"]], result.text
        for row in markers(result.text):
            found = MARKER.match(row)
            assert found is not None
            first, last = int(found.group(1)), int(found.group(2) or found.group(1))
            assert op != "symbol" or len(markers(result.text)) == len(body(result.text)), result.text
            assert set(range(first, last + 1)) <= read_as_text, (row, sorted(read_as_text))
            assert marker_pays(row, lines[first - 1 : last]), row
        if meta["mode"] == "stub":
            assert set(range(meta["offset"], meta["last_line"] + 1)) <= read_as_text
        read_as_text.update(range(meta["offset"], meta["last_line"] + 1))


# --- the ledger: what the model has as text ------------------------------------------------------


def record(call: str, ranges: tuple[tuple[int, int], ...], kind: str, seq: int, version: str = "v1") -> ViewRecord:
    return ViewRecord(call, "/f.py", version, ranges, 100, 0, kind=kind, seq=seq)


def test_index_rows_are_seen_but_not_held_as_text() -> None:
    lines = [f"line {n}" for n in range(1, 11)]
    records = [
        record("r1", ((1, 6),), "read", 1),
        record("r2", ((5, 8),), "grep", 2),
        record("r3", ((9, 9),), "outline", 3),
    ]
    knowledge = know(records, "v1", lines, lambda _: None)
    assert {n: k.call_id for n, k in knowledge.lines.items()} == {
        **dict.fromkeys(range(1, 5), "r1"),
        **dict.fromkeys(range(5, 9), "r2"),
        9: "r3",
    }
    held = knowledge.as_text()
    assert held.lines == {n: KnownLine("r1", n) for n in range(1, 7)}  # lines 5-6: read, then grepped
    assert held.without(3).lines.keys() == {1, 2, 4, 5, 6}
    assert knowledge.without(3).as_text().lines.keys() == {1, 2, 4, 5, 6}
    only_grep = know([record("r1", ((1, 10),), "grep", 1)], "v1", lines, lambda _: None)
    assert only_grep.lines.keys() == set(range(1, 11)) and only_grep.as_text().lines == {}


def test_index_rows_carried_onto_a_new_version_stay_index_rows() -> None:
    old = [f"line {n}" for n in range(1, 11)]
    new = ["inserted", *old]
    records = [
        record("r1", ((1, 4),), "read", 1),
        record("r2", ((6, 8),), "grep", 2),
        # a later read of the new version carried both calls' lines onto it
        ViewRecord("r1", "/f.py", "v2", ((2, 5),), 100, 0, kind=CARRY, seq=3, origins=(1,)),
        ViewRecord("r2", "/f.py", "v2", ((7, 9),), 100, 0, kind=CARRY, seq=4, origins=(6,)),
        record("r3", ((11, 11),), "read", 5, "v2"),
    ]
    knowledge = know(records, "v2", new, lambda _: None)
    assert knowledge.lines.keys() == {2, 3, 4, 5, 7, 8, 9, 11}
    assert knowledge.as_text().lines == {11: KnownLine("r3", 11), **{n: KnownLine("r1", n - 1) for n in range(2, 6)}}
    # before any call read the new version: the old one's lines, mapped onto it through a diff
    changed = know(records[:2], "v2", new, lambda version: "\n".join(old) if version == "v1" else None)
    assert changed.changed_since == "r2" and changed.lines.keys() == {2, 3, 4, 5, 7, 8, 9}
    assert changed.as_text().lines == {n: KnownLine("r1", n - 1) for n in range(2, 6)}
    assert changed.as_text().seen == {n: KnownLine("r1", n) for n in range(1, 5)}
