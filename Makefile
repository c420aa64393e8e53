# GRDBCipher — the README's commands.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Warnings are errors in CI.
ifeq ($(CI),true)
SWIFT_FLAGS += -Xswiftc -warnings-as-errors
endif

.PHONY: deps build test test-plain test-encrypted demo clean fixtures bench

deps:
	@./scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The suite runs twice: on plaintext databases, then with every test database encrypted.
test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory test-plain test-encrypted

test-plain:
	@echo "== tests on plaintext databases"
	GRDBCIPHER_TEST_ENCRYPTION=0 $(SWIFT) test --skip-build $(SWIFT_FLAGS)

test-encrypted:
	@echo "== tests on encrypted databases (GRDBCIPHER_TEST_ENCRYPTION=1)"
	GRDBCIPHER_TEST_ENCRYPTION=1 $(SWIFT) test --skip-build $(SWIFT_FLAGS)

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) GRDBCipherDemo
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./scripts/cli-demo.sh

clean:
	rm -rf .build

# Regenerates Fixtures/ with the sqlcipher command-line tool (see Fixtures/fixtures.json).
fixtures: deps
	python3 Fixtures/generate.py

# Benchmarks (release build), in the sibling Benchmarks/ package.
bench: deps
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && .build/release/PoolBenchmark
	cd Benchmarks && .build/release/RecordBenchmark
