"""The ``errorkb_*`` options, declared once: :class:`Settings`.

Each field of :class:`Settings` is an option, ``errorkb_`` and its name, declared with
:func:`option`: its type, its default as ``conf.py`` writes it, its doc and what Sphinx redoes
when it changes.  From that one declaration come the options Sphinx registers
(:mod:`errorkb.site.config`), the settings the tools that run without Sphinx read from a
site's ``conf.py`` (:mod:`errorkb.tools.project`), and the options' reference in the docs
(``err:options``, :mod:`errorkb.site.reference`).  pydantic validates the values, the site's
field and kind declarations included, so a bad one is refused with a :class:`SettingsError`
that names it.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import re
import runpy
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
)

from .kinds import Kind, distinct_kinds
from .languages import Language, languages_from
from .records import MAX_RECORD_BYTES
from .schema import SLUG, FieldSpec, Schema, distinct_fields
from .values import parse_size

PREFIX = "errorkb_"


#: What Sphinx redoes when an option changes: read every page again, write them again, nothing.
Rebuild = Literal["env", "html", ""]


def option(default: Any, doc: str, rebuild: Rebuild = "env") -> Any:
    """A field of :class:`Settings`: the option's default as ``conf.py`` writes it (validated like
    a value set there), its doc, and what Sphinx redoes when it changes (``env``: read every page
    again, ``html``: write them again, ``""``: nothing)."""
    meta = {"doc": doc, "rebuild": rebuild}
    if isinstance(default, list | dict):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty")
    return value


def _distinct(values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        if values.count(value) > 1:
            raise ValueError(f"names {value!r} twice")
    return values


def _slug(value: str) -> str:
    if not re.match(SLUG, value):
        raise ValueError(f"{value!r} is not a lower-case slug such as 'sqlstate'")
    return value


def _folder(value: str) -> str:
    path = PurePosixPath(value.replace(os.sep, "/").strip())
    if not value.strip() or path.is_absolute() or ".." in path.parts or str(path) == ".":
        raise ValueError(f"{value!r} is not a folder inside the source folder, such as 'errors'")
    return str(path)


def _yaml_file(value: str) -> str:
    path = PurePosixPath(value.replace(os.sep, "/"))
    if path.is_absolute() or ".." in path.parts or path.suffix not in (".yaml", ".yml"):
        raise ValueError(f"{value!r} is not a YAML file inside the source folder")
    return str(path)


def _relative_file(value: str) -> str:
    path = PurePosixPath(value.replace(os.sep, "/").strip())
    if not value.strip() or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value!r} is not a file inside the source folder")
    return str(path)


def _schemes(value: frozenset[str]) -> frozenset[str]:
    for scheme in value:
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*$", scheme):
            raise ValueError(f"{scheme!r} is not a URL scheme such as 'https'")
    return frozenset(scheme.lower() for scheme in value)


def _languages(value: Any) -> dict[str, Language]:
    if not isinstance(value, Mapping):
        raise ValueError("is not a mapping of language names to what runs them, such as "
                         "{'javascript': {'command': 'node {file}', 'suffix': '.js'}}")
    return languages_from(value)


def _size(value: Any) -> int:
    parsed = parse_size(value) if isinstance(value, str) else None
    if not parsed:
        raise ValueError(f"{value!r} is not a size such as '4G' or '256K'")
    return int(parsed)


def _release(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ValueError(f"{value!r} is a number: quote releases ('2.10'), as 2.10 reads as 2.1")
    return value


def _known_fields(kinds: tuple[Kind, ...], info: ValidationInfo) -> tuple[Kind, ...]:
    """A kind's ``records`` name the source or a declared field (validated before the kinds)."""
    known = ["source", *(spec.name for spec in info.data.get("fields", ()))]
    for kind in kinds:
        for name in kind.records:
            if name not in known:
                raise ValueError(f"the kind {kind.name!r} takes its records by the field {name!r}; "
                                 f"the fields are {', '.join(known)}")
    return kinds


Text = Annotated[StrictStr, AfterValidator(_not_blank)]
Slug = Annotated[StrictStr, AfterValidator(_slug)]
Folder = Annotated[StrictStr, AfterValidator(_folder)]
YamlFile = Annotated[StrictStr, AfterValidator(_yaml_file)]
RelativeFile = Annotated[StrictStr, AfterValidator(_relative_file)]
Size = Annotated[int, BeforeValidator(_size)]  # bytes, from a size such as '4G'
Release = Annotated[Text, BeforeValidator(_release)]


@dataclasses.dataclass(frozen=True)
class Ceilings:
    """The most a snippet of the site may ask for (``errorkb_max_timeout``, ``errorkb_max_memory``)."""

    timeout: int = 600
    memory: int = 4 * 1024**3  # JAX's CPU runtime needs about 2 GiB of address space to start


