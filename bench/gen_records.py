"""Generate a synthetic errorkb catalogue of N records, to measure the build at scale.

    python bench/gen_records.py N OUT [--seed S] [--plain] [--snippets] [--theme basic|furo]

OUT becomes a complete Sphinx site: ``conf.py``, ``index.md`` with a glob toctree and
``errors/<source>/<id>.md``.  With ``--plain`` the same content is written as ordinary MyST
pages for plain Sphinx with myst-parser only (the front matter rendered as Markdown), the
baseline that ``bench/build.py`` compares errorkb with.

Every record gets its own combination of source, component, operation and memory space
(drawn from a shuffled product, so the output depends only on N and the seed) and a unique
code; its templates are built from those words, so no template can claim another record's
examples, which ``load_catalogue`` checks.  ``--snippets`` adds a ``{snippet}`` block to each
record's debugging section.
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The date every generated record says it was checked on (this site requires `checked:`).
CHECKED = "2026-11-01"

ROOT = Path(__file__).resolve().parents[1]  # the repository: its conf.py declares the fields

# source folder -> (vendor word used in messages, code prefix, platforms, frameworks)
SOURCES = {
    "xla": ("Xla", "XE", ["tpu"], ["jax", "tensorflow"]),
    "neuron": ("Nrt", "NCC_M", ["neuron"], ["pytorch", "jax"]),
    "pytorch": ("Torch", "PT", ["gpu"], ["pytorch"]),
    "cuda": ("Cuda", "CUE", ["gpu"], ["cuda", "pytorch"]),
    "tensorflow": ("Tf", "TFE", ["gpu", "tpu"], ["tensorflow"]),
    "host": ("Kernel", "HOST", ["cpu"], ["linux"]),
    "python": ("Py", "PYE", ["cpu"], ["python", "numpy"]),
    "vllm": ("Vllm", "VLE", ["gpu"], ["vllm"]),
    "ggml": ("Ggml", "GGE", ["cpu", "gpu"], ["llama-cpp"]),
    "habana": ("Synapse", "SYN", ["gaudi"], ["pytorch"]),
    "tenstorrent": ("Tenstorrent", "TTE", ["tenstorrent"], ["ttnn"]),
}
COMPONENTS = [
    "allocator", "scheduler", "compiler", "runtime", "collective", "dma", "graph", "executor",
    "loader", "partitioner", "mapper", "tiler", "linker", "planner", "sharder", "prefetcher",
    "pager", "arena", "spiller", "fuser", "lowering", "checkpointer", "offloader", "pinner",
    "stager", "packer", "serializer", "profiler", "launcher", "broker",
]
# verb -> its -ing form
OPERATIONS = {
    "allocate": "allocating", "reserve": "reserving", "map": "mapping", "pin": "pinning",
    "stage": "staging", "spill": "spilling", "prefetch": "prefetching", "grow": "growing",
    "commit": "committing", "register": "registering", "import": "importing", "resize": "resizing",
    "split": "splitting", "place": "placing", "bind": "binding", "clone": "cloning", "swap": "swapping",
    "expand": "expanding", "gather": "gathering", "replicate": "replicating",
}
SPACES = ["hbm", "vmem", "smem", "sram", "dram", "host", "pinned", "unified", "scratch", "workspace", "staging", "spill"]
BUFFERS = [
    "activation", "weight", "gradient", "optimizer", "kvcache", "embedding", "attention", "constant",
    "input", "output", "temporary", "checkpoint",
]
LOG_PREFIXES = [
    "", "RuntimeError: ", "E0501 12:03:44.123456  4121 {comp}.cc:{n}] ", "[rank{n}]: ",
    "2024-05-01T12:00:{n:02d}Z ERROR ", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: ",
    "torch.OutOfMemoryError: ", "W {n:05d} worker.py:88: ",
]
UNITS = ["G", "GiB", "MiB", "M", "GB"]

PHASES = ["compile-time", "load-time", "run-time"]
CATEGORIES = ["device-memory", "on-chip-memory", "host-memory", "shared-memory"]
PHASE_LABELS = {"compile-time": "Compile time", "load-time": "Load time", "run-time": "Run time"}
CATEGORY_LABELS = {
    "device-memory": "Device memory", "on-chip-memory": "On-chip memory",
    "host-memory": "Host memory", "shared-memory": "Shared memory",
}
PLATFORM_LABELS = {
    "tpu": "TPU", "gpu": "GPU", "neuron": "AWS Neuron", "cpu": "CPU", "mps": "Apple MPS",
    "gaudi": "Intel Gaudi", "tenstorrent": "Tenstorrent",
}


@dataclass
class Message:
    template: str
    examples: list[str]
    note: str | None = None


@dataclass
class Record:
    """One synthetic record, renderable as an errorkb record or as a plain MyST page."""

    id: str
    code: str
    source: str
    title: str
    summary: str
    platforms: list[str]
    frameworks: list[str]
    phase: str
    category: str
    messages: list[Message]
    related: list[str]
    aliases: list[str]
    references: list[str]
    causes: list[str]
    fixes: list[tuple[str, str]]  # title, text; a fix in VARIANTS also gets one variant per framework
    debugging: list[str]
    snippet: str | None = None


def _size(rng: random.Random, low: float = 0.5, high: float = 900.0) -> str:
    return f"{rng.uniform(low, high):.2f}{rng.choice(UNITS)}"


def _fill(template: str, rng: random.Random, comp: str) -> str:
    """An example of ``template``: placeholders replaced by plausible values, behind a log prefix."""
    values = {
        "requested": _size(rng), "capacity": _size(rng), "free": _size(rng), "used": _size(rng),
        "excess": _size(rng), "device": str(rng.randrange(8)), "program": f"jit_{comp}_step_{rng.randrange(99)}",
        "buffer": rng.choice(BUFFERS), "path": f"/tmp/{comp}/run{rng.randrange(99)}/graph.neff",
        "shape": f"[{rng.choice([8, 16, 32])}, {rng.choice([1024, 4096])}]", "dtype": rng.choice(["bf16", "f32", "f16"]),
        "prefix": rng.choice(["", "fatal: ", "permanent error. "]),
    }
    text = template
    for name, value in values.items():
        for type_ in ("size", "int", "identifier", "path", "shape", "dtype", "text"):
            text = text.replace(f"{{{name}:{type_}}}", value)
    prefix = rng.choice(LOG_PREFIXES).format(comp=comp, n=rng.randrange(1, 60))
    return prefix + text


def _messages(rng: random.Random, vendor: str, code: str, comp: str, op: str, space: str) -> list[Message]:
    """One to three templates, all carrying this record's own word combination or code."""
    ing = OPERATIONS[op]
    camel = f"{vendor}{comp.capitalize()}{op.capitalize()}Error"
    shapes = [
        (f"{code}: {comp} failed to {op} {{requested:size}} in {space} memory "
         f"({{free:size}} free of {{capacity:size}})", None),
        (f"{vendor} {comp} could not {op} {{buffer:identifier}} buffer of {{requested:size}}: "
         f"{space} pool exhausted", "Older releases name the buffer kind instead of the program."),
        (f"{camel}: {space} exhausted while {ing} {{program:identifier}}; used {{used:size}}, "
         f"limit {{capacity:size}}", None),
        (f"{vendor} {comp}: {{prefix:text}}cannot {op} tensor of shape {{shape:shape}} ({{dtype:dtype}}) "
         f"on device {{device:int}} in {space}", "Printed once per device that failed."),
    ]
    chosen = [shapes[0]] + rng.sample(shapes[1:], rng.randint(0, 2))
    out = []
    for template, note in chosen:
        examples = [_fill(template, rng, comp) for _ in range(rng.randint(1, 5))]
        out.append(Message(template, examples, note if rng.random() < 0.5 else None))
    return out


