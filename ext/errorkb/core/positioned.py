"""A problem at a place in a line of text: the base of a template's and a diagnosis's errors."""


class PositionedError(ValueError):
    """A problem at a place in a line of text; ``column`` is 1-based."""

    def __init__(self, message: str, column: int = 1):
        super().__init__(message)
        self.column = column
