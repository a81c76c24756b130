"""YAML files -> schema objects, with the file, line and field path in every error."""

from __future__ import annotations

import pickle
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from planner.core.errors import InputError, Problem
from planner.core.files import read_input
from planner.model.distribution import Distribution, read_distribution
from planner.model.edits import apply_catalog_edits, unwrap
from planner.model.schema import Catalog, Overlay, Scenario, WorkloadSet, floor_value

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class AppliedOverlay:
    """An overlay as it was applied: its file, its name and source, and every change it made as
    (offering id, field path or "removed"/"added", before, after)."""

    name: str
    file: str
    description: str | None
    source: str | None
    changes: tuple[tuple[str, str, Any, Any], ...]


@dataclass(frozen=True)
class Inputs:
    """A validated workloads file with the catalog it is planned against (the public catalog with
    the workloads file's overlays applied, in order)."""

    workloads: WorkloadSet
    catalog: Catalog
    workloads_file: str
    catalog_file: str
    overlays: tuple[AppliedOverlay, ...] = ()
    distributions: dict[str, Distribution] = field(default_factory=dict)  # workload id -> its sample tasks
    previous: dict[str, frozenset[tuple[str, str, str]]] | None = None  # solve --from: workload -> its routes
    previous_file: str | None = None

    @property
    def name(self) -> str:
        return self.workloads.name or Path(self.workloads_file).name.split(".")[0]


class _DuplicateKey(Exception):
    def __init__(self, key, line: int, column: int, first: int):
        self.key, self.line, self.column, self.first = key, line, column, first


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when present
    """The safe loader, refusing duplicate keys (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    raise _DuplicateKey(
                        key_node.value,
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                        seen[key_node.value],
                    )
                seen[key_node.value] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct(loader: _Loader, root: yaml.Node, file: str) -> Any:
    """The document as Python data. Strings, lists and mappings (the bulk of a large file) are built
    here, faster than by PyYAML's generic constructor; every other scalar, and any
    mapping with a merge key or a non-scalar key, goes through PyYAML's own constructors. Duplicate
    keys are refused as _Loader refuses them, and a document past MAX_NODES values as _check_expansion
    refuses it (which a document without aliases skips)."""
    memo: dict[int, Any] = {}  # aliases: one object per node, as PyYAML does
    count = [0]

    def build(node: yaml.Node) -> Any:
        count[0] += 1
        if count[0] > MAX_NODES:
            raise _too_many(node, file)
        if isinstance(node, yaml.ScalarNode):
            return node.value if node.tag == _STR_TAG else loader.construct_object(node, deep=True)
        got = memo.get(id(node))
        if got is not None:
            return got
        if isinstance(node, yaml.SequenceNode):
            items: list = []
            memo[id(node)] = items
            items.extend(build(child) for child in node.value)
            return items
        if not isinstance(node, yaml.MappingNode) or any(
            not isinstance(k, yaml.ScalarNode) or k.tag == _MERGE_TAG for k, _ in node.value
        ):
            return loader.construct_object(node, deep=True)
        out: dict = {}
        memo[id(node)] = out
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if key_node.value in seen:
                raise _DuplicateKey(
                    key_node.value, key_node.start_mark.line + 1, key_node.start_mark.column + 1, seen[key_node.value]
                )
            seen[key_node.value] = key_node.start_mark.line + 1
            key = build(key_node)
            try:
                out[key] = build(value_node)
            except TypeError:  # an unhashable key: let PyYAML say so, with its position
                return loader.construct_object(node, deep=True)
        return out

    return build(root)


class Positions:
    """Field path -> (line, column) in a document parsed without error, worked out only when an error needs
    it: from the document's nodes, composed again from its text then. The node graph itself is not kept: at
    3000 workloads it is 270,000 objects (a node and two marks per value), and kept alive it made every full
    garbage collection and the process's exit scan them (benchmarks/RESULTS.md, issue 29)."""

    def __init__(self, text: str | None):
        self._text = text
        self._map: dict[tuple, tuple[int, int]] | None = None

    def _build(self) -> dict[tuple, tuple[int, int]]:
        if self._map is None:
            found: dict[tuple, tuple[int, int]] = {}
            if self._text is not None:
                loader = _Loader(self._text)
                try:
                    node = loader.get_single_node()
                    if node is not None:  # built again: merge keys (<<) flatten into their mappings, as they did
                        _construct(loader, node, "")
                        _walk(node, (), found)
                finally:
                    loader.dispose()
            self._map = found  # whole or not at all: a cached document's positions are shared (serve's threads)
        return self._map

    def get(self, loc: tuple, default=None):
        return self._build().get(loc, default)

    def __contains__(self, loc: tuple) -> bool:
        return loc in self._build()

    def __getitem__(self, loc: tuple):
        return self._build()[loc]


