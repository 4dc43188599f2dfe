"""Which records need another check: too old, or checked against an old release."""

import datetime
from types import SimpleNamespace
from typing import cast

from errorkb.core.freshness import older, reasons_to_recheck
from errorkb.core.records import Checked, Record


def checkable(checked: Checked | None) -> Record:
    """A record as ``reasons_to_recheck`` reads it: its check alone."""
    return cast("Record", SimpleNamespace(checked=checked))


TODAY = datetime.date(2026, 11, 24)


def test_releases_compare_as_versions():
    assert older("2.9", "2.10") and not older("2.10", "2.9") and not older("2.9.0", "2.9")
    assert older("nightly-1", "nightly-2") and not older("same", "same")


def test_a_record_never_checked_needs_a_check():
    assert reasons_to_recheck(checkable(None), 0, {}) == ["it does not say what it was checked against"]


def test_an_old_check_and_an_old_release_are_both_reasons():
    record = checkable(Checked(date="2025-06", against={"PyTorch": "2.8", "CUDA": "13.0"}))
    assert reasons_to_recheck(record, 365, {"pytorch": "2.9", "CUDA": "13.0"}, today=TODAY) == [
        "checked 541 days ago, on 2025-06 (more than 365)",
        "checked against PyTorch 2.8; the current release is 2.9",
    ]


def test_a_current_check_needs_nothing():
    record = checkable(Checked(date="2026-11-02", against={"PyTorch": "2.9"}))
    assert reasons_to_recheck(record, 365, {"PyTorch": "2.9", "JAX": "0.8"}, today=TODAY) == []
    assert reasons_to_recheck(record, 0, {}, today=TODAY) == []
