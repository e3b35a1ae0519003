"""Claude Code's Read tool (2.1.86+): ``N<TAB>`` before every line, no envelope, 2000 lines, lines
cut at 2000 characters, no byte cap, and the ``file_unchanged`` stub for a re-read of the same
path and range while the file's mtime is unchanged. Its grep is ripgrep's ``path:N:text``."""

from __future__ import annotations

from ..calls import ChangeCall, GrepCall, ReadCall
from ..strategy import AnchorStrategy, old_and_content, ripgrep_output, window

#: Claude Code's Edit matches the old text exactly, or with curly quotes taken as straight ones.
_STRAIGHT = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


class ClaudeCode(AnchorStrategy):
    name = "claude-code"
    title = "claude-code: `N\\t` prefixes, 2000 lines, 2000 chars, no byte cap, unchanged stub"
    order = 40
    line_format = "tab"
    max_bytes = None
    stub = (
        "File unchanged since last read. The content from the earlier Read tool_result in this conversation "
        "is still current — refer to that instead of re-reading."
    )
    edit_ack = "The file {path} has been updated successfully."
    write_ack = "File created successfully at: {path}"

    def edit_refusal(self, call: ChangeCall) -> str | None:
        old, content = old_and_content(call)
        if old.translate(_STRAIGHT) in content.translate(_STRAIGHT):
            return None
        return f"<tool_use_error>String to replace not found in file.\nString: {old}</tool_use_error>"

    def render(self, call: ReadCall) -> str:
        if not call.file.lines:
            return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
        first, lines, _ = window(call, None, "")
        return "\n".join(f"{first + i}\t{line}" for i, line in enumerate(lines))

    def grep(self, call: GrepCall) -> str:
        return ripgrep_output(call)
