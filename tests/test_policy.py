"""Paths and policy: the deny list (case ignored; every name below the root; as given and through
links, before any open) and the suggestions a missing file's error makes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leanread import Session
from leanread.config.settings import DEFAULT_ALLOW, DEFAULT_DENY, Policy
from leanread.errors import Denied, FileMissing, OutsideWorkspace, PathError
from leanread.files.workspace import Workspace


def denied_text(subject: str, pattern: str = ".env") -> str:
    return (
        f"{subject} on leanread's deny list (it matches {pattern}, a name kept for secrets); "
        "ask the user for the value you need instead."
    )


# --- Policy -----------------------------------------------------------------------------------


def test_policy_defaults() -> None:
    policy = Policy()
    assert (
        policy.deny
        == DEFAULT_DENY
        == (
            *(".env", ".env.*", ".envrc"),
            *("*.pem", "*.key", "*.p12", "*.pfx", "*.pkcs12", "*.jks", "*.keystore", "*.ppk", "*.kdbx"),
            *("id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".gnupg"),
            *(".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".s3cfg", ".dockercfg"),
            *(".htpasswd", ".vault-token", ".terraformrc", "terraform.rc", "*.tfstate", "*.tfstate.*"),
            *("credentials.json", "client_secret*.json", "application_default_credentials.json"),
            *(".aws", ".azure", ".config/gcloud", "gh/hosts.yml", ".docker/config.json", ".kube/config"),
            *(
                ".cargo/credentials",
                ".cargo/credentials.toml",
                ".gem/credentials",
                ".terraform.d/credentials.tfrc.json",
            ),
            *(".kaggle/kaggle.json", "huggingface/token"),
        )
    )
    assert policy.allow == DEFAULT_ALLOW == ("*.example", "*.sample", "*.template", "*.pub")


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".env.local",
        ".env.production",
        ".env.example.local",
        "server.pem",
        "tls.key",
        "id_rsa",
        "id_ed25519",
        "id_ed25519_work",
        "id_ecdsa_sk",
        "id_dsa",
        ".envrc",
        ".netrc",
        "_netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".pgpass",
        ".vault-token",
        ".terraformrc",
        "terraform.tfstate",
        "terraform.tfstate.backup",
        "store.p12",
        "cert.pfx",
        "release.keystore",
        "debug.jks",
        "putty.ppk",
        "credentials.json",
        "client_secret_123.apps.googleusercontent.com.json",
        "application_default_credentials.json",
        ".aws",
        ".azure",
        ".gnupg",
        "config/.env",
        "/abs/dir/.env.local",
        ".env/",
        ".ENV",
        ".Env.local",
        "Server.PEM",
        "TLS.KEY",
        "Id_rsa",
        ".NETRC",
    ],
)
def test_policy_denies(name: str) -> None:
    assert Policy().denied(name)


@pytest.mark.parametrize(
    "name",
    [
        ".env.example",
        ".env.sample",
        "server.pem.example",
        "id_rsa.sample",
        ".env.template",
        "id_rsa.pub",
        "ID_ED25519.PUB",
        "credentials",
        "config",
        "config.json",
        "hosts.yml",
        "token",
        "kaggle.json",
        "gcloud",
        ".kube",
        ".docker",
        "env",
        "dotenv",
        ".ENV.EXAMPLE",
        ".Env.Sample",
        "keys.py",
        "pem",
        "README.md",
        "",
        ".",
    ],
)
def test_policy_allows(name: str) -> None:
    assert not Policy().denied(name)


def test_policy_matches_the_name_not_the_folders() -> None:
    assert not Policy().denied(".env/settings.py")
    assert not Policy().denied("certs.pem/readme.txt")


def test_custom_patterns_match_any_case() -> None:
    policy = Policy(deny=("*.Secret", "[A-C]*.db"), allow=("PUBLIC.*",))
    assert policy.denied("db.SECRET") and policy.denied("b.db") and policy.denied("C.DB")
    assert not policy.denied("public.secret") and not policy.denied("d.db")


def test_custom_policy_and_sequences_stored_as_tuples() -> None:
    policy = Policy(deny=["*.secret", "token?"], allow=["public.secret"])  # type: ignore[arg-type]
    assert (policy.deny, policy.allow) == (("*.secret", "token?"), ("public.secret",))
    assert policy.denied("db.secret") and policy.denied("token1")
    assert not policy.denied("public.secret") and not policy.denied(".env") and not policy.denied("token12")
    assert hash(policy) == hash(Policy(deny=("*.secret", "token?"), allow=("public.secret",)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deny": ("",)}, "Policy.deny pattern '' must be a non-empty string."),
        ({"allow": (3,)}, "Policy.allow pattern 3 must be a non-empty string."),
        (
            {"deny": ("secrets//*",)},
            "Policy.deny pattern 'secrets//*' has an empty, . or .. part; write names separated by single "
            "slashes, such as .kube/config.",
        ),
        (
            {"deny": ("/etc/passwd",)},
            "Policy.deny pattern '/etc/passwd' has an empty, . or .. part; write names separated by single "
            "slashes, such as .kube/config.",
        ),
        (
            {"allow": ("../x",)},
            "Policy.allow pattern '../x' has an empty, . or .. part; write names separated by single "
            "slashes, such as .kube/config.",
        ),
    ],
)
def test_policy_rejects_bad_patterns(kwargs: dict[str, tuple[object, ...]], message: str) -> None:
    with pytest.raises(ValueError) as info:
        Policy(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


# --- Deny list in the workspace ----------------------------------------------------------------


def test_env_refused(root: Path) -> None:
    (root / ".env").write_text("API_KEY=sk-123\n")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(".env")
    assert str(info.value) == denied_text(".env is")
    assert isinstance(info.value, PathError)


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        (".env.local", ".env.*"),
        ("server.pem", "*.pem"),
        ("deploy.key", "*.key"),
        ("id_rsa", "id_rsa*"),
        ("id_ed25519", "id_ed25519*"),
    ],
)
def test_secret_names_refused_in_subfolders(root: Path, name: str, pattern: str) -> None:
    (root / "config").mkdir()
    (root / "config" / name).write_text("secret\n")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(f"config/{name}")
    assert str(info.value) == denied_text(f"config/{name} is", pattern)


@pytest.mark.parametrize("name", [".env.example", ".env.sample"])
def test_templates_are_readable(root: Path, name: str) -> None:
    (root / name).write_text("API_KEY=\n")
    assert Workspace([root]).resolve(name).display == name


def test_absolute_path_refused_as_given(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    absolute = str(root / ".env")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(absolute)
    assert str(info.value) == denied_text(f"{absolute} is")


def test_symlink_to_denied_file_refused(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    os.symlink(".env", root / "config.txt")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve("config.txt")
    assert str(info.value) == denied_text("config.txt resolves to .env, which is")


def test_symlink_into_a_subfolder_names_the_target_as_displayed(root: Path) -> None:
    (root / "secrets").mkdir()
    (root / "secrets" / "prod.key").write_text("k\n")
    (root / "docs").mkdir()
    os.symlink("../secrets/prod.key", root / "docs" / "notes.md")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve("docs/notes.md")
    assert str(info.value) == denied_text("docs/notes.md resolves to secrets/prod.key, which is", "*.key")


def test_denied_name_through_a_symlinked_folder(root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / ".env").write_text("K=1\n")
    os.symlink("real", root / "alias")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve("alias/.env")
    assert str(info.value) == denied_text("alias/.env is")


def test_dangling_symlink_to_denied_name_is_denied_not_missing(root: Path) -> None:
    os.symlink(".env", root / "config.txt")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve("config.txt")
    assert str(info.value) == denied_text("config.txt resolves to .env, which is")


def test_missing_denied_name_is_denied(root: Path) -> None:
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(".env.production")
    assert str(info.value) == denied_text(".env.production is", ".env.*")


def test_denied_before_stat_or_open(root: Path) -> None:
    # A FIFO would be refused as NotAFile by stat and would hang an open: the deny list wins first.
    os.mkfifo(root / ".env")
    with pytest.raises(Denied):
        Workspace([root]).resolve(".env")
    # A loop is never followed far enough to matter either.
    os.symlink("id_rsa", root / "id_rsa")
    with pytest.raises(Denied):
        Workspace([root]).resolve("id_rsa")


def test_outside_wins_over_denied_for_links_out(root: Path, tmp_path: Path) -> None:
    (tmp_path / "server.pem").write_text("-----BEGIN-----\n")
    os.symlink(tmp_path / "server.pem", root / "cert.txt")
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("cert.txt")


def test_trailing_slash_and_dots_do_not_hide_the_name(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "id_rsa").write_text("k\n")
    ws = Workspace([root])
    for path in ["./id_rsa", "sub/../id_rsa", "id_rsa/"]:
        with pytest.raises(Denied):
            ws.resolve(path)


@pytest.mark.parametrize(("name", "pattern"), [(".ENV", ".env"), (".Env.local", ".env.*"), ("Server.PEM", "*.pem")])
def test_secret_names_refused_in_any_case(root: Path, name: str, pattern: str) -> None:
    (root / name).write_text("secret\n")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(name)
    assert str(info.value) == denied_text(f"{name} is", pattern)


def test_other_case_of_an_existing_secret_refused_before_the_disk(root: Path) -> None:
    # On a case-insensitive file system .ENV opens .env; here it does not even exist.
    (root / ".env").write_text("K=1\n")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(".ENV")
    assert str(info.value) == denied_text(".ENV is")


def test_templates_readable_in_any_case(root: Path) -> None:
    (root / ".ENV.Example").write_text("K=\n")
    assert Workspace([root]).resolve(".ENV.Example").display == ".ENV.Example"


@pytest.fixture
def env_folder(root: Path) -> Path:
    """``sub/.env/secrets.txt`` and ``sub/.env/nested/deep.txt``: secrets in a denied folder."""
    folder = root / "sub" / ".env"
    (folder / "nested").mkdir(parents=True)
    (folder / "secrets.txt").write_text("API_KEY=sk-123\n")
    (folder / "nested" / "deep.txt").write_text("deep\n")
    return folder


@pytest.mark.parametrize(
    ("path", "subject"),
    [
        ("sub/.env/secrets.txt", "sub/.env/secrets.txt is inside sub/.env, which is"),
        ("sub/.env/nested/deep.txt", "sub/.env/nested/deep.txt is inside sub/.env, which is"),
        ("sub/.env/nested", "sub/.env/nested is inside sub/.env, which is"),
        ("./sub/.env/../.env/secrets.txt", "./sub/.env/../.env/secrets.txt is inside sub/.env, which is"),
        ("SUB/.ENV/secrets.txt", "SUB/.ENV/secrets.txt is inside SUB/.ENV, which is"),
        ("sub/.env/missing.txt", "sub/.env/missing.txt is inside sub/.env, which is"),
        ("sub/.env", "sub/.env is"),
        ("sub/.env/", "sub/.env/ is"),
    ],
)
def test_paths_inside_a_denied_folder_refused(root: Path, env_folder: Path, path: str, subject: str) -> None:
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(path)
    assert str(info.value) == denied_text(subject)


def test_absolute_path_inside_a_denied_folder_names_the_folder_relative(root: Path, env_folder: Path) -> None:
    absolute = str(env_folder / "secrets.txt")
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(absolute)
    assert str(info.value) == denied_text(f"{absolute} is inside sub/.env, which is")


@pytest.mark.parametrize(
    ("link", "target", "path", "subject"),
    [
        ("envdirlink", "sub/.env", "envdirlink/secrets.txt", "envdirlink/secrets.txt is inside sub/.env, which is"),
        (
            "envdirlink",
            "sub/.env",
            "envdirlink/nested/deep.txt",
            "envdirlink/nested/deep.txt is inside sub/.env, which is",
        ),
        ("envdirlink", "sub/.env", "envdirlink", "envdirlink resolves to sub/.env, which is"),
        ("nestlink", "sub/.env/nested", "nestlink/deep.txt", "nestlink/deep.txt is inside sub/.env, which is"),
        ("plain.txt", "sub/.env/secrets.txt", "plain.txt", "plain.txt is inside sub/.env, which is"),
    ],
)
def test_links_into_a_denied_folder_refused(
    root: Path, env_folder: Path, link: str, target: str, path: str, subject: str
) -> None:
    os.symlink(target, root / link)
    with pytest.raises(Denied) as info:
        Workspace([root]).resolve(path)
    assert str(info.value) == denied_text(subject)


def test_denied_folder_in_a_second_root_is_named_absolute(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "certs.pem").mkdir(parents=True)
    (other / "certs.pem" / "readme.txt").write_text("r\n")
    ws = Workspace([root, other])
    given = str(other / "certs.pem" / "readme.txt")
    folder = os.path.join(os.path.realpath(other), "certs.pem")
    with pytest.raises(Denied) as info:
        ws.resolve(given)
    assert str(info.value) == denied_text(f"{given} is inside {folder}, which is", "*.pem")


def test_allow_wins_per_component(root: Path) -> None:
    (root / ".env.example").mkdir()
    (root / ".env.example" / "notes.txt").write_text("n\n")
    (root / ".env.example" / ".env").write_text("K=1\n")
    ws = Workspace([root])
    assert ws.resolve(".env.example/notes.txt").display == ".env.example/notes.txt"
    with pytest.raises(Denied) as info:
        ws.resolve(".env.example/.env")
    assert str(info.value) == denied_text(".env.example/.env is")


def test_names_above_the_root_do_not_count(tmp_path: Path) -> None:
    root = tmp_path / ".env" / "project"
    root.mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    ws = Workspace([root])
    assert ws.resolve("a.txt").display == "a.txt"
    assert ws.resolve(str(root / "a.txt")).display == "a.txt"
    assert not ws.is_denied(root / "a.txt")


def test_configured_policy(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    (root / "db.secret").write_text("pw\n")
    ws = Workspace([root], policy=Policy(deny=("*.secret",), allow=()))
    assert ws.resolve(".env").display == ".env"
    with pytest.raises(Denied) as info:
        ws.resolve("db.secret")
    assert str(info.value) == denied_text("db.secret is", "*.secret")


def test_empty_policy_serves_everything(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    assert Workspace([root], policy=Policy(deny=())).resolve(".env").display == ".env"


def test_a_root_is_never_denied(tmp_path: Path) -> None:
    folder = tmp_path / "deploy.key"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    ws = Workspace([folder])
    assert ws.resolve(".").is_dir
    assert ws.resolve(str(folder)).display == "."
    assert ws.resolve("a.txt").display == "a.txt"
    assert not ws.is_denied(str(folder))


def test_is_denied(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    (root / ".env.example").write_text("K=\n")
    (root / "notes.txt").write_text("n\n")
    os.symlink(".env", root / "settings.txt")
    os.symlink("notes.txt", root / "notes.key.txt")
    os.symlink("notes.txt", root / "link.key")
    ws = Workspace([root])
    real = os.path.realpath(root)
    assert ws.is_denied(os.path.join(real, ".env"))
    assert ws.is_denied(".env")  # relative to the first root
    assert ws.is_denied(os.path.join(real, "settings.txt"))  # a link to a denied name
    assert ws.is_denied(root / "link.key")  # a denied name linking to an allowed file
    assert ws.is_denied(os.path.join(real, "missing.pem"))
    assert not ws.is_denied(os.path.join(real, ".env.example"))
    assert not ws.is_denied(os.path.join(real, "notes.txt"))
    assert not ws.is_denied(os.path.join(real, "notes.key.txt"))
    assert ws.is_denied(".ENV") and ws.is_denied("Secret.PEM")


def test_is_denied_checks_every_name_below_the_root(root: Path, env_folder: Path) -> None:
    os.symlink("sub/.env", root / "envdirlink")
    os.symlink("sub", root / "sublink")
    (root / "sub" / "ok.txt").write_text("ok\n")
    ws = Workspace([root])
    assert ws.is_denied("sub/.env/secrets.txt")
    assert ws.is_denied(env_folder / "nested" / "deep.txt")
    assert ws.is_denied("envdirlink/secrets.txt")  # the link's own name is harmless
    assert ws.is_denied("sublink/.env/secrets.txt")
    assert ws.is_denied("sub/.ENV/secrets.txt")
    assert not ws.is_denied("sub/ok.txt")
    assert not ws.is_denied("sublink/ok.txt")
    assert not ws.is_denied("sub")


def test_session_read_refuses_a_file_in_a_denied_folder(root: Path, env_folder: Path) -> None:
    os.symlink("sub/.env", root / "envdirlink")
    session = Session([root])
    for path in ("sub/.env/secrets.txt", "envdirlink/secrets.txt"):
        result = session.read(path)
        assert result.is_error
        assert result.text == denied_text(f"{path} is inside sub/.env, which is")
        assert "sk-123" not in result.text


def test_session_read_refuses_env(root: Path) -> None:
    (root / ".env").write_text("API_KEY=sk-123\n")
    result = Session([root]).read(".env")
    assert result.is_error
    assert result.text == denied_text(".env is")
    assert "sk-123" not in result.text


# --- Missing files suggest similar names -------------------------------------------------------


def missing(ws: Workspace, path: str) -> str:
    with pytest.raises(FileMissing) as info:
        ws.resolve(path)
    return str(info.value)


@pytest.fixture
def project(root: Path) -> Path:
    (root / "src").mkdir()
    for name in ("app.py", "api.py", "models.py"):
        (root / "src" / name).write_text("x = 1\n")
    return root


def test_suggests_similar_names(project: Path) -> None:
    ws = Workspace([project])
    assert missing(ws, "src/ap.py") == "File not found: src/ap.py. Did you mean src/app.py, src/api.py?"
    assert missing(ws, "src/model.py") == "File not found: src/model.py. Did you mean src/models.py?"


def test_no_close_name_keeps_the_plain_message(project: Path) -> None:
    assert missing(Workspace([project]), "src/nope.py") == (
        "File not found: src/nope.py. Check the spelling, or list its folder to see what exists."
    )


def test_at_most_three_suggestions(root: Path) -> None:
    for name in ("util.py", "utils.py", "utils2.py", "utilz.py", "utile.py"):
        (root / name).write_text("\n")
    message = missing(Workspace([root]), "utl.py")
    assert message.startswith("File not found: utl.py. Did you mean ")
    assert len(message.removeprefix("File not found: utl.py. Did you mean ").split(", ")) == 3


def test_suggestions_are_relative_to_the_root(project: Path) -> None:
    ws = Workspace([project])
    expected = "Did you mean src/app.py, src/api.py?"
    assert missing(ws, "./src/ap.py") == f"File not found: ./src/ap.py. {expected}"
    absolute = str(project / "src" / "ap.py")
    assert missing(ws, absolute) == f"File not found: {absolute}. {expected}"


def test_suggestions_in_a_second_root_are_absolute(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "readme.md").write_text("r\n")
    ws = Workspace([root, other])
    given = str(other / "readme.mx")
    expected = os.path.join(os.path.realpath(other), "readme.md")
    assert missing(ws, given) == f"File not found: {given}. Did you mean {expected}?"


def test_missing_folder_suggests_from_the_closest_existing_ancestor(project: Path) -> None:
    ws = Workspace([project])
    assert missing(ws, "scr/app.py") == "File not found: scr/app.py. Did you mean src/app.py?"
    assert missing(ws, "scr/other.py") == "File not found: scr/other.py. Did you mean src?"
    (project / "src" / "pkg").mkdir()
    (project / "src" / "pkg" / "core.py").write_text("\n")
    assert missing(ws, "src/pgk/core.py") == "File not found: src/pgk/core.py. Did you mean src/pkg/core.py?"
    assert missing(ws, "zzz/yyy/x.py") == (
        "File not found: zzz/yyy/x.py. Check the spelling, or list its folder to see what exists."
    )


def test_never_suggests_denied_names(root: Path) -> None:
    (root / "secrets.key").write_text("k\n")
    (root / "secrets.txt").write_text("t\n")
    (root / ".env").write_text("K=1\n")
    os.symlink(".env", root / "secrets.cfg")  # an allowed name linking to a denied one
    ws = Workspace([root])
    assert missing(ws, "secrets.kye") == "File not found: secrets.kye. Did you mean secrets.txt?"


def test_never_suggests_names_inside_a_denied_folder(root: Path, env_folder: Path) -> None:
    os.symlink("sub/.env/secrets.txt", root / "secrets.txt")  # an allowed name in a denied folder
    (root / "secrets.md").write_text("m\n")
    assert missing(Workspace([root]), "secrets.tx") == "File not found: secrets.tx. Did you mean secrets.md?"


def test_never_suggests_links_out_or_dangling_links(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.txt").write_text("e\n")
    os.symlink(tmp_path / "elsewhere.txt", root / "report1.txt")
    os.symlink(root / "gone.txt", root / "report2.txt")
    (root / "report3.txt").write_text("r\n")
    ws = Workspace([root])
    assert missing(ws, "report.txt") == "File not found: report.txt. Did you mean report3.txt?"


def test_never_suggests_from_a_folder_outside(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "backs").write_text("private\n")
    os.symlink(outside, root / "linkdir")
    # linkdir/back is a dangling link back inside (so the file is "missing", not outside), but
    # its folder is the outside one: its names must not leak.
    os.symlink(root / "gone.txt", outside / "back")
    assert missing(Workspace([root]), "linkdir/back") == (
        "File not found: linkdir/back. Check the spelling, or list its folder to see what exists."
    )