def _prose(rng: random.Random, vendor: str, comp: str, op: str, space: str) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    causes = [
        f"**The working set is larger than {space} memory.** The {comp} has to {op} every live buffer "
        f"at once, and the peak of the step does not fit in what the device has left.",
        f"**Fragmentation.** Enough {space} memory is free in total, but not in one piece, so the "
        f"{comp} cannot {op} a contiguous block of the requested size.",
        f"**Another process holds memory.** A second job or a stale worker on the same device keeps "
        f"part of {space} memory, so less is free than the capacity suggests.",
        f"**A buffer is replicated where it should be sharded.** Each device then has to {op} the "
        f"whole array, and the numbers in the message are several times the capacity.",
    ]
    fixes = [
        ("Lower the batch size", f"Activations shrink in proportion to the batch. It costs throughput and may "
         f"change training dynamics; accumulate gradients to keep the global batch. Applies whenever the "
         f"{comp} reports a peak close to the capacity."),
        ("Donate or free buffers you replace", f"Let the {vendor} runtime reuse the memory of inputs that the "
         f"step overwrites. It costs nothing at run time; the donated arrays cannot be used afterwards."),
        ("Recompute activations", f"Keep fewer intermediates in {space} memory and recompute them in the "
         f"backward pass. Expect about one extra forward pass of compute."),
        ("Store large arrays in a 16-bit type", "Halves the memory of the converted arrays. It changes "
         "numerics: keep a 32-bit copy of the weights if training becomes unstable."),
        ("Move to a device with more memory", f"A larger device or more devices add {space} capacity, at "
         f"a cost in money; sharding the model across them adds communication."),
    ]
    debugging = [
        "Read the sizes in the message: the requested size against the capacity tells how far the "
        "program is from fitting.",
        f"Raise the {comp}'s logging to see which buffers were live when it tried to {op}.",
        f"Run the same step with smaller shapes and compare the peak {space} usage before and after a change.",
        "Check that no other process uses the device while the job runs.",
    ]
    chosen_causes = causes[: rng.randint(2, 4)]
    chosen_fixes = [fixes[0], *rng.sample(fixes[1:], rng.randint(1, 3))]
    chosen_debugging = debugging[: rng.randint(2, 4)]
    return chosen_causes, chosen_fixes, chosen_debugging


