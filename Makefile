# GRDBCipher — the README's commands.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Warnings are errors in CI.
ifeq ($(CI),true)
SWIFT_FLAGS += -Xswiftc -warnings-as-errors
endif

.PHONY: deps build test test-plain test-encrypted crash-trials crash-trials-short soak soak-short damaged-files check-unsafe service-test macro-test example-test load-test bench-check bench-baseline demo clean fixtures bench mirror-test sanitize sanitize-address sanitize-thread docs docs-coverage docs-check docs-preview

deps:
	@./scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The suite runs twice: on plaintext databases, then with every test database encrypted.
test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory check-unsafe test-plain test-encrypted crash-trials-short soak-short

test-plain:
	@echo "== tests on plaintext databases"
	GRDBCIPHER_TEST_ENCRYPTION=0 $(SWIFT) test --skip-build $(SWIFT_FLAGS)

# The command-line suites (CommandLine*Tests) make their own files, plaintext and encrypted, and
# run the `grdbcipher` command on them: the mode does not change them, so the encrypted run leaves
# them to the plaintext one (they are more than half of the suite's time). ENCRYPTED_SKIP= runs them.
ENCRYPTED_SKIP ?= --skip 'CommandLine'
test-encrypted:
	@echo "== tests on encrypted databases (GRDBCIPHER_TEST_ENCRYPTION=1)"
	GRDBCIPHER_TEST_ENCRYPTION=1 $(SWIFT) test --skip-build $(SWIFT_FLAGS) $(ENCRYPTED_SKIP)

# Kills the writing commands (scripts/crash-trials.sh), then a process writing through the library
# (scripts/library-crash-trials.sh), at random points, and checks that nothing is lost
# (docs/Reliability.md). `make test` runs the short versions.
GRDBCIPHER_BIN = $$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/grdbcipher
TORTURE_BIN = $$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/GRDBCipherTorture
crash-trials: deps
	$(SWIFT) build --product grdbcipher $(SWIFT_FLAGS)
	$(SWIFT) build --product GRDBCipherTorture $(SWIFT_FLAGS)
	GRDBCIPHER="$(GRDBCIPHER_BIN)" ./scripts/crash-trials.sh 100
	TORTURE="$(TORTURE_BIN)" ./scripts/library-crash-trials.sh 200

# Three writer and three reader processes on one encrypted WAL database (scripts/soak.sh): 10
# minutes here, 30 seconds in `make test`.
SOAK_SECONDS ?= 600
soak: deps
	$(SWIFT) build --product GRDBCipherTorture $(SWIFT_FLAGS)
	TORTURE="$(TORTURE_BIN)" ./scripts/soak.sh $(SOAK_SECONDS)

# 1,000 damaged database files and 1,000 damaged WALs (Tests/GRDBCipherTests/Reliability/
# DamagedFileTests.swift; `make test` runs 150 of each). DAMAGE_SEED replays from a seed.
DAMAGE_CASES ?= 1000
DAMAGE_SEED ?= 36000
damaged-files: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	GRDBCIPHER_DAMAGE_CASES=$(DAMAGE_CASES) GRDBCIPHER_DAMAGE_SEED=$(DAMAGE_SEED) GRDBCIPHER_TEST_ENCRYPTION=1 \
		$(SWIFT) test --skip-build --filter DamagedFileTests

# Every Unmanaged, unowned(unsafe) and unsafeBitCast site carries its justification
# (docs/UnsafeCode.md).
check-unsafe:
	./scripts/check-unsafe-sites.sh

soak-short:
	@echo "== multi-process soak (30 s)"
	TORTURE="$(TORTURE_BIN)" ./scripts/soak.sh 30

