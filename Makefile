# Squeeze: build, test and benchmark. `make test` is what CI runs (.ci/run).
SWIFT ?= swift
DEB_PACKAGES := libzmq3-dev zlib1g-dev libdeflate-dev libisal-dev libsqlite3-dev pkg-config gzip tar python3 iproute2 python3-zmq tcpdump groff-base libarchive-tools python3-prometheus-client openssh-server sshfs python3-venv pigz isal libdeflate-tools curl chromium
# make test-browser: a real browser for the live page (make test needs it too, for the offset
# table read by Chromium, so it is in DEB_PACKAGES as well).
BROWSER_PACKAGES := chromium

.PHONY: all deps pydeps build release test test-browser fuzz tsan bench bench-quick compose-deps compose-image compose-keys compose-up compose-down compose-submit compose-status compose-test compose-measure kube-deps kube-image kube-keys kube-validate kube-test stack-config man completions install uninstall install-test clean

all: build

# In a recipe: installs the Debian packages $(1) that are missing, with apt-get.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

# Installs the system packages the build and tests need, with apt-get, only when missing.
deps:
	$(call apt_install,$(DEB_PACKAGES))

build: deps
	$(SWIFT) build

# The release binary links the Swift runtime and Foundation statically: loading and binding
# 15 shared libraries fewer at every start takes about 10 ms off each invocation, which is most
# of a small job (docs/benchmarks.md, "One machine at its limit"). Every release build goes
# through here with the same flags, so nothing builds the package twice.
RELEASE_FLAGS := -c release --static-swift-stdlib
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)/squeeze

# The build runs again only when a source, the manifest or the pins changed since the last
# one: a build with nothing to do still takes about 48 s here (SwiftPM compiles Hummingbird's
# two modules again every time), and CI's later targets all depend on this one.
RELEASE_STAMP := .build/release.stamp
RELEASE_INPUTS := Package.swift $(wildcard Package.resolved) $(shell find Sources -type f 2>/dev/null)

# A binary removed by hand is built again.
ifeq ($(wildcard .build/release/squeeze),)
$(shell rm -f $(RELEASE_STAMP))
endif

release: deps $(RELEASE_STAMP)

$(RELEASE_STAMP): $(RELEASE_INPUTS) | deps
	$(SWIFT) build $(RELEASE_FLAGS)
	@touch $@

# Python tools the tests read squeeze's indexes with (rapidgzip, indexed_gzip), from PyPI into
# a virtual environment under .build, installed only when missing.
PY_VENV := .build/py
PY_PACKAGES := rapidgzip==0.16.2 indexed_gzip==1.10.3

pydeps: deps
	@if ! $(PY_VENV)/bin/python -c 'import rapidgzip, indexed_gzip' 2>/dev/null; then \
	  echo "installing into $(PY_VENV): $(PY_PACKAGES)"; \
	  python3 -m venv $(PY_VENV) && $(PY_VENV)/bin/pip install -q $(PY_PACKAGES); \
	fi

# Unit and integration tests (the integration tests start the real binary), in two passes. The
# suites of pure computation (the engine, the protocol's codecs and its fuzzing, tar, the journal,
# the drop-in's streams) start no cluster and time nothing, so they run in parallel: on two cores
# that halves them. Everything else runs after, each test alone in its shard, so a cluster
# test's processes and a test that times heartbeats and sockets compete with one other test at
# most. Two shards run side by side: run one at a time, those tests kept one core of two busy
# (556 CPU-s in 583 s measured), so together they take about 340 s instead of 570. A shard is
# the test bundle run directly, because two `swift test` runs on one .build wait for each
# other (SwiftPM locks it). SERIAL_SHARD names the suites of the first shard, chosen so both
# take about as long; every other suite, new ones too, runs in the second. Each line of their
# output starts with its shard's number.
# The integration tests start the release binary, the one users install and compose packs:
# what runs is what ships, the serial tests take about 90 s less than with the debug binary
# (551 s against 642), and in CI the install, compose and kube targets reuse the build. So the
# debug build is of the test bundle and what it imports, not of the debug binary (21 s less).
# The log is kept in .build/test.log; on a failure the failing tests' lines are repeated at
# the end, so they are in the last lines CI shows.
PARALLEL_SUITES := SqueezeGzipTests|SqueezeProtocolTests|SqueezeArchiveTests|SqueezeJournalTests|SqueezeDropInTests
SERIAL_SHARD := [./](ClusterTests|CompressResumeTests|ManyFilesTests|NetworkPartitionTests|OffsetTableTests|GzipHabitsTests|CurveTests|HostileVerifierTests)/

