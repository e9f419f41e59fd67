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
# On x86-64 Linux, PyPI's torch wheel is the CUDA build with several GB of unpinned nvidia-*
# packages. The install takes the pinned torch alone from PyTorch's CPU index first (`+cpu`,
# exact), then the rest from PyPI. For a CUDA build: TORCH_INDEX=https://download.pytorch.org/whl/cu126
# (that index's build), or TORCH_INDEX= (PyPI's own wheel, with its nvidia-* packages). On ARM
# Linux (aarch64), macOS and Windows, PyPI's wheel is already the CPU build (no `+cpu` wheel exists).
TORCH_INDEX ?= $(if $(and $(filter Linux,$(shell uname -s)),$(filter x86_64,$(shell uname -m))),https://download.pytorch.org/whl/cpu)
TORCH_PIN := $(shell grep -m1 -o '^torch==[0-9][0-9a-z.]*' $(REQUIREMENTS))
# `make lab` serves the repository and opens the file browser in LAB_DIR: the reader notebooks
# (`make notebooks`: the prose reads there as in the book). Authors editing the sources: LAB_DIR=book.
LAB_DIR ?= _build/notebooks
LAB_ARGS ?=

.PHONY: help bench-pages book check test nbval colab-check execute lint serve lab notebooks assignments grade clean pdf compat repository weights

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install whenever the pins or the package metadata change.
$(STAMP): $(REQUIREMENTS) pyproject.toml | $(BIN)/python
	$(if $(and $(TORCH_INDEX),$(TORCH_PIN)),$(BIN)/python -m pip install --disable-pip-version-check \
		--no-deps --index-url $(TORCH_INDEX) $(TORCH_PIN)+$(notdir $(TORCH_INDEX:%/=%)))
	$(BIN)/python -m pip install --disable-pip-version-check -r $(REQUIREMENTS)
	touch $@

# MathJax is served from the book itself, so math is typeset offline.
$(MATHJAX)/tex-mml-chtml.js: package.json package-lock.json
	npm ci --no-audit --no-fund
	rm -rf .mathjax && mkdir -p $(MATHJAX)/output/chtml
	cp node_modules/mathjax/es5/tex-mml-chtml.js $(MATHJAX)/
	cp -r node_modules/mathjax/es5/output/chtml/fonts $(MATHJAX)/output/chtml/

# The book loads MathJax's components rather than the combined file (the slides' copy): the
# combined file carries the context menu, which _config.yml turns off, and weighs 1.17 MB;
# these weigh 0.76 MB (TeX in, CommonHTML out, its font, and MathML for screen readers).
MATHJAX_PARTS := startup.js core.js input/tex.js output/chtml.js a11y/assistive-mml.js
$(MATHJAX)/startup.js: $(MATHJAX)/tex-mml-chtml.js
	cd node_modules/mathjax/es5 && cp --parents $(MATHJAX_PARTS) $(CURDIR)/$(MATHJAX)/
	touch $@

book: $(STAMP) $(MATHJAX)/startup.js  ## build the HTML book into _build/html
	$(BIN)/jupyter-book build . --builder html -nW --keep-going
	@echo "The book is at $(CURDIR)/_build/html/index.html"

# A benchmark, not a test: the numbers vary with the machine (kit/bench_pages.py says what
# each column measures).
bench-pages: book  ## first paint, widget-ready time, bytes and keystroke cost of chapter 12 and the explorer, fast and slow
	$(BIN)/python -m kit bench-pages

# Two test workers run two notebooks at once: with one thread each, torch and NumPy do not
# start a second thread apiece to fight over a 2-core machine's cores (the whole book runs
# about 5 s faster there). A reader running one chapter keeps every core.
NOTEBOOK_THREADS := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

lint: $(STAMP)  ## ruff: the lint rules and the formatting, over the code and the notebooks
	$(BIN)/ruff check lessons tests kit _ext book
	$(BIN)/ruff format --check lessons tests kit _ext book

# The fast loop: the tests of the first tier (CONTRIBUTING.md, "Tests, in two tiers"), chosen by
# marker: none starts a kernel or a browser or reads the built book (tests/conftest.py fails one
# that does unmarked). Under two minutes on 2 cores; the 10 slowest are printed.
FAST_TESTS := not (kernel or browser or built_book or slow)
check: lint  ## the fast loop, under 2 minutes: lint, lessons, the checks, the guards, the kit on a fixture book
	$(NOTEBOOK_THREADS) $(BIN)/python -m pytest -n 2 -m "$(FAST_TESTS)" --durations=10 $(PYTEST_ARGS)

# The browser tests drive the built book, so the tests build it first. The 25 slowest are printed.
test: $(STAMP) lint book  ## run every test: lessons, notebook guards, lint, nbval, and the browser
	$(NOTEBOOK_THREADS) $(BIN)/python -m pytest -n 2 --dist loadfile --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg --durations=25 $(PYTEST_ARGS)

# The notebooks alone, as a second machine checks them (CI's ARM job): no book, no browser.
nbval: $(STAMP)  ## run every notebook and compare it with its stored outputs (a part of `make test`)
	$(NOTEBOOK_THREADS) $(BIN)/python -m pytest -n 2 --dist loadfile --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg book tests/test_stored_precision.py

colab-check: $(STAMP)  ## slow: run every notebook in a fresh venv holding only Colab's packages
	COLAB_LIKE=1 $(BIN)/python -m pytest tests/test_colab_like.py -n 2 --dist load

# Plain-Jupyter copies of the notebooks, for Colab, Binder and JupyterLab (no kernel runs).
notebooks: $(STAMP)  ## write the reader notebooks (MyST turned into plain Markdown) into _build/notebooks
	$(BIN)/python -m kit notebooks

# For a class: each chapter without its exercises' solutions, and the teacher's copy with them.
assignments: $(STAMP)  ## write student notebooks (no solutions) and their solutions into _build/assignments
	$(BIN)/python -m kit assignments

# Submissions are code: grade an untrusted class with `make grade-sandboxed` (no network, nothing of
# yours visible), or inside a container or a VM. TIMEOUT: seconds per cell (default 60);
# NOTEBOOK_TIMEOUT: per notebook (default 600); JOBS: notebooks run at once (default: the CPUs);
# POINTS: a points file (kit/grading/points.py); STUDENT: regrade one student into a new run.
GRADE_ARGS = $(strip $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(NOTEBOOK_TIMEOUT),--notebook-timeout $(NOTEBOOK_TIMEOUT)) \
	$(if $(JOBS),--jobs $(JOBS)) $(if $(POINTS),--points "$(POINTS)") $(if $(STUDENT),--student "$(STUDENT)"))
