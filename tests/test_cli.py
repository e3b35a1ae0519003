"""The ``leanread`` command, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def leanread(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_read_prints_what_the_model_sees(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    done = leanread("read", "notes.txt", "--offset", "2", "--limit", "1", "--format", "colon", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == (
        "<path>notes.txt</path>\n<type>file</type>\n<content>\n2: beta\n\n"
        "(Showing lines 2-2 of 3. Use offset=3 to continue.)\n</content>\n"
    )


def test_read_with_root_and_metadata(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo")
    done = leanread("read", "a.txt", "--root", str(tmp_path), "--meta", cwd=Path("/"))
    assert done.returncode == 0
    assert done.stdout.endswith("one\ntwo\n\n(End of file - total 2 lines; no newline at end of file)\n</content>\n")
    meta = json.loads(done.stderr)
    assert (meta["total_lines"], meta["size"], meta["next_offset"]) == (2, 7, None)


def test_read_error_goes_to_stderr_with_status_1(tmp_path: Path) -> None:
    done = leanread("read", "missing.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == ("File not found: missing.py. Check the spelling, or list its folder to see what exists.\n")


def test_bad_root_is_one_line(tmp_path: Path) -> None:
    done = leanread("read", "x", "--root", str(tmp_path / "absent"), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().endswith("is not a directory; pass an existing folder.")
    assert "Traceback" not in done.stderr


def test_an_empty_root_is_left_out_never_the_current_folder(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "in.txt").write_text("in\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    said = (
        f"leanread: left out an empty workspace root (an unset variable in the configuration?); the roots are {proj}.\n"
    )
    outside = leanread("read", "outside.txt", "--root", "", "--root", str(proj), cwd=tmp_path)
    assert (outside.returncode, outside.stdout) == (1, "")
    assert outside.stderr == (
        f"{said}File not found: outside.txt. Check the spelling, or list its folder to see what exists.\n"
    )
    inside = leanread("read", "in.txt", "--root", "", "--root", str(proj), cwd=tmp_path)
    assert (inside.returncode, inside.stderr) == (0, said)
    assert (
        inside.stdout
        == "<path>in.txt</path>\n<type>file</type>\n<content>\nin\n\n(End of file - total 1 line)\n</content>\n"
    )
    none = leanread("read", "outside.txt", "--root", "", "--root", " ", cwd=tmp_path)
    assert (none.returncode, none.stdout, none.stderr) == (
        1,
        "",
        "Every workspace root given is empty (an unset variable in the configuration?); pass an existing folder.\n",
    )


def test_flags_override_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "leanread.toml").write_text("max_lines = 2\n")
    (tmp_path / "n.txt").write_text("1\n2\n3\n4\n")
    from_file = leanread("read", "n.txt", cwd=tmp_path)
    from_flag = leanread("read", "n.txt", "--max-lines", "3", cwd=tmp_path)
    assert from_file.stdout.endswith("(Showing lines 1-2 of 4. Use offset=3 to continue.)\n</content>\n")
    assert from_flag.stdout.endswith("(Showing lines 1-3 of 4. Use offset=4 to continue.)\n</content>\n")


def test_bad_settings_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "leanread.toml").write_text("max_line = 3\n")
    done = leanread("read", "x", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("Unknown key 'max_line' in ")
    assert done.stderr.count("\n") == 1


def test_char_offset_reads_the_rest_of_a_cut_line(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("a" * 2500 + "\n")
    done = leanread("read", "min.js", "--offset", "1", "--char-offset", "2001", cwd=tmp_path)
    assert done.stdout == (
        "<path>min.js</path>\n<type>file</type>\n<content>\n" + "a" * 500 + "\n\n"
        "(End of line 1, characters 2001-2500 of 2500. End of file - total 1 line)\n</content>\n"
    )


def test_bench_window_runs_and_checks_against_sed(tmp_path: Path) -> None:
    done = leanread("bench", "window", "--size-mb", "1", "--runs", "1", "--window", "10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Big-file window: line index against `sed`\n")
    assert "- sed's output equals leanread's lines." in done.stdout


def test_read_of_an_image_writes_what_the_model_is_sent(tmp_path: Path) -> None:
    from PIL import Image

    from leanread.bench.documents import png_bytes

    (tmp_path / "shot.png").write_bytes(png_bytes(3040, 2000))
    done = leanread("read", "shot.png", "--image-out", "sent.png", cwd=tmp_path)
    assert done.returncode == 0
    assert "3040x2000 px" in done.stdout and "sent downscaled as PNG 2000x1316 px" in done.stdout
    with Image.open(tmp_path / "sent.png") as sent:
        assert sent.size == (2000, 1316)


def test_image_out_refusals_are_one_line(tmp_path: Path) -> None:
    from leanread.bench.documents import png_bytes

    (tmp_path / "icon.png").write_bytes(png_bytes(8, 8))
    (tmp_path / "notes.txt").write_text("alpha\n")
    missing = leanread("read", "icon.png", "--image-out", "no/such/dir/x.png", cwd=tmp_path)
    assert missing.returncode == 1 and "(PNG image, 8x8 px" in missing.stdout
    assert missing.stderr == (
        "Cannot write the image to no/such/dir/x.png: No such file or directory; pass another --image-out path.\n"
    )
    text = leanread("read", "notes.txt", "--image-out", "x.png", cwd=tmp_path)
    assert text.returncode == 1 and text.stderr == "No image written to x.png: this read sent no image.\n"
    assert not (tmp_path / "x.png").exists()
