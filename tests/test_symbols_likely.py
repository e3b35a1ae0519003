"""Which definition a name means: as the file read last sees it, overloads as one, a receiver's
name, a folder's own list; the others counted with the call that lists them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from leanread.ledger.store import MemoryLedger
from leanread.session import Session

FILES = {
    "pkg/one.py": """
        def helper(x):
            return x + 1
        """,
    "other/two.py": """
        def helper(x):
            return x - 1
        """,
    "web/views.py": """
        from pkg.one import helper


        def view(request):
            return helper(request)
        """,
    "web/forms.py": """
        import pkg.one as tools


        def clean(value):
            return tools.helper(value)
        """,
    "pkg/props.py": """
        class Box:
            @property
            def size(self):
                return self._size

            @size.setter
            def size(self, value):
                self._size = value


        class Crate:
            size = 3
        """,
    "pkg/flow.py": """
        class Subscriber:
            def next(self, value):
                return value


        class Observer:
            def next(self, value):
                return None


        class Subject:
            def next(self, value):
                return [value]
        """,
    "lib/timer.ts": """
        export function timer(due: number): number;
        export function timer(due: Date): number;
        export function timer(due: any): number {
          return 0;
        }
        """,
    "lib/clock.ts": """
        export function timer(): string {
          return "";
        }
        """,
}


@pytest.fixture
def session(tmp_path: Path) -> Session:
    folder = tmp_path / "ws"
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return Session([folder], ledger=MemoryLedger())


ONE_HELPER = (
    "<path>pkg/one.py</path>\n<type>file</type>\n<content>\ndef helper(x):\n    return x + 1\n\n"
    "(End of file - total 2 lines)\n</content>"
)


@pytest.mark.parametrize("read_last", ["web/views.py", "web/forms.py"])
def test_a_bare_name_is_the_one_the_file_read_last_imports(session: Session, read_last: str) -> None:
    assert session.read(symbol="helper").text.startswith("2 definitions of helper, likeliest first:\n")
    session.read(read_last)
    if read_last == "web/views.py":
        result = session.read(symbol="helper")
        assert result.text == (
            "(helper: defined in pkg/one.py, lines 1-2, as web/views.py sees it; 1 other definition of helper: "
            'read(symbol="helper", path=".").)\n' + ONE_HELPER
        )
        assert result.metadata["definitions_found"] == 2
    else:  # the module's alias names the one definition
        result = session.read(symbol="tools.helper")
        assert result.text == (
            "(tools.helper: helper defined in pkg/one.py, lines 1-2, as web/forms.py sees it.)\n" + ONE_HELPER
        )


def test_a_folder_path_lists_that_folders_definitions(session: Session) -> None:
    session.read("web/views.py")
    assert session.read("other", symbol="helper").text == (
        "(helper: defined in other/two.py, lines 1-2.)\n<path>other/two.py</path>\n<type>file</type>\n"
        "<content>\ndef helper(x):\n    return x - 1\n\n(End of file - total 2 lines)\n</content>"
    )
    assert session.read(".", symbol="helper").text == (
        "2 definitions of helper, likeliest first:\n"
        "other/two.py:1-2: def helper(x):\n"
        '  read(path="other/two.py", offset=1, limit=2)\n'
        "pkg/one.py:1-2: def helper(x):\n"
        '  read(path="pkg/one.py", offset=1, limit=2)'
    )


def test_a_getter_and_its_setter_are_one_definition_read_whole(session: Session) -> None:
    result = session.read(symbol="Box.size")
    assert result.text.startswith("(Box.size: defined in pkg/props.py, lines 2-8.)\n<path>pkg/props.py</path>")
    assert "    @size.setter\n    def size(self, value):\n        self._size = value\n" in result.text


def test_typescript_overloads_are_one_row_and_the_nearest_file_comes_first(session: Session) -> None:
    assert session.read(".", symbol="timer").text == (
        "2 definitions of timer, likeliest first:\n"
        "lib/clock.ts:1-3: export function timer(): string {\n"
        '  read(path="lib/clock.ts", offset=1, limit=3)\n'
        "lib/timer.ts:1-5: export function timer(due: any): number {\n"
        '  read(path="lib/timer.ts", offset=1, limit=5)'
    )
    session.read("lib/timer.ts")
    assert session.read(symbol="timer").text.startswith(
        "(timer: defined in lib/timer.ts, lines 1-5, as lib/timer.ts sees it; 1 other definition of timer: "
        'read(symbol="timer", path=".").)\n<path>lib/timer.ts</path>'
    )


def test_a_member_on_a_name_the_index_cannot_follow_is_the_class_named_like_it(session: Session) -> None:
    assert session.read(symbol="subscriber.next").text == (
        "(subscriber.next: Subscriber.next defined in pkg/flow.py, lines 2-3, by name only; the likeliest of 3 "
        'definitions of next, the others: read(symbol="subscriber.next", path=".").)\n'
        "<path>pkg/flow.py</path>\n<type>file</type>\n<content>\n    def next(self, value):\n        return value\n\n"
        "(Showing lines 2-3 of 13. Use offset=4 to continue.)\n</content>"
    )
    listed = session.read(symbol="window_subject.next").text
    assert listed.startswith("(window_subject.next: Subject.next defined in pkg/flow.py, lines 12-13, by name only;")


def test_a_list_is_cut_to_the_nearest_and_says_how_many_it_left(session: Session, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for folder in ("a", "b", "c"):
        (root / folder).mkdir()
        for n in range(2):
            (root / folder / f"m{n}.py").write_text("def run():\n    pass\n")
    session.read("a/m0.py")
    session.read("pkg/flow.py")
    assert session.read(symbol="run").text == (
        "6 definitions of run, likeliest first:\n"
        + "".join(
            f'{f}/m{n}.py:1-2: def run():\n  read(path="{f}/m{n}.py", offset=1, limit=2)\n'
            for f in ("a", "b", "c")
            for n in range(2)
        ).rstrip("\n")
    )
    (root / "a" / "use.py").write_text("import os\n")
    session.read("a/use.py")
    assert session.read(symbol="run").text == (
        "6 definitions of run; the 2 likeliest, nearest a/use.py:\n"
        'a/m0.py:1-2: def run():\n  read(path="a/m0.py", offset=1, limit=2)\n'
        'a/m1.py:1-2: def run():\n  read(path="a/m1.py", offset=1, limit=2)\n'
        '(+4 more: read(symbol="run", path=".") lists the workspace\'s.)'
    )
    session.read("b/m1.py")
    assert session.read(symbol="run").text == (
        "(run: defined in b/m1.py, lines 1-2, as b/m1.py sees it; 5 other definitions of run: "
        'read(symbol="run", path=".").)\n<path>b/m1.py</path>\n<type>file</type>\n<content>\n'
        "def run():\n    pass\n\n(End of file - total 2 lines)\n</content>"
    )


def test_the_uses_are_of_the_definition_the_file_read_last_sees(session: Session, tmp_path: Path) -> None:
    (tmp_path / "ws" / "other" / "use.py").write_text("from other.two import helper\n\nhelper(1)\n")
    every = session.grep(symbol="helper")
    assert every.text.startswith("Uses of helper (defined at other/two.py:1, pkg/one.py:1): 5 uses in 3 files")
    session.read("web/views.py")
    result = session.grep(symbol="helper")
    assert result.text == (
        "Uses of helper (defined at pkg/one.py:1): 3 uses in 2 files (3 import-resolved).\n"
        "web/forms.py · clean\n"
        "  5 import-resolved:     return tools.helper(value)\n"
        "web/views.py\n"
        "  1 import-resolved: from pkg.one import helper\n"
        "web/views.py · view\n"
        "  5 import-resolved:     return helper(request)\n"
        '(Only uses of helper as web/views.py sees it; 1 other definition of helper: read(symbol="helper", path=".").)'
    )
    assert [(u["path"], u["line"]) for u in result.metadata["references"]] == [
        ("web/forms.py", 5),
        ("web/views.py", 1),
        ("web/views.py", 5),
    ]


def test_a_class_defined_inside_a_function_comes_after_the_others(session: Session, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "forms").mkdir()
    (root / "forms" / "base.py").write_text("class BaseForm:\n    def as_p(self):\n        return '<p>'\n")
    (root / "forms" / "test_it.py").write_text(
        "def test_render():\n    class SomeForm:\n        def as_p(self):\n            return ''\n\n"
        "    assert SomeForm().as_p() == ''\n"
    )
    assert session.read(symbol="form.as_p").text.startswith(
        "(form.as_p: BaseForm.as_p defined in forms/base.py, lines 2-3, by name only; the likeliest of 2 "
        'definitions of as_p, the others: read(symbol="form.as_p", path=".").)\n<path>forms/base.py</path>'
    )
