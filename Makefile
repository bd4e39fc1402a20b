# GinLeague: `make run` serves the app, `make test` runs the checks.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

# The first interpreter that is Python >= 3.12: python3.13, python3.12, python3,
# then any pyenv-installed version (pyenv shims fail unless selected, so each
# candidate is actually run, not just found).
define FIND_PYTHON
for candidate in python3.13 python3.12 python3 \
    $$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/3.*/bin/python3 2>/dev/null | sort -rV) \
    $$(command -v pyenv >/dev/null 2>&1 && ls -d "$$(pyenv root)"/versions/3.*/bin/python3 2>/dev/null | sort -rV); do \
  if "$$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then \
    echo "$$candidate"; exit 0; \
  fi; \
done; exit 1
endef
export FIND_PYTHON

.PHONY: run demo test install lint pytest browser migrate bench clean

$(STAMP): pyproject.toml
	@if [ ! -x $(PY) ]; then \
	  python=$$(bash -c "$$FIND_PYTHON") || { \
	    echo "GinLeague needs Python 3.12 or newer, and none was found."; \
	    echo "Install one (e.g. 'apt-get install python3.12', or 'pyenv install 3.13') and run make again."; \
	    exit 1; }; \
	  echo "Creating $(VENV) with $$python ($$($$python --version))"; \
	  "$$python" -m venv $(VENV); \
	fi
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

run: migrate
	@echo "GinLeague on http://$(HOST):$(PORT)/"
	$(PY) manage.py runserver $(HOST):$(PORT)

# A living demo league (a public club, a season, confirmed and provisional games), then serve.
demo: migrate
	$(PY) manage.py seed_demo
	@echo "GinLeague on http://$(HOST):$(PORT)/clubs/"
	$(PY) manage.py runserver $(HOST):$(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run >/dev/null

# Browser tests drive Debian's Chromium; install it when missing and we can.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The browser tests need Chromium at /usr/bin/chromium: run 'sudo apt-get install -y chromium'."; exit 1; \
	  fi; \
	fi

pytest: $(STAMP) browser
	$(VENV)/bin/pytest $(PYTEST_ARGS)

test: lint pytest

# Figures, not pass/fail: the targets are in each script's docstring.
bench: $(STAMP)
	$(PY) bench/bench_solver.py
	$(PY) bench/bench_pages.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
