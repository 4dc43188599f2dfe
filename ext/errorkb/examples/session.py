"""Runs inside the sandbox: replay a doctest session and report what differs.

Usage: ``python -I session.py SESSION_FILE [TOLERANCE]``.  ELLIPSIS is on.  With a relative
TOLERANCE, an output that differs only in its numbers passes when every number is within it.
Exit status 0 when every example matched.  Only the standard library is used.
"""

import doctest
import math
import re
import sys

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


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    tolerance = float(sys.argv[2]) if len(sys.argv) > 2 else None
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, "snippet", "snippet", 0)
    runner = doctest.DocTestRunner(TolerantChecker(tolerance), optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=sys.stdout.write)
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
