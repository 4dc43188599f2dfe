"""Runs inside the sandbox, before the snippet: set the resource limits, then exec the command.

Usage: ``python -I launch.py SPEC_JSON``, where SPEC_JSON holds ``limits`` (resource name ->
value) and ``argv`` (the command to exec).  Only the standard library is used.
"""

import json
import os
import resource
import sys


def main() -> None:
    spec = json.loads(sys.argv[1])
    for name, value in spec["limits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    os.umask(0o077)
    os.execvp(spec["argv"][0], spec["argv"])


if __name__ == "__main__":
    main()
