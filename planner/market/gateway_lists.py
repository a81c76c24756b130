"""The gateways' lists as the package ships them (SPEC "Deployability"): a compact extract of the files in
catalogs/sources/ holding only what the export and the deployability rule read, so that an installed
planner checks ids, slugs and efforts with no `--sources`.

`python -m planner.market.gateway_lists` (`make gateway-lists`) rebuilds
planner/market/data/gateway_lists.json from catalogs/sources/ (or `--sources DIR`); `--check` writes
nothing and exits 1 when the shipped extract differs from what the sources give. The extract is JSON,
one entry a line, keys sorted, so that a rebuild from the same files writes the same bytes and a
refreshed list reads as a diff.

What it keeps, per list:
- litellm's model map: every entry's `litellm_provider`, `mode` and reasoning flags (the keys
  gateway_ids reads); prices and context windows stay in the source file (the importer reads those).
- litellm's providers (`litellm_providers.json`, from the litellm release whose map this is): the
  provider prefixes litellm's Router routes (`litellm.provider_list` and its JSON-configured
  OpenAI-compatible providers).
- OpenRouter's models listing: per id, `hugging_face_id` and `supported_parameters`.
- OpenRouter's provider list: per slug, its name.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from planner.market.gateway_ids import EXTRACT, PROVIDERS_FILE, find_lists, packaged_text, read_lists, routable

__all__ = ["EXTRACT", "build", "build_from", "main", "packaged_text"]
FORMAT = 1
LITELLM_FIELDS = (
    "litellm_provider",
    "mode",
    "supports_reasoning",
    "supports_none_reasoning_effort",
    "supports_minimal_reasoning_effort",
    "supports_low_reasoning_effort",
    "supports_xhigh_reasoning_effort",
    "supports_max_reasoning_effort",
    "reasoning_effort_levels",
)
OPENROUTER_FIELDS = ("hugging_face_id", "supported_parameters")


def packaged_path() -> Path:
    return Path(str(resources.files("planner.market.data").joinpath(EXTRACT)))


def repository_sources() -> Path | None:
    """catalogs/sources/ when the package runs from a checkout of the repository."""
    root = Path(__file__).resolve().parents[2]
    folder = root / "catalogs" / "sources"
    return folder if (root / "pyproject.toml").is_file() and folder.is_dir() else None


def build(files: dict[str, Path], providers: Path) -> str:
    """The extract's text from the source files (gateway_ids.find_lists's answer) and litellm's provider list."""
    litellm, models, names = read_lists(files)
    doc = json.loads(providers.read_text(encoding="utf-8"))
    used = {
        **{k: files[k] for k in ("litellm", "openrouter_models", "openrouter_providers")},
        "litellm_providers": providers,
    }
    sections: list[tuple[str, dict[str, Any]]] = [
        ("litellm", {k: {f: v[f] for f in LITELLM_FIELDS if f in v} for k, v in litellm.items()}),
        (
            "openrouter_models",
            {i: {f: m[f] for f in OPENROUTER_FIELDS if m.get(f) is not None} for i, m in models.items()},
        ),
        ("openrouter_providers", dict(names)),
    ]
    head = {
        "format": FORMAT,
        "built_from": {
            kind: {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
            for kind, path in used.items()
        },
        "litellm_version": doc.get("litellm_version"),
        "litellm_routable": routable(doc),
    }
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"{json.dumps(key)}: {_compact(value)},")
    for n, (key, entries) in enumerate(sections):
        lines.append(f"{json.dumps(key)}: {{")
        items = sorted(entries.items())
        lines += [
            f"{json.dumps(k)}: {_compact(v)}" + ("," if i < len(items) - 1 else "") for i, (k, v) in enumerate(items)
        ]
        lines.append("}" + ("," if n < len(sections) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def build_from(folder: Path) -> str:
    files = find_lists(folder, str(folder))
    providers = folder / PROVIDERS_FILE
    if not providers.is_file():
        raise FileNotFoundError(f"{providers}: litellm's provider list is not in {folder}")
    return build(files, providers)


def litellm_providers_doc() -> dict[str, Any]:
    """What the installed litellm routes: `litellm.provider_list` and its JSON-configured providers (for
    `--litellm-providers`, which writes catalogs/sources/litellm_providers.json; needs litellm)."""
    import importlib.metadata
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # the map litellm ships: no download
    import litellm
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    JSONProviderRegistry.load()
    return {
        "litellm_version": importlib.metadata.version("litellm"),
        "provider_list": sorted({getattr(p, "value", p) for p in litellm.provider_list}),
        "json_providers": sorted(JSONProviderRegistry._providers),
    }


def main(argv: list[str] | None = None) -> int:
    import argparse
    import os
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m planner.market.gateway_lists",
        description="Rebuild the gateway lists the package ships (planner/market/data/gateway_lists.json) from "
        "catalogs/sources/.",
    )
    parser.add_argument("--sources", type=Path, help="the folder of source lists (default: catalogs/sources/)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the extract is stale")
    parser.add_argument(
        "--litellm-providers",
        action="store_true",
        help=f"first write {PROVIDERS_FILE} into the sources folder from the installed litellm",
    )
    args = parser.parse_args(argv)
    folder = args.sources or repository_sources()
    if folder is None:
        print("no catalogs/sources/ here: give --sources DIR", file=sys.stderr)
        return 2
    providers = folder / PROVIDERS_FILE
    if args.litellm_providers:
        doc = json.dumps(litellm_providers_doc(), indent=2) + "\n"
        if args.check and (not providers.is_file() or providers.read_text(encoding="utf-8") != doc):
            print(f"stale: {os.path.relpath(providers)} (not the installed litellm's)", file=sys.stderr)
            return 1
        if not args.check:
            providers.write_text(doc, encoding="utf-8")
    text = build_from(folder)
    target = packaged_path()
    if args.check:
        if target.read_text(encoding="utf-8") != text:
            print(f"stale: {os.path.relpath(target)}; run `make gateway-lists`", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {os.path.relpath(target)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
