# Two commands: `make book` builds the book into _build/html, `make test` runs every check.
# Each creates (or reuses) the virtual environment $(VENV) from requirements.lock.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JB := $(BIN)/jupyter-book build . -W -n --keep-going

# Every command runs $(BIN)/... directly. A virtual environment activated in the caller's
# shell would only make IPython warn that it is not the one in use (and the tests turn
# warnings into errors), so it is not passed on.
unexport VIRTUAL_ENV

# make book and make test change nothing outside the repository: what pip, Matplotlib,
# IPython, Jupyter and Chromium would cache or configure under $HOME goes to _build/home
# (make clean removes it). Only where things are kept changes, never what is computed.
HOME_DIR := $(CURDIR)/_build/home
export XDG_CACHE_HOME := $(HOME_DIR)/cache
export XDG_CONFIG_HOME := $(HOME_DIR)/config
export XDG_DATA_HOME := $(HOME_DIR)/data
export PIP_CACHE_DIR := $(HOME_DIR)/cache/pip
export MPLCONFIGDIR := $(HOME_DIR)/config/matplotlib
export IPYTHONDIR := $(HOME_DIR)/ipython
export JUPYTER_CONFIG_DIR := $(HOME_DIR)/jupyter
$(shell mkdir -p $(XDG_CACHE_HOME) $(XDG_CONFIG_HOME) $(XDG_DATA_HOME) $(IPYTHONDIR) $(JUPYTER_CONFIG_DIR))

# Notebooks are executed (make twins) and validated (make nbval, portability) in the
# deterministic environment that scripts/notebooks.py sets itself: DETERMINISTIC_ENV.

.PHONY: book test check changed lint unit twins twins-check notebooks nbval reader portability \
	book-strict browser new-chapter \
	pdf pdf-check lock clean

# With TeX installed, the book is built with its PDF (make pdf), which the HTML build
# then serves in _build/html/_downloads/; without TeX, without it (its link is plain text).
book: $(STAMP)
	@if command -v xelatex >/dev/null && command -v latexmk >/dev/null; then \
		$(MAKE) --no-print-directory pdf; \
	else echo "No TeX: building the book without its PDF (make pdf needs: $(TEX_PACKAGES))"; fi
	$(JB)
	@echo "Open _build/html/index.html in a browser."

# The stages of `make test`, each with its budget in seconds on a 2-core machine with the
# venv and the Debian packages in place (CONTRIBUTING.md). `A|B` run side by side, `A,B`
# one after the other (scripts/stages.py): stages that keep one core busy go beside each
# other or beside the two-core unit tests. The run ends with a table of the seconds each
# took, so a slow stage is seen the day it appears.
# The notebooks' two runs lead the two lanes of one entry, the reader's (about 180 s)
# followed by the throwaway chapter (60 s), the portability run (160 s) by the PDF and
# the strict build (90 s): both cores stay busy to the end of the entry.
# Measured in a clean clone (CI=true bash .ci/run, 2026-12-03, 565 s in all): unit 90 s
# beside lint; reader 157 + new-chapter 58 beside portability 152 + pdf 66 + book-strict
# 25 + pdf-check 3. browser, 211 s: the page sweep (about 110 s: axe's audit is 60 s of
# it, the full-page screenshots 25 s) and the live cells of nine chapters, two at a time
# (about 105 s: Pyodide's start, 8 s a chapter, and every runnable shown cell).
STAGES := unit:100|lint:30,twins-check:15 \
	reader:200:reuse,new-chapter:180:reuse|portability:180:reuse,pdf:80:reuse,book-strict:45,pdf-check:10 \
	browser:240

test: $(STAMP)
	$(BIN)/python -m scripts.stages $(foreach stage,$(STAGES),'$(stage)')
	@echo "make test: all checks passed"

# The inner loop for contributors: lint, the twins in sync, the unit tests and nbval of
# only the chapters the change affects (scripts/changed_chapters.py), unit and nbval side
# by side. `make test` still runs everything.
check: $(STAMP)
	$(MAKE) --no-print-directory lint twins-check
	$(MAKE) --no-print-directory -j2 --output-sync=target unit changed

changed: $(STAMP)
	$(BIN)/python -m scripts.notebooks validate --changed

# The reader's path (the native run, as a reader runs the notebooks) and the portability
# run side by side, one per core.
notebooks: $(STAMP)
	$(MAKE) --no-print-directory -j2 --output-sync=target reader portability

# uv (installer.lock, hash-pinned) installs the lock: 23 s where pip took 55 s on 2 cores,
# the same 191 packages (pip freeze, compared). Its cache goes to _build/home/cache/uv.
UV_PIP := $(BIN)/uv pip install --quiet --python $(BIN)/python

$(STAMP): requirements.lock pyproject.toml installer.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r installer.lock
	$(UV_PIP) --require-hashes --compile-bytecode -r requirements.lock
	$(UV_PIP) --no-deps --no-build-isolation -e .
	touch $@

# ruff, then mypy on sinpe/ (pyproject.toml: [tool.mypy]); mypy's cache goes to _build.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --cache-dir _build/mypy

