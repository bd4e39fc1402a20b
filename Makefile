# GinLeague: `make run` serves the app, `make test` runs the checks.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The ASGI app under uvicorn: wall screens' live streams (SSE) need it (runserver's WSGI
# holds a thread per open screen and sends nothing). Static files: whitenoise's middleware, from the
# collected folder (below) under `make run` and `make demo`, from static/ as it is under `make dev`.
# A short graceful shutdown: open wall screens never keep Ctrl-C waiting.
# X-Forwarded-For/-Proto are believed only when told there is a proxy in front (uvicorn's own default
# believes any caller at 127.0.0.1, who could then pick a new address for every request): NUM_PROXIES
# (the proxy on this machine) or FORWARDED_ALLOW_IPS (the proxies' addresses) turns them on.
LOCAL_PROXY := 127.0.0.1,::1
PROXY_HEADERS = $(if $(filter-out 0,$(NUM_PROXIES))$(FORWARDED_ALLOW_IPS),--proxy-headers \
  --forwarded-allow-ips '$(or $(FORWARDED_ALLOW_IPS),$(LOCAL_PROXY))',--no-proxy-headers)
SERVE = $(VENV)/bin/uvicorn ginleague.asgi:application --lifespan off --timeout-graceful-shutdown 2 $(PROXY_HEADERS)

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
# Let Python keep its compiled modules (some shells set this): every test worker and every server a
# test starts would otherwise compile the project anew.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run dev demo test install lint pytest durations fuzz screenshots browser gettext migrate collectstatic bench clean messages

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
	@# The project's modules compiled once here, not by every test worker at the same moment; the tests
	@# and pytest's plugins too, as pytest compiles them (asserts rewritten): each xdist worker of the first
	@# `make test` would otherwise rewrite all of them itself, about 8 s of CPU each.
	@$(PY) -m compileall -q -j 0 ginleague scoring players tests bench manage.py >/dev/null
	@$(VENV)/bin/pytest --collect-only -q -p no:randomly >/dev/null
	@touch $(STAMP)

install: $(STAMP)

migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

# The static files collected for whitenoise: hashed names (cached for good by browsers) and a gzip copy
# of each, which it sends to every browser that accepts gzip. Collected again only when something under
# static/ (a file, or a folder's list: a file added, renamed or removed) or the packages change.
# STATIC_ROOT (the environment) moves the folder, as for the settings.
STATIC_ROOT ?= staticfiles
$(STATIC_ROOT)/staticfiles.json: $(STAMP) $(shell find static)
	STATIC_COLLECTED=true STATIC_ROOT=$(STATIC_ROOT) $(PY) manage.py collectstatic --noinput -v 0
	@touch $@

collectstatic: $(STATIC_ROOT)/staticfiles.json

# Collected before migrate: migrate runs the system checks, which would warn the files are missing.
run: export STATIC_COLLECTED := true
run: collectstatic migrate
	@echo "GinLeague on http://$(HOST):$(PORT)/"
	$(SERVE) --host $(HOST) --port $(PORT)

# For developers: DEBUG on (for the migrate step too), and the server restarts when a Python file changes.
dev: export DEBUG := true
dev: migrate
	@echo "GinLeague (DEBUG, autoreload) on http://$(HOST):$(PORT)/"
	$(SERVE) --reload --reload-dir ginleague --reload-dir scoring --reload-dir players \
	  --host $(HOST) --port $(PORT)

# A living demo league (a public club, a season, confirmed and provisional games), then serve.
demo: export STATIC_COLLECTED := true
demo: collectstatic migrate
	$(PY) manage.py seed_demo
	@echo "GinLeague on http://$(HOST):$(PORT)/clubs/"
	$(SERVE) --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	@# A database in memory: the check needs an empty one, and must not leave db.sqlite3 behind.
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py makemigrations --check --dry-run >/dev/null

