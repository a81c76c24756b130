"""The README's figures are what its commands give today: docs/readme_figures.py writes each generated
part from the commands' plan files and output, and this test fails when one is stale."""

import importlib.util
import re

import pytest
from conftest import ROOT


def _figures():
    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "docs" / "readme_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.deep  # about 10 s of solves and a replay: in make test-deep, which CI runs
def test_every_generated_part_of_the_readme_is_current(capsys):
    assert _figures().main(["--check"]) == 0, capsys.readouterr().err


def test_a_stale_figure_is_named(tmp_path, monkeypatch, capsys):
    figures = _figures()
    text = figures.README.read_text()
    stale = tmp_path / "README.md"
    stale.write_text(text.replace("instead of $", "instead of $1", 1))
    monkeypatch.setattr(figures, "README", stale)
    monkeypatch.setattr(figures, "PARTS", {"tiers": figures.PARTS["tiers"]})
    only_tiers = figures.REGION.pattern.replace("(?P<name>[a-z-]+)", "(?P<name>tiers)")
    monkeypatch.setattr(figures, "REGION", re.compile(only_tiers, re.S))
    assert figures.main(["--check"]) == 1
    assert "the figures of 'tiers' are stale" in capsys.readouterr().err
