"""`python -m planner.model.schemas [--check] [--out DIR]`: write the input files' JSON Schemas (`make schemas`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from planner.model.schemas import default_folders, stale, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m planner.model.schemas",
        description="Write catalog.schema.json, workloads.schema.json and scenario.schema.json, generated "
        "from the models, into the package and (in a checkout) the repository's schemas/ folder.",
    )
    parser.add_argument("--out", type=Path, action="append", help="write into this folder instead (repeatable)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    args = parser.parse_args(argv)
    folders = args.out or default_folders()
    if args.check:
        old = stale(folders)
        for path in old:
            print(f"stale: {os.path.relpath(path)}", file=sys.stderr)
        if old:
            print("run `make schemas` (or `python -m planner.model.schemas`) to write them again", file=sys.stderr)
        return 1 if old else 0
    for path in write(folders):
        print(f"wrote {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
