# Squeeze: build, test and benchmark. `make test` is what CI runs (.ci/run).
SWIFT ?= swift
DEB_PACKAGES := libzmq3-dev zlib1g-dev libdeflate-dev libisal-dev libsqlite3-dev pkg-config gzip iproute2 python3-zmq tcpdump
BIN_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)

.PHONY: all deps build release test fuzz tsan bench bench-quick compose-deps compose-image compose-keys compose-up compose-down compose-submit compose-status compose-test compose-measure clean

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

# The decoder fuzz test at length: FUZZ_ITERATIONS inputs (20 million by default, about 8
# minutes in a debug build on this machine; make test runs 1 million with a fixed seed), from
# FUZZ_SEED (a new one each run by default; the test prints it, so a failure can be replayed).
FUZZ_ITERATIONS ?= 20000000
FUZZ_SEED ?= $(shell date +%s)

fuzz: deps
	$(SWIFT) build --build-tests
	SQUEEZE_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) SQUEEZE_FUZZ_SEED=$(FUZZ_SEED) $(SWIFT) test --skip-build --filter DecoderFuzzTests

# The whole test suite under Thread Sanitizer, with the integration tests driving a TSan-built
# squeeze (SQUEEZE_BIN), so the cluster and compress tests check the real binary too. Every
# report from any process goes to a file under TSAN_REPORTS; the target prints them and fails
# if there is one, or if a test failed. About 5 minutes on this 2-core machine (twice `make test`),
# so it is not part of CI.
TSAN_SCRATCH := .build-tsan
TSAN_REPORTS := $(CURDIR)/$(TSAN_SCRATCH)/reports
TSAN_FLAGS := --sanitize=thread --scratch-path $(TSAN_SCRATCH)

tsan: deps
	$(SWIFT) build --build-tests $(TSAN_FLAGS)
	rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	@status=0; \
	SQUEEZE_BIN="$$($(SWIFT) build $(TSAN_FLAGS) --show-bin-path)/squeeze" \
	TSAN_OPTIONS="log_path=$(TSAN_REPORTS)/tsan halt_on_error=0" \
	  $(SWIFT) test --skip-build --no-parallel $(TSAN_FLAGS) || status=$$?; \
	reports=$$(find $(TSAN_REPORTS) -type f -name 'tsan.*' | sort); \
	if [ -n "$$reports" ]; then \
	  for f in $$reports; do echo "=== $$f"; cat "$$f"; done; \
	  echo "tsan: $$(cat $$reports | grep -c '^WARNING: ThreadSanitizer') reports in $$(echo "$$reports" | wc -l) files under $(TSAN_REPORTS)"; \
	  exit 1; \
	fi; \
	if [ $$status -ne 0 ]; then echo "tsan: no reports, but the tests failed (status $$status)"; exit $$status; fi; \
	echo "tsan: no reports"

# --- compose ------------------------------------------------------------------------------
# docker compose where a Docker engine runs; otherwise podman + podman-compose (installed by
# compose-deps), with the image packed from the host-built binary (no registry here).
WORKERS ?= 3
COMPOSE_FILE := compose/compose.yaml
COMPOSE_VENV := .build/compose-venv
HAVE_DOCKER := $(shell docker info >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_DOCKER),yes)
COMPOSE := docker compose
else
COMPOSE := $(COMPOSE_VENV)/bin/podman-compose --in-pod false
endif

compose-deps:
ifneq ($(HAVE_DOCKER),yes)
	bash compose/podman-setup.sh $(COMPOSE_VENV)
endif

compose-image: compose-deps release
ifeq ($(HAVE_DOCKER),yes)
	$(COMPOSE) -f $(COMPOSE_FILE) build
else
	bash compose/pack-image.sh "$$($(SWIFT) build -c release --show-bin-path)/squeeze" $${SQUEEZE_IMAGE:-squeeze:latest}
endif

RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)/squeeze
COMPOSE_KEYS := compose/keys

# CURVE keys for compose on first use (compose/keys.sh): the coordinator's, the workers', the
# host client's, and the coordinator's allow-list.
compose-keys: release
	bash compose/keys.sh $(RELEASE_BIN) $(COMPOSE_KEYS)

# make compose-up WORKERS=8; data from SQUEEZE_DATA (default compose/data).
compose-up: compose-image compose-keys
	mkdir -p $${SQUEEZE_DATA:-compose/data}
	$(COMPOSE) -f $(COMPOSE_FILE) up -d --scale worker=$(WORKERS)

# The host's client with compose's client key: make compose-submit SRC=/data/photos [ARGS="--level 9"].
CLIENT_KEYS = --coordinator tcp://127.0.0.1:$${SQUEEZE_PORT:-5555} --key $(COMPOSE_KEYS)/client.key --coordinator-key $(COMPOSE_KEYS)/coordinator.pub
compose-submit:
	@[ -n "$(SRC)" ] || { echo "make compose-submit SRC=/data/FOLDER [ARGS=...]"; exit 1; }
	$(RELEASE_BIN) submit $(SRC) $(CLIENT_KEYS) $(ARGS)

compose-status:
	$(RELEASE_BIN) status $(CLIENT_KEYS) $(ARGS)

compose-down:
ifneq ($(HAVE_DOCKER),yes)
	@ids=$$(podman ps -a -q --filter label=io.podman.compose.project=squeeze); \
	if [ -n "$$ids" ]; then podman stop -t 15 $$ids >/dev/null; podman rm -f $$ids >/dev/null; fi
endif
	$(COMPOSE) -f $(COMPOSE_FILE) down -t 15

# The compose test with the real compose file (see compose/test.sh).
compose-test: compose-image
	bash compose/test.sh

# Times one job with 1, 3 and 5 worker containers.
compose-measure: compose-image
	bash compose/test.sh --measure

# The benchmark harness against gzip, pigz and xargs-gzip; writes docs/benchmarks.md.
bench: deps
	bash bench/run.sh

# About a minute: small corpora, one run.
bench-quick: deps
	bash bench/run.sh --quick

clean:
	rm -rf .build $(TSAN_SCRATCH)
