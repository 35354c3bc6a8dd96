# The two commands of the README. Each creates what it needs on a fresh machine.
#   make demo   trains a real model on the MNIST sample shipped inside the package
#   make test   lint + the whole test suite (the command .ci/run calls)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# TensorFlow is a test oracle only, in its own venv: webflow never imports it.
TF_VENV := .venv-tf

.PHONY: demo test lint oracle clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

$(TF_VENV)/.installed:
	$(PYTHON) -m venv $(TF_VENV)
	$(TF_VENV)/bin/python -m pip install -q --upgrade pip
	$(TF_VENV)/bin/python -m pip install -q tensorflow-cpu tf-keras numpy
	touch $@

oracle: $(TF_VENV)/.installed

demo: $(VENV)/.installed
	# One BLAS thread: the demo's small matmuls lose to threading overhead on 2 busy cores (84 s vs 8 s measured)
	OPENBLAS_NUM_THREADS=1 $(PY) -m webflow.demo $(ARGS)

lint: $(VENV)/.installed
	$(PY) -m ruff check webflow tests benchmarks

test: $(VENV)/.installed $(TF_VENV)/.installed lint
	WEBFLOW_TF_PYTHON=$(CURDIR)/$(TF_VENV)/bin/python WEBFLOW_DATA=$${WEBFLOW_DATA:-$(CURDIR)/../shared/data} \
		$(PY) -m pytest -q

clean:
	rm -rf $(VENV) $(TF_VENV) build *.egg-info
