"""What a site allows its snippets and offers them, made once from its settings and folder.

The ceilings on ``:timeout:`` and ``:memory:``, the hardware its profile reads, its languages,
and the Python packages it declares for snippets in one pip requirements file
(``errorkb_snippet_requirements``, which its set-up installs).  The directive, ``errorkb check``
and the pytest plugin read snippets by the same :class:`SnippetRules`.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..core.languages import BUILT_IN, Language
from ..core.reading import Refused, read_file
from ..core.records import Problem
from ..core.settings import Ceilings, Settings
from .hardware import NO_HARDWARE, Profile, load_profile

_INCLUDE = re.compile(r"^(?:-r|--requirement)(?:\s+|=)(?P<file>\S+)$")
MAX_INCLUDES = 16
MAX_BYTES = 1024**2  # of a requirements file


@dataclasses.dataclass(frozen=True)
class SnippetRules:
    ceilings: Ceilings = Ceilings()
    hardware: Profile = NO_HARDWARE
    languages: Mapping[str, Language] = dataclasses.field(default_factory=lambda: dict(BUILT_IN))
    packages: frozenset[str] = frozenset()  # canonical names of the declared snippet packages
    packages_file: str = "snippet-requirements.txt"  # where they are declared, for messages

    def is_package(self, name: str) -> bool:
        return canonicalize_name(name) in self.packages


def declared_packages(path: Path, shown: str) -> tuple[frozenset[str], list[Problem]]:
    """The names of the packages a pip requirements file declares (``-r`` included files too);
    none when it does not exist.  Pip's other options are left to pip."""
    names: set[str] = set()
    problems: list[Problem] = []
    todo, seen = [(path, shown)], set[Path]()
    while todo and len(seen) < MAX_INCLUDES:
        file, name = todo.pop()
        if file.resolve() in seen:
            continue
        seen.add(file.resolve())
        try:
            lines = read_file(file, MAX_BYTES).decode("utf-8").splitlines()
        except FileNotFoundError:
            if file != path:
                problems.append(Problem(shown, 1, f"{name} (included) does not exist"))
            continue
        except (Refused, OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(name, 1, f"not read: {exc}"))
            continue
        for number, line in enumerate(lines, 1):
            text = re.sub(r"(^|\s)#.*$", "", line).strip()
            if not text:
                continue
            if include := _INCLUDE.match(text):
                todo.append((file.parent / include["file"], f"{Path(name).parent / include['file']}"))
            elif not text.startswith("-"):
                try:
                    names.add(canonicalize_name(Requirement(text).name))
                except InvalidRequirement as exc:
                    problems.append(Problem(name, number, f"not a requirement: {exc}"))
    return frozenset(names), problems


def snippet_rules(site: Settings, root: Path) -> tuple[SnippetRules, list[Problem]]:
    """The rules of the site ``site`` whose source folder is ``root``, and the problems of its
    requirements file; ValueError names a hardware profile that cannot be loaded."""
    packages, problems = declared_packages(root / site.snippet_requirements, site.snippet_requirements)
    rules = SnippetRules(site.ceilings, load_profile(site.hardware), site.languages, packages, site.snippet_requirements)
    return rules, problems
