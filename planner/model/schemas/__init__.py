"""JSON Schemas of the input files, generated from the pydantic models in planner.model.schema.

Editors read them (the YAML language server: a `# yaml-language-server: $schema=...` line, or a
setting mapping files to schemas) to complete field names, show each field's description and flag
a misspelt field or a value out of range. They ship in this package (planner/model/schemas/*.json) and
in the repository's top-level schemas/ folder, the same bytes; `make schemas` (or
`python -m planner.model.schemas`) writes both, and a test fails when they drift from the models.

A schema accepts what the loader's models accept field by field, shorthands included (a capability
as a bare number, a floor as {like: MODEL}); rules across fields (latency's threshold or budget_s,
not both; a threshold the file defines; unique ids) are checked by the planner alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from planner.model.schema import Catalog, Offering, Overlay, Scenario, WorkloadSet

DRAFT = "https://json-schema.org/draft/2020-12/schema"
HERE = Path(__file__).resolve().parent

# kind -> (model, title); the file is <kind>.schema.json
KINDS: dict[str, tuple[type[BaseModel], str]] = {
    "catalog": (Catalog, "planner catalog file"),
    "workloads": (WorkloadSet, "planner workloads file"),
    "scenario": (Scenario, "planner what-if scenario file"),
    "overlay": (Overlay, "planner contract overlay file"),
}


def file_name(kind: str) -> str:
    return f"{kind}.schema.json"


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of one kind of input file, as the models validate it."""
    model, title = KINDS[kind]
    if kind in ("scenario", "overlay"):
        # A scenario's or overlay's added offerings are full catalog offerings (they are validated as such
        # when it is applied): the schema says so, for completion and checks inside `add`.
        _, top = models_json_schema([(model, "validation"), (Offering, "validation")])
        out = {**top["$defs"].pop(model.__name__), "$defs": top["$defs"]}
        add = out["$defs"]["CatalogEdit"]["properties"]["add"]
        (array,) = [a for a in add["anyOf"] if a.get("type") == "array"]
        array["items"] = {"$ref": "#/$defs/Offering"}
    else:
        out = model.model_json_schema(mode="validation")
    return {"$schema": DRAFT, **out, "title": title}


def render(kind: str) -> str:
    """A schema's file text: sorted keys, 2-space indent, a trailing newline (the same on every run)."""
    return json.dumps(schema(kind), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def repository_folder() -> Path | None:
    """The top-level schemas/ folder when the package runs from a checkout of the repository."""
    root = HERE.parents[2]  # planner/model/schemas -> the checkout
    return root / "schemas" if (root / "pyproject.toml").is_file() and (root / "planner").is_dir() else None


def default_folders() -> list[Path]:
    """Where `python -m planner.model.schemas` writes: the package's folder, and the checkout's schemas/."""
    repo = repository_folder()
    return [HERE] + ([repo] if repo is not None else [])


def stale(folders: list[Path]) -> list[Path]:
    """The schema files in these folders that are missing or differ from the models."""
    out = []
    for folder in folders:
        for kind in KINDS:
            path = folder / file_name(kind)
            if not path.is_file() or path.read_bytes() != render(kind).encode():
                out.append(path)
    return out


def write(folders: list[Path]) -> list[Path]:
    """Write every schema into each folder (made when missing); return the files written."""
    written = []
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        for kind in KINDS:
            path = folder / file_name(kind)
            path.write_bytes(render(kind).encode())
            written.append(path)
    return written
