"""What the model sees: windows of lines rendered, line formats, the frame, token counts.

Layer 5 of leanread (see ``docs/ARCHITECTURE.md``): imports ``files``, ``code``, ``config`` and
the base modules, nothing above. Pure functions: lines in, text out (and back, in
``reconstruct``).

- ``render``: a window of lines into the envelope, with caps and notices; ``outlineview``: an
  outline as the model sees it;
- ``formats``: the line decorations of each ``format`` and how to take them off;
- ``frame``: keep a file's text from posing as leanread's own frame;
- ``slices``: part of one long line (``char_offset``);
- ``rows``: a line as a search row shows it, cut where long;
- ``counts``: how a count is written;
- ``reconstruct``: what the model holds of a file, rebuilt from the results it was shown.
"""
