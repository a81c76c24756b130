"""The golden corpus: every command's files and printed CSV/JSON, byte for byte (tests/golden_corpus.py)."""

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
