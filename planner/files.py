"""Writing outputs so that none is ever half-written: each file goes to a hidden temporary file
beside its target and is renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError


def file_stem(name: str) -> str:
    """A plan or scenario name made safe as one file-name component."""
    return name.replace("/", "_").replace(":", "_")


def stage(path: str | Path, content: str | bytes, tag: str = "") -> str:
    """Write content to a hidden temporary file beside `path` (with a new file's permissions) and
    return its name; os.replace(it, path) then puts it in place at once."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(content, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{tag}", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(content)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def discard(tmp: str) -> None:
    """Remove a staged file, if it is still there."""
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Write to a temporary file beside the target, then rename: the old file or the whole new one."""
    tmp = stage(path, content)
    try:
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_all(files: dict[Path, Any]) -> None:
    """Write several outputs so that none is half-written: render all first, then rename each."""
    for path, content in files.items():
        try:
            write_atomic(path, content)
        except OSError as exc:
            raise InputError.single(str(path), "--out", f"cannot be written: {exc.strerror or exc}") from None