# The passes over test bundle $(1) with the environment $(2) exported, the log in $(3) (.log;
# .status and a shard's .shard-N.status beside it). A failure repeats the failing tests' lines
# at the end.
define test_passes
	@rm -f $(3).status $(3).shard-*.status; { status=0; export $(2); bundle="$(1)"; \
	  "$$bundle" --testing-library swift-testing --filter '$(PARALLEL_SUITES)' || status=1; \
	  { "$$bundle" --testing-library swift-testing --no-parallel --filter '$(SERIAL_SHARD)'; \
	    echo $$? > $(3).shard-1.status; } 2>&1 | sed -u 's/^/[1] /' & \
	  { "$$bundle" --testing-library swift-testing --no-parallel --skip '$(PARALLEL_SUITES)' --skip '$(SERIAL_SHARD)'; \
	    echo $$? > $(3).shard-2.status; } 2>&1 | sed -u 's/^/[2] /' & \
	  wait; \
	  for shard in 1 2; do [ "$$(cat $(3).shard-$$shard.status 2>/dev/null)" = 0 ] || status=1; done; \
	  echo $$status > $(3).status; } 2>&1 | tee $(3).log; \
	status=$$(cat $(3).status); \
	if [ "$$status" -ne 0 ]; then echo "--- what failed (the whole log: $(3).log) ---"; grep -aE "recorded an issue|Fatal error|error:" $(3).log | tail -18; fi; \
	exit $$status
endef

test: deps pydeps release
	$(SWIFT) build --product SqueezePackageTests
	$(call test_passes,$(shell $(SWIFT) build --show-bin-path)/SqueezePackageTests.xctest,SQUEEZE_BIN=$(RELEASE_BIN) NO_COLOR=1,.build/test)

# The coordinator's live page in headless Chromium while a real job runs (Tests/browser): the
# workers, the job and a percentage that moves; the screenshot is kept in .build/test-artefacts.
# About a minute after the release build; CI runs it after make test.
test-browser: deps release
	$(call apt_install,$(BROWSER_PACKAGES))
	SQUEEZE_BIN=$(RELEASE_BIN) bash Tests/browser/run.sh

# The decoder fuzz test at length: FUZZ_ITERATIONS inputs (20 million by default, about 8
# minutes in a debug build on this machine; make test runs 1 million with a fixed seed), from
# FUZZ_SEED (a new one each run by default; the test prints it, so a failure can be replayed).
FUZZ_ITERATIONS ?= 20000000
FUZZ_SEED ?= $(shell date +%s)

fuzz: deps
	$(SWIFT) build --build-tests
	SQUEEZE_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) SQUEEZE_FUZZ_SEED=$(FUZZ_SEED) $(SWIFT) test --skip-build --filter DecoderFuzzTests

# The whole test suite under Thread Sanitizer, in make test's passes, with the integration tests
# driving a squeeze built with Thread Sanitizer too (SQUEEZE_BIN), so the cluster and compress
# tests check the real binary. The Swift code is a debug build: built optimised, Swift 6.3.1's
# Thread Sanitizer misses the hand-over of a continuation's result and reports races on values
# our threads hand to tasks (Tests/tsan/continuation-handoff.swift shows it; at -Onone it
# reports none). The C targets, which loop over every byte, are built with -O2 (still
# instrumented). The decoder's fuzz test takes TSAN_FUZZ_ITERATIONS inputs: it runs on one
# thread, so more of them find nothing Thread Sanitizer could. Every report from any process
# goes to a file under TSAN_REPORTS; the target prints them and fails if there is one, or if a
# test failed. Not part of CI: the README says how long it takes.
TSAN_SCRATCH := .build-tsan
TSAN_REPORTS := $(CURDIR)/$(TSAN_SCRATCH)/reports
TSAN_FLAGS := --sanitize=thread --scratch-path $(TSAN_SCRATCH)
TSAN_FUZZ_ITERATIONS ?= 20000
TSAN_ENV := SQUEEZE_BIN=$(CURDIR)/$(TSAN_SCRATCH)/debug/squeeze NO_COLOR=1 SQUEEZE_FUZZ_ITERATIONS=$(TSAN_FUZZ_ITERATIONS) \
  TSAN_OPTIONS="log_path=$(TSAN_REPORTS)/tsan halt_on_error=0"

