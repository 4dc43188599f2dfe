"""A small catalogue for the lookup tests: generic and specific templates, a wrapped message,
a whole-line message, placeholders of several types, and records found by their codes (one of
digits only, one starting with digits) and aliases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import DEMO_CONF, record_text

# id -> (source, code, title, [(template, [examples])], aliases)
RECORDS: dict[str, tuple[Any, ...]] = {
    "demo-cuda-generic": ("demo", "DCG", "Demo CUDA allocation failed", [
        ("CUDA out of memory. Tried to allocate {requested:size}",
         ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB."]),
    ]),
    "demo-cuda-detail": ("demo", "DCD", "Demo CUDA allocation failed, with the device's numbers", [
        ("CUDA out of memory. Tried to allocate {requested:size} (GPU {gpu:int}; {capacity:size} total capacity; "
         "{used:size} already allocated; {free:size} free",
         ["RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 5.80 GiB total capacity; "
          "4.36 GiB already allocated; 6.69 MiB free; 4.63 GiB reserved in total by PyTorch)"]),
    ]),
    "demo-hbm-limit": ("chip", "NCC_DEMO1", "Demo compiler peak exceeds the chip's HBM", [
        ("Maximum peak HBM usage of {used:size} exceeds HBM limit of {limit:size} for {chip:identifier}.",
         ["[NCC_DEMO1] Maximum peak HBM usage of 28.44GB exceeds HBM limit of 24.00GB for Trn2."]),
    ], ["XCG815", "demo.DeviceOutOfMemoryError"]),
    "demo-killed": ("host", None, "Demo process killed by the kernel", [
        ("^Killed$", ["Killed"]),
    ]),
    "demo-tensor-oom": ("tf", "DTO", "Demo tensor allocation failed", [
        ("OOM when allocating tensor with shape{shape:shape} and type {dtype:dtype} on {device:device} by allocator {allocator:identifier}",
         ["Resource exhausted: OOM when allocating tensor with shape[1,512,647,3] and type float on "
          "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu"]),
    ]),
}
# Found by their codes: one of digits only, one that starts with digits.
CODED: dict[str, tuple[Any, ...]] = {
    "demo-db-clients": ("db", "53300", "Demo database refused another client", [
        ("sorry, too many clients already", ["FATAL:  sorry, too many clients already"]),
    ]),
    "demo-db-relation": ("db", "42P01", "Demo database table is missing", [
        ("relation {name:quoted} does not exist", ['ERROR:  relation "users" does not exist']),
    ]),
}

# Codes of several words, and a summary line: demo-push-failed's message, which
# demo-push-rejected's example shows under its own.
PHRASED: dict[str, tuple[Any, ...]] = {
    "demo-body-too-large": ("web", "HTTP 413", "Demo server refused a request body that is too large", [
        ("the request body is larger than the demo server allows",
         ["error: the request body is larger than the demo server allows"]),
    ]),
    "demo-bus-fault": ("bus", ["Xid 79", "BUS-ERR 7"], "Demo device fell off the bus", [
        ("demo device has fallen off the bus", ["NVRM: demo device has fallen off the bus."]),
    ]),
    "demo-push-failed": ("vcs", None, "Demo push failed", [
        ("failed to push some refs to {remote:quoted}", ["error: failed to push some refs to 'https://example.org/r.git'"],
         "summary line"),
    ]),
    "demo-push-rejected": ("vcs", None, "Demo push rejected, the remote has work you do not have", [
        ("! [rejected] {local:identifier} -> {remote:identifier} (fetch first)",
         [" ! [rejected]        main -> main (fetch first)\n"
          "error: failed to push some refs to 'https://example.org/r.git'"]),
    ]),
}
#: Pastes for them: codes typed alone, in any case and spacing, in a sentence and in a log.
PHRASED_PASTES = [
    "HTTP 413", "http  413", "the proxy answered HTTP\t413 again", "HTTP 4130", "xHTTP 413", "HTTP-413",
    "Xid 79", "[ 12.5] NVRM: Xid 79 on the demo bus", "bus-err 7", "xid 79: something",
    "error: failed to push some refs to 'https://example.org/r.git'",
    "To https://example.org/r.git\n ! [rejected]        main -> main (fetch first)\n"
    "error: failed to push some refs to 'https://example.org/r.git'\nhint: Updates were rejected",
    "error: failed to push some refs to 'x'\nHTTP 413",
    # A summary line after an error line that no record knows yields to it; not to a hint, a bare
    # marker, or an error printed after it.
    "remote: fatal: pack exceeds maximum allowed size\nerror: failed to push some refs to 'x'",
    "hint: if that fails, error: try again\nerror: failed to push some refs to 'x'",
    "ChildFailedError:\nerror: failed to push some refs to 'x'",
    "error: failed to push some refs to 'x'\nfatal: the remote end hung up unexpectedly",
    # The exception's name heading an IPython traceback labels the message at its end: a
    # template's match there is the answer, not the record that name is an alias of.
    "demo.DeviceOutOfMemoryError                 Traceback (most recent call last)\n<ipython-input-3> in <module>\n"
    "demo.DeviceOutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 5.80 GiB total capacity; "
    "4.36 GiB already allocated; 6.69 MiB free; 4.63 GiB reserved in total by PyTorch)",
    "demo.DeviceOutOfMemoryError                 Traceback (most recent call last)\n<ipython-input-3> in <module>",
]


# id -> diagnoses, as YAML lines under `diagnoses:`
DIAGNOSES = {
    "demo-cuda-detail": [
        '  - when: "requested > free and requested < capacity / 2"',
        '    say: "Asked for {requested} with {free} free, {requested - free} short: what is held fills the device"',
        "    fix: Free what you no longer need",
        "  - when: used / capacity > 0.5",
        '    say: "{used / capacity:%} of the device is allocated: {used} of {capacity}"',
        "    fix: 1",
        "  - when: used < capacity / 10",
        '    say: "Only {used} is allocated: a smaller batch cannot help"',
        "    rules_out: Use a smaller batch",
    ],
    "demo-hbm-limit": [
        "  - when: used / limit > 1.1",
        '    say: "Needs {used / limit}x the memory of {chip}, {used - limit} over"',
        "    fix: Use a smaller batch",
    ],
}


# id -> what its values are in sentences, and their names in words, as YAML lines
READINGS = {
    "demo-cuda-detail": [
        "readings:",
        '  - say: "This process holds {used / capacity:%} of the device\'s {capacity}; {free} is free"',
        "  - when: requested > capacity",
        '    say: "The one allocation is {requested / capacity}x the whole device"',
        "labels:",
        "  requested: Asked for",
        "  capacity: Device memory",
    ],
    "demo-hbm-limit": [
        "readings:",
        '  - say: "The program needs {used} of the {limit} that {chip} has"',
    ],
}


def record_markdown(id_: str) -> str:
    source, code, title, messages, *aliases = {**RECORDS, **CODED, **PHRASED}[id_]
    lines = ["messages:"]
    for template, examples, *summary_line in messages:
        lines.append(f"  - template: {json.dumps(template)}")
        lines += ["    summary_line: true"] if summary_line else []
        lines.append("    examples:")
        lines += [f"      - {json.dumps(e)}" for e in examples]
    text = record_text(id=id_, code=json.dumps(code) if code else "", source=source)
    head, rest = text.split("messages:\n", 1)
    rest = rest.split("related:", 1)[1]
    text = head + "\n".join(lines) + "\nrelated:" + rest
    text = text.replace("title: Demo device ran out of memory", f"title: {title}")
    if id_ in DIAGNOSES:
        text = text.replace("related: []", "related: []\ndiagnoses:\n" + "\n".join(DIAGNOSES[id_]))
    if id_ in READINGS:
        text = text.replace("related: []", "related: []\n" + "\n".join(READINGS[id_]))
    if aliases:
        text = text.replace("related: []", f"related: []\naliases: {json.dumps(aliases[0])}")
    if code is None:
        text = text.replace("code: \n", "")
    return text


def write_records(root: Path, coded: bool = True, table: dict | None = None) -> Path:
    """Write every record of ``table`` (by default RECORDS, and, ``coded``, CODED) under
    ``root/errors``, and the conf.py that declares their fields; return the records' folder."""
    if not (root / "conf.py").exists():
        (root / "conf.py").write_text(DEMO_CONF, encoding="utf-8")
    for id_, (source, *_rest) in (table or ({**RECORDS, **CODED} if coded else RECORDS)).items():
        path = root / "errors" / source / f"{id_}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(record_markdown(id_), encoding="utf-8")
    return root / "errors"
