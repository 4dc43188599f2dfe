"""What may come before and after each literal and placeholder of a template, its optional
parts taken or skipped: the neighbours that the linearity proof and the regex writer look at."""

from __future__ import annotations

import enum

from .grammar import Item, OptionalPart, Segment


class Edge(enum.Enum):
    """The start or the end of the template, as a neighbour."""

    EDGE = "edge"


EDGE = Edge.EDGE
Neighbour = int | Edge  # an item's place in ``Layout.items``, or the template's edge


class Layout:
    """The template's items in order (``items``), the optional part that holds each (``groups``:
    its place among the segments, None for a required item), and each item's neighbours."""

    def __init__(self, segments: tuple[Segment, ...]):
        self.items: list[Item] = []
        self.groups: list[int | None] = []
        for pos, seg in enumerate(segments):
            inner = seg.segments if isinstance(seg, OptionalPart) else (seg,)
            self.items += inner
            self.groups += [pos if isinstance(seg, OptionalPart) else None] * len(inner)
        n = len(self.items)
        self.after = [self._reach(i + 1, 1) for i in range(n)]
        self.before = [self._reach(i - 1, -1) for i in range(n)]
        self.texts = [self._trimmed(i) for i in range(n)]

    def _reach(self, j: int, step: int) -> frozenset[Neighbour]:
        """The items that can come first from ``j`` on (``step`` 1) or last up to ``j`` (-1), and
        EDGE where every item in between is optional."""
        out: set[Neighbour] = set()
        n = len(self.items)
        while 0 <= j < n:
            out.add(j)
            group = self.groups[j]
            if group is None or (0 <= j - step < n and self.groups[j - step] == group):
                return frozenset(out)  # required, or inside an optional part
            while 0 <= j < n and self.groups[j] == group:
                j += step
        out.add(EDGE)
        return frozenset(out)

    def _trimmed(self, i: int) -> str:
        """Literal ``i`` as it is matched: the template's outer blanks are dropped."""
        item = self.items[i]
        if not isinstance(item, str):
            return ""
        if i == 0:
            item = item.lstrip()
        if self.after[i] == {EDGE}:
            item = item.rstrip()
        return item

    def next_items(self, i: int) -> list[int]:
        """The items that can come right after item ``i``, in order."""
        return sorted(j for j in self.after[i] if j is not EDGE)

    def previous_items(self, i: int) -> list[int]:
        """The items that can come right before item ``i``, in order."""
        return sorted(j for j in self.before[i] if j is not EDGE)

    def following(self, i: int) -> list[str]:
        """The literals that can come right after item ``i``."""
        return [self.texts[j] for j in self.next_items(i)]

    def opens(self, i: int) -> bool:
        """Whether item ``i`` is the first of an optional part."""
        return self.groups[i] is not None and (i == 0 or self.groups[i - 1] != self.groups[i])

    def closes(self, i: int) -> bool:
        """Whether item ``i`` is the last of an optional part."""
        return self.groups[i] is not None and (i == len(self.items) - 1 or self.groups[i + 1] != self.groups[i])
