"""Paste lookup: find the records whose messages appear in a pasted log.

``build_index`` turns a :class:`~errorkb.records.Catalogue` into a :class:`LookupIndex`; its
``to_json`` form is what the site ships to the browser (``static/lookup-core.js`` runs the same
algorithm) and what ``errorkb lookup --index`` reads.  ``lookup`` runs one paste:

1. The paste is normalised: capped in size, ANSI escapes and carriage returns removed, cut into
   lines, common log prefixes (timestamps, ``[rank3]:``, ``container |``) dropped, long lines cut.
2. Every line, and every pair of adjacent lines joined with one space (wrapped messages), is
   matched exactly: a template is tried on a line only when the line holds its rarest literal
   word (the one with the lowest document frequency over all templates) and all its other
   words.  Exact matches rank first, the more specific template first, then the earliest.
3. When nothing matches exactly, records are ranked by BM25 over their literal words, titles,
   codes, ids and examples (any word counts) and labelled closest, not exact.

Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from .templates import WORD, Template, Value, compile_template, js_patterns, parse

if TYPE_CHECKING:  # the records' model (pydantic, YAML) is not needed to search a built index
    from .records import Catalogue, Record

INDEX_VERSION = 2
#: Longest paste searched, in characters; a longer one is cut to its end (errors come last).
MAX_PASTE = 256 * 1024
#: Longest line searched; longer lines are cut.
MAX_LINE_CHARS = 2000
#: Characters the exact matchers may scan for one paste before the search stops.
MAX_SCAN = 4_000_000
#: BM25 parameters of the closest-match ranking.
BM25_K1 = 1.2
BM25_B = 0.75

_ANSI = re.compile(r"\x1b\[[0-?]{0,64}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# Control characters, and the no-break and other Unicode spaces that copying from a web page
# leaves in a paste: all become plain spaces, which templates match.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_LOG_PREFIX = re.compile(
    r"^[ \t]{0,8}(?:"
    r"\[rank[0-9]{1,6}\]:?"  # torchrun: [rank3]:
    r"|[0-9]{4}-(?:[0-9]{2}|[A-Z][a-z]{2})-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?:?"
    r"|[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}[ \t]{1,8}[0-9]{1,10} [A-Za-z0-9_.\-]{1,128}:[0-9]{1,7}\]"  # glog
    r"|[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}[ \t]{1,32}\|"  # docker compose: service  |
    r")[ \t]{0,32}"
)
_TERM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ---------------------------------------------------------------------------------------------
# The index


@dataclasses.dataclass
class Entry:
    """One template of one record, with the rarest of its words, which short-lists it."""

    record: int  # index into LookupIndex.records
    text: str
    key: str | None  # the rarest of ``words``; None: tried on every line
    compiled: Template | None = None

    @property
    def template(self) -> Template:
        """Compiled on first use: a search compiles only the templates it short-lists."""
        if self.compiled is None:
            self.compiled = compile_template(self.text)
        return self.compiled

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        """Whole literal words (lower case) every matching line contains."""
        return whole_words(self.template) if self.key is not None else ()

    @property
    def specificity(self) -> int:
        return self.template.specificity


@dataclasses.dataclass
class Bm25:
    """Term statistics of the closest-match ranking."""

    docs: list[dict[str, int]]  # per record: term -> frequency
    lengths: list[int]
    avgdl: float
    idf: dict[str, float]


@dataclasses.dataclass
class LookupIndex:
    records: list[dict[str, Any]]  # id, code, title, url, fixes (first fix titles)
    entries: list[Entry]  # in the order of their records
    words: list[str]  # per record: the words of its aliases and examples that the ranking reads

    def __post_init__(self) -> None:
        self.by_key: dict[str, list[int]] = {}
        self.always: list[int] = []
        for i, entry in enumerate(self.entries):
            if entry.key is None:
                self.always.append(i)
            else:
                self.by_key.setdefault(entry.key, []).append(i)

    @functools.cached_property
    def bm25(self) -> Bm25:
        """Worked out on the first search that finds no exact match."""
        parts = [[rec["id"], rec["code"], rec["title"], words] for rec, words in zip(self.records, self.words)]
        for entry in self.entries:
            parts[entry.record].append(parse_literal_text(entry.text))
        docs = [_term_counts("\n".join(p)) for p in parts]
        lengths = [sum(doc.values()) for doc in docs]
        doc_freq: dict[str, int] = {}
        for doc in docs:
            for term in doc:
                doc_freq[term] = doc_freq.get(term, 0) + 1
        n = len(docs)
        idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in doc_freq.items()}
        return Bm25(docs, lengths, sum(lengths) / n if n else 1.0, idf)

    def to_json(self) -> dict[str, Any]:
        """The index as shipped to the browser; ``from_json`` reads it back.

        One array per record: ``[id, code, title, url, fixes, words, templates]``, each template
        ``[text, key]``.  What can be worked out from the template text (its matcher, placeholder
        names and types, words, the ranking's term counts) is left out, and of the aliases and
        examples only the words that give terms; ``patterns`` gives the browser each placeholder
        type's pattern to compile the templates with.
        """
        rows = [[rec["id"], rec["code"], rec["title"], rec["url"], rec["fixes"], words, []]
                for rec, words in zip(self.records, self.words)]
        for e in self.entries:
            rows[e.record][-1].append([e.text, e.key])
        return {"version": INDEX_VERSION, "patterns": js_patterns(), "records": rows}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "LookupIndex":
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
            raise ValueError(f"not an errorkb lookup index of version {INDEX_VERSION}")
        records, entries, words = [], [], []
        for r, (id_, code, title, url, fixes, record_words, templates) in enumerate(data["records"]):
            records.append({"id": id_, "code": code, "title": title, "url": url, "fixes": fixes})
            words.append(record_words)
            entries += [Entry(r, text, key) for text, key in templates]
        return cls(records, entries, words)


def record_url(record: Record) -> str:
    """The record's page, relative to the site's root."""
    return re.sub(r"\.md$", ".html", record.path)


def build_index(catalogue: Catalogue, urls: dict[str, str] | None = None, fixes: int = 3) -> LookupIndex:
    """Index every template and record of ``catalogue``; ``urls`` maps ids to page URLs."""
    records: list[dict[str, Any]] = []
    pending: list[tuple[int, Template, tuple[str, ...]]] = []
    record_words: list[str] = []
    for r, record in enumerate(sorted(catalogue.records.values(), key=lambda rec: rec.id)):
        url = (urls or {}).get(record.id) or record_url(record)
        records.append({"id": record.id, "code": record.code or "", "title": record.title, "url": url,
                        "fixes": [f.title for f in record.fixes[:fixes]]})
        for templates in record.templates:
            for template in templates:
                pending.append((r, template, whole_words(template)))
        record_words.append(ranking_words([*record.aliases, *(e.text for message in record.messages for e in message.examples)]))
    df: dict[str, int] = {}
    for _, _, words in pending:
        for w in words:
            df[w] = df.get(w, 0) + 1
    entries = [
        Entry(r, t.text, min(words, key=lambda w: (df[w], -len(w), w)) if words else None, t)
        for r, t, words in pending
    ]
    return LookupIndex(records, entries, record_words)


def whole_words(template: Template) -> tuple[str, ...]:
    """The template's whole words (see ``Template.whole_words``) of 3+ characters, lower case."""
    return tuple(sorted({w.lower() for w in template.whole_words if len(w) >= 3}))


def parse_literal_text(text: str) -> str:
    """A template's literal text, as ``Template.literal_text``, without compiling its matcher."""
    segments, _ = parse(text)
    return "".join(s for s in segments if isinstance(s, str))


def ranking_words(texts: list[str]) -> str:
    """The words of ``texts`` that give terms, lower case, in order: ``terms`` of the result
    are ``terms`` of the texts, and the numbers and punctuation of examples are left out."""
    return " ".join(word for text in texts for word in (m.lower() for m in _TERM.findall(text)) if terms(word))


def terms(text: str) -> list[str]:
    """BM25 terms: words starting with a letter, lower case; ``A_B`` also gives ``a`` and ``b``."""
    out: list[str] = []
    for m in _TERM.finditer(text):
        word = m.group().lower()
        if len(word) >= 2:
            out.append(word)
        if "_" in word:
            out += [part for part in word.split("_") if len(part) >= 2 and not part[0].isdigit()]
    return out


def _term_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in terms(text):
        counts[term] = counts.get(term, 0) + 1
    return dict(sorted(counts.items()))


# ---------------------------------------------------------------------------------------------
# A paste


@dataclasses.dataclass(frozen=True)
class Line:
    number: int  # 0-based, in the normalised paste
    text: str


def normalise(paste: str) -> tuple[list[Line], list[str]]:
    """Cut a paste into searchable lines; return them and notices about what was left out."""
    notices: list[str] = []
    if len(paste) > MAX_PASTE:
        notices.append(f"The paste has {len(paste):,} characters; only its last {MAX_PASTE:,} were searched.")
        paste = paste[-MAX_PASTE:]
    paste = _ANSI.sub("", paste).replace("\r\n", "\n").replace("\r", "\n")
    paste = _CONTROL.sub(" ", paste)
    lines: list[Line] = []
    cut = 0
    for number, text in enumerate(paste.split("\n")):
        for _ in range(3):  # prefixes stack: a timestamp, then [rank0]:
            m = _LOG_PREFIX.match(text)
            if not m or not m.group():
                break
            text = text[m.end():]
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS]
            cut += 1
        if text.strip():
            lines.append(Line(number, text))
    if cut:
        notices.append(f"{cut} line(s) longer than {MAX_LINE_CHARS:,} characters were cut.")
    return lines, notices


