# lorasched developer tasks.  `make test` and `make book` create .venv on first use.
#
#   make test    ruff + pytest on 3 workers (the extra `rl` installed first, requirements-rl.txt):
#                the unit tests, every notebook cell under
#                nbval's rules, the built book in a browser (the notebooks run once for
#                both); then the slowest 30 tests and each phase's wall and CPU time
#   make book    run every figure's cells (lorasched reproduce --size full, resumable, cached
#                in build/sweeps/full), judge every claim once into the ledger (lorasched
#                ledger), execute the notebooks with full parameters (NB_JOBS=2 at a time),
#                then build book/_build/html with the figures' data and the ledger in data/;
#                `make book SIZE=small`: every figure scaled down, in minutes
#                `make book RECOMPUTE=1`: compute the shipped cells too (notebooks/cells)
#   make ship-cells  compute pdFTSP's and TITAN's costly cells here and write them into
#                    notebooks/cells/<system>-<size>.jsonl (SHIP=titan: TITAN's only;
#                    SHIP_SIZES=small: the small build's only, about a minute)
#   make publish make book, then commit book/_build/html to the gh-pages branch (no push)
#   make lint    ruff only
#   make lock    recompile requirements.lock (uv) and environment.yml from pyproject.toml;
#                `make lock UPGRADE=1` moves every pin to the newest version allowed
#   make clean   remove the built book and the executed notebook copies

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Notebooks are executed by papermill inside the venv; the python3 kernel spec shipped
# with ipykernel runs plain `python`, so the venv must come first on PATH.
export PATH := $(abspath $(BIN)):$(PATH)

