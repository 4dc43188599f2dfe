"""The record model: one MyST Markdown file per error, YAML front matter plus prose.

``load_record`` parses and validates one file; ``load_catalogue`` loads every record under a
folder and checks what spans records (unique ids and codes, ``related`` ids, examples that
another record's template would claim).  Every problem is a :class:`Problem` naming the file
and line.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .diagnoses import problems_of as diagnosis_problems
from . import matcher
from .templates import Template, TemplateError, compile_template

try:  # the C loader is several times faster where libyaml is present
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

#: Closed vocabularies: slug -> label shown on pages.
PLATFORMS = {
    "tpu": "TPU", "gpu": "GPU", "neuron": "AWS Neuron", "cpu": "CPU", "mps": "Apple silicon (Metal)",
    "gaudi": "Intel Gaudi", "tenstorrent": "Tenstorrent", "intel-gpu": "Intel GPU",
    "directml": "DirectML (Windows)", "windows": "Windows", "kubernetes": "Kubernetes",
    "docker": "Docker", "notebook": "Hosted notebooks",
}
#: Labels of the sources (who raises the error: the folder of a record); any other is shown as written.
SOURCES = {
    "xla": "XLA", "neuron": "AWS Neuron", "pytorch": "PyTorch", "cuda": "CUDA", "tensorflow": "TensorFlow",
    "vllm": "vLLM", "host": "Host operating system", "python": "Python", "ggml": "GGML",
    "habana": "Intel Gaudi", "tenstorrent": "Tenstorrent", "triton": "Triton", "nccl": "NCCL",
    "tensorrt": "TensorRT", "onnxruntime": "ONNX Runtime", "directml": "DirectML", "mlx": "MLX",
    "cpp": "C++ runtime", "windows": "Windows", "notebooks": "Hosted notebooks",
    "containers": "Containers", "ray": "Ray", "paddle": "PaddlePaddle", "llm-servers": "LLM servers",
    "huggingface": "Hugging Face libraries", "hardware": "GPU hardware",
}
#: Labels of the frameworks that records name; ``frameworks`` takes any slug, shown as written
#: when it has no label here.
FRAMEWORKS = {
    "pytorch": "PyTorch", "jax": "JAX", "tensorflow": "TensorFlow", "keras": "Keras",
    "numpy": "NumPy", "pandas": "pandas", "cupy": "CuPy", "llama.cpp": "llama.cpp",
    "ollama": "Ollama", "ggml": "GGML", "ttnn": "TT-NN", "tt-metal": "TT-Metalium",
    "vllm": "vLLM", "triton": "Triton", "nccl": "NCCL", "tensorrt": "TensorRT",
    "tensorrt-llm": "TensorRT-LLM", "onnxruntime": "ONNX Runtime", "torch-directml": "torch-directml",
    "directml": "DirectML", "ipex": "Intel Extension for PyTorch", "mlx": "MLX",
    "paddlepaddle": "PaddlePaddle", "ray": "Ray", "tgi": "Text Generation Inference",
    "sglang": "SGLang", "accelerate": "Accelerate", "transformers": "Transformers",
    "bitsandbytes": "bitsandbytes", "deepspeed": "DeepSpeed", "diffusers": "Diffusers",
    "cudf": "cuDF", "rapids": "RAPIDS", "xgboost": "XGBoost", "lightgbm": "LightGBM",
    "scikit-learn": "scikit-learn", "neuronx": "Neuron SDK", "megatron": "Megatron-LM",
    "lightning": "Lightning", "kubernetes": "Kubernetes", "docker": "Docker",
    "colab": "Google Colab", "kaggle": "Kaggle", "hf-spaces": "Hugging Face Spaces",
    "openxla": "OpenXLA", "habana": "Intel Gaudi software", "cuda": "CUDA", "rocm": "ROCm",
}


def framework_named(title: str) -> str | None:
    """The framework slug that a heading such as ``PyTorch`` or ``jax`` names, if any."""
    folded = title.strip().casefold()
    return next((slug for slug, label in FRAMEWORKS.items() if folded in (slug, label.casefold())), None)
PHASES = {"compile-time": "Compile time", "load-time": "Load time", "run-time": "Run time"}
CATEGORIES = {
    "device-memory": "Device memory", "on-chip-memory": "On-chip memory",
    "host-memory": "Host memory", "shared-memory": "Shared memory",
}
SECTIONS = ("Causes", "Fixes", "Debugging")
SLUG = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
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

    @field_validator("examples", mode="before")
    @classmethod
    def _plain_examples(cls, values: Any) -> Any:
        """An example may be written as its text alone."""
        if isinstance(values, list):
            return [{"text": v} if isinstance(v, str) else v for v in values]
        return values


class Frontmatter(BaseModel):
    """The structured fields, as written in a record's YAML front matter."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str = Field(pattern=SLUG)
    code: str | None = None
    title: str = Field(min_length=3, max_length=120)
    summary: str = Field(min_length=10, max_length=300)
    source: str = Field(pattern=SLUG)
    platforms: list[Literal[tuple(PLATFORMS)]] = Field(min_length=1)  # type: ignore[valid-type]
    frameworks: list[str] = Field(min_length=1)
    phase: Literal[tuple(PHASES)]  # type: ignore[valid-type]
    category: Literal[tuple(CATEGORIES)]  # type: ignore[valid-type]
    messages: list[Message] = Field(min_length=1)
    related: list[str] = []
    aliases: list[str] = []
    references: list[str] = []
    diagnoses: list[dict[str, Any]] = []  # checked by diagnoses.problems_of

    @field_validator("frameworks", "related")
    @classmethod
    def _slugs(cls, values: list[str]) -> list[str]:
        for v in values:
            if not re.match(SLUG, v):
                raise ValueError(f"{v!r} is not a lower-case slug such as 'pytorch'")
        return values

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, values: list[str]) -> list[str]:
        for v in values:
            if not re.match(ALIAS, v):
                raise ValueError(f"{v!r} is not an old id or code (letters, digits, '.', '_' and '-'; each gets a redirect page)")
        return values

    @field_validator("references")
    @classmethod
    def _urls(cls, values: list[str]) -> list[str]:
        for v in values:
            if not re.match(URL, v):
                raise ValueError(f"{v!r} is not an http(s) URL")
        return values