def looks_binary(paste: str) -> bool:
    """True for data that is not text: NUL bytes, or many control or undecodable characters."""
    if "\x00" in paste:
        return True
    sample = paste[:8192]
    odd = sum(1 for c in sample if (c < " " and c not in "\t\n\r\x1b") or c == "\ufffd")
    return odd > len(sample) * 0.1


@dataclasses.dataclass
class Match:
    """One record found in a paste."""

    record: dict[str, Any]
    exact: bool
    score: float
    values: dict[str, Value]
    line: int | None = None  # first line of the matched text, 0-based in the normalised paste
    lines: int = 0  # how many lines the matched text spans (1, or 2 for a wrapped message)
    text: str = ""  # the line (or the two joined lines) that matched
    span: tuple[int, int] = (0, 0)  # the matched part of ``text``
    template: str = ""

    @property
    def explanation(self) -> dict[str, Any] | None:
        return explain(self.values)

    def as_json(self) -> dict[str, Any]:
        """The entry of ``errorkb lookup --json``."""
        return {"id": self.record["id"], "code": self.record["code"] or None, "title": self.record["title"],
                "score": self.score, "exact": self.exact,
                "values": {k: v.as_json() for k, v in self.values.items()}, "url": self.record["url"]}


@dataclasses.dataclass
class Result:
    matches: list[Match]
    notices: list[str]

    @property
    def exact(self) -> bool:
        return any(m.exact for m in self.matches)


