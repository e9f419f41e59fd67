# The course's commands. `make book` and `make test` work on a fresh clone:
# they create .venv and install the pinned requirements the first time.
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV ?= .venv
REQUIREMENTS ?= requirements.txt
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MATHJAX := .mathjax/_static/mathjax
PYTEST_ARGS ?=

.PHONY: help book test colab-check execute lint serve clean pdf compat repository

help:  ## list the commands
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install whenever the pins or the package metadata change.
$(STAMP): $(REQUIREMENTS) pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -r $(REQUIREMENTS)
	touch $@

# MathJax is served from the book itself, so math is typeset offline.
$(MATHJAX)/tex-mml-chtml.js: package.json package-lock.json
	npm ci --no-audit --no-fund
	rm -rf .mathjax && mkdir -p $(MATHJAX)/output/chtml
	cp node_modules/mathjax/es5/tex-mml-chtml.js $(MATHJAX)/
	cp -r node_modules/mathjax/es5/output/chtml/fonts $(MATHJAX)/output/chtml/

book: $(STAMP) $(MATHJAX)/tex-mml-chtml.js  ## build the HTML book into _build/html
	$(BIN)/jupyter-book build . --builder html -nW --keep-going
	@echo "The book is at $(CURDIR)/_build/html/index.html"

# The browser tests drive the built book, so the tests build it first.
test: $(STAMP) book  ## run every test: lessons, notebook guards, lint, nbval, and the browser
	$(BIN)/ruff check lessons tests tools book
	$(BIN)/ruff format --check lessons tests tools book
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg $(PYTEST_ARGS)

colab-check: $(STAMP)  ## slow: run every notebook in a fresh venv holding only Colab's packages
	COLAB_LIKE=1 $(BIN)/python -m pytest tests/test_colab_like.py -n 2 --dist load

execute: $(STAMP)  ## re-run every notebook in a fresh kernel and store its outputs
	$(BIN)/python tools/execute_notebooks.py $(if $(REFRESH_VOLATILE),--refresh-volatile)

serve: book  ## serve the built book on http://127.0.0.1:8000
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory _build/html

# One page with the whole book, printed by Debian's chromium once MathJax has typeset it.
pdf: $(STAMP) $(MATHJAX)/tex-mml-chtml.js  ## the whole book as one PDF in _build/pdf (needs chromium)
	$(BIN)/jupyter-book build . --builder singlehtml -nW --keep-going
	$(BIN)/python tools/build_pdf.py
	CHECK_PDF=1 $(BIN)/python -m pytest -q tests/test_pdf.py

compat: $(STAMP)  ## slow: lessons' tests and every notebook at pyproject.toml's lower bounds
	$(BIN)/python tools/compat.py

repository:  ## point the book at a fork: make repository URL=https://github.com/OWNER/NAME [BRANCH=main]
	@test -n "$(URL)" || { echo "usage: make repository URL=https://github.com/OWNER/NAME [BRANCH=main]"; exit 2; }
	$(PYTHON) tools/set_repository.py "$(URL)" $(if $(BRANCH),--branch "$(BRANCH)")

clean:  ## remove the built book (keeps .venv)
	rm -rf _build .mathjax