@dataclasses.dataclass(frozen=True)
class Fix:
    title: str
    body: str
    line: int
    variants: tuple[str, ...] = ()  # frameworks with a '####' variant of the fix, in order


@dataclasses.dataclass(frozen=True)
class Record:
    """A validated record: front matter fields, compiled templates and the prose sections."""

    fields: Frontmatter
    path: str
    templates: tuple[tuple[Template, ...], ...]  # per message, one template (tuple for symmetry)
    sections: dict[str, str]
    fixes: tuple[Fix, ...]
    body: str
    body_line: int  # line of the file where the body starts
    frontmatter_lines: int  # lines taken by the front matter, fences included
    lines: dict[str, int]  # field path ("messages[0].examples[1]") -> line

    def __getattr__(self, name: str) -> Any:  # record.id, record.title ...
        if name.startswith("__") or name == "fields":
            raise AttributeError(name)
        return getattr(self.fields, name)

    def line_of(self, path: str) -> int:
        return _line_for(self.lines, path)

    def as_json(self) -> dict[str, Any]:
        data = self.fields.model_dump()
        data["causes"] = self.sections.get("Causes", "")
        data["fixes"] = [{"title": f.title, "body": f.body, "variants": list(f.variants)} for f in self.fixes]
        data["debugging"] = self.sections.get("Debugging", "")
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


