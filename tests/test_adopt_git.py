"""errorkb for Git's error messages, set up from the wheel as its maintainers would.

``tests/sites/gitkb`` declares its own fields (the command, the kind of problem, the release a
message appeared in) and sections; most of Git's errors have no code, the HTTP ones carry
the status as printed (``HTTP 413``), kept out of the titles.  Its templates end in free text
(``couldn't find remote ref {ref:text}``), its refs hold slashes, and its push failure ends
in a summary line.  The site is built with ``-W``, and every terminal tool (``check``,
``lookup``, ``explain``, ``run`` and the MCP server) is driven from inside its folder, with
nothing of this repository at hand.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Installed

SITE = Path(__file__).parent / "sites" / "gitkb"
PUSH = """\
To https://example.org/team/app.git
 ! [rejected]        feature/login -> feature/login (fetch first)
error: failed to push some refs to 'https://example.org/team/app.git'
hint: Updates were rejected because the remote contains work that you do not
"""
#: Driven by the environment's own Python, with the mcp package's client.
MCP_CLIENT = """
import json, sys
import anyio, mcp

async def talk():
    params = mcp.StdioServerParameters(command=sys.argv[1], args=["mcp"], cwd=sys.argv[2])
    async with mcp.stdio_client(params) as (read, write), mcp.ClientSession(read, write) as client:
        await client.initialize()
        found = await client.call_tool("lookup", {"paste": sys.argv[3]})
        record = await client.call_tool("explain", {"key": "HTTP 413"})
        print(json.dumps([found.structured_content, record.structured_content]))

anyio.run(talk)
"""


@pytest.fixture(scope="module")
def gitkb(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Git site, copied out of the repository and built with -W, its build files kept apart."""
    root = tmp_path_factory.mktemp("gitkb") / "site"
    shutil.copytree(SITE, root)
    done = installed.run("sphinx-build", "-W", "-q", "-b", "html", "-d", "_build/doctrees", ".", "_build/html", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="module")
def errorkb(installed: Installed, gitkb: Path):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        """The command line, run from a folder inside the site: it finds conf.py upward."""
        return installed.run("errorkb", *args, cwd=gitkb / "errors" / "remote")

    return run


def page(gitkb: Path, name: str) -> str:
    return (gitkb / "_build/html" / name).read_text(encoding="utf-8")


def test_its_pages_show_its_fields_and_codes_outside_the_titles(gitkb: Path):
    http = page(gitkb, "errors/remote/push-too-large.html")
    assert re.search(r"<h1>The server refused a push too large for it<", http)
    assert re.search(r'Printed with the code <code[^>]*><span class="pre">HTTP</span> <span class="pre">413</span>', http)
    badges = re.findall(r'<span class="errorkb-badge[^"]*"[^>]*>(?:<span class="errorkb-visually-hidden">[^<]*</span>)?'
                        r'([^<]+)</span>', http)
    assert badges == ["Talking to a remote", "git push", "Network", "Since 2.0"]
    assert re.search(r"<h2>What happened", http) and re.search(r"<h2>What to do", http)
    assert 'class="errorkb-fix-number">1.</span>' in http
    rejected = page(gitkb, "errors/remote/push-rejected-fetch-first.html")
    assert re.search(r'class="errorkb-note">One line per branch that <code[^>]*><span class="pre">git</span>', rejected)
    assert 'href="push-failed.html"' in rejected  # the note's {err} role
    assert "accelerator" not in page(gitkb, "index.html").lower()


def test_a_code_of_two_words_gets_a_redirect_page_and_errors_without_codes_no_code(gitkb: Path):
    assert 'url=push-too-large.html"' in page(gitkb, "errors/remote/HTTP-413.html")
    data = json.loads(page(gitkb, "errors.json"))
    codes = {e["id"]: e["code"] for e in data["errors"]}
    assert codes["push-too-large"] == "HTTP 413" and codes["push-failed"] is None and codes["not-a-repository"] is None
    index = page(gitkb, "index.html")
    assert "errorkb-col-code" in index  # some errors have a code
    assert "- [The server refused a push too large for it](https://gitkb.example.org/errors/remote/push-too-large.html)" \
        in page(gitkb, "llms.txt")


