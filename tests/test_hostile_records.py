"""Records written to smuggle or to break the build: each is refused at its file and line, and
an interrupted build leaves the last site in place.

Nothing here runs a snippet or depends on who runs the build, so it runs once, as whoever runs
the tests; ``test_hostile_as_user.py`` reruns only the snippets' suite as an ordinary user.
"""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import record_text
from test_contrib_make import make

RECORD = "errors/demo/demo-oom.md"
PROSE = "The program asked for more memory than the device had left.\n"


def with_prose(extra: str) -> str:
    """The demo record with ``extra`` after the first paragraph of its causes."""
    return record_text().replace(PROSE, PROSE + "\n" + extra)


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if fragment in line)


def errorkb(project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(project.root), *args],
                          capture_output=True, text=True, timeout=300)


def sphinx(project, *args: str) -> subprocess.CompletedProcess[str]:
    """A fresh build without ``-W``: what would be published if warnings were let through."""
    cmd = [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", *args, str(project.root), str(project.out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def published(project) -> str:
    """Every file of the built site, as one text."""
    return "\n".join(p.read_text("utf-8", "replace") for p in sorted(project.out.rglob("*")) if p.is_file()
                     and ".doctrees" not in p.parts)


# ---------------------------------------------------------------------------------------------
# Raw HTML


RAW = [  # (the record's text, the fragment of the line the refusal names)
    ("<script>window.stolen = document.cookie</script>", "<script>"),
    ('Look <img src="x" onerror="window.stolen = 1"> here.', "Look <img"),
    ('```{raw} html\n<iframe src="https://attacker.example"></iframe>\n```', "```{raw} html"),
    (':::{raw} html\n<object data="x"></object>\n:::', ":::{raw} html"),
    ('```{eval-rst}\n.. raw:: html\n\n   <embed src="x">\n```', ".. raw:: html"),
]
PAYLOADS = ("window.stolen", "attacker.example", '<object data="x"', '<embed src="x"')


def test_raw_html_in_a_record_is_refused_at_its_line(project) -> None:
    text = with_prose("\n\n".join(form for form, _ in RAW))
    project.add_record(text)
    built = project.build()
    assert built.returncode != 0
    for _, fragment in RAW:
        line = line_of(text, fragment)
        assert f"{RECORD}:{line}: ERROR: raw HTML is not allowed in a record" in built.stderr, (fragment, built.stderr)
    lenient = sphinx(project)
    assert lenient.returncode == 0, lenient.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert "Look" in page and not any(payload in page for payload in PAYLOADS)


def test_raw_html_is_published_where_the_site_allows_it(project) -> None:
    project.write("conf.py", project.CONF + "errorkb_allow_raw_html = True\n")
    project.add_record(with_prose("```{raw} html\n<b class=\"allowed\">raw</b>\n```"))
    built = project.build()
    assert built.returncode == 0, built.stderr
    assert '<b class="allowed">raw</b>' in (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Files from outside the source folder


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder beside the project holding what must not be published."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.md").write_text("# Leaked\n\nSECRET-FROM-A-GUIDE\n", encoding="utf-8")
    (folder / "part.md").write_text("SECRET-FROM-AN-INCLUDED-PART\n", encoding="utf-8")
    (folder / "secret.txt").write_text("SECRET-FROM-AN-INCLUDE\n", encoding="utf-8")
    (folder / "errors" / "leaked").mkdir(parents=True)
    (folder / "errors" / "leaked" / "demo-leak.md").write_text(
        record_text(id="demo-leak", code="LEAK1", source="leaked").replace(PROSE, "SECRET-FROM-A-RECORD\n"))
    return folder


def test_a_record_that_links_out_of_the_source_folder_is_refused(project, outside: Path) -> None:
    project.add_record()
    (project.root / "errors/demo/demo-leak.md").symlink_to(outside / "errors/leaked/demo-leak.md")
    (project.root / "errors/leaked").symlink_to(outside / "errors/leaked", target_is_directory=True)
    message = "1: a symbolic link to a file outside the source folder; put the record itself here"
    checked = errorkb(project, "check")
    assert checked.returncode == 1
    assert f"errors/demo/demo-leak.md:{message}" in checked.stdout.splitlines()
    assert f"errors/leaked/demo-leak.md:{message}" in checked.stdout.splitlines()
    built = project.build()
    assert built.returncode != 0 and f"errors/demo/demo-leak.md:{message.replace('1: ', '1: ERROR: ')}" in built.stderr
    assert "SECRET" not in published(project)


def test_pages_includes_images_and_downloads_from_outside_are_not_published(project, outside: Path) -> None:
    (project.root / "guide.md").symlink_to(outside / "secret.md")
    up = os.path.relpath(outside, project.root / "errors/demo")
    near = os.path.relpath(outside, project.root / "docs")
    includes = f"# Parts\n\n```{{include}} {near}/part.md\n```\n\n```{{literalinclude}} {near}/secret.txt\n```\n"
    project.write("docs/parts.md", includes)  # a guide: in a record, file insertion is off
    text = with_prose(f"![leak]({up}/secret.txt)\n\n{{download}}`leak <{up}/secret.txt>`\n")
    project.add_record(text)
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\ndocs/*\nerrors/*/*\n```\n")
    built = project.build()
    assert built.returncode != 0
    expected = [
        "guide.md:1: ERROR: guide.md is a symbolic link to a file outside the source folder; it is not published",
        f"docs/parts.md:{line_of(includes, '{include}')}: ERROR: includes {outside}/part.md, a file outside the source folder",
        f"docs/parts.md:{line_of(includes, '{literalinclude}')}: ERROR: includes {outside}/secret.txt, a file outside",
        f"{RECORD}:{line_of(text, '![leak]')}: ERROR: ../../../",
        f"{RECORD}:{line_of(text, '{download}')}: ERROR: ../../../",
    ]
    for fragment in expected:
        assert fragment in built.stderr, (fragment, built.stderr)
    assert sphinx(project).returncode == 0
    assert "SECRET" not in published(project)
    assert not (project.out / "guide.html").exists()


# ---------------------------------------------------------------------------------------------
# Deep nesting and huge files


@pytest.mark.parametrize("nesting", ["flow", "block"])
def test_front_matter_nested_50000_deep_is_refused_at_its_line(project, nesting: str) -> None:
    depth = 50_000
    deep = "[" * depth + "]" * depth if nesting == "flow" else "\n" + "- " * depth + "x"
    text = record_text().replace("related: []", f"related: []\nextra: {deep}")
    project.add_record(text)
    line = line_of(text, "extra:") + (0 if nesting == "flow" else 1)
    message = f"{RECORD}:{line}: the front matter is nested more than 64 levels deep"
    checked = errorkb(project, "check")
    assert checked.returncode == 1, checked.stderr  # not a crash: -11 would be a segmentation fault
    assert message in checked.stdout.splitlines()
    built = project.build()
    assert built.returncode == 1 and message.replace(": the front", ": ERROR: the front") in built.stderr


def test_an_oversized_record_is_refused_before_it_is_parsed(project) -> None:
    text = record_text().replace(PROSE, PROSE + ("Padding of a hostile record. " * 35 + "\n") * 51_000)
    project.add_record(text)
    size = len(text.encode("utf-8"))
    assert size > 51 * 10**6
    message = f"{RECORD}:1: the file is {size:,} bytes, more than the 262,144 a record may have (errorkb_max_record_size)"
    checked = errorkb(project, "check")
    assert checked.returncode == 1 and checked.stdout.splitlines() == [message]
    built = project.build()
    assert built.returncode == 1 and message.replace(": the file", ": ERROR: the file") in built.stderr


def test_the_size_limit_of_records_is_the_sites_to_set(project) -> None:
    path = project.add_record()
    project.write("conf.py", project.CONF + 'errorkb_max_record_size = "512B"\n')
    message = f"{RECORD}:1: the file is {path.stat().st_size:,} bytes, more than the 512 a record may have"
    assert errorkb(project, "check").stdout.startswith(message)
    project.write("conf.py", project.CONF + 'errorkb_max_record_size = "a lot"\n')
    checked = errorkb(project, "check")
    refused = "errorkb_max_record_size: 'a lot' is not a size such as '4G' or '256K'"
    assert checked.returncode == 2 and f"conf.py:{project.CONF.count(chr(10)) + 1}: {refused}" in checked.stderr
    built = project.build()
    assert built.returncode == 2 and refused in built.stderr


# ---------------------------------------------------------------------------------------------
# Interrupted builds


STALL = """
import os, time
from pathlib import Path

def setup(app):
    def stall(app, pagename, *args):
        if pagename == "errors/demo/demo-c" and os.environ.get("ERRORKB_TEST_STALL"):
            Path(os.environ["ERRORKB_TEST_STALL"]).write_text("writing")
            time.sleep(300)
    app.connect("html-page-context", stall)
"""


def test_an_interrupted_build_leaves_the_last_site_and_the_next_build_succeeds(project) -> None:
    project.write("conf.py", project.CONF + STALL)
    for name in "abc":
        project.add_record(record_text(id=f"demo-{name}", code=f"DEMO{name.upper()}").replace(
            "could not allocate", f"{name} could not allocate"), id=f"demo-{name}")
    assert make(project, "html").returncode == 0
    site = project.root / "_build" / "html"
    before = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert Path("errors.json") in before and Path("errors/demo/demo-c.html") in before

    record = project.root / "errors/demo/demo-c.md"
    record.write_text(record.read_text().replace("Demo device ran out of memory", "Demo device ran out, again"))
    marker = project.root / "stalled"
    cmd = ["make", "-s", "-f", str(Path(__file__).parents[1] / "Makefile"), "-C", str(project.root), "STAMP=",
           f"BIN={Path(sys.executable).parent}", "html"]
    build = subprocess.Popen(cmd, env={**os.environ, "ERRORKB_TEST_STALL": str(marker)}, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marker.exists(), "the build never reached the page it stalls on"
    os.killpg(build.pid, signal.SIGINT)  # Ctrl-C in the terminal
    build.wait(timeout=60)
    after = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before, "the last site changed"

    rebuilt = make(project, "html")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "Demo device ran out, again" in (site / "errors/demo/demo-c.html").read_text(encoding="utf-8")
    assert "Demo device ran out, again" in (site / "errors.json").read_text(encoding="utf-8")
    assert {p.relative_to(site) for p in site.rglob("*") if p.is_file()} >= set(before)
    assert sorted(p.name for p in site.parent.iterdir()) == ["doctrees", "html"]


# ---------------------------------------------------------------------------------------------
# Catch-all templates


def with_message(template: str, example: str) -> str:
    """The demo record with a second message: ``template`` and one example."""
    first = '      - "DemoError: could not allocate 2.00 GiB on device 0"\n'
    return record_text().replace(first, first + f'  - template: "{template}"\n    examples:\n      - "{example}"\n', 1)


@pytest.mark.parametrize(("template", "example"), [
    ("^Traceback (most recent call last):$", "Traceback (most recent call last):"),
    ("^Error$", "Error"),
    ("During handling of the above exception, another exception occurred:",
     "During handling of the above exception, another exception occurred:"),
])
def test_a_template_that_answers_every_failure_is_refused_at_its_line(project, template: str, example: str) -> None:
    """A whole line without placeholders is judged by its words like any other template: one
    that every Python traceback prints would be the exact answer under every failure that
    ``errorkb run`` and the hook see."""
    text = with_message(template, example)
    project.add_record(text)
    line = line_of(text, f'- template: "{template}"')
    complaint = "matches almost anything: its words"
    checked = errorkb(project, "check")
    assert checked.returncode == 1
    assert any(out.startswith(f"{RECORD}:{line}: messages[1].template: {complaint}") for out in checked.stdout.splitlines()), \
        checked.stdout
    built = project.build()
    assert built.returncode == 1 and f"{RECORD}:{line}: ERROR: messages[1].template: {complaint}" in built.stderr


def test_a_short_whole_line_that_names_what_happened_is_accepted(project) -> None:
    project.add_record(with_message("^Killed$", "Killed"))
    checked = errorkb(project, "check")
    assert checked.returncode == 0, checked.stdout


# ---------------------------------------------------------------------------------------------
# Second round: numbers a record declares are bounded


#: The probe's diagnosis: a 310-digit number of bytes, beyond what a float holds.
HUGE_DIAGNOSIS = "  - when: n > " + "9" * 310 + " B\n    say: More than there is\n    fix: 1\n"


def with_diagnosis(diagnosis: str) -> str:
    return record_text().replace("{requested:size}", "{n:size}").replace(
        "related: []", "related: []\ndiagnoses:\n" + diagnosis.rstrip("\n"))


def test_a_diagnosis_naming_a_310_digit_number_is_refused_at_its_line(project) -> None:
    text = with_diagnosis(HUGE_DIAGNOSIS)
    project.add_record(text)
    project.add_record(record_text(id="demo-other", code="DEMO2").replace("could not allocate", "could not map"),
                       id="demo-other")
    message = (f"{RECORD}:{line_of(text, 'when:')}: diagnoses[0].when: {'9' * 40}... is more than "
               "9,007,199,254,740,992 bytes, the most a condition may name (at character 5)")
    checked = errorkb(project, "check")
    assert checked.returncode == 1 and checked.stdout.splitlines() == [message], checked.stdout + checked.stderr
    looked = errorkb(project, "lookup", "DemoError: could not map 2.00 GiB on device 0")
    assert looked.returncode == 0, looked.stderr
    assert "1 problem(s) in the records (see 'errorkb check')" in looked.stderr and "Traceback" not in looked.stderr
    built = project.build()
    assert built.returncode == 1 and message.replace(": diagnoses", ": ERROR: diagnoses") in built.stderr
    assert "Traceback" not in built.stderr


@pytest.mark.parametrize(("field", "complaint"), [
    ("checked: {date: 2026-13-45, against: {PyTorch: '2.9'}}", "invalid YAML: '2026-13-45' is not a date: month must be in 1..12"),
    ("checked: {date: 2026-11-24 25:00:00, against: {PyTorch: '2.9'}}", "is not a date: hour must be in 0..23"),
    ("checked: {date: 2026-11-24, against: {PyTorch: " + "9" * 5000 + "}}",
     f"invalid YAML: '{'9' * 40}...' is not a number a record may hold (from -9,007,199,254,740,992 to 9,007,199,254,740,992)"),
    ("diagnoses: [{when: n > 1 GiB, say: Big, fix: 1" + "0" * 30 + "}]", "is not a number a record may hold"),
], ids=["month-13", "hour-25", "5000-digits", "fix-beyond-2**53"])
def test_a_front_matter_value_python_cannot_hold_is_refused_at_its_line(project, field: str, complaint: str) -> None:
    text = record_text().replace("{requested:size}", "{n:size}").replace("related: []", f"related: []\n{field}")
    project.add_record(text)
    line = line_of(text, field[:12])
    checked = errorkb(project, "check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked.stderr
    assert any(out.startswith(f"{RECORD}:{line}: ") and complaint in out for out in checked.stdout.splitlines()), checked.stdout
    built = project.build()
    assert built.returncode == 1 and "Traceback" not in built.stderr
    assert f"{RECORD}:{line}: ERROR: " in built.stderr and complaint in built.stderr


# ---------------------------------------------------------------------------------------------
# Second round: what is not a regular file is never read


def test_a_fifo_or_a_link_to_dev_zero_among_the_records_is_refused_unread(project) -> None:
    project.add_record()
    os.mkfifo(project.root / "errors/demo/demo-fifo.md")
    (project.root / "errors/demo/demo-zero.md").symlink_to("/dev/zero")
    expected = ["errors/demo/demo-fifo.md:1: not read: it is a FIFO, not a file",
                "errors/demo/demo-zero.md:1: not read: it is a symbolic link to a character device, not a file"]
    checked = errorkb(project, "check")
    assert checked.returncode == 1 and checked.stdout.splitlines() == expected, checked.stdout + checked.stderr
    built = project.build()
    assert built.returncode == 1
    for line in expected:
        assert line.replace(": not read", ": ERROR: not read") in built.stderr, built.stderr


def test_a_fifo_or_a_device_among_the_guides_is_refused_unread(project) -> None:
    project.add_record()
    os.mkfifo(project.root / "docs-fifo.md")
    (project.root / "docs-zero.md").symlink_to("/dev/zero")
    guide = "# Guide\n\nA picture ![p](picture.png) and a {download}`file <data.bin>`.\n"
    project.write("guide.md", guide)
    for name in ("picture.png", "data.bin"):
        os.mkfifo(project.root / name)
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nguide\nerrors/*/*\n```\n")
    checked = errorkb(project, "check")
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines() == ["docs-fifo.md:1: not read: it is a FIFO, not a file",
                                           "docs-zero.md:1: not read: it is a symbolic link to a character device, not a file"]
    built = project.build()
    assert built.returncode != 0
    for fragment in ("docs-fifo.md:1: ERROR: docs-fifo.md is a FIFO, not a file; it is not read",
                     "docs-zero.md:1: ERROR: docs-zero.md is a symbolic link to a character device, not a file; it is not read",
                     "guide.md:3: ERROR: picture.png is a FIFO, not a file; it is not published",
                     "guide.md:3: ERROR: data.bin is a FIFO, not a file; it is not published"):
        assert fragment in built.stderr, (fragment, built.stderr)
    lenient = sphinx(project)
    assert lenient.returncode == 0, lenient.stderr
    assert "A picture" in (project.out / "guide.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Second round: links that run scripts, files and URLs read for a record, an image in a link

SCHEMES = "a record may link only to URLs of the schemes http, https, mailto or relative ones"
SCRIPT_LINKS = [  # (the record's text, the fragment of the line the refusal names): the probe's three, and kin
    ("```{eval-rst}\n`x <javascript:alert(1)>`__\n```", "`x <javascript"),
    ("```{eval-rst}\n.. image:: picture.png\n   :target: javascript:alert(1)\n```", ".. image:: picture.png"),
    ("```{figure} picture.png\n:target: javascript:alert(1)\n\nA figure\n```", "```{figure} picture.png"),
    ("```{image} picture.png\n:target: JaVaScRiPt:alert(1)\n```", "```{image} picture.png"),
    ("```{eval-rst}\n`y <data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==>`__\n```", "`y <data:"),
    ("```{button-link} javascript:alert(1)\nA button\n```", "```{button-link}"),
]


def test_links_and_images_that_would_run_a_script_are_refused_at_their_line(project) -> None:
    text = with_prose("\n\n".join(form for form, _ in SCRIPT_LINKS))
    project.add_record(text)
    (project.root / "errors/demo/picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    built = project.build()
    assert built.returncode != 0
    for _, fragment in SCRIPT_LINKS:
        line = line_of(text, fragment)
        assert f"{RECORD}:{line}: ERROR: " in built.stderr and SCHEMES in built.stderr, (fragment, built.stderr)
    assert built.stderr.count(SCHEMES) == len(SCRIPT_LINKS), built.stderr
    lenient = sphinx(project)
    assert lenient.returncode == 0, lenient.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert "javascript:" not in page.lower() and "data:text/html" not in page
    assert ">x<" in page and "A figure" in page and "A button" in page  # what the links showed stays


def test_a_site_may_widen_the_schemes_its_records_link_to(project) -> None:
    text = with_prose("```{eval-rst}\nCall `the help desk <tel:+15550100>`__.\n```")
    project.add_record(text)
    refused = project.build()
    assert refused.returncode != 0 and f"{RECORD}:{line_of(text, 'Call')}: ERROR: 'tel:+15550100': {SCHEMES}" in refused.stderr
    project.write("conf.py", project.CONF + 'errorkb_url_schemes = ["http", "https", "mailto", "tel"]\n')
    built = project.build("-E")
    assert built.returncode == 0, built.stderr
    assert 'href="tel:+15550100"' in (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    project.write("conf.py", project.CONF + 'errorkb_url_schemes = ["http", "java script"]\n')
    bad = errorkb(project, "check")
    assert bad.returncode == 2 and "errorkb_url_schemes: 'java script' is not a URL scheme such as 'https'" in bad.stderr


def test_a_meta_refresh_in_a_record_is_refused(project) -> None:
    text = with_prose("```{eval-rst}\n.. meta::\n   :http-equiv=refresh: 0; url=https://attacker.example\n```")
    project.add_record(text)
    built = project.build()
    assert f"{RECORD}:{line_of(text, 'http-equiv')}: ERROR: a record may not set the page's HTTP headers" in built.stderr
    assert sphinx(project).returncode == 0
    assert "attacker.example" not in (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a CSV table, and keeps its path."""

    seen: list[str] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        body = b"LEAKED-FROM-THE-SERVER,1\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def loopback() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 and the paths it was asked for."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.seen
    server.shutdown()
    server.server_close()


def test_a_record_reads_no_url_and_no_file_and_the_build_makes_no_request(project, loopback) -> None:
    url, seen = loopback
    project.write("secret.csv", "SECRET-FROM-A-FILE,1\n")
    project.write("errors/demo/part.txt", "SECRET-FROM-AN-INCLUDE\n")
    reads = [  # (the record's text, the fragment of its line, the warning there)
        (f"```{{eval-rst}}\n.. csv-table:: Fetched\n   :url: {url}/table.csv\n```", ".. csv-table:: Fetched",
         'File and URL access deactivated; ignoring "csv-table" directive.'),
        (f"```{{csv-table}} Fetched too\n:url: {url}/myst.csv\n```", "```{csv-table} Fetched too",
         'File and URL access deactivated; ignoring "csv-table" directive.'),
        ("```{eval-rst}\n.. csv-table:: Read\n   :file: ../../secret.csv\n```", ".. csv-table:: Read",
         'File and URL access deactivated; ignoring "csv-table" directive.'),
        (f"```{{eval-rst}}\n.. raw:: html\n   :url: {url}/raw.html\n```", ".. raw:: html", '"raw" directive disabled.'),
        ("```{eval-rst}\n.. include:: part.txt\n```", ".. include:: part.txt", '"include" directive disabled.'),
        ("```{include} part.txt\n```", "```{include} part.txt", 'Directive "include" disabled.'),
        ("```{literalinclude} part.txt\n```", "```{literalinclude} part.txt", "File insertion disabled"),
    ]
    text = with_prose("\n\n".join(form for form, _, _ in reads))
    project.add_record(text)
    built = project.build()
    assert built.returncode != 0
    for _, fragment, warning in reads:
        assert f"{RECORD}:{line_of(text, fragment)}: WARNING: {warning}" in built.stderr, (fragment, built.stderr)
    lenient = sphinx(project)
    assert lenient.returncode == 0, lenient.stderr
    assert "LEAKED" not in published(project) and "SECRET" not in published(project)
    assert seen == [], seen
    urllib.request.urlopen(f"{url}/alive", timeout=10).read()  # the server did answer: its silence means something
    assert seen == ["/alive"]


def test_a_refused_image_inside_a_link_is_refused_at_its_line_not_a_crash(project, outside: Path) -> None:
    (outside / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    up = os.path.relpath(outside, project.root / "errors/demo")
    forms = [f"```{{eval-rst}}\n.. image:: {up}/picture.png\n   :target: https://example.org\n```",
             f"```{{image}} {up}/picture.png\n:target: https://example.org\n```",
             f"```{{figure}} {up}/picture.png\n:target: https://example.org\n\nA caption\n```",
             f"Inline [![p]({up}/picture.png)](https://example.org) here."]
    text = with_prose("\n\n".join(forms))
    project.add_record(text)
    built = project.build()
    assert built.returncode != 0 and "Traceback" not in built.stderr and "AssertionError" not in built.stderr
    lines = [n for n, line in enumerate(text.split("\n"), 1) if "picture.png" in line]
    for line in lines:
        assert f"{RECORD}:{line}: ERROR: {up}/picture.png leads outside the source folder" in built.stderr, built.stderr
    lenient = sphinx(project)
    assert lenient.returncode == 0, lenient.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert "A caption" in page and "Inline  here." in page and "picture.png" not in page