def lookup(index: LookupIndex, paste: str, top: int = 5) -> Result:
    """Find the records whose messages appear in ``paste``, best first."""
    if not paste.strip():
        return Result([], ["The paste is empty."])
    if looks_binary(paste):
        return Result([], ["The paste looks like binary data, not text; nothing was searched."])
    lines, notices = normalise(paste)
    matches = exact_matches(index, lines, notices)
    if not matches:
        matches = closest(index, lines)
    return Result(matches[:top], notices)


def exact_matches(index: LookupIndex, lines: list[Line], notices: list[str]) -> list[Match]:
    """Records with a template that matches a line or two adjacent lines joined."""
    words = [set(w.lower() for w in WORD.findall(line.text)) for line in lines]
    hits: dict[int, tuple[Line, int, str, Any]] = {}  # entry -> (first line, lines spanned, text, match)
    seen: set[str] = set()
    budget = MAX_SCAN
    for i, line in enumerate(lines):
        # The line alone, then joined to the one before: a message found whole in one line is
        # reported on that line, not on the pair.
        tries = [(line, line.text, words[i], 1)]
        if i > 0 and lines[i - 1].number == line.number - 1:
            tries.append((lines[i - 1], lines[i - 1].text + " " + line.text, words[i - 1] | words[i], 2))
        for first, text, present, span in tries:
            if text in seen:
                continue
            seen.add(text)
            for e in _candidates(index, present):
                if e in hits:
                    continue
                entry = index.entries[e]
                if not all(w in present for w in entry.words):
                    continue
                budget -= len(text)
                if budget < 0:
                    notices.append("The paste was too long to search completely; the search stopped early.")
                    return _rank(index, hits)
                m = entry.template.regex.search(text)
                if m:
                    hits[e] = (first, span, text, m)
    return _rank(index, hits)


