# Kiln's front door. `make demo` and `make test` install what they need (Debian
# packages, via apt-get), configure and build, then run.
#
#   make            build the host tool and the runtime (build/kiln; target `kiln`)
#   make demo       the same, then compile examples/cnn, run it on QEMU mps2-an386,
#                   print results (builds nothing else: no test binary)
#   make build-all  every target: the tool, the test binaries, the benchmarks
#   make test       build-all, then every test: unit, end-to-end (host + QEMU), conformance
#   make bench      planner / folding / kernel benchmarks (numbers, not pass/fail)
#   make conformance  the ONNX backend test suite, writes tests/conformance/STATUS.md
#   make conformance-update  same, and rewrites tests/conformance/expected_failures.txt
#   make install    install kiln, its templates, runtime and boards (PREFIX=/usr/local,
#                   DESTDIR= for staging): bin/kiln, share/kiln/{templates,crt,boards}
#   make package    a Debian package of Kiln (build/kiln_<version>_<arch>.deb, a stripped
#                   kiln), installable with `apt install ./build/kiln_*.deb`, and its
#                   debug information (build/kiln-dbgsym_<version>_<arch>.ddeb)
#   make fuzz       libFuzzer over the importer and the whole pipeline for
#                   FUZZ_SECONDS (FUZZ_FORMAT=onnx or tflite, FUZZ_JOBS processes;
#                   clang, ASan+UBSan, its own build dir build-fuzz/); accepted
#                   modules are compiled with -Werror and, when small, run under
#                   ASan/UBSan (once per structure, tests/fuzz/module_oracle.h); writes
#                   build-fuzz/fuzz/FORMAT/report.txt (executions, exec/s, coverage, oracle)
#   make deps       only install the Debian packages

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
KILN := $(BUILD)/kiln

DEB_PACKAGES := cmake ninja-build g++ pkg-config \
  libonnx-dev libprotobuf-dev protobuf-compiler libcli11-dev nlohmann-json3-dev \
  libkainjow-mustache-dev libgtest-dev libgmock-dev \
  qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi \
  libonnx-testdata python3-onnx python3-numpy \
  libflatbuffers-dev flatbuffers-compiler python3-flatbuffers ccache dpkg-dev
# Only `make fuzz` needs these (libFuzzer ships with clang's runtime libraries).
FUZZ_PACKAGES := clang libclang-rt-14-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PREFIX ?= /usr/local

.PHONY: all deps fuzz-deps install-packages configure build build-all demo test bench conformance conformance-update install package fuzz clean

all: build

# Installs only the packages that are missing; a no-op on a prepared machine.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_PACKAGES)"

fuzz-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(FUZZ_PACKAGES)"

install-packages:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "kiln: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja

configure: deps $(BUILD)/build.ninja

# The tool and what it reads at run time (the runtime's kernel index): all that
# `make demo`, `make install` and `make package` need. The ~400 other targets are
# the test binaries and benchmarks; `make test` builds them.
build: configure
	cmake --build $(BUILD) -j $(JOBS) --target kiln

build-all: configure
	cmake --build $(BUILD) -j $(JOBS)

# The demo: compile the bundled PyTorch-exported CNN into user-named pools (64 KiB
# of SRAM for every activation and scratch buffer, the weights in a flash pool),
# then build it for QEMU mps2-an386 (Cortex-M4F), run it and check it against the
# outputs PyTorch computed.
DEMO_POOLS := --with-workspace-buffer "name=sram;size=65536" --with-parameter-buffer "name=flash"
demo: build
	@echo "== kiln compile examples/cnn/model.onnx (a PyTorch-exported CNN)"
	@$(KILN) compile examples/cnn/model.onnx -o $(BUILD)/demo/cnn --module-name cnn $(DEMO_POOLS)
	@echo
	@echo "== kiln verify on QEMU mps2-an386 (Cortex-M4F), outputs vs PyTorch's reference"
	@$(KILN) verify examples/cnn/model.onnx --data examples/cnn/test_data_set_0 \
	    --data examples/cnn/test_data_set_1 --board mps2-an386 --module-name cnn $(DEMO_POOLS) \
	    --show-outputs 10 --work-dir $(BUILD)/demo/verify -q
	@echo
	@echo "The generated module is in $(BUILD)/demo/cnn (metadata.h is its API)."

# KILN_VERIFY_GRAPH=1: every compile a test makes checks the graph's invariants and
# Kiln's operator definitions after every pass (ir/verify_graph.h).
test: build-all
	cd $(BUILD) && KILN_VERIFY_GRAPH=1 ctest -j $(JOBS) --output-on-failure --timeout 1500

bench: build
	cmake --build $(BUILD) --target bench

conformance: build
	cmake --build $(BUILD) --target conformance

conformance-update: build
	cmake --build $(BUILD) --target conformance-update

# DESTDIR is read from the environment by cmake --install.
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/kiln_*.deb

# Fuzzing: every object instrumented (sanitizers abort on the first report, so
# libFuzzer records it); one process at the lowest priority. See tests/fuzz/.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_FORMAT ?= onnx
FUZZ_JOBS ?= 1
# -O1 with line tables: quick to build on a small machine, readable stack traces.
FUZZ_FLAGS := -O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr \
  -fno-sanitize-recover=undefined
fuzz: fuzz-deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DKILN_FUZZ=ON -DCMAKE_BUILD_TYPE=None \
	  "-DCMAKE_C_FLAGS=$(FUZZ_FLAGS)" "-DCMAKE_CXX_FLAGS=$(FUZZ_FLAGS)" \
	  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target kiln_fuzz_$(FUZZ_FORMAT)
	tests/fuzz/run_fuzz.sh $(FUZZ_BUILD) $(FUZZ_FORMAT) $(FUZZ_SECONDS) $(FUZZ_JOBS)

clean:
	rm -rf $(BUILD)
