# The two commands of the README. Each creates what it needs on a fresh machine.
#   make demo   trains a real model on the MNIST sample shipped inside the package
#   make test   lint + the whole test suite (the command .ci/run calls)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# TensorFlow is a test oracle only, in its own venv: webflow never imports it.
TF_VENV := .venv-tf
# tf.estimator's oracle: TensorFlow 2.15 (the last with tf.estimator) runs on Python <= 3.11 (tests/estimator/).
TF215_PYTHON ?= python3.11
TF215_VENV := .venv-tf215
# PyTorch is a benchmark peer only (make bench-cnn), never a dependency.
TORCH_VENV := .venv-torch
# NumPy built without BLAS (as Pyodide's is): a benchmark peer only (make bench-wasm); compiles ~10 min.
NOBLAS_VENV := .venv-numpy-noblas
DATA ?= $(CURDIR)/../shared/data
# protoc, for webflow/protos/*_pb2.py only (make protos): grpcio-tools 1.85.1 bundles protoc 35.1, whose Python code
# needs protobuf >= 7.35.1 (the floor in pyproject.toml: move both together).
PROTOC_VENV := .venv-protoc
GRPCIO_TOOLS := 1.85.1

.PHONY: demo test lint oracle clean bench bench-cnn bench-lm bench-mnist bench-wasm keras-mnist wasm pyodide protos

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,browser]'
	touch $@

$(TF_VENV)/.installed:
	$(PYTHON) -m venv $(TF_VENV)
	$(TF_VENV)/bin/python -m pip install -q --upgrade pip
	# pinned: the oracle's numbers are what the comparison tests' tolerances were measured against
	$(TF_VENV)/bin/python -m pip install -q tensorflow-cpu==2.21.0 tf-keras==2.21.0 numpy tensorboard
	touch $@

$(TORCH_VENV)/.installed:
	$(PYTHON) -m venv $(TORCH_VENV)
	$(TORCH_VENV)/bin/python -m pip install -q --upgrade pip
	$(TORCH_VENV)/bin/python -m pip install -q torch==2.13.0 numpy
	touch $@

$(NOBLAS_VENV)/.installed:
	$(PYTHON) -m venv $(NOBLAS_VENV)
	$(NOBLAS_VENV)/bin/python -m pip install -q --upgrade pip
	$(NOBLAS_VENV)/bin/python -m pip install -q numpy --no-binary numpy \
		-Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none -Csetup-args=-Dallow-noblas=true
	touch $@

oracle: $(TF_VENV)/.installed

$(TF215_VENV)/.installed:
	$(TF215_PYTHON) -m venv $(TF215_VENV)
	$(TF215_VENV)/bin/python -m pip install -q --upgrade pip
	$(TF215_VENV)/bin/python -m pip install -q tensorflow-cpu==2.15.1 tensorflow-estimator==2.15.0
	touch $@

$(PROTOC_VENV)/.installed-$(GRPCIO_TOOLS):
	$(PYTHON) -m venv $(PROTOC_VENV)
	$(PROTOC_VENV)/bin/python -m pip install -q --upgrade pip
	$(PROTOC_VENV)/bin/python -m pip install -q grpcio-tools==$(GRPCIO_TOOLS)
	touch $@

# Regenerates the committed webflow/protos/*_pb2.py from the .proto files beside them (webflow/protos/README.md).
protos: $(PROTOC_VENV)/.installed-$(GRPCIO_TOOLS)
	$(PROTOC_VENV)/bin/python tools/build_protos.py

# webflow's C kernels (native and wasm in Node) vs NumPy with/without BLAS and TensorFlow.js wasm (benchmarks/README.md).
bench-wasm: $(VENV)/.installed $(NOBLAS_VENV)/.installed
	$(PY) benchmarks/wasm_vs_tfjs.py --numpy-noblas-python $(NOBLAS_VENV)/bin/python

# CNN training throughput, webflow next to TensorFlow and PyTorch (benchmarks/README.md).
bench-cnn: $(VENV)/.installed $(TF_VENV)/.installed $(TORCH_VENV)/.installed
	$(PY) benchmarks/cnn_throughput.py --tf-python $(TF_VENV)/bin/python --torch-python $(TORCH_VENV)/bin/python

# The PTB-small word LM on Shakespeare, webflow next to TensorFlow and PyTorch (~15 min on 2 cores; benchmarks/README.md).
bench-lm: $(VENV)/.installed $(TF_VENV)/.installed $(TORCH_VENV)/.installed
	WEBFLOW_DATA=$(DATA) $(PY) benchmarks/word_lm.py --tf-python $(TF_VENV)/bin/python --torch-python $(TORCH_VENV)/bin/python

