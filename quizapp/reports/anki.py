"""Provides `quizapp export anki FILE.apkg`: every question as an Anki card, via genanki.

Flashcards, choice and explain questions become cards as written; each numeric, tensor or shape template
becomes one card for its fixed instance (a seed of its own, see `anki_seed`), with the engine's worked
derivation on the back. Ids are
derived from the question ids, so exporting again updates the same notes in Anki instead of duplicating
them. Progress backups (JSON) are a room of their own: quizapp.progress.
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

import genanki
from markdown_it import MarkdownIt

from engine.derivation import format_quantity
from quizapp import paths
from quizapp.errors import QuizappError
from quizapp.store.anki_notes import previous_anki_notes

ANKI_SEEDS = 50
"""A card in Anki cannot change its numbers, so each question is exported at one seed below this (the seeds
`quizapp validate` instantiates), picked from its id: one seed for every card would give every choice card
the same shuffle, and so the right answer at the same letter."""

_MODEL_ID = 1_607_392_319
_CSS = (
    ".card { font-family: sans-serif; font-size: 18px; text-align: left; }\n"
    "pre { font-size: 14px; background: #f4f4f4; padding: 6px; white-space: pre-wrap; }\n"
    ".explanation { color: #555; font-size: 15px; }\n"
    ".derivation td { padding: 2px 8px; vertical-align: top; font-size: 15px; }\n"
    ".heatmap { border-collapse: collapse; font-size: 12px; margin: 6px 0; }\n"
    ".heatmap td, .heatmap th { padding: 2px 4px; text-align: center; }\n"
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


def anki_seed(question_id: str) -> int:
    """The seed a question is exported at: a stable hash of its id (never Python's salted hash()), so an
    export made again gives the same card, and different cards get different numbers and orders."""
    return _stable_id(f"quizapp-seed:{question_id}", 0, ANKI_SEEDS)


def _stable_id(text: str, low: int = 1 << 30, high: int = 1 << 31) -> int:
    digest = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    return low + digest % (high - low)


def markdown_html(text: str) -> str:
    """Deck Markdown as Anki HTML through markdown-it (CommonMark): soft line wraps stay wraps, lists,
    code and emphasis render, and raw HTML in a deck is shown as text, never run."""
    return str(_markdown().render(text)).strip()


_MD: list[Any] = []


def _markdown() -> Any:
    if not _MD:
        _MD.append(MarkdownIt("commonmark", {"html": False, "breaks": False}))
    return _MD[0]


_TOKEN = re.compile(r"\s+|[A-Za-z][A-Za-z0-9_']*|\d+(?:\.\d+)?|->|[-+*/=(),.@^<>;:\[\]]")
_MATH_WORDS = frozenset({"sqrt", "exp", "sum", "softmax", "max", "bytes", "batch", "entries", "per"})


def formula_mathjax(formula: str) -> str:
    """A derivation formula as MathJax `\\( ... \\)` when it is made of symbols only; a formula
    that carries words ("each KV head serves ...") stays plain text, because math mode would run the
    words together. Returns HTML."""
    tokens = _TOKEN.findall(formula)
    if "".join(tokens) != formula or any(_is_prose(t) for t in tokens):
        return f"<code>{html.escape(formula)}</code>"
    out: list[str] = []
    depth: list[bool] = []  # for each open parenthesis: does it close a \sqrt{ ... }?
    for i, tok in enumerate(tokens):
        if tok == "sqrt" and i + 1 < len(tokens) and tokens[i + 1] == "(":
            out.append("\\sqrt")
            continue
        if tok == "(":
            sqrt = bool(out) and out[-1] == "\\sqrt"
            depth.append(sqrt)
            out.append("{" if sqrt else "(")
        elif tok == ")":
            out.append("}" if depth and depth.pop() else ")")
        elif tok == "x":
            out.append("\\times")
        elif tok == ".":
            out.append("\\cdot")
        elif tok == "->":
            out.append("\\to")
        elif tok == "@":
            out.append("\\mathbin{@}")
        elif "_" in tok and tok[0].isalpha():
            base, sub = tok.split("_", 1)
            whole = len(base) >= 3 and base != "sum"  # bytes_per_element is a name, not bytes sub per...
            out.append(_name(tok) if whole else f"{_word(base)}_{{{_sub(sub)}}}")
        elif tok.isalpha():
            out.append(_word(tok))
        elif tok == "^" and i + 1 < len(tokens):
            out.append("^")
        else:
            out.append(tok)
    body = "".join(out)
    body = re.sub(r"\^(\s*)([A-Za-z0-9]+)", r"^{\2}", body)
    return "\\(" + html.escape(body) + "\\)"


def _word(token: str) -> str:
    """A name in math mode: operators upright, English words as text, symbols (d, K, h) as they are."""
    if token == "sum":
        return "\\sum"
    if token in ("exp", "softmax", "max"):
        return f"\\operatorname{{{token}}}"
    if len(token) >= 3 and token.islower():
        return f"\\text{{ {token} }}"
    return token


def _sub(text: str) -> str:
    """A subscript: short ones (k, 1j, j') in math italic, long names (model, kv_heads) as text."""
    if re.fullmatch(r"[A-Za-z0-9']{1,3}", text):
        return text
    return _name(text)


def _name(text: str) -> str:
    """A multi-letter name in upright math: `\\mathrm{kv\\_heads}`. MathJax's `\\text{}` shows a literal
    backslash for `\\_`; in math mode `\\_` is an underscore."""
    return "\\mathrm{" + text.replace("_", "\\_") + "}"


def _is_prose(token: str) -> bool:
    """A word of four or more letters that is not a symbol, a subscripted name or a math word."""
    return token.isalpha() and len(token) >= 4 and token not in _MATH_WORDS


def _derivation_html(derivation: Any) -> str:
    """The worked steps as a table: what, the formula (MathJax where it is pure math), the numbers, the
    value; then the result."""
    rows = "".join(
        f"<tr><td>{html.escape(step.label)}</td><td>{formula_mathjax(step.formula)}</td>"
        f"<td><code>{html.escape(step.substituted)}</code></td>"
        f"<td>= {html.escape(format_quantity(step.value, step.unit))}</td></tr>"
        for step in derivation.steps
    )
    result = html.escape(format_quantity(derivation.value, derivation.unit))
    return f"<table class='derivation'>{rows}</table><p>Result: <b>{result}</b></p>"


def heatmap_html(heatmap: Any) -> str:
    """Attention weights as coloured HTML tables, one per head: each cell's blue deepens with its weight,
    masked keys are grey, and the asked cell is outlined. Anki shows it without scripts or images."""
    blocks = []
    asked = heatmap.asked
    for h in range(heatmap.weights.shape[0]):  # (H, T, S)
        title = heatmap.head_labels[h] if h < len(heatmap.head_labels) else ""
        head = "".join(f"<th>{html.escape(c)}</th>" for c in heatmap.col_labels)
        rows = []
        for r, label in enumerate(heatmap.row_labels):
            cells = []
            for c, w in enumerate(heatmap.weights[h, r]):  # (S,)
                masked = heatmap.allowed is not None and not bool(heatmap.allowed[h, r, c])
                ring = asked is not None and asked[0] == r and asked[1] in (None, c)
                style = "background:#ddd;color:#888" if masked else _cell_colour(float(w))
                if ring:
                    style += ";outline:2px solid #d62728"
                text = "&ndash;" if masked else f"{float(w):.2f}"
                cells.append(f"<td style='{style}'>{text}</td>")
            rows.append(f"<tr><th>{html.escape(label)}</th>{''.join(cells)}</tr>")
        caption = f"<caption>{html.escape(title)}</caption>" if title else ""
        blocks.append(f"<table class='heatmap'>{caption}<tr><th></th>{head}</tr>{''.join(rows)}</table>")
    return "".join(blocks)


def _cell_colour(weight: float) -> str:
    """A white-to-blue background for a weight in [0, 1], with text that stays readable."""
    w = min(1.0, max(0.0, weight))
    r, g, b = (round(255 - (255 - t) * w) for t in (31, 119, 180))
    return f"background:rgb({r},{g},{b});color:{'#fff' if w > 0.55 else '#000'}"


def card_sides(inst: Any) -> tuple[str, str]:
    """(front, back) HTML for one Instance, by kind."""
    front = markdown_html(inst.prompt)
    if inst.prompt_heatmap and inst.heatmap is not None:
        front += heatmap_html(inst.heatmap)
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
    elif kind == "scenario":  # the steps in order on the front; each answer, then the whole chain, behind
        steps = "".join(f"<li>{markdown_html(step.prompt)}</li>" for step in inst.steps)
        front += f"<ol class='scenario-steps'>{steps}</ol>"
        answers = "".join(f"<li><b>{html.escape(step.expected_text())}</b></li>" for step in inst.steps)
        back = f"<ol class='scenario-answers'>{answers}</ol>"
        if inst.derivation is not None:
            back += _derivation_html(inst.derivation)
    elif kind == "code":  # the model solution; the starter code shows the signature to write
        front += markdown_html(f"```python\n{inst.starter.rstrip()}\n```")
        back = markdown_html(f"```python\n{str(inst.expected).rstrip()}\n```")
    else:  # the prompt says what unit it wants; the app's "a bare number is read as ..." has no place here
        back = f"<b>{html.escape(inst.expected_text())}</b>"
        if inst.derivation is not None:
            back += _derivation_html(inst.derivation)
    if inst.heatmap is not None and not inst.prompt_heatmap:
        back += heatmap_html(inst.heatmap)
    return front, back


def export_anki(
    catalog: InstanceSource,
    file: str | os.PathLike[str],
    *,
    now: datetime,
    deck_ids: Iterable[str] | None = None,
) -> AnkiExport:
    """Writes an .apkg with one Anki deck per quizapp deck ("quizapp::<title>"); returns what it wrote."""
    wanted = None if deck_ids is None else set(deck_ids)
    previous = _previous_notes(Path(file))
    _Note = _note_class(genanki)
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
            inst = catalog.instance(question_id, seed=anki_seed(question_id))
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
        tags = [f"quizapp::deck::{_tag(inst.deck_id)}", *(f"quizapp::{_tag(t)}" for t in inst.tags)]
        note = _Note(
            model=model,
            fields=[front, back, markdown_html(inst.explanation), html.escape(question_id)],
            tags=tags,
            guid=genanki.guid_for("quizapp", question_id),
        )
        old = previous.get(note.guid)
        note.mod = old[0] if old is not None and old[1:] == _content(note) else int(now.timestamp())
        deck.add_note(note)
        notes += 1
    if not decks:
        if wanted is not None:
            raise QuizappError(
                f"No deck matches {', '.join(sorted(wanted))}; `quizapp list` shows the deck ids."
            )
        raise QuizappError("There are no questions to export; `quizapp validate` says why no deck loaded.")
    target = Path(file)
    try:
        fd, tmp = paths.temp_beside(target)
        os.close(fd)  # genanki writes by path: to this new file of an unguessable name
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    try:
        genanki.Package(list(decks.values())).write_to_file(str(tmp), timestamp=now.timestamp())
        os.replace(tmp, target)
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)  # gone after the rename; removed after any failure
    return AnkiExport(path=target, notes=notes, decks=len(decks), skipped=tuple(skipped))


def _note_class(genanki: Any) -> Any:
    """A genanki Note whose modification time is its own (`mod`), not the package's: a note whose
    content did not change keeps the time of the export that last changed it, so Anki's importer
    updates only the notes that changed."""

    class _StableNote(genanki.Note):  # type: ignore[misc]
        mod = 0

        def write_to_db(self, cursor: Any, timestamp: float, deck_id: int, id_gen: Any) -> None:
            super().write_to_db(cursor, self.mod or timestamp, deck_id, id_gen)

    return _StableNote


def _content(note: Any) -> tuple[str, str]:
    """What Anki stores of a note's content: the fields and the tags, as genanki writes them."""
    return note._format_fields(), note._format_tags()


def _previous_notes(path: Path) -> dict[str, tuple[int, str, str]]:
    """guid -> (mod, fields, tags) of an earlier export at `path` (read by the store: SQL lives there)."""
    return previous_anki_notes(path)


def _tag(text: str) -> str:
    """Anki tags cannot hold spaces."""
    return re.sub(r"\s+", "_", text.strip()) or "untagged"


__all__ = [
    "ANKI_SEEDS",
    "AnkiExport",
    "InstanceSource",
    "anki_seed",
    "card_sides",
    "export_anki",
    "formula_mathjax",
    "heatmap_html",
    "markdown_html",
]
