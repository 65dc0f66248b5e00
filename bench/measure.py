"""Time a command to the end of every process it started, and their peak memory.

The project's commands return before the jsii runtime's Node.js process has finished
(it cleans up after its parent exits). The benchmark makes itself a child subreaper
(Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so such orphans are re-parented to it rather than
to init, and waits until it has reaped every one of them: a command counts as done when its
whole process tree is gone. It only ever waits for its own descendants.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux); False where the kernel offers no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


@dataclass(frozen=True)
class Sample:
    seconds: float
    """Wall time from start to the exit of the command's last descendant."""
    command_seconds: float
    """Wall time until the command itself exited (what a shell prompt shows)."""
    cpu_seconds: float
    """User plus system CPU time of the whole tree: steadier than wall time on a loaded machine."""
    main_rss_mib: float
    """Peak resident memory of the command's own process."""
    helper_rss_mib: float
    """Largest peak resident memory among the processes it started (the jsii Node.js runtime)."""
    processes: int


class CommandFailed(RuntimeError):
    pass


class _PeakMemory(threading.Thread):
    """Samples the peak resident memory (``VmHWM``) of every process in one process group.

    ``wait4`` cannot tell the processes apart: the jsii Node.js runtime is usually reaped by the
    Python process that started it, and then counts in that process's figure. ``VmHWM`` is the
    kernel's own high-water mark, so sampling it shortly before a process exits gives its peak.
    """

    def __init__(self, group: int, *, interval_seconds: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.group = group
        self.interval_seconds = interval_seconds
        self.peak_kib: dict[int, int] = {}
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.interval_seconds)

    def sample(self) -> None:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
                # Fields after the command name (which may hold spaces): state ppid pgrp ...
                if int(stat.rpartition(")")[2].split()[2]) != self.group:
                    continue
                for line in Path(entry.path, "status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        pid = int(entry.name)
                        self.peak_kib[pid] = max(self.peak_kib.get(pid, 0), int(line.split()[1]))
            except (OSError, ValueError, IndexError):  # gone between listing and reading
                continue

    def stop(self) -> None:
        self._done.set()
        self.join()


def run_tree(command: list[str], *, env: dict[str, str]) -> Sample:
    """Run ``command`` in the current directory; return once it and all its descendants have exited."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        pid = os.posix_spawn(
            command[0],
            command,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            ],
            setpgroup=0,  # its own process group, so an interrupted benchmark can stop the whole tree
        )
        memory = _PeakMemory(pid)
        memory.start()
        command_end, code, reaped, cpu = start, 0, 0, 0.0
        while True:
            try:
                child, status, usage = os.wait4(-1, 0)
            except ChildProcessError:  # nothing of ours is left
                break
            except BaseException:
                os.killpg(pid, signal.SIGKILL)
                raise
            reaped += 1
            cpu += usage.ru_utime + usage.ru_stime  # a process's own plus that of the children it reaped
            if child == pid:
                command_end, code = time.perf_counter(), os.waitstatus_to_exitcode(status)
        end = time.perf_counter()
        memory.stop()
        main_rss = memory.peak_kib.get(pid, 0) / 1024
        helper_rss = max((kib for p, kib in memory.peak_kib.items() if p != pid), default=0) / 1024
        if code != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
            raise CommandFailed(f"{' '.join(command)} exited {code}: {' / '.join(tail)}")
    return Sample(end - start, command_end - start, cpu, main_rss, helper_rss, reaped)


def python_command(python: str, *args: str | Path) -> list[str]:
    return [python, *(str(a) for a in args)]