MAX_NODES = 1_000_000  # values a document may hold once its aliases are expanded


def read_yaml(path: str | Path) -> tuple[Any, Positions]:
    """Parse one YAML file safely (files.read_input's checks, then parse_yaml's)."""
    return parse_yaml(read_input(path, "a YAML file"), str(path))


PARSED_KEPT = 8  # documents whose parse a process keeps, by their text (a catalog read again: serve, what-ifs)
_parsed: dict[tuple[str, str], tuple[bytes, Positions]] = {}


def parse_yaml(text: str, file: str) -> tuple[Any, Positions]:
    """Parse one YAML document safely; return the data and the positions of its fields. The node graph
    is checked before any Python object is made: a recursive alias, or aliases that would expand the
    document past MAX_NODES values (a "billion laughs" file), is an input error. A document parsed
    before in this process, the same text under the same name, is not parsed again: its data comes back
    as a fresh copy (keyed on the text, never on a file's identity)."""
    key = (file, text)
    if key in _parsed:
        blob, positions = _parsed[key]
        return pickle.loads(blob), positions
    data, positions = _parse_yaml(text, file)
    while len(_parsed) >= PARSED_KEPT:
        _parsed.pop(next(iter(_parsed)))
    _parsed[key] = (pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL), positions)
    return data, positions


def _parse_yaml(text: str, file: str) -> tuple[Any, Positions]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _aliased(text):
            _check_expansion(node, file)
        data = _construct(loader, node, file) if node is not None else None
    except _DuplicateKey as dup:
        raise InputError.single(
            file, "", f"duplicate key '{dup.key}' (first on line {dup.first})", dup.line, dup.column
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(x for x in (exc.context, exc.problem) if x)
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise InputError.single(file, "", f"YAML syntax error: {what}", line, col) from None
    except yaml.YAMLError as exc:
        raise InputError.single(file, "", f"YAML error: {exc}") from None
    finally:
        loader.dispose()
    return data, Positions(text if node is not None else None)


def parse_value(text: str, source: str) -> Any:
    """A value given on the command line, read as YAML (a number, null, a list...) with a file's checks;
    text that is not valid YAML stays text."""
    try:
        yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return text
    return parse_yaml(text, source)[0]


def _aliased(text: str) -> bool:
    """Whether the document has an alias, read on libyaml's event stream (no node graph walked in Python);
    a text without a '*' has none. Without one, the document's values are its nodes, counted as they are
    built (_construct)."""
    if "*" not in text:
        return False
    return any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=_Loader))


def _too_many(node: yaml.Node, file: str) -> InputError:
    mark = node.start_mark
    return InputError.single(
        file,
        "",
        f"aliases expand this document past {MAX_NODES:,} values (a YAML alias bomb?)",
        mark.line + 1,
        mark.column + 1,
    )


