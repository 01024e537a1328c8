# The two commands of the README. Everything else is a step they take.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
SANITIZE_DIR ?= build-sanitize
FUZZ_SECONDS ?= 60

.PHONY: run test deps configure build sanitize-build fuzz clean

run: build
	@./scripts/run-example.sh $(BUILD_DIR)

# The plain build's suite, then the unit, lit and e2e suites again under
# AddressSanitizer and UndefinedBehaviorSanitizer.
test: build sanitize-build
	@python3 scripts/run_tests.py --build-dir $(BUILD_DIR)
	@python3 scripts/run_tests.py --build-dir $(SANITIZE_DIR) --sanitize

sanitize-build: deps
	@./scripts/sanitize-build.sh $(SANITIZE_DIR)

# Each fuzz target for FUZZ_SECONDS (default 60), from the seed corpus.
fuzz: sanitize-build
	@./scripts/fuzz.sh $(SANITIZE_DIR) $(FUZZ_SECONDS)

deps:
	@if [ "$$(id -u)" -eq 0 ]; then ./scripts/install-deps.sh; \
	 elif command -v sudo >/dev/null; then sudo ./scripts/install-deps.sh; \
	 else ./scripts/install-deps.sh; fi

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE); fi

build: configure
	@cmake --build $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