#: Fixes done differently per framework: title -> framework label -> text.  errorkb writes them as
#: '####' sub-sections (shown as tabs); the plain twin as sphinx-design's tab-set, as an author would.
VARIANTS = {
    "Recompute activations": {
        "PyTorch": "Wrap blocks of layers in `torch.utils.checkpoint.checkpoint`.",
        "JAX": "Wrap the layer function in `jax.checkpoint` before it is scanned or called.",
    },
    "Store large arrays in a 16-bit type": {
        "PyTorch": "Run the step under `torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16)`.",
        "JAX": "Cast the parameters with `jax.tree.map(lambda x: x.astype(jnp.bfloat16), params)`.",
    },
}
SHOWN_EXAMPLES = 3  # examples shown open on a page; the others fold into a dropdown

SNIPPET = """\
>>> import numpy as np
>>> np.zeros(({rows}, 1024), dtype=np.float32).nbytes
{nbytes}
"""


def generate(n: int, seed: int = 8) -> list[Record]:
    """``n`` records; the same ``n`` and ``seed`` always give the same records."""
    rng = random.Random(seed)
    combos = list(itertools.product(SOURCES, COMPONENTS, OPERATIONS, SPACES))
    if n > len(combos):
        raise ValueError(f"at most {len(combos)} records can be generated")
    rng.shuffle(combos)
    records: list[Record] = []
    for i, (source, comp, op, space) in enumerate(combos[:n]):
        vendor, prefix, platforms, frameworks = SOURCES[source]
        code = f"{prefix}{i:05d}"
        id_ = f"{source}-{comp}-{op}-{space}-{i:05d}".replace("pytorch", "torch")
        related = sorted({records[j].id for j in rng.sample(range(i), min(i, rng.randint(0, 2)))})
        causes, fixes, debugging = _prose(rng, vendor, comp, op, space)
        rows = rng.choice([256, 512, 1024])
        records.append(Record(
            id=id_, code=code, source=source,
            title=f"{vendor} {comp} cannot {op} {space} memory",
            summary=f"The {vendor} {comp} ran out of {space} memory while trying to {op} a buffer.",
            platforms=platforms, frameworks=frameworks,
            phase=rng.choice(PHASES), category=rng.choice(CATEGORIES),
            messages=_messages(rng, vendor, code, comp, op, space),
            related=related, aliases=[f"{vendor}{comp.capitalize()}{op.capitalize()}Oom{i}"],
            references=[f"https://docs.example.org/{source}/errors/{code.lower()}"],
            causes=causes, fixes=fixes, debugging=debugging,
            snippet=SNIPPET.format(rows=rows, nbytes=rows * 1024 * 4),
        ))
    return records


# ---------------------------------------------------------------------------------------------
# Rendering


