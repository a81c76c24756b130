"""Bad files never seen before: randomly mutated inputs must give exit 0, 2 or 3 with a clean
message, never an internal error or a traceback."""

import copy

import yaml
from conftest import load_dict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()
WEIRD = st.sampled_from(
    [None, -1, 0, 1e400, -1e-9, "", "abc", "1e3", True, [], {}, [1, 2], {"a": 1}, 3.5, "<script>", "∞", 10**30, ".nan"]
)


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


@st.composite
def mutated(draw):
    ws, cat = copy.deepcopy(load_dict("tiny-workloads.yaml")), copy.deepcopy(load_dict("tiny-catalog.yaml"))
    for _ in range(draw(st.integers(1, 3))):
        doc = draw(st.sampled_from([ws, cat]))
        where = draw(st.sampled_from([p for p in paths(doc) if p]))
        parent = doc
        for part in where[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["set", "delete", "rename"]))
        key = where[-1]
        if action == "set":
            parent[key] = copy.deepcopy(draw(WEIRD))  # the sampled lists and dicts are shared objects
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[str(key) + "x"] = parent.pop(key)
    return ws, cat


@settings(
    max_examples=examples(120),
    derandomize=not EXPLORE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mutated())
def test_mutated_inputs_never_crash(tmp_path, files):
    ws, cat = files
    ws["catalog"] = "catalog.yaml"
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws, sort_keys=False, allow_unicode=True))
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(cat, sort_keys=False, allow_unicode=True))
    for args in (
        ["solve", str(tmp_path / "w.yaml"), "--out", str(tmp_path / "o")],
        ["catalog", "validate", str(tmp_path / "catalog.yaml")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 2, 3), (result.exit_code, result.output, result.exception)
        assert "internal error" not in result.output and "Traceback" not in result.output
        if result.exit_code == 2:
            assert result.stderr.strip(), "an input error says what is wrong"


SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "offerings", "workloads", "catalog", "policy", "id", "tasks", "x"])
            | st.text(max_size=8),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(
    max_examples=examples(150),
    derandomize=not EXPLORE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(DOCUMENTS, st.sampled_from(["catalog", "workloads", "scenario"]))
def test_random_documents_of_every_kind_give_an_answer_or_an_input_error(tmp_path, document, kind):
    """A structurally random document as a catalog, a workloads file or a scenario: exit 0, 2 or 3 with
    one clean line, never an internal error."""
    path = tmp_path / f"{kind}.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    tiny = tmp_path / "tiny"
    tiny.mkdir(exist_ok=True)
    (tiny / "w.yaml").write_text(yaml.safe_dump({**load_dict("tiny-workloads.yaml"), "catalog": "c.yaml"}))
    (tiny / "c.yaml").write_text(yaml.safe_dump(load_dict("tiny-catalog.yaml")))
    args = {
        "catalog": ["catalog", "validate", str(path)],
        "workloads": ["solve", str(path), "--catalog", str(tiny / "c.yaml"), "--out", str(tmp_path / "o")],
        "scenario": ["whatif", str(tiny / "w.yaml"), str(path), "--out", str(tmp_path / "o"), "--jobs", "1"],
    }[kind]
    result = runner.invoke(app, args)
    assert result.exit_code in (0, 2, 3), (result.exit_code, result.output, result.exception)
    assert "internal error" not in result.output and "Traceback" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


TOKENS = st.sampled_from(
    [
        "a: ",
        "b: ",
        "&x ",
        "&y ",
        "*x",
        "*y",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "- ",
        "\n",
        "  ",
        "1",
        "'q'",
        "? ",
        ": ",
        "&z [*x, *x, *x]",
        "*z",
        "!!python/object:os.system ",
        "\t",
        "%YAML 1.1\n",
        "---\n",
        "...\n",
        "<<: *x\n",
    ]
)


@settings(max_examples=examples(300), derandomize=not EXPLORE, deadline=None)
@given(st.lists(TOKENS, max_size=40))
def test_random_yaml_text_is_data_or_an_input_error(tokens):
    """The guarded parser on random YAML-ish text (anchors, aliases, merges, tags, flows): data, or an
    InputError, and never anything else."""
    from planner.core.errors import InputError
    from planner.model.load import parse_yaml

    try:
        parse_yaml("".join(tokens), "random.yaml")
    except InputError as exc:
        assert len(exc.lines()) == 1
