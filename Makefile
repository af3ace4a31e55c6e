# Usual targets. `make demo` runs the main job on the bundled demo data; `make test` runs the tests.
CARGO ?= cargo
export CARGO_INCREMENTAL ?= 0
export CARGO_PROFILE_DEV_DEBUG ?= 0

.PHONY: all build release demo test python-client browser fmt lint bench demo-data catalogs docker conformance clean

all: build

build:
	$(CARGO) build --workspace

release:
	$(CARGO) build --release -p vakra-cli

demo: release
	bash scripts/demo.sh

python-client:
	bash scripts/setup-python.sh

# Chromium and playwright-core for the explorer's browser test (tests/browser/).
browser:
	bash scripts/setup-browser.sh

test: python-client browser
	VAKRA_PYTHON=$(CURDIR)/.venv-test/bin/python VAKRA_REQUIRE_PYTHON=1 VAKRA_REQUIRE_BROWSER=1 $(CARGO) test --workspace

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

bench: release
	bash scripts/bench-rest.sh

# Rebuild the demo databases and catalogs from their sources in demo/.
demo-data: release
	python3 scripts/build_demo_databases.py
	target/release/vakra import --vakra-repo demo --out .

# Needs VAKRA_REF (a reference checkout); see ../shared/conformance/README.md.
conformance: release
	bash scripts/conformance.sh

docker:
	docker compose -f docker/compose.yaml build

clean:
	$(CARGO) clean