@dataclasses.dataclass(frozen=True)
class Settings:
    """The ``errorkb_*`` options of a site, validated and normalised: made by :func:`settings_from`."""

    __pydantic_config__ = {"extra": "forbid", "validate_default": True}

    records_dir: Folder = option(
        "errors", "Folder of the error records, relative to the source folder: one ``<source>/<id>.md`` file per error.")
    fields: Annotated[tuple[FieldSpec, ...], AfterValidator(distinct_fields)] = option(
        [], "The site's own front-matter fields, beyond the core ones: a list of mappings with ``name``, ``label``, "
        "``values`` (allowed value -> label; none: free text), ``open``, ``many``, ``required``, ``badge`` "
        "(a colour), ``column``, ``filter``, ``index``, ``json``, ``variants`` and ``slug``.")
    sections: Annotated[tuple[Text, ...], AfterValidator(_distinct)] = option(
        ["Causes", "Fixes"], "The ``##`` sections every record has, in this order; a record may add others, as free prose.")
    fixes_section: Text = option(
        "Fixes", "The section whose ``###`` headings are the fixes, numbered in the order to try them.")
    source_labels: dict[Slug, StrictStr] = option(
        {}, "Labels of the sources (the folders under the records folder), e.g. ``{'sqlite': 'SQLite'}``; "
        "a source without one is shown as written.")
    code_in_title: StrictBool = option(
        True, "Show a record's code before its title (page titles, links, ``llms.txt``); False: the title alone, "
        "the code beside it (for sites whose codes are long, or invented).")
    run_examples: StrictBool = option(
        True, "Run the snippets during every build, so pages show real statuses (results are cached); "
        "False shows cached results only. ``-b examples`` always runs them.", "")
    base_url: StrictStr = option("", "Public URL of the site, used in absolute links (sitemap, Open Graph).", "html")
    hardware: Annotated[StrictStr, AfterValidator(str.strip)] = option(
        "", "The hardware a snippet's ``:requires:`` may name, and how a machine is probed for it: a module "
        "(``package.module``, its ``PROFILE``, or ``package.module:NAME``), such as the one errorkb ships for "
        "devices (see the guide to snippets); empty: none.")
    max_timeout: Annotated[StrictInt, Field(gt=0)] = option(
        Ceilings.timeout, "The longest ``:timeout:`` a snippet may ask for, in seconds.")
    max_memory: Size = option(
        f"{Ceilings.memory // 1024**3}G", "The most ``:memory:`` a snippet may ask for, as a size such as ``4G``.")
    languages: Annotated[dict[str, Language], BeforeValidator(_languages)] = option(
        {}, "Languages a snippet may be written in (``:language:``) beyond ``python`` and ``bash``: name -> "
        "``{'command': 'node {file}', 'suffix': '.js'}``, with optional ``highlight`` (a Pygments name), "
        "``prompt``, ``continuation`` and ``session_highlight`` for ``shows`` sessions.")
    snippet_requirements: RelativeFile = option(
        "snippet-requirements.txt", "The pip requirements file, relative to the source folder, that declares the "
        "Python packages the snippets may name in ``:requires:`` (and that the set-up installs); any other word "
        "there that names no hardware is a program on the sandbox's PATH.")
    max_record_size: Size = option(
        f"{MAX_RECORD_BYTES // 1024}K",
        "The largest record file, as a size such as ``256K``; a larger one is refused before it is parsed.")
    allow_raw_html: StrictBool = option(
        False, "Let records publish raw HTML (HTML blocks and inline tags in the prose, the ``raw`` directive); "
        "by default each is refused at its line.")
    url_schemes: Annotated[frozenset[StrictStr], AfterValidator(_schemes)] = option(
        ["http", "https", "mailto"], "The schemes of the URLs a record's page may link to or show (links, images, "
        "figure and image targets); a relative URL is always allowed, any other scheme (``javascript:``, "
        "``data:``) is refused at its line.")
    repository_url: StrictStr = option(
        "", "The site's GitHub repository (https://github.com/OWNER/REPO): a paste that matches nothing is offered "
        "its missing-error issue form (.github/ISSUE_TEMPLATE/missing-error.yml), prefilled; empty: no such link.",
        "html")
    require_checked: StrictBool = option(
        False, "Require every record to say what its facts were checked against (its ``checked`` field).")
    checked_max_age: Annotated[StrictInt, Field(ge=0)] = option(
        0, "Days after which ``errorkb check`` warns that a record's check is old; 0: never.")
    current_releases: dict[Text, Release] = option(
        {}, "The current release of each product records are checked against, e.g. ``{'Git': '2.47'}``: "
        "a record checked against an older one is listed for review.", "html")
    kinds: Annotated[tuple[Kind, ...], AfterValidator(distinct_kinds), AfterValidator(_known_fields)] = option(
        [], "The kinds of error a paste that matches no record is told apart as: a list of mappings with "
        "``name``, ``title``, ``page`` (its triage page), ``cues`` (phrases that give it away) and "
        "``records`` (a field and the values of the kind's records, among which closest answers are chosen). "
        "The kind without cues is the one a paste gets when it holds none.", "html")
    code_catalogues: dict[Slug, YamlFile] = option(
        {}, "The vendors' catalogues of error codes the site follows: a name (used in URLs) -> a YAML file relative "
        "to the source folder, with ``title``, ``vendor``, ``url`` and ``codes`` (each ``code``, ``meaning`` and "
        "an optional ``url``). The site shows which codes have a record and invites a contribution for the rest.",
        "html")
    llms_summary: StrictStr = option(
        "A knowledge base of error messages. Each error page gives the exact messages, the causes, "
        "the fixes to try in order, and how to tell which cause applies.",
        "What the site is about, in a sentence or two: the summary at the top of ``llms.txt``.", "html")
    opensearch_description: StrictStr = option(
        "Find an error by its message",
        "What a browser's address bar says the site's search does (the OpenSearch description).", "html")
    paste_placeholder: StrictStr = option(
        "Paste an error message or a log",
        "The text shown in an empty paste box (the ``errorkb-paste`` directive): an example of what to paste.", "html")

    @functools.cached_property
    def schema(self) -> Schema:
        return Schema(self.fields, self.sections, self.fixes_section, self.source_labels, self.require_checked)

    @functools.cached_property
    def ceilings(self) -> Ceilings:
        return Ceilings(timeout=self.max_timeout, memory=self.max_memory)

    def is_record_page(self, docname: str) -> bool:
        return docname.startswith(self.records_dir + "/")


