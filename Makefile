# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# bytecode ahead: where PYTHONDONTWRITEBYTECODE is set, every start would compile the studio again (+0.6 s)
	$(BIN)/python -m compileall -q studio pipeline screens widgets
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/novel-studio demo

test: $(STAMP)
	$(BIN)/ruff check studio pipeline screens widgets tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check studio pipeline screens widgets tests bench

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/bench_status.py

clean:
	rm -rf $(VENV) build *.egg-info