NOTEBOOKS := $(wildcard notebooks/*.ipynb)
BOOK_NOTEBOOKS := $(patsubst notebooks/%,book/notebooks/%,$(NOTEBOOKS))
LIB_SOURCES := $(shell find lorasched -name '*.py' 2>/dev/null)

# SIZE: the book's size, full (the papers' settings, the default) or small (every figure
# scaled down: minutes, for a quick look or to try `make publish`). Switching it
# re-executes the notebooks (their stamp book/notebooks/.size-$(SIZE) is new).
SIZE ?= full
ifeq ($(filter $(SIZE),full small),)
$(error SIZE must be full or small, got '$(SIZE)')
endif

# Papermill parameters for the book: PARAMS_<name>_<size> if set, else `-p size $(SIZE)`
# for the figure notebooks (fig*, titan_*, allpass_*), the parts' headline pages
# (headline_*), their sensitivity pages (sensitivity_*), the summary, the calibration
# page and the data page (its recount of the ledger), else the notebook's own defaults.
PARAMS_day_full := -p nodes 100 -p load high -p seed 1 -p size full
params = $(or $(PARAMS_$(1)_$(SIZE)),$(if $(filter fig% summary calibration data titan_% allpass_% headline_% sensitivity_%,$(1)),-p size $(SIZE)))

# The cells of every figure, computed once in parallel before the notebooks run; a change
# to the library's source makes the cells' keys change, so they are recomputed. Every
# pdFTSP cell (its Titan and bounds the costliest) and TITAN's MILP policies' cells (four
# fifths of the batch's CPU time) are shipped in notebooks/cells/<system>-full.jsonl and
# taken from there while their keys match the code; RECOMPUTE=1 computes every cell here
# (about 80 min more on 2 cores).
SWEEPS_STAMP := build/sweeps/$(SIZE).stamp
SHIPPED := $(wildcard notebooks/cells/*-$(SIZE).jsonl)
REPRODUCE_FLAGS := $(if $(RECOMPUTE),--no-shipped)
SIZE_STAMP := book/notebooks/.size-$(SIZE)

.DELETE_ON_ERROR:
.PHONY: venv .venv test lint lock book book-html publish notebooks reproduce ship-cells clean distclean FORCE

venv .venv: $(STAMP)

# (Re)install whenever pyproject.toml or the lock changes; create the venv only if it is
# missing. Every package at the lock's exact version, its hash checked, then lorasched
# itself, which the lock leaves out. The lock is installed by uv (14 s against pip's 38 s
# on a 2-core machine, both with a warm cache), which pip installs first; if uv fails (no
# wheel of it, no route to its index), pip installs the lock instead. uv compiles every
# module to bytecode as pip does (--compile-bytecode): where PYTHONDONTWRITEBYTECODE is set
# nothing else would, and every process (each notebook's papermill and kernel, each worker)
# would compile its imports again, 1.9 s a process here.
$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	( $(BIN)/python -m pip install uv && \
	  $(BIN)/uv pip install --python $(BIN)/python --require-hashes --compile-bytecode \
	  -r requirements.lock ) || \
	  $(BIN)/python -m pip install -r requirements.lock
	$(BIN)/python -m pip install --no-deps -e .
	@touch $@

# requirements.lock: the exact version and hashes of every package that pyproject.toml's
# ranges (core, dev and book extras) resolve to for CPython 3.11 on Linux x86_64, compiled
# by uv. Pins that still satisfy pyproject.toml are kept unless UPGRADE is set. Then
# environment.yml is written from it (.ci/lock_env.py).
LOCK_FLAGS := --extra dev --extra book --python-version 3.11 --python-platform linux \
  --generate-hashes --custom-compile-command 'make lock'

lock:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install uv
	$(BIN)/uv pip compile --quiet pyproject.toml $(LOCK_FLAGS) $(if $(UPGRADE),--upgrade) \
	  -o requirements.lock
	$(BIN)/python .ci/lock_env.py requirements.lock environment.yml

lint: $(STAMP)
	$(BIN)/ruff check lorasched tests examples

# One pytest run: the notebooks are executed once (tests/test_notebooks.py checks them
# under nbval's rules, cell by cell, and the built book is made from the same copies), in
# the order tests/conftest.py gives (--no-loadscope-reorder keeps it). The slowest 30
# tests and each phase's wall and CPU time are printed at the end. TEST_WORKERS: pytest-xdist
# workers; 3 on 2 cores, since a worker waits on a notebook's kernel, a browser or a
# subprocess much of the time (from a fresh clone on 2 cores: 3 workers 11 min 50 s with
# 1.60 cores busy, 2 workers 12 min 24 s with 1.46; `make test TEST_WORKERS=2` for two;
# later, on a larger suite, 4 workers 18 min 32 s against 3 workers' 16 min 16 s, both
# with 1.65 cores busy: a fourth worker only adds contention). .ci/cpuacct.py, a pytest
# plugin, writes each test's CPU seconds.
TEST_WORKERS ?= 3
PYTEST_FLAGS ?= -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=30
TIMED := $(BIN)/python .ci/timed.py

# The extra `rl` at the versions of requirements-rl.txt, for the tests that train on the
# environments as an RL user would (Stable-Baselines3, sb3-contrib, torch's CPU build): pip's
# own configuration finds torch's CPU wheel where the machine keeps one (about 20 s here),
# else PyTorch's CPU index is asked (TORCH_CPU_INDEX); PyPI's Linux torch is the CUDA build.
RL_STAMP := $(VENV)/.rl-installed
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

$(RL_STAMP): $(STAMP) requirements-rl.txt
	$(BIN)/python -m pip install -r requirements-rl.txt || \
	  $(BIN)/python -m pip install --extra-index-url $(TORCH_CPU_INDEX) -r requirements-rl.txt
	@touch $@

test: $(STAMP) $(RL_STAMP)
	@$(TIMED) --reset
	$(TIMED) lint $(BIN)/ruff check lorasched tests examples
	$(TIMED) pytest $(BIN)/python -m pytest $(PYTEST_FLAGS) tests; \
	  status=$$?; $(TIMED) --report; exit $$status

reproduce: $(SWEEPS_STAMP)

# lorasched's own bytecode is compiled first, for the same reason (each process then
# imports it ready-made; a stale file is ignored, never wrong)
$(SWEEPS_STAMP): $(STAMP) $(LIB_SOURCES) $(SHIPPED) $(if $(RECOMPUTE),FORCE)
	$(BIN)/python -m compileall -q lorasched
	$(BOOK_TIMED) reproduce $(BIN)/lorasched reproduce --size $(SIZE) $(REPRODUCE_FLAGS)
	@touch $@

FORCE:

# `make ship-cells`: compute each system of SHIP's cells here at each size of SHIP_SIZES
# (none taken from the shipped files), then write its costly ones into
# notebooks/cells/<system>-<size>.jsonl: the full size's for `make book`, the small one's
# (about a minute) for `make test`; run it for the system whose test in
# tests/figures/test_shipped_cells.py fails after a change to the code (`make ship-cells
# SHIP=titan`), and commit the files. To ship more seeds or settings without computing the
# shipped cells again: `lorasched reproduce --size full --system S` (it takes the shipped
# ones), then `lorasched ship-cells --system S --add`.
SHIP ?= pdftsp titan
SHIP_SIZES ?= small full
ship-cells: $(STAMP)
	$(BIN)/python -m compileall -q lorasched
	set -e; for size in $(SHIP_SIZES); do for system in $(SHIP); do \
	  $(BIN)/lorasched reproduce --size $$size --system $$system --no-shipped; \
	  $(BIN)/lorasched ship-cells --size $$size --system $$system; \
	done; done

# The notebooks are executed NB_JOBS at a time (each is one kernel, mostly one core).
NB_JOBS ?= 2

# The figure pages write the data they drew into build/figure-data/$(SIZE)
# (lorasched.figures.datafiles); after the build it is copied into the site as data/, with
# its SHA256SUMS (lorasched.figures.publish).
FIGURE_DATA := build/figure-data/$(SIZE)

# The ledger: every claim of the three papers judged once, on the finished cells, before
# any page runs (lorasched ledger, into build/figure-data/$(SIZE)/ledger.csv); every page
# renders its claims from it, and it is published with the data (`lorasched recount
# DATA_DIR` counts it again from the published files).
LEDGER_STAMP := $(FIGURE_DATA)/.ledger.stamp

$(LEDGER_STAMP): $(STAMP) $(SWEEPS_STAMP) $(LIB_SOURCES)
	$(BOOK_TIMED) ledger $(BIN)/lorasched ledger --size $(SIZE)
	@touch $@

# The API reference (book/api/) documents this checkout's lorasched (PYTHONPATH), whichever
# the venv has installed.
# Each phase's wall and CPU seconds are printed at the end (build/book-times.tsv; a phase
# whose stamp was fresh does not run and has no row).
BOOK_TIMED = TIMED_TABLE=$(CURDIR)/build/book-times.tsv $(BIN)/python .ci/timed.py

book: $(STAMP)
	@mkdir -p build && $(BOOK_TIMED) --reset
	@$(MAKE) --no-print-directory book-html; status=$$?; $(BOOK_TIMED) --report; exit $$status

book-html: $(STAMP) $(SWEEPS_STAMP) $(LEDGER_STAMP) book/_static/plotly.min.js
	$(BIN)/python -m compileall -q lorasched
	$(BOOK_TIMED) notebooks $(MAKE) --no-print-directory -j$(NB_JOBS) notebooks RECOMPUTE=
	$(BOOK_TIMED) html env PYTHONPATH=$(CURDIR) $(BIN)/jupyter-book build book -W -n \
	  --keep-going
	$(BOOK_TIMED) publish $(BIN)/python -c "from lorasched.figures.publish import publish; \
	  names = publish('$(FIGURE_DATA)', 'book/_build/html'); \
	  print(f'{len(names)} data files and SHA256SUMS in book/_build/html/data')"

# `make publish`: the built book (made first if needed) committed to the gh-pages branch
# of this checkout, not pushed (.ci/publish.py checks the site first and says how to push).
publish: book
	$(BIN)/python .ci/publish.py book/_build/html

notebooks: $(BOOK_NOTEBOOKS)

book/notebooks/%.ipynb: notebooks/%.ipynb $(STAMP) $(LIB_SOURCES) $(SWEEPS_STAMP) $(LEDGER_STAMP) $(SIZE_STAMP)
	@mkdir -p $(@D)
	$(BIN)/papermill --kernel python3 --no-progress-bar $< $@ $(call params,$*)

# the size the executed notebooks were run at: the other size's stamp is removed, so that
# switching back re-executes them too
$(SIZE_STAMP):
	@mkdir -p $(@D)
	@rm -f book/notebooks/.size-*
	@touch $@

# plotly.js for offline figures in the book; copied from the installed plotly package.
book/_static/plotly.min.js: $(STAMP)
	@mkdir -p $(@D)
	$(BIN)/python -c "import pathlib, shutil, plotly; \
	  shutil.copyfile(pathlib.Path(plotly.__file__).parent / 'package_data' / 'plotly.min.js', '$@')"

# `clean` keeps the computed cells (build/sweeps: tens of minutes of work); distclean not.
clean:
	rm -rf book/_build book/notebooks book/_static/plotly.min.js build/figure-data

distclean: clean
	rm -rf $(VENV) build
