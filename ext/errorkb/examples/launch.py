"""Runs first inside the sandbox: starts the snippet under its limits, watches the build, reports.

Usage: ``python -I -c <this file's text> LIFELINE REPORT LIMITS_JSON COMMAND...``.  LIFELINE is
the read end of a pipe whose write end only the build holds: it reads as closed once the
build has died, however it died, and then every process of the container is killed.  REPORT
receives ``started``, then ``status N`` with the snippet's wait status.  LIMITS_JSON maps
resource names to values, set in the snippet's process only.  COMMAND's program is looked for
on the container's PATH; one that cannot be started exits with status 127, as in a shell, and
says why.  Only the standard library is used.
"""

import json
import os
import resource
import select
import signal
import sys


def main() -> None:
    if os.getpid() != 2:  # bwrap's init is 1: anywhere else, killing "every process" would reach too far
        sys.exit("launch.py runs only as the first process of a sandbox")
    lifeline, report = int(sys.argv[1]), int(sys.argv[2])
    limits, command = json.loads(sys.argv[3]), sys.argv[4:]
    os.set_inheritable(lifeline, False)
    os.set_inheritable(report, False)
    pid = os.fork()
    if pid == 0:
        for name, value in limits.items():
            resource.setrlimit(getattr(resource, name), (value, value))
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            os.write(2, f"cannot run {command[0]}: {exc.strerror}\n".encode())
            os._exit(127)
    os.write(report, b"started\n")
    poller = select.poll()
    child = os.pidfd_open(pid)
    poller.register(child, select.POLLIN)
    poller.register(lifeline, select.POLLIN)
    while True:
        ready = {fd for fd, _ in poller.poll()}
        if child in ready:
            _, status = os.waitpid(pid, 0)
            os.write(report, f"status {status}\n".encode())
            return
        if lifeline in ready:  # the build is gone
            os.kill(-1, signal.SIGKILL)
            return


if __name__ == "__main__":
    main()