grade: $(STAMP)  ## grade submitted notebooks, naming each mistake: make grade SUBMISSIONS=folder [POINTS=file]
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=folder [TIMEOUT=60] [JOBS=2] [POINTS=points.toml] [STUDENT=name] (runs the students' code)"; exit 2; }
	$(BIN)/python -m kit grade "$(SUBMISSIONS)" $(GRADE_ARGS)

# The same, inside bubblewrap: no network, the system and the course read-only, a private /tmp,
# no home folder, as the unprivileged user nobody; only the submissions folder is writable.
# A benchmark, not a test: 30 notebooks of chapter 7 graded once; prints the wall time, the CPU
# time of the grader and its kernels, the load, and the time on idle cores (kit/bench_grade.py).
.PHONY: bench-grade
bench-grade: $(STAMP)  ## time `make grade` on a class of 30 notebooks of chapter 7 (JOBS=N)
	$(BIN)/python -m kit bench-grade $(if $(JOBS),--jobs $(JOBS))

.PHONY: grade-sandboxed
grade-sandboxed: $(STAMP)  ## grade an untrusted class in a sandbox (needs bwrap): make grade-sandboxed SUBMISSIONS=folder
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade-sandboxed SUBMISSIONS=folder [...as make grade]"; exit 2; }
	kit/grade_sandbox.sh "$(SUBMISSIONS)" $(GRADE_ARGS)

execute: $(STAMP)  ## re-run every notebook in a fresh kernel, store its outputs, re-measure its figures' text
	$(BIN)/python -m kit execute $(if $(REFRESH_VOLATILE),--refresh-volatile)
	$(MAKE) --no-print-directory figure-text

# The smallest text in every stored figure, from one more run of each notebook with figures
# (kit/figure_text.py), into tests/figure_text.json, which tests/test_phone.py reads; a figure
# that changed needs it, so `make execute` runs it after storing the outputs.
.PHONY: figure-text
figure-text: $(STAMP)  ## re-measure the text size of every stored figure (tests/figure_text.json)
	$(BIN)/python -m kit figure-text

serve: book  ## serve the built book on http://127.0.0.1:8000
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory _build/html

# Root (a container) must say --allow-root; LAB_ARGS=--no-browser only prints the URL.
lab: $(STAMP) notebooks  ## open the chapters (reader notebooks) in JupyterLab, with .venv as the kernel
	$(BIN)/jupyter lab --ContentsManager.preferred_dir=$(LAB_DIR) \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# One page with the whole book, printed by Debian's chromium once MathJax has typeset it.
pdf: $(STAMP) $(MATHJAX)/startup.js  ## the whole book as one PDF in _build/pdf (needs chromium)
	$(BIN)/jupyter-book build . --builder singlehtml -nW --keep-going
	$(BIN)/python -m kit pdf
	CHECK_PDF=1 $(BIN)/python -m pytest -q tests/test_pdf.py

# For a class: one reveal.js deck per chapter, from the cells each chapter tags for slides
# (docs/slides.md). reveal.js and MathJax are copied beside the decks: they open
# from disk or any web server, with nothing fetched from the network.
.PHONY: slides
slides: $(STAMP) $(MATHJAX)/tex-mml-chtml.js  ## write one offline reveal.js deck per chapter into _build/slides
	@test -f node_modules/reveal.js/dist/reveal.js || npm ci --no-audit --no-fund
	$(BIN)/python -m kit slides

compat: $(STAMP)  ## slow: lessons' tests and every notebook at pyproject.toml's lower bounds
	$(BIN)/python -m kit compat

# The pages that list the chapters, from the course model (kit/course.py): the instructor's guide's
# per-chapter part (with the checks' catalogue of mistakes) and the intro's outcomes and chapter table;
# the cheat sheet and the notation page are checked against the chapters.
.PHONY: guide
guide: $(STAMP)  ## rewrite the generated parts of book/instructor_guide.md and book/intro.md (tests/test_instructor_guide.py, tests/test_chapter_lists.py)
	$(BIN)/python -m kit guide
	$(BIN)/python -m kit intro

# Chapter 12's checkpoints: 8000 steps, 40 to 70 minutes on 2 shared CPU cores (one thread), deterministic from the seed.
weights: $(STAMP)  ## retrain chapter 12's language model and rewrite lessons/lm_weights/
	$(BIN)/python -m kit weights

repository:  ## point the book at a fork: make repository URL=https://github.com/OWNER/NAME [BRANCH=main]
	@test -n "$(URL)" || { echo "usage: make repository URL=https://github.com/OWNER/NAME [BRANCH=main]"; exit 2; }
	$(PYTHON) -m kit repository "$(URL)" $(if $(BRANCH),--branch "$(BRANCH)")

clean:  ## remove the built book (keeps .venv)
	rm -rf _build .mathjax