# The test suite under AddressSanitizer, then ThreadSanitizer, on plaintext databases
# (docs/Reliability.md). Each sanitizer builds in its own directory, beside the usual build.
# SANITIZE_SKIP: tests left out of the sanitized runs, by name (see docs/Reliability.md):
# queryStreamsWithFlatMemory runs the command under `ulimit -v`, which leaves a sanitizer no room
# for its shadow memory. decryptRekeyAndUpgrade and upgrade run the command over the fixtures of
# Fixtures/ (26 cases, processes and key derivations in each): a minute of the sanitized run;
# they run in `make test` (docs/Reliability.md says what only they cover). Leak detection is
# off: LeakSanitizer reports allocations of Foundation's file reading and of XCTest's own
# objects on Linux, not memory errors.
SANITIZE_SKIP ?= --skip 'queryStreamsWithFlatMemory|CommandLineToolTests/(decryptRekeyAndUpgrade|upgrade)\('
sanitize: sanitize-address sanitize-thread

sanitize-address: deps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build-asan $(SWIFT_FLAGS)
	GRDBCIPHER_TEST_ENCRYPTION=0 ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --build-path .build-asan $(SANITIZE_SKIP)

sanitize-thread: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan $(SWIFT_FLAGS)
	GRDBCIPHER_TEST_ENCRYPTION=0 $(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan $(SANITIZE_SKIP)

crash-trials-short:
	@echo "== crash trials (short)"
	GRDBCIPHER="$(GRDBCIPHER_BIN)" CRASH_TRIALS_MB=20 ./scripts/crash-trials.sh 10
	TORTURE="$(TORTURE_BIN)" ./scripts/library-crash-trials.sh 9

# The service integration (Integrations/GRDBCipherService, docs/Service.md): its own package, one
# build, then its tests.
service-test: deps
	cd Integrations/GRDBCipherService && $(SWIFT) build --build-tests $(SWIFT_FLAGS)
	cd Integrations/GRDBCipherService && $(SWIFT) test --skip-build

# The @DatabaseRecord macro (Integrations/GRDBCipherMacros, docs/Macros.md): its expansions,
# its diagnostics, and its records against plaintext and encrypted databases. Warnings are
# errors for the package's own targets (its manifest), not for swift-syntax.
macro-test: deps
	cd Integrations/GRDBCipherMacros && $(SWIFT) build --build-tests
	cd Integrations/GRDBCipherMacros && $(SWIFT) test --skip-build
	cd Integrations/GRDBCipherMacros && GRDBCIPHER_TEST_ENCRYPTION=1 $(SWIFT) test --skip-build

# The example service (Examples/EncryptedNotes, docs/Service.md): one build, then the real
# server driven over HTTP on 127.0.0.1 (scripts/example-test.py): create, search, event
# stream, backup and restore, bytes on disk, SIGTERM, kill -9 during writes. First, the code
# blocks of docs/Service.md must match the example's code (scripts/check-snippets.py).
example-test: deps
	python3 scripts/check-snippets.py
	cd Examples/EncryptedNotes && $(SWIFT) build $(SWIFT_FLAGS)
	python3 scripts/example-test.py Examples/EncryptedNotes/.build/debug/encrypted-notes

# The load figure of the example service (docs/Performance.md): a release build, then wrk on
# loopback against an encrypted and a plaintext database, alternately (scripts/load-test.py).
# A benchmark: not in CI. Needs wrk (Debian's package; installed here if missing).
load-test: deps
	command -v wrk >/dev/null || $$( [ "$$(id -u)" -eq 0 ] || echo sudo ) apt-get install -y -qq wrk
	cd Examples/EncryptedNotes && $(SWIFT) build -c release
	python3 scripts/load-test.py Examples/EncryptedNotes/.build/release/encrypted-notes

# Builds and runs Integrations/GRDBMirrorTest, a library written for GRDB, through a SwiftPM
# mirror of GRDB.swift to a tagged clone of this checkout's HEAD (scripts/mirror-test.sh).
mirror-test: deps
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./scripts/mirror-test.sh

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) GRDBCipherDemo
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./scripts/cli-demo.sh

clean:
	rm -rf .build

