"""A vendor's whole catalogue of error codes, kept as data beside the records, and which codes have one.

A site lists the catalogues it follows in ``errorkb_code_catalogues`` (a name -> a YAML file,
relative to the source folder), each file::

    title: AWS Neuron compiler error codes
    vendor: AWS Neuron
    url: https://...            # the vendor's catalogue page
    codes:
      - code: NCC_EARG001
        meaning: One line, in the site's words, of what the vendor says it means.
        url: https://...        # the vendor's page for the code, if it has one

:func:`coverage` says for each code the record that carries it (as a code or an alias), if
any; the build makes a page per catalogue and a short page per code without a record, inviting
a contribution (:mod:`errorkb.site.coverage`).  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from .reading import Refused, read_file
from .records import MAX_DEPTH, URL, Problem, Record, too_deep

#: The largest catalogue file read, in bytes.
MAX_CATALOGUE_BYTES = 4 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class VendorCode:
    code: str
    meaning: str
    url: str | None
    line: int  # of the file


@dataclasses.dataclass(frozen=True)
class CodeCatalogue:
    name: str  # the site's name for it: a slug, used in URLs
    title: str
    vendor: str
    url: str
    codes: tuple[VendorCode, ...]
    path: str  # as shown in problems


def code_slug(code: str) -> str:
    """A code as a page name: lower case, runs of other characters made one '-' (``Xid 79`` -> ``xid-79``)."""
    return re.sub(r"[^a-z0-9.]+", "-", code.lower()).strip("-.") or "code"


def load_code_catalogue(name: str, path: Path, shown: str) -> tuple[CodeCatalogue | None, list[Problem]]:
    """Read and check one catalogue file; every problem names the file and line."""
    def problem(line: int, message: str) -> tuple[None, list[Problem]]:
        return None, [Problem(shown, line, message)]

    try:
        text = read_file(path, MAX_CATALOGUE_BYTES).decode("utf-8")
        deep = too_deep(text, first_line=1)
        if deep is not None:
            return problem(deep, f"nested more than {MAX_DEPTH} levels deep")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except Refused as exc:
        return problem(1, str(exc))
    except FileNotFoundError:
        return problem(1, "no such file")
    except (OSError, UnicodeDecodeError) as exc:
        return problem(1, f"cannot read it: {exc}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return problem(mark.line + 1 if mark else 1, f"invalid YAML: {getattr(exc, 'problem', exc)}")
    if not isinstance(node, yaml.MappingNode):
        return problem(1, "a catalogue is a mapping with title, vendor, url and codes")
    fields = {str(k.value): v for k, v in node.value}
    problems: list[Problem] = []
    for key in ("title", "vendor", "url"):
        value = fields.get(key)
        if not isinstance(value, yaml.ScalarNode) or not str(value.value).strip():
            problems.append(Problem(shown, 1, f"missing {key!r}"))
    if isinstance(fields.get("url"), yaml.ScalarNode) and not re.match(URL, str(fields["url"].value)):
        problems.append(Problem(shown, fields["url"].start_mark.line + 1, "'url' is not an http(s) URL"))
    unknown = sorted(set(fields) - {"title", "vendor", "url", "codes"})
    if unknown:
        problems.append(Problem(shown, 1, f"unknown key(s): {', '.join(unknown)}"))
    entries = fields.get("codes")
    if not isinstance(entries, yaml.SequenceNode) or not entries.value:
        problems.append(Problem(shown, 1, "'codes' must list the vendor's codes"))
        return None, problems
    codes: list[VendorCode] = []
    seen: dict[str, int] = {}
    for entry in entries.value:
        line = entry.start_mark.line + 1
        data = _plain(entry)
        if not isinstance(data, Mapping) or set(data) - {"code", "meaning", "url"}:
            problems.append(Problem(shown, line, "each code is a mapping with code, meaning and an optional url"))
            continue
        code, meaning, url = data.get("code"), data.get("meaning"), data.get("url")
        if not isinstance(code, str) or not code.strip() or "\n" in code:
            problems.append(Problem(shown, line, "'code' must be the code as printed, on one line"))
            continue
        if not isinstance(meaning, str) or not meaning.strip():
            problems.append(Problem(shown, line, f"{code}: 'meaning' must say what the vendor says it means"))
        if url is not None and (not isinstance(url, str) or not re.match(URL, url)):
            problems.append(Problem(shown, line, f"{code}: 'url' is not an http(s) URL"))
        if code.casefold() in seen:
            problems.append(Problem(shown, line, f"{code} is listed twice (also at line {seen[code.casefold()]})"))
        seen[code.casefold()] = line
        codes.append(VendorCode(code.strip(), str(meaning or "").strip(), url, line))
    if problems:
        return None, problems
    return CodeCatalogue(name, str(fields["title"].value).strip(), str(fields["vendor"].value).strip(),
                         str(fields["url"].value).strip(), tuple(codes), shown), []


def _plain(node: yaml.Node) -> Any:
    """A node's plain value: scalars as strings, without YAML's other types."""
    if isinstance(node, yaml.MappingNode):
        return {str(k.value): _plain(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_plain(v) for v in node.value]
    return None if node.tag.endswith(":null") else str(node.value)


def coverage(catalogue: CodeCatalogue, records: Iterable[Record]) -> list[tuple[VendorCode, Record | None]]:
    """Each code of the catalogue with the record that carries it (a code or an alias), or None."""
    owners: dict[str, Record] = {}
    for record in sorted(records, key=lambda r: r.id):
        for name in (*record.codes, *record.aliases):
            owners.setdefault(name.casefold(), record)
    return [(code, owners.get(code.code.casefold())) for code in catalogue.codes]


def load_code_catalogues(declared: Mapping[str, str], root: Path) -> tuple[list[CodeCatalogue], list[Problem]]:
    """Every catalogue a site declares, its files relative to ``root``."""
    found, problems = [], []
    for name, file in declared.items():
        catalogue, trouble = load_code_catalogue(name, root / file, file)
        problems += trouble
        if catalogue is not None:
            found.append(catalogue)
    return found, problems