@dataclasses.dataclass(frozen=True)
class Option:
    """One option as Sphinx registers it and the docs list it."""

    name: str  # errorkb_...
    default: Any  # as conf.py writes it
    doc: str
    rebuild: Rebuild


OPTIONS: tuple[Option, ...] = tuple(
    Option(PREFIX + f.name, f.default if f.default_factory is dataclasses.MISSING else f.default_factory(),
           f.metadata["doc"], f.metadata["rebuild"])
    for f in dataclasses.fields(Settings))


class SettingsError(ValueError):
    """A bad option: the message names it, and the entry and key where it holds several."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = PREFIX + option


@functools.cache
def _validator() -> TypeAdapter[Settings]:
    return TypeAdapter(Settings)


def settings_from(values: Mapping[str, Any]) -> Settings:
    """The :class:`Settings` of ``errorkb_*`` option values (missing ones take their defaults);
    :class:`SettingsError` names a bad one."""
    try:
        return _validator().validate_python({name.removeprefix(PREFIX): value for name, value in values.items()})
    except ValidationError as exc:
        error = exc.errors()[0]
        raise SettingsError(str(error["loc"][0]), _message(error)) from None


#: The options whose value is a list of declarations, and the keys of one.
_ENTRIES = {"fields": FieldSpec, "kinds": Kind}


def _message(error: Any) -> str:
    """One line for pydantic's first complaint: the option, where in its value, what is wrong."""
    option, *path = error["loc"]
    if path[-1:] == ["[key]"]:  # a mapping's key: the message quotes it
        path = path[:-2]
    if error["type"] == "unexpected_keyword_argument":
        *path, key = path
        known = ", ".join(f.name for f in dataclasses.fields(_ENTRIES[option]))
        return f"{_where(option, path)} has an unknown key {key!r} (the keys: {known})"
    if error["type"] == "missing":
        *path, key = path
        return f"{_where(option, path)} has no {key!r}"
    if error["type"] == "value_error":
        said = str(error["ctx"]["error"])
        return said if said.startswith(PREFIX + option) else f"{_where(option, path)}: {said}"
    what = re.sub(r"a valid (tuple|frozenset)", "a list", error["msg"])  # what conf.py writes
    return f"{_where(option, path)} = {error['input']!r}: {what[0].lower()}{what[1:]}"


def _where(option: str, path: list[Any]) -> str:
    """``errorkb_fields[0]['badge']``: a place in an option's value, as conf.py would write it."""
    return PREFIX + option + "".join(f"[{p}]" if isinstance(p, int) else f"[{p!r}]" for p in path)


def site_options(conf: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``errorkb_*`` options (and the ``extra`` names) set in a ``conf.py``, run as Sphinx runs it."""
    cwd = os.getcwd()
    try:
        os.chdir(conf.parent)
        values = runpy.run_path(str(conf))
    finally:
        os.chdir(cwd)
    names = {option.name for option in OPTIONS} | set(extra)
    return {name: value for name, value in values.items() if name in names}


def line_of(conf: Path, name: str) -> int | None:
    """The line of ``conf`` where ``name`` is last set, if a plain assignment sets it."""
    import ast

    try:
        tree = ast.parse(conf.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Name) and target.id == name]
    return max(lines, default=None)
