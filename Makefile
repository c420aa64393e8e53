# GRDBCipher — the README's commands.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Warnings are errors in CI.
ifeq ($(CI),true)
SWIFT_FLAGS += -Xswiftc -warnings-as-errors
endif

.PHONY: deps build test test-plain test-encrypted crash-trials crash-trials-short demo clean fixtures bench mirror-test

deps:
	@./scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The suite runs twice: on plaintext databases, then with every test database encrypted.
test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory test-plain test-encrypted crash-trials-short

test-plain:
	@echo "== tests on plaintext databases"
	GRDBCIPHER_TEST_ENCRYPTION=0 $(SWIFT) test --skip-build $(SWIFT_FLAGS)

test-encrypted:
	@echo "== tests on encrypted databases (GRDBCIPHER_TEST_ENCRYPTION=1)"
	GRDBCIPHER_TEST_ENCRYPTION=1 $(SWIFT) test --skip-build $(SWIFT_FLAGS)

# Kills the writing commands at random points and checks that nothing is lost (scripts/crash-trials.sh,
# docs/Reliability.md). `make test` runs the short version.
GRDBCIPHER_BIN = $$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/grdbcipher
crash-trials: deps
	$(SWIFT) build --product grdbcipher $(SWIFT_FLAGS)
	GRDBCIPHER="$(GRDBCIPHER_BIN)" ./scripts/crash-trials.sh 100

crash-trials-short:
	@echo "== crash trials (short)"
	GRDBCIPHER="$(GRDBCIPHER_BIN)" CRASH_TRIALS_MB=20 ./scripts/crash-trials.sh 10

# Builds and runs Integrations/GRDBMirrorTest, a library written for GRDB, through a SwiftPM
# mirror of GRDB.swift to a tagged clone of this checkout's HEAD (scripts/mirror-test.sh).
mirror-test: deps
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./scripts/mirror-test.sh

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) GRDBCipherDemo
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./scripts/cli-demo.sh

clean:
	rm -rf .build

# Regenerates Fixtures/ with the sqlcipher command-line tool (see Fixtures/fixtures.json).
fixtures: deps
	python3 Fixtures/generate.py

# Benchmarks (release build), in the sibling Benchmarks/ package: GRDBCipher and raw SQLCipher C
# in one process, GRDB 7.10 and raw C on the system's SQLite in another, interleaved. Writes the
# table into docs/Performance.md and benchmark-results/latest.md. BENCH_ROUNDS=3 for a quick run.
BENCH_ROUNDS ?= 7
bench: deps
	@./scripts/bench-deps.sh
	cd Benchmarks && $(SWIFT) build -c release $(SWIFT_FLAGS)
	cd Benchmarks/GRDBSide && $(SWIFT) build -c release $(SWIFT_FLAGS)
	@mkdir -p benchmark-results
	Benchmarks/.build/release/BenchmarkDriver --rounds $(BENCH_ROUNDS) \
		--swift-version "$$($(SWIFT) --version 2>&1 | head -n 1)" \
		--output benchmark-results/latest.md --update-doc docs/Performance.md