# The three MNIST tutorials on the full data set (minutes; the CNN about half an hour on 2 cores).
bench-mnist: $(VENV)/.installed
	OPENBLAS_NUM_THREADS=1 $(PY) benchmarks/mnist_softmax.py --data $(DATA)
	OPENBLAS_NUM_THREADS=1 $(PY) benchmarks/mnist_mlp.py --data $(DATA)
	$(PY) benchmarks/mnist_deep_cnn.py --data $(DATA)

# A Keras MNIST CNN fit on the full data (8 epochs, 1-2 minutes on 2 cores): test accuracy and time (>= 99.0%).
keras-mnist: $(VENV)/.installed
	WEBFLOW_DATA=$(DATA) $(PY) benchmarks/keras_mnist_cnn.py $(ARGS)

# Every benchmark (overheads, size sweep, CNN, Keras, LMs, wasm, browser; a missing peer is skipped) into one report:
# benchmarks/report.md + report.json (benchmarks/README.md). An hour or more on 2 cores; ARGS=--quick shortens it.
bench: $(VENV)/.installed $(TF_VENV)/.installed $(TORCH_VENV)/.installed
	WEBFLOW_DATA=$(DATA) $(PY) benchmarks/run_all.py --tf-python $(TF_VENV)/bin/python \
		--torch-python $(TORCH_VENV)/bin/python --data $(DATA) $(ARGS)

demo: $(VENV)/.installed
	# Both cores (webflow's kernel threads + OpenBLAS): 300 steps 14.2 s vs 18.1 s on one thread; with another
	# job hogging a core 10.9 s vs 10.2 s for 150 steps. (The 84 s vs 8 s of old came from OpenBLAS's spinning
	# idle threads, which webflow now tells to sleep: backends/arrays/numpy_arrays.py.)
	$(PY) -m webflow.demo $(ARGS)

