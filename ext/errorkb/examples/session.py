"""Runs inside the sandbox: replay a doctest session and report what differs.

Usage: ``python session.py SESSION_FILE [TOLERANCE]``.  ELLIPSIS is on.  With a relative
TOLERANCE, an output that differs only in its numbers passes when every number is within it.
Exit status 0 when every example matched, and the session as it ran is printed, with what each
example printed this time; otherwise doctest's report of what differs.  Only the standard
library is used (the judge also compares transcripts of other languages with
:class:`TolerantChecker`).
"""

import doctest
import math
import re
import sys
from collections.abc import Callable

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


class TolerantChecker(doctest.OutputChecker):
    def __init__(self, tolerance: float | None):
        self.tolerance = tolerance

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if not self.tolerance:
            return False
        wanted, found = NUMBER.findall(want), NUMBER.findall(got)
        if len(wanted) != len(found) or not super().check_output(NUMBER.sub("0", want), NUMBER.sub("0", got), optionflags):
            return False
        return all(math.isclose(float(w), float(f), rel_tol=self.tolerance) for w, f in zip(wanted, found))


class SessionRunner(doctest.DocTestRunner):
    """Keeps what each example printed, to show the session as it ran."""

    def __init__(self, tolerance: float | None):
        super().__init__(TolerantChecker(tolerance), optionflags=doctest.ELLIPSIS)
        self.ran: list[str] = []

    def report_success(self, out: Callable[[str], object], test: doctest.DocTest, example: doctest.Example,
                       got: str) -> None:
        lines = example.source.rstrip("\n").split("\n")
        self.ran.append("\n".join([">>> " + lines[0], *("... " + line for line in lines[1:])]) + "\n" + got)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    tolerance = float(sys.argv[2]) if len(sys.argv) > 2 else None
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, "snippet", "snippet", 0)
    runner = SessionRunner(tolerance)
    result = runner.run(test, out=sys.stdout.write)
    if not result.failed:
        sys.stdout.write("".join(runner.ran))
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
