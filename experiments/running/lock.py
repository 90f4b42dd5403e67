"""One run at a time in a results folder.

Two runs into one folder would both run every cell, and the second's merge would find the parts the
first had merged and removed.  A run therefore holds an OS lock (``fcntl.flock``) on the folder's
``.run.lock`` while it runs: the kernel drops the lock when the process ends, however it ends (SIGKILL,
the out-of-memory killer), so a killed run never leaves a folder locked.  The file holds who took the
lock (pid, host, start time, command), for the message a second run gets: one line, exit status 2.

A run that holds the lock also removes the temporary files (``.<name>.*.tmp``, :mod:`cep.io_utils`)
that a run killed while writing left in the folder; nothing else can be writing them then.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cep.errors import ConfigError

LOCK_NAME = ".run.lock"


def _holder(path: Path) -> str:
    try:
        who = json.loads(path.read_text())
        return (f"pid {who['pid']} on {who['host']}, started {who['started']}, command: {who['command']}")
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet written who it is"


@contextmanager
def folder_lock(folder: Path, command: str | None = None) -> Iterator[Path]:
    """Hold ``folder``'s run lock while the block runs; a one-line :class:`ConfigError` naming the holder
    if another process holds it.  Yields the lock file's path; the file goes when the block ends."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigError(f"results folder {folder} is in use by another run ({_holder(path)}); wait for it to end, "
                              "or run into another folder (results_dir=...)") from None
        try:  # the holder before us may have removed the file after we opened it: lock the file at the path
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        who = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               "command": command if command is not None else " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]])}
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(who) + "\n").encode())
        remove_stale_temporaries(folder)
        yield path
    finally:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        os.close(fd)  # releases the lock


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary files of atomic writes (``.<name>.<random>.tmp``) under ``folder``: left by a
    process killed while writing, they would stay forever.  Call only while holding the folder's lock."""
    stale = [p for p in Path(folder).rglob(".*.tmp") if p.is_file()]
    for p in stale:
        p.unlink(missing_ok=True)
    return stale
