"""The hosted-repository files cannot run here: validate them against their vendored schemas
(offline) and hold the pull-request workflow to its promises (read-only, no secrets)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = ROOT / ".github/workflows"
PULL_REQUEST = WORKFLOWS / "pull-request.yml"
PUBLISH = WORKFLOWS / "publish.yml"
LINKS = WORKFLOWS / "links.yml"
SANDBOX = ROOT / ".github/actions/sandbox/action.yml"

SCHEMAS = [
    ("vendor.github-workflows", [PULL_REQUEST, PUBLISH, LINKS]),
    ("vendor.github-actions", [SANDBOX]),
    ("custom.github-workflows-require-timeout", [PULL_REQUEST, PUBLISH, LINKS]),
    ("vendor.github-issue-forms", [ROOT / ".github/ISSUE_TEMPLATE/missing-error.yml"]),
    ("vendor.github-issue-config", [ROOT / ".github/ISSUE_TEMPLATE/config.yml"]),
    ("vendor.readthedocs", [ROOT / ".readthedocs.yaml"]),
]


def check_jsonschema(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("schema", "files"), SCHEMAS, ids=[s for s, _ in SCHEMAS])
def test_files_match_their_schema(schema, files):
    done = check_jsonschema(schema, files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(PULL_REQUEST.read_text().replace("runs-on:", "runs_on:", 1))
    done = check_jsonschema("vendor.github-workflows", [broken])
    assert done.returncode != 0 and "broken.yml" in done.stdout


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads a bare `on` as true
    return data


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_pull_requests_run_untrusted_code_with_a_read_only_token_and_no_secrets():
    workflow = load(PULL_REQUEST)
    assert set(workflow["on"]) == {"pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in workflow["jobs"].values())
    text = PULL_REQUEST.read_text()
    assert not re.search(r"\bsecrets\.|pull_request_target", re.sub(r"#.*", "", text))
    for step in steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_pull_requests_check_test_and_build_with_the_makefile():
    runs = [step["run"] for step in steps(load(PULL_REQUEST)) if "run" in step]
    assert runs[:5] == ["make check", "make lint", 'make test-changed BASE="$BASE"', "make test", "make html"]
    assert [run.split("\n")[0] for run in runs[5:]] == ["make doctest > /dev/null || true"]  # the results, from the cache
    makefile = (ROOT / "Makefile").read_text()
    for target in ("check", "lint", "test-changed", "test", "html"):
        assert re.search(rf"^{target}:", makefile, re.M), f"the Makefile has no {target} target"


def test_reviewers_get_every_snippets_result_and_the_site_that_shows_them():
    build = load(PULL_REQUEST)["jobs"]["build"]["steps"]
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "_build/html" and upload["id"] == "site"
    summary = build[-1]
    assert summary["if"] == "success() || failure()" and summary["env"]["SITE_URL"] == "${{ steps.site.outputs.artifact-url }}"
    assert "_build/examples/output.txt" in summary["run"] and '>> "$GITHUB_STEP_SUMMARY"' in summary["run"]
    assert "artifact" in (ROOT / "CONTRIBUTING.md").read_text()


def test_the_changed_records_are_diffed_against_the_pull_requests_base():
    (job,) = [job for job in load(PULL_REQUEST)["jobs"].values()
              if any(step.get("run", "").startswith("make test-changed") for step in job["steps"])]
    checkout = next(step for step in job["steps"] if step.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    run = next(step for step in job["steps"] if step.get("run", "").startswith("make test-changed"))
    assert run["env"] == {"BASE": "${{ github.event.pull_request.base.sha }}"}


def requirement_names(level: str) -> set[str]:
    """The packages requirements/<level>.txt installs, with those of the files it includes."""
    names: set[str] = set()
    for line in (ROOT / "requirements" / f"{level}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("-r "):
            names |= requirement_names(line[3:].removesuffix(".txt"))
        elif line and not line.startswith(("#", "-")):
            names.add(re.split(r"[\[=<>]", line)[0].lower())
    return names


def test_each_job_installs_only_what_its_target_needs():
    """The check gets the package's own dependencies and its linter; the snippets CPU builds; every
    make target installs its own level, each job's pip cache is keyed on all of them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = {re.split(r"[\[=<>]", d)[0].lower() for d in project["dependencies"]}
    assert requirement_names("check") <= dependencies | {"docutils", "rumdl"}
    assert {"torch", "jax", "playwright"}.isdisjoint(requirement_names("check"))
    assert {"playwright", "ipykernel", "mcp"}.isdisjoint(requirement_names("records") | requirement_names("site"))
    assert {"torch", "jax"}.isdisjoint(requirement_names("lint"))  # the lint reads types, it runs no snippet
    for workflow in (load(PULL_REQUEST), load(PUBLISH)):
        for job in workflow["jobs"].values():
            runs = " ".join(step.get("run", "") for step in job["steps"])
            if re.search(r"make (test|html)", runs):  # these install the snippets' packages
                assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    makefile = (ROOT / "Makefile").read_text()
    for target, level in {"check": "check", "new": "check", "lint": "lint", "test-changed": "records", "html": "site",
                          "serve": "site", "doctest": "site", "test": "test"}.items():
        assert re.search(rf"^{target}: \$\(STAMP:%=%-{level}\)", makefile, re.M), target
    for workflow in (load(PULL_REQUEST), load(PUBLISH)):
        for step in steps(workflow):
            if step.get("uses", "").startswith("actions/setup-python@"):
                assert step["with"]["cache-dependency-path"].split() == ["requirements/*.txt", "snippet-requirements.txt"]


