"""Files on disk: the workspace, safe opening, text out of bytes and back, big files, ripgrep.

Layer 4 of leanread (see ``docs/ARCHITECTURE.md``): imports ``code``, ``config`` and the base
modules, nothing above. Everything that touches the file system (below the tools) is here.

- ``workspace``: resolve a path inside the roots, refuse escapes, denied names, special files;
  ``missing``: what the error for a path that cannot be served says;
- ``safeopen``: open what ``workspace`` checked (``Resolved``), and nothing else;
- ``names``: how a name the model cannot read as text is shown and taken back;
- ``sniff``: text from binary, and the encoding of a file's bytes (BOM, UTF-16, UTF-8, legacy);
- ``textfile``: a file's text loaded (whole, or a window of a big one) and split into lines;
- ``legacy``, ``plausible``: a legacy encoding, the one whose text reads most plausibly;
- ``lineindex``: line *k* of a big file without reading it from the start; ``indexcache``:
  the indexes per path and version; ``fileversion``: opening the indexed file, telling its
  versions apart;
- ``writeback``: logical text back to the file's own bytes, written atomically;
- ``protected``: what ``edit`` and ``write`` never change;
- ``ripgrep``: finding and running ``rg`` for ``grep`` and ``ls``; ``rgsearch``: its searches
  (matching lines and counts per file, from ``--json`` and ``--count``); ``walk``: a root's files
  as ripgrep walks them, each with its version, kept true from stats.
"""