def _check_expansion(root: yaml.Node, file: str) -> None:
    """Count the values the document expands to, on the node graph (an alias is a shared node), in time
    proportional to the file; refuse a recursive alias or an expansion past MAX_NODES."""
    size: dict[int, int] = {}  # a node's expanded size, by the node (the graph's own identity)
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_NODES:
                raise _too_many(node, file)
            size[key] = total
            continue
        if key in size:
            continue
        if key in open_nodes:
            mark = node.start_mark
            raise InputError.single(
                file, "", "a recursive YAML alias (a node that contains itself)", mark.line + 1, mark.column + 1
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _walk(node: yaml.Node, loc: tuple, positions: dict) -> None:
    positions.setdefault(loc, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            positions[loc + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            _walk(value_node, loc + (key,), positions)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, loc + (i,), positions)


def format_loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validate(model: type[M], data: Any, file: str, positions=None) -> M:
    """Validate parsed data against a schema model; every problem becomes one readable line."""
    positions = positions or {}
    if not isinstance(data, dict):
        found = "an empty file" if data is None else f"a {type(data).__name__}"
        raise InputError.single(file, "", f"expected a mapping of keys at the top level, found {found}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [_problem(model, data, err, positions) for err in exc.errors()]
        raise InputError(file, problems) from None


def _problem(model: type[BaseModel], data: Any, err: dict, positions) -> Problem:
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    kind = err["type"]
    value = err.get("input")
    if kind == "extra_forbidden":
        allowed = _fields_at(model, loc[:-1])
        message = f"unknown key '{loc[-1]}'"
        if allowed:
            message += f"; expected one of: {', '.join(allowed)}"
    elif kind == "missing":
        message = "required field is missing"
    else:
        message = err["msg"]
        for prefix in ("Value error, ", "Assertion failed, "):
            message = message.removeprefix(prefix)
        message = message.replace("Input should be", "should be")
        if kind == "string_pattern_mismatch":
            message = "should contain only letters, digits and . _ - @ / :"
        if not (kind == "value_error" and isinstance(value, (dict, list))):  # a rule about a whole list
            message += f", found {_show(value)}"
    ident = _owner_id(data, loc)
    if ident:
        message += f" (in {ident})"
    line_col = None
    for k in range(len(loc), -1, -1):
        if loc[:k] in positions:
            line_col = positions[loc[:k]]
            break
    line, col = line_col if line_col else (None, None)
    return Problem(format_loc(loc), message, line, col)


def _show(value: Any) -> str:
    if isinstance(value, (dict, list)):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    return repr(value)


def _owner_id(data: Any, loc: tuple) -> str | None:
    if len(loc) >= 3 and loc[0] in ("workloads", "offerings") and isinstance(loc[1], int):
        try:
            item = data[loc[0]][loc[1]]
        except (KeyError, IndexError, TypeError):
            return None
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            return f"{loc[0][:-1]} '{item['id']}'"
    return None


def _fields_at(model: Any, loc: tuple) -> list[str]:
    """Field names of the schema model found by following loc from the root model."""
    tp: Any = model
    for part in loc:
        tp = unwrap(tp)
        if isinstance(part, int):
            args = typing.get_args(tp)
            tp = args[0] if args else None
        elif isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(part)
            tp = field.annotation if field else None
        else:
            args = typing.get_args(tp)
            tp = args[1] if len(args) == 2 else None
        if tp is None:
            return []
    tp = unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return list(tp.model_fields)
    return []


def load_catalog(path: str | Path) -> Catalog:
    data, positions = read_yaml(path)
    catalog = validate(Catalog, data, str(path), positions)
    lost = catalog.uncovering()
    if lost:
        problems = []
        for i in lost:
            c = catalog.commitments[i]
            loc = ("commitments", i, "offerings" if c.offerings is not None else "vendor")
            globs = f"{', '.join(c.offerings)} " if c.offerings is not None else ""
            why = (
                f"commitment '{c.id}' covers no offering: none {globs}billed by '{c.vendor}' in the catalog; "
                "expected globs on the ids of offerings that vendor bills"
            )
            problems.append(Problem(format_loc(loc), why, *positions.get(loc, (None, None))))
        raise InputError(str(path), problems)
    return catalog


def load_scenario(path: str | Path) -> Scenario:
    data, positions = read_yaml(path)
    return validate(Scenario, data, str(path), positions)


def load_workloads(path: str | Path) -> WorkloadSet:
    data, positions = read_yaml(path)
    ws = validate(WorkloadSet, data, str(path), positions)
    check_workloads(ws, str(path), positions)
    return ws


def check_workloads(ws: WorkloadSet, file: str, positions=None) -> None:
    """Cross-field rules the schema cannot state field by field."""
    positions = positions or {}
    problems = []
    known = ws.all_thresholds
    for i, w in enumerate(ws.workloads):
        t = w.latency.threshold
        if t is not None and t not in known:
            loc = ("workloads", i, "latency", "threshold")
            line, col = positions.get(loc, (None, None))
            problems.append(
                Problem(
                    format_loc(loc),
                    f"unknown threshold '{t}'; expected one of: {', '.join(known)} "
                    f"(or set latency.budget_s) (in workload '{w.id}')",
                    line,
                    col,
                )
            )
        budget = w.latency.budget_s if w.latency.budget_s is not None else known.get(t) if t is not None else None
        if w.latency.percentile is not None and budget is None and (t is None or t in known):
            loc = ("workloads", i, "latency", "percentile")
            line, col = positions.get(loc, (None, None))
            problems.append(
                Problem(
                    format_loc(loc),
                    f"a percentile needs a latency budget (budget_s, or a threshold with one) (in workload '{w.id}')",
                    line,
                    col,
                )
            )
    if problems:
        raise InputError(file, problems)


def load_inputs(workloads_path: str | Path, catalog_path: str | Path | None = None) -> Inputs:
    """Load a workloads file and its catalog: the file's own (resolved next to it) or an override,
    with the file's overlays applied in order (an override replaces the public catalog, the first
    of the list, and keeps the overlays)."""
    ws = load_workloads(workloads_path)
    files = [ws.catalog] if isinstance(ws.catalog, str) else list(ws.catalog or [])
    if catalog_path is None and not files:
        raise InputError.single(
            str(workloads_path), "catalog", "no catalog given; name one in the file or pass --catalog FILE"
        )
    paths = []
    for k, name in enumerate(files):
        resolved = Path(workloads_path).parent / name
        if (k or catalog_path is None) and not resolved.exists():
            loc = ("catalog",) if isinstance(ws.catalog, str) else ("catalog", k)
            _, positions = read_yaml(workloads_path)
            what = "catalog" if k == 0 else "overlay"
            raise InputError.single(
                str(workloads_path),
                format_loc(loc),
                f"{what} file not found: {resolved}",
                *positions.get(loc, (None, None)),
            )
        paths.append(resolved)
    base = Path(catalog_path) if catalog_path is not None else paths[0]
    catalog, overlays = load_catalog(base), ()
    if len(paths) > 1:
        catalog, overlays = apply_overlays(catalog, paths[1:])
    check_against_catalog(ws, catalog, str(workloads_path))
    distributions = load_distributions(ws, str(workloads_path))
    return Inputs(ws, catalog, str(workloads_path), str(base), overlays, distributions)


def load_distributions(
    ws: WorkloadSet,
    workloads_file: str,
    known: dict[str, Distribution] | None = None,
    source: str | None = None,
) -> dict[str, Distribution]:
    """Each workload's sample tasks, read from its `distribution` file (relative to the workloads file).
    known: distributions already read, reused for a workload that names the same file; source: the
    file whose edit named the distribution (a scenario's), for errors (default: the workloads file)."""
    out: dict[str, Distribution] = {}
    for i, w in enumerate(ws.workloads):
        if w.distribution is None:
            continue
        had = (known or {}).get(w.id)
        if had is not None and had.file == w.distribution:
            out[w.id] = had
            continue
        path = Path(workloads_file).parent / w.distribution
        if not path.exists():
            where = source or workloads_file
            loc = ("workloads", i, "distribution")
            try:
                positions = read_yaml(where)[1] if source is None else {}
            except (InputError, OSError):
                positions = {}
            raise InputError.single(
                where,
                format_loc(loc) if source is None else "distribution",
                f"distribution file not found: {path} (in workload '{w.id}')",
                *positions.get(loc, (None, None)),
            )
        out[w.id] = read_distribution(path, w.distribution)
    return out


def load_overlay(path: str | Path) -> Overlay:
    data, positions = read_yaml(path)
    return validate(Overlay, data, str(path), positions)


def apply_overlays(catalog: Catalog, paths: list[Path]) -> tuple[Catalog, tuple[AppliedOverlay, ...]]:
    """The catalog with each overlay's edits applied in order, and what each changed. A match that
    selects nothing, or a denied company that bills or serves nothing, is an error in the overlay."""
    data = catalog.model_dump(mode="json")
    applied = []
    for path in paths:
        overlay = load_overlay(path)
        changes = apply_catalog_edits(data, overlay.catalog, str(path))
        for k, company in enumerate(overlay.deny):
            gone = [o for o in data["offerings"] if company in (o["vendor"], o.get("host") or o["vendor"])]
            if not gone:
                raise InputError.single(str(path), f"deny[{k}]", f"no offering is billed or served by '{company}'")
            if len(gone) == len(data["offerings"]):
                raise InputError.single(str(path), f"deny[{k}]", "would remove every offering")
            data["offerings"] = [o for o in data["offerings"] if o not in gone]
            changes += [(o["id"], "removed", None, None) for o in gone]
        for c in overlay.commitments:
            data.setdefault("commitments", []).append(c.model_dump(mode="json", exclude_none=True))
            changes.append(("*", "commitment added", None, c.id))
        catalog = revalidate(Catalog, data, str(path), "the catalog after this overlay")
        first = len(catalog.commitments) - len(overlay.commitments)
        for k in catalog.uncovering():
            if k >= first:  # a contract the overlay signs must cover something, as in a catalog file
                c = catalog.commitments[k]
                raise InputError.single(
                    str(path),
                    f"commitments[{k - first}]",
                    f"commitment '{c.id}' covers no offering billed by '{c.vendor}' in the catalog; expected "
                    "globs on the ids of offerings that vendor bills",
                )
        applied.append(AppliedOverlay(overlay.name, str(path), overlay.description, overlay.source, tuple(changes)))
    return catalog, tuple(applied)


def revalidate(model, data, file: str, what: str):
    """Data an edit changed, validated again; each problem says what was edited ("(the catalog after
    this overlay)"), as the file's own lines no longer match."""
    try:
        return validate(model, data, file)
    except InputError as exc:
        for p in exc.problems:
            object.__setattr__(p, "message", f"{p.message} ({what})")
        raise


def check_against_catalog(ws: WorkloadSet, catalog: Catalog, file: str) -> None:
    """Rules that read the catalog: a floor stated as a model's score names a model the catalog has,
    and a region rule needs a catalog that says where its offerings run."""
    found: list[tuple[tuple, str]] = []  # (field path, what is wrong)
    for i, w in enumerate(ws.workloads):
        for key in ("min", "mean_min"):
            try:
                floor_value(getattr(w.capability, key), w.capability.metric, catalog)
            except ValueError as exc:
                found.append((("workloads", i, "capability", key), f"{exc} (in workload '{w.id}')"))
    if not any(o.regions for o in catalog.offerings):
        rules = [("policy", "regions")] if ws.policy.regions else []
        rules += [("workloads", i, "regions") for i, w in enumerate(ws.workloads) if w.regions]
        why = (
            f"a region rule, but the catalog '{catalog.catalog}' says for no offering where it runs "
            "(no 'regions'); remove the rule or use a catalog that lists regions"
        )
        found += [(loc, why) for loc in rules]
    if found:
        try:  # the lines of the fields at fault (a scenario's or --set's problems have none in the file)
            _, positions = read_yaml(file)
        except (InputError, OSError):
            positions = {}
        raise InputError(file, [Problem(format_loc(loc), why, *positions.get(loc, (None, None))) for loc, why in found])
