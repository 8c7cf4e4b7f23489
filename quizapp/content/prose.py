"""Provides reflow: a deck's text with its source line breaks taken out of prose paragraphs.

A YAML block (`|`) keeps the line breaks its author wrapped the source at; shown as plain text in a
narrower terminal, each of them ends a line early and the paragraph reads ragged. Lists, tables, quotes,
headings and code keep their lines: there a line break means something.
"""

from __future__ import annotations

import re

_STRUCTURED = re.compile(r"\s*(?:[-*+•]\s|\d+[.)]\s|\||#|>)")
"""A line that starts a list item, a table row, a heading or a quote."""
_FENCE = re.compile(r"\s*(?:```|~~~)")
_CODE_INDENT = 4


def reflow(text: str) -> str:
    """`text` with each prose paragraph on one line (a list item and the lines that continue it too);
    blank lines, list items, tables, headings, quotes and code (fenced or indented) keep their breaks."""
    out: list[str] = []
    fenced = False
    joinable = False  # the line before is prose or a list item that a wrapped line continues
    for raw in text.strip("\n").splitlines():
        line = raw.rstrip()
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            joinable = False
        elif fenced or not line.strip():
            out.append(line)
            joinable = False
        elif _STRUCTURED.match(line):
            out.append(line)
            joinable = not line.lstrip().startswith(("|", "#"))
        elif joinable:
            out[-1] = f"{out[-1]} {line.strip()}"
        elif len(line) - len(line.lstrip()) >= _CODE_INDENT:  # indented code after a break
            out.append(line)
        else:
            out.append(line)
            joinable = True
    return "\n".join(out)