def test_its_build_files_stay_out_of_what_it_publishes(gitkb: Path):
    published = {p.relative_to(gitkb / "_build/html").as_posix() for p in (gitkb / "_build/html").rglob("*")}
    assert not any(name.endswith(".pickle") or name.startswith(".doctrees") for name in published)


def test_check_passes_and_lookup_finds_each_error(errorkb):
    done = errorkb("check")
    assert done.returncode == 0 and "6 records OK" in done.stderr, done.stdout + done.stderr
    for paste, expected in (("HTTP 413", "push-too-large"), ("http  413", "push-too-large"),
                            ("error: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413", "push-too-large"),
                            ("fatal: couldn't find remote ref feature/login", "remote-ref-not-found"),
                            ("fatal: not a git repository (or any of the parent directories): .git", "not-a-repository")):
        done = errorkb("lookup", "--json", paste)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["matches"][0]["id"] == expected, paste
    found = json.loads(errorkb("lookup", "--json", PUSH).stdout)["matches"]
    assert [(m["id"], m["exact"]) for m in found] == [("push-rejected-fetch-first", True), ("push-failed", False)]
    assert found[0]["values"]["local"]["text"] == "feature/login"


def test_explain_shows_the_page_in_the_terminal(errorkb):
    done = errorkb("explain", "HTTP 413")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("The server refused a push too large for it\n====")
    for line in ("Code:            HTTP 413", "Source:          Talking to a remote", "Command:         git push",
                 "Kind of problem: Network", "Since:           2.0"):
        assert f"\n{line}\n" in out, line
    assert "\n1. Push fewer commits at a time\n" in out and "\n2. Raise the limit on the server or the proxy\n" in out
    assert "The page: https://gitkb.example.org/errors/remote/push-too-large.html" in out
    markdown = errorkb("explain", "push-rejected-fetch-first", "--format", "markdown").stdout
    assert markdown.startswith("# The remote branch has commits that yours does not\n")
    assert "[Git could not update some of the remote's branches](https://gitkb.example.org/errors/remote/push-failed.html)" \
        in markdown
    assert json.loads(errorkb("explain", "not-a-repository", "--json").stdout)["fields"][0] == {
        "name": "command", "label": "Command", "values": ["git status", "git pull", "git fetch", "git push"]}


def test_run_names_the_record_under_a_real_git_failure(installed: Installed, gitkb: Path):
    """``errorkb run -- git status`` outside any repository: Git's own message, its record under it."""
    outside = gitkb / "errors" / "local"
    env_free = installed.run("errorkb", "run", "--", "git", "-c", "safe.directory=*", "status", cwd=outside)
    assert env_free.returncode == 128
    assert "fatal: not a git repository" in env_free.stderr
    assert "errorkb: not-a-repository: The folder is not inside a Git repository" in env_free.stderr
    assert "more: https://gitkb.example.org/errors/local/not-a-repository.html" in env_free.stderr


def test_its_mcp_server_answers_from_inside_its_folder(installed: Installed, gitkb: Path):
    done = installed.run("python", "-c", MCP_CLIENT, str(installed.bin / "errorkb"), str(gitkb / "errors"), PUSH,
                         cwd=gitkb / "errors")
    assert done.returncode == 0, done.stderr
    found, record = json.loads(done.stdout)
    assert found["matches"][0]["id"] == "push-rejected-fetch-first"
    assert record["id"] == "push-too-large" and record["fields"][1] == {"name": "kind", "label": "Kind of problem",
                                                                "values": ["Network"]}
    assert record["url"] == "https://gitkb.example.org/errors/remote/push-too-large.html"
