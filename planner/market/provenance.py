"""Where the sources come from: the command line's KIND:FILE arguments and fetched folders as (kind, file)
pairs, each fetched file checked against its PROVENANCE.json (size, sha256) and dated by it or by the
Artificial Analysis scrape's meta file."""

from __future__ import annotations

import json
from pathlib import Path

from planner.core.errors import InputError
from planner.core.files import read_input
from planner.market.sources.figures import read_json

KINDS = ("litellm", "openrouter", "aa")
PROVENANCE_JSON = "PROVENANCE.json"  # what `planner catalog fetch` writes beside the files it saves


def parse_sources(kind: str, files: list[str]) -> list[tuple[str, Path]]:
    """FILE, or KIND:FILE to mix sources in one import; a folder `planner catalog fetch` wrote stands
    for the files its PROVENANCE.json lists, each with its kind (and may come first, in place of KIND)."""
    if kind not in KINDS:
        if not Path(kind).is_dir():
            raise InputError.single(
                "catalog import",
                "",
                f"unknown source '{kind}'; expected one of: {', '.join(KINDS)}, "
                "or a folder `planner catalog fetch` wrote",
            )
        files, kind = [kind, *files], ""
    out = []
    for f in files:
        k, _, rest = f.partition(":")
        if rest and k in KINDS:
            if Path(rest).is_dir():
                out += [(fk, fp) for fk, fp in fetched_files(Path(rest)) if fk == k]
            else:
                out.append((k, Path(rest)))
        elif Path(f).is_dir():
            out += fetched_files(Path(f))
        elif kind:
            out.append((kind, Path(f)))
        else:
            raise InputError.single(f, "", "no kind for this file: write it litellm:FILE, openrouter:FILE or aa:FILE")
    return out


def fetched_files(folder: Path) -> list[tuple[str, Path]]:
    """The (kind, file) pairs a fetched folder's PROVENANCE.json lists, each checked against its recorded
    size and sha256: a file changed since it was fetched is no longer what the provenance says."""
    import hashlib

    manifest = folder / PROVENANCE_JSON
    if not manifest.is_file():
        raise InputError.single(
            str(folder),
            "",
            f"is a folder with no {PROVENANCE_JSON}: expected files, or a folder `planner catalog fetch` wrote",
        )
    data = read_json(manifest)
    entries = data.get("files") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError.single(str(manifest), "files", "expected the list of fetched files")
    root = folder.resolve()
    out = []
    for i, f in enumerate(entries):
        where = f"files[{i}]"
        if not isinstance(f, dict) or not isinstance(f.get("path"), str) or f.get("kind") not in KINDS:
            raise InputError.single(
                str(manifest), where, f"expected {{path, kind ({', '.join(KINDS)}), url, fetched_at, sha256, bytes}}"
            )
        path = folder / f["path"]
        if not path.resolve().is_relative_to(root):
            raise InputError.single(str(manifest), f"{where}.path", "points outside the folder")
        body = read_input(path, "a fetched file").encode("utf-8")
        if len(body) != f.get("bytes") or hashlib.sha256(body).hexdigest() != f.get("sha256"):
            raise InputError.single(
                str(path),
                "",
                f"changed since it was fetched (its size or sha256 differs from {PROVENANCE_JSON}); "
                "fetch again, or import the file by name",
            )
        out.append((f["kind"], path))
    return out


def fetched_on(path: Path) -> str | None:
    """The date (UTC) a file was fetched, from the PROVENANCE.json of a folder above it that lists it."""
    path = Path(path)
    for folder in list(path.parents)[:4]:
        manifest = folder / PROVENANCE_JSON
        if not manifest.is_file():
            continue
        try:
            data = json.loads(read_input(manifest))
            rel = path.resolve().relative_to(folder.resolve()).as_posix()
        except (InputError, ValueError, RecursionError):
            return None
        for f in data.get("files", []) if isinstance(data, dict) and isinstance(data.get("files"), list) else []:
            if isinstance(f, dict) and f.get("path") == rel and isinstance(f.get("fetched_at"), str):
                return f["fetched_at"][:10] or None
        return None
    return None


def aa_as_of(path: Path) -> str | None:
    """The date of an Artificial Analysis scrape, from the aa_scrape_meta.json beside it (None: none there)."""
    meta = Path(path).with_name("aa_scrape_meta.json")
    if meta.exists():
        try:
            data = json.loads(meta.read_text())
        except (json.JSONDecodeError, OSError, UnicodeDecodeError, RecursionError):
            return None
        date = data.get("scrape_date") if isinstance(data, dict) else None  # (a list or a number: no date)
        return str(date)[:10] if isinstance(date, str) and date else None
    return None
