"""The gateway lists the package ships (planner.market.gateway_lists, SPEC "Deployability"): the extract is
what catalogs/sources/ gives, byte for byte, and it answers every question the export and the deployability
rule ask exactly as the full source files do."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from planner.market import gateway_lists
from planner.market.addressing import Facts, Resolver
from planner.market.gateway_ids import load_sources, packaged_sources
from planner.model.load import load_catalog

SOURCES = ROOT / "catalogs" / "sources"


def test_the_shipped_extract_is_rebuilt_from_the_source_files():
    assert gateway_lists.packaged_text() == gateway_lists.build_from(SOURCES), "run `make gateway-lists`"
    doc = json.loads(gateway_lists.packaged_text())
    assert doc["litellm_version"] == "1.110.2"  # the release whose map catalogs/sources/ holds
    assert {"openai", "cerebras", "openrouter", "gmi", "fireworks_ai"} <= set(doc["litellm_routable"])
    assert "bedrock_converse" not in doc["litellm_routable"]  # a map provider the Router does not route
    assert len(gateway_lists.packaged_text()) < 1_000_000  # an extract, not the 3.4 MB map


def test_check_mode_names_a_stale_extract(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "gateway_lists.json"
    stale.write_text("{}\n")
    monkeypatch.setattr(gateway_lists, "packaged_path", lambda: stale)
    assert gateway_lists.main(["--check", "--sources", str(SOURCES)]) == 1
    assert "make gateway-lists" in capsys.readouterr().err
    assert gateway_lists.main(["--sources", str(SOURCES)]) == 0
    assert gateway_lists.main(["--check", "--sources", str(SOURCES)]) == 0


@pytest.fixture(scope="module")
def both():
    return packaged_sources(), load_sources(SOURCES)


def test_the_extract_answers_as_the_source_files_do(both):
    shipped, full = both
    catalog = load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml")
    infos = {o.id: Facts.of(o) for o in catalog.offerings}
    a, b = Resolver(infos, shipped), Resolver(infos, full)
    for o in catalog.offerings:
        for mode in ["default", *(m.name for m in o.modes)]:
            for gateway in ("litellm", "openrouter"):
                assert a.problems(gateway, o.id, mode, "list", None) == b.problems(gateway, o.id, mode, "list", None)
            assert a.litellm(o.id, mode) == b.litellm(o.id, mode)
            assert a.openrouter(o.id, mode) == b.openrouter(o.id, mode)
    assert shipped.routable == full.routable and shipped.or_providers == full.or_providers
