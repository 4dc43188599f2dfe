"""A backtracking regular-expression matcher that counts its steps: a deterministic measure of
how much work a search does, for the templates' linearity tests.

It runs the parse of a Python pattern (``re._parser``, what ``re.compile`` compiles) the way a
backtracking engine does: greedy repeats give characters back one at a time, alternatives are
tried in order, atomic groups and lookarounds are never re-entered.  Each character compared,
each assertion tried and each position given back is one step.  It knows the constructs the
template compiler writes (literals, classes, repeats, groups, atomic groups, lookarounds,
alternatives, captures and back-references, ``^`` and ``$``) and refuses any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from re import _constants as C, _parser  # type: ignore[attr-defined]  # the parser's own modules: typeshed has none

Cont = Callable[[int], bool]
Node = Callable[[str, int, Cont], bool]


class StepCounter:
    """``finditer`` over a pattern, counting the steps it takes."""

    def __init__(self, pattern: str):
        self.steps = 0
        self.spans: list[tuple[int, int]] = []  # of the matches the last count found
        self.captured: dict[int, tuple[int, int]] = {}  # group -> its span, during a match
        self.match = self._sequence(list(_parser.parse(pattern)))

    def count(self, text: str) -> int:
        """Steps to find every match in ``text``, as ``re.finditer`` does: from each position in
        turn, on after each match's end."""
        self.steps = 0
        self.spans = []
        ends: list[int] = []

        def found(j: int) -> bool:
            ends.append(j)
            return True

        at = 0
        while at <= len(text):
            self.steps += 1
            ends.clear()
            self.captured.clear()
            if self.match(text, at, found):
                self.spans.append((at, ends[0]))
                at = ends[0] if ends[0] > at else at + 1
            else:
                at += 1
        return self.steps

    # -- compiling the parse into matchers ---------------------------------------------------

    def _sequence(self, items: list) -> Node:
        nodes: list[Node] = []
        for n, (op, av) in enumerate(items):
            if op is C.LITERAL and n and items[n - 1][0] is C.LITERAL:
                continue  # read with the literals before it
            if op is C.LITERAL:
                end = next((m for m in range(n, len(items)) if items[m][0] is not C.LITERAL), len(items))
                nodes.append(self._literal("".join(chr(c) for _, c in items[n:end])))
            else:
                nodes.append(self._node(op, av))

        def run(s: str, i: int, k: Cont, n: int = 0) -> bool:
            if n == len(nodes):
                return k(i)
            return nodes[n](s, i, lambda j: run(s, j, k, n + 1))

        return lambda s, i, k: run(s, i, k)

    def _literal(self, text: str) -> Node:
        """A run of literal characters, compared one by one."""
        def literal(s: str, i: int, k: Cont) -> bool:
            for c in text:
                self.steps += 1
                if i >= len(s) or s[i] != c:
                    return False
                i += 1
            return k(i)
        return literal

    def _char(self, op, av) -> Callable[[str], bool] | None:
        """A test of one character, for an item that matches exactly one; else None."""
        if op is C.LITERAL:
            return lambda c: ord(c) == av
        if op is C.NOT_LITERAL:
            return lambda c: ord(c) != av
        if op is C.ANY:
            return lambda c: c != "\n"
        if op is C.IN:
            return _in_class(av)
        return None

    def _node(self, op, av) -> Node:
        test = self._char(op, av)
        if test is not None:
            def char(s: str, i: int, k: Cont) -> bool:
                self.steps += 1
                return i < len(s) and test(s[i]) and k(i + 1)
            return char
        if op is C.SUBPATTERN:
            return self._capture(av[0], self._sequence(list(av[3])))
        if op is C.GROUPREF:
            return self._reference(av)
        if op is C.ATOMIC_GROUP:
            inner = self._sequence(list(av))

            def atomic(s: str, i: int, k: Cont) -> bool:
                ends: list[int] = []

                def first_end(j: int) -> bool:
                    ends.append(j)
                    return True

                if not inner(s, i, first_end):
                    return False
                return k(ends[0])
            return atomic
        if op in (C.ASSERT, C.ASSERT_NOT):
            return self._assertion(op is C.ASSERT, av[0], av[1])
        if op is C.BRANCH:
            alternatives = [self._sequence(list(alt)) for alt in av[1]]

            def branch(s: str, i: int, k: Cont) -> bool:
                for alternative in alternatives:
                    if alternative(s, i, k):
                        return True
                return False
            return branch
        if op is C.MAX_REPEAT:
            return self._repeat(*av)
        if op is C.AT:
            return self._at(av)
        raise ValueError(f"the step counter does not know {op} {av}")

    def _capture(self, group: int | None, inner: Node) -> Node:
        if group is None:
            return inner

        def capture(s: str, i: int, k: Cont) -> bool:
            def then(j: int) -> bool:
                before = self.captured.get(group)
                self.captured[group] = (i, j)
                if k(j):
                    return True
                if before is None:
                    del self.captured[group]
                else:
                    self.captured[group] = before
                return False
            return inner(s, i, then)
        return capture

    def _reference(self, group: int) -> Node:
        def reference(s: str, i: int, k: Cont) -> bool:
            self.steps += 1
            if group not in self.captured:
                return False
            start, end = self.captured[group]
            for c in s[start:end]:
                self.steps += 1
                if i >= len(s) or s[i] != c:
                    return False
                i += 1
            return k(i)
        return reference

    def _assertion(self, positive: bool, direction: int, sub) -> Node:
        inner = self._sequence(list(sub))
        width = sub.getwidth()[0]

        def assertion(s: str, i: int, k: Cont) -> bool:
            self.steps += 1
            start = i if direction == 1 else i - width
            held = start >= 0 and inner(s, start, lambda j: True)
            return k(i) if held == positive else False
        return assertion

    def _at(self, where) -> Node:
        if where is C.AT_BEGINNING or where is C.AT_BEGINNING_STRING:
            return lambda s, i, k: i == 0 and k(i)
        if where is C.AT_END:
            return lambda s, i, k: (i == len(s) or (i == len(s) - 1 and s[i] == "\n")) and k(i)
        raise ValueError(f"the step counter does not know the anchor {where}")

    def _repeat(self, low: int, high: int, sub) -> Node:
        """A greedy repeat.  A body that reads exactly one character is scanned forward, then
        given back one position at a time; any other is tried recursively."""
        items = list(sub)
        one = len(items) == 1 and self._char(*items[0])
        body = self._sequence(items)
        if one or sub.getwidth() == (1, 1):
            test = one if one else None

            def scan(s: str, i: int, k: Cont) -> bool:
                j = i
                while j - i < high and j < len(s):
                    self.steps += 1
                    if not (test(s[j]) if test else body(s, j, lambda _: True)):
                        break
                    j += 1
                while j - i >= low:
                    self.steps += 1
                    if k(j):
                        return True
                    j -= 1
                return False
            return scan

        def again(s: str, i: int, k: Cont, n: int = 0) -> bool:
            if n < high and body(s, i, lambda j: j != i and again(s, j, k, n + 1)):
                return True
            return n >= low and k(i)
        return lambda s, i, k: again(s, i, k)


def _in_class(items) -> Callable[[str], bool]:
    negate = False
    ranges: list[tuple[int, int]] = []  # a literal is a range of one
    tests: list[Callable[[str], bool]] = []
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            ranges.append((av, av))
        elif op is C.RANGE:
            ranges.append((av[0], av[1]))
        elif op is C.CATEGORY:
            tests.append(_CATEGORIES[av])
        else:
            raise ValueError(f"the step counter does not know {op} in a class")

    def member(c: str) -> bool:
        return any(lo <= ord(c) <= hi for lo, hi in ranges) or any(t(c) for t in tests)

    if negate:
        return lambda c: not member(c)
    return member


_CATEGORIES = {
    C.CATEGORY_SPACE: lambda c: re.match(r"\s", c) is not None,
    C.CATEGORY_DIGIT: lambda c: re.match(r"\d", c) is not None,
    C.CATEGORY_WORD: lambda c: re.match(r"\w", c) is not None,
}
