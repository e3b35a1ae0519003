"""What a tool is, once: its name, description, parameters, effects and how it runs.

Every surface is made from a ``ToolSpec``: the MCP input schemas and annotations
(``mcp.server``), the ``Session`` methods and ``Session.call`` (``session``), the OpenAI and
Anthropic definitions (``adapters.harness``), the pydantic-ai toolset and the command line
(``cli.tools``). A tool's module defines its ``SPEC``; ``tools.registry`` lists them.

Every property of a schema has a plain ``type`` (clients such as the MCP Inspector convert a
command-line value only then), and an optional parameter is simply left out of ``required``: no
``anyOf`` with null. A ``hidden`` parameter is accepted but not advertised: ``input_schema`` (what
``tools/list`` and the harness definitions show the model) leaves it out, ``accepted_schema``
(what a call is checked against) has it, and a tool with one does not publish
``additionalProperties: false``, which would forbid what the server takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config.settings import Limits
from . import description

if TYPE_CHECKING:
    from ..result import ToolResult
    from .common import ToolContext

#: The arguments a tool runs with: every parameter by name, those not given at their default.
Arguments = Mapping[str, Any]


@dataclass(frozen=True)
class Param:
    """One parameter of a tool.

    ``description`` may be empty where the name says it all (``limit``, ``new_string``): the
    property then has none, which saves its 4 tokens. ``kind`` is a JSON Schema type (``string``,
    ``integer``, ``boolean``, ``array`` of strings); ``default`` is published (in the checked
    schema) only when it is not None (None means "left out: the tool's default, as the
    description says"); ``minimum`` is the smallest count the tool takes; ``flags`` are the
    command line's short forms (``-g``); a ``positional`` parameter is an argument of the command
    even when optional (grep's ``pattern``, which ``symbol`` replaces).
    """

    name: str
    kind: str
    description: str
    required: bool = False
    default: object = None
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    hidden: bool = False
    flags: tuple[str, ...] = ()
    positional: bool = False

    def schema(self, *, shown: bool = False) -> dict[str, Any]:
        """This parameter's JSON Schema property: ``{"type": "integer", "minimum": 1, ...}``.

        ``shown``: the property as the model is shown it, without ``minimum`` and ``default``
        (5-6 o200k tokens each a property): the description says the default, and the tool's own
        check refuses a number out of range with the next step (``tools.arguments`` leaves bounds
        to it), so they are only in the schema a call is checked against.
        """
        prop: dict[str, Any] = {"type": self.kind}
        if self.kind == "array":
            prop["items"] = {"type": "string"}
        if self.enum:
            prop["enum"] = list(self.enum)
        if self.minimum is not None and not shown:
            prop["minimum"] = self.minimum
        if self.default is not None and not shown:
            prop["default"] = self.default
        if self.description:
            prop["description"] = self.description
        return prop

    @property
    def unset(self) -> object:
        """The value that stands for "not given": the default, False for a flag, else None."""
        return False if self.kind == "boolean" and self.default is None else self.default


def string(
    name: str,
    description: str,
    *,
    required: bool = False,
    hidden: bool = False,
    flags: tuple[str, ...] = (),
    positional: bool = False,
) -> Param:
    """A string parameter."""
    return Param(name, "string", description, required=required, hidden=hidden, flags=flags, positional=positional)


def count(name: str, description: str, minimum: int, *, hidden: bool = False, flags: tuple[str, ...] = ()) -> Param:
    """A whole number of at least ``minimum``."""
    return Param(name, "integer", description, minimum=minimum, hidden=hidden, flags=flags)


def flag(name: str, description: str, *, hidden: bool = False, flags: tuple[str, ...] = ()) -> Param:
    """A boolean, false unless given."""
    return Param(name, "boolean", description, default=False, hidden=hidden, flags=flags)


@dataclass(frozen=True)
class Effects:
    """What a tool may do to the workspace, as MCP clients are told (``ToolAnnotations``); none
    reaches outside it."""

    read_only: bool
    destructive: bool
    idempotent: bool


READ_ONLY = Effects(read_only=True, destructive=False, idempotent=True)
#: edit: a second identical call may change the file again (``a`` -> ``aa`` with replace_all).
EDITS = Effects(read_only=False, destructive=True, idempotent=False)
#: write: the same content written twice leaves the same file.
WRITES = Effects(read_only=False, destructive=True, idempotent=True)
#: context: changes only the ledger.
BOOKKEEPING = Effects(read_only=False, destructive=False, idempotent=True)

#: How a tool runs: the session's context, its arguments (``Arguments``) and its call id in,
#: the result out; a refusal raises ``LeanreadError``.
Runner = Callable[["ToolContext", Arguments, str], "ToolResult"]

#: The file a call reads, by its arguments as sent, when the call is one that may be small (a
#: plain read of one file), else None: a server that has seen the same call go fast may run it
#: where the request arrived rather than hand it to a worker thread (``mcp.quick``). Never raises.
Quick = Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class ToolSpec:
    """One tool.

    Args:
        name: the tool's name, as the model calls it.
        params: its parameters, in the order its schema lists them.
        effects: what it may do to the workspace.
        run: how it runs (``Runner``).
        facts: the constants its description quotes besides the limits.
        text: its description, with ``{max_lines}``-style fields (see ``tools.description``);
            None: the file ``tools/<name>.txt``.
        offered: offered to a model by default; ``context`` is not (a harness opts in).
        numbered: a call of it takes a call id of the session; ``context`` names other calls and
            takes none.
        cli_order: the parameters in the order its command lists them, when not ``params``'.
        quick: which of its calls may be small, and the file each reads (``Quick``); None: none.
    """

    name: str
    params: tuple[Param, ...]
    effects: Effects
    run: Runner
    facts: Mapping[str, object] = field(default_factory=dict)
    text: str | None = None
    offered: bool = True
    numbered: bool = True
    cli_order: tuple[str, ...] = ()
    quick: Quick | None = None

    def describe(self, limits: Limits) -> str:
        """The model-facing description with ``limits`` filled in."""
        return description(self.name, limits, text=self.text, **self.facts)

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments as the model is shown it: an object with
        ``properties`` (hidden parameters left out, each as ``Param.schema(shown=True)``),
        ``required`` (when any) and, unless the tool has a hidden parameter,
        ``additionalProperties: false``."""
        schema = _schema([p for p in self.params if not p.hidden], shown=True)
        if not any(p.hidden for p in self.params):
            schema["additionalProperties"] = False
        return schema

    def accepted_schema(self) -> dict[str, Any]:
        """The JSON Schema a call is checked against: ``input_schema`` with the hidden parameters
        in their places, each property's ``minimum`` and ``default``, and ``additionalProperties: false``."""
        schema = _schema(list(self.params))
        schema["additionalProperties"] = False
        return schema

    def arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter with its value in ``given``, the others unset (``Param.unset``).

        Raises:
            TypeError: ``given`` names no parameter of this tool, or misses a required one.
        """
        unknown = set(given) - {p.name for p in self.params}
        if unknown:
            raise TypeError(f"{self.name}() got unexpected arguments {sorted(unknown)}")
        missing = [p.name for p in self.params if p.required and p.name not in given]
        if missing:
            raise TypeError(f"{self.name}() missing required arguments {missing}")
        return {p.name: given.get(p.name, p.unset) for p in self.params}

    def given(self, arguments: Mapping[str, Any]) -> dict[str, object]:
        """The arguments a call was given, as the transcript keeps them: those left unset (None,
        False, the default or an empty list) are left out."""
        return {
            p.name: value
            for p in self.params
            if (value := arguments.get(p.name)) is not None
            and value is not False
            and value != p.default
            and value not in ((), [])
        }

    def for_cli(self) -> tuple[Param, ...]:
        """The parameters in the order the command lists them."""
        if not self.cli_order:
            return self.params
        by_name = {p.name: p for p in self.params}
        return tuple(by_name[name] for name in self.cli_order)


def _schema(params: list[Param], *, shown: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {p.name: p.schema(shown=shown) for p in params}}
    required = [p.name for p in params if p.required]
    if required:
        schema["required"] = required
    return schema
