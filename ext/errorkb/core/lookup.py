"""Paste lookup: find the records whose messages appear in a pasted log.

``build_index`` turns a :class:`~errorkb.core.records.Catalogue` into a :class:`LookupIndex`; its
``to_json`` form is what the site ships to the browser (``static/errorkb-lookup-core.js`` runs the same
algorithm, with the constants below read from the index) and what ``errorkb lookup --index``
reads.  ``lookup`` runs one paste:

1. The paste is normalised: cut to its last ``MAX_PASTE`` characters and ``MAX_LINES`` lines,
   ANSI escapes removed, carriage returns made line ends, control characters dropped, format
   characters (zero-width, bidi marks) removed, Unicode spaces made plain spaces, cut into lines,
   common log prefixes (timestamps, ``[rank3]:``, glog headers, ``container |``) dropped, lines
   longer than ``MAX_LINE_CHARS`` cut.  It is refused as binary only when most of it is not text.
2. Every line is matched exactly, and, where a line alone gives a template nothing, so is the
   line joined with one space to the line before or after it (a wrapped message), for a match
   that crosses the join.  A template is tried on a line only when the line holds its rarest
   literal word (lowest document frequency over all templates; any line where it has no whole
   word) and its least likely literal run (``matcher.py``, shared with the record checks and the
   snippet judge); templates are linear (``templates/``), so the whole search is linear in the
   paste.  A line repeated (its log prefix's numbers aside) is matched once, at its last copy,
   where its match would stand among equals.
3. Each occurrence gets a standing from what precedes it in its line: an *error line* when an
   exception class or status label (``RuntimeError:``, ``RESOURCE_EXHAUSTED:``) or a log level
   (``ERROR``, ``FATAL``, glog's ``E``/``F``) comes before it, or nothing does; a *mention* when,
   after the last of those, a hint word (``if``, ``try``, ``see`` ...) comes before it, or a
   quotation opened in a sentence or a call (``said "...``, ``print("...``; not a value in data,
   ``"error": "...``, nor a class built from it, ``WorkerLostError('...``); any other line
   otherwise.  Mentions are not exact matches.
4. A record's code, id or alias named in a line is an exact match too, more specific than any
   template: alone, in a sentence or in a log, as a token (or the end of a dotted one) or, a
   code of several words (``HTTP 413``), whole with any blanks between its words; but not as
   the label of a message that a template matched (``Name: the message``), and an all-digit
   code only when the paste is one line.
5. Exact matches rank records named in the paste first, then by specificity (the template's
   literal characters), then standing (error lines first), then position; a record whose
   best occurrence is a summary line (a message marked ``summary_line``) comes after the
   others, as *also*; so it does when an error line that no record matched comes before it
   (the paste says why in words the catalogue does not know).  Each record comes once, at its
   best occurrence in the same order, a template's match before its name and the last
   occurrence among equals.  When nothing matches exactly, the paste is told the kind of error
   it looks like (``triage.py``), and records of that kind are ranked by BM25 over their
   literal words, titles, codes, ids and examples, after any *also* match, labelled closest.
6. An exact match by a template carries the values it read (each with its label in words), the
   record's readings and diagnoses that those values meet, and the record's fixes in the order
   they call for: diagnosed first, ruled out last (``diagnoses.py``).

Nothing here imports Sphinx.
"""

from __future__ import annotations

import collections
import functools
import math
import re
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from . import diagnoses
from .gc_pause import gc_paused
from .matcher import RANK_KEY, Candidate, LineMatcher, LineWords, keys_for, whole_words
from .triage import classify, cue_matcher
from .values import SIZE_PARTS, UNIT_FACTORS, Field, Value, values_of
from .words import WORD

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence, Set

    from .kinds import Kind
    from .templates import Template

    class Record(Protocol):
        """What the index reads of a record (:class:`errorkb.core.records.Record`): the lookup
        needs neither the records' model (pydantic, YAML) nor its module."""

        @property
        def id(self) -> str: ...
        @property
        def code(self) -> str | None: ...
        @property
        def codes(self) -> tuple[str, ...]: ...
        @property
        def title(self) -> str: ...
        @property
        def path(self) -> str: ...
        @property
        def aliases(self) -> list[str]: ...
        @property
        def templates(self) -> tuple[Template, ...]: ...
        @property
        def messages(self) -> list[Any]: ...
        @property
        def fixes(self) -> tuple[Any, ...]: ...
        @property
        def diagnoses(self) -> list[dict[str, Any]]: ...
        @property
        def readings(self) -> list[dict[str, Any]]: ...
        @property
        def labels(self) -> dict[str, str]: ...
        @property
        def costs(self) -> list[str]: ...
        def values(self, name: str) -> list[str]: ...

    class Catalogue(Protocol):
        @property
        def records(self) -> Mapping[str, Record]: ...

INDEX_VERSION = 9
#: Longest paste searched, in characters; a longer one is cut to its end (errors come last).
MAX_PASTE = 10 * 1024 * 1024
#: Most lines searched; a paste with more is cut to its last ones.
MAX_LINES = 200_000
#: Longest line searched; longer lines are cut.
MAX_LINE_CHARS = 2000
#: Lines before a summary line searched for an error line that no record matched (``says_why``).
WHY_LINES = 400
#: Lines short-listing a template beyond which its longest literal run is looked for in the
#: whole paste at once (one fast scan) rather than in each of them.
SCAN_FROM = 1000
#: BM25 parameters of the closest-match ranking.
BM25_K1 = 1.2
BM25_B = 0.75
#: Words that are not terms of the closest-match ranking: those of the lines a Python traceback
#: is framed with ("Traceback (most recent call last):", ``File "...", line N, in <module>``,
#: "During handling of the above exception, another exception occurred", "The above exception
#: was the direct cause of the following exception"), which any traceback holds.
BM25_IGNORED = frozenset({"traceback", "most", "recent", "call", "last", "file", "line", "module", "during",
                          "handling", "above", "another", "occurred", "direct", "cause", "following"})
#: Which of a record's occurrences stands for it, the smallest key first (a rank key, as
#: ``matcher.RANK_KEY``): any before a summary line's, a template's match (it reads values)
#: before its name, then the most specific, the error line, and among equals the last one.
BEST = (("summary", 1), ("named", 1), ("specificity", -1), ("standing", -1), ("line", -1), ("start", -1),
        ("order", 1))
