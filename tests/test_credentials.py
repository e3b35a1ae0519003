"""The credential and token files developer tools keep are refused by every tool; public keys and
templates are not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session

SECRET = "token = SECRET-TOKEN-123\n"

#: (path, the part of the path that is denied, the pattern that denies it): one per family.
FAMILIES = [
    (".envrc", ".envrc", ".envrc"),
    (".netrc", ".netrc", ".netrc"),
    ("_netrc", "_netrc", "_netrc"),
    (".git-credentials", ".git-credentials", ".git-credentials"),
    (".npmrc", ".npmrc", ".npmrc"),
    (".pypirc", ".pypirc", ".pypirc"),
    (".aws/credentials", ".aws", ".aws"),
    (".aws/config", ".aws", ".aws"),
    (".azure/msal_token_cache.json", ".azure", ".azure"),
    (".config/gcloud/credentials.db", ".config/gcloud", ".config/gcloud"),
    (".config/gh/hosts.yml", ".config/gh/hosts.yml", "gh/hosts.yml"),
    (".docker/config.json", ".docker/config.json", ".docker/config.json"),
    (".kube/config", ".kube/config", ".kube/config"),
    (".cargo/credentials.toml", ".cargo/credentials.toml", ".cargo/credentials.toml"),
    (".gem/credentials", ".gem/credentials", ".gem/credentials"),
    (".terraformrc", ".terraformrc", ".terraformrc"),
    ("infra/terraform.tfstate", "infra/terraform.tfstate", "*.tfstate"),
    (".vault-token", ".vault-token", ".vault-token"),
    ("auth/credentials.json", "auth/credentials.json", "credentials.json"),
    ("keys/id_ecdsa", "keys/id_ecdsa", "id_ecdsa*"),
    ("certs/store.p12", "certs/store.p12", "*.p12"),
    ("android/release.keystore", "android/release.keystore", "*.keystore"),
]


def _refusal(path: str, denied: str, pattern: str) -> str:
    subject = f"{path} is" if path == denied else f"{path} is inside {denied}, which is"
    return (
        f"{subject} on leanread's deny list (it matches {pattern}, a name kept for secrets); "
        "ask the user for the value you need instead."
    )


@pytest.fixture
def secrets(root: Path) -> Session:
    """Every family's file holding the same secret, next to a public key, a template and code."""
    for path, _, _ in FAMILIES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(SECRET)
    (root / "keys" / "id_ecdsa.pub").write_text("ecdsa-sha2-nistp256 AAAA SECRET-TOKEN-123 me\n")
    (root / ".env.template").write_text("token = SECRET-TOKEN-123\n")
    (root / "app.py").write_text('TOKEN = "SECRET-TOKEN-123"\n')
    return Session([root], ledger=MemoryLedger())


@pytest.mark.parametrize(("path", "denied", "pattern"), FAMILIES)
def test_read_outline_edit_and_write_refuse_each_family(
    secrets: Session, root: Path, path: str, denied: str, pattern: str
) -> None:
    expected = _refusal(path, denied, pattern)
    for result in (
        secrets.read(path),
        secrets.read(path, mode="outline"),
        secrets.read(path, symbol="token"),
        secrets.edit(path, "SECRET-TOKEN-123", "x"),
        secrets.write(path, "token = x\n"),
    ):
        assert (result.is_error, result.text) == (True, expected)
    assert (root / path).read_text() == SECRET


#: What the deny list leaves out of the tree of every family, as grep and ls say it.
LEFT_OUT = "18 files and 3 folders on the deny list"


def test_grep_and_ls_leave_every_family_out(secrets: Session) -> None:
    assert secrets.grep("SECRET-TOKEN").text == (
        ".env.template\n1\ttoken = SECRET-TOKEN-123\n"
        'app.py\n1\tTOKEN = "SECRET-TOKEN-123"\n'
        "keys/id_ecdsa.pub\n1\tecdsa-sha2-nistp256 AAAA SECRET-TOKEN-123 me\n\n"
        f"(Not searched: {LEFT_OUT}.)"
    )
    assert secrets.grep("SECRET-TOKEN", files_only=True).text == (
        f".env.template (1 match)\napp.py (1 match)\nkeys/id_ecdsa.pub (1 match)\n\n(Not searched: {LEFT_OUT}.)"
    )
    # A glob naming a denied file does not get it through either (the two it names are counted).
    assert secrets.grep("SECRET", glob="**/config*").text == (
        "(Not searched: 2 files and 3 folders on the deny list.)\n"
        "(No matches in the workspace; gitignored, binary and "
        "deny-listed files are not searched.)"
    )
    assert secrets.ls().text == (
        f".:\nkeys/\n  id_ecdsa.pub\n.env.template\napp.py\n\n(Not listed: {LEFT_OUT}.)"
    )


@pytest.mark.parametrize(("folder", "pattern"), [(".aws", ".aws"), (".config/gcloud", ".config/gcloud")])
def test_grep_and_ls_of_a_denied_folder_are_refused(secrets: Session, folder: str, pattern: str) -> None:
    expected = _refusal(folder, folder, pattern)
    assert (secrets.grep("SECRET", path=folder).text, secrets.ls(folder).text) == (expected, expected)


def test_new_files_in_credential_places_are_refused(secrets: Session, root: Path) -> None:
    for path, where in ((".aws/sso/cache/token.json", ".aws"), (".config/gcloud/new.json", ".config/gcloud")):
        result = secrets.write(path, "x\n")
        assert (result.is_error, result.text) == (True, _refusal(path, where, where))
        assert not (root / path).exists()


def test_public_keys_and_templates_are_served(secrets: Session) -> None:
    assert secrets.read("keys/id_ecdsa.pub").text == (
        "<path>keys/id_ecdsa.pub</path>\n<type>file</type>\n<content>\n"
        "ecdsa-sha2-nistp256 AAAA SECRET-TOKEN-123 me\n\n(End of file - total 1 line)\n</content>"
    )
    assert not secrets.read(".env.template").is_error


def test_cli_grep_leaves_credentials_out(secrets: Session, root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "grep", "SECRET-TOKEN", "--files-only", "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (
        0,
        f".env.template (1 match)\napp.py (1 match)\nkeys/id_ecdsa.pub (1 match)\n\n(Not searched: {LEFT_OUT}.)\n",
    )
