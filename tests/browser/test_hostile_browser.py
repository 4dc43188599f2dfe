"""A record that links to scripts, in Chromium: wherever its links were, a click runs nothing."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator

import pytest

from conftest import Project, record_text

pytest_plugins = ["browser_site"]

PROSE = "The program asked for more memory than the device had left.\n"
#: The probe's links (an ``eval-rst`` link, an rst image's and a MyST figure's targets), and kin.
ATTACKS = """
```{eval-rst}
`x <javascript:alert(1)>`__
```

```{eval-rst}
.. image:: picture.png
   :alt: rst image
   :target: javascript:alert(2)
```

```{figure} picture.png
:alt: myst figure
:target: javascript:alert(3)

A figure
```

```{button-link} javascript:alert(4)
A button
```

```{eval-rst}
`y <data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==>`__
```
"""
CLICKED = [("text", "x"), ("alt", "rst image"), ("alt", "myst figure"), ("text", "A button"), ("text", "y")]


def red_square(side: int = 40) -> bytes:
    """A PNG image to click on."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = b"".join(b"\x00" + b"\xff\x00\x00" * side for _ in range(side))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The record built without -W, as a site that lets warnings through would publish it."""
    from browser_site import _QuietHandler, serve  # loaded by pytest_plugins: imported here, not copied

    project = Project(tmp_path_factory.mktemp("hostile"))
    project.add_record(record_text().replace(PROSE, PROSE + ATTACKS))
    (project.root / "errors/demo/picture.png").write_bytes(red_square())
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(project.root), str(project.out)]
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    yield from serve(project.out, _QuietHandler)


def test_a_click_where_a_record_linked_to_a_script_runs_nothing(page, hostile_url: str) -> None:
    dialogs: list[str] = []
    def dismiss(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    address = hostile_url + "errors/demo/demo-oom.html"
    page.goto(address)
    for how, what in CLICKED:
        target = page.get_by_text(what, exact=True) if how == "text" else page.get_by_alt_text(what, exact=True)
        target.first.click()
        page.wait_for_timeout(300)
        assert (dialogs, page.url) == ([], address), (what, dialogs, page.url)
    for link in page.locator("#causes a:not(.headerlink)").all():  # any link left among the attacks
        link.click()
        page.wait_for_timeout(300)
        assert dialogs == [], dialogs
