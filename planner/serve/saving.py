"""'Save as scenario': the changes in force written as a scenario file `planner whatif` reads, to one
path inside the folder `planner serve --scenarios-dir` names, and nowhere else.

The path is checked before anything is written: relative, no `..` and no hidden part, a .yaml or
.yml name, in a folder that exists inside the scenarios folder once links are followed; not a link,
not a folder, and not an existing file unless overwriting was asked for. The file is written whole
(staged beside itself, then linked or renamed into place), so a reader never sees half of it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import yaml
from pydantic import TypeAdapter, ValidationError

from planner.core.errors import InputError, Problem
from planner.core.files import discard, stage
from planner.core.fmt import visible
from planner.model.schema import OfferingId, Scenario

MAX_PATH = 255  # characters of a path given by the page


class Refused(InputError):
    """A save the page cannot make, with its HTTP status (403 outside the folder, 409 the file exists)."""

    status: int = 422


def refused(status: int, where: str, message: str) -> Refused:
    err = Refused("scenario", [Problem(where, message)])
    err.status = status
    return err


def target(folder: Path, given: object, *, overwrite: bool) -> Path:
    """Where `given` (a path relative to the folder) may be written, or Refused."""
    if not isinstance(given, str) or not given.strip():
        raise refused(422, "path", "expected a file name such as cerebras-cut.yaml")
    if len(given) > MAX_PATH or any(ord(ch) < 32 or ch == "\x7f" for ch in given) or "\\" in given:
        raise refused(422, "path", f"expected at most {MAX_PATH} printable characters, with / between folders")
    rel = Path(given)
    if rel.is_absolute() or any(part in ("..", "") or part.startswith(".") for part in rel.parts):
        raise refused(403, "path", "must lie inside the scenarios folder: no absolute path, '..' or hidden part")
    if rel.suffix not in (".yaml", ".yml"):
        raise refused(422, "path", "a scenario file's name ends in .yaml or .yml")
    root = folder.resolve()
    try:
        parent = (root / rel).parent.resolve(strict=True)
    except (OSError, RuntimeError):
        raise refused(422, "path", f"no folder '{rel.parent}' in the scenarios folder") from None
    if not parent.is_relative_to(root) or not parent.is_dir():
        raise refused(403, "path", "must lie inside the scenarios folder (a link leads out of it)")
    path = parent / rel.name
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise refused(403, "path", "is a link or not a regular file; choose another name")
    if path.exists() and not overwrite:
        raise refused(409, "path", f"'{given}' exists; save again with overwrite to replace it")
    return path


def scenario_name(path: Path, given: object = None) -> str:
    """The scenario's name: the one given, else the file's name before its first dot."""
    name = given if given is not None else path.name.split(".")[0]
    try:
        return TypeAdapter(OfferingId).validate_python(name, strict=True)
    except ValidationError:
        raise refused(422, "name", "expected 1 to 200 letters, digits and . _ - @ / :") from None


def scenario_yaml(scenario: Scenario, workloads_file: str) -> str:
    """The scenario file's text: what `planner whatif WORKLOADS FILE` reads."""
    data = scenario.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    data = {"name": scenario.name, **data}
    shown = visible(workloads_file, 200)  # a comment line: a new line in the name is written as \\n
    head = f"# A what-if scenario written by planner serve (the live review): planner whatif {shown} THIS_FILE\n"
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def write(path: Path, text: str, *, overwrite: bool) -> None:
    """The file written whole: staged beside itself, then linked into place (never over a file that
    appeared meanwhile) or, when overwriting, renamed over the old one."""
    try:
        staged = stage(path, text, "serve.")
    except OSError as exc:
        raise refused(422, "path", f"cannot be written: {exc.strerror or exc}") from None
    try:
        if overwrite:
            os.replace(staged, path)
            return
        try:
            os.link(staged, path)
        except FileExistsError:
            raise refused(409, "path", f"'{path.name}' exists; save again with overwrite to replace it") from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            if path.exists():  # a file system without hard links: checked, then renamed
                raise refused(409, "path", f"'{path.name}' exists; save again with overwrite to replace it") from None
            os.replace(staged, path)
    except OSError as exc:
        raise refused(422, "path", f"cannot be written: {exc.strerror or exc}") from None
    finally:
        discard(staged)
