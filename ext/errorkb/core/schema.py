"""What a site's records hold beyond the core: its fields and its sections, declared in ``conf.py``.

Every record has the core fields (``id``, ``code``, ``title``, ``summary``, ``source``,
``messages``, ``related``, ``aliases``, ``references``).  A site adds its own with
``errorkb_fields``, each a mapping such as::

    errorkb_fields = [
        {"name": "severity", "label": "Severity", "values": {"error": "ERROR", "fatal": "FATAL"},
         "required": True, "badge": "danger", "column": True, "filter": True, "index": True},
        {"name": "since", "label": "Since version"},
    ]

and names the ``##`` sections every record must have, in order, with ``errorkb_sections``.
:class:`Schema` turns the declaration into the pydantic model that validates a record's front
matter, so a wrong value is reported at its file and line like any other.  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, field_validator

SLUG = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
#: A field's name: a YAML key that is also a Python identifier.
NAME = r"^[a-z][a-z0-9_]*$"
#: The colours a badge may take (sphinx-design's; ``plain`` is outlined and muted).
BADGE_COLOURS = ("primary", "info", "secondary", "warning", "success", "danger", "plain")
#: Names a site field may not take: the core fields and the body's parts.
RESERVED = frozenset({"id", "code", "codes", "title", "summary", "source", "messages", "related", "aliases",
                      "references", "diagnoses", "checked", "redirects", "fixes", "sections", "url", "page"})


class SchemaError(ValueError):
    """A declaration that cannot be used; the message names the option and the entry."""


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One site field of the front matter, and where the site shows it."""

    name: str  # the front-matter key
    label: str  # shown on badges, column heads, filters and index pages
    values: Mapping[str, str] = dataclasses.field(default_factory=dict)  # slug -> label; empty: free text
    open: bool = False  # with values: other slugs are accepted too, shown as written
    many: bool = False  # a list of values
    required: bool = False
    badge: str | None = None  # the badge colour on record pages, or no badge
    column: bool = False  # a column of the catalogue table
    filter: bool = False  # a filter of the catalogue table
    index: bool = False  # a page per value under ``by/<slug>/``, and a section of the overview
    json: bool = True  # a key of each record in errors.json
    variants: bool = False  # a fix's '####' headings naming a value become tabs, one per value
    slug: str = ""  # the field's name in URLs (``by/<slug>/<value>``, ``?<slug>=``); the name by default

    def __post_init__(self) -> None:
        if not self.slug:
            object.__setattr__(self, "slug", self.name)

    @property
    def free(self) -> bool:
        """Free text: any string, shown as written (not an open list of slugs, as sources are)."""
        return not self.values and not self.open

    def label_of(self, value: str) -> str:
        return self.values.get(value, value)

    def named_by(self, heading: str) -> str | None:
        """The value that a heading such as ``PyTorch`` or ``pytorch`` names, if any."""
        folded = heading.strip().casefold()
        return next((slug for slug, label in self.values.items() if folded in (slug, label.casefold())), None)


