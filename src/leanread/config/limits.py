"""What is configurable: the caps on results (``Limits``), the focus backend (``Focus``) and the
``Settings`` that hold them with the file policy; ``settings.load_settings`` reads them from the
configuration files."""

from __future__ import annotations

from dataclasses import dataclass, field

from .policy import Policy

#: The whole-number limits, in the order error messages list them.
INT_LIMITS = (
    "max_lines",
    "max_bytes",
    "max_line_chars",
    "sniff_bytes",
    "index_bytes",
    "outline_lines",
    "outline_bytes",
    "image_max_side",
    "image_max_bytes",
)


#: What a read without offset/limit may give.
READ_MODES = ("auto", "full", "outline")


#: When a re-read may be deduplicated (see ``leanread.ledger.dedup``).
DEDUP_MODES = ("recent", "on", "off")


#: The focus pruning backends (see ``leanread.pruning.make_pruner``).
FOCUS_BACKENDS = ("local", "hybrid", "llm", "swe-pruner")


#: Largest request body ``serve --http`` takes by default, in MiB (the MCP SDK's own default is 4).
#: ``write`` has no size limit of its own, so over stdio a file of any size goes; over HTTP the
#: bound is what a server may hold for one request (the SDK keeps the body, then the JSON parsed
#: from it: a few hundred MB at 64 MiB), and 64 MiB carries a text file of 32 MiB even where JSON
#: doubles each byte.
DEFAULT_MAX_REQUEST_MIB = 64


#: Seconds a remote focus backend may be given at most.
MAX_FOCUS_TIMEOUT = 600.0


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
        index_bytes: files larger than this are served through a cached line index (see
            ``lineindex``) instead of being decoded whole on every read.
        outline_lines, outline_bytes: a read of a whole file longer than either gets its
            outline in ``auto`` mode (200 lines, 48 KiB ≈ 12k tokens: on the shared traces the
            agent later used a median 2.7 % of the lines of whole files of 200+ lines it read,
            and the replay's ``leanread-outline`` costs 0.321 of opencode's tokens at 200 lines against
            0.349 at 400; see BENCHMARKS.md).
        read_mode: what a read without offset/limit gives: ``auto`` (outline above the
            thresholds), ``full`` (never an outline) or ``outline``.
        image_max_side: pixels of an image's longest side as sent to the model (Anthropic's
            API downscales anything larger; 2000 keeps a screenshot readable).
        image_max_bytes: bytes of an encoded image sent at most; 3,750,000 keeps its base64
            under the 5 MB per-image cap of the Anthropic API.
        dedup: when a re-read gets a stub, a diff or markers instead of text: ``recent``
            (against the last 40 calls' results), ``on`` (while the ledger says visible) or
            ``off`` (see ``leanread.ledger.dedup``).
    """

    max_lines: int = 2000
    max_bytes: int = 50 * 1024
    max_line_chars: int = 2000
    sniff_bytes: int = 8192
    index_bytes: int = 8 * 1024 * 1024
    outline_lines: int = 200
    outline_bytes: int = 48 * 1024
    read_mode: str = "auto"
    image_max_side: int = 2000
    image_max_bytes: int = 3_750_000
    dedup: str = "recent"

    def __post_init__(self) -> None:
        for name in INT_LIMITS:
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1.")
        if self.read_mode not in READ_MODES:
            raise ValueError(f"Limits.read_mode must be one of {', '.join(READ_MODES)}.")
        if self.dedup not in DEDUP_MODES:
            raise ValueError(f"Limits.dedup must be one of {', '.join(DEDUP_MODES)}.")


@dataclass(frozen=True)
class Focus:
    """Which backend prunes outputs for a ``focus`` question (see ``leanread.pruning``).

    Attributes:
        backend: ``local`` (BM25 + code structure, offline; the default), ``hybrid`` (local
            fused with MiniLM embeddings; needs ``leanread[dense]``), ``llm`` (an OpenAI-compatible
            chat endpoint) or ``swe-pruner`` (a SWE-Pruner server's ``POST /prune``).
        url: the remote backend's base URL, e.g. ``http://localhost:8000/v1`` for ``llm`` (the
            request goes to ``<url>/chat/completions``) or ``http://localhost:8050`` for
            ``swe-pruner`` (``<url>/prune``).
        model: the chat model name, for ``llm``.
        api_key_env: the environment variable holding the ``llm`` API key (sent as a bearer
            token when set; the key itself never sits in a configuration file).
        timeout: seconds a remote backend may take before the output is returned whole.
    """

    backend: str = "local"
    url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 20.0

    def __post_init__(self) -> None:
        if self.backend not in FOCUS_BACKENDS:
            raise ValueError(f"Focus.backend must be one of {', '.join(FOCUS_BACKENDS)}.")
        if self.backend in ("llm", "swe-pruner") and not self.url:
            raise ValueError(f"Focus.url is required for the {self.backend} backend.")
        if self.backend == "llm" and not self.model:
            raise ValueError("Focus.model is required for the llm backend.")
        if not 0 < self.timeout <= MAX_FOCUS_TIMEOUT:
            raise ValueError(f"Focus.timeout must be above 0 and at most {MAX_FOCUS_TIMEOUT:.0f} seconds.")


@dataclass(frozen=True)
class Settings:
    """Everything configurable: the caps on results, the file policy and the focus backend.

    ``warnings`` holds one sentence per configuration file whose loosening parts were ignored
    (see ``tighten``); the CLI prints them on stderr.
    """

    limits: Limits = field(default_factory=Limits)
    policy: Policy = field(default_factory=Policy)
    focus: Focus = field(default_factory=Focus)
    warnings: tuple[str, ...] = ()
    #: Keep every tool call's arguments and shown text in the ledger for ``leanread inspect``.
    transcript: bool = True
