"""The ``errorkb_*`` options, declared once, and the typed :class:`Settings` made of them.

The build registers the options and validates them once at ``config-inited``
(:mod:`errorkb.site.config`); the tools that run without Sphinx (the command line, the pytest
plugin) make the same :class:`Settings` from the site's ``conf.py`` (:mod:`errorkb.tools.project`).
Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import os
import re
import runpy
from pathlib import Path, PurePosixPath
from typing import Any

from .records import MAX_RECORD_BYTES
from .schema import SLUG, Schema, SchemaError, schema_from
from .triage import Kind, kinds_from
from .values import parse_size


@dataclasses.dataclass(frozen=True)
class Ceilings:
    """The most a snippet of the site may ask for (``errorkb_max_timeout``, ``errorkb_max_memory``)."""

    timeout: int = 600
    memory: int = 4 * 1024**3  # JAX's CPU runtime needs about 2 GiB of address space to start


@dataclasses.dataclass(frozen=True)
class Option:
    name: str
    default: Any
    types: tuple[type, ...]
    doc: str
    rebuild: str = "env"


OPTIONS: tuple[Option, ...] = (
    Option("errorkb_records_dir", "errors", (str,),
           "Folder of the error records, relative to the source folder: one ``<source>/<id>.md`` file per error."),
    Option("errorkb_fields", [], (list, tuple),
           "The site's own front-matter fields, beyond the core ones: a list of mappings with ``name``, ``label``, "
           "``values`` (allowed value -> label; none: free text), ``open``, ``many``, ``required``, ``badge`` "
           "(a colour), ``column``, ``filter``, ``index``, ``json``, ``variants`` and ``slug``."),
    Option("errorkb_sections", ["Causes", "Fixes"], (list, tuple),
           "The ``##`` sections every record has, in this order; a record may add others, as free prose."),
    Option("errorkb_fixes_section", "Fixes", (str,),
           "The section whose ``###`` headings are the fixes, numbered in the order to try them."),
    Option("errorkb_source_labels", {}, (dict,),
           "Labels of the sources (the folders under the records folder), e.g. ``{'pytorch': 'PyTorch'}``; "
           "a source without one is shown as written."),
    Option("errorkb_run_examples", True, (bool,),
           "Run the snippets during every build, so pages show real statuses (results are cached); "
           "False shows cached results only. ``-b examples`` always runs them.", ""),
    Option("errorkb_base_url", "", (str,), "Public URL of the site, used in absolute links (sitemap, Open Graph).", "html"),
    Option("errorkb_hardware", "", (str,),
           "The hardware a snippet's ``:requires:`` may name, and how a machine is probed for it: a module "
           "(``package.module``, its ``PROFILE``, or ``package.module:NAME``). ``errorkb.examples.accelerators`` "
           "reads ``cuda``, ``gpu``, ``tpu``, ``neuron``, ``gpu-memory>=40G`` and ``gpus>=4``; empty: none."),
    Option("errorkb_max_timeout", Ceilings.timeout, (int,), "The longest ``:timeout:`` a snippet may ask for, in seconds."),
    Option("errorkb_max_memory", f"{Ceilings.memory // 1024**3}G", (str,),
           "The most ``:memory:`` a snippet may ask for, as a size such as ``4G``."),
    Option("errorkb_max_record_size", f"{MAX_RECORD_BYTES // 1024}K", (str,),
           "The largest record file, as a size such as ``256K``; a larger one is refused before it is parsed."),
    Option("errorkb_allow_raw_html", False, (bool,),
           "Let records publish raw HTML (HTML blocks and inline tags in the prose, the ``raw`` directive); "
           "by default each is refused at its line."),
    Option("errorkb_url_schemes", ["http", "https", "mailto"], (list, tuple),
           "The schemes of the URLs a record's page may link to or show (links, images, figure and image "
           "targets); a relative URL is always allowed, any other scheme (``javascript:``, ``data:``) is refused "
           "at its line."),
    Option("errorkb_repository_url", "", (str,),
           "The site's GitHub repository (https://github.com/OWNER/REPO): a paste that matches nothing is offered "
           "its missing-error issue form (.github/ISSUE_TEMPLATE/missing-error.yml), prefilled; empty: no such link.",
           "html"),
    Option("errorkb_require_checked", False, (bool,),
           "Require every record to say what its facts were checked against (its ``checked`` field)."),
    Option("errorkb_checked_max_age", 0, (int,),
           "Days after which ``errorkb check`` warns that a record's check is old; 0: never."),
    Option("errorkb_current_releases", {}, (dict,),
           "The current release of each product records are checked against, e.g. ``{'PyTorch': '2.9'}``: "
           "a record checked against an older one is listed for review.", "html"),
    Option("errorkb_kinds", [], (list, tuple),
           "The kinds of error a paste that matches no record is told apart as: a list of mappings with "
           "``name``, ``title``, ``page`` (its triage page), ``cues`` (phrases that give it away) and "
           "``records`` (a field and the values of the kind's records, among which closest answers are chosen). "
           "The kind without cues is the one a paste gets when it holds none.", "html"),
    Option("errorkb_code_catalogues", {}, (dict,),
           "The vendors' catalogues of error codes the site follows: a name (used in URLs) -> a YAML file relative "
           "to the source folder, with ``title``, ``vendor``, ``url`` and ``codes`` (each ``code``, ``meaning`` and "
           "an optional ``url``). The site shows which codes have a record and invites a contribution for the rest.",
           "html"),
    Option("errorkb_llms_summary",
           "A knowledge base of error messages. Each error page gives the exact messages, the causes, "
           "the fixes to try in order, and how to tell which cause applies.", (str,),
           "What the site is about, in a sentence or two: the summary at the top of ``llms.txt``.", "html"),
    Option("errorkb_opensearch_description", "Find an error by its message", (str,),
           "What a browser's address bar says the site's search does (the OpenSearch description).", "html"),
    Option("errorkb_paste_placeholder", "Paste an error message or a log", (str,),
           "The text shown in an empty paste box (the ``errorkb-paste`` directive): an example of what to paste.",
           "html"),
)

DEFAULTS = {option.name: option.default for option in OPTIONS}


@dataclasses.dataclass(frozen=True)
class Settings:
    """The ``errorkb_*`` options of a site, validated and normalised."""

    records_dir: str  # relative to the source folder, '/'-separated, without a trailing '/'
    schema: Schema
    run_examples: bool
    base_url: str
    ceilings: Ceilings
    max_record_size: int  # bytes
    allow_raw_html: bool
    url_schemes: frozenset[str]  # lower-case, without the ':'
    repository_url: str
    llms_summary: str
    opensearch_description: str
    paste_placeholder: str
    hardware: str  # the profile's module, as written
    checked_max_age: int  # days; 0: never
    current_releases: dict[str, str]  # product -> its current release
    kinds: tuple[Kind, ...]
    code_catalogues: dict[str, str]  # name -> its file, relative to the source folder, '/'-separated

    def is_record_page(self, docname: str) -> bool:
        return docname.startswith(self.records_dir + "/")


def settings_from(values: dict[str, Any]) -> Settings:
    """The :class:`Settings` of option values (missing ones take their defaults); ValueError names a bad one."""
    values = {**DEFAULTS, **values}
    for option in OPTIONS:
        if not isinstance(values[option.name], option.types):
            kinds = " or ".join(t.__name__ for t in option.types)
            raise ValueError(f"{option.name} = {values[option.name]!r} is not a {kinds}")
    try:
        schema = schema_from(values["errorkb_fields"], values["errorkb_sections"], values["errorkb_fixes_section"],
                             values["errorkb_source_labels"], values["errorkb_require_checked"])
    except SchemaError as exc:
        raise ValueError(str(exc)) from None
    return Settings(
        records_dir=_records_dir(values["errorkb_records_dir"]),
        schema=schema,
        run_examples=values["errorkb_run_examples"],
        base_url=values["errorkb_base_url"],
        ceilings=ceilings(values),
        max_record_size=size(values, "errorkb_max_record_size"),
        allow_raw_html=values["errorkb_allow_raw_html"],
        url_schemes=_schemes(values["errorkb_url_schemes"]),
        repository_url=values["errorkb_repository_url"],
        llms_summary=values["errorkb_llms_summary"],
        opensearch_description=values["errorkb_opensearch_description"],
        paste_placeholder=values["errorkb_paste_placeholder"],
        hardware=values["errorkb_hardware"].strip(),
        checked_max_age=_days(values["errorkb_checked_max_age"]),
        current_releases=_releases(values["errorkb_current_releases"]),
        kinds=kinds_from(values["errorkb_kinds"], [f.name for f in schema.dimensions]),
        code_catalogues=_code_catalogues(values["errorkb_code_catalogues"]),
    )


def _code_catalogues(value: dict[Any, Any]) -> dict[str, str]:
    out = {}
    for name, file in value.items():
        if not isinstance(name, str) or not re.match(SLUG, name):
            raise ValueError(f"errorkb_code_catalogues: {name!r} is not a lower-case slug such as 'neuron-compiler'")
        path = PurePosixPath(str(file).replace(os.sep, "/"))
        if not isinstance(file, str) or path.is_absolute() or ".." in path.parts or path.suffix not in (".yaml", ".yml"):
            raise ValueError(f"errorkb_code_catalogues[{name!r}] = {file!r} is not a YAML file inside the source folder")
        out[name] = str(path)
    return out


def _days(value: int) -> int:
    if isinstance(value, bool) or value < 0:
        raise ValueError(f"errorkb_checked_max_age = {value!r} is not a number of days (0: never)")
    return value


def _releases(value: dict[Any, Any]) -> dict[str, str]:
    if not all(isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip() for k, v in value.items()):
        raise ValueError("errorkb_current_releases must map product names to releases, both strings "
                         "(quote releases: '2.10')")
    return dict(value)


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*$")


def _schemes(value: list[Any] | tuple[Any, ...]) -> frozenset[str]:
    if not all(isinstance(scheme, str) and _SCHEME.match(scheme) for scheme in value):
        raise ValueError(f"errorkb_url_schemes = {value!r} is not a list of URL schemes such as ['http', 'https']")
    return frozenset(scheme.lower() for scheme in value)


def _records_dir(value: str) -> str:
    path = PurePosixPath(value.replace(os.sep, "/").strip())
    if not value.strip() or path.is_absolute() or ".." in path.parts or str(path) == ".":
        raise ValueError(f"errorkb_records_dir = {value!r} is not a folder inside the source folder, such as 'errors'")
    return str(path)


def size(values: dict[str, Any], name: str) -> int:
    """The size option ``name`` in bytes; raise ValueError naming it when it is not a size."""
    value = values.get(name, DEFAULTS[name])
    parsed = parse_size(value) if isinstance(value, str) else None
    if not parsed:
        raise ValueError(f"{name} = {value!r} is not a size such as {DEFAULTS[name]!r}")
    return int(parsed)


def ceilings(values: dict[str, Any]) -> Ceilings:
    """The snippet ceilings of a site, from its option values (missing ones take their defaults)."""
    timeout = values.get("errorkb_max_timeout", DEFAULTS["errorkb_max_timeout"])
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
        raise ValueError(f"errorkb_max_timeout = {timeout!r} is not a whole number of seconds")
    return Ceilings(timeout=timeout, memory=size(values, "errorkb_max_memory"))


def site_options(conf: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``errorkb_*`` options (and the ``extra`` names) set in a ``conf.py``, run as Sphinx runs it."""
    cwd = os.getcwd()
    try:
        os.chdir(conf.parent)
        values = runpy.run_path(str(conf))
    finally:
        os.chdir(cwd)
    return {name: value for name, value in values.items() if name in DEFAULTS or name in extra}
