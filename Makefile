# Quickstart: `make demo` (venv, install, solve the example, write the report) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= reports

.PHONY: demo test test-deep gateway-check install readme bench bench-logs catalog gateway-lists schemas screenshots clean

$(BIN)/planner: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found; run: make PYTHON=python3 ..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	@touch $@

install: $(BIN)/planner

demo: install
	$(BIN)/planner solve workloads/support.yaml --out $(OUT)
	@echo "open $(OUT)/support.html in a browser; the plan file is $(OUT)/support.plan.json"

# `make test`: lint, then the suite without the long runs (under 4 minutes on 2 cores). `make test-deep`:
# everything, property tests at their full example counts, the golden corpus, the browser and wheel tests,
# the benchmark scripts on tiny sizes, and the exports loaded in litellm's Router (with the gateway-check extra:
# `make gateway-check`).
test: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -m "not browser and not wheel and not golden and not bench and not gateway and not deep"

test-deep: install
	PLANNER_DEEP=1 $(BIN)/python -m pytest -q

# litellm (a large install: about 330 MB with its dependencies) for the Router tests of the exports.
gateway-check: install
	$(BIN)/pip install --quiet -e ".[gateway-check]"

# Rebuild the real catalog from the source files kept in catalogs/sources/ (see PROVENANCE.md).
catalog: install
	$(BIN)/planner catalog import aa catalogs/sources/aa_providers_leaderboard.csv \
		litellm:catalogs/sources/litellm_model_prices_and_context_window.json \
		openrouter:catalogs/sources/openrouter_models_2026-04-04.json --out catalogs/aa-2026-06.yaml

# The gateway lists the package ships (planner/market/data/gateway_lists.json: ids, providers and reasoning
# flags the export and policy.deployable_on read), extracted from catalogs/sources/.
gateway-lists: install
	$(BIN)/python -m planner.market.gateway_lists

# The JSON Schemas of the input files, from the models in planner/model/schema/: into planner/model/schemas/
# (shipped in the package) and schemas/ (for editors, named by each YAML file's first line).
schemas: install
	$(BIN)/python -m planner.model.schemas

# The README's screenshots: the browser tests, writing their pictures to docs/screenshots.
screenshots: install
	PLANNER_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -m browser tests/outputs/test_report.py tests/serve/test_page.py

# The README's generated figures (between <!-- figures:NAME --> markers), from the commands it shows.
readme: install
	$(BIN)/python docs/readme_figures.py

bench: install
	$(BIN)/python benchmarks/bench.py

# from-logs and replay on ten million generated spend-log rows, from-logs on as many plain CSV rows
# (benchmarks/RESULTS.md, "Issue 18" and "Issue 25")
bench-logs: install
	$(BIN)/python benchmarks/logs_bench.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
