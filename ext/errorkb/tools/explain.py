"""``errorkb explain``: a record laid out as a reader sees its page, for a terminal or as CommonMark.

From the record and what :func:`explained` says of it (the JSON that ``--json`` and the MCP
server give): the title and codes, the summary, the site's fields
by their labels and the source's label, the messages as the page shows them (placeholders by
name, the first examples, the notes), the sections in order with the fixes numbered and their
variants named, each snippet by what it claims and its status (its code only when asked),
related records, references, and the page's address when the site's URL is known.  The prose
is written by :mod:`.prose`.  Nothing here imports Sphinx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lookup import record_url
from ..core.markdown import Heading, outline
from ..core.records import Catalogue, Record, related_both_ways
from ..core.settings import Settings
from ..core.templates import OptionalPart, Placeholder, Segment
from ..examples.extract import snippets_of_record
from ..examples.rules import snippet_rules
from ..examples.spec import CLAIMS, KINDS
from ..examples.verified import load_verified, verified_path
from .prose import Writer

if TYPE_CHECKING:
    from .project import Project

SHOWN_EXAMPLES = 3  # as many as a page shows before it folds the rest


def explained(project: Project, catalogue: Catalogue, key: str, base: str = "") -> dict[str, Any] | None:
    """A record by id, code or alias: its fields (and, as its page shows them, the site's by
    their labels and the source's label), its prose, the records related to it either way, its
    snippets with what they claim and their status, and its URL (under ``base``)."""
    record = catalogue.find(key)
    if record is None:
        return None
    schema = project.settings.schema
    related = [catalogue.records[i] for i in related_both_ways(catalogue)[record.id]]
    return {**record.as_json(schema), "url": base + record_url(record), "source_label": schema.source.label_of(record.source),
            "fields": [{"name": f.name, "label": f.label, "values": [f.label_of(v) for v in record.values(f.name)]}
                       for f in schema.fields if f.json and record.values(f.name)],
            "related_records": [{"id": r.id, "code": r.code, "title": r.title, "url": base + record_url(r)} for r in related],
            "snippets": _snippets(project, record)}


def _snippets(project: Project, record: Record) -> list[dict[str, Any]]:
    """What each snippet of a record claims and, where the site keeps a result from a machine
    the build lacks (``.verified.yaml``), its status; the build runs the others."""
    rules, _ = snippet_rules(project.settings, project.root)
    found, _ = snippets_of_record(record, rules)
    verified, _ = load_verified(verified_path(project.root / record.path), record.path)
    out = []
    for snippet in found:
        entry = verified.get(snippet.id)
        status = f"last verified on {entry.summary()}" if entry else "run by the site's build: its page shows the result"
        out.append({"id": snippet.id, "kind": snippet.kind, "claim": CLAIMS[snippet.kind], "promise": KINDS[snippet.kind],
                    "requires": snippet.requires, "status": status, "code": snippet.code})
    return out


def readable(segments: tuple[Segment, ...]) -> str:
    """A template as its page shows it: each placeholder by its name, ``{name}``."""
    out = []
    for segment in segments:
        if isinstance(segment, OptionalPart):
            out.append("{?" + readable(segment.segments) + "}")
        elif isinstance(segment, Placeholder):
            out.append(f"{{{segment.name}}}")
        else:
            out.append(segment)
    return "".join(out)


class Layout:
    """Headings, labelled lines and lists in one form: plain text, or CommonMark (``markdown``)."""

    def __init__(self, markdown: bool):
        self.markdown = markdown
        self.lines: list[str] = []

    def title(self, text: str) -> None:
        self.lines += [f"# {text}"] if self.markdown else [text, "=" * len(text)]

    def heading(self, text: str) -> None:
        self.gap()
        self.lines += [f"## {text}", ""] if self.markdown else [text, "-" * len(text)]

    def fix(self, number: int, text: str) -> None:
        self.gap()
        self.lines += [f"### {number}. {text}", ""] if self.markdown else [f"{number}. {text}"]

    def labelled(self, pairs: list[tuple[str, str]]) -> None:
        width = max((len(label) for label, _ in pairs), default=0)
        self.lines += [f"- **{label}:** {value}" if self.markdown else f"{label + ':':<{width + 1}} {value}"
                       for label, value in pairs]

    def text(self, text: str) -> None:
        if text:
            self.lines += [*text.split("\n")]

    def gap(self) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")


def render(record: Record, data: dict[str, Any], site: Settings, *, markdown: bool = False, width: int = 88,
           show_code: bool = False, addresses: bool = False) -> str:
    """The record for a terminal (``markdown`` false) or as CommonMark; ``show_code`` adds each
    snippet's code, ``addresses`` the pages' addresses (where the site's public URL is known)."""
    out = Layout(markdown)
    schema = site.schema
    snippets = {s["id"]: s for s in data["snippets"]}
    variants = schema.variants

    def title_of(code: str | None, title: str) -> str:
        return f"{code}: {title}" if code and site.code_in_title else title

    def snippet(kind: str, options: dict[str, str], code: str) -> list[str]:
        found = snippets.get(options.get("id", ""))
        if found is None:
            return []
        needs = f"; needs {', '.join(found['requires'])}" if found["requires"] else ""
        head = f"{found['claim']} ({found['id']}): {found['promise']}{needs}"
        lines = [f"> **{head}**" if markdown else f"[{head}]", f"> {found['status']}" if markdown else f"  {found['status']}"]
        if show_code:
            language = "pycon" if kind == "shows" else "python"
            lines += [f"```{language}", *code.split("\n"), "```"] if markdown else ["", *("    " + line for line in code.split("\n"))]
        return lines

    def role(target: str) -> tuple[str, str | None]:
        rel = next((r for r in data["related_records"] if target in (r["id"], r["code"])), None)
        if rel is not None:
            return title_of(rel["code"], rel["title"]), rel["url"] if addresses else None
        return target, None

    def heading(title: str) -> str:
        value = variants.named_by(title) if variants else None
        return variants.label_of(value) if variants and value else title

    writer = Writer(markdown=markdown, width=width, snippet=snippet, role=role, heading=heading)

    out.title(title_of(record.code, record.title))
    out.lines.append("")
    out.text(writer.write(record.summary))
    out.gap()
    about = []
    if record.codes:
        about.append(("Codes" if len(record.codes) > 1 else "Code", ", ".join(_code(c, markdown) for c in record.codes)))
    about.append(("Source", data["source_label"]))
    about += [(field["label"], ", ".join(field["values"])) for field in data["fields"]]
    if record.checked is not None:
        releases = ", ".join(f"{product} {release}" for product, release in record.checked.against.items())
        about.append(("Checked", f"against {releases} on {record.checked.date}"))
    out.labelled(about)

    out.heading("Messages")
    for i, message in enumerate(record.messages):
        template = readable(record.templates[i].segments)
        examples = message.examples[:SHOWN_EXAMPLES]
        label = "Seen in real logs:" if len(message.examples) > 1 else "Seen in a real log:"
        more = len(message.examples) - len(examples)
        more_text = f"({more} more example{'s' if more > 1 else ''} on the page)" if more else ""
        if markdown:
            out.lines += ["```text", template, "```", ""]
            if message.note:
                out.lines += [writer.write(message.note), ""]
            out.lines += [label, ""]
            for example in examples:
                out.lines += ["```text", example.text, "```", ""]
            out.lines += [more_text] if more_text else []
        else:
            out.lines.append(f"  {template}")
            if message.note:
                out.text(writer.write(message.note, "    "))
            out.lines.append(f"    {label}")
            for example in examples:
                out.lines += [f"      {line}" for line in example.text.strip("\n").split("\n")]
            out.lines += [f"    {more_text}"] if more_text else []
        out.gap()

    for title, text in record.sections.items():
        out.heading(title)
        if title != schema.fixes_section:
            out.text(writer.write(text))
            continue
        intro = _before_the_fixes(text)
        if intro:
            out.text(writer.write(intro))
        for n, fix in enumerate(record.fixes, 1):
            out.fix(n, writer.write(fix.title).strip())
            body = writer.write(fix.body, "" if markdown else "   ")
            out.text(body)

    related = [(title_of(r["code"], r["title"]), r["url"] if addresses else r["id"]) for r in data["related_records"]]
    if related or record.references or addresses:
        out.heading("See also")
        for title, where in related:
            out.lines.append(f"- [{title}]({where})" if markdown and addresses else f"- {title} ({where})")
        for url in record.references:
            out.lines.append(f"- <{url}>" if markdown else f"- {url}")
        if addresses:
            out.gap()
            out.lines.append(f"The page: <{data['url']}>" if markdown else f"The page: {data['url']}")
    return "\n".join(out.lines).rstrip("\n") + "\n"


def _code(code: str, markdown: bool) -> str:
    return f"`{code}`" if markdown else code


def _before_the_fixes(text: str) -> str:
    """The fixes section's words before its first fix."""
    first = next((b.line for b in outline(text) if isinstance(b, Heading) and b.level == 3), None)
    lines = text.split("\n")
    return "\n".join(lines[: first - 1] if first else lines).strip()