#: The order of the results: a summary line that yields to another record's match last, records
#: named in the paste first, then as ``matcher.RANK_KEY`` says.
ORDER = (("yields", 1), ("record_named", -1), *RANK_KEY)
#: Which of a record's template matches over the same text gives its values: the one with the
#: most placeholders, then as ``BEST`` says.
FULLEST = (("fields", -1), *BEST)

#: What a result says about the paste; ``{count}`` and ``{limit}`` are numbers with thousands separators.
NOTICES = {
    "empty": "The paste is empty.",
    "binary": "The paste looks like binary data, not text; nothing was searched.",
    "characters": "The paste has {count} characters; only its last {limit} were searched.",
    "lines": "The paste has {count} lines; only its last {limit} were searched.",
    "cut": "{count} line(s) longer than {limit} characters were cut.",
}


def notice(key: str, count: int = 0, limit: int = 0) -> str:
    return NOTICES[key].format(count=f"{count:,}", limit=f"{limit:,}")


# Character ranges (first, last code point), shipped in the index for the browser.
#: Unicode's format characters (category Cf): zero-width, bidi and other invisible marks.
FORMAT_CHARACTERS = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
#: Dropped from a paste: control characters but tab and line ends, and the format characters.
DROPPED = ((0x00, 0x08), (0x0E, 0x1F), (0x7F, 0x9F), *FORMAT_CHARACTERS)
#: Made plain spaces: vertical tab, form feed, and the no-break and other Unicode spaces that
#: copying from a web page leaves in a paste (templates match spaces and tabs).
SPACES = ((0x0B, 0x0C), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
          (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))
#: What is not text, counted to tell binary data: control characters but tab, line ends and
#: escape, and the replacement character that undecodable bytes become.
NOT_TEXT = ((0x00, 0x08), (0x0E, 0x1A), (0x1C, 0x1F), (0x7F, 0x9F), (0xFFFD, 0xFFFD))

#: Regular expressions shipped in the index, in Python's and JavaScript's (u flag) common syntax.
PATTERNS = {
    # ANSI escapes: colours, cursor moves, window titles.
    "ansi": r"\x1b\[[0-?]{0,64}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]",
    # Log prefixes, up to three stacked (multi-line flag): torchrun's [rank3]:, ISO and Neuron
    # timestamps, glog headers (also absl's before it is set up: "E0000 00:00:<epoch>.<us>", and
    # without time and thread, "E0101 factory.go:112]"), docker compose's "service  |".
    "prefix": (
        r"^(?:[ \t]{0,8}(?:"
        r"\[rank[0-9]{1,6}\]:?"
        r"|[0-9]{4}-(?:[0-9]{2}|[A-Z][a-z]{2})-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?:?"
        r"|[IWEF][0-9]{4}(?: [0-9]{2}:[0-9]{2}:[0-9]{2,10}\.[0-9]{1,9}[ \t]{1,8}[0-9]{1,10})? [A-Za-z0-9_.\-]{1,128}:[0-9]{1,7}\]"
        r"|[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}[ \t]{1,32}\|"
        r")[ \t]{0,32}){1,3}"
    ),
    # What makes a line an error line: a label before a colon or an equals sign, quoted or not
    # (an error when its name ends as error_name says), a log level word, or glog's E or F at
    # the start.
    "marker": (
        r"(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_.]{0,200})" r"""["']?""" r"(?:[ \t]{0,8}\([^()\n]{0,200}\))?[ \t]{0,8}[:=]"
        r"|(?<![A-Za-z0-9_])(?:ERROR|FATAL|CRITICAL|PANIC)(?![A-Za-z0-9_])"
        r"|^[ \t]*[EF](?:[0-9]{4})?(?![A-Za-z0-9_])"
    ),
    "error_name": r"(?:Error|Exception|Exhausted|Failure|Fault|ERROR|EXCEPTION|EXHAUSTED|FAILURE|FAILED|FATAL"
                  r"|error|exception|exhausted|failure|fatal)$",
    # Words of a hint about an error rather than the error itself (matched in lower case); not one
    # that a closing bracket ends, a name such as ONNX's operator in ``Op (If)``, nor a folder's
    # name in a path (``/srv/try/run.py``).
    "hint": r"(?<![A-Za-z0-9_/\\])(?:if|try|see|hint|tip|note|consider|please|encounter|avoids?|prevents?|instead"
            r"|whether|unless|e\.g|example|means|like)(?![A-Za-z0-9_)/\\])",
    # A class built with the quotation as its argument, as an exception's repr is printed
    # (``WorkerLostError('...``), but not one that code raises or throws.
    "class_call": r"(?<![A-Za-z0-9_])(?<!raise )(?<!throw )(?<!new )[A-Z][A-Za-z0-9_]{0,200}\($",
    # Quote marks; a straight or curved single quote between two letters or digits is an apostrophe.
    "quote": r"""["`“”«»]|(?<![A-Za-z0-9])['‘’]|['‘’](?![A-Za-z0-9])""",
    # The end of a sentence's plain word, before a quotation it opens (not a path, a number, a name with digits).
    "prose_word": r"(?:^|[ \t])[A-Za-z]+$",
    # What follows the exception's name that heads an IPython traceback.
    "traceback_header": r"[ \t]+Traceback \(most recent call last\)",
    # What comes before a name that code compares a value with (``e == cudaErrorCudartUnloading``).
    "compared": r"[=!]=[ \t]*$",
    # A string literal's prefix before its opening quote (Python's ``b'...'`` of a bytes repr).
    "literal_prefix": r"(?<![A-Za-z0-9_])(?:[bBrRuUfF]|[bBrR][rRbB])$",
    # Codes, ids and aliases as written in a line.
    "token": r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,200}[A-Za-z0-9_])?",
    # A line's words (short-listing), BM25's terms, a word character, a paste of blanks only.
    "word": WORD.pattern,
    "term": r"[A-Za-z_][A-Za-z0-9_]*",
    "word_char": r"[A-Za-z0-9_]",
    "blank": r"^[ \t\n\r\x0b\x0c]*$",
    # Digits only: a code such as 53300, named only in a one-line paste.
    "digits": r"^[0-9]+$",
}
#: Curved quotes and guillemets as the straight quote, or the opening mark, they close.
QUOTE_KINDS = {"‘": "'", "’": "'", "”": "“", "»": "«"}

