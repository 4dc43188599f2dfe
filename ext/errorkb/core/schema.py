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
Each entry is validated into a :class:`FieldSpec` with the other options (:mod:`.settings`), and
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
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, Field, StrictBool, StrictStr, create_model, field_validator

SLUG = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
#: A field's name: a YAML key that is also a Python identifier.
NAME = r"^[a-z][a-z0-9_]*$"
#: Names a site field may not take: the core fields and the body's parts.
RESERVED = frozenset({"id", "code", "codes", "title", "summary", "source", "messages", "related", "aliases",
                      "references", "diagnoses", "checked", "redirects", "fixes", "sections", "url", "page"})


#: The colours a badge may take (sphinx-design's; ``plain`` is outlined and muted).
BadgeColour = Literal["primary", "info", "secondary", "warning", "success", "danger", "plain"]


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One site field of the front matter, and where the site shows it: an entry of
    ``errorkb_fields``, whose keys are these attributes (pydantic checks their types and refuses
    others; :meth:`__post_init__` the rules between them)."""

    __pydantic_config__ = {"extra": "forbid"}

    name: StrictStr  # the front-matter key
    label: StrictStr = ""  # shown on badges, column heads, filters and index pages; the name, capitalised
    values: Mapping[StrictStr, StrictStr] = dataclasses.field(default_factory=dict)  # slug -> label; empty: free text
    open: StrictBool = False  # with values: other slugs are accepted too, shown as written
    many: StrictBool = False  # a list of values
    required: StrictBool = False
    badge: BadgeColour | None = None  # the badge colour on record pages, or no badge
    column: StrictBool = False  # a column of the catalogue table
    filter: StrictBool = False  # a filter of the catalogue table
    index: StrictBool = False  # a page per value under ``by/<slug>/``, and a section of the overview
    json: StrictBool = True  # a key of each record in errors.json
    variants: StrictBool = False  # a fix's '####' headings naming a value become tabs, one per value
    slug: StrictStr = ""  # the field's name in URLs (``by/<slug>/<value>``, ``?<slug>=``); the name by default

    def __post_init__(self) -> None:
        if not re.match(NAME, self.name):
            raise ValueError(f"'name': {self.name!r} is not a lower-case identifier such as 'severity'")
        object.__setattr__(self, "label", self.label.strip() or self.name.replace("_", " ").capitalize())
        object.__setattr__(self, "slug", self.slug or self.name)
        for value in self.values:
            if not re.match(SLUG, value):
                raise ValueError(f"'values': {value!r} is not a lower-case slug such as 'run-time'")
        if not re.match(SLUG, self.slug):
            raise ValueError(f"'slug': {self.slug!r} is not a lower-case slug such as 'platform'")

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


def distinct_fields(fields: tuple[FieldSpec, ...]) -> tuple[FieldSpec, ...]:
    """``errorkb_fields`` as a whole: no core field's name, no free-text filter, index or variants,
    names and names in URLs taken once, one variants field."""
    names = [spec.name for spec in fields]
    for spec in fields:
        if spec.name in RESERVED:
            raise ValueError(f"{spec.name!r} is a core field of every record; choose another name")
        if spec.free and (spec.index or spec.filter or spec.variants or spec.open):
            raise ValueError(f"{spec.name!r} is free text (it has no 'values'): it cannot be open, a filter, "
                             "an index or variants")
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"declares {name!r} twice")
    slugs = [spec.slug for spec in fields if spec.index or spec.filter] + ["source"]
    for slug in slugs:
        if slugs.count(slug) > 1:
            raise ValueError(f"two fields take the name {slug!r} in URLs (set 'slug' on one)")
    if sum(spec.variants for spec in fields) > 1:
        raise ValueError("only one field may name a fix's variants ('variants': True)")
    return fields


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
        return FieldSpec(name="source", label="Source", values=self.source_labels, open=True, required=True,
                         badge="primary", filter=True, index=True)

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

    def model(self, base: type[M]) -> type[M]:
        """``base`` (the core front matter) with the site's fields added.

        The model is named after the declaration's fingerprint and found by that name in this
        module, so that records pickled by one build load in the next (once it made the model).
        """
        name = f"{base.__name__}_{self.fingerprint}"
        if name not in _MODELS:
            _MODELS[name] = _model(name, base, self.fields)
        return cast("type[M]", _MODELS[name])  # made from ``base``, as its name says


M = TypeVar("M", bound=BaseModel)

_MODELS: dict[str, type[BaseModel]] = {}


def __getattr__(name: str) -> type[BaseModel]:  # the unpickler's lookup of a site's model
    try:
        return _MODELS[name]
    except KeyError:
        raise AttributeError(name) from None


def _field_type(spec: FieldSpec) -> tuple[Any, Any]:
    if spec.values and not spec.open:
        one: Any = Literal[tuple(spec.values)]
    else:
        one = str
    if spec.many:
        return list[one], Field(min_length=1) if spec.required else []
    if spec.required:
        return one, ...
    return one | None, None


def _model(name: str, base: type[M], fields: tuple[FieldSpec, ...]) -> type[M]:
    definitions: dict[str, Any] = {spec.name: _field_type(spec) for spec in fields}
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