# Browser tests drive Debian's Chromium in its headless build (chromium-headless-shell, what
# Playwright itself runs headless: the browser tests take about 40% less CPU than in the full
# chromium); install it when missing and we can. Without it they fall back to /usr/bin/chromium.
browser:
	@if [ ! -x /usr/bin/chromium-headless-shell ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's chromium-headless-shell for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; \
	  elif [ ! -x /usr/bin/chromium ]; then \
	    echo "The browser tests need Chromium: run 'sudo apt-get install -y chromium-headless-shell'."; exit 1; \
	  fi; \
	fi

# The translation checks and `make messages` use GNU gettext (makemessages, msgfmt); `make run` does not
# (the compiled .mo files are committed). Installed when missing and we can, like the browser above.
gettext:
	@if ! command -v msgfmt >/dev/null || ! command -v xgettext >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing GNU gettext for the translation checks"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	  else \
	    echo "The translation checks need GNU gettext: run 'sudo apt-get install -y gettext'."; exit 1; \
	  fi; \
	fi

# One worker more than the cores (3 on a 2-core machine): the browser tests spend about a third
# of their time waiting for a page, which the extra worker fills. Tests are handed out two at a
# time as workers free up (--maxschedchunk): xdist's default hands each worker a quarter of the
# suite at once, and the worker whose quarter held the browser tests ran on alone for a minute and
# a half after the others had finished. pytest-randomly shuffles the order every run (its seed is
# printed: `-p randomly -p "randomly_seed=N"` repeats one).
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
pytest: $(STAMP) browser gettext
	$(VENV)/bin/pytest -n $(WORKERS) --maxschedchunk=2 --durations=10 $(PYTEST_ARGS)

# After a whole `make test`: its long tests' times become tests/durations.json, which orders a clean clone's
# run (CI's) as the cache orders a developer's: the longest tests first, shared by the workers.
durations: $(STAMP)
	$(VENV)/bin/python -c 'from tests.conftest import write_known_durations; write_known_durations()'

# The browser tests again, saving what their pages look like (phone, laptop and wall sizes, every language
# tested) in test-artifacts/ to look at; `make test` takes no screenshot unless a test fails.
screenshots: $(STAMP) browser
	GINLEAGUE_SCREENSHOTS=1 $(VENV)/bin/pytest -n $(WORKERS) -m browser $(PYTEST_ARGS)

# The deep pass: many more generated records, schema cases and solver situations than `make test`.
fuzz: $(STAMP) browser
	GINLEAGUE_FUZZ=deep $(VENV)/bin/pytest -n auto -m "not browser" $(PYTEST_ARGS) \
	  tests/test_api_schemathesis.py tests/test_properties.py tests/test_melds.py tests/test_cards_facts.py tests/test_vectors.py \
	  tests/test_swiss.py
	# The offline scorer (static/js/engine.js) against the engine on many more random records, in Chromium.
	GINLEAGUE_FUZZ=deep $(VENV)/bin/pytest $(PYTEST_ARGS) tests/browser/test_offline_scorer.py -k random_records
	# The phone's copy of a game against the server: 120 generated two-phone sequences (seeds printed).
	GINLEAGUE_FUZZ=deep $(VENV)/bin/pytest -n 2 -p no:randomly $(PYTEST_ARGS) tests/browser/test_offline_model.py

test: lint pytest

# The translations (README: "Languages"): every marked message into each language's .po (both domains:
# django for Python and templates, djangojs for static/js), then the .mo files, which are committed so that
# `make run` needs nothing but Python. Needs GNU gettext. MESSAGE_LANGUAGES: settings.LANGUAGES but English;
# the folders makemessages skips are those tests/test_translations.py skips.
MESSAGE_LANGUAGES := es de fr pt_BR
NOT_SOURCE := .venv staticfiles tests bench node_modules test-artifacts docs
messages: $(STAMP) gettext
	$(PY) manage.py makemessages $(addprefix -l ,$(MESSAGE_LANGUAGES)) $(addprefix --ignore=,$(NOT_SOURCE)) --no-obsolete
	$(PY) manage.py makemessages -d djangojs $(addprefix -l ,$(MESSAGE_LANGUAGES)) $(addprefix --ignore=,$(NOT_SOURCE)) --no-obsolete
	$(PY) manage.py compilemessages $(addprefix -l ,$(MESSAGE_LANGUAGES)) $(addprefix --ignore=,$(NOT_SOURCE))

# Figures, not pass/fail: the targets are in each script's docstring.
bench: $(STAMP)
	$(PY) bench/bench_solver.py
	$(PY) bench/bench_pages.py
	$(PY) bench/bench_pairing.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
