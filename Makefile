# errorkb: `make html` builds the site, `make test` runs every test.
# The Makefile makes its own virtual environment in .venv and installs what it needs.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BUILDDIR := _build
SPHINXOPTS ?=

.PHONY: help html test doctest serve clean

help:
	@echo "make html   build the site into $(BUILDDIR)/html"
	@echo "make test   run every test"
	@echo "make doctest run every snippet of the records and report"
	@echo "make serve  live preview at http://127.0.0.1:8000"
	@echo "make clean  remove build output"

$(STAMP): pyproject.toml requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -e .
	touch $@

# A failed build leaves no half-written site behind.
html: $(STAMP)
	@$(BIN)/sphinx-build -W -b html -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/html \
		|| { rm -rf $(BUILDDIR)/html; exit 1; }

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Runs every snippet; the last line is the summary, and any failed snippet fails the target.
doctest: $(STAMP)
	@rm -f $(BUILDDIR)/examples/output.txt
	@$(BIN)/sphinx-build -b examples -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/examples; \
		status=$$?; tail -n 1 $(BUILDDIR)/examples/output.txt 2>/dev/null; exit $$status

serve: $(STAMP)
	$(BIN)/sphinx-autobuild -b html -d $(BUILDDIR)/doctrees --watch ext $(SPHINXOPTS) . $(BUILDDIR)/html

clean:
	rm -rf $(BUILDDIR)
