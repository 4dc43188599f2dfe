"""Rendered record pages compared with the files under ``tests/snapshots/``.

Each snapshot is the doctree the HTML writer gets (links resolved, snippets' statuses filled
in), pretty-printed: a change to what a page shows appears as a diff of that file.  After a
change that is meant, ``pytest tests/test_snapshots.py --update-snapshots`` rewrites them; the
diff is then reviewed with the change.
"""

from __future__ import annotations

import pytest

from conftest import doctree_text


@pytest.mark.sphinx("html", testroot="basic")
def test_record_with_aliases_related_errors_and_referrers(app, snapshots) -> None:
    app.build()
    snapshots.check("basic-demo-b.pseudoxml", doctree_text(app, "errors/demo/demo-b"))


@pytest.mark.sphinx("html", testroot="design")
def test_record_with_framework_variants_and_folded_examples(app, snapshots) -> None:
    app.build()
    snapshots.check("design-demo-oom.pseudoxml", doctree_text(app, "errors/demo/demo-oom"))


# A fresh copy, so that no result cached by another test shows: every snippet is "not run".
@pytest.mark.sphinx("html", testroot="snippets", srcdir="snippets-snapshot", confoverrides={"errorkb_run_examples": False})
def test_record_with_snippets(app, snapshots) -> None:
    app.build()
    snapshots.check("snippets-demo-oom.pseudoxml", doctree_text(app, "errors/demo/demo-oom"))
    snapshots.check("snippets-status.pseudoxml", doctree_text(app, "status"))