def load_record(path: Path, text: str | None = None, *, root: Path | None = None,
                max_bytes: int = MAX_RECORD_BYTES) -> Record:
    """Parse and validate one record file; raise :class:`RecordError` listing every problem."""
    shown = _shown_path(path, root)
    problems: list[Problem] = []

    def fail(line: int, message: str) -> RecordError:
        return RecordError([Problem(shown, line, message)])

    if text is None:
        try:
            size = path.stat().st_size
            if size > max_bytes:
                raise fail(1, _too_large(size, max_bytes))
            raw = path.read_bytes()
        except OSError as exc:
            raise fail(1, f"cannot read the file: {exc.strerror}") from None
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

    deep = _too_deep(front)
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
        fields: Frontmatter | None = Frontmatter.model_validate(data)
    except ValidationError as exc:
        fields = None
        problems += [_pydantic_problem(shown, lines, err) for err in exc.errors()]

    if fields is not None:
        if fields.id != path.stem:
            problems.append(Problem(shown, lines.get("id", 2), f"id {fields.id!r} must equal the file name {path.stem!r}"))
        if path.parent.name != fields.source:
            problems.append(Problem(shown, lines.get("source", 2), f"source {fields.source!r} must equal the folder name {path.parent.name!r}"))
    templates, template_problems = _compile_messages(data.get("messages"), lines, shown)
    problems += template_problems

    body_line = fm_lines + 1
    sections, fixes, section_problems = parse_body(body, body_line)
    problems += [Problem(shown, line, msg) for line, msg in section_problems]
    if fields is not None and not template_problems:
        compiled = [t for ts in templates for t in ts]
        problems += [Problem(shown, _line_for(lines, key), f"{key}: {message}")
                     for key, message in diagnosis_problems(fields.diagnoses, compiled, [f.title for f in fixes])]
    if problems or fields is None:
        raise RecordError(problems)
    return Record(fields, shown, tuple(templates), sections, tuple(fixes), body, body_line, fm_lines, lines)


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


