"""Provides `quizapp export anki FILE.apkg`: every question as an Anki card, via genanki.

Flashcards, choice and explain questions become cards as written; each numeric, tensor or shape template
becomes one card for its fixed instance (seed 0), with the engine's worked derivation on the back. Ids are
derived from the question ids, so exporting again updates the same notes in Anki instead of duplicating
them. Progress backups (JSON) live in quizapp.reports.progress_file and are re-exported here.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from quizapp.errors import QuizappError
from quizapp.reports.progress_file import ProgressCounts, export_progress, import_progress

ANKI_SEED = 0
"""Numeric templates are exported at this one seed: a card in Anki cannot change its numbers."""

_MODEL_ID = 1_607_392_319
_CSS = (
    ".card { font-family: sans-serif; font-size: 18px; text-align: left; }\n"
    "pre { font-size: 14px; background: #f4f4f4; padding: 6px; white-space: pre-wrap; }\n"
    ".explanation { color: #555; font-size: 15px; }\n"
)


class InstanceSource(Protocol):
    """What export needs from a catalog: question ids, and an instance for an id and a seed."""

    @property
    def questions(self) -> Mapping[str, Any]: ...

    def instance(self, question_id: str, seed: int) -> Any: ...


@dataclass(frozen=True)
class AnkiExport:
    """What went into the package, and which questions could not be instantiated (with the reason)."""

    path: Path
    notes: int
    decks: int
    skipped: tuple[tuple[str, str], ...]


def _stable_id(text: str, low: int = 1 << 30, high: int = 1 << 31) -> int:
    digest = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    return low + digest % (high - low)


_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def markdown_html(text: str) -> str:
    """Just enough Markdown for Anki: code fences, inline code, bold, line breaks; everything escaped."""
    parts = []
    last = 0
    for match in _FENCE.finditer(text):
        parts.append(_inline_html(text[last : match.start()]))
        parts.append(f"<pre>{html.escape(match.group(1).rstrip())}</pre>")
        last = match.end()
    parts.append(_inline_html(text[last:]))
    return "".join(parts).strip()


def _inline_html(text: str) -> str:
    out = html.escape(text.strip("\n"))
    out = _INLINE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<b>\1</b>", out)
    return out.replace("\n", "<br>")


def card_sides(inst: Any) -> tuple[str, str]:
    """(front, back) HTML for one Instance, by kind."""
    front = markdown_html(inst.prompt)
    kind = inst.kind
    if kind == "choice":
        options = "".join(f"<li><b>{o.key})</b> {markdown_html(o.text)}</li>" for o in inst.options)
        hint = " (select all that apply)" if inst.multiple else ""
        front += f"<ol style='list-style:none'>{options}</ol>{hint}"
        right = [o for o in inst.options if o.correct]
        back = "<br>".join(f"<b>{o.key})</b> {markdown_html(o.text)}" for o in right)
        wrong = [o for o in inst.options if not o.correct and o.feedback]
        if wrong:
            notes = "".join(f"<li><b>{o.key})</b> {markdown_html(o.feedback)}</li>" for o in wrong)
            back += f"<ul>{notes}</ul>"
    elif kind == "explain":
        back = markdown_html(str(inst.expected))
        if inst.key_points:
            back += "<ul>" + "".join(f"<li>{markdown_html(p)}</li>" for p in inst.key_points) + "</ul>"
    elif kind == "flashcard":
        back = markdown_html(str(inst.expected))
    else:
        hint = inst.answer_hint()
        if hint:
            front += f"<br><small>{html.escape(hint)}</small>"
        back = f"<b>{html.escape(inst.expected_text())}</b>"
        if inst.derivation is not None:
            back += f"<pre>{html.escape(inst.derivation.to_text())}</pre>"
    return front, back


def export_anki(
    catalog: InstanceSource,
    file: str | os.PathLike[str],
    *,
    now: datetime,
    deck_ids: Iterable[str] | None = None,
) -> AnkiExport:
    """Writes an .apkg with one Anki deck per quizapp deck ("quizapp::<title>"); returns what it wrote."""
    import genanki

    wanted = None if deck_ids is None else set(deck_ids)
    model = genanki.Model(
        _MODEL_ID,
        "quizapp question",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Explanation"}, {"name": "QuestionId"}],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}",
                "afmt": "{{FrontSide}}<hr id=answer>{{Back}}<div class='explanation'>{{Explanation}}</div>",
            }
        ],
        css=_CSS,
    )
    decks: dict[str, Any] = {}
    skipped: list[tuple[str, str]] = []
    notes = 0
    for question_id in catalog.questions:
        try:
            inst = catalog.instance(question_id, seed=ANKI_SEED)
        except (QuizappError, ValueError, KeyError) as exc:
            skipped.append((question_id, str(exc)))
            continue
        if wanted is not None and inst.deck_id not in wanted:
            continue
        deck = decks.get(inst.deck_id)
        if deck is None:
            deck = genanki.Deck(_stable_id(f"quizapp-deck:{inst.deck_id}"), f"quizapp::{inst.deck_title}")
            decks[inst.deck_id] = deck
        front, back = card_sides(inst)
        tags = [_tag(t) for t in (inst.deck_id, *inst.tags)]
        deck.add_note(
            genanki.Note(
                model=model,
                fields=[front, back, markdown_html(inst.explanation), html.escape(question_id)],
                tags=tags,
                guid=genanki.guid_for("quizapp", question_id),
            )
        )
        notes += 1
    if not decks:
        if wanted is not None:
            raise QuizappError(
                f"No deck matches {', '.join(sorted(wanted))}; `quizapp list` shows the deck ids."
            )
        raise QuizappError("There are no questions to export; `quizapp validate` says why no deck loaded.")
    target = Path(file)
    tmp = target.with_name(target.name + ".tmp")
    try:
        genanki.Package(list(decks.values())).write_to_file(str(tmp), timestamp=now.timestamp())
        os.replace(tmp, target)
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    return AnkiExport(path=target, notes=notes, decks=len(decks), skipped=tuple(skipped))


def _tag(text: str) -> str:
    """Anki tags cannot hold spaces."""
    return re.sub(r"\s+", "_", text.strip()) or "untagged"


__all__ = [
    "ANKI_SEED",
    "AnkiExport",
    "InstanceSource",
    "ProgressCounts",
    "card_sides",
    "export_anki",
    "export_progress",
    "import_progress",
    "markdown_html",
]
