"""Which files no tool may touch, decided from names alone: the deny list and its exceptions.

Sources of the default list (names and paths developer tools keep credentials and tokens in):

- gitrob's filename signatures (github.com/michenriksen/gitrob, ``signatures.json``): private
  SSH keys (``*_rsa``, ``*_dsa``, ``*_ecdsa``, ``*_ed25519``), ``.pem``, ``.key``, ``.p12``,
  ``.pfx``, ``.pkcs12``, ``.jks``, ``.keystore``, ``.ppk``, ``.kdbx``, ``.netrc``, ``_netrc``,
  ``.pgpass``, ``.s3cfg``, ``.dockercfg``, ``.npmrc``, ``.htpasswd``, ``.git-credentials``,
  ``.env``, ``.tfstate``; the same families as GitHub's secret-scanning docs name for keys.
- The tools' own documentation of where they keep logins: AWS CLI (``~/.aws/credentials``,
  ``~/.aws/config``, ``~/.aws/sso/cache``), Azure CLI (``~/.azure``), gcloud
  (``~/.config/gcloud``, ``application_default_credentials.json``), Kubernetes
  (``~/.kube/config``), Docker (``~/.docker/config.json``), npm (``.npmrc``), PyPI
  (``.pypirc``), Cargo (``~/.cargo/credentials(.toml)``), RubyGems (``~/.gem/credentials``),
  GitHub CLI (``~/.config/gh/hosts.yml``), Terraform (``.terraformrc``, ``terraform.rc``,
  ``~/.terraform.d/credentials.tfrc.json``; state files hold resource secrets in clear text),
  Vault (``~/.vault-token``), Kaggle (``~/.kaggle/kaggle.json``), Hugging Face
  (``~/.cache/huggingface/token``), GnuPG (``~/.gnupg``), direnv (``.envrc``), Google OAuth
  downloads (``credentials.json``, ``client_secret*.json``).

Public keys (``*.pub``) are not secrets (they are made to be handed out, and an agent setting
up a deploy key needs one), so they are an exception, as are templates (``*.example``,
``*.sample``, ``*.template``) such as ``.env.example``.

A pattern is a shell glob (``*``, ``?``, ``[...]``) matched case-insensitively. One without a
slash matches a single name at any depth (``.aws`` denies that folder and all below it); one
with slashes (``.kube/config``) matches that many consecutive names ending at the name checked.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

#: File-name patterns refused by default: secrets an agent should ask the user about instead.
DEFAULT_DENY: tuple[str, ...] = (
    # environment files
    ".env",
    ".env.*",
    ".envrc",
    # private keys and key stores
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.pkcs12",
    "*.jks",
    "*.keystore",
    "*.ppk",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".gnupg",
    # logins and tokens of developer tools
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".s3cfg",
    ".dockercfg",
    ".htpasswd",
    ".vault-token",
    ".terraformrc",
    "terraform.rc",
    "*.tfstate",
    "*.tfstate.*",
    "credentials.json",
    "client_secret*.json",
    "application_default_credentials.json",
    ".aws",
    ".azure",
    ".config/gcloud",
    "gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".kaggle/kaggle.json",
    "huggingface/token",
)
#: Exceptions to the deny list by default: templates and public keys, which hold no secrets.
DEFAULT_ALLOW: tuple[str, ...] = ("*.example", "*.sample", "*.template", "*.pub")
#: Instruction files attached to reads below them, as Codex (AGENTS.md) and Claude Code (CLAUDE.md) name them.
DEFAULT_INSTRUCTION_FILES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")


def pattern_problem(pattern: object) -> str | None:
    """Why ``pattern`` cannot be a deny or allow pattern (None when it can): it must be a
    non-empty string whose slash-separated parts are names (not empty, ``.`` or ``..``)."""
    if not isinstance(pattern, str) or not pattern:
        return "must be a non-empty string"
    if os.sep != "/" and os.sep in pattern:
        return f"uses {os.sep!r}; separate names with /"
    if any(part in ("", ".", "..") for part in pattern.split("/")):
        return "has an empty, . or .. part; write names separated by single slashes, such as .kube/config"
    return None


def _check_patterns(owner: str, patterns: tuple[str, ...]) -> None:
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem is not None:
            raise ValueError(f"Policy.{owner} pattern {pattern!r} {problem}.")


def _compiled(patterns: Sequence[str]) -> re.Pattern[str] | None:
    """One regex matching a lower-cased name against any of ``patterns``, or None for none."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p.lower())})" for p in patterns))


