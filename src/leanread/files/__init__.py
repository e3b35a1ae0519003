"""Files on disk: the workspace, safe opening, text out of bytes and back, big files, ripgrep.

Layer 4 of leanread (see ``docs/ARCHITECTURE.md``): imports ``code``, ``config`` and the base
modules, nothing above. Everything that touches the file system (below the tools) is here.

- ``workspace``: resolve a path inside the roots, refuse escapes, denied names, special files;
- ``safeopen``: open what ``workspace`` checked, and nothing else;
- ``names``: how a name the model cannot read as text is shown and taken back;
- ``sniff``, ``textfile``: text from binary, bytes to lines (encodings, BOM, line endings);
- ``legacy``, ``plausible``: a legacy encoding, the one whose text reads most plausibly;
- ``lineindex``: line *k* of a big file without reading it from the start;
- ``writeback``: logical text back to the file's own bytes, written atomically;
- ``protected``: what ``edit`` and ``write`` never change;
- ``ripgrep``: running ``rg`` for ``grep`` and ``ls``.
"""
