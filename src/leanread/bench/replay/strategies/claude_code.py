"""Claude Code's Read tool (2.1.86+): ``N<TAB>`` before every line, no envelope, 2000 lines, lines
cut at 2000 characters, no byte cap, and the ``file_unchanged`` stub for a re-read of the same
path and range while the file's mtime is unchanged. Its grep is ripgrep's ``path:N:text``."""

from __future__ import annotations

from ..calls import GrepCall, ReadCall
from ..strategy import AnchorStrategy, ripgrep_output, window


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

    def render(self, call: ReadCall) -> str:
        if not call.file.lines:
            return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
        first, lines, _ = window(call, None, "")
        return "\n".join(f"{first + i}\t{line}" for i, line in enumerate(lines))

    def grep(self, call: GrepCall) -> str:
        return ripgrep_output(call)