def _too_deep(front: str) -> int | None:
    """The file line where the front matter nests deeper than :data:`MAX_DEPTH`, or None.

    Checked on the parser's events, which need no recursion, so that no nesting can exhaust the
    stack of the composer that follows.  Front matter with at most 30 brackets and lines
    indented less than 30 columns cannot nest that deep, and is let through unscanned.
    """
    if front.count("[") + front.count("{") <= 30 and not _DEEP_INDENT.search(front):
        return None
    depth = 0
    try:
        for event in yaml.parse(front, Loader=_Loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return event.start_mark.line + 2
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


def _compile_messages(raw: Any, lines: dict[str, int], shown: str) -> tuple[list[tuple[Template, ...]], list[Problem]]:
    """Compile each well-formed message's template and check its examples against it.

    Runs even when other fields are invalid, so that one pass reports every problem.
    """
    templates: list[tuple[Template, ...]] = []
    problems: list[Problem] = []
    for i, message in enumerate(raw if isinstance(raw, list) else []):
        try:
            message = Message.model_validate(message)
        except ValidationError:
            templates.append(())
            continue  # reported by the schema
        key = f"messages[{i}].template"
        try:
            template = compile_template(message.template)
        except TemplateError as exc:
            problems.append(Problem(shown, _line_for(lines, key), f"{key}: {exc} (at character {exc.column} of the template)"))
            templates.append(())
            continue
        templates.append((template,))
        for j, example in enumerate(message.examples):
            if not template.matches(example.text):
                key = f"messages[{i}].examples[{j}]"
                problems.append(Problem(shown, _line_for(lines, key), f"{key} does not match its template"))
    return templates, problems


def _parse_yaml(front: str, shown: str) -> tuple[Any, dict[str, int], list[Problem]]:
    """Load YAML, recording the line of every field (file lines: the '---' is line 1)."""
    try:
        node = yaml.compose(front, Loader=_Loader)
    except yaml.YAMLError as exc:
        return None, {}, [Problem(shown, _yaml_error_line(exc), f"invalid YAML: {_yaml_reason(exc)}")]
    if node is None:
        return None, {}, [Problem(shown, 2, "the front matter is empty")]
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    _walk(node, "", lines, problems, shown)
    if problems:
        return None, lines, problems
    try:
        data = yaml.load(front, Loader=_Loader)
    except yaml.YAMLError as exc:  # e.g. an unknown tag
        mark = getattr(exc, "problem_mark", None)
        return None, lines, [Problem(shown, mark.line + 2 if mark else 2, f"invalid YAML: {_yaml_reason(exc)}")]
    return data, lines, []


def _yaml_error_line(exc: yaml.YAMLError) -> int:
    """The file line to blame: where an unclosed bracket or quote opened, else where parsing failed."""
    context = getattr(exc, "context", None) or ""
    mark = getattr(exc, "context_mark", None) if ("flow" in context or "quoted" in context) else None
    mark = mark or getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 2 if mark else 2


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """PyYAML's reason on one line, without its marks (they count lines of the front matter only)."""
    return " ".join((getattr(exc, "problem", None) or str(exc)).split())


def _walk(node: yaml.Node, path: str, lines: dict[str, int], problems: list[Problem], shown: str, visited: set[int] | None = None) -> None:
    visited = set() if visited is None else visited
    if id(node) in visited:  # an alias: refused, as expanding nested ones grows exponentially
        problems.append(Problem(shown, node.start_mark.line + 2, f"{path}: the value anchored here is reused with a YAML alias ('*'); write it out instead"))
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


def _pydantic_problem(shown: str, lines: dict[str, int], err: dict[str, Any]) -> Problem:
    path = ""
    for part in err["loc"]:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    kind = err["type"]
    if kind == "missing":
        message = f"missing required field {path!r}"
    elif kind == "extra_forbidden":
        message = f"unknown field {path!r}"
    elif kind == "literal_error":
        allowed = err.get("ctx", {}).get("expected", "")
        message = f"{path}: {err['input']!r} is not one of {allowed}"
    else:
        message = f"{path}: {err['msg'][0].lower()}{err['msg'][1:]}".replace("Value error, ", "")
        message = message.replace(": value error, ", ": ")
    return Problem(shown, _line_for(lines, path), message)


# ---------------------------------------------------------------------------------------------
# The body: ## Causes, ## Fixes (### one per fix, in the order to try them, with '####' variants
# per framework), ## Debugging

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,}|:{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def parse_body(body: str, first_line: int) -> tuple[dict[str, str], list[Fix], list[tuple[int, str]]]:
    """Split the prose into its sections; fences are skipped, so '#' in code is not a heading."""
    sections: dict[str, str] = {}
    fixes: list[Fix] = []
    problems: list[tuple[int, str]] = []
    current: str | None = None
    chunks: dict[str, list[str]] = {}
    fix: tuple[str, int, list[str], list[str]] | None = None  # title, line, lines, variants
    fence: str | None = None
    order: list[str] = []

    def close_fix() -> None:
        if fix is not None:
            fixes.append(Fix(fix[0], "".join(fix[2]).strip(), fix[1], tuple(fix[3])))

    for offset, line in enumerate(body.splitlines(keepends=True)):
        lineno = first_line + offset
        m = _FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and line.strip() == m.group(1):
                fence = None
        heading = _HEADING.match(line) if fence is None and not m else None
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            if level == 1:
                problems.append((lineno, "no '#' title in the body: the page title comes from 'title'"))
                continue
            if level == 2:
                close_fix()
                fix = None
                if title not in SECTIONS:
                    problems.append((lineno, f"unknown section {title!r} (sections: {', '.join(SECTIONS)})"))
                    current = None
                    continue
                if title in chunks:
                    problems.append((lineno, f"section {title!r} appears twice"))
                current = title
                order.append(title)
                chunks[title] = []
                continue
            if level == 3 and current == "Fixes":
                close_fix()
                fix = (title, lineno, [], [])
                continue
            if level == 4 and fix is not None and (framework := framework_named(title)):
                if framework in fix[3]:
                    problems.append((lineno, f"fix {fix[0]!r} has two variants for {FRAMEWORKS[framework]}"))
                fix[3].append(framework)
        if current is not None:
            chunks[current].append(line)
        if fix is not None:
            fix[2].append(line)
    close_fix()
    end = first_line + body.count("\n")
    for name in SECTIONS:
        if name not in chunks:
            problems.append((end, f"missing section '## {name}'"))
    if [s for s in order if s in SECTIONS] != [s for s in SECTIONS if s in chunks]:
        problems.append((first_line, f"sections must come in this order: {', '.join(SECTIONS)}"))
    if "Fixes" in chunks and not fixes:
        problems.append((end, "'## Fixes' needs at least one '### <what to do>' fix"))
    for name, text in chunks.items():
        sections[name] = "".join(text).strip()
        if not sections[name]:
            problems.append((end, f"section '## {name}' is empty"))
    return sections, fixes, problems


# ---------------------------------------------------------------------------------------------
# The catalogue


@dataclasses.dataclass
class Catalogue:
    """Every record under a folder, keyed by id."""

    records: dict[str, Record]

    def find(self, key: str) -> Record | None:
        """A record by id, code (case-insensitive) or alias."""
        if key in self.records:
            return self.records[key]
        folded = key.casefold()
        for record in self.records.values():
            if (record.code and record.code.casefold() == folded) or folded in (
                a.casefold() for a in record.aliases
            ):
                return record
        return None

    def by_path(self, path: str) -> Record | None:
        for record in self.records.values():
            if record.path == path:
                return record
        return None


def record_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*/*.md") if p.is_file())


#: What :func:`load_catalogue` may reuse: file path -> (digest of its bytes, the record it gave).
RecordCache = dict[str, tuple[str, Record]]


def load_catalogue(folder: Path, *, root: Path | None = None, cache: RecordCache | None = None,
                   max_bytes: int = MAX_RECORD_BYTES) -> tuple[Catalogue, list[Problem]]:
    """Load every record; return what loaded and every problem found, files in order.

    A record file that is a symbolic link leading out of ``root`` (or of ``folder`` without a
    root) is refused unread.  With ``cache``, a file whose bytes are unchanged reuses its
    record instead of being parsed and checked again; ``cache`` is updated to the files just
    loaded.  The checks across records always run.
    """
    records: dict[str, Record] = {}
    problems: list[Problem] = []
    owners: dict[str, Record] = {}  # lower-cased id, code or alias -> record
    fresh: RecordCache = {}
    for path in record_files(folder):
        if leaves(path, root or folder):
            problems.append(Problem(_link_path(path, root), 1, "a symbolic link to a file outside the source folder; "
                                    "put the record itself here"))
            continue
        try:
            record = _load_cached(path, root, cache, fresh, max_bytes)
        except RecordError as exc:
            problems += exc.problems
            continue
        for key, field in [(record.id, "id"), (record.code, "code"), *((a, "aliases") for a in record.aliases)]:
            if not key:
                continue
            other = owners.get(key.casefold())
            if other is not None and other is not record:
                problems.append(Problem(record.path, record.line_of(field), f"{field} {key!r} is already used by {other.path}"))
            owners.setdefault(key.casefold(), record)
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
    problems += _claimed_by_others(records)
    if cache is not None:
        cache.clear()
        cache.update(fresh)
    return Catalogue(records), sorted(problems, key=lambda p: (p.path, p.line))


def leaves(path: Path, boundary: Path) -> bool:
    """Whether ``path``, its symbolic links followed, lies outside ``boundary``."""
    return not path.resolve().is_relative_to(boundary.resolve())


def _link_path(path: Path, root: Path | None) -> str:
    """A path as written in the tree, its links not followed."""
    if root is not None and path.absolute().is_relative_to(root.absolute()):
        return path.absolute().relative_to(root.absolute()).as_posix()
    return path.as_posix()


def _load_cached(path: Path, root: Path | None, cache: RecordCache | None, fresh: RecordCache,
                 max_bytes: int) -> Record:
    def load() -> Record:
        return load_record(path, root=root, max_bytes=max_bytes)

    if cache is None:
        return load()
    try:
        if path.stat().st_size > max_bytes:
            return load()  # refuses it, unread
        digest = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return load()  # reports the error
    hit = cache.get(str(path))
    record = hit[1] if hit is not None and hit[0] == digest else load()
    fresh[str(path)] = (digest, record)
    return record


def _claimed_by_others(records: dict[str, Record]) -> list[Problem]:
    """Each example must be matched by its own record's templates, and by no other record's
    that ranks as high, as the lookup ranks matches (``matcher.rank_key``).

    Templates are short-listed as the lookup short-lists them (``matcher.find``), so the check
    scales with the catalogue instead of with examples x templates.
    """
    problems = []
    owners = [r for r in records.values() for ts in r.templates for _ in ts]
    filed = matcher.candidates([t for r in records.values() for ts in r.templates for t in ts])

    def rank(found: tuple[int, matcher.Found]) -> tuple[int, ...]:  # without the template's place: a tie is a clash
        k, (line, _, _, m) = found
        return matcher.rank_key(filed[k].template.specificity, 0, line, m.start(), 0)

    for record in records.values():
        for i, message in enumerate(record.messages):
            for j, example in enumerate(message.examples):
                found = matcher.find(filed, example.text.splitlines())
                own = min((rank(f) for f in found if owners[f[0]] is record), default=None)
                clashes = {k for k, hit in found if owners[k] is not record and (own is None or rank((k, hit)) <= own)}
                key = f"messages[{i}].examples[{j}]"
                problems += [Problem(record.path, record.line_of(key),
                                     f"{key} is also matched by {owners[k].id}'s template {filed[k].text!r}, "
                                     "which ranks as high as its own") for k in sorted(clashes)]
    return problems