lint: $(VENV)/.installed
	$(PY) -m ruff check webflow tests benchmarks tools site lessons/*.py lessons/classroom/*.py

# The wasm side module, rebuilt if a C source changed (exit 1 = no clang/wasm-ld: its tests then skip).
wasm: $(VENV)/.installed
	$(PY) -m webflow.wasm.build --wasm || test $$? -eq 1

# Pyodide in Node for tests/kernels/test_wasm_in_pyodide.py (npm `pyodide`, pinned in package-lock.json).
pyodide:
	@if command -v npm >/dev/null; then cd tests/pyodide && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the wasm-in-Pyodide kernel tests will be skipped"; fi

# TensorFlow.js in Node for tests/keras/test_tfjs_export.py (npm `@tensorflow/tfjs`, pinned in package-lock.json).
.PHONY: tfjs
tfjs:
	@if command -v npm >/dev/null; then cd tests/keras/tfjs && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the TensorFlow.js export tests will be skipped"; fi

# WEBFLOW_REQUIRE_BROWSER=1: a missing chromium, npm, built site or protoc venv fails their tests instead of skipping.
# (.venv-protoc: tests/io/test_protos.py checks the committed *_pb2.py are what the .proto files generate.)
# CI (.ci/run = make test) runs issue 29's two long checks first, each as its own make step with a reduced count
# (by hand, `make soak` and `make test-asan` run the full ones):
#   soak       CI_SOAK_STEPS = 10,000 Session.run + 10,000 eager steps (by hand SOAK_STEPS = 100,000 each)
#   test-asan  ASAN_ARGS=--kernels: the C kernel tests (tests/kernels) under ASan+UBSan (by hand: those, every op
#              table and tests/test_backends.py, and the check that every exported kernel was called)
# then the suite on PYTEST_WORKERS pytest-xdist workers (tests/conftest.py's scheduler: each test file runs whole on
# one worker; the browser + JupyterLab tests and the two lesson-notebook files are one unit each, started first).
CI_SOAK_STEPS := 10000
PYTEST_WORKERS ?= 2
test: $(VENV)/.installed $(TF_VENV)/.installed $(TF215_VENV)/.installed $(PROTOC_VENV)/.installed-$(GRPCIO_TOOLS) \
		lint wasm pyodide tfjs labext site
	$(MAKE) --no-print-directory soak SOAK_STEPS=$(CI_SOAK_STEPS)
	$(MAKE) --no-print-directory test-asan ASAN_ARGS=--kernels
	WEBFLOW_REQUIRE_BROWSER=1 WEBFLOW_TF_PYTHON=$(CURDIR)/$(TF_VENV)/bin/python \
		WEBFLOW_TF215_PYTHON=$(CURDIR)/$(TF215_VENV)/bin/python WEBFLOW_DATA=$${WEBFLOW_DATA:-$(DATA)} \
		$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=30

# Fuzzed readers, the long run (tests/fuzz/README.md; not part of `make test`, whose tests/fuzz/ run is small):
# every hypothesis test with 3000 examples, then coverage-guided atheris (pip-installed here only: a cp311 wheel)
# for FUZZ_SECONDS per reader, seeded from tests/fuzz/corpus/; crashes land in .fuzz-out/<reader>/.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider tests/fuzz
	# property-based op tests (tests/property/README.md): 25x the examples of `make test`, TF slice included
	HYPOTHESIS_PROFILE=fuzz WEBFLOW_TF_PYTHON=$(CURDIR)/$(TF_VENV)/bin/python $(PY) -m pytest -q \
		-p no:cacheprovider tests/property
	$(PY) -m pip install -q atheris
	for target in $$($(PY) tests/fuzz/atheris_readers.py --list); do \
		seeds=$(CURDIR)/tests/fuzz/corpus/$$target; test -d $$seeds || seeds=; \
		mkdir -p .fuzz-out/$$target && cd .fuzz-out/$$target && \
		$(CURDIR)/$(PY) $(CURDIR)/tests/fuzz/atheris_readers.py $$target . $$seeds \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 || exit 1; cd $(CURDIR); done

# Issue 29's per-reader table: every reader of outside bytes (tools/fuzz_targets.py) fed FUZZ_ITERATIONS damaged
# inputs or FUZZ_TABLE_SECONDS, whichever ends first, each in its own process (a segfault counts as a crash);
# prints reader, iterations, unexpected exceptions, hangs, crashes, seconds (tools/fuzz_table.py). Not in `make test`.
FUZZ_ITERATIONS ?= 100000
FUZZ_TABLE_SECONDS ?= 60
.PHONY: fuzz-table
fuzz-table: $(VENV)/.installed
	$(PY) tools/fuzz_table.py --iterations $(FUZZ_ITERATIONS) --seconds $(FUZZ_TABLE_SECONDS)

# The C kernels under AddressSanitizer + UndefinedBehaviorSanitizer (~2 min to build, ~4 min to run here): builds
# webflow/wasm/_build/asan/ (the normal build untouched), then runs tests/kernels, tests/ops and
# tests/test_backends.py against it with every C kernel forced (WEBFLOW_BACKEND=native) and libasan preloaded;
# fails on any sanitizer report or on an exported kernel no test called (tools/test_asan.py). `make test` runs it
# with ASAN_ARGS=--kernels (tests/kernels only); ASAN_ARGS may also be pytest arguments (other tests).
ASAN_ARGS ?=
.PHONY: test-asan
test-asan: $(VENV)/.installed
	$(PY) tools/test_asan.py $(ASAN_ARGS)

# Resident memory flat over SOAK_STEPS Session.run steps and as many eager steps (growth < 5% after warm-up;
# tools/soak.py; ~4 min for 100,000 each here). `make test` runs it with CI_SOAK_STEPS (10,000: ~1 min at load 13);
# its fd-leak check is a test (tests/test_no_fd_leaks.py).
SOAK_STEPS ?= 100000
.PHONY: soak
soak: $(VENV)/.installed
	$(PY) tools/soak.py --steps $(SOAK_STEPS)

# The WebAssembly heap (and Python's object count) flat while the MNIST demo trains SOAK_EPOCHS epochs in headless
# Chromium, in each of its modes: the MLP, the MLP fed by tf.data, the conv net (tests/browser/test_wasm_heap_soak.py;
# growth < 5% after the first epoch). `make test` runs the MLP mode only, also for 20 epochs.
SOAK_EPOCHS ?= 20
.PHONY: soak-browser
soak-browser: $(VENV)/.installed site
	WEBFLOW_REQUIRE_BROWSER=1 WEBFLOW_SOAK_EPOCHS=$(SOAK_EPOCHS) WEBFLOW_SOAK_MODES="mlp tfdata cnn" \
		$(PY) -m pytest -q -s -p no:cacheprovider tests/browser/test_wasm_heap_soak.py

# The static site (site/README.md): webflow's wheel, protobuf's pure-Python wheel (pip-downloaded from PyPI, pinned
# in tools/wheels.py), offline Pyodide, the MNIST demo page, the JupyterLite lessons, all into site/_build/
# (serve: python tests/browser/static_server.py). The browser tests and tests/pyodide/test_protobuf_in_pyodide.py need it.
.PHONY: site
site: $(VENV)/.installed labext
	$(PY) site/build.py

# The JupyterLab extension (labextension/, TypeScript, npm): the versions of package-lock.json, then tsc + the
# prebuilt extension into webflow/lab/labextension/ (shipped in the wheel) + the standalone page bundle
# labextension/dist/webflow-graph.{js,css}. pip install (-e) runs the same build when it is missing.
# `npm install`, not `npm ci`: the registry here lacks some optional platform builds (rollup, rspack) of the
# locked versions, so the lock cannot list them and `npm ci` refuses it; `npm install` keeps the lock as is.
.PHONY: labext
labext:
	cd labextension && npm install --no-audit --no-fund --loglevel=error && npm run build

clean:
	rm -rf $(VENV) $(TF_VENV) $(TORCH_VENV) $(NOBLAS_VENV) $(PROTOC_VENV) build *.egg-info
