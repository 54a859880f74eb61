# netproof - the README's two commands.  Everything else is CMake.
#   make run      install deps, build Release, run the main job
#   make test     install deps, build, run the test suite (ctest), and
#                 fail when it left files in /tmp
#   make install  build, then install under PREFIX (default /usr/local;
#                 DESTDIR honoured): cmake --install.  Without root:
#                 make install PREFIX=$HOME/.local
#   make package  build, then the Debian package in BUILD (cpack -G DEB)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps test-deps configure build programs run test install package \
        asan tsan clean

PROGRAMS = netproof-bench netproof-report netproof-archive netproof-validate
PROGRAM_PATHS = bench/netproof-bench report/netproof-report \
                archive/netproof-archive schema/netproof-validate

all: build

deps:
	@scripts/install-deps.sh

# Test-only packages come before the configure step: CMake registers the
# tests that need them (python3-jsonschema, rsvg-convert, ...).
test-deps:
	@scripts/install-deps.sh --test

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job needs only the programs, not the test binaries.
programs: configure
	cmake --build $(BUILD) -j $(JOBS) --target $(PROGRAMS)

run: programs
	@scripts/run-main-job.sh $(BUILD)

# The suite runs between two listings of /tmp (scripts/check-tmp-clean.sh,
# a private TMPDIR): a test that leaves np-*, netproof-* or tmp* entries
# behind fails `make test`.
test: test-deps build
	cd $(BUILD) && $(CURDIR)/scripts/check-tmp-clean.sh -- ctest --output-on-failure -j $(JOBS)
	@echo "programs (built, not installed): $(addprefix $(BUILD)/,$(PROGRAM_PATHS))"
	@echo "install them: sudo make install, or make install PREFIX=\$$HOME/.local"

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

package: build
	cd $(BUILD) && cpack -G DEB

asan: test-deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNP_SANITIZE=address
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

tsan: test-deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DNP_SANITIZE=thread
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan build-tsan
