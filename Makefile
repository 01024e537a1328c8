# The two commands of the README. Everything else is a step they take.
BUILD_DIR ?= build
BUILD_TYPE ?= Release

.PHONY: run test deps configure build clean

run: build
	@./scripts/run-example.sh $(BUILD_DIR)

test: build
	@python3 scripts/run_tests.py --build-dir $(BUILD_DIR)

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
	rm -rf $(BUILD_DIR)
