"""A member looked up on what holds it, as a TypeScript language server resolves it: a parameter's
or local's declared type, a value made with ``new``, a destructured property, a typed constant's
interface (not its object literal), an inline object type, a field's type, and the instance side
of a class (its static members are the class's own)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from leanread.ledger.store import MemoryLedger
from leanread.session import Session
from leanread.symbols.facts import TYPED, Binding
from leanread.symbols.script import extract

FILES = {
    "lib/Observable.ts": """
        export class Observable<T> {
          subscribe(observer?: (value: T) => void): void {}
          pipe(): Observable<T> {
            return this;
          }
        }
        """,
    "lib/Subject.ts": """
        import { Observable } from './Observable';

        export class Subject<T> extends Observable<T> {
          next(value: T): void {}
        }
        """,
    "lib/types.ts": """
        export interface Subscribable<T> {
          subscribe(observer?: (value: T) => void): void;
        }
        export interface Config {
          debug: boolean;
        }
        export interface Provider {
          delegate: { setInterval(handler: () => void): number } | undefined;
        }
        """,
    "lib/config.ts": """
        import { Config, Provider } from './types';

        export const config: Config = {
          debug: false,
        };
        export const provider: Provider = { delegate: undefined };
        let context: { errorThrown: boolean; error: any } | null = null;
        export function fail(err: any) {
          context.error = err;
        }
        """,
    "lib/Scheduler.ts": """
        import { Observable } from './Observable';

        export class Scheduler {
          public static now: () => number = Date.now;
          constructor(private readonly clock: Observable<number>) {}
          public now: () => number;
          schedule(): void {
            this.clock.pipe();
          }
        }
        """,
    "lib/modes.ts": """
        export enum TraceMode {
          NONE,
          LOG = 2,
        }
        export type Annotation = {
          kind_: string
          make_(key: string): boolean
        } & { options_?: any }
        export type Entry = Annotation | true
        """,
    "ops/trace.ts": """
        import { TraceMode, Entry } from '../lib/modes';

        export function trace(entry: Entry): TraceMode {
          entry.make_('x');
          return entry.options_ ? TraceMode.LOG : TraceMode.NONE;
        }
        """,
    "lib/Action.ts": """
        export class Action {
          execute(state: number): number {
            return state;
          }
        }
        """,
    "lib/QueueAction.ts": """
        import { Action } from './Action';
        import { Scheduler } from './Scheduler';

        export class QueueAction extends Action {
          constructor(private scheduler: Scheduler) {
            super();
          }
          execute(state: number): number {
            this.scheduler.now();
            return super.execute(state);
          }
        }
        """,
    "py/base.py": """
        class Base:
            def save(self):
                return 1
        """,
    "py/other.py": """
        class Other:
            def save(self):
                return 2
        """,
    "py/child.py": """
        from py.base import Base


        class Child(Base):
            def go(self):
                return self.save()
        """,
    "lib/util.ts": """
        export function helper(): number {
          return 1;
        }
        export const other = 2;
        """,
    "app/main.ts": """
        import {
          other,
          helper,
        } from '../lib/util';

        helper();
        """,
    "py/one.py": """
        def helper():
            return 1


        other = 2
        """,
    "py/main.py": """
        from py.one import (
            other,
            helper,
        )

        helper()
        """,
    "ops/run.ts": """
        import { Observable } from '../lib/Observable';
        import { Subject } from '../lib/Subject';
        import { Scheduler } from '../lib/Scheduler';
        import { config, provider } from '../lib/config';

        export function run(source: Observable<number>, scheduler?: Scheduler | null): void {
          const subject = new Subject<number>();
          const { delegate } = provider;
          source.subscribe();
          subject.next(1);
          subject.subscribe();
          scheduler.now();
          delegate?.setInterval(() => {});
          if (config.debug) {
            Scheduler.now();
          }
        }
        """,
}


def _source(name: str) -> bytes:
    return textwrap.dedent(FILES[name]).lstrip("\n").encode()


@pytest.fixture
def session(tmp_path: Path) -> Session:
    folder = tmp_path / "ws"
    for name in FILES:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_source(name))
    return Session([folder], ledger=MemoryLedger())


def _heading(session: Session, read_last: str, query: str) -> str:
    session.read(read_last)
    return session.read(symbol=query).text.split("\n", 1)[0]


@pytest.mark.parametrize(
    ("query", "heading"),
    [
        ("source.subscribe", "(source.subscribe: Observable.subscribe defined in lib/Observable.ts, lines 2-2"),
        ("subject.next", "(subject.next: Subject.next defined in lib/Subject.ts, lines 4-4"),
        ("subject.subscribe", "(subject.subscribe: Observable.subscribe defined in lib/Observable.ts, lines 2-2"),
        ("scheduler.now", "(scheduler.now: Scheduler.now defined in lib/Scheduler.ts, lines 6-6"),
        ("delegate.setInterval", "(delegate.setInterval: defined in lib/types.ts, lines 8-8"),
        ("config.debug", "(config.debug: Config.debug defined in lib/types.ts, lines 5-5"),
    ],
)
def test_a_member_is_looked_up_on_the_declared_type_of_what_holds_it(
    session: Session, query: str, heading: str
) -> None:
    assert _heading(session, "ops/run.ts", query) == f"{heading}, as ops/run.ts sees it.)"


def test_an_inline_object_type_and_a_fields_type_hold_members(session: Session) -> None:
    assert _heading(session, "lib/config.ts", "context.error") == (
        "(context.error: defined in lib/config.ts, lines 7-7, as lib/config.ts sees it.)"
    )
    assert _heading(session, "lib/Scheduler.ts", "Scheduler.clock.pipe") == (
        "(Scheduler.clock.pipe: Observable.pipe defined in lib/Observable.ts, lines 3-5, as lib/Scheduler.ts sees it.)"
    )


@pytest.mark.parametrize(
    ("query", "heading"),
    [
        ("TraceMode.LOG", "(TraceMode.LOG: defined in lib/modes.ts, lines 3-3"),
        ("TraceMode.NONE", "(TraceMode.NONE: defined in lib/modes.ts, lines 2-2"),
        ("entry.make_", "(entry.make_: Annotation.make_ defined in lib/modes.ts, lines 7-7"),
        ("entry.options_", "(entry.options_: Annotation.options_ defined in lib/modes.ts, lines 8-8"),
    ],
)
def test_enum_members_and_a_type_aliases_members_are_definitions(session: Session, query: str, heading: str) -> None:
    assert _heading(session, "ops/trace.ts", query) == f"{heading}, as ops/trace.ts sees it.)"


def test_a_class_named_in_the_question_means_its_static_member(session: Session) -> None:
    assert _heading(session, "ops/run.ts", "Scheduler.now") == (
        "(Scheduler.now: defined in lib/Scheduler.ts, lines 4-4, as ops/run.ts sees it; "
        '1 other definition of now: read(symbol="Scheduler.now", path=".").)'
    )


@pytest.mark.parametrize(
    ("read_last", "query", "heading"),
    [
        ("lib/QueueAction.ts", "execute", "(execute: defined in lib/Action.ts, lines 2-4"),
        ("lib/QueueAction.ts", "now", "(now: defined in lib/Scheduler.ts, lines 6-6"),
        ("py/child.py", "save", "(save: defined in py/base.py, lines 2-3"),
    ],
)
def test_a_bare_member_name_is_what_the_file_read_last_uses_it_on(
    session: Session, read_last: str, query: str, heading: str
) -> None:
    assert _heading(session, read_last, query) == (
        f'{heading}, as {read_last} sees it; 1 other definition of {query}: read(symbol="{query}", path=".").)'
    )


def test_the_typed_names_of_a_file_are_bindings_and_declared_types_are_bases() -> None:
    facts = extract(_source("ops/run.ts"), "typescript")
    assert [b for b in facts.bindings if b.kind == TYPED] == [
        Binding("source", TYPED, "", "Observable", 6),
        Binding("scheduler", TYPED, "", "Scheduler", 6),
        Binding("subject", TYPED, "", "Subject", 7),
        Binding("delegate", TYPED, "", "provider.delegate", 8),
    ]
    scheduler = extract(_source("lib/Scheduler.ts"), "typescript")
    assert [(d.name, d.kind, d.scope, d.bases) for d in scheduler.definitions] == [
        ("Scheduler", "class", "module", ()),
        ("Scheduler.now", "property", "static", ()),
        ("Scheduler.constructor", "method", "member", ()),
        ("Scheduler.clock", "property", "member", ("Observable",)),
        ("Scheduler.now", "property", "member", ()),
        ("Scheduler.schedule", "method", "member", ()),
    ]
    config = extract(_source("lib/config.ts"), "typescript")
    assert [(d.name, d.bases) for d in config.definitions] == [
        ("config", ("Config",)),
        ("provider", ("Provider",)),
        ("context", ()),
        ("context.errorThrown", ()),
        ("context.error", ()),
        ("fail", ()),
    ]


def test_without_a_file_read_a_member_follows_how_other_files_type_its_holder(session: Session) -> None:
    assert session.read(symbol="subject.next").text.split("\n", 1)[0] == (
        "(subject.next: Subject.next defined in lib/Subject.ts, lines 4-4, as subject is typed in ops/run.ts.)"
    )


BROKEN_TS = b"""export interface Factory extends Base {
    <T extends Function | undefined | null>(fn: T): T
    <T extends Function | undefined | null>(name: string, fn: T): T

    (customName: string): PropertyDecorator &
        Base

    bound: Base
}

