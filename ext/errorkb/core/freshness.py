"""Whether a record's check is still current: its age, and the releases it was checked against.

A record's ``checked`` field names the date and the release of each product its facts were
compared with.  A site sets how old a check may grow (``errorkb_checked_max_age``, in days) and
the current release of each product (``errorkb_current_releases``); :func:`reasons_to_recheck`
says why a record needs another look.  ``errorkb check`` prints these as warnings and the site
lists them for review.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from .records import Record


def checked_on(date: str) -> datetime.date:
    """The day a check names; a month alone counts from its first day."""
    return datetime.date.fromisoformat(date if len(date) > 7 else f"{date}-01")


def older(release: str, current: str) -> bool:
    """Whether ``release`` comes before ``current`` (as versions where both read as versions)."""
    try:
        return Version(release) < Version(current)
    except InvalidVersion:
        return release != current


def reasons_to_recheck(record: Record, max_age: int, current: Mapping[str, str],
                       today: datetime.date | None = None) -> list[str]:
    """Why ``record`` should be checked again: never checked, checked too long ago, or against an old release."""
    if record.checked is None:
        return ["it does not say what it was checked against"]
    reasons = []
    age = ((today or datetime.date.today()) - checked_on(record.checked.date)).days
    if max_age and age > max_age:
        reasons.append(f"checked {age} days ago, on {record.checked.date} (more than {max_age})")
    folded = {product.casefold(): release for product, release in current.items()}
    for product, release in record.checked.against.items():
        now = folded.get(product.casefold())
        if now is not None and older(release, now):
            reasons.append(f"checked against {product} {release}; the current release is {now}")
    return reasons