# The documentation site (DocC): the catalog Sources/GRDBCipher/GRDBCipher.docc, the guides of
# docs/ turned into articles (scripts/docs-guides.py) and every public symbol, as a static site in
# .docs-site/ (open it with `make docs-preview`). DocC's warnings are errors: a broken symbol link
# or an unresolved topic fails the build. DOCS_BASE_PATH: the path the site is served under, if
# not the root (e.g. GRDBCipher on GitHub Pages). The coverage figure: `make docs-coverage`.
DOCS_SITE = .docs-site
DOCS_BASE_PATH ?=
docs: deps
	python3 scripts/docs-guides.py
	$(SWIFT) package --allow-writing-to-directory $(DOCS_SITE) generate-documentation \
		--target GRDBCipher --output-path $(DOCS_SITE) \
		--transform-for-static-hosting $(if $(DOCS_BASE_PATH),--hosting-base-path $(DOCS_BASE_PATH)) \
		--enable-inherited-docs --warnings-as-errors \
		--experimental-documentation-coverage --coverage-summary-level brief

# Public symbols with a summary, from DocC's coverage output (scripts/docs-coverage.py --list
# names the others).
docs-coverage: docs
	python3 scripts/docs-coverage.py $(DOCS_SITE)

# The site in a real browser (scripts/docs-check.py): served on 127.0.0.1, the landing page, an
# article and three symbol pages loaded in headless Chromium (installed by scripts/docs-deps.sh),
# each with its title rendered and no console error; a screenshot of the landing page in
# .docs-check/. Every public declaration of GRDBCipher must have a summary.
docs-check: docs
	@./scripts/docs-deps.sh
	python3 scripts/docs-coverage.py $(DOCS_SITE) --require 100
	python3 scripts/docs-check.py $(DOCS_SITE) --artifacts .docs-check

# Serves the site on http://127.0.0.1:8000/documentation/grdbcipher/ until interrupted.
docs-preview: docs
	@echo "Open http://127.0.0.1:8000/documentation/grdbcipher/"
	python3 -m http.server 8000 --bind 127.0.0.1 --directory $(DOCS_SITE)

# Regenerates Fixtures/ with the sqlcipher command-line tool (see Fixtures/fixtures.json).
fixtures: deps
	python3 Fixtures/generate.py

# Benchmarks (release build), in the sibling Benchmarks/ package: GRDBCipher and raw SQLCipher C
# in one process, GRDB 7.10 and raw C on the system's SQLite in another, interleaved. Writes the
# table into docs/Performance.md and benchmark-results/latest.md. BENCH_ROUNDS=3 for a quick run.
# Instruction counts of the benchmarks under callgrind against Benchmarks/baseline-instructions.json
# (scripts/bench-check.py): fails when one grows by more than 3%. Not in CI (minutes). Run it
# before committing a change to a hot path; `make bench-baseline` records new counts, committed
# with the change that justifies them.
bench-check: deps
	cd Benchmarks && $(SWIFT) build -c release --product SQLCipherBenchmarks
	python3 scripts/bench-check.py Benchmarks/.build/release/SQLCipherBenchmarks

bench-baseline: deps
	cd Benchmarks && $(SWIFT) build -c release --product SQLCipherBenchmarks
	python3 scripts/bench-check.py Benchmarks/.build/release/SQLCipherBenchmarks --update

BENCH_ROUNDS ?= 7
bench: deps
	@./scripts/bench-deps.sh
	cd Benchmarks && $(SWIFT) build -c release $(SWIFT_FLAGS)
	cd Benchmarks/GRDBSide && $(SWIFT) build -c release $(SWIFT_FLAGS)
	@mkdir -p benchmark-results
	Benchmarks/.build/release/BenchmarkDriver --rounds $(BENCH_ROUNDS) \
		--swift-version "$$($(SWIFT) --version 2>&1 | head -n 1)" \
		--output benchmark-results/latest.md --update-doc docs/Performance.md
