"""A match as lines of text for a terminal: ``errorkb lookup``, ``errorkb run`` and the hook.

It imports only the lookup's engine, so that ``errorkb lookup --index`` stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.lookup import Match


def meaning_lines(match: Match, fixes: int) -> list[str]:
    """What a match's values are and mean, and its first ``fixes`` fixes in the order the values
    call for (those they rule out named after them), as lines of text for a terminal."""
    lines = []
    for name, value in match.values.items():
        if not value.text.strip():
            continue
        extra = f" ({value.number:,.0f} bytes)" if value.type == "size" and value.number is not None else ""
        lines.append(f"{match.label(name)}: {value.text}{extra}")
    lines += match.readings
    held = match.diagnoses
    for found in held:
        verb = "rules out fix" if found["rules_out"] else "fix"
        lines.append(f"{found['message']} ({verb} {found['fix']}: {found['fix_title']})")
    ordered = match.fixes(held)
    for fix in [f for f in ordered if not f["ruled_out"]][:fixes]:
        lines.append(f"fix {fix['number']}: {fix['title']}" + (f" ({fix['cost']})" if fix["cost"] else ""))
    lines += [f"fix {fix['number']}: {fix['title']} (ruled out by these values)" for fix in ordered if fix["ruled_out"]]
    return lines