def test_a_package_pinned_in_two_levels_is_pinned_alike():
    """requirements/lint.txt pins again the test side's packages whose types mypy reads."""
    pinned: dict[str, set[str]] = {}
    for path in [*sorted((ROOT / "requirements").glob("*.txt")), ROOT / "snippet-requirements.txt"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            requirement = line.split("#")[0].split(";")[0].strip()
            if "==" in requirement:
                name, version = requirement.split("==")
                pinned.setdefault(re.sub(r"\[.*\]", "", name).strip().lower(), set()).add(version.strip())
    assert {"pytest", "hypothesis", "mcp"} <= set(pinned)
    assert {name: versions for name, versions in pinned.items() if len(versions) > 1} == {}


def test_builds_and_tests_get_the_snippet_sandbox_first():
    for workflow in (load(PULL_REQUEST), load(PUBLISH)):
        for job in workflow["jobs"].values():
            names = [step.get("uses") or step.get("run", "") for step in job["steps"]]
            for i, run in enumerate(names):
                if re.match(r"make (test|html)", run):
                    assert "./.github/actions/sandbox" in names[:i], f"{run} runs before the sandbox is set up"


def test_merges_publish_the_checked_site_with_github_pages():
    workflow = load(PUBLISH)
    assert workflow["on"]["push"] == {"branches": ["main"]}
    assert workflow["permissions"] == {"contents": "read"}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    runs = " ; ".join(step["run"] for step in build["steps"] if "run" in step)
    assert runs.startswith("make check ; make html")
    upload = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert "secrets." not in re.sub(r"#.*", "", PUBLISH.read_text())


def test_read_the_docs_builds_the_same_site():
    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    assert config["sphinx"] == {"configuration": "conf.py", "builder": "html", "fail_on_warning": True}
    assert {"requirements": "requirements/site.txt"} in config["python"]["install"]
    assert config["build"]["tools"]["python"] == "3.11"


def test_the_issue_form_asks_for_the_paste():
    form = yaml.safe_load((ROOT / ".github/ISSUE_TEMPLATE/missing-error.yml").read_text())
    paste = next(item for item in form["body"] if item.get("id") == "paste")
    assert paste["type"] == "textarea" and paste["validations"]["required"] is True


def test_the_weekly_link_check_lists_dead_links_by_page(tmp_path):
    """The job's report: linkcheck's broken links by page, nothing when none is broken."""
    output = tmp_path / "output.json"
    lines = [
        {"filename": "errors/cuda/cuda-runtime-oom.md", "lineno": 12, "status": "broken", "code": 404,
         "uri": "https://github.com/example/gone/issues/1", "info": "404 Client Error: Not Found"},
        {"filename": "errors/cuda/cuda-runtime-oom.md", "lineno": 14, "status": "working", "code": 0,
         "uri": "https://github.com/example/here/issues/2", "info": ""},
        {"filename": "docs/lookup.md", "lineno": 3, "status": "redirected", "code": 301,
         "uri": "https://old.example.org", "info": "https://new.example.org"},
    ]
    output.write_text("\n".join(map(json.dumps, lines)) + "\n")
    script = ROOT / ".github/scripts/dead_links.py"
    done = subprocess.run([sys.executable, str(script), str(output)], capture_output=True, text=True)
    assert done.returncode == 0
    assert "found 1 dead link(s)" in done.stdout
    assert "## errors/cuda/cuda-runtime-oom.md\n- line 12: https://github.com/example/gone/issues/1 " \
           "(404 Client Error: Not Found)" in done.stdout
    output.write_text(json.dumps(lines[1]) + "\n")
    done = subprocess.run([sys.executable, str(script), str(output)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (1, "")
    workflow = load(LINKS)
    assert "schedule" in workflow["on"] and workflow["permissions"] == {"contents": "read", "issues": "write"}