@dataclasses.dataclass(frozen=True)
class Schema:
    """A site's declaration: its fields, its required sections and the section that holds fixes."""

    fields: tuple[FieldSpec, ...] = ()
    sections: tuple[str, ...] = ("Causes", "Fixes")
    fixes_section: str = "Fixes"
    source_labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    require_checked: bool = False  # every record says what it was checked against

    def field(self, name: str) -> FieldSpec:
        return next(f for f in self.dimensions if f.name == name)

    @functools.cached_property
    def source(self) -> FieldSpec:
        """The core field ``source`` (the folder of a record), shown and indexed like a site field."""
        return FieldSpec("source", "Source", self.source_labels, open=True, required=True, badge="primary",
                         filter=True, index=True)

    @property
    def dimensions(self) -> tuple[FieldSpec, ...]:
        """The source, then the site's fields."""
        return (self.source, *self.fields)

    @property
    def variants(self) -> FieldSpec | None:
        """The field whose values name a fix's variants, if the site has one."""
        return next((f for f in self.fields if f.variants), None)

    @functools.cached_property
    def fingerprint(self) -> str:
        """Changes whenever the declaration does: records checked against another must be checked again."""
        data = [dataclasses.asdict(f) | {"values": dict(f.values)} for f in self.fields]
        text = json.dumps([data, self.sections, self.fixes_section, self.require_checked], sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    def model(self, base: type[BaseModel]) -> type[BaseModel]:
        """``base`` (the core front matter) with the site's fields added.

        The model is named after the declaration's fingerprint and found by that name in this
        module, so that records pickled by one build load in the next (once it made the model).
        """
        name = f"{base.__name__}_{self.fingerprint}"
        if name not in _MODELS:
            _MODELS[name] = _model(name, base, self.fields)
        return _MODELS[name]


_MODELS: dict[str, type[BaseModel]] = {}


def __getattr__(name: str) -> type[BaseModel]:  # the unpickler's lookup of a site's model
    try:
        return _MODELS[name]
    except KeyError:
        raise AttributeError(name) from None


def _field_type(spec: FieldSpec) -> tuple[Any, Any]:
    if spec.values and not spec.open:
        one: Any = Literal[tuple(spec.values)]  # type: ignore[misc]
    else:
        one = str
    if spec.many:
        return list[one], Field(min_length=1) if spec.required else []
    if spec.required:
        return one, ...
    return one | None, None


def _model(name: str, base: type[BaseModel], fields: tuple[FieldSpec, ...]) -> type[BaseModel]:
    definitions = {spec.name: _field_type(spec) for spec in fields}
    slugs = [spec.name for spec in fields if spec.values and spec.open]
    texts = [spec.name for spec in fields if not spec.values]
    validators: dict[str, Any] = {}
    if slugs:
        validators["_site_slugs"] = field_validator(*slugs)(_slugs)
    if texts:
        validators["_site_texts"] = field_validator(*texts)(_texts)
    return create_model(name, __base__=base, __module__=__name__, __validators__=validators, **definitions)


def _slugs(cls: type, value: Any) -> Any:
    for v in value if isinstance(value, list) else [value]:
        if v is not None and not re.match(SLUG, v):
            raise ValueError(f"{v!r} is not a lower-case slug such as 'linux'")
    return value


def _texts(cls: type, value: Any) -> Any:
    for v in value if isinstance(value, list) else [value]:
        if v is not None and not v.strip():
            raise ValueError("is empty")
    return value


# ---------------------------------------------------------------------------------------------
# Reading the declaration from configuration values

_FIELD_KEYS = tuple(f.name for f in dataclasses.fields(FieldSpec))


def schema_from(fields: Any, sections: Any, fixes_section: Any = "Fixes", source_labels: Any = None,
                require_checked: bool = False) -> Schema:
    """The :class:`Schema` of ``errorkb_fields``, ``errorkb_sections``, ``errorkb_fixes_section``,
    ``errorkb_source_labels`` and ``errorkb_require_checked``; raise :class:`SchemaError` naming
    what is wrong."""
    if not isinstance(fields, Sequence) or isinstance(fields, str):
        raise SchemaError("errorkb_fields must be a list of field declarations (mappings)")
    specs = tuple(_field(i, entry) for i, entry in enumerate(fields))
    names = [spec.name for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise SchemaError(f"errorkb_fields declares {name!r} twice")
    slugs = [spec.slug for spec in specs if spec.index or spec.filter] + ["source"]
    for slug in slugs:
        if slugs.count(slug) > 1:
            raise SchemaError(f"errorkb_fields: two fields take the name {slug!r} in URLs (set 'slug' on one)")
    if sum(spec.variants for spec in specs) > 1:
        raise SchemaError("errorkb_fields: only one field may name a fix's variants ('variants': True)")
    if not isinstance(sections, Sequence) or isinstance(sections, str) or not all(
            isinstance(s, str) and s.strip() for s in sections):
        raise SchemaError("errorkb_sections must be a list of section titles, such as ['Causes', 'Fixes']")
    if len(set(sections)) != len(sections):
        raise SchemaError("errorkb_sections names a section twice")
    if not isinstance(fixes_section, str) or not fixes_section.strip():
        raise SchemaError("errorkb_fixes_section must be the title of the section that holds the fixes")
    labels = source_labels or {}
    if not isinstance(labels, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        raise SchemaError("errorkb_source_labels must map source folder names to labels (strings)")
    return Schema(specs, tuple(sections), fixes_section, dict(labels), require_checked)


def _field(i: int, entry: Any) -> FieldSpec:
    where = f"errorkb_fields[{i}]"
    if not isinstance(entry, Mapping):
        raise SchemaError(f"{where} must be a mapping such as {{'name': 'severity', 'label': 'Severity'}}")
    unknown = sorted(set(entry) - set(_FIELD_KEYS))
    if unknown:
        raise SchemaError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))} "
                          f"(known: {', '.join(_FIELD_KEYS)})")
    name = entry.get("name")
    if not isinstance(name, str) or not re.match(NAME, name):
        raise SchemaError(f"{where}: 'name' must be a lower-case identifier such as 'severity'")
    if name in RESERVED:
        raise SchemaError(f"{where}: {name!r} is a core field of every record; choose another name")
    where = f"errorkb_fields[{i}] ({name})"
    label = entry.get("label", name.replace("_", " ").capitalize())
    values = entry.get("values") or {}
    if not isinstance(label, str) or not label.strip():
        raise SchemaError(f"{where}: 'label' must be a non-empty string")
    if not isinstance(values, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise SchemaError(f"{where}: 'values' must map each allowed value to its label, such as {{'fatal': 'FATAL'}}")
    for value in values:
        if not re.match(SLUG, value):
            raise SchemaError(f"{where}: value {value!r} is not a lower-case slug such as 'run-time'")
    flags = {key: entry.get(key, default) for key, default in
             (("open", False), ("many", False), ("required", False), ("column", False), ("filter", False),
              ("index", False), ("json", True), ("variants", False))}
    for key, flag in flags.items():
        if not isinstance(flag, bool):
            raise SchemaError(f"{where}: {key!r} must be True or False")
    badge = entry.get("badge")
    if badge is True:
        badge = "secondary"
    if badge is not None and badge is not False and badge not in BADGE_COLOURS:
        raise SchemaError(f"{where}: 'badge' must be one of {', '.join(BADGE_COLOURS)} (or False)")
    if not values and (flags["index"] or flags["filter"] or flags["variants"] or flags["open"]):
        raise SchemaError(f"{where}: a free-text field cannot be a filter, index or variants; give it 'values'")
    slug = entry.get("slug", name)
    if not isinstance(slug, str) or not re.match(SLUG, slug):
        raise SchemaError(f"{where}: 'slug' must be a lower-case slug such as 'platform'")
    return FieldSpec(name=name, label=label.strip(), values=dict(values), badge=badge or None, slug=slug, **flags)
