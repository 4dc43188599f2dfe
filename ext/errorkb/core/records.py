"""The record model: one MyST Markdown file per error, YAML front matter plus prose.

``load_record`` parses and validates one file against a site's :class:`~errorkb.schema.Schema`
(the core fields plus the site's own, its required sections); ``load_catalogue`` loads every
record under a folder and checks what spans records (unique ids and codes, ``related`` ids,
examples that another record's template would claim).  Every problem is a :class:`Problem`
naming the file and line.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails

from .diagnoses import MAX_NUMBER, fix_number, label_problems, missing_fix, problems_of as diagnosis_problems
from .markdown import Heading, outline
from .reading import Refused, not_a_file, read_file
from .schema import SLUG, Schema
from .templates import Template, TemplateError, compile_template, where_it_stops

T = TypeVar("T")

try:  # the C loader is several times faster where libyaml is present
    _SafeLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _SafeLoader = yaml.SafeLoader


class Loader(_SafeLoader):
    """Safe YAML in which a scalar that reads as no value Python holds (``2026-13-45``, a number
    of 5,000 digits, one beyond :data:`MAX_NUMBER`) is a YAML error at its line, not an exception."""


def _bounded(construct: Callable[[Any, yaml.ScalarNode], Any]) -> Callable[[Any, yaml.ScalarNode], Any]:
    def constructor(loader: Any, node: yaml.ScalarNode) -> Any:
        shown = repr(node.value if len(node.value) <= 40 else node.value[:40] + "...")
        try:
            value = construct(loader, node)
        except (ValueError, OverflowError) as exc:
            if node.tag.endswith(":timestamp"):
                raise yaml.constructor.ConstructorError(None, None, f"{shown} is not a date: {exc}",
                                                        node.start_mark) from None
            value = None
        if value is None or (isinstance(value, (int, float)) and not -MAX_NUMBER <= value <= MAX_NUMBER):
            raise yaml.constructor.ConstructorError(None, None, f"{shown} is not a number a record may hold "
                                                    f"(from -{MAX_NUMBER:,} to {MAX_NUMBER:,})", node.start_mark)
        return value
    return constructor


for _tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"):
    Loader.add_constructor(_tag, _bounded(Loader.yaml_constructors[_tag]))

ALIAS = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
URL = r"^https?://\S+$"
#: What ``errorkb new`` writes where the author still has to fill something in.
SCAFFOLD_MARKER = "TODO:"
#: Limits checked before a record is parsed: a larger file, or front matter nested deeper, is refused.
MAX_RECORD_BYTES = 256 * 1024
MAX_DEPTH = 64


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing wrong with a record, at a file and line."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class RecordError(Exception):
    """Raised with every problem found; ``str()`` gives one line per problem."""

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


class Example(BaseModel):
    """A message as it appeared in a real log, and where it was seen."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    seen: str | None = None  # the public issue, forum thread or vendor page that shows it

    @field_validator("seen")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(URL, value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    template: str = Field(min_length=1)
    examples: list[Example] = Field(min_length=1)
    note: str | None = None
    summary_line: bool = False  # printed beside other errors' messages, as their summary: it yields to them

    @field_validator("examples", mode="before")
    @classmethod
    def _plain_examples(cls, values: Any) -> Any:
        """An example may be written as its text alone."""
        if isinstance(values, list):
            return [{"text": v} if isinstance(v, str) else v for v in values]
        return values


#: Lists of the front matter whose every item must match a pattern: field -> (pattern, what a mismatch is).
_LIST_PATTERNS = {
    "related": (SLUG, "is not a lower-case slug such as 'disk-full'"),
    "aliases": (ALIAS, "is not an old id or code (letters, digits, '.', '_' and '-'; each gets a redirect page)"),
    "references": (URL, "is not an http(s) URL"),
}


_NOT_IN_FILE_NAMES = re.compile(r"[^A-Za-z0-9._-]+")


def redirect_name(name: str) -> str:
    """The file name of the redirect page of a code or alias: the name itself where it can be
    one, else each run of other characters made '-' (``HTTP 413`` -> ``HTTP-413``); empty when
    it holds no letter or digit."""
    return _NOT_IN_FILE_NAMES.sub("-", name).strip("-._")


def folded(name: str) -> str:
    """A code, id or alias as the lookups compare it: case and runs of white space do not count."""
    return " ".join(name.split()).casefold()


_DATE = re.compile(r"^[0-9]{4}-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12][0-9]|3[01]))?$")


class Checked(BaseModel):
    """What a record's facts were last checked against: the releases of each product, and when."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    date: str  # YYYY-MM-DD or YYYY-MM
    against: dict[str, str] = Field(min_length=1)  # product -> release, as the vendor names them

    @field_validator("date", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        if isinstance(value, datetime.date):  # YAML reads an unquoted 2026-11-24 as a date
            return value.isoformat()
        if not isinstance(value, str) or not _DATE.match(value.strip()):
            raise ValueError(f"{value!r} is not a date such as 2026-11-24 or 2026-11")
        return value

    @field_validator("against", mode="before")
    @classmethod
    def _releases(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        for product, release in value.items():
            if isinstance(release, float):
                raise ValueError(f"the release of {product!r} reads as the number {release!r}: quote it, as in '2.10'")
            if isinstance(release, str) and not release.strip():
                raise ValueError(f"the release of {product!r} is empty")
        return {str(k): str(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in value.items()}


class Frontmatter(BaseModel):
    """The core fields of a record's YAML front matter; :meth:`Schema.model` adds the site's own."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str = Field(pattern=SLUG)
    code: str | list[str] | None = None  # a list where the vendor prints one message under several codes
    title: str = Field(min_length=3, max_length=120)
    summary: str = Field(min_length=10, max_length=300)
    source: str = Field(pattern=SLUG)
    messages: list[Message] = Field(min_length=1)
    related: list[str] = []
    aliases: list[str] = []
    references: list[str] = []
    diagnoses: list[dict[str, Any]] = []  # checked by diagnoses.problems_of
    readings: list[dict[str, Any]] = []  # the same
    labels: dict[str, Any] = {}  # value name -> words; checked by diagnoses.label_problems
    costs: dict[str | int, str] = {}  # fix title or number -> what it costs
    checked: Checked | None = None
    redirects: bool = True  # a redirect page for each code and alias

    @field_validator("code")
    @classmethod
    def _codes(cls, value: str | list[str] | None) -> str | list[str] | None:
        for code in [value] if isinstance(value, str) else value or []:
            if not code.strip() or "\n" in code:
                raise ValueError(f"{code!r} is not a code as printed, on one line")
        if isinstance(value, list):
            if not value:
                raise ValueError("an empty list: leave 'code' out when the error has none")
            if len(set(value)) < len(value):
                raise ValueError("names a code twice")
        return value

    @field_validator(*_LIST_PATTERNS)
    @classmethod
    def _each_matches(cls, values: list[str], info: ValidationInfo) -> list[str]:
        assert info.field_name is not None  # a field's validator
        pattern, problem = _LIST_PATTERNS[info.field_name]
        for v in values:
            if not re.match(pattern, v):
                raise ValueError(f"{v!r} {problem}")
        return values


def _codes_of(fields: Frontmatter) -> tuple[str, ...]:
    raw = fields.code
    return () if raw is None else (raw,) if isinstance(raw, str) else tuple(raw)


@dataclasses.dataclass(frozen=True)
class Fix:
    title: str
    body: str
    line: int
    variants: tuple[str, ...] = ()  # values of the site's variants field with a '####' variant of the fix, in order


class _Core(Generic[T]):
    """A core field of a record's front matter, read as an attribute of the record: ``record.id``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, record: Record, owner: type | None = None) -> T:
        return getattr(record.fields, self.name)


@dataclasses.dataclass(frozen=True)
class Record:
    """A validated record: front matter fields, compiled templates and the prose sections."""

    fields: Frontmatter  # the site's model: the core fields and the site's own
    path: str
    templates: tuple[Template, ...]  # one per message, in order
    sections: dict[str, str]  # '##' title -> its text; the fixes are also in ``fixes``
    fixes: tuple[Fix, ...]
    body: str
    body_line: int  # line of the file where the body starts
    frontmatter_lines: int  # lines taken by the front matter, fences included
    lines: dict[str, int]  # field path ("messages[0].examples[1]") -> line

    id = _Core[str]()
    title = _Core[str]()
    summary = _Core[str]()
    source = _Core[str]()
    messages = _Core[list[Message]]()
    related = _Core[list[str]]()
    aliases = _Core[list[str]]()
    references = _Core[list[str]]()
    diagnoses = _Core[list[dict[str, Any]]]()
    readings = _Core[list[dict[str, Any]]]()
    labels = _Core[dict[str, str]]()
    checked = _Core[Checked | None]()
    redirects = _Core[bool]()

    @property
    def costs(self) -> list[str]:
        """What each fix costs, in the fixes' order, as the record says ('' where it does not)."""
        titles = [f.title for f in self.fixes]
        by_number = {fix_number(key, titles): text for key, text in self.fields.costs.items()}
        return [by_number.get(n, "") for n in range(1, len(titles) + 1)]

    @property
    def codes(self) -> tuple[str, ...]:
        """Every code the vendor prints this error with, the main one first."""
        return _codes_of(self.fields)

    @property
    def code(self) -> str | None:
        """The main code, shown in the title."""
        return self.codes[0] if self.codes else None

    @property
    def docname(self) -> str:
        """The page's name under the records folder: ``<source>/<id>``."""
        return f"{self.source}/{self.id}"

    def value(self, name: str) -> Any:
        """The value of a site field as written (None where a record leaves it out)."""
        return getattr(self.fields, name)

    def values(self, name: str) -> list[str]:
        """The values of a site field as a list (empty where a record leaves it out)."""
        raw = getattr(self.fields, name)
        return [] if raw is None else list(raw) if isinstance(raw, list) else [raw]

    def line_of(self, path: str) -> int:
        return _line_for(self.lines, path)

    def as_json(self, schema: Schema) -> dict[str, Any]:
        """The record for machines: the core fields, the site's fields marked ``json``, the prose."""
        hidden = {spec.name for spec in schema.fields if not spec.json}
        data = self.fields.model_dump(exclude=hidden)
        data["code"], data["codes"] = self.code, list(self.codes)
        data["sections"] = {title: text for title, text in self.sections.items() if title != schema.fixes_section}
        data["fixes"] = [{"title": f.title, "body": f.body, "variants": list(f.variants)} for f in self.fixes]
        return data


# ---------------------------------------------------------------------------------------------
# Loading one file


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """Return (front matter, body, number of lines the front matter takes), or None."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 1
    return None


def load_record(path: Path, text: str | None = None, *, schema: Schema = Schema(), root: Path | None = None,
                max_bytes: int = MAX_RECORD_BYTES, check_examples: bool = True) -> Record:
    """Parse and validate one record file against ``schema``; raise :class:`RecordError` listing every problem.

    ``check_examples`` False leaves out matching the examples against their templates (which
    compiles the templates), for a caller that runs :func:`example_problems` itself."""
    shown = _shown_path(path, root)
    problems: list[Problem] = []

    def fail(line: int, message: str) -> RecordError:
        return RecordError([Problem(shown, line, message)])

    if text is None:
        try:
            size = path.stat().st_size
            if size > max_bytes:
                raise fail(1, _too_large(size, max_bytes))
            raw = read_file(path, max_bytes)
        except OSError as exc:
            raise fail(1, f"cannot read the file: {exc.strerror}") from None
        except Refused as exc:
            raise fail(1, f"not read: {exc}") from None
        try:
            text = raw.decode("utf-8-sig")  # as Sphinx reads sources: a leading BOM is dropped
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise fail(line, "the file is not UTF-8 text") from None
    elif (size := len(text.encode("utf-8"))) > max_bytes:
        raise fail(1, _too_large(size, max_bytes))
    if "\x00" in text:
        raise fail(text[: text.index("\x00")].count("\n") + 1, "the file contains a NUL byte")
    parts = split_frontmatter(text)
    if parts is None:
        raise fail(1, "a record starts with YAML front matter between two '---' lines")
    front, body, fm_lines = parts
    problems += _unfilled(text, shown)

    deep = too_deep(front)
    if deep is not None:
        raise fail(deep, f"the front matter is nested more than {MAX_DEPTH} levels deep")
    try:
        data, lines, yaml_problems = _parse_yaml(front, shown)
    except RecursionError:
        raise fail(2, "the front matter is nested too deeply") from None
    if yaml_problems:
        raise RecordError(yaml_problems)
    if not isinstance(data, dict):
        raise fail(2, "the front matter must be a mapping of fields (key: value)")

    try:
        fields: Frontmatter | None = schema.model(Frontmatter).model_validate(data)
    except ValidationError as exc:
        fields = None
        problems += [_pydantic_problem(shown, lines, err) for err in exc.errors()]

    if fields is not None:
        if fields.id != path.stem:
            problems.append(Problem(shown, lines.get("id", 2), f"id {fields.id!r} must equal the file name {path.stem!r}"))
        if path.parent.name != fields.source:
            problems.append(Problem(shown, lines.get("source", 2),
                                    f"source {fields.source!r} must equal the folder name {path.parent.name!r}"))
        if schema.require_checked and fields.checked is None:
            problems.append(Problem(shown, 2, "missing 'checked': the date and the releases this record's facts "
                                    "were checked against (this site requires it)"))
        if fields.redirects:
            problems += [Problem(shown, lines.get("code", 2), f"code {code!r} holds no letter or digit to name its "
                                 "redirect page: set 'redirects: false' to give it none")
                         for code in _codes_of(fields) if not redirect_name(code)]
    templates, template_problems = _compile_messages(data.get("messages"), lines, shown, check_examples)
    problems += template_problems

    body_line = fm_lines + 1
    sections, fixes, section_problems = parse_body(body, body_line, schema)
    problems += [Problem(shown, line, msg) for line, msg in section_problems]
    if fields is not None and not template_problems:
        compiled = [t for t in templates if t is not None]
        titles = [f.title for f in fixes]
        found = [*diagnosis_problems(fields.diagnoses, compiled, titles),
                 *diagnosis_problems(fields.readings, compiled, titles, "readings"),
                 *label_problems(fields.labels, compiled),
                 *[(f"costs.{key}", missing_fix(key, titles)) for key in fields.costs if fix_number(key, titles) is None]]
        problems += [Problem(shown, _line_for(lines, key), f"{key}: {message}") for key, message in found]
    if problems or fields is None:
        raise RecordError(problems)
    return Record(fields, shown, tuple(t for t in templates if t is not None), sections, tuple(fixes),
                  body, body_line, fm_lines, lines)


def _unfilled(text: str, shown: str) -> list[Problem]:
    """A scaffold marker left anywhere (fields, comments, prose) means the record is unfinished."""
    return [
        Problem(shown, n, f"unfilled scaffold placeholder: {line.strip()[:80]}")
        for n, line in enumerate(text.split("\n"), 1)
        if SCAFFOLD_MARKER in line
    ]


def _too_large(size: int, max_bytes: int) -> str:
    return f"the file is {size:,} bytes, more than the {max_bytes:,} a record may have (errorkb_max_record_size)"


_DEEP_INDENT = re.compile(r"(?:\A|\n)[ \t?-]{30}")


def too_deep(front: str, first_line: int = 2) -> int | None:
    """The file line where YAML (front matter starting at ``first_line``) nests deeper than
    :data:`MAX_DEPTH`, or None.

    Checked on the parser's events, which need no recursion, so that no nesting can exhaust the
    stack of the composer that follows.  Front matter with at most 30 brackets and lines
    indented less than 30 columns cannot nest that deep, and is let through unscanned.
    """
    if front.count("[") + front.count("{") <= 30 and not _DEEP_INDENT.search(front):
        return None
    depth = 0
    try:
        for event in yaml.parse(front, Loader=Loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH and event.start_mark is not None:  # every parsed event has its mark
                    return event.start_mark.line + first_line
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None  # reported, with its line, by the parser proper
    return None


def _shown_path(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _compile_messages(raw: Any, lines: dict[str, int], shown: str,
                      check_examples: bool = True) -> tuple[list[Template | None], list[Problem]]:
    """Compile each well-formed message's template and check its examples against it.

    Runs even when other fields are invalid, so that one pass reports every problem.
    """
    templates: list[Template | None] = []  # None where a message is invalid
    problems: list[Problem] = []
    for i, message in enumerate(raw if isinstance(raw, list) else []):
        try:
            message = Message.model_validate(message)
        except ValidationError:
            templates.append(None)
            continue  # reported by the schema
        key = f"messages[{i}].template"
        try:
            template = compile_template(message.template)
        except TemplateError as exc:
            problems.append(Problem(shown, _line_for(lines, key), f"{key}: {exc} (at character {exc.column} of the template)"))
            templates.append(None)
            continue
        templates.append(template)
        if check_examples:
            problems += _mismatches(i, template, message.examples, lines, shown)
    return templates, problems


def _mismatches(i: int, template: Template, examples: list[Example], lines: dict[str, int], shown: str) -> list[Problem]:
    """The examples of message ``i`` that its template does not match."""
    problems = []
    for j, example in enumerate(examples):
        if not _matches_as_pasted(template, example.text):
            key = f"messages[{i}].examples[{j}]"
            problems.append(Problem(shown, _line_for(lines, key),
                                    f"{key} does not match its template: {where_it_stops(template, example.text)}"))
    return problems


def example_problems(record: Record) -> list[Problem]:
    """The examples of ``record`` that their templates do not match (see ``check_examples``)."""
    return [p for i, (message, template) in enumerate(zip(record.messages, record.templates, strict=True))
            for p in _mismatches(i, template, message.examples, record.lines, record.path)]


def pasted_lines(text: str) -> list[str]:
    """The lines of ``text``, then each two adjacent ones joined by a space: where the lookup finds
    a message in a paste, also one that wrapped."""
    lines = text.splitlines() or [text]
    return [*lines, *(f"{a} {b}" for a, b in zip(lines, lines[1:]))]


def _matches_as_pasted(template: Template, text: str) -> bool:
    """Whether the template matches ``text`` as the lookup reads it (:func:`pasted_lines`)."""
    return any(map(template.matches, pasted_lines(text)))


def _parse_yaml(front: str, shown: str) -> tuple[Any, dict[str, int], list[Problem]]:
    """Load YAML, recording the line of every field (file lines: the '---' is line 1)."""
    try:
        node = yaml.compose(front, Loader=Loader)
    except yaml.YAMLError as exc:
        line = _yaml_error_line(exc)
        opened = _unclosed_quote(front, line - 1)
        if opened is not None:  # the quoted value ran on to a later line, where parsing failed
            return None, {}, [Problem(shown, opened, "invalid YAML: a quote opened on this line is not closed on it "
                                      f"(then, at line {line}: {' '.join(str(getattr(exc, 'problem', exc)).split())})")]
        return None, {}, [Problem(shown, line, f"invalid YAML: {_yaml_reason(exc, front)}")]
    if node is None:
        return None, {}, [Problem(shown, 2, "the front matter is empty")]
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    _walk(node, "", lines, problems, shown)
    if problems:
        return None, lines, problems
    try:
        data = yaml.load(front, Loader=Loader)
    except yaml.YAMLError as exc:  # e.g. an unknown tag
        mark = getattr(exc, "problem_mark", None)
        return None, lines, [Problem(shown, mark.line + 2 if mark else 2, f"invalid YAML: {_yaml_reason(exc, front)}")]
    return data, lines, []


_QUOTED_VALUE = re.compile(r"""^\s*(?:- +)?(?:[^\s:#'"][^:#]*: +)?(["'])(.*)$""")


def _unclosed_quote(front: str, before: int) -> int | None:
    """The file line of the first value, in the lines before file line ``before``, that opens a
    quote and does not close it on its line (a value YAML reads on into the lines after)."""
    for n, line in enumerate(front.split("\n")[: max(0, before - 2)], 2):
        m = _QUOTED_VALUE.match(line)
        if m is None:
            continue
        rest = m.group(2).replace("\\\\", "").replace('\\"', "") if m.group(1) == '"' else m.group(2).replace("''", "")
        if m.group(1) not in rest:
            return n
    return None


def _yaml_error_line(exc: yaml.YAMLError) -> int:
    """The file line to blame: where an unclosed bracket or quote opened, or a line without its
    ':' began, else where parsing failed."""
    context = getattr(exc, "context", None) or ""
    mark = getattr(exc, "context_mark", None) if any(c in context for c in ("flow", "quoted", "simple key")) else None
    mark = mark or getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 2 if mark else 2


#: PyYAML's reasons (a part of them), and what they mean in a record's front matter.
_YAML_WORDS = (
    ("tab", "a tab: YAML indents with spaces only"),
    ("cannot start any token", "a value cannot start with {char}: put the value in quotes"),
    ("mapping values are not allowed", "a ': ' inside a value (put the value in quotes: \"...\"), or a key "
     "indented unlike the ones around it"),
    ("end of stream", "a quote opened here is never closed"),
    ("expected ':'", "a line that is neither 'key: value' nor a list item: a quote left open above it, or a "
     "value carried over to a line of its own?"),
    ("expected '-' indicator", "the indentation does not line up with the lines above: indent list items and "
     "keys alike, with spaces"),
    ("expected <block end>", "the indentation does not line up with the lines above: indent list items and "
     "keys alike, with spaces"),
    ("expected key", "the indentation does not line up with the lines above: indent list items and keys alike, "
     "with spaces"),
    ("unknown escape", "a backslash in double quotes starts an escape YAML does not know: use single quotes, "
     "or write it twice (\\\\)"),
    ("expected ',' or", "a list in [ ] or a mapping in { } that is not closed, or holds an unquoted ':' or ','"),
    ("alias", "a value that starts with '*' reads as a YAML alias: put it in quotes"),
    ("alphabetic or numeric", "a value that starts with '&' or '*' reads as a YAML anchor or alias: put it in "
     "quotes"),
)


def _yaml_reason(exc: yaml.YAMLError, front: str) -> str:
    """What PyYAML's complaint means, in words, then PyYAML's own reason (without its marks,
    which count lines of the front matter only)."""
    reason = " ".join((getattr(exc, "problem", None) or str(exc)).split())
    mark = getattr(exc, "problem_mark", None)
    lines = front.split("\n")
    line = lines[mark.line] if mark and mark.line < len(lines) else ""
    char = line[mark.column] if mark and mark.column < len(line) else ""
    # The C parser says of a tab only that it "cannot start any token".
    words = next((said for part, said in _YAML_WORDS if part in ("tab" if char == "\t" else reason)), None)
    return f"{words.replace('{char}', repr(char))} ({reason})" if words else reason


def _walk(node: yaml.Node, path: str, lines: dict[str, int], problems: list[Problem], shown: str, visited: set[int] | None = None) -> None:
    visited = set() if visited is None else visited
    if id(node) in visited:  # an alias: refused, as expanding nested ones grows exponentially
        problems.append(Problem(shown, node.start_mark.line + 2,
                                f"{path}: the value anchored here is reused with a YAML alias ('*'); write it out instead"))
        return
    visited.add(id(node))
    lines[path] = node.start_mark.line + 2
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                problems.append(Problem(shown, key.start_mark.line + 2, f"field {name!r} is given twice"))
            seen.add(name)
            child = f"{path}.{name}" if path else name
            _walk(value, child, lines, problems, shown, visited)
            lines[child] = key.start_mark.line + 2
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, f"{path}[{i}]", lines, problems, shown, visited)


_LAST_PART = re.compile(r"(\[\d+\]|\.[^.\[]+)$")


def _line_for(lines: dict[str, int], path: str) -> int:
    """The line of ``path``, or of its nearest parent that has one."""
    while path and path not in lines:
        parent = _LAST_PART.sub("", path)
        path = parent if parent != path else ""
    return lines.get(path, 2)


def _pydantic_problem(shown: str, lines: dict[str, int], err: ErrorDetails) -> Problem:
    path = ""
    for part in err["loc"]:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    kind = err["type"]
    allowed = err.get("ctx", {}).get("expected", "")
    if kind == "missing":
        message = f"missing required field {path!r}"
    elif kind == "extra_forbidden":
        message = f"unknown field {path!r}"
    elif err.get("input") in (None, "", []) and kind in ("string_type", "string_too_short", "list_type", "too_short",
                                                         "literal_error"):
        message = f"{path} is empty: fill it in" + (f" with one of {allowed}" if allowed else "")
    elif kind == "literal_error":
        message = f"{path}: {err['input']!r} is not one of {allowed}"
    else:
        message = f"{path}: {err['msg'][0].lower()}{err['msg'][1:]}".replace("Value error, ", "")
        message = message.replace(": value error, ", ": ")
    return Problem(shown, _line_for(lines, path), message)


# ---------------------------------------------------------------------------------------------
# The body: the site's '##' sections in order, any others as free prose; in the fixes section,
# one '###' per fix in the order to try them, with '####' variants named by the site's variants field


def parse_body(body: str, first_line: int, schema: Schema) -> tuple[dict[str, str], list[Fix], list[tuple[int, str]]]:
    """Split the prose into its sections and fixes; return them with every problem as (line, message)."""
    problems: list[tuple[int, str]] = []
    lines = body.splitlines(keepends=True)
    end = first_line + body.count("\n")
    headings = [b for b in outline(body, first_line) if isinstance(b, Heading)]
    for h in headings:
        if h.level == 1:
            problems.append((h.line, "no '#' title in the body: the page title comes from 'title'"))

    def text(start: Heading, stop: int) -> str:
        return "".join(lines[start.line - first_line + 1 : stop - first_line]).strip()

    tops = [h for h in headings if h.level == 2]
    sections: dict[str, str] = {}
    fixes: list[Fix] = []
    for n, h in enumerate(tops):
        stop = tops[n + 1].line if n + 1 < len(tops) else end + 1
        if h.title in sections:
            problems.append((h.line, f"section {h.title!r} appears twice"))
        sections[h.title] = text(h, stop)
        if not _written(sections[h.title]):
            problems.append((h.line, f"section '## {h.title}' is empty"))
        if h.title == schema.fixes_section:
            fixes = _fixes([x for x in headings if h.line < x.line < stop], stop, text, schema, problems)
            if not fixes:
                problems.append((h.line, f"'## {h.title}' needs at least one '### <what to do>' fix"))
    for name in schema.sections:
        if name not in sections:
            problems.append((end, f"missing section '## {name}'"))
    order = [h.title for h in tops if h.title in schema.sections]
    if order != [name for name in schema.sections if name in sections]:
        problems.append((first_line, f"sections must come in this order: {', '.join(schema.sections)}"))
    return sections, fixes, problems


def _written(text: str) -> bool:
    """Whether a section holds more than blank lines and MyST comments (``% ...``)."""
    return any(line.strip() and not line.lstrip().startswith("%") for line in text.split("\n"))


def _fixes(headings: list[Heading], stop: int, text: Callable[[Heading, int], str], schema: Schema,
           problems: list[tuple[int, str]]) -> list[Fix]:
    """The ``###`` fixes among the headings of the fixes section, each with its ``####`` variants."""
    tops = [h for h in headings if h.level == 3]
    variants_field = schema.variants
    fixes = []
    for n, h in enumerate(tops):
        fix_stop = tops[n + 1].line if n + 1 < len(tops) else stop
        variants: list[str] = []
        for sub in (x for x in headings if x.level == 4 and h.line < x.line < fix_stop):
            if variants_field is None or (value := variants_field.named_by(sub.title)) is None:
                continue
            if value in variants:
                problems.append((sub.line, f"fix {h.title!r} has two variants for {variants_field.label_of(value)}"))
            variants.append(value)
        fixes.append(Fix(h.title, text(h, fix_stop), h.line, tuple(variants)))
    return fixes


# ---------------------------------------------------------------------------------------------
# The catalogue


@dataclasses.dataclass
class Catalogue:
    """Every record under a folder, keyed by id."""

    records: dict[str, Record]

    @functools.cached_property
    def names(self) -> dict[str, Record]:
        """Each record's id, codes and aliases, folded (case and runs of white space do not count),
        to the record: the one map every lookup by name uses.  Ids come first; otherwise the first
        record to claim a name keeps it (two records claiming one name is a problem
        :func:`load_catalogue` reports)."""
        names = {folded(id_): record for id_, record in self.records.items()}
        for record in self.records.values():
            for name in (*record.codes, *record.aliases):
                names.setdefault(folded(name), record)
        return names

    def find(self, name: str) -> Record | None:
        """A record by id, code or alias; case and runs of white space do not count."""
        return self.names.get(folded(name))


def related_both_ways(catalogue: Catalogue) -> dict[str, list[str]]:
    """Id -> the ids the record lists in ``related``, then those of the records that list it."""
    reverse: dict[str, list[str]] = {}
    for id_ in sorted(catalogue.records):
        for rel in catalogue.records[id_].related:
            reverse.setdefault(rel, []).append(id_)
    return {id_: list(r.related) + [x for x in reverse.get(id_, []) if x not in r.related]
            for id_, r in catalogue.records.items()}


def record_files(folder: Path) -> list[Path]:
    """The files at a record's place, ``<source>/<id>.md``: FIFOs and devices too, to be refused."""
    return sorted(p for p in folder.glob("*/*.md") if p.exists() and not p.is_dir())


def stray_files(folder: Path) -> list[Path]:
    """Markdown files under ``folder`` that are not at a record's place, ``<source>/<id>.md``."""
    return sorted(p for p in folder.rglob("*.md") if len(p.relative_to(folder).parts) != 2)


#: What :func:`load_catalogue` may reuse: file path -> (digest of its bytes, the record it gave).
RecordCache = dict[str, tuple[str, Record]]


def load_catalogue(folder: Path, *, schema: Schema = Schema(), root: Path | None = None,
                   cache: RecordCache | None = None, max_bytes: int = MAX_RECORD_BYTES) -> tuple[Catalogue, list[Problem]]:
    """Load every record; return what loaded and every problem found, files in order.

    A Markdown file elsewhere than ``<folder>/<source>/<id>.md`` is reported, as no record is
    read from it.  A record file that is not a regular file (a FIFO, a device), or a symbolic link
    leading out of ``root`` (or of ``folder`` without a root), is refused unread.  With ``cache``,
    a file whose bytes are unchanged reuses its record instead of being parsed and checked
    again; ``cache`` is updated to the files just loaded.  The checks across records always run.
    :func:`.spread.load_spread` does the same in several processes.
    """
    problems, paths = placed_files(folder, root)
    fresh: RecordCache = {}
    loaded = []
    for path in paths:
        try:
            loaded.append(_load_cached(path, schema, root, cache, fresh, max_bytes))
        except RecordError as exc:
            problems += exc.problems
    records, across = checks_across(folder, loaded)
    problems += across + claimed_by_others(records)
    if cache is not None:
        cache.clear()
        cache.update(fresh)
    return Catalogue(records), sorted(problems, key=lambda p: (p.path, p.line))


def placed_files(folder: Path, root: Path | None) -> tuple[list[Problem], list[Path]]:
    """The record files to read, and a problem for each file that is not read: one elsewhere than
    ``<source>/<id>.md``, one that is not a regular file, and one that is a symbolic link leading
    out of ``root`` (or ``folder``)."""
    problems = [Problem(_link_path(path, root), 1, f"not read as a record: records are {folder.name}/<source>/<id>.md")
                for path in stray_files(folder)]
    paths = []
    for path in record_files(folder):
        kind = not_a_file(path)
        if kind is not None:
            problems.append(Problem(_link_path(path, root), 1, f"not read: it is {kind}, not a file"))
            continue
        if leaves(path, root or folder):
            problems.append(Problem(_link_path(path, root), 1, "a symbolic link to a file outside the source folder; "
                                    "put the record itself here"))
        else:
            paths.append(path)
    return problems, paths


def checks_across(folder: Path, loaded: list[Record]) -> tuple[dict[str, Record], list[Problem]]:
    """The records by id, and what is wrong between them: an id, code or alias used twice, a
    related id that no record has (the checks of examples against other records aside)."""
    records: dict[str, Record] = {}
    problems: list[Problem] = []
    owners: dict[str, Record] = {}  # lower-cased id, code or alias -> record
    for record in loaded:
        for key, field in [(record.id, "id"), *((c, "code") for c in record.codes), *((a, "aliases") for a in record.aliases)]:
            if not key:
                continue
            other = owners.get(folded(key))
            if other is not None and other is not record:
                problems.append(Problem(record.path, record.line_of(field), f"{field} {key!r} is already used by {other.path}"))
            owners.setdefault(folded(key), record)
        records.setdefault(record.id, record)
    failed = {path.stem for path in record_files(folder)} - set(records)  # already reported
    for record in records.values():
        for i, rel in enumerate(record.related):
            if rel in failed:
                continue
            if rel not in records:
                problems.append(Problem(record.path, record.line_of(f"related[{i}]"), f"related[{i}]: no record has the id {rel!r}"))
            elif rel == record.id:
                problems.append(Problem(record.path, record.line_of(f"related[{i}]"), "a record cannot be related to itself"))
    problems += _redirect_clashes(records)
    return records, problems


def leaves(path: Path, boundary: Path) -> bool:
    """Whether ``path``, its symbolic links followed, lies outside ``boundary``."""
    return not path.resolve().is_relative_to(boundary.resolve())


def _link_path(path: Path, root: Path | None) -> str:
    """A path as written in the tree, its links not followed."""
    if root is not None and path.absolute().is_relative_to(root.absolute()):
        return path.absolute().relative_to(root.absolute()).as_posix()
    return path.as_posix()


def _load_cached(path: Path, schema: Schema, root: Path | None, cache: RecordCache | None,
                 fresh: RecordCache, max_bytes: int) -> Record:
    def load() -> Record:
        return load_record(path, schema=schema, root=root, max_bytes=max_bytes)

    digest = file_digest(path, schema, max_bytes) if cache is not None else None
    if digest is None:
        return load()
    hit = cache.get(str(path)) if cache is not None else None
    record = hit[1] if hit is not None and hit[0] == digest else load()
    fresh[str(path)] = (digest, record)
    return record


def redirect_pages(record: Record) -> dict[str, str]:
    """The file name of each redirect page of ``record`` (none where it opts out) -> the code or
    alias it stands for; not one that would be the record's own page."""
    if not record.redirects:
        return {}
    pages: dict[str, str] = {}
    for name in (*record.codes, *record.aliases):
        page = redirect_name(name)
        if page and page.casefold() != record.id.casefold():  # case-insensitive file systems too
            pages.setdefault(page, name)
    return pages


def _redirect_clashes(records: dict[str, Record]) -> list[Problem]:
    """Two pages of one folder, a record's or a redirect, whose file names differ in case at most."""
    taken: dict[tuple[str, str], tuple[Record, str | None]] = {
        (r.source, r.id.casefold()): (r, None) for r in records.values()}
    problems = []
    for record in sorted(records.values(), key=lambda r: r.path):
        for page, name in redirect_pages(record).items():
            owner, other = taken.setdefault((record.source, page.casefold()), (record, name))
            if owner is record and other == name:
                continue
            field = "code" if name in record.codes else "aliases"
            what = f"the page of {owner.path}" if other is None else f"the redirect page of {owner.path}'s {other!r}"
            problems.append(Problem(record.path, record.line_of(field), f"{field} {name!r} would have its redirect "
                                    f"page at {page}, which is {what}: set 'redirects: false' on one of them"))
    return problems


def file_digest(path: Path, schema: Schema, max_bytes: int) -> str | None:
    """What a record file's cache entry is valid for: its bytes and the site's declaration; None for
    a file that is not read (too large, unreadable), which loading reports."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        return hashlib.blake2b(read_file(path, max_bytes), digest_size=16, key=schema.fingerprint.encode()).hexdigest()
    except (OSError, Refused):
        return None


def claimed_by_others(records: dict[str, Record], index: Any = None, ids: list[str] | None = None) -> list[Problem]:
    """Each example, looked up as a paste, must have one exact answer: its own record.

    A template or name of another record that the lookup would answer exactly, on the
    example's line ahead of its own record or on another of its lines, claims what is not its
    own; one that matches the same line less specifically, or a summary line (a message marked
    ``summary_line``), is only shown as "also matches" and is fine.  The lookup short-lists
    templates by their words, so the check scales with the catalogue instead of with examples x
    templates.  ``index``: the lookup index of ``records``, where the caller has it; ``ids``: the
    records whose examples to check (all).
    """
    from .lookup import build_index, exact_matches, normalise  # the lookup imports this module

    index = index if index is not None else build_index(Catalogue(records))
    problems = []
    for record in (records[i] for i in ids) if ids is not None else records.values():
        for i, message in enumerate(record.messages):
            for j, example in enumerate(message.examples):
                exact = [m for m in exact_matches(index, normalise(example.text)) if m.exact]
                key = f"messages[{i}].examples[{j}]"
                for m in exact:
                    if m.record["id"] != record.id:
                        other = records[m.record["id"]]
                        what = "template" if m.template in (t.text for t in other.templates) else "name"
                        problems.append(Problem(record.path, record.line_of(key),
                                                f"{key} is answered exactly by {m.record['id']}'s {what} {m.template!r} as well: "
                                                "make that more specific, or move the example to that record"))
                if record.id not in {m.record["id"] for m in exact}:
                    problems.append(Problem(record.path, record.line_of(key),
                                            f"{key} is not answered exactly by its own record: the lookup reads it as "
                                            "a mention, or another record's template wins its line"))
    return problems
