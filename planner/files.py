"""Writing outputs so that none is ever half-written: each file goes to a hidden temporary file
beside its target and is renamed into place."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError

MAX_MB_DEFAULT = 64  # input files larger than this are refused; PLANNER_MAX_FILE_MB raises the limit
MAX_MB_MOST = 1_000_000  # the largest limit PLANNER_MAX_FILE_MB may set (a terabyte)


def max_input_bytes() -> int:
    """The largest input file read: PLANNER_MAX_FILE_MB megabytes (default 64)."""
    raw = os.environ.get("PLANNER_MAX_FILE_MB", "")
    try:
        mb = float(raw) if raw.strip() else MAX_MB_DEFAULT
    except ValueError:
        mb = float("nan")
    if not 0 < mb <= MAX_MB_MOST:  # (False for NaN)
        raise InputError.single(
            "PLANNER_MAX_FILE_MB",
            "",
            f"expected a number of megabytes above 0, up to {MAX_MB_MOST:,}, found {raw[:40]!r}",
        )
    return max(1, int(mb * 1024 * 1024))


def regular_file(path: str | Path, what: str = "a file") -> os.stat_result:
    """The file's stat when it is a regular file (never a directory, FIFO or device, which could block
    or never end); else the input error that says what it is."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError.single(str(path), "", "file not found") from None
    except OSError as exc:
        raise InputError.single(str(path), "", f"cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError.single(str(path), "", f"is a directory, expected {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError.single(str(path), "", f"is not a regular file (a device, FIFO or socket), expected {what}")
    return st


def read_input(path: str | Path, what: str = "a file") -> str:
    """An input file's text, read only when it is a regular file within the size limit and UTF-8."""
    path = Path(path)
    st = regular_file(path, what)
    limit = max_input_bytes()
    too_big = InputError.single(
        str(path),
        "",
        f"is larger than the {limit / 2**20:g} MB limit for input files (set PLANNER_MAX_FILE_MB to raise it)",
    )
    if st.st_size > limit:
        raise too_big
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError.single(str(path), "", f"cannot be read: {exc.strerror}") from None
    if len(data) > limit:  # it grew while being read
        raise too_big
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.single(str(path), "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def file_stem(name: str, source: str = "", field: str = "name") -> str:
    """A plan or scenario name made one file-name component ('/' and ':' become '_'); a name that
    would give an empty, hidden or unprintable file name is an input error naming where it came from."""
    stem = name.replace("/", "_").replace(":", "_").replace("\\", "_")
    if not stem or stem.startswith(".") or not stem.isprintable():
        shown = repr(name[:60])
        raise InputError.single(
            source or "name",
            field,
            f"{shown} cannot name an output file (empty, hidden or unprintable); expected letters, digits and . _ - @",
        )
    return stem


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


def check_targets(paths, out: Path | None = None) -> None:
    """Before any work or write: --out is a folder (or can be made one) and no folder stands where an
    output file goes."""
    if out is not None and out.exists() and not out.is_dir():
        raise InputError.single(str(out), "--out", "exists and is not a folder")
    for path in paths:
        if Path(path).is_dir():
            raise InputError.single(str(path), "--out", "a folder stands where this file goes; move it or choose --out")


def write_all(files: dict[Path, Any]) -> None:
    """Write several outputs so that none is half-written: render all first, check that every target
    can be a file, then rename each into place."""
    check_targets(files)
    for path, content in files.items():
        try:
            write_atomic(path, content)
        except OSError as exc:
            raise InputError.single(str(path), "--out", f"cannot be written: {exc.strerror or exc}") from None