tsan: deps pydeps
	$(SWIFT) build --build-tests -Xcc -O2 $(TSAN_FLAGS)
	rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	-$(call test_passes,$(CURDIR)/$(TSAN_SCRATCH)/debug/SqueezePackageTests.xctest,$(TSAN_ENV),$(TSAN_SCRATCH)/test)
	@reports=$$(find $(TSAN_REPORTS) -type f -name 'tsan.*' | sort); \
	if [ -n "$$reports" ]; then \
	  for f in $$reports; do echo "=== $$f"; cat "$$f"; done; \
	  echo "tsan: $$(cat $$reports | grep -c '^WARNING: ThreadSanitizer') reports in $$(echo "$$reports" | wc -l) files under $(TSAN_REPORTS)"; \
	  exit 1; \
	fi; \
	if [ "$$(cat $(TSAN_SCRATCH)/test.status 2>/dev/null)" != 0 ]; then echo "tsan: no reports, but the tests failed (the log: $(TSAN_SCRATCH)/test.log)"; exit 1; fi; \
	echo "tsan: no reports"

# --- compose ------------------------------------------------------------------------------
# docker compose where a Docker engine runs; otherwise podman + podman-compose (installed by
# compose-deps), with the image packed from the host-built binary (no registry here).
# What the compose targets take (make VAR=value, or the environment):
#   WORKERS          worker containers (compose-up; 3)
#   SQUEEZE_DATA     the data folder, /data in every container (compose/data; made if missing).
#                    The containers run as its owner (uid and gid), so outputs belong to that
#                    user and the folder needs no chown; SQUEEZE_UID / SQUEEZE_GID override.
#   SQUEEZE_KEYS     the CURVE keys (compose/keys; made on first use)
#   SQUEEZE_PORT     the coordinator's client port on the host (5555)
#   SQUEEZE_HTTP_PORT the coordinator's live page and /metrics on the host (8080), bound to
#                    SQUEEZE_HTTP_BIND (127.0.0.1; 0.0.0.0 to let other machines scrape it)
#   SQUEEZE_IMAGE    the image (squeeze:latest)
#   SQUEEZE_PROJECT  the compose project (squeeze, or $COMPOSE_PROJECT_NAME): another name runs
#                    a second, separate deployment (compose-test does)
WORKERS ?= 3
SQUEEZE_DATA ?= compose/data
SQUEEZE_KEYS ?= compose/keys
SQUEEZE_PORT ?= 5555
SQUEEZE_HTTP_PORT ?= 8080
SQUEEZE_HTTP_BIND ?= 127.0.0.1
SQUEEZE_IMAGE ?= squeeze:latest
SQUEEZE_PROJECT ?= $(or $(COMPOSE_PROJECT_NAME),squeeze)
SQUEEZE_UID ?=
SQUEEZE_GID ?=
COMPOSE_FILE := compose/compose.yaml
COMPOSE_VENV := .build/compose-venv
HAVE_DOCKER := $(shell docker info >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_DOCKER),yes)
COMPOSE := docker compose
else
COMPOSE := $(COMPOSE_VENV)/bin/podman-compose --in-pod false
endif
# Absolute: compose resolves relative paths from compose/, not from here.
DATA_DIR = $(abspath $(SQUEEZE_DATA))
KEYS_DIR = $(abspath $(SQUEEZE_KEYS))
# In a recipe: the uid and gid the containers run as, the data folder's owner's by default.
RUN_UID = $(or $(SQUEEZE_UID),$$(stat -c %u "$(DATA_DIR)" 2>/dev/null))
RUN_GID = $(or $(SQUEEZE_GID),$$(stat -c %g "$(DATA_DIR)" 2>/dev/null))
COMPOSE_ENV = SQUEEZE_DATA="$(DATA_DIR)" SQUEEZE_KEYS="$(KEYS_DIR)" SQUEEZE_PORT="$(SQUEEZE_PORT)" \
  SQUEEZE_HTTP_PORT="$(SQUEEZE_HTTP_PORT)" SQUEEZE_HTTP_BIND="$(SQUEEZE_HTTP_BIND)" \
  SQUEEZE_IMAGE="$(SQUEEZE_IMAGE)" SQUEEZE_UID="$(RUN_UID)" SQUEEZE_GID="$(RUN_GID)"