# Standings of an occurrence (see the module's docstring): a mention is not an exact match.
MENTION, OTHER, ERROR = 0, 1, 2


def _table(ranges: tuple[tuple[int, int], ...], to: str | None) -> dict[int, str | None]:
    """A ``str.translate`` table from the characters of ``ranges`` to ``to``: much faster than a
    regular expression on long text."""
    return {c: to for first, last in ranges for c in range(first, last + 1)}


_ANSI = re.compile(PATTERNS["ansi"])
_PREFIX = re.compile(PATTERNS["prefix"], re.M)
_LATER_PREFIX = re.compile("\n" + PATTERNS["prefix"].removeprefix("^"))  # the same after a line end: found faster
_MARKER = re.compile(PATTERNS["marker"])
_ERROR_NAME = re.compile(PATTERNS["error_name"])
_HINT = re.compile(PATTERNS["hint"])
_QUOTE = re.compile(PATTERNS["quote"])
_CLASS_CALL = re.compile(PATTERNS["class_call"])
_LITERAL_PREFIX = re.compile(PATTERNS["literal_prefix"])
_PROSE_WORD = re.compile(PATTERNS["prose_word"])
_COMPARED = re.compile(PATTERNS["compared"])
_TRACEBACK_HEADER = re.compile(PATTERNS["traceback_header"])
_TOKEN = re.compile(PATTERNS["token"])
_DIGITS = re.compile(PATTERNS["digits"])
_CLEAN = {**_table(DROPPED, None), **_table(SPACES, " ")}
_NOT_TEXT = _table(NOT_TEXT, None)
_TERM = re.compile(PATTERNS["term"])
_WORD_CHAR = re.compile(PATTERNS["word_char"])
_BLANK = re.compile(PATTERNS["blank"])
# ---------------------------------------------------------------------------------------------
# The index


class Entry(Candidate):
    """One template of one record: how it is short-listed and matched, how a match gives its
    values, and how many examples its message has (the ranking's terms count its literal text
    once for it and once for each)."""

    def __init__(self, pieces: Sequence[str], key: str | None, run: str, specificity: int, placeholders: str = "",
                 examples: int = 0, record: int = 0, text: str = "", summary: bool = False,
                 compiled: Template | None = None):
        super().__init__(pieces, key, run, specificity)
        self.placeholders = placeholders  # each one's name, type and group, all separated by spaces
        self.examples = examples
        self.record = record  # index into LookupIndex.records
        self.text = text  # the template, where the index was built from records (not shipped)
        self.summary = summary  # its message is a summary line (``summary_line``), which yields to others
        self.compiled = compiled  # the same, compiled (not shipped)

    @classmethod
    def of_template(cls, template: Template, key: str | None, examples: int, record: int,
                    summary: bool = False) -> Entry:
        c = Candidate.of(template, key)
        placeholders = " ".join(f"{f.name} {f.type} {f.group}" for f in template.fields)
        return cls(c.pieces, c.key, c.run, c.specificity, placeholders, examples, record, template.text, summary,
                   template)

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The template's own matcher where the index was built from records: the records' load has
        compiled it already, to check the examples, and the cross-record check need not again."""
        return self.compiled.regex if self.compiled is not None else re.compile("".join(self.pieces))

    @functools.cached_property
    def fields(self) -> tuple[Field, ...]:
        """How a match gives its values (read on first use: an index of thousands loads at every
        ``errorkb lookup --index``)."""
        parts = self.placeholders.split()
        return tuple(Field(name, type_, int(group)) for name, type_, group in zip(parts[::3], parts[1::3], parts[2::3]))

    @property
    def literal_terms(self) -> collections.Counter[str]:
        """The BM25 terms of its required literal text (``Template.literal_text``)."""
        return collections.Counter(terms("".join(self.pieces[1::2])))


class Name(NamedTuple):
    """A record's code, id or alias, found when a line names it."""

    record: int
    text: str  # as the record writes it
    folded: str  # lower case
    phrase: re.Pattern[str] | None = None  # where a line writes a name of several words (``HTTP 413``)

    @property
    def digits(self) -> bool:
        return _DIGITS.match(self.text) is not None


class Bm25(NamedTuple):
    """Term statistics of the closest-match ranking."""

    docs: Sequence[Mapping[str, int]]  # per record: term -> frequency
    lengths: list[int]
    avgdl: float
    idf: dict[str, float]


class Triage(NamedTuple):
    """A kind of error as the index holds it (see ``triage.py``): where its triage page is, its
    cues as one expression, and the records closest answers are chosen from."""

    name: str
    title: str
    url: str
    pattern: str  # empty: the kind a paste without any cue gets
    records: frozenset[int]

    @property
    def matcher(self) -> re.Pattern[str] | None:
        return cue_matcher(self.pattern)

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "url": self.url}