class _Matcher:
    """The first of ``patterns`` that matches the tail of a list of names (case ignored)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self._single = [p for p in patterns if "/" not in p]
        self._any_single = _compiled(self._single)
        self._multi = [[part.lower() for part in p.split("/")] for p in patterns if "/" in p]
        self._multi_text = [p for p in patterns if "/" in p]
        self._any_last = _compiled([parts[-1] for parts in self._multi])

    def first(self, names: Sequence[str]) -> str | None:
        """The pattern matching ``names`` (the last name, or the last few for a pattern with
        slashes), or None."""
        last = names[-1].lower()
        if self._any_single is not None and self._any_single.match(last):
            return next(p for p in self._single if fnmatch.fnmatchcase(last, p.lower()))
        if self._any_last is None or not self._any_last.match(last):
            return None
        for parts, text in zip(self._multi, self._multi_text, strict=True):
            if len(parts) <= len(names) and all(
                fnmatch.fnmatchcase(name.lower(), part) for name, part in zip(names[-len(parts) :], parts, strict=True)
            ):
                return text
        return None


@dataclass(frozen=True)
class Policy:
    """Which files no tool may touch, decided from names alone, and whether leanread's own
    configuration and ``.git`` may be written.

    Patterns are shell globs matched case-insensitively (``.ENV`` and ``Server.PEM`` are secrets
    too, since a case-insensitive file system opens ``.env`` for ``.ENV``); see the module for
    patterns with slashes. A name that matches ``allow`` is served even when it matches
    ``deny``: with the defaults ``.env.example`` and ``id_rsa.pub`` are readable and
    ``.env.local`` is not. ``Workspace`` applies the lists to every name of a path below its
    root, so a file inside a denied folder (``.aws/credentials``) is refused as well.

    Attributes:
        deny: file-name patterns refused (default ``DEFAULT_DENY``).
        allow: exceptions that win over ``deny`` (default ``DEFAULT_ALLOW``).
        instruction_files: names of instruction files attached to reads of files below them
            (default ``AGENTS.md``, ``CLAUDE.md``).
        root_instructions: also attach those in the workspace root (default False: harnesses
            load the root's own).
        allow_write_protected: let ``edit`` and ``write`` change ``.git`` and leanread's own
            configuration (default False; only the user's config file or a flag can set it).

    Raises:
        ValueError: a pattern is empty, not a string, or has an empty, ``.`` or ``..`` part.
    """

    deny: tuple[str, ...] = DEFAULT_DENY
    allow: tuple[str, ...] = DEFAULT_ALLOW
    instruction_files: tuple[str, ...] = DEFAULT_INSTRUCTION_FILES
    root_instructions: bool = False
    allow_write_protected: bool = False

    def __post_init__(self) -> None:
        # Accept any sequence from callers but store tuples, so the policy stays hashable.
        for name in ("deny", "allow", "instruction_files"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
            _check_patterns(name, getattr(self, name))

    @cached_property
    def _deny_matcher(self) -> _Matcher:
        return _Matcher(self.deny)

    @cached_property
    def _allow_matcher(self) -> _Matcher:
        return _Matcher(self.allow)

    def denying_pattern(self, names: Sequence[str]) -> str | None:
        """The deny pattern that refuses the last of ``names``, or None when none does or an
        allow pattern lets it through.

        Args:
            names: the names of a path from below its root down to the one checked
                (``[".kube", "config"]``); only the last counts for patterns without a slash.
        """
        names = [name for name in names if name]
        if not names:
            return None
        hit = self._deny_matcher.first(names)
        if hit is None or self._allow_matcher.first(names) is not None:
            return None
        return hit

    def denied(self, name: str) -> bool:
        """True when the name ``name`` matches ``deny`` and no ``allow`` pattern, ignoring case.

        Args:
            name: a base name such as ``.env.local``; given a path, only its last component
                counts (``config/.env`` is checked as ``.env``; ``Workspace.is_denied`` checks
                the folders, and patterns with slashes, too).
        """
        base = os.path.basename(name.rstrip("/" + os.sep))
        return base not in ("", ".") and self.denying_pattern([base]) is not None