DC = $(COMPOSE_ENV) $(COMPOSE) -p "$(SQUEEZE_PROJECT)" -f $(COMPOSE_FILE)

compose-deps:
ifneq ($(HAVE_DOCKER),yes)
	bash compose/podman-setup.sh $(COMPOSE_VENV)
endif

# Packs the image again only when the binary or its libraries changed (compose/pack-image.sh).
compose-image: compose-deps release
ifeq ($(HAVE_DOCKER),yes)
	$(DC) build
else
	bash compose/pack-image.sh "$(RELEASE_BIN)" "$(SQUEEZE_IMAGE)"
endif

# CURVE keys for compose on first use (compose/keys.sh): the coordinator's, the workers', the
# host client's, and the coordinator's allow-list; readable by the containers' uid.
compose-keys: release
	mkdir -p "$(DATA_DIR)"
	bash compose/keys.sh "$(RELEASE_BIN)" "$(KEYS_DIR)" $(RUN_UID) $(RUN_GID)

# make compose-up WORKERS=8: starts the deployment, or scales it (even while a job runs).
compose-up: compose-image compose-keys
	$(DC) up -d --scale worker=$(WORKERS)

# The host's client with compose's client key: make compose-submit SRC=/data/photos [ARGS="--level 9"].
CLIENT_KEYS = --coordinator tcp://127.0.0.1:$(SQUEEZE_PORT) --key "$(KEYS_DIR)/client.key" --coordinator-key "$(KEYS_DIR)/coordinator.pub"
compose-submit:
	@[ -n "$(SRC)" ] || { echo "make compose-submit SRC=/data/FOLDER [ARGS=...]"; exit 1; }
	$(RELEASE_BIN) submit $(SRC) $(CLIENT_KEYS) $(ARGS)

compose-status:
	$(RELEASE_BIN) status $(CLIENT_KEYS) $(ARGS)

# Stops and removes every container, network and volume of the project, however many workers
# it was scaled to. podman-compose 1.6's `down` knows only the replicas the file declares, so
# with podman compose/podman-down.sh does it by the project's label.
compose-down:
ifeq ($(HAVE_DOCKER),yes)
	$(DC) down -t 15 --volumes --remove-orphans
else
	bash compose/podman-down.sh "$(SQUEEZE_PROJECT)"
endif

# The compose test with the real compose file and these very targets (see compose/test.sh).
compose-test: compose-image
	SQUEEZE_IMAGE="$(SQUEEZE_IMAGE)" bash compose/test.sh

# Times one job with 1, 3 and 5 worker containers.
compose-measure: compose-image
	SQUEEZE_IMAGE="$(SQUEEZE_IMAGE)" bash compose/test.sh --measure

# --- Kubernetes ---------------------------------------------------------------------------
# deploy/kubernetes: a kustomize deployment (base/, the keys/ component) and overlays (the
# autoscalers, and local for podman kube play). See docs/operations.md, "Running on Kubernetes".
#   KUBE_KEYS   where kube-keys makes the CURVE keys the Secrets are generated from
#               (deploy/kubernetes/keys, ignored by git; the test makes its own elsewhere)
KUBE_KEYS ?= deploy/kubernetes/keys
KUBE_VENV := .build/kube-venv
# overlays/local names this image; kube-image packs it from the release binary.
KUBE_IMAGE := localhost/squeeze-kube-test:latest

# podman (as for compose without a Docker engine) and kubernetes-validate from PyPI in a
# virtual environment, each only when missing; kubectl (for kubectl kustomize) must be there.
kube-deps:
	bash compose/podman-setup.sh $(COMPOSE_VENV)
	@command -v kubectl >/dev/null || { echo "kube-deps: kubectl is needed (kubectl kustomize)"; exit 1; }
	@if [ ! -x $(KUBE_VENV)/bin/kubernetes-validate ]; then \
	  echo "kube-deps: installing kubernetes-validate 1.37.0 into $(KUBE_VENV)"; \
	  python3 -m venv $(KUBE_VENV) && $(KUBE_VENV)/bin/pip install -q kubernetes-validate==1.37.0; \
	fi

