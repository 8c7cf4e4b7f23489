"""Provides terminal_text: the one cleaning every text that came from a file passes before it reaches a
terminal (a deck's titles, prompts and ids, the answers, diagnoses and ids of a progress file or a
`--db`, file names in messages).

Such text is someone else's: an OSC 52 sequence in an imported answer sets the clipboard, `ESC[2J` clears
the screen, a bidi override reorders what the user reads, a zero-width space makes two ids look alike.
So it keeps printable text, newlines and tabs, and drops:

- whole escape sequences: CSI (`ESC [` or 0x9B, up to its final byte), the string sequences OSC, DCS,
  SOS, PM and APC (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _` or 0x9D, 0x90, 0x98, 0x9E, 0x9F) with their
  payload up to BEL or ST (or the end of the text: a terminal would swallow the rest too), and any other
  `ESC` with its intermediate and final bytes;
- the C0 controls but newline and tab (carriage return included), DEL, and the C1 controls;
- the bidirectional controls U+061C, U+200E, U+200F, U+202A-U+202E and U+2066-U+2069;
- the zero-width characters U+200B-U+200D, U+2060 and U+FEFF.

Text with none of these (nearly all) comes back as the same object, found by one C-speed search.
"""

from __future__ import annotations

import re

UNSAFE_CHARACTERS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1 (ESC and 8-bit CSI, OSC... among them)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional controls
    "\u200b-\u200d\u2060\ufeff"  # zero-width characters
)
"""The characters terminal_text never lets through, as the inside of a regular-expression class."""

_ANY_UNSAFE = re.compile(f"[{UNSAFE_CHARACTERS}]")
_UNSAFE = re.compile(
    # OSC, DCS, SOS, PM, APC: the payload up to BEL or ST (ESC \ is then taken by the last branch, and any
    # other ESC, CAN or SUB ends the string as a terminal's parser ends it)
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x18\x1a\x1b\x9c]*[\x07\x9c]?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI: parameters, intermediates, final byte
    r"|\x1b[ -/]*[0-~]?"  # any other escape: intermediates and a final byte
    f"|[{UNSAFE_CHARACTERS}]"
)


def terminal_text(text: str) -> str:
    """`text` without escape sequences, controls (but newline and tab), bidi and zero-width characters."""
    if _ANY_UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub("", text)


def unsafe_characters(text: str) -> list[str]:
    """The characters terminal_text would drop from `text` on their own or as the start of a sequence,
    each once, in order of code point (for messages that say what was removed)."""
    return sorted(set(_ANY_UNSAFE.findall(text)))
