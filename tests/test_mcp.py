"""``errorkb mcp`` driven over standard input and output by the ``mcp`` package's own client."""

from __future__ import annotations

import concurrent.futures
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from errorkb.tools.cli import main

mcp = pytest.importorskip("mcp")

PASTE = """\
Epoch 3:  41%|####      | 412/1000
Traceback (most recent call last):
  File "train.py", line 88, in <module>
numpy._core._exceptions._ArrayMemoryError: Unable to allocate 58.0 GiB for an array with shape (176351, 176460) and data type uint16
"""

# Tool calls made in one session: name -> arguments.
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "lookup": ("lookup", {"paste": PASTE, "top": 3}),
    "lookup-closest": ("lookup", {"paste": "the DataLoader workers ran out of shared memory"}),
    "lookup-empty": ("lookup", {"paste": "  \n"}),
    "explain-id": ("explain", {"key": "torch-dataloader-shm"}),
    "explain-alias": ("explain", {"key": "arraymemoryerror"}),
    "explain-missing": ("explain", {"key": "E9999"}),
    "list-all": ("list_errors", {}),
    "list-platform": ("list_errors", {"field": "platforms", "value": "TPU"}),
    "list-bad-field": ("list_errors", {"field": "colour", "value": "red"}),
    "list-no-value": ("list_errors", {"field": "source"}),
}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One server, started from an empty folder with --root, as a client configuration does."""
    import anyio

    cwd = tmp_path_factory.mktemp("agent")

    async def talk() -> dict[str, Any]:
        params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "errorkb.tools.cli", "--root", str(ROOT), "mcp"],
                                           cwd=str(cwd))
        async with mcp.stdio_client(params) as (read, write), mcp.ClientSession(read, write) as client:
            init = await client.initialize()
            answers: dict[str, Any] = {"init": init, "tools": (await client.list_tools()).tools}
            for label, (tool, arguments) in CALLS.items():
                answers[label] = await client.call_tool(tool, arguments)
            return answers

    # In a thread of its own: a browser test's event loop may still be set in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, talk).result(timeout=300)


def test_the_server_offers_the_three_tools(session: dict[str, Any]):
    assert session["init"].server_info.name == "errorkb"
    assert "lookup" in session["init"].instructions
    tools = {t.name: t for t in session["tools"]}
    assert sorted(tools) == ["explain", "list_errors", "lookup"]
    assert tools["lookup"].input_schema["required"] == ["paste"]
    assert all(t.description for t in tools.values())


def _lookup_json(paste: str, top: int, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    main(["--root", str(ROOT), "lookup", "--json", "--top", str(top), paste])
    return json.loads(capsys.readouterr().out)["matches"]


def test_lookup_answers_what_lookup_json_prints(session: dict[str, Any], capsys: pytest.CaptureFixture[str]):
    result = session["lookup"]
    assert not result.is_error
    assert result.structured_content["matches"] == _lookup_json(PASTE, 3, capsys)
    best = result.structured_content["matches"][0]
    assert (best["id"], best["exact"]) == ("python-memoryerror", True)
    assert best["values"]["requested"] == {"type": "size", "text": "58.0 GiB", "bytes": 62277025792,
                                                "label": "Requested"}
    assert json.loads(result.content[0].text) == result.structured_content


def test_without_an_exact_match_lookup_gives_the_closest_labelled_so(session: dict[str, Any], capsys):
    matches = session["lookup-closest"].structured_content["matches"]
    assert matches == _lookup_json("the DataLoader workers ran out of shared memory", 5, capsys)
    assert matches[0]["id"] == "torch-dataloader-shm" and not matches[0]["exact"]


def test_explain_finds_a_record_by_id_or_alias(session: dict[str, Any]):
    shm = session["explain-id"].structured_content
    assert shm["id"] == "torch-dataloader-shm"
    assert shm["url"] == "errors/pytorch/torch-dataloader-shm.html"
    assert shm["fixes"][0]["title"] and shm["sections"]["Causes"] and shm["sections"]["Debugging"]
    assert session["explain-alias"].structured_content["id"] == "python-memoryerror"


def test_list_errors_filters_by_field(session: dict[str, Any]):
    every = session["list-all"].structured_content["records"]
    assert len(every) == len(list((ROOT / "errors").glob("*/*.md")))
    tpu = session["list-platform"].structured_content["records"]
    assert tpu and all("tpu" in r["platforms"] for r in tpu)
    assert {r["id"] for r in tpu} < {r["id"] for r in every}


@pytest.mark.parametrize(("label", "complaint"), [
    ("lookup-empty", "the paste is empty"),
    ("explain-missing", "no error with the id, code or alias 'E9999'"),
    ("list-bad-field", "field"),
    ("list-no-value", "give both field and value"),
])
def test_bad_arguments_are_tool_errors_with_a_reason(session: dict[str, Any], label: str, complaint: str):
    result = session[label]
    assert result.is_error
    assert complaint in result.content[0].text


def test_without_records_the_server_says_where_it_looked(tmp_path: Path, capsys):
    assert main(["--root", str(tmp_path), "mcp"]) == 2
    assert f"no records in {tmp_path / 'errors'}; give --root" in capsys.readouterr().err