kube-image: kube-deps release
	bash compose/pack-image.sh "$(RELEASE_BIN)" "$(KUBE_IMAGE)"

# The CURVE keys with squeeze keygen (compose/keys.sh): coordinator, worker and client pairs
# and authorized/, owned by you; keys/kustomization.yaml makes the Secrets of them.
kube-keys: release
	bash compose/keys.sh "$(RELEASE_BIN)" "$(KUBE_KEYS)" $$(id -u) $$(id -g)

# Renders deploy/kubernetes and every overlay and validates them offline (a few seconds).
kube-validate: kube-deps kube-keys
	bash deploy/kubernetes/validate.sh deploy/kubernetes $(KUBE_VENV) .build/kube-rendered

# Renders, validates, and runs overlays/local for real with podman kube play: a coordinator,
# two workers, a job from the host, a worker deleted mid-job, all torn down (deploy/kubernetes/test.sh).
kube-test: kube-image
	KUBE_VENV=$(KUBE_VENV) bash deploy/kubernetes/test.sh

# --- Docker Swarm -------------------------------------------------------------------------
# compose/stack.yaml as `docker stack deploy` reads it: the docker CLI parses and interpolates
# it, no engine needed (there is none here, so this is what is checked of the stack).
stack-config:
	@command -v docker >/dev/null || { echo "stack-config: the docker CLI is needed"; exit 1; }
	docker stack config -c compose/stack.yaml >/dev/null
	@echo "stack-config: docker stack config accepts compose/stack.yaml"

# --- installation -------------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: the release binary, its bash, zsh and fish
# completions and its man page, both generated from the binary by swift-argument-parser.
# make uninstall [PREFIX=...] [DESTDIR=] removes them.
PREFIX ?= /usr/local
GENERATED := .build/share
# Where generate-manual writes.
MANUAL_OUT := .build/share/manual
INSTALLED := bin/squeeze share/man/man1/squeeze.1 share/bash-completion/completions/squeeze \
  share/zsh/site-functions/_squeeze share/fish/vendor_completions.d/squeeze.fish

# squeeze.1 by swift-argument-parser's generate-manual tool (a dependency already, so this
# works offline), built with the release flags and run on the release binary: it renders the
# binary's `--experimental-dump-help` as an mdoc page. (The package plugin of the same name
# would build the whole package again without the release flags.)
man: release
	$(SWIFT) build $(RELEASE_FLAGS) --product generate-manual
	rm -rf $(MANUAL_OUT) && mkdir -p $(MANUAL_OUT) $(GENERATED)
	$(dir $(RELEASE_BIN))generate-manual $(RELEASE_BIN) --output-directory $(MANUAL_OUT) >/dev/null
	cp $(MANUAL_OUT)/squeeze.1 $(GENERATED)/squeeze.1

completions: release
	mkdir -p $(GENERATED)
	for shell in bash zsh fish; do $(RELEASE_BIN) --generate-completion-script $$shell > $(GENERATED)/squeeze.$$shell || exit 1; done

install: release man completions
	install -D -m 0755 $(RELEASE_BIN) "$(DESTDIR)$(PREFIX)/bin/squeeze"
	install -D -m 0644 $(GENERATED)/squeeze.1 "$(DESTDIR)$(PREFIX)/share/man/man1/squeeze.1"
	install -D -m 0644 $(GENERATED)/squeeze.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/squeeze"
	install -D -m 0644 $(GENERATED)/squeeze.zsh "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_squeeze"
	install -D -m 0644 $(GENERATED)/squeeze.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/squeeze.fish"

uninstall:
	rm -f $(addprefix "$(DESTDIR)$(PREFIX)/,$(addsuffix ",$(INSTALLED)))

# make install into a temporary DESTDIR, checked: every file there, the man page renders, the
# completions load, make uninstall removes them (scripts/install-test.sh; run by .ci/run).
install-test: deps
	bash scripts/install-test.sh

# The benchmark harness against gzip, pigz and xargs-gzip; writes docs/benchmarks.md.
bench: deps pydeps
	bash bench/run.sh

# About a minute: small corpora, one run.
bench-quick: deps pydeps
	bash bench/run.sh --quick

clean:
	rm -rf .build $(TSAN_SCRATCH)
