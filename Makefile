# Quickstart: `make demo` (venv, install, solve the example, write the report) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= reports

.PHONY: demo test install bench catalog clean

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

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
