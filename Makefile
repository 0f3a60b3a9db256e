# The front door. `make reproduce` runs the main job, `make test` runs every test.
# Variables: PRESET (a preset of harness/presets/: quick, paper, paper-full, compare; or a
# file.json), RESUME (a run folder to finish), RESULTS (the results folders for `make
# figures`, quoted when several: RESULTS="a b"), FILTER (regex),
# DEVICES (all|0,1), SLURM=1 (`make reproduce` submits to a Slurm cluster: docs/cluster.md) with
# PARTITION (a,b: one GPU model each) and SLURM_ARGS (e.g. '--time 2:00:00 --account x'),
# BUILD (build dir), A and B (two results folders for `make compare`, two run folders for
# `make merge`), OUT (the output folder of `make compare`, `make figures` and `make merge`), SECONDS (each loader fuzz target's time in `make fuzz`) and SEED.

SHELL := /bin/bash
BUILD ?= build
PRESET ?= quick
DEVICES ?= all
JOBS ?= $(shell nproc)
# deps.sh makes $(BUILD)/venv only where python3 lacks a module (its pip may be refused:
# PEP 668); looked up when a recipe runs, as deps.sh may just have made it.
PYTHON ?= $(shell if [ -x $(BUILD)/venv/bin/python ]; then echo $(BUILD)/venv/bin/python; else echo python3; fi)
NVCC := $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
export CUDACXX ?= $(NVCC)
export PATH := $(dir $(NVCC)):$(PATH)

GOALS := all deps cxx-deps python-deps configure build compile test test-cpp test-python sanitize fuzz reproduce figures compare \
  merge clean source-commit
.PHONY: $(GOALS)

# `make figures RESULTS=a b` would make b a goal and drop it from RESULTS: refuse that.
ifneq ($(filter figures,$(MAKECMDGOALS)),)
ifeq ($(strip $(RESULTS)),)
$(error usage: make figures RESULTS=<results folder>, or RESULTS="<folder> <folder> ..." for several GPUs side by side)
endif
stray_folders := $(foreach goal,$(filter-out $(GOALS),$(MAKECMDGOALS)),$(if $(wildcard $(goal)/.),$(goal)))
ifneq ($(stray_folders),)
$(error $(stray_folders) would be read as a make target, not a results folder: quote several folders, make figures RESULTS="$(strip $(RESULTS) $(stray_folders))")
endif
endif

all: build

deps:
	@BUILD=$(BUILD) .ci/deps.sh

cxx-deps:
	@BUILD=$(BUILD) .ci/deps.sh cxx

python-deps:
	@BUILD=$(BUILD) .ci/deps.sh python

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

# compile: the build without the dependency check.
compile: configure
	cmake --build $(BUILD) -j $(JOBS)

build: deps compile

# The C++ side's packages first, then the Python packages install (download and unpacking:
# little CPU; ~40 s on a fresh CI machine) while the C++ compiles (never two apt-get at
# once). Then ctest and pytest side by side (-j2), each one's output shown whole when it ends
# (-O): on a GPU machine pytest's 45 s ran after ctest's 100 s; and a red ctest no longer
# hides pytest.
test:
	@$(MAKE) --no-print-directory cxx-deps
	@$(MAKE) --no-print-directory -j2 compile python-deps
	@echo "make test: ctest and pytest run side by side; each prints its results when it ends"
	@$(MAKE) --no-print-directory -j2 -O test-cpp test-python

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# pytest-xdist, where installed (deps.sh adds it to its venv), runs the Python tests on every core.
# --dist loadgroup keeps each xdist_group on one worker (the real-Slurm tests: one cluster).
XDIST = $(shell $(PYTHON) -c 'import xdist' 2>/dev/null && echo "-n $(JOBS) --dist loadgroup")
test-python:
	$(PYTHON) -m pytest -q $(XDIST)

# Every small case of every GPU test under memcheck, racecheck and initcheck (a GPU machine;
# `make test` runs each tool only where it finds something: tests/run_sanitizer.sh).
sanitize: build
	@for tool in memcheck racecheck initcheck; do \
	  tests/run_sanitizer.sh $$tool $(BUILD)/tests/lb_gpu_tests full > $(BUILD)/sanitize-$$tool.log 2>&1; \
	  status=$$?; tail -1 $(BUILD)/sanitize-$$tool.log; \
	  [ $$status -eq 0 ] || { echo "sanitize: $$tool failed (exit $$status): $(BUILD)/sanitize-$$tool.log"; exit 1; }; \
	done

# The loader fuzz targets (fuzz/), each for SECONDS (`make test` gives them a few seconds).
SECONDS ?= 60
SEED ?= 1
fuzz: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target lb_fuzz
	cd $(BUILD) && LB_FUZZ_SECONDS=$(SECONDS) LB_FUZZ_SEED=$(SEED) \
	  ctest -L fuzz --verbose -j $(JOBS) --timeout $$(( $(SECONDS) + 600 ))
	$(PYTHON) fuzz/results_fuzz.py --seconds $(SECONDS) --seed $(SEED)

reproduce: build
	$(PYTHON) harness/run.py --bin $(BUILD)/layoutbench \
	  $(if $(RESUME),--resume $(RESUME),--preset $(PRESET) $(if $(SLURM),,--devices $(DEVICES)) $(if $(FILTER),--filter '$(FILTER)')) \
	  $(if $(SLURM),--slurm $(if $(PARTITION),--partition $(PARTITION)) $(SLURM_ARGS))

# REPORT.md, the figures and report.html (the same report, self-contained: docs/reports.md),
# into the first results folder or OUT.
figures: python-deps
	$(PYTHON) -m plots $(if $(OUT),--out $(OUT) )$(RESULTS)

# A or B may name a committed reference GPU instead of a folder (B=h100: plots/reference.py;
# REFERENCES=<folder> looks them up elsewhere than results/reference). Writes COMPARE.md and
# report.html (self-contained) under OUT.
compare: python-deps
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=<results folder or reference GPU: h100, h200> B=<results folder or reference GPU: h100, h200> [OUT=<folder>]"; exit 2; }
	$(PYTHON) -m plots.compare $(A) $(B) $(if $(OUT),--out $(OUT)) $(if $(REFERENCES),--references $(REFERENCES))

# One folder, one run.json and report from run folders of one GPU model and one commit (e.g. a
# suite finished on another card): harness/run.py --merge, which refuses the rest in one line.
merge: python-deps
	@test -n "$(A)" -a -n "$(B)" -a -n "$(OUT)" || { echo "usage: make merge A=<run folder> B=<run folder> OUT=<new folder>"; exit 2; }
	$(PYTHON) harness/run.py --merge $(A) $(B) --out $(OUT)

clean:
	rm -rf $(BUILD)

# Records the commit and dirty flag in .source-commit, for copies of the tree without .git
# (e.g. sent to a remote GPU machine); the build reads it when git cannot answer.
source-commit:
	@echo "$$(git rev-parse HEAD) $$(if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then echo true; else echo false; fi)" > .source-commit
	@cat .source-commit
