# Two commands: `make book` builds the book into _build/html, `make test` runs every check.
# Each creates (or reuses) the virtual environment $(VENV) from requirements.lock.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JB := $(BIN)/jupyter-book build . -W -n --keep-going

# Notebooks are executed (make twins) and validated (make nbval, portability) in the
# deterministic environment that scripts/notebooks.py sets itself: DETERMINISTIC_ENV.

.PHONY: book test lint unit twins twins-check notebooks nbval portability book-strict browser \
	lock clean

book: $(STAMP)
	$(JB)
	@echo "Open _build/html/index.html in a browser."

test: lint unit twins-check notebooks book-strict browser
	@echo "make test: all checks passed"

# The native nbval run and the portability run side by side, one per core.
notebooks: $(STAMP)
	$(MAKE) --no-print-directory -j2 --output-sync=target nbval portability

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

unit: $(STAMP)
	$(BIN)/python -m pytest

twins: $(STAMP)
	$(BIN)/python scripts/notebooks.py build

twins-check: $(STAMP)
	$(BIN)/python scripts/notebooks.py check

# Every stored output of every chapter must reproduce ...
nbval: $(STAMP)
	$(BIN)/python scripts/notebooks.py validate

# ... and again as on another machine: NumPy's baseline SIMD level, another libm,
# random floats perturbed by 1e-12 (README: "Portable outputs").
portability: $(STAMP)
	$(BIN)/python scripts/notebooks.py validate --elsewhere

book-strict: $(STAMP)
	$(JB)

# Every page of _build/html in headless Chromium; screenshots in _build/screenshots/.
browser: $(STAMP)
	test -d _build/html || $(JB)
	$(BIN)/python -m pytest -p no:cacheprovider -m browser tests/test_site.py

# Mutation testing (scripts/mutants.py, CONTRIBUTING.md): slow, not part of `make test`.
.PHONY: mutants
mutants: $(STAMP)
	$(BIN)/python scripts/mutants.py

lock:
	rm -rf _build/lockenv
	$(PYTHON) -m venv _build/lockenv
	_build/lockenv/bin/python -m pip install --quiet -r requirements.in
	{ sed -n '1,2p' requirements.lock; _build/lockenv/bin/python -m pip freeze --all \
		| grep -v '^pip==' | sort -f; } > requirements.lock.new
	mv requirements.lock.new requirements.lock
	rm -rf _build/lockenv

clean:
	rm -rf _build .jupyter_cache