def _q(text: str) -> str:
    """A YAML double-quoted scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _variants(variants: dict[str, str], plain: bool) -> list[str]:
    if not plain:
        return [line for label, text in variants.items() for line in (f"#### {label}", "", text, "")]
    out = ["::::{tab-set}", ":sync-group: framework", ""]
    for label, text in variants.items():
        out += [f":::{{tab-item}} {label}", f":sync: {label.lower()}", "", text, ":::", ""]
    return out + ["::::", ""]


def _body(record: Record, link: Callable[[str], str], snippets: bool, plain: bool = False) -> str:
    """The prose sections; ``link(id)`` renders a link to another record."""
    out = ["## Causes", ""]
    out += [f"- {c}" for c in record.causes]
    if record.related:
        out += ["", f"The same pressure often shows up as {link(record.related[0])} first."]
    out += ["", "## Fixes", "", "Try these in order; the first ones do not change what the program computes.", ""]
    for title, text in record.fixes:
        out += [f"### {title}", "", text, ""]
        if title in VARIANTS:
            out += _variants(VARIANTS[title], plain)
    out += ["## Debugging", ""]
    out += [f"{k}. {step}" for k, step in enumerate(record.debugging, 1)]
    if snippets and record.snippet:
        out += ["", "How much memory a buffer of a given shape takes:", ""]
        out += ["```{snippet} shows", ":id: buffer-size", ":requires: numpy", ":timeout: 30", "",
                record.snippet.rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


def render_record(record: Record, snippets: bool = False) -> str:
    """The record as errorkb reads it: YAML front matter, then the prose."""
    lines = ["---", f"id: {record.id}", f"code: {record.code}", f"title: {_q(record.title)}",
             f"summary: {_q(record.summary)}", f"source: {record.source}",
             f"platforms: [{', '.join(record.platforms)}]", f"frameworks: [{', '.join(record.frameworks)}]",
             f"phase: {record.phase}", f"category: {record.category}", "messages:"]
    for message in record.messages:
        lines.append(f"  - template: {_q(message.template)}")
        if message.note:
            lines.append(f"    note: {_q(message.note)}")
        lines.append("    examples:")
        lines += [f"      - {_q(e)}" for e in message.examples]
    lines += [f"related: [{', '.join(record.related)}]", f"aliases: [{', '.join(record.aliases)}]", "references:"]
    lines += [f"  - {url}" for url in record.references]
    lines += ["checked:", f"  date: {CHECKED}", "  against: {Demo runtime: '1.0'}", "---", ""]
    return "\n".join(lines) + "\n" + _body(record, lambda id_: f"{{err}}`{id_}`", snippets)


def render_plain(record: Record, by_id: dict[str, Record], snippets: bool = False) -> str:
    """The same content as an ordinary MyST page: what a user would write without errorkb."""

    def link(id_: str) -> str:
        other = by_id[id_]
        return f"[{other.code}: {other.title}](../{other.source}/{other.id}.md)"

    badges = [("primary", record.source), *(("info", PLATFORM_LABELS[p]) for p in record.platforms),
              *(("secondary", f) for f in record.frameworks), ("warning", PHASE_LABELS[record.phase]),
              ("muted-line", CATEGORY_LABELS[record.category])]
    out = [f"# {record.code}: {record.title}", "", record.summary, "",
           " ".join(f"{{bdg-{colour}}}`{label}`" for colour, label in badges), "", "## Messages", ""]
    for message in record.messages:
        out += ["```text", message.template, "```", ""]
        if message.note:
            out += [message.note, ""]
        out += ["Seen in real logs:" if len(message.examples) > 1 else "Seen in a real log:", ""]
        for example in message.examples[:SHOWN_EXAMPLES]:
            out += ["```text", example, "```", ""]
        rest = message.examples[SHOWN_EXAMPLES:]
        if rest:
            out += [f":::{{dropdown}} {len(rest)} more examples", ""]
            for example in rest:
                out += ["```text", example, "```", ""]
            out += [":::", ""]
    body = _body(record, link, False, plain=True)
    if snippets and record.snippet:
        body += "\nHow much memory a buffer of a given shape takes:\n\n```pycon\n" + record.snippet + "```\n"
    out.append(body)
    if record.related:
        out += ["## Related errors", ""] + [f"- {link(r)}" for r in record.related] + [""]
    out += ["## References", ""] + [f"- <{url}>" for url in record.references] + [""]
    return "\n".join(out)


CONF = '''"""Sphinx configuration of a generated {kind} benchmark site ({n} records)."""

project = "errorkb-bench"
extensions = {extensions!r}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = {theme!r}
{sidebars}{fields}'''

#: errorkb sites list sources in the sidebar, not every record (records need no toctree).
SIDEBARS = {"furo": ["sidebar/brand.html", "sidebar/search.html", "sidebar/scroll-start.html",
                     "errorkb-sources.html", "sidebar/navigation.html", "sidebar/scroll-end.html"],
            "basic": ["localtoc.html", "errorkb-sources.html", "relations.html", "searchbox.html"]}

INTRO = ("**A knowledge base of the memory errors that accelerators raise.** Each page explains one "
         "error: the exact messages it prints, what causes it, the fixes to try in order, and how to "
         "find out which of them applies.")


def site_fields() -> str:
    """The declaration of this repository's site (fields, sections, source labels), as conf.py lines."""
    from errorkb.core.settings import site_options

    options = site_options(ROOT / "conf.py")
    names = ("errorkb_fields", "errorkb_sections", "errorkb_source_labels")
    return "".join(f"{name} = {options[name]!r}\n" for name in names if name in options)


