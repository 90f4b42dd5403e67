"""Atomic file writes: a killed process leaves either the old file or the new one, never half of it.

Files get the permissions an ordinary ``open(path, "w")`` would give (``0666`` less the umask), not
the ``0600`` of the temporary file they are written through.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_current_umask()


@contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path`` and rename it over ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    with atomic_open(path, "w") as f:
        f.write(text)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with atomic_open(path, "wb") as f:
        f.write(data)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` atomically unless ``path`` already holds exactly it; True if it was written
    (an unchanged file keeps its bytes and its modification time)."""
    path = Path(path)
    if path.exists() and path.read_bytes() == data:
        return False
    atomic_write_bytes(path, data)
    return True


@contextmanager
def exact_integers() -> Iterator[None]:
    """Integers of any length convert to decimal text inside the block: trend counts over long windows
    pass Python's 4,300-digit limit on ``str(int)`` (and so on ``json.dumps`` and ``csv``)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)
