"""Writing outputs so that none is ever half-written: each file goes to a hidden temporary file
beside its target and is renamed into place."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from planner.core.errors import InputError, Setting

MAX_MB_DEFAULT = 64  # input files larger than this are refused; PLANNER_MAX_FILE_MB raises the limit
STEM_MAX_BYTES = 200  # a name in an output file name: with its suffixes, under the usual 255-byte limit
MAX_MB_MOST = 1_000_000  # the largest limit PLANNER_MAX_FILE_MB may set (a terabyte)
PLAN_LIMIT_FACTOR = 32  # plan files may be this many times the input limit: a plan outgrows its inputs (issue 29)


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


def cache_dir(name: str) -> Path | None:
    """A folder of this user's own for what the planner keeps between runs (compiled report templates):
    PLANNER_CACHE_DIR, else $XDG_CACHE_HOME/planner, else ~/.cache/planner, with `name` inside it. None (run
    without a cache) when PLANNER_CACHE_DIR is "off", the folder cannot be made, or it is not a folder only
    this user owns and writes (what is read back from it is code)."""
    raw = os.environ.get("PLANNER_CACHE_DIR", "")
    if raw.strip().lower() == "off":
        return None
    home = os.environ.get("XDG_CACHE_HOME", "")
    try:
        base = (
            Path(raw) if raw.strip() else Path(home) / "planner" if home.strip() else Path.home() / ".cache" / "planner"
        )
        folder = (base / name).absolute()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.lstat()
        private = stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022
        return folder if private and all(_kept_by_owner(p) for p in folder.parents) else None
    except (OSError, RuntimeError):  # RuntimeError: no home directory to expand
        return None


def _kept_by_owner(folder: Path) -> bool:
    """Whether only this user or root can rename what is in `folder`: owned by one of them, and writable by
    no one else unless sticky (as /tmp is, where only an entry's owner may rename it)."""
    st = folder.lstat()
    if stat.S_ISLNK(st.st_mode):
        st = folder.stat()
    shared = st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX
    return st.st_uid in (0, os.getuid()) and not shared


def max_plan_bytes() -> int:
    """The largest plan file read back: PLAN_LIMIT_FACTOR times the input limit (2 GB by default). The planner
    writes no plan larger (plan_text), so every plan it writes it can read back."""
    return max_input_bytes() * PLAN_LIMIT_FACTOR


def plan_text(text: str, name: str) -> str:
    """A plan file's text, refused when it is over the limit plan files are read back with."""
    limit = max_plan_bytes()
    if len(text) * 4 > limit and len(text.encode("utf-8")) > limit:  # (UTF-8: at most 4 bytes a character)
        raise InputError.single(
            name,
            "",
            f"the plan file would be {len(text.encode('utf-8')) / 2**20:.1f} MB, over the {limit / 2**20:g} MB limit "
            f"for plan files ({PLAN_LIMIT_FACTOR} x PLANNER_MAX_FILE_MB), so it could not be read back; set "
            "PLANNER_MAX_FILE_MB to raise it",
        )
    return text


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


def read_input(path: str | Path, what: str = "a file", *, plan: bool = False) -> str:
    """An input file's text, read only when it is a regular file within the size limit and UTF-8; a plan
    file (`plan`) within the plan files' limit (max_plan_bytes)."""
    path = Path(path)
    st = regular_file(path, what)
    limit = max_plan_bytes() if plan else max_input_bytes()
    kinds = f"plan files ({PLAN_LIMIT_FACTOR} x PLANNER_MAX_FILE_MB; " if plan else "input files ("
    too_big = InputError.single(
        str(path),
        "",
        f"is larger than the {limit / 2**20:g} MB limit for {kinds}set PLANNER_MAX_FILE_MB to raise it)",
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
    if len(stem.encode("utf-8")) > STEM_MAX_BYTES:
        raise InputError.single(
            source or "name",
            field,
            f"{name[:60]!r}... is {len(stem.encode('utf-8'))} bytes, too long to name an output file; "
            f"expected at most {STEM_MAX_BYTES} bytes",
        )
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
        os.chmod(tmp, 0o666 & ~umask())
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


class Outputs:
    """A set of outputs (files, or a folder staged whole) written whole or not at all: each is staged
    beside its target first; `commit` then moves each former target aside, renames the staged one into
    place, and only when every rename succeeded removes what it moved aside. A failure anywhere (a name
    too long, a full disk, Ctrl-C) puts every former target back and leaves no staged file and no
    folder it made. Used as a context manager, leaving the block with an exception discards it all."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, str]] = []  # (target, staged file or folder beside it)
        self._made: list[Path] = []  # folders made for the targets, deepest first

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None:
            self.discard()

    def folder(self, path: str | Path, target: Path | None = None) -> Path:
        """Make the folder a target goes in (and its parents), remembered to be removed on failure."""
        path = Path(path)
        built = Path(path.anchor)
        try:
            for part in path.parts[len(path.anchor and [path.anchor]) :]:
                built = built / part
                if part in (".", "..") or os.path.isdir(built):
                    continue
                os.mkdir(built)  # one folder at a time: only the ones made here are removed on failure
                if built not in self._made:
                    self._made.append(built)
        except OSError as exc:
            raise _unwritable(target or path, exc) from None
        return path

    def add(self, path: str | Path, content: str | bytes, tag: str = "") -> None:
        """Stage one file's content beside its target."""
        path = Path(path)
        self.folder(path.parent, path)
        try:
            self._staged.append((path, stage(path, content, tag)))
        except OSError as exc:
            raise _unwritable(path, exc) from None

    def adopt(self, path: str | Path, staged: str | Path) -> None:
        """A file or folder the caller staged beside `path` (a worker's plan, a fetched folder)."""
        self._staged.append((Path(path), str(staged)))

    def commit(self) -> None:
        done: list[list] = []  # [target, it existed before, the folder its former self is moved into]
        path = Path(".")
        try:
            for path, tmp in self._staged:
                step = [path, os.path.lexists(path), None]
                done.append(step)
                if step[1]:
                    step[2] = tempfile.mkdtemp(prefix=f".{path.name[:40]}.old-", dir=path.parent)
                    os.replace(path, os.path.join(step[2], "x"))
                os.replace(tmp, path)
        except BaseException as exc:
            try:
                self._roll_back(done)
            finally:
                self.discard()
            if isinstance(exc, OSError):
                raise _unwritable(path, exc) from None
            raise
        for _, _, old in done:
            if old is not None:
                _remove(old)
        self._staged, self._made = [], []

    @staticmethod
    def _roll_back(done: list[list]) -> None:
        """Every former target back in place, each step tried on its own (a signal can land between a
        rename and its record: the file system is asked what is where)."""
        for target, existed, old in reversed(done):
            former = None if old is None else os.path.join(old, "x")
            try:
                if not existed and os.path.lexists(target):
                    _remove(str(target))  # new, renamed into place
                elif former is not None and os.path.lexists(former):  # moved aside: the new one is in place
                    if os.path.lexists(target):
                        _remove(str(target))
                    os.replace(former, target)
                if old is not None:
                    os.rmdir(old)
            except OSError:
                pass

    def discard(self) -> None:
        """Remove every staged file and every folder made for the targets (only when empty)."""
        for _, tmp in self._staged:
            _remove(tmp)
        self._staged = []
        for folder in sorted(self._made, key=lambda p: len(p.parts), reverse=True):
            try:
                folder.rmdir()
            except OSError:
                pass
        self._made = []


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        discard(path)


def _unwritable(path: Path, exc: OSError) -> InputError:
    return InputError.single(str(path), Setting("out"), f"cannot be written: {exc.strerror or exc}")


def umask() -> int:
    """The process's umask (read without changing it for long)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_targets(paths, out: Path | None = None) -> None:
    """Before any work or write: --out is a folder (or can be made one) and no folder stands where an
    output file goes."""
    if out is not None and os.path.exists(out) and not os.path.isdir(out):
        raise InputError.single(str(out), Setting("out"), "exists and is not a folder")
    for path in paths:
        if os.path.isdir(path):  # (False for a name the file system cannot hold: staging then says why)
            raise InputError.single(
                str(path),
                Setting("out"),
                "a folder stands where this file goes; move it or choose another output folder",
            )


def write_all(files: dict[Path, Any]) -> None:
    """Write several outputs whole or not at all (Outputs): every target checked, every file staged,
    then each renamed into place."""
    check_targets(files)
    with Outputs() as outputs:
        for path, content in files.items():
            outputs.add(path, content)
        outputs.commit()