def write_site(records: list[Record], out: Path, *, plain: bool = False, snippets: bool = False,
               theme: str = "basic") -> None:
    """Write a complete site for ``records`` into ``out`` (replacing what was there)."""
    if out.exists():
        shutil.rmtree(out)
    (out / "errors").mkdir(parents=True)
    extensions = ["myst_parser", "sphinx_design"] if plain else ["myst_parser", "sphinx_design", "errorkb"]
    kind = "plain MyST" if plain else "errorkb"
    sidebars = "" if plain else f"html_sidebars = {{'**': {SIDEBARS[theme]!r}}}\n"
    (out / "conf.py").write_text(CONF.format(kind=kind, n=len(records), extensions=extensions, theme=theme,
                                             sidebars=sidebars, fields="" if plain else site_fields()), encoding="utf-8")
    if plain:
        by_id = {r.id: r for r in records}
        table = ["| Code | Error | Platforms | Phase |", "| --- | --- | --- | --- |"]
        for r in sorted(records, key=lambda r: (r.source, r.id)):
            table.append(f"| `{r.code}` | [{r.title}](errors/{r.source}/{r.id}.md) | "
                         f"{', '.join(PLATFORM_LABELS[p] for p in r.platforms)} | {PHASE_LABELS[r.phase]} |")
        catalogue = "\n".join(table)
        counts: dict[str, int] = {}
        for r in records:
            counts[r.source] = counts.get(r.source, 0) + 1
        cards = ["::::{grid} 1 2 3 4", ":gutter: 2", ""]
        for source, count in counts.items():  # each card leads to the source's first record
            first = next(r for r in records if r.source == source)
            cards += [f":::{{grid-item-card}} {source}", ":link-type: url", f":link: errors/{source}/{first.id}.html",
                      "", f"{count} errors", ":::", ""]
        sources = "\n".join(cards + ["::::"])
        toctree = "```{toctree}\n:hidden:\n:glob:\n\nerrors/*/*\n```\n"
    else:
        catalogue = "```{err:catalogue}\n```"
        sources = "```{err:sources}\n```"
        toctree = ""
    index = f"# errorkb\n\n{INTRO}\n\n## By source\n\n{sources}\n\n## All errors\n\n{catalogue}\n" + (f"\n{toctree}" if toctree else "")
    (out / "index.md").write_text(index, encoding="utf-8")
    if snippets and not plain:  # the package the snippets require, declared as a site declares it
        (out / "snippet-requirements.txt").write_text("numpy\n", encoding="utf-8")
    for record in records:
        folder = out / "errors" / record.source
        folder.mkdir(exist_ok=True)
        text = render_plain(record, by_id, snippets) if plain else render_record(record, snippets)
        (folder / f"{record.id}.md").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="number of records")
    parser.add_argument("out", type=Path, help="site folder to create (replaced if it exists)")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--plain", action="store_true", help="write the plain-Sphinx twin instead")
    parser.add_argument("--snippets", action="store_true",
                        help="add a {snippet} block to each record (needs the snippet directive)")
    parser.add_argument("--theme", default="basic", choices=["basic", "furo"])
    args = parser.parse_args(argv)
    try:
        records = generate(args.n, args.seed)
    except ValueError as exc:
        print(f"gen_records: {exc}", file=sys.stderr)
        return 2
    write_site(records, args.out, plain=args.plain, snippets=args.snippets, theme=args.theme)
    print(f"wrote {len(records)} records to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
