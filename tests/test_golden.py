"""The golden corpus: every command's files and printed CSV/JSON, as parsed JSON and CSV with numbers to a
stated tolerance, HTML by structure and text (tests/golden_corpus.py)."""

import pytest
from golden_corpus import differences, generate

pytestmark = pytest.mark.golden  # the whole corpus: make test-deep


def test_outputs_equal_the_golden_corpus(tmp_path):
    generate(tmp_path)
    diff = differences(tmp_path)
    assert not diff, (
        "outputs changed; if on purpose, run `.venv/bin/python tests/golden_corpus.py` and say why "
        "in the commit:\n" + "\n".join(diff)
    )


def test_the_comparison_reads_content_not_bytes():
    from golden_corpus import _difference

    assert _difference(".json", '{"a": 1.00000000001, "b": [1, "x"]}', '{"a": 1.0, "b": [1, "x"]}') is None
    assert "a: 1.1" in _difference(".json", '{"a": 1.1}', '{"a": 1.0}')
    assert _difference(".csv", "w,cost\nx,2.0000000001\n", "w,cost\nx,2\n") is None
    assert _difference(".csv", "w,cost\nx,3\n", "w,cost\nx,2\n") is not None
    page = '<p id="a" class="b">Cost  $5</p><svg><path d="M0 1.5"/></svg>'
    assert _difference(".html", page, page.replace("1.5", "1.50001").replace("  ", " ")) is None
    assert "Cost $6" in _difference(".html", page.replace("$5", "$6"), page)
