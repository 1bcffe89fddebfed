# Squeeze: build, test and benchmark. `make test` is what CI runs (.ci/run).
SWIFT ?= swift
DEB_PACKAGES := libzmq3-dev zlib1g-dev pkg-config gzip
BIN_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)

.PHONY: all deps build release test bench bench-quick clean

all: build

# Installs the system packages the build and tests need, with apt-get, only when missing.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Unit and integration tests (the integration tests start the real binary). Serial, so the
# cluster tests' processes do not compete for this machine's two cores with other suites.
test: deps
	$(SWIFT) build --build-tests
	SQUEEZE_BIN=$(BIN_DIR)/squeeze $(SWIFT) test --no-parallel

# The benchmark harness against gzip, pigz and xargs-gzip; writes docs/benchmarks.md.
bench: deps
	bash bench/run.sh

# About a minute: small corpora, one run.
bench-quick: deps
	bash bench/run.sh --quick

clean:
	rm -rf .build
