# errorkb: `make html` builds the site, `make test` runs every test.
# The Makefile makes its own virtual environment in .venv and installs what it needs.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Each target installs what it needs, once, from requirements/: $(STAMP)-check (the package and
# its linter), -records (also the snippets' packages and pytest), -site (the check's, the
# snippets' and the theme), -test (all of those and what the tests drive), -lint (the check's,
# mypy, ruff and the types they read).
STAMP := $(VENV)/.installed
BUILDDIR := _build
SPHINXOPTS ?=

.PHONY: help html test test-changed doctest serve clean new check lint linkcheck

help:
	@echo "make html   build the site into $(BUILDDIR)/html"
	@echo "make test   run every test"
	@echo "make test-changed  the snippets of the records changed since BASE (origin/main), then the fast tests"
	@echo "make doctest run every snippet of the records and report"
	@echo "make serve  live preview at http://127.0.0.1:8000"
	@echo "make new    start a record: make new ID=... CODE=... SOURCE=... TITLE=... MESSAGE='...'"
	@echo "make check  check the records and the prose in seconds, without building"
	@echo "make lint   type-check (mypy) and lint (ruff) the package, bench/ and tests/"
	@echo "make linkcheck follow every link of the site (needs the network) and list the dead ones"
	@echo "make clean  remove build output"

# requirements/<level>.txt, pinned (the snippets' packages are declared in snippet-requirements.txt).
# Snippets run inside bubblewrap: for a level that runs them, as root on Debian or Ubuntu it is
# installed when missing; without it no snippet can run, and `make html` builds the site with
# cached results only, saying so.
$(STAMP)-%: pyproject.toml $(wildcard requirements/*.txt) snippet-requirements.txt
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/$*.txt -e .
	@[ -z "$(filter-out check lint,$*)" ] || command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
		{ export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } || true
	@[ -z "$(filter-out check lint,$*)" ] || command -v bwrap >/dev/null || echo "bubblewrap (bwrap) is not installed: no snippet can run (see docs/examples.md)"
	touch $@

# The site is built beside the last one (a copy of it, so the build stays incremental) and
# takes its place only when complete: a failed, interrupted or killed build leaves the last
# site as it was, and the next build reads every page again rather than trust what the broken
# one read.
SITE := $(BUILDDIR)/html
html: $(STAMP:%=%-site)
	@if [ ! -d $(SITE) ] && [ -d $(SITE).last ]; then mv $(SITE).last $(SITE); fi
	@if [ -d $(SITE).next ]; then rm -rf $(SITE).next $(BUILDDIR)/doctrees/environment.pickle; fi
	@if [ -d $(SITE) ]; then cp -a $(SITE) $(SITE).next; fi
	@command -v bwrap >/dev/null || echo "bubblewrap (bwrap) is not installed: the snippets are not run (cached results only)"
	@$(BIN)/sphinx-build -W -b html -d $(BUILDDIR)/doctrees $$(command -v bwrap >/dev/null || echo -D errorkb_run_examples=0) \
		$(SPHINXOPTS) . $(SITE).next \
		|| { rm -rf $(SITE).next $(BUILDDIR)/doctrees/environment.pickle; exit 1; }
	@rm -rf $(SITE).last; if [ -d $(SITE) ]; then mv $(SITE) $(SITE).last; fi
	@mv $(SITE).next $(SITE); rm -rf $(SITE).last; echo "The site is in $(SITE)."

test: $(STAMP:%=%-test)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The snippets of the records added or changed since BASE, then the suites that check records,
# templates and the lookup without building a whole site: a record's pull request gets its
# verdict from these first.
BASE ?= origin/main
FAST_TESTS ?= tests/test_records.py tests/test_schema.py tests/test_templates.py tests/test_diagnoses.py \
	tests/test_triage.py tests/test_freshness.py tests/test_lookup.py tests/test_lookup_parity.py \
	tests/test_compiled.py tests/test_cli_lookup.py tests/test_cli_check.py
test-changed: $(STAMP:%=%-records)
	@changed=$$(git diff --name-only --diff-filter=d $(BASE) -- 'errors/*/*.md') || exit 1; \
		echo "records changed since $(BASE): $${changed:-none}"; \
		$(BIN)/python -m pytest $(PYTEST_ARGS) $$changed $(FAST_TESTS)

# Runs every snippet; the last line is the summary, and any failed snippet fails the target.
doctest: $(STAMP:%=%-site)
	@rm -f $(BUILDDIR)/examples/output.txt
	@$(BIN)/sphinx-build -b examples -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/examples; \
		status=$$?; tail -n 1 $(BUILDDIR)/examples/output.txt 2>/dev/null; exit $$status

# Watches the sources (records, guides) and ext/. Pages are re-read when their file changes;
# a change to the extension's Python code drops the cached environment so all are re-read
# (the snippet results cached beside it stay).
serve: $(STAMP:%=%-site)
	$(BIN)/sphinx-autobuild -b html -d $(BUILDDIR)/doctrees --watch ext \
		--pre-build "sh -c 'find ext -name \"*.py\" -newer $(BUILDDIR)/doctrees/environment.pickle 2>/dev/null | grep -q . && rm -f $(BUILDDIR)/doctrees/environment.pickle || true'" \
		$(SPHINXOPTS) . $(BUILDDIR)/html

# Answers not given as variables are asked for in a terminal. Values reach the command through
# the environment, unexpanded, so quotes and '$' in a pasted message survive.
new: export override MESSAGE := $(value MESSAGE)
new: export override TITLE := $(value TITLE)
new: $(STAMP:%=%-check)
	$(BIN)/errorkb new $${ID:+--id "$$ID"} $${CODE+--code "$$CODE"} $${SOURCE:+--source "$$SOURCE"} \
		$${TITLE:+--title "$$TITLE"} $${MESSAGE:+--message "$$MESSAGE"} $${MESSAGE_FILE:+--message-file "$$MESSAGE_FILE"}

check: $(STAMP:%=%-check)
	$(BIN)/errorkb check

# Both tools are configured in pyproject.toml; mypy checks the files it names there.
lint: $(STAMP:%=%-lint)
	$(BIN)/ruff check ext/errorkb bench tests
	$(BIN)/mypy

# Follows every link (references, "Seen at" addresses, guides); the only target that needs the network.
linkcheck: $(STAMP:%=%-site)
	@$(BIN)/sphinx-build -b linkcheck -q -D errorkb_run_examples=0 . $(BUILDDIR)/linkcheck; \
		$(BIN)/python .github/scripts/dead_links.py $(BUILDDIR)/linkcheck/output.json || echo "No dead link."

clean:
	rm -rf $(BUILDDIR)
