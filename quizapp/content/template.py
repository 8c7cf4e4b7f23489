"""Provides the prompt template language: `{name}`, `{name.field}`, `{name:spec}`, with `{{` and `}}` escapes.

A small parser of our own, so no text from a deck ever reaches `str.format`, `format_map` or `eval` with an
object it could walk: fields are looked up only in mappings, sequences and dataclass fields, and a format
spec is applied only to plain numbers and strings after a regex has accepted it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from quizapp.errors import QuizappError

# One pass: an escape, a well-formed placeholder (name, .fields, :spec), any other {...}, or a lone brace.
_TOKEN = re.compile(
    r"(\{\{|\}\})|\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)(?::([^{}]*))?\}|(\{[^{}]*\})|([{}])"
)
_BRACE = re.compile(r"[{}]")
# [[fill]align][sign][z][#][0][width][grouping][.precision][type]; width and precision kept small.
_SPEC = re.compile(r"^(?:[^{}]?[<>=^])?[+\- ]?z?#?0?(?:\d{1,2})?[,_]?(?:\.\d{1,2})?[bcdeEfFgGnosxX%]?$")


class TemplateError(QuizappError):
    """A template that cannot be parsed or filled; `offset` is where in the text, `name` which param."""

    def __init__(self, message: str, *, offset: int = 0, name: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.name = name


class Placeholder(NamedTuple):
    """One `{name.field:spec}` in a template, with its offset for error locations."""

    name: str
    fields: tuple[str, ...]
    spec: str
    offset: int

    @property
    def text(self) -> str:
        """The placeholder as written, for messages."""
        return "{" + self.reference + (f":{self.spec}" if self.spec else "") + "}"

    @property
    def reference(self) -> str:
        """The `name.field` reference without the spec."""
        return ".".join((self.name, *self.fields))


Segment = str | Placeholder


@lru_cache(maxsize=4096)
def parse_template(text: str) -> tuple[Segment, ...]:
    """Splits a template into literal text and placeholders; raises TemplateError on bad braces."""
    if "{" not in text and "}" not in text:
        return (text,) if text else ()
    out: list[Segment] = []
    literal: list[str] = []
    pos = 0
    for match in _tokens(text):
        escape, name, dotted, spec, other, lone = match.groups()
        literal.append(text[pos : match.start()])
        pos = match.end()
        if escape:
            literal.append(escape[0])
            continue
        if lone:
            message = f"a lone {lone!r}: write {lone * 2!r} for a literal brace"
            raise TemplateError(message, offset=match.start())
        if other:
            raise TemplateError(
                f"{other!r} is not a placeholder: use {{name}}, {{name.field}} or {{name:spec}}, "
                "and write {{ and }} for literal braces",
                offset=match.start(),
            )
        if spec and not _SPEC.match(spec):
            raise TemplateError(
                f"{match.group(0)!r} has an unsupported format spec {spec!r} (try ',' , '.2f' or '.3g')",
                offset=match.start(),
                name=name,
            )
        if literal:
            out.append("".join(literal))
            literal = []
        fields = tuple(dotted[1:].split(".")) if dotted else ()
        out.append(Placeholder(name, fields, spec or "", match.start()))
    literal.append(text[pos:])
    tail = "".join(literal)
    if tail:
        out.append(tail)
    return tuple(out)


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """The brace tokens of `text`: a fast search for the next brace, then the full pattern there
    (several times faster than finditer, which tries every alternative at every character)."""
    pos = 0
    while (brace := _BRACE.search(text, pos)) is not None:
        match = _TOKEN.match(text, brace.start())
        assert match is not None  # a lone brace always matches
        yield match
        pos = match.end()


def placeholders(text: str) -> tuple[Placeholder, ...]:
    """The placeholders of a template, in order."""
    return tuple(s for s in parse_template(text) if isinstance(s, Placeholder))


def lookup(value: Any, fields: tuple[str, ...], *, name: str) -> Any:
    """Follows `.field` steps through mappings, sequences and dataclass fields only."""
    path = name
    for field in fields:
        if type(value) is dict or isinstance(value, Mapping):
            if field not in value:
                keys = ", ".join(str(k) for k in value) or "none"
                raise TemplateError(f"{path!r} has no field {field!r} (it has {keys})", name=name)
            value = value[field]
        elif isinstance(value, (list, tuple)) and field.isdigit():
            if int(field) >= len(value):
                raise TemplateError(
                    f"{path!r} has {len(value)} items; index {field} is past the end", name=name
                )
            value = value[int(field)]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            names = _field_names(type(value))
            if field not in names:
                raise TemplateError(f"{path!r} has no field {field!r} (it has {', '.join(names)})", name=name)
            value = getattr(value, field)
        else:
            raise TemplateError(f"{path!r} is {_describe(value)}, which has no field {field!r}", name=name)
        path = f"{path}.{field}"
    return value


def render(text: str, values: Mapping[str, Any]) -> str:
    """Fills a template's placeholders from `values` (param name -> sampled value), then makes each count
    agree with its noun (`agree_counts`): a draw of 1 reads "1 byte", not "1 bytes"."""
    segments = parse_template(text)
    parts = [seg if isinstance(seg, str) else fill(seg, values) for seg in segments]
    if not any(isinstance(seg, Placeholder) for seg in segments):
        return "".join(parts)  # a fixed text is the author's own words
    for i in range(1, len(parts)):
        # a line that a drawn value starts ("1. What is...", "- 3 heads") would read as a Markdown list
        # item or heading: the soft line break before it becomes a space
        if isinstance(segments[i], Placeholder) and parts[i - 1].endswith("\n"):
            line = parts[i] + (parts[i + 1] if i + 1 < len(parts) else "")
            if _MARKER.match(line):
                parts[i - 1] = parts[i - 1][:-1] + " "
    return agree_counts("".join(parts))


_MARKER = re.compile(r"(?:\d{1,9}[.)]|[-+*>]|#{1,6})(?:[ \t]|$)")
"""The start of a Markdown list item, quote or heading, which a line of a prompt must not begin with."""


# A count (not part of a decimal, a power or a name such as fp8) and the one to three words after it.
_COUNTED = re.compile(r"(?<![\w.,/^*=-])(\d[\d,]*(?:\.\d+)?)((?:[ \n][A-Za-z][\w/-]*(?:\(s\))?){1,3})")
_STOP = frozenset(
    {
        *("of", "per", "in", "with", "and", "or", "to", "for", "at", "on", "by", "from", "into", "than"),
        *("the", "a", "an", "each", "that", "which", "is", "are", "was", "has", "its", "this", "as", "us"),
        *("plus", "thus", "less", "across", "always", "does", "bias", "means", "gives", "makes", "takes"),
        *("needs", "holds", "uses", "reads", "shows", "attends", "equals"),
    }
)
"""Words that end the search for a count's noun: function words, and words ending in s that are not
plurals (verbs such as "means": "a ratio below 1 means...")."""


def agree_counts(text: str) -> str:
    """Makes counts agree with their nouns: "1 bytes" -> "1 byte", "1 concurrent sequences" -> "1
    concurrent sequence", and a template's "head(s)" -> "head" after 1, "heads" after any other count.
    The noun is the first of the three words after the count that ends in "(s)" or, after a 1, looks
    plural; a word in _STOP ends the search, and short words (units such as ms) are left alone."""
    if "(s)" not in text and not re.search(r"(?<![\w.,])1[ \n]", text):
        return text
    return _COUNTED.sub(_agree, text)


def _agree(match: re.Match[str]) -> str:
    count, tail = match.groups()
    one = count == "1"
    words = re.split(r"([ \n])", tail)  # ["", " ", "word", "\n", "word"...]: the separators kept
    for i in range(2, len(words), 2):
        word = words[i]
        if word.endswith("(s)"):
            words[i] = word[:-3] + ("" if one else "s")
            break
        if word.lower() in _STOP:
            break
        singular = _singular(word) if one else None
        if singular is not None:
            words[i] = singular
            break
    return count + "".join(words)


def _singular(word: str) -> str | None:
    """The singular of a plural-looking word of four letters or more, None for any other word."""
    lower = word.lower()
    if len(word) < 4 or not lower.endswith("s") or lower.endswith(("ss", "us", "is")):
        return None
    if lower.endswith("ies"):
        return word[:-3] + "y"
    if lower.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1]


def fill(seg: Placeholder, values: Mapping[str, Any]) -> str:
    """One placeholder's text; a TemplateError points at the placeholder. A checker that knows the other
    placeholders of a prompt always fill calls this for the rest instead of rendering the whole prompt."""
    if seg.name not in values:
        known = ", ".join(sorted(values)) or "none"
        raise TemplateError(
            f"placeholder {seg.text} has no parameter (params: {known})", offset=seg.offset, name=seg.name
        )
    try:
        value = values[seg.name]
        if seg.fields:
            value = lookup(value, seg.fields, name=seg.name)
        return render_value(value, seg.spec, what=seg.text)
    except TemplateError as exc:
        raise TemplateError(exc.message, offset=seg.offset, name=seg.name) from None


def render_value(value: Any, spec: str = "", *, what: str = "value") -> str:
    """Writes one value for a prompt: numbers plainly (or by `spec`), lists joined, matrices as a block."""
    kind = type(value)
    if not spec and (kind is str or kind is int):  # the common cases first: every prompt of every seed
        return value if kind is str else str(value)
    if spec:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise TemplateError(f"{what}: a format spec needs a number or text, got {_describe(value)}")
        try:
            return format(value, spec)
        except ValueError as exc:
            raise TemplateError(f"{what}: format spec {spec!r} does not fit {value!r} ({exc})") from None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    if is_matrix(value):
        return render_matrix(value)
    if isinstance(value, (list, tuple)) and all(_is_scalar(v) for v in value):
        return ", ".join(render_value(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and hasattr(value, "name"):
        return str(value.name)
    raise TemplateError(f"{what} is {_describe(value)}; name one of its fields, like {{param.field}}")


def is_matrix(value: Any) -> bool:
    """True for a non-empty list of equally long, non-empty lists of numbers."""
    if not isinstance(value, (list, tuple)) or not value:
        return False
    if not all(isinstance(row, (list, tuple)) and row for row in value):
        return False
    width = len(value[0])
    for row in value:
        if len(row) != width:
            return False
        for x in row:  # exact ints and floats first: the cells of every drawn matrix
            if type(x) not in (int, float) and (isinstance(x, bool) or not isinstance(x, (int, float))):
                return False
    return True


def render_matrix(rows: Any) -> str:
    """A matrix as a fenced block in NumPy's bracket style, columns right-aligned."""
    cells = [[render_value(x) for x in row] for row in rows]
    width = max(len(c) for row in cells for c in row)
    lines = []
    for i, row in enumerate(cells):
        body = ", ".join(c.rjust(width) for c in row)
        opener = "[[" if i == 0 else " ["
        closer = "]]" if i == len(cells) - 1 else "],"
        lines.append(f"{opener}{body}{closer}")
    return "```\n" + "\n".join(lines) + "\n```"


@lru_cache(maxsize=64)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, str, bool))


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(str(k) for k in value)
        return f"a group of values ({keys})"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    if dataclasses.is_dataclass(value):
        return f"a {type(value).__name__}"
    return f"a {type(value).__name__} ({value!r})"
