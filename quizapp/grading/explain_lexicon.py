"""Provides the general reading steps every question's forms share: a concept lexicon, light lemmas, spelling,
symbols and typos, so a point stated in other words is recognised without a form written for those words.

- The lexicon: groups of words and phrases that say the same thing ("grows", "increases", "gets bigger").
  A plain word or phrase of any accepted or rejected form that is a member of a group also matches every
  other member (and the group's `>` extras, which match but never widen: `memory` accepts `vram`, not the
  other way round). Groups hold ways of saying one thing, never a claim, and never a word whose meaning
  differs between topics (`reduce` is also the all-reduce; `block` is also a mask).
- Lemmas: `saturates`, `saturated`, `saturating` and `saturation` aside, a form's `scaled` matches `scaling`
  and `scales` (a light suffix strip, `-ise` and `-ize` alike), so authors need not list each inflection.
- Symbols: `↑` is "increases", `↓` "decreases", `≪` "much less than", `∈` "in", `Σ` "sum", `½` "half".
- Typos: a word of at least TYPO_LENGTH letters with one letter wrong, missing, extra or two swapped
  (`saturaton`, `varaince`) is the word, when its first letter is right and it is not an opposite or negator.

Deterministic and cached: a form is expanded once, a text cut once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from quizapp.content.patterns import Either, Node, Optional, Phrase, Together, Word, compile_pattern
from quizapp.grading.explain_words import NAMES

TYPO_LENGTH = 6
"""Words shorter than this are never read as typos: `lower` and `power` are both words."""

SYMBOLS: dict[str, str] = {
    "↑": " increases ",
    "⬆": " increases ",
    "↓": " decreases ",
    "⬇": " decreases ",
    "≪": " much less than ",
    "≫": " much more than ",
    "∈": " in ",
    "∧": " and ",
    "∨": " or ",
    "¬": " not ",
    "Σ": " sum ",
    "∑": " sum ",
    "½": " half ",
    "¼": " quarter ",
    "÷": " divided by ",
    "⇔": " so ",
    "⟹": " so ",
    "↦": " to ",
    "⟶": " to ",
    "$": " cache ",
    "w/o": " without ",
    "≡": " same as ",
    "∀": " for all ",
    "±": " plus or minus ",
    "α": " alpha ",
    "β": " beta ",
    "ρ": " rho ",
}
"""Symbols a terse answer uses for words (`KV$` is the KV cache), spelled out before the words are read."""
_SYMBOL = re.compile("|".join(map(re.escape, SYMBOLS)))


def spell_symbols(piece: str) -> str:
    """`piece` (a run of text without spaces) with its symbols spelled as words."""
    return _SYMBOL.sub(lambda m: SYMBOLS[m.group()], piece) if _SYMBOL.search(piece) else piece


GROUPS: tuple[str, ...] = (
    # how things change
    "grow* | grew | increas* | get* bigger | get* larger | go* up | goes up | scale* up | rise* | rose"
    " | balloon*",
    "shrink* | shrank | decreas* | get* smaller | go* down | goes down | drop* | fall* | fell | made smaller"
    " | made any smaller",
    "larger | bigger | greater",
    "double* | twice | 2x | 2 times | factor of 2",
    "halv* | half | 2x less | 50 percent",
    "large | big | huge",
    "small | tiny | little",
    "exact* | identical | exactly same | bit for bit",
    "constant | fixed",
    "bounded | capped",
    "proportional* | linear* in | scales with",
    # what is stored and where
    "memory | mem > vram | hbm | gpu memory | device memory",
    "hbm | high bandwidth memory | global memory | main memory | off chip memory | dram | gpu memory"
    " | device memory",
    "sram | shared memory | smem | on chip memory | on chip",
    "cache* | cached > stored | saved | kept",
    "recomput* | recalculat* | rebuild* | rebuilt | redo* | regenerat* | recreat*",
    "stor* > keep* | kept | saved | cach* | hold*",
    "fetch* | load* | read* from memory",
    # the parts of attention
    "dk | d k | dh | d h | dhead | d head | head dim* | head size | head width | key size | key dim*"
    " | dim* per head | per head dim* | size of each head | dimension of each head",
    "dmodel | d model | model dim* | hidden size | hidden dim* | embedding dim* | model width"
    " | width of model | residual width | hidden width",
    "sequence length | seq len | context length | context size | number of tokens | prompt length",
    "variance | var | spread",
    "std | standard deviation | σ | sigma | typical size | magnitude",
    "softmax | soft max",
    "logit* | score* | raw score* | attention score*",
    "probabilit* | attention weight* | attention prob*",
    "gradient* | grad | grads | gradients",
    "backward | bwd | backward pass",
    "forward | fwd | forward pass",
    "vanish* | near 0 | close to 0 | nearly 0 | almost 0 | disappear*",
    "matmul* | matrix multipl* | gemm* | matrix product*",
    "all reduce | allreduce",
    "query | queries | q",
    "key | keys | k",
    "value | values | v",
    "kv cache | key value cache | kv store | k v cache | cached keys and values | stored keys and values"
    " | cached k and v | key value memory > attention history | stored history",
    "several | multiple | a few | handful",
    "send* | sent | ship* | transmit* | scatter*",
    "kv head* | key value head* | k v head*",
    "parameter* | param*",
    "flop* | floating point operation*",
    "arithmetic intensity | flops per byte | flop per byte | ops per byte",
    "memory bound | bandwidth bound | io bound | memory limited | bandwidth limited | bw bound | hbm bound"
    " | mem bound | limited by bandwidth | limited by memory bandwidth | bound by bandwidth"
    " | limited by how fast you can read | limited by how fast you can stream"
    " | limited by how fast you can fetch | limited by how fast you can load",
    "latency > fixed cost* | startup cost* | startup time* | fixed overhead* | per message overhead*"
    " | per hop cost*",
    "bubble > idle time | idle fraction | pipeline idle",
    "micro batch* | microbatch* | mb | mbs",
    "rho > utilis* | utiliz*",
    "utili* | util",
    "compute bound | compute limited | flop bound | math bound | limited by compute | limited by arithmetic"
    " | limited by math | bound by compute",
    "quadratic* | squared in | square of",
    "squared > 2 | square",
    "token* > word*",
    "tile* > block* | chunk*",
    "concatenat* | concat* | stack* | join*",
    "transpos* > permut* | swap* axes",
    "reshap* > view | rearrang*",
    "shard* | partition* | split*",
    "replicat* | duplicat* | copied | copy | copies",
    "previous | earlier | preceding | prior | past",
    "subsequent | later | upcoming | future",
    "diagonal | diag",
    "approximat* | estimat* | approx",
    "normalis* | normaliz*",
    "quantis* | quantiz*",
    "fine tun* | finetun*",
    "accuracy | quality",
    "does not | do not | did not",
    "tensor core* | matrix unit* | matmul unit*",
    "attend* to | look* at | pay* attention to",
)
"""The concept lexicon (see the module docstring): each group in the pattern language, `|` between its
members, `>` before extras that a member matches but that never stand for the group."""


# --------------------------------------------------------------------------- lemmas


_DOUBLED = re.compile(r"([b-df-hj-np-tv-z])\1$")


IRREGULAR = {
    "built": "build",
    "made": "make",
    "kept": "keep",
    "held": "hold",
    "sent": "send",
    "spent": "spend",
    "brought": "bring",
    "bought": "buy",
    "thought": "think",
    "taught": "teach",
    "paid": "pay",
    "chose": "choos",
    "chosen": "choos",
    "grew": "grow",
    "grown": "grow",
    "knew": "know",
    "known": "know",
    "shown": "show",
    "drew": "draw",
    "drawn": "draw",
    "threw": "throw",
    "thrown": "throw",
    "wrote": "writ",
    "written": "writ",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "broke": "break",
    "broken": "break",
    "began": "begin",
    "begun": "begin",
    "lost": "lose",
    "found": "find",
    "meant": "mean",
    "fed": "feed",
}
"""Past forms that share no stem with their verb ("built from", "kept around"): each is read as its verb's
lemma, so a form that says `build` or `keep` finds it."""


@cache
def lemma(word: str) -> str:
    """A light lemma shared by a word's inflections: `scaled`, `scales`, `scaling` and `scale` give `scal`,
    `normalized` and `normalised` give `normalis`, `built` gives `build` (IRREGULAR). Short words and
    numbers stay as they are."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) < 5 or not word.isalpha():
        return word
    word = re.sub(r"iz(e|ed|es|ing|ation|ations)$", r"is\1", word)
    for suffix in ("ations", "ation", "ing", "ied", "ies", "ed", "es", "e", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if suffix in ("ied", "ies"):
                return base + "y"
            if suffix in ("ing", "ed") and _DOUBLED.search(base) and not base.endswith(("ll", "ss")):
                base = base[:-1]
            return base
    return word


# --------------------------------------------------------------------------- typos


def deletions(word: str) -> set[str]:
    """The word and the word with each one letter taken out: two words within one typo share one of these."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def one_typo_apart(a: str, b: str) -> bool:
    """True when `a` and `b` differ by one letter changed, added, dropped or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


# --------------------------------------------------------------------------- the lexicon


@cache
def _groups() -> tuple[tuple[tuple[tuple[Word, ...], ...], Node], ...]:
    """Each group as its members (word sequences that trigger it) and the node that matches any of them."""
    out = []
    for group in GROUPS:
        members_text, _, extras_text = group.partition(">")
        members = [m.strip() for m in members_text.split("|")]
        extras = [m.strip() for m in extras_text.split("|")] if extras_text else []
        sequences: list[tuple[Word, ...]] = []
        for member in members:
            root = compile_pattern(member).root
            words = (root,) if isinstance(root, Word) else root.parts if isinstance(root, Phrase) else ()
            if words and all(isinstance(w, Word) for w in words):
                sequences.append(tuple(w for w in words if isinstance(w, Word)))
        node = compile_pattern(" | ".join(members + extras)).root
        out.append((tuple(sequences), node))
    return tuple(out)


def _same_word(form: Word, member: Word) -> bool:
    """True when the form's word is the member (a prefix member takes any word it starts)."""
    if member.prefix:
        return form.text.startswith(member.text)
    return not form.prefix and (form.text == member.text or lemma(form.text) == lemma(member.text))


@cache
def _index() -> tuple[
    dict[str, list[tuple[tuple[Word, ...], Node]]], list[tuple[str, tuple[Word, ...], Node]]
]:
    """The groups' members by their first word's lemma, and those whose first word is a prefix."""
    by_lemma: dict[str, list[tuple[tuple[Word, ...], Node]]] = {}
    by_prefix: list[tuple[str, tuple[Word, ...], Node]] = []
    for sequences, node in _groups():
        for seq in sequences:
            if seq[0].prefix:
                by_prefix.append((seq[0].text, seq, node))
            else:
                by_lemma.setdefault(lemma(seq[0].text), []).append((seq, node))
    return by_lemma, by_prefix


def _group_at(parts: tuple[Node, ...], at: int) -> tuple[int, Node] | None:
    """The longest group member that the words from `parts[at]` on spell, as (how many words, group node)."""
    first = parts[at]
    if not isinstance(first, Word):
        return None
    by_lemma, by_prefix = _index()
    candidates = [] if first.prefix else list(by_lemma.get(lemma(first.text), ()))
    candidates += [(seq, node) for prefix, seq, node in by_prefix if first.text.startswith(prefix)]
    best: tuple[int, Node] | None = None
    for seq, node in candidates:
        n = len(seq)
        if best is not None and n <= best[0]:
            continue
        window = parts[at : at + n]
        if len(window) == n and all(
            isinstance(p, Word) and _same_word(p, w) for p, w in zip(window, seq, strict=True)
        ):
            best = (n, node)
    return best


def _regrouped(node: Node, walk: Callable[[Node], Node]) -> Node | None:
    """`node` rebuilt with `walk` applied to each of its parts when it only groups others (an optional
    part, alternatives, two parts together); None for a word or a phrase, which each walk reads its way."""
    if isinstance(node, Optional):
        return Optional(walk(node.part))
    if isinstance(node, Either):
        return Either(tuple(walk(o) for o in node.options))
    if isinstance(node, Together):
        return Together(walk(node.left), walk(node.right), node.scope, node.ordered)
    return None


@cache
def read_names(node: Node) -> Node:
    """`node` with each phrase that is a name (explain_words.NAMES: "not a number") read as its one word,
    as explain_text reads an answer: a form's "not a number" finds the NaN the answer names."""
    grouped = _regrouped(node, read_names)
    if grouped is not None:
        return grouped
    if not isinstance(node, Phrase):
        return node
    parts: list[Node] = []
    at = 0
    while at < len(node.parts):
        for name, word in NAMES.items():
            window = node.parts[at : at + len(name)]
            if len(window) == len(name) and all(
                isinstance(p, Word) and not p.prefix and p.text == w
                for p, w in zip(window, name, strict=True)
            ):
                parts.append(Word(word))
                at += len(name)
                break
        else:
            parts.append(read_names(node.parts[at]))
            at += 1
    return parts[0] if len(parts) == 1 else Phrase(tuple(parts))


@cache
def expand(node: Node) -> Node:
    """`node` with every word or phrase of the lexicon widened to its group (the form itself still matches
    as written). Cached: the same node objects come back, so matches are memoised across forms."""
    if isinstance(node, Word):
        found = _group_at((node,), 0)
        return node if found is None else Either((node, found[1]))
    grouped = _regrouped(node, expand)
    if grouped is not None:
        return grouped
    if not isinstance(node, Phrase):  # a Word: handled above
        return node
    parts: list[Node] = []
    at = 0
    while at < len(node.parts):
        found = _group_at(node.parts, at)
        if found is not None and found[0] > 1:
            n, group = found
            parts.append(Either((Phrase(node.parts[at : at + n]), group)))
            at += n
            continue
        parts.append(expand(node.parts[at]))
        at += 1
    return Phrase(tuple(parts))