def _candidates(index: LookupIndex, present: set[str]) -> list[int]:
    found: set[int] = set(index.always)
    for w in present:
        found.update(index.by_key.get(w, ()))
    return sorted(found)


def _rank(index: LookupIndex, hits: dict[int, tuple[Line, int, str, Any]]) -> list[Match]:
    best: dict[int, tuple[tuple[int, int, int, int], int]] = {}
    for e, (line, span, _, _) in hits.items():
        entry = index.entries[e]
        key = (-entry.specificity, line.number, span, e)
        if entry.record not in best or key < best[entry.record][0]:
            best[entry.record] = (key, e)
    matches = []
    for key, e in sorted(best.values()):
        entry = index.entries[e]
        line, span, text, m = hits[e]
        values = {ph.name: Value.parse(ph.type, m.group(f"p{i}")) for i, ph in enumerate(entry.template.placeholders)}
        matches.append(Match(index.records[entry.record], True, float(entry.specificity), values,
                             line.number, span, text, m.span(), entry.text))
    return matches


def closest(index: LookupIndex, lines: list[Line]) -> list[Match]:
    """BM25 over the records' words: any query word counts; labelled closest, not exact."""
    query = sorted({t for line in lines for t in terms(line.text)})
    bm = index.bm25
    scores: list[tuple[float, int]] = []
    for r, doc in enumerate(bm.docs):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * bm.lengths[r] / bm.avgdl)
        score = 0.0
        for term in query:
            tf = doc.get(term)
            if tf:
                score += bm.idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
        if score > 0:
            scores.append((-score, r))
    return [Match(index.records[r], False, round(-s, 4), {}) for s, r in sorted(scores)]


# ---------------------------------------------------------------------------------------------
# What the numbers mean


def fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, an exact tie rounded up: as JavaScript's ``toFixed`` does.

    Python's own formatting rounds ties to even (1.125 -> "1.12"), the browser up ("1.13").
    """
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def format_bytes(n: float) -> str:
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n) >= factor:
            return f"{fixed(n / factor, 2)} {unit}"
    return f"{fixed(n, 0)} bytes"


def explain(values: dict[str, Value]) -> dict[str, Any] | None:
    """Read conventionally named sizes: how far short the device is, and what would close it.

    ``used`` or ``requested`` against ``capacity`` (or ``limit``) gives the ratio and the
    shortfall (``excess`` when the message states it); ``requested`` against ``free`` gives the
    shortfall of one allocation.  Returns ``{"ratio", "shortfall", "text"}`` or None.
    """
    def size(name: str) -> float | None:
        v = values.get(name)
        return v.number if v is not None and v.type == "size" else None

    need = size("used") or size("requested")
    capacity = size("capacity") or size("limit")
    excess = size("excess")
    requested, free = size("requested"), size("free")
    if not need and capacity and excess:
        need = capacity + excess
    if need and capacity and need > capacity:
        shortfall = excess or need - capacity
        ratio = need / capacity
        pct = shortfall / need * 100
        text = (f"Needs {fixed(ratio, 2)}x this device's memory: {format_bytes(need)} against "
                f"{format_bytes(capacity)}, {format_bytes(shortfall)} short. To fit, peak memory must "
                f"shrink by at least {fixed(pct, 0)}%")
        if ratio <= 2:
            text += "; halving the largest arrays (bfloat16) or the batch can be enough."
        else:
            text += "; halving is not enough, so look for an unsharded array or an unexpected large allocation first."
        return {"ratio": round(ratio, 4), "shortfall": shortfall, "text": text}
    if requested and free is not None and requested > free:
        shortfall = requested - free
        text = f"Asked for {format_bytes(requested)} with {format_bytes(free)} free: {format_bytes(shortfall)} short."
        if capacity and requested < capacity:
            pct = requested / capacity * 100
            text += (f" The request is {fixed(pct, 1)}% of the device's {format_bytes(capacity)}: most memory is already "
                     "held, so free or defragment what is held rather than only shrinking this request.")
        return {"ratio": None, "shortfall": shortfall, "text": text}
    return None