export function createFactory(auto: boolean): Factory {
    return null as any
}

export const action: Factory = createFactory(false)
export class Store {
    get(): number {
        return 1
    }
}
"""
BROKEN_JS = b"""function broken(a, {
  return a +
}

export function createFactory() {
  return 2
}
export class Store { get() { return createFactory() } }
"""


@pytest.mark.parametrize(
    ("language", "source", "expected", "uses"),
    [
        (
            "typescript",
            BROKEN_TS,
            [
                ("Factory", "interface", 1, 9, 1),
                ("Factory.bound", "property", 8, 8, 8),
                ("createFactory", "function", 11, 13, 11),
                ("action", "variable", 15, 15, 15),
                ("Store", "class", 16, 20, 16),
                ("Store.get", "method", 17, 19, 17),
            ],
            [15],
        ),
        (
            "javascript",
            BROKEN_JS,
            [
                ("broken", "function", 1, 3, 1),
                ("createFactory", "function", 5, 7, 5),
                ("Store", "class", 8, 8, 8),
                ("Store.get", "method", 8, 8, 8),
            ],
            [8],
        ),
    ],
)
def test_a_statement_the_grammar_cannot_parse_keeps_its_name_and_members_and_the_rest_of_the_file(
    language: str, source: bytes, expected: list[tuple[str, str, int, int, int]], uses: list[int]
) -> None:
    facts = extract(source, language)
    assert [(d.name, d.kind, d.first, d.last, d.line) for d in facts.definitions] == expected
    assert facts.problem == "syntax errors (parsed around them)"
    assert [u.line for u in facts.uses if u.name == "createFactory"] == uses


@pytest.mark.parametrize(
    ("read_last", "query", "expected"),
    [
        (
            "app/main.ts",
            "helper",
            "Uses of helper (defined at lib/util.ts:1): 2 uses in 1 file (2 import-resolved).\n"
            "app/main.ts\n  3 import-resolved:   helper,\n  6 import-resolved: helper();",
        ),
        (
            "py/main.py",
            "helper",
            "Uses of helper (defined at py/one.py:1): 2 uses in 1 file (2 import-resolved).\n"
            "py/main.py\n  3 import-resolved:     helper,\n  6 import-resolved: helper()",
        ),
    ],
)
def test_a_name_in_an_import_over_several_lines_is_used_on_its_own_line(
    session: Session, read_last: str, query: str, expected: str
) -> None:
    session.read(read_last)
    assert session.grep(symbol=query).text.split("\n(Only uses")[0] == expected
