"""The placeholder types: what each matches, and what the linearity proof knows of its values.

Patterns are written in the common subset of Python's and JavaScript's (``u`` flag) regular
expressions.  Character classes of the proof's facts are Python's.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class PlaceholderType:
    """One type of ``{name:type}``."""

    pattern: str
    doc: str  # one line, for the record format's reference and the page's tooltips
    longest: int  # characters in the longest value
    first: str  # a value's first character (a class)
    rest: str  # its other characters
    tail: str = ""  # characters that can extend a whole value into a longer one ("" for none)
    delimited: bool = False  # a value cannot start inside another one, but on its last character
    #: The pattern that stops at the first character of the literal after it (``{stop}`` escaped
    #: as a literal, ``{stop_class}`` inside a class), for a type whose run is one class.
    narrowed: str | None = None
    narrows_first: bool = False  # the stop character is taken out of ``first`` too


_SIZE_UNITS = r"(?:[KMGTPE]i?B|[KMGTPE]|[kmgt]i?b|[KMGTPE]iB|bytes|byte|B)"

#: ``text``: the stops (the literals that can follow it, a copy of the template's first literal)
#: are filled in as ``{stops}``; with none, the lookahead goes and it reads to the end of the line.
TEXT = "text"

TYPES: dict[str, PlaceholderType] = {
    "size": PlaceholderType(
        r"[0-9]{1,20}(?:[.,][0-9]{0,6})?[ \t]?" + _SIZE_UNITS, "a size with its unit: 49.34G, 2.00 GiB, 512 bytes",
        33, "[0-9]", r"[0-9.,\t KMGTPEiBkmgtbyes]", "[iBbytes]"),
    "int": PlaceholderType(
        r"-?[0-9][0-9,]{0,24}", "a whole number: 42, -1, 1,024",
        26, "[-0-9]", "[0-9,]", "[0-9,]", narrowed=r"-?[0-9](?:(?!{stop})[0-9,]){0,24}"),
    "float": PlaceholderType(
        r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?(?:[eE][-+]?[0-9]{1,4})?", "a number: 0.9, 1e-3",
        48, "[-0-9]", "[-+0-9.eE]", "[0-9.eE]"),
    "hex": PlaceholderType(
        r"0[xX][0-9a-fA-F]{1,32}", "a hexadecimal number: 0x7f3a",
        34, "0", "[0-9a-fA-FxX]", "[0-9a-fA-F]", delimited=True),
    "shape": PlaceholderType(
        r"[\[(][0-9a-zA-Z?,x* \t]{0,256}[\])]", "a shape: [8, 1024], (32, 3, 224, 224)",
        258, r"[\[(]", r"[\])0-9a-zA-Z?,* \t]", delimited=True),
    "dtype": PlaceholderType(
        r"[A-Za-z][A-Za-z0-9_.]{0,40}", "a data type: float32, bf16, torch.float16",
        41, "[A-Za-z]", "[A-Za-z0-9_.]", "[A-Za-z0-9_.]", narrowed=r"[A-Za-z](?:(?!{stop})[A-Za-z0-9_.]){0,40}"),
    "device": PlaceholderType(
        r"[A-Za-z_/][A-Za-z0-9_:/.\-]{0,127}", "a device: cuda:0, /device:GPU:0, TPU_0",
        128, "[A-Za-z_/]", r"[A-Za-z0-9_:/.\-]", r"[A-Za-z0-9_:/.\-]",
        narrowed=r"[A-Za-z_/](?:(?!{stop})[A-Za-z0-9_:/.\-]){0,127}"),
    "path": PlaceholderType(
        r"""[^\s'"<>|]{1,1024}""", "a file path: /tmp/x.pb, ~/data/train.json",
        1024, r"""[^\s'"<>|]""", r"""[^\s'"<>|]""", r"""[^\s'"<>|]""",
        narrowed=r"""[^\s'"<>|{stop_class}]{1,1024}""", narrows_first=True),
    "identifier": PlaceholderType(
        r"[A-Za-z_][A-Za-z0-9_.\-]{0,255}", "a name: jit_train_step, CUDA0",
        256, "[A-Za-z_]", r"[A-Za-z0-9_.\-]", r"[A-Za-z0-9_.\-]",
        narrowed=r"[A-Za-z_](?:(?!{stop})[A-Za-z0-9_.\-]){0,255}"),
    "ref": PlaceholderType(
        r"[A-Za-z0-9_][A-Za-z0-9_./\-]{0,255}", "a name with slashes, dots or dashes: feature/login, origin/main, v1.2-rc",
        256, "[A-Za-z0-9_]", r"[A-Za-z0-9_./\-]", r"[A-Za-z0-9_./\-]",
        narrowed=r"[A-Za-z0-9_](?:(?!{stop})[A-Za-z0-9_./\-]){0,255}"),
    "url": PlaceholderType(
        r"""[A-Za-z][A-Za-z0-9+.\-]{0,31}://[^\s'"<>]{1,2048}""", "an address: https://example.com/a?b=1, s3://bucket/key",
        2083, "[A-Za-z]", r"""[^\s'"<>]""", r"""[^\s'"<>]"""),
    "status": PlaceholderType(
        r"[1-5][0-9]{2}(?![0-9])", "an HTTP status code: 404, 503",
        3, "[1-5]", "[0-9]", "[0-9]"),
    "quoted": PlaceholderType(
        r"""'[^'\n]{0,512}'|"[^"\n]{0,512}"|`[^`\n]{0,512}`|‘[^’\n]{0,512}’|“[^”\n]{0,512}”""",
        "text in quotes, straight or curly: 'u8[1024]{0}', ‘main’",
        514, """['"`‘“]""", r"[^\n]", delimited=True),
    "bracketed": PlaceholderType(
        r"\([^()\n]{0,512}\)|\[[^\[\]\n]{0,512}\]|\{[^{}\n]{0,512}\}|<[^<>\n]{0,512}>",
        "text in brackets: (most recent call last), [rank0], {0: 1}, <module>",
        514, r"[(\[{<]", r"[^\n]", delimited=True),
    TEXT: PlaceholderType(
        r"(?:(?!{stops})[^\n]){0,512}",
        "any text (up to 512 characters) up to the literal after it, or to the end of the line",
        512, r"[^\n]", r"[^\n]"),
}

#: Values of at most this many characters cost a bounded amount wherever they start.
SHORT = 64