class LookupIndex:
    """What a lookup searches: ``records`` (id, code, title, url, fixes, costs, aliases, labels,
    readings, diagnoses), their ``entries`` (templates) in the records' order, per record its BM25
    ``terms`` beyond those of id, code, title and entries (:func:`_compact`), the issue form for
    errors not in the catalogue (``report``), the ``kinds`` a paste that matches none is told
    apart as, and ``phrases``: the names of several words, each with its pattern
    (``phrase_pattern``), read with a shipped index, else worked out."""

    def __init__(self, records: list[dict[str, Any]], entries: list[Entry], terms: list[str],
                 report: str | None = None, kinds: list[Triage] | None = None, phrases: dict[str, str] | None = None):
        self.records, self.entries, self.terms, self.report = records, entries, terms, report
        self.kinds = kinds or []
        self.phrases = phrases or {}
        self.by_key: dict[bytes, list[int]] = {}
        self.always: list[int] = []
        for i, entry in enumerate(self.entries):
            if entry.key is None:
                self.always.append(i)
            else:
                self.by_key.setdefault(entry.key.encode(), []).append(i)
        # Each record by the last word of its id, code and aliases, worked out in bulk: every
        # `errorkb lookup --index` reads an index, of thousands of records.
        named = [(text, r) for r, rec in enumerate(self.records) for text in (rec["id"], rec["code"], *rec["aliases"])
                 if text]
        texts, owners = zip(*named) if named else ((), ())
        lasts = [(found[-1], r) for found, r in zip((line.split() for line in LineWords(list(texts)).split), owners)
                 if found]
        self.by_name_word: dict[bytes, tuple[int, ...]] = {word: (r,) for word, r in lasts}
        if len(self.by_name_word) < len(lasts):  # a word that ends names of several records
            shared = {word for word, count in collections.Counter(word for word, _ in lasts).items() if count > 1}
            groups: dict[bytes, list[int]] = collections.defaultdict(list)
            for word, r in lasts:
                if word in shared:
                    groups[word].append(r)
            self.by_name_word.update((word, tuple(rs)) for word, rs in groups.items())
        self.keys = frozenset(self.by_key) | frozenset(self.by_name_word)
        # Names of several words, each with its pattern; compiled when a paste names its record.
        if not self.phrases:
            self.phrases = {text: phrase_pattern(text) for text in dict.fromkeys(texts)
                            if not _TOKEN.fullmatch(text) and _WORD_CHAR.search(text)}
        self._names: dict[int, list[Name]] = {}

    @functools.cached_property
    def by_second_word(self) -> dict[bytes, tuple[dict[bytes, list[int]], list[int]]]:
        """Under each key, its templates by a second whole word that each holds (the rarest of its
        others), and those without one; made on first use, for an index built from records (an
        index read from JSON carries no whole words: its templates are all among those without).
        A catalogue whose messages share their words files thousands of templates under one key;
        this keeps the short-list of a line to those whose two words it holds."""
        words = {e: [w.encode() for w in whole_words(entry.compiled)] if entry.compiled is not None else []
                 for e, entry in enumerate(self.entries)}
        df = collections.Counter(w for found in words.values() for w in found)
        out: dict[bytes, tuple[dict[bytes, list[int]], list[int]]] = {}
        for key, filed in self.by_key.items():
            by_word: dict[bytes, list[int]] = {}
            rest: list[int] = []
            for e in filed:
                others = [w for w in words[e] if w != key]
                if others:
                    by_word.setdefault(min(others, key=lambda w: (df[w], -len(w), w)), []).append(e)
                else:
                    rest.append(e)
            out[key] = (by_word, rest)
        return out

    def names_of(self, r: int) -> list[Name]:
        """Record ``r``'s code, id and aliases that can be written in a line (worked out once per
        record: a paste may name it on every line)."""
        names = self._names.get(r)
        if names is None:
            rec = self.records[r]
            names = self._names[r] = [Name(r, text, text.lower(),
                                           re.compile(self.phrases[text], re.IGNORECASE) if text in self.phrases else None)
                                      for text in dict.fromkeys([rec["id"], rec["code"], *rec["aliases"]])
                                      if text and (text in self.phrases or _TOKEN.fullmatch(text))]
        return names

    @functools.cached_property
    def bm25(self) -> Bm25:
        """Worked out on the first search that finds no exact match."""
        docs = [collections.Counter(terms("\n".join((rec["id"], rec["code"], rec["title"])))) for rec in self.records]
        for doc, found in zip(docs, self.terms):
            doc.update(_counted(found))
        for entry in self.entries:
            for term, n in entry.literal_terms.items():
                docs[entry.record][term] += n * (1 + entry.examples)
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

        One array per record: ``[id, code, title, url, fixes, terms, templates, aliases,
        diagnoses, costs, labels, readings]``.  Each template is ``[pieces, placeholders,
        specificity, key, run, examples]``: the fields of an :class:`Entry`; the browser runs the
        pieces joined, as they are.  The record's BM25 document is the terms of its id, code,
        title, aliases, examples and templates' literal text: ``terms`` is what it holds beyond
        those of its id, code and title and of each template's literal text (every second piece),
        counted once for the template and once for each of its message's examples
        (which repeat it): each term once, followed by ``*N`` when it counts N times, N not 1
        (negative where an example glues a literal's word to a value).  Each diagnosis and
        reading is ``Diagnosis.as_json``; ``fixes`` are every fix's title, ``costs`` what each
        costs, ``labels`` the values' names in words.  ``text`` gives the character ranges,
        expressions and quotation marks that clean a paste and weigh its lines, ``notices`` what
        a result says about the paste, ``kinds`` the kinds of error a paste without an exact
        match is told apart as (name, title, URL, cues, records), ``units`` the factors of sizes'
        units and the units sizes are shown in (binary and decimal), ``limits``, ``bm25`` and
        ``rank`` (``BEST``, ``ORDER``, ``FULLEST``) the rules above, ``phrases`` the pattern of
        each code, id or alias of several words (``HTTP 413``), ``summaries`` the templates (by
        their place in the records' order) of the messages marked ``summary_line``, ``report``
        the issue form for an error that is not in the catalogue (or null).
        """
        rows = [[rec["id"], rec["code"], rec["title"], rec["url"], rec["fixes"], found, [], rec["aliases"],
                 [d.as_json() for d in rec["diagnoses"]], rec["costs"], rec["labels"],
                 [r.as_json() for r in rec["readings"]]]
                for rec, found in zip(self.records, self.terms)]
        for e in self.entries:
            rows[e.record][6].append([list(e.pieces), e.placeholders, e.specificity, e.key, e.run, e.examples])
        text = {"dropped": DROPPED, "spaces": SPACES, "not_text": NOT_TEXT, "quote_kinds": QUOTE_KINDS, **PATTERNS}
        kinds = [[k.name, k.title, k.url, k.pattern, sorted(k.records)] for k in self.kinds]
        return {"version": INDEX_VERSION, "text": text, "notices": NOTICES, "kinds": kinds,
                "units": {"factors": UNIT_FACTORS, "parts": SIZE_PARTS.pattern, "shown": diagnoses.SHOWN_UNITS,
                          "shown_decimal": diagnoses.SHOWN_DECIMAL_UNITS, "decimal": diagnoses.DECIMAL_UNITS,
                          "letters": diagnoses.LETTER_UNITS},
                "limits": {"paste": MAX_PASTE, "lines": MAX_LINES, "line": MAX_LINE_CHARS, "scan_from": SCAN_FROM,
                           "why": WHY_LINES},
                "bm25": [BM25_K1, BM25_B], "ignored": sorted(BM25_IGNORED), "rank": {"best": BEST, "order": ORDER, "fullest": FULLEST},
                "phrases": [[text, pattern] for text, pattern in self.phrases.items()],
                "summaries": [i for i, e in enumerate(self.entries) if e.summary], "report": self.report,
                "records": rows}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LookupIndex:
        """Read an index back; many objects and no cycles, so without the collector's sweeps."""
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
            raise ValueError(f"not an errorkb lookup index of version {INDEX_VERSION}")
        records, entries, found_terms = [], [], []
        with gc_paused():
            for r, (id_, code, title, url, fixes, found, templates, aliases, made, costs, labels,
                    readings) in enumerate(data["records"]):
                records.append({"id": id_, "code": code, "title": title, "url": url, "fixes": fixes, "costs": costs,
                                "aliases": aliases, "labels": labels,
                                "diagnoses": [diagnoses.Diagnosis.from_json(d) for d in made],
                                "readings": [diagnoses.Diagnosis.from_json(d) for d in readings]})
                found_terms.append(found)  # parsed by the first search that needs BM25
                entries += [Entry(pieces, key, run, specificity, placeholders, examples, r)
                            for pieces, placeholders, specificity, key, run, examples in templates]
            for i in data["summaries"]:
                entries[i].summary = True
            kinds = [Triage(name, title, url, pattern, frozenset(rs)) for name, title, url, pattern, rs in data["kinds"]]
            return cls(records, entries, found_terms, data.get("report"), kinds, dict(data["phrases"]))


def record_url(record: Record) -> str:
    """The record's page, relative to the site's root."""
    return re.sub(r"\.md$", ".html", record.path)


def build_index(catalogue: Catalogue, urls: dict[str, str] | None = None,
                report: str | None = None, kinds: Sequence[Kind] = (), kind_urls: dict[str, str] | None = None
                ) -> LookupIndex:
    """Index every template and record of ``catalogue``; ``urls`` maps ids to page URLs,
    ``report`` is the issue form that a paste matching nothing is offered, ``kinds`` what such a
    paste is told apart as, ``kind_urls`` their triage pages' URLs (their page names + ``.html``
    by default)."""
    records: list[dict[str, Any]] = []
    pending: list[tuple[int, Template, int, bool, tuple[str, ...]]] = []
    texts: list[list[str]] = []
    for r, record in enumerate(sorted(catalogue.records.values(), key=lambda rec: rec.id)):
        url = (urls or {}).get(record.id) or record_url(record)
        records.append({"id": record.id, "code": record.code or "", "title": record.title, "url": url,
                        "fixes": [f.title for f in record.fixes], "costs": record.costs,
                        "aliases": [*record.codes[1:], *record.aliases], "labels": dict(record.labels),
                        "diagnoses": diagnoses.of_record(record), "readings": diagnoses.readings_of(record)})
        for message, template in zip(record.messages, record.templates):
            pending.append((r, template, len(message.examples), message.summary_line, whole_words(template)))
        texts.append([*record.aliases, *(e.text for message in record.messages for e in message.examples),
                      *(t.literal_text for t in record.templates)])
    keys = keys_for([words for *_, words in pending])
    entries = [Entry.of_template(t, key, n, r, summary) for (r, t, n, summary, _), key in zip(pending, keys)]
    counts = [collections.Counter(terms("\n".join(found))) for found in texts]
    for entry in entries:
        counts[entry.record].subtract({term: n * (1 + entry.examples) for term, n in entry.literal_terms.items()})
    ordered = sorted(catalogue.records.values(), key=lambda rec: rec.id)
    told = [Triage(k.name, k.title, (kind_urls or {}).get(k.name) or f"{k.page}.html", k.pattern,
                   frozenset(r for r, record in enumerate(ordered) if k.holds(record))) for k in kinds]
    return LookupIndex(records, entries, [_compact({t: n for t, n in c.items() if n}) for c in counts], report, told)


def phrase_pattern(name: str) -> str:
    """Where a line writes a code, id or alias that is not one token (``HTTP 413``, ``Xid 79``):
    as a whole, any run of white space as any run of spaces or tabs (matched case-insensitively)."""
    from .templates.writer import literal_pattern  # building an index only: a lookup need not import templates

    return f"(?<![A-Za-z0-9_]){literal_pattern(name)}(?![A-Za-z0-9_])"


def _compact(counts: dict[str, int]) -> str:
    """Term counts as the index ships them: each term once, ``*N`` after one that counts N, N not 1."""
    return " ".join(term if n == 1 else f"{term}*{n}" for term, n in counts.items())


def _counted(compact: str) -> dict[str, int]:
    """The term counts of :func:`_compact`'s text."""
    counts: dict[str, int] = {}
    for part in compact.split():
        term, _, n = part.partition("*")
        counts[term] = int(n or 1)
    return counts


def terms(text: str) -> list[str]:
    """BM25 terms: words starting with a letter, lower case, but ``BM25_IGNORED``; ``A_B`` also
    gives ``a`` and ``b``."""
    out: list[str] = []
    for m in _TERM.finditer(text):
        word = m.group().lower()
        if len(word) >= 2 and word not in BM25_IGNORED:
            out.append(word)
        if "_" in word:
            out += [part for part in word.split("_") if len(part) >= 2 and not part[0].isdigit() and part not in BM25_IGNORED]
    return out


# ---------------------------------------------------------------------------------------------
# A paste


class Paste(NamedTuple):
    """A normalised paste: its lines, numbered from 0, and notices about what was left out."""

    lines: list[str]  # log prefixes dropped, cut to MAX_LINE_CHARS
    raw: list[str]  # the same lines with their log prefixes
    notices: list[str]
    one_line: bool  # it holds one line that is not blank


def looks_binary(paste: str) -> bool:
    """True when most of ``paste`` is not text (control characters, undecodable bytes)."""
    return len(paste) - len(paste.translate(_NOT_TEXT)) > len(paste) / 2


def normalise(paste: str) -> Paste:
    """Cut a paste into searchable lines (see the module's docstring, step 1)."""
    notices: list[str] = []
    if len(paste) > MAX_PASTE:
        notices.append(notice("characters", len(paste), MAX_PASTE))
        paste = paste[-MAX_PASTE:]
    paste = _ANSI.sub("", paste).replace("\r\n", "\n").replace("\r", "\n").translate(_CLEAN)
    raw = paste.split("\n")
    if len(raw) > MAX_LINES:
        notices.append(notice("lines", len(raw), MAX_LINES))
        raw = raw[-MAX_LINES:]
        paste = "\n".join(raw)
    paste = _LATER_PREFIX.sub("\n", paste)
    if first := _PREFIX.match(paste):
        paste = paste[first.end():]
    lines = paste.split("\n")
    cut = sum(1 for line in lines if len(line) > MAX_LINE_CHARS)
    if cut:
        lines = [line[:MAX_LINE_CHARS] for line in lines]
        notices.append(notice("cut", cut, MAX_LINE_CHARS))
    filled = (line for line in lines if line.strip())
    return Paste(lines, raw, notices, next(filled, None) is not None and next(filled, None) is None)


class Match(NamedTuple):
    """One record found in a paste."""

    record: dict[str, Any]
    exact: bool
    score: float
    values: dict[str, Value]
    line: int | None = None  # first line of the matched text, 0-based in the normalised paste
    lines: int = 0  # how many lines the matched text spans (1, or 2 for a wrapped message)
    text: str = ""  # the line (or the two joined lines) that matched
    span: tuple[int, int] = (0, 0)  # the matched part of ``text``
    template: str = ""  # the code, id or alias, or the template (in an index built from records), that matched
    also: bool = False  # a template matched, but a more specific record's matched the same lines

    @property
    def diagnoses(self) -> list[dict[str, Any]]:
        """What the record says the values mean: its diagnoses that hold (see ``diagnoses.py``)."""
        return diagnoses.diagnose(self.record["diagnoses"], self.values)

    @property
    def readings(self) -> list[str]:
        """What the values are, in the record's sentences."""
        return diagnoses.read(self.record["readings"], self.values)

    def fixes(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The record's fixes in the order ``found``, the match's :attr:`diagnoses` (worked out
        once by the caller), calls for (``diagnoses.fixes_in_order``)."""
        return diagnoses.fixes_in_order(self.record["fixes"], self.record["costs"], found)

    def label(self, name: str) -> str:
        """A value's name in words."""
        return diagnoses.label_of(name, self.record["labels"])

    def as_json(self) -> dict[str, Any]:
        """The entry of ``errorkb lookup --json``; ``line`` is 1-based, as shown to people."""
        located = self.line is not None
        held = self.diagnoses
        return {"id": self.record["id"], "code": self.record["code"] or None, "title": self.record["title"],
                "score": self.score, "exact": self.exact, "also": self.also,
                "values": {k: {**v.as_json(), "label": self.label(k)} for k, v in self.values.items()},
                "url": self.record["url"], "line": None if self.line is None else self.line + 1,
                "lines": self.lines, "span": list(self.span) if located else None,
                "text": self.text if located else None, "readings": self.readings, "diagnoses": held,
                "fixes": self.fixes(held)}


class Result(NamedTuple):
    matches: list[Match]
    notices: list[str]
    kind: Triage | None = None  # what a paste that matches no record exactly looks like

    @property
    def exact(self) -> bool:
        return any(m.exact for m in self.matches)


def lookup(index: LookupIndex, paste: str, top: int = 5) -> Result:
    """Find the records whose messages appear in ``paste``, best first."""
    if _BLANK.match(paste):
        return Result([], [notice("empty")])
    if looks_binary(paste):
        return Result([], [notice("binary")])
    normalised = normalise(paste)
    matches = exact_matches(index, normalised)
    if matches and matches[0].exact:
        return Result(matches[:top], normalised.notices)
    kind = classify(index.kinds, "\n".join(normalised.lines))
    shown = {m.record["id"] for m in matches}
    near = closest(index, normalised.lines, None if kind is None else kind.records)
    return Result((matches + [m for m in near if m.record["id"] not in shown])[:top], normalised.notices, kind)


class Hit(NamedTuple):
    """One occurrence of a template, or of a record's name, in a line or a pair of lines."""

    record: int
    line: int
    lines: int
    text: str
    span: tuple[int, int]
    standing: int
    named: bool
    specificity: int
    order: int  # the entry's (or name's) place, to break the last ties
    match: re.Match[str] | None = None  # the template's match, for its values
    name: str = ""
    fields: int = 0  # the template's placeholders
    summary: bool = False  # a summary line's match (see ``_rank``)

    def key(self, rule: tuple[tuple[str, int], ...], named: Set[int], yielding: Set[int] = frozenset()) -> tuple[int, ...]:
        """The hit's key by ``rule`` (``BEST``, ``ORDER``, ``FULLEST``); ``named``: the records named
        in the paste; ``yielding``: those whose best occurrence is a summary line that yields."""
        fields = {"named": self.named, "record_named": self.record in named, "specificity": self.specificity,
                  "standing": self.standing, "line": self.line, "start": self.span[0], "order": self.order,
                  "fields": self.fields, "summary": self.summary, "yields": self.record in yielding}
        return tuple(sign * fields[name] for name, sign in rule)


def exact_matches(index: LookupIndex, paste: Paste) -> list[Match]:
    """Records with a template that matches a line or two adjacent lines joined, or whose code,
    id or alias a line names, ranked (see the module's docstring)."""
    last = last_copies(paste)
    holding = {key: [i for i in found if i in last] for key, found in LineWords(paste.lines).holding(index.keys).items()}
    matcher = LineMatcher(paste.lines, SCAN_FROM, among=last)
    short_listed = {e: found for key, found in holding.items() for e in _near_run(index, paste.lines, key, found)}
    for e in index.always:
        short_listed[e] = matcher.lines_holding(index.entries[e].run)
    named: dict[int, set[int]] = {}  # line -> the records one of whose names ends with a word it holds
    for key in holding.keys() & index.by_name_word.keys():
        for i in holding[key]:
            named.setdefault(i, set()).update(index.by_name_word[key])

    def template_hits(e: int, lines: list[int]) -> Iterator[Hit]:
        """Entry ``e``'s matches in ``lines`` that are not mentions."""
        entry = index.entries[e]
        for first, count, text, m in matcher.hits(entry, lines):
            h = Hit(entry.record, first, count, text, m.span(), standing(paste, first, text, m.start()), False,
                    entry.specificity, e, m, fields=len(entry.fields), summary=entry.summary)
            if h.standing > MENTION:
                yield h

    kept = _Kept()
    matched: set[int] = set()  # lines holding a name that a template matched
    spans: dict[int, list[tuple[int, int, int]]] = {}  # such a line -> what one-line template matches cover
    for e, found in short_listed.items():
        for h in template_hits(e, found):
            kept.add(h)
            matched.update(i for i in range(h.line, h.line + h.lines) if i in named)
            if h.lines == 1 and h.line in named:
                spans.setdefault(h.line, []).append((h.span[0], h.span[1], h.record))
    templated = bool(kept.best)
    for i, records in named.items():
        for h in _name_hits(index, paste, i, [n for r in sorted(records) for n in index.names_of(r)], i in matched,
                            spans.get(i, []), templated):
            kept.add(h)
    hits = kept.hits(lambda r, line: [h for e in kept.entries.get(r, ()) for h in template_hits(e, [line])])
    return _rank(index, hits, lambda line: says_why(paste, line, kept.covered))


class _Kept:
    """What the ranking needs of a paste's occurrences, bounded by the records rather than the
    lines: each record's best occurrence (``BEST``), whether a name of it occurs, and the
    templates that matched it, to read again, on the best occurrence's line only, the other
    matches over the same text (``FULLEST``)."""

    def __init__(self) -> None:
        self.best: dict[int, Hit] = {}
        self.named: dict[int, Hit] = {}  # record -> an occurrence of its name
        self.entries: dict[int, dict[int, None]] = {}  # record -> the templates that matched it
        self.covered: set[int] = set()  # lines that a match covers

    def add(self, h: Hit) -> None:
        self.covered.update(range(h.line, h.line + h.lines))
        if h.named:
            self.named.setdefault(h.record, h)
        else:
            self.entries.setdefault(h.record, {})[h.order] = None
        best = self.best.get(h.record)
        if best is None or h.key(BEST, frozenset()) < best.key(BEST, frozenset()):
            self.best[h.record] = h

    def hits(self, reread: Callable[[int, int], list[Hit]]) -> list[Hit]:
        """The occurrences to rank: each best one, a name's occurrence where there is one, and the
        template matches (not mentions) on a best template match's line, read again by
        ``reread(record, line)``."""
        out: list[Hit] = []
        for r, h in self.best.items():
            out.append(h)
            if r in self.named and self.named[r] is not h:
                out.append(self.named[r])
            if h.match is not None:
                out += [o for o in reread(r, h.line) if (o.line, o.lines) == (h.line, h.lines) and o.order != h.order]
        return out


#: Lines of a paste that hold a key, up to which its templates are first kept only where their run is
#: near one of them (one substring search each): many templates share a common key, most are
#: dropped at once, and the cross-record check of a large catalogue, a paste per example, scales.
FEW_LINES = 16


#: Templates under one key beyond which they are short-listed by a second word too (``by_second_word``).
MANY_FILED = 32


def _near_run(index: LookupIndex, lines: list[str], key: bytes, found: list[int]) -> list[int]:
    """The templates filed under ``key`` that may match around the lines ``found``: a template
    matches a line, or the line joined to its neighbour, only where one of them holds its run
    (and, among many filed under one key, the second word it is filed by)."""
    filed = index.by_key.get(key, [])
    if len(found) > FEW_LINES or len(filed) < 2:
        return filed
    around = [lines[j] for i in found for j in range(max(i - 1, 0), min(i + 2, len(lines)))]
    if len(filed) > MANY_FILED:
        by_word, rest = index.by_second_word[key]
        held = {w for line in LineWords(around).split for w in line.split()}
        filed = sorted([*rest, *(e for w in held & by_word.keys() for e in by_word[w])])
    near = "\n".join(around)
    entries = index.entries
    return [e for e in filed if entries[e].run in near]


_DIGIT_RUNS = re.compile(r"[0-9]+")


def last_copies(paste: Paste) -> set[int]:
    """The lines that are the last copy of their text (and of their log prefix, its numbers aside):
    a line repeated is matched once, where it last occurs, which is where its match would stand."""
    last: dict[tuple[str, str], int] = {}
    for i, (line, raw) in enumerate(zip(paste.lines, paste.raw)):
        prefix = "" if raw == line else (m.group() if (m := _PREFIX.match(raw)) else "")
        last[(line, _DIGIT_RUNS.sub("", prefix))] = i
    return set(last.values())


def _name_hits(index: LookupIndex, paste: Paste, i: int, names: list[Name], matched: bool,
               covered: list[tuple[int, int, int]], templated: bool) -> list[Hit]:
    """The names of ``names`` that line ``i`` writes: as a token or the end of a dotted one, or, a
    name of several words, as a whole; on a ``matched`` line (a template matched it), not a name
    that labels the message (``Name:``), such as an exception class that many errors share, nor,
    where a template matched the paste (``templated``), one that heads an IPython traceback
    (``Name   Traceback (most recent call last)``), which labels the message at its end; nor one
    inside the text that another record's template matched (``covered``: start, end, record),
    which is part of that message, nor one that code compares a value with (``Check failed: (e
    == cudaErrorCudartUnloading)``)."""
    text = paste.lines[i]
    found: list[tuple[Name, int, int]] = []  # name, start, end
    wanted: dict[str, list[Name]] = {}
    for name in names:
        if name.phrase is None:
            wanted.setdefault(name.folded, []).append(name)
        else:
            found += [(name, m.start(), m.end()) for m in name.phrase.finditer(text)]
    for m in _TOKEN.finditer(text):
        token = m.group().lower()
        at = 0
        while True:
            found += [(name, m.start() + at, m.end()) for name in wanted.get(token[at:], ())]
            dot = token.find(".", at)
            if dot < 0:
                break
            at = dot + 1
    hits = []
    for name, start, end in found:
        if matched and text[end:].lstrip(" \t").startswith(":"):
            continue
        if templated and _TRACEBACK_HEADER.match(text, end):
            continue
        if name.digits and not paste.one_line:
            continue
        if any(a <= start and end <= b and r != name.record for a, b, r in covered):
            continue
        if _COMPARED.search(text[:start]):
            continue
        hits.append(Hit(name.record, i, 1, text, (start, end), max(OTHER, standing(paste, i, text, start)), True,
                        sum(not c.isspace() for c in name.text), len(index.entries) + name.record, name=name.text))
    return hits


def standing(paste: Paste, first: int, text: str, start: int) -> int:
    """How a match at ``start`` of ``text`` (line ``first``, or it and the next) stands:
    ``ERROR``, ``OTHER`` or ``MENTION`` (see the module's docstring, step 3)."""
    before = _with_prefix(paste, first, text[:start])
    after, marked = before, False
    for m in _error_markers(before):
        after, marked = before[m.end():], True
    if _HINT.search(after.lower()) or _quoted_in_prose(after):
        return MENTION
    return ERROR if marked or not _WORD_CHAR.search(after) else OTHER


def _with_prefix(paste: Paste, i: int, text: str) -> str:
    """``text`` of line ``i`` behind the log prefix that line was cut from: a marker such as
    glog's ``E`` or ``F`` is in it."""
    prefix = _PREFIX.match(paste.raw[i])
    return (prefix.group() if prefix else "") + text


def _error_markers(text: str) -> Iterator[re.Match[str]]:
    """The markers of an error in ``text``: a label whose name is an error's, a log level, glog's E or F."""
    return (m for m in _MARKER.finditer(text) if m.group(1) is None or _ERROR_NAME.search(m.group(1)))


def says_why(paste: Paste, line: int, covered: Set[int]) -> bool:
    """Whether one of the ``WHY_LINES`` lines before ``line`` is an error line that no record
    matched (in ``covered``): an error's marker in it, not after a hint or in a quotation, with
    words after it (not a bare ``ChildFailedError:``).  A summary line yields to such a line as
    to another record's match: the paste says why, in words the catalogue does not know."""
    for i in range(max(0, line - WHY_LINES), line):
        if i in covered or not paste.lines[i]:
            continue
        text = _with_prefix(paste, i, paste.lines[i])
        first = next(_error_markers(text), None)
        if first is None or not _WORD_CHAR.search(text, first.end()):
            continue
        if not _HINT.search(text[:first.start()].lower()) and not _quoted_in_prose(text[:first.start()]):
            return True
    return False


def _quoted_in_prose(text: str) -> bool:
    """Whether a quotation is open at the end of ``text`` whose opening mark follows a plain word
    or an opening parenthesis: a message quoted in a sentence or a call.  Not a value in data
    (``"error": "..."``, ``error='...'``, ``nccl_utils.cc:213 '...'``), an exception's repr
    (``WorkerLostError('...``), nor a quotation that opens the line, a string literal's prefix
    aside (``XGBoostError: b'...``)."""
    opened: dict[str, int] = {}  # kind of quotation -> where its open one starts
    for m in _QUOTE.finditer(text):
        mark = m.group()
        kind = QUOTE_KINDS.get(mark, mark)
        if mark in "”»":
            opened.pop(kind, None)
        elif mark in "“«" or kind not in opened:
            opened[kind] = m.start()
        else:
            del opened[kind]
    for at in opened.values():
        before = _LITERAL_PREFIX.sub("", text[:at]).rstrip(" \t")
        called = before.endswith("(") and before[:-1].strip(" \t") != ""  # print("...; not an exception's ('...', ...)
        if before and (called or _PROSE_WORD.search(before)) and not _CLASS_CALL.search(before):
            return True
    return False


def _rank(index: LookupIndex, hits: list[Hit], why: Callable[[int], bool]) -> list[Match]:
    """One match per record, best first; a message is the exact answer of one record only.

    Each record stands at its best occurrence (``BEST``), read by its fullest match there
    (``FULLEST``), in the order of ``ORDER``.  A record whose best occurrence shares a line with a
    better-ranked record's is a less specific match of the same message: it follows the exact
    answers, marked ``also``, not exact.  So is a record whose best occurrence is a summary line
    (a message marked ``summary_line``, printed beside the line that says why, as Git's ``error:
    failed to push some refs``), when another record matched the paste otherwise or ``why`` finds
    an error line before it that no record matched: it yields.
    """
    named = {h.record for h in hits if h.named}
    best: dict[int, Hit] = {}
    of_record: dict[int, list[Hit]] = collections.defaultdict(list)
    for h in hits:
        of_record[h.record].append(h)
        if h.record not in best or h.key(BEST, named) < best[h.record].key(BEST, named):
            best[h.record] = h
    leading = {r for r, h in best.items() if not h.summary}
    yielding = {r for r, h in best.items() if h.summary and (leading - {r} or why(h.line))}
    exact: list[Match] = []
    also: list[Match] = []
    claimed: set[int] = set()
    for h in sorted(best.values(), key=lambda h: h.key(ORDER, named, yielding)):
        lines = set(range(h.line, h.line + h.lines))
        shared = h.record in yielding or not lines.isdisjoint(claimed)
        claimed |= lines
        reading = _fullest(h, of_record[h.record], named)
        if reading.match is not None:
            entry = index.entries[reading.order]
            values, template = values_of(entry.fields, reading.match), entry.text
        else:
            values, template = {}, h.name
        match = Match(index.records[h.record], not shared, float(h.specificity), values,
                      h.line, h.lines, h.text, reading.span, template, also=shared)
        (also if shared else exact).append(match)
    return exact + also


def _fullest(h: Hit, hits: list[Hit], named: set[int]) -> Hit:
    """Of a record's template matches over the same text as ``h``, the one that reads the most
    values: a short head of a message may rank a record, its full wording gives the numbers."""
    if h.match is None:
        return h
    same = [o for o in hits if o.match is not None and (o.line, o.lines) == (h.line, h.lines)
            and o.span[0] < h.span[1] and h.span[0] < o.span[1]]
    return min(same, key=lambda o: o.key(FULLEST, named))


def closest(index: LookupIndex, lines: list[str], among: Set[int] | None = None) -> list[Match]:
    """BM25 over the records' words (of the records ``among``, or all): any query word counts;
    labelled closest, not exact."""
    query = sorted({t for line in lines for t in terms(line)})
    bm = index.bm25
    scores: list[tuple[float, int]] = []
    for r, doc in enumerate(bm.docs):
        if among is not None and r not in among:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * bm.lengths[r] / bm.avgdl)
        score = 0.0
        for term in query:
            tf = doc.get(term)
            if tf:
                score += bm.idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
        if score > 0:
            scores.append((-score, r))
    return [Match(index.records[r], False, round(-s, 4), {}) for s, r in sorted(scores)]