# One pytest worker per core (pytest-xdist, at most 4), a test file to a worker, so a
# module's fixtures (a built wheel, an executed probe notebook) are made once.
unit: $(STAMP)
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile

# The executed twins, then the reader's editions (notebooks/), which take their figure
# and equation numbers from the book's build.
twins: $(STAMP)
	$(BIN)/python -m scripts.notebooks build
	$(JB)
	$(BIN)/python -m scripts.reader_edition build

twins-check: $(STAMP)
	$(BIN)/python -m scripts.notebooks check

# Every stored output of every chapter must reproduce, in this venv (a quick check while
# editing; make test runs the reader's path instead) ...
nbval: $(STAMP)
	$(BIN)/python -m scripts.notebooks validate

# ... as a reader runs them: the notebook download unpacked into an empty folder, a new
# venv with only what its README installs, no thread or hash-seed variables ...
reader: $(STAMP)
	$(BIN)/python -m scripts.notebooks validate --reader

# ... and again as on another machine: NumPy's baseline SIMD level, another libm,
# random floats perturbed by 1e-12 (README: "Portable outputs").
portability: $(STAMP)
	$(BIN)/python -m scripts.notebooks validate --elsewhere

# The strict build, and the reader's editions in step with it and with the twins.
book-strict: $(STAMP)
	$(JB)
	$(BIN)/python -m scripts.reader_edition check

# Every page of _build/html in headless Chromium; screenshots in _build/screenshots/.
# And what a chapter weighs as a reader opens it, cold (tests/test_page_weight.py).
browser: $(STAMP)
	test -d _build/html || $(JB)
	$(BIN)/python -m pytest -p no:cacheprovider -m browser tests/test_site.py tests/test_page_weight.py tests/test_live.py

# A throwaway chapter added on a copy of the tree as a contributor adds one (its twin,
# the book, its reader's edition): the chapter-list checks pass and exactly its files
# change (tests/test_new_chapter.py). A function of the files alone, so reusable.
new-chapter: $(STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider -m slow tests/test_new_chapter.py

# The whole book as one PDF, _build/pdf/sinpe-book.pdf, through LaTeX (Jupyter Book's
# pdflatex builder: sphinx-jupyterbook-latex, which typesets with xelatex). Needs Debian's
# $(TEX_PACKAGES). The LaTeX class asks for bbm.sty, which Debian ships only in
# texlive-fonts-extra (1.4 GB): _config.yml copies a stand-in, book/_latex/bbm.sty.
TEX_PACKAGES := texlive-xetex latexmk texlive-latex-extra texlive-latex-recommended \
	texlive-fonts-recommended fonts-freefont-otf
PDF := _build/pdf/sinpe-book.pdf

pdf: $(STAMP)
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null || \
		{ echo "make pdf needs TeX: sudo apt-get install $(TEX_PACKAGES)"; exit 1; }
	$(JB) --builder pdflatex
	mkdir -p $(dir $(PDF))
	cp _build/latex/sinpe-book.pdf $(PDF)
	@echo "The book as a PDF: $(PDF)"

# The PDF's text (pdftotext, Debian's poppler-utils): title, chapters, a theorem, references.
pdf-check: $(STAMP)
	test -f $(PDF) || $(MAKE) --no-print-directory pdf
	$(BIN)/python -m pytest -p no:cacheprovider -m pdf tests/test_pdf.py

# Mutation testing (scripts/mutants.py, CONTRIBUTING.md): slow, not part of `make test`.
.PHONY: mutants
mutants: $(STAMP)
	$(BIN)/python -m scripts.mutants

# requirements.lock pins every package requirements.in needs, with the sha256 of every file of
# each version on PyPI, for CPython 3.11 on any OS: a universal resolution (uv) also pins the
# packages only Windows or macOS need (colorama, pywinpty, appnope ...) under their markers, which
# pip-compile, resolving for this machine only, would leave out. The versions already in the lock
# are kept and `make lock` adds what requirements.in newly needs; to move one to its newest
# release: make lock LOCK_ARGS="--upgrade-package numpy".
LOCK_ARGS ?=
lock:
	rm -rf _build/lockenv
	$(PYTHON) -m venv _build/lockenv
	_build/lockenv/bin/python -m pip install --quiet --require-hashes -r installer.lock
	_build/lockenv/bin/uv pip compile --universal --python-version 3.11 --generate-hashes \
		--strip-extras --refresh --no-header $(LOCK_ARGS) --output-file requirements.lock requirements.in
	{ printf '%s\n' \
		'# Exact versions for CPython 3.11 on Linux, macOS and Windows, with the sha256 of every file of each on PyPI: generated by' \
		'# `make lock` (uv pip compile --universal --generate-hashes) from requirements.in; installed by pip install --require-hashes -r requirements.lock.'; \
		cat requirements.lock; } > requirements.lock.new
	mv requirements.lock.new requirements.lock
	rm -rf _build/lockenv

clean:
	rm -rf _build .jupyter_cache
