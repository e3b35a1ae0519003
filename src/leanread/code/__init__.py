"""Code as text: outlines, parsing, diffs and the plan of an edit; pure functions, no file I/O.

Layer 3 of leanread (see ``docs/ARCHITECTURE.md``): imports ``config`` and the base modules
(``errors``, ``result``, ``memo``), nothing above.

- ``outline``: the map of a file (signatures, headings, line ranges) and ``symbol=`` lookups;
- ``syntax``: whether an edit leaves a file parsing worse than before;
- ``pyparse``: ``ast.parse`` safe from several threads;
- ``diffs``: unified diffs of a window against the version the model was shown;
- ``edit_plan``: where ``old_string`` stands in a file's text and what replacing it gives, by
  rules tried in turn: ``edit_match`` (the exact substring), ``edit_numbers`` (copied line
  numbers), ``edit_whitespace`` (trailing whitespace and indentation); ``edit_markers`` refuses
  display-only markers, ``edit_closest`` quotes the closest text when nothing matches, and
  ``edit_text`` splits the texts into lines.
"""
