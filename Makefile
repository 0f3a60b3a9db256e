# The front door. `make reproduce` runs the main job, `make test` runs every test.
# Variables: PRESET (quick|paper|file.json), RESUME (a run folder to finish), RESULTS (a
# results folder for `make figures`), FILTER (regex), DEVICES (all|0,1), BUILD (build dir),
# A and B (two results folders for `make compare`, OUT its output folder).

SHELL := /bin/bash
BUILD ?= build
PRESET ?= quick
DEVICES ?= all
JOBS ?= $(shell nproc)
PYTHON ?= python3
NVCC := $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
export CUDACXX ?= $(NVCC)
export PATH := $(dir $(NVCC)):$(PATH)

.PHONY: all deps configure build test test-cpp test-python reproduce figures compare clean source-commit

all: build

deps:
	@.ci/deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	@$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python:
	$(PYTHON) -m pytest -q

reproduce: build
	$(PYTHON) harness/run.py --bin $(BUILD)/layoutbench \
	  $(if $(RESUME),--resume $(RESUME),--preset $(PRESET) --devices $(DEVICES) $(if $(FILTER),--filter '$(FILTER)'))

figures:
	@test -n "$(RESULTS)" || { echo "usage: make figures RESULTS=<results folder> [RESULTS2...]"; exit 2; }
	$(PYTHON) -m plots $(RESULTS)

compare:
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=<results folder> B=<results folder> [OUT=<folder>]"; exit 2; }
	$(PYTHON) -m plots.compare $(A) $(B) $(if $(OUT),--out $(OUT))

clean:
	rm -rf $(BUILD)

# Records the commit and dirty flag in .source-commit, for copies of the tree without .git
# (e.g. sent to a remote GPU machine); the build reads it when git cannot answer.
source-commit:
	@echo "$$(git rev-parse HEAD) $$(if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then echo true; else echo false; fi)" > .source-commit
	@cat .source-commit
