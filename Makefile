# pp - one non-recursive Makefile. `make V=1` shows full commands.
# Build output goes to $(O) (default build/); `make test_asan` uses build/asan.

O        ?= build
SHELL    := /bin/bash
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
WERROR   ?=
SAN      ?=

# `make run`, `make test`, `make test-stress` and `make check-fresh` install
# the Debian packages first and build in a sub-make, so that nothing computed
# from an installed package (pkg-config's flags below) is read before the
# packages are there. Any other goal, on a machine without them, stops with
# one line that names what is missing and the command that installs it.
SETUP_GOALS := run test test-stress check-fresh deps clean
# Builds use every CPU unless -j says otherwise (a -j on the command line wins).
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(shell nproc)
endif
ifeq ($(MAKELEVEL),0)
  ifneq ($(filter-out $(SETUP_GOALS),$(or $(MAKECMDGOALS),all)),)
    MISSING_PKGS := $(shell scripts/install-deps.sh --check)
    ifneq ($(MISSING_PKGS),)
      $(error missing Debian packages: $(MISSING_PKGS); 'make deps' (as root) installs them, as 'make run' and 'make test' do)
    endif
  endif
endif

ifeq ($(V),1)
  Q =
  msg =
else
  Q = @
  msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wpointer-arith -Wmissing-prototypes \
	    -Wno-unused-parameter -Wformat=2 -Wundef
CFLAGS   ?= -O2 -g
ALL_CFLAGS := $(CFLAGS) -std=gnu11 $(WARNINGS) $(if $(WERROR),-Werror) -Iinclude -I$(O) \
	    -D_GNU_SOURCE -MMD -MP $(shell pkg-config --cflags libtraceevent libtracefs 2>/dev/null)
ifneq ($(SAN),)
  ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  SAN_LDFLAGS := -fsanitize=address,undefined
endif
# The two tools are linked with link-time optimisation: a replayed event
# crosses five files (session, module, print plan, decimal writer, output)
# and LTO inlines across them (pp-analyze trace: 4% fewer instructions, 5%
# less time). Objects are fat, so tests and other programs link them
# without it. LTO=  (empty) turns it off; sanitized builds never use it.
LTO ?= -flto=auto -ffat-lto-objects
ifneq ($(SAN),)
  LTO :=
endif
ALL_CFLAGS += $(LTO)
LDLIBS_FORMAT := -ltraceevent -llz4 -lzstd
# The tools link their libraries statically: pp-analyze is started once per
# analysis, and resolving seven shared libraries was half of its start-up.
LDLIBS_ALL    := -Wl,-Bstatic -ltracefs -ltraceevent -lbpf -ldw -lelf -lprotobuf-c -lz -llz4 -lzstd -llzma -lbz2 -liberty \
		 -Wl,-Bdynamic \
		 -lpthread -lm -ldl

FORMAT_SRCS   := $(wildcard format/*.c)
RECORD_SRCS   := $(wildcard record/*.c)
REPLAY_SRCS   := $(wildcard replay/*.c) $(wildcard analyzers/*.c)
TEST_SRCS     := $(wildcard tests/test-*.c)
HELPER_SRCS   := $(wildcard tests/helpers/*.c)
# generated from analyzers/pprof.proto (rules below)
PB_C   := $(O)/analyzers/pprof.pb-c.c
PB_OBJ := $(O)/analyzers/pprof.pb-c.o
HELPER_CXX_SRCS := $(wildcard tests/helpers/*.cc)

obj = $(patsubst %.c,$(O)/%.o,$(1))

FORMAT_LIB := $(O)/libpp-format.a
RECORD_LIB := $(O)/libpp-record.a
REPLAY_LIB := $(O)/libpp-replay.a
PROGS      := $(O)/pp-record $(O)/pp-analyze
# Libraries a recorded COMMAND loads (pp_workload__lib() finds them beside
# the programs): the sampled heap profiler's interposer.
PRELOADS   := $(O)/libpp-heap.so
TESTS      := $(patsubst tests/%.c,$(O)/tests/%,$(TEST_SRCS))
HELPERS    := $(patsubst tests/helpers/%.c,$(O)/tests/helpers/%,$(HELPER_SRCS)) \
	      $(patsubst tests/helpers/%.cc,$(O)/tests/helpers/%,$(HELPER_CXX_SRCS))

# BPF programs: bpf/<probe>.bpf.c -> <probe>.skel.h, listed here.
PROBES := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
SKELS  := $(patsubst %,$(O)/bpf/%.skel.h,$(PROBES))

.SECONDARY:
# A failed recipe leaves no file behind (bpftool gen skeleton > $@ would leave an empty one).
.DELETE_ON_ERROR:
.PHONY: all clean check-layers test test-nodeps test-stress check-fresh test-bins test_unit test_asan fuzz fuzz-reader \
	fuzz-replay fuzz-cov run bench deps install
all: $(PROGS) $(PRELOADS) $(HELPERS)

$(O)/%.o: %.c | $(SKELS)
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(FORMAT_LIB): $(call obj,$(FORMAT_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(RECORD_LIB): $(call obj,$(RECORD_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(REPLAY_LIB): $(call obj,$(REPLAY_SRCS)) $(PB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

LIBS := $(REPLAY_LIB) $(RECORD_LIB) $(FORMAT_LIB)

# The tools are static PIEs, libc included: no dynamic loader at start-up
# (1.4 ms of each run here). Sanitized builds cannot be static. Their 6,000
# relocations are packed (DT_RELR: 1.4 KiB instead of 143 KiB to read at
# start-up, 0.1-0.2 ms of each run here); a non-PIE link would save 0.5 ms but
# drop ASLR from a parser of files that come with bug reports.
TOOL_LDFLAGS := $(if $(SAN),$(SAN_LDFLAGS),-static-pie -Wl,-z,pack-relative-relocs)
TOOL_LDLIBS  := $(if $(SAN),$(LDLIBS_ALL),-ltracefs -ltraceevent -lbpf -ldw -lelf -lprotobuf-c -lz -llz4 -lzstd \
		-llzma -lbz2 -liberty -lpthread -lm -ldl)
# libtraceevent's plugin loader (never called by pp), libdw's debuginfod
# client and pp-analyze's (replay/debuginfod.c, loaded only for --debuginfod)
# make ld warn that dlopen needs the shared glibc at run time: those warnings
# are filtered out.
define link_tool
	$(Q)$(CC) $(CFLAGS) $(LTO) $(TOOL_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS) $(TOOL_LDLIBS) 2> $@.ld; rc=$$?; \
	grep -v -e "in function .load_plugin" -e "in function .__libdwfl_debuginfod_init" \
		-e "(debuginfod.o): in function" -e "Using 'dlopen' in statically linked" $@.ld >&2; \
	rm -f $@.ld; exit $$rc
endef

$(O)/pp-record: $(O)/tools/pp-record.o $(O)/tools/record-opts.o $(LIBS)
	$(call msg,LINK,$@)
	$(link_tool)
$(O)/pp-analyze: $(O)/tools/pp-analyze.o $(LIBS)
	$(call msg,LINK,$@)
	$(link_tool)

$(O)/tests/%: $(O)/tests/%.o $(LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(SAN_LDFLAGS) -o $@ $< $(LIBS) $(LDLIBS_ALL) -lcmocka

# libpp-heap.so runs inside the profiled program, on every malloc: only
# libc, no sanitizer (it would wrap the allocator it interposes), frame
# pointers for the stacks the uprobe on its probes takes.
$(O)/libpp-heap.so: record/preload/heap.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -std=gnu11 $(WARNINGS) $(if $(WERROR),-Werror) -D_GNU_SOURCE -fPIC -shared \
		-fvisibility=hidden -fno-omit-frame-pointer \
		-Wl,-z,now -Wl,-z,relro -o $@ $< -lpthread

# Test helper programs: built without optimisation so the spin functions keep
# their names in stacks, with frame pointers for -g sampling; nofp-* without
# them, optimised, as distributions build their libraries.
HELPER_CFLAGS = $(if $(filter nofp-%,$*),-O2 -fomit-frame-pointer,-O0 -fno-omit-frame-pointer -fno-inline)
$(O)/tests/helpers/%: tests/helpers/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(HELPER_CFLAGS) -g -Wall -o $@ $< -lpthread
# C++ helpers (mangled names for the demangling tests), built the same way.
CXX ?= g++
$(O)/tests/helpers/%: tests/helpers/%.cc
	$(call msg,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O0 -g -fno-omit-frame-pointer -fno-inline -Wall -o $@ $<

# pprof export: the messages of analyzers/pprof.proto, generated by protoc-c
# (protobuf-c-compiler) and compiled without our warnings (not our code).
$(PB_C) $(O)/analyzers/pprof.pb-c.h &: analyzers/pprof.proto
	$(call msg,PROTOC,$<)
	@mkdir -p $(O)/analyzers
	$(Q)protoc-c --proto_path=analyzers --c_out=$(O)/analyzers $<
$(PB_OBJ): $(PB_C)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(SAN_LDFLAGS) -I$(O)/analyzers -c $< -o $@
$(O)/analyzers/pprof.o: $(O)/analyzers/pprof.pb-c.h
$(O)/analyzers/pprof.o: ALL_CFLAGS += -I$(O)/analyzers
$(O)/tests/test-pprof.o: $(O)/analyzers/pprof.pb-c.h

# BPF: clang -target bpf, then a skeleton.
$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h)
	$(call msg,BPF,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Ibpf -I$(O)/bpf -c $< -o $@
$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Tests: unit tests (plain and sanitized) and end-to-end tests on real events.
# `make test` installs what is missing first; test-nodeps is the same without.
test: deps
	$(Q)$(MAKE) --no-print-directory test-nodeps
test-nodeps: all $(TESTS)
	$(Q)scripts/check-layers.sh $(O)
	$(Q)$(MAKE) --no-print-directory O=$(O)/asan SAN=1 CFLAGS="-O1 -g" test-bins
	$(Q)tests/run-tests.sh $(O) $(O)/asan

# The whole suite 3 times in a row beside a scheduler-heavy load
# (scripts/test-stress.sh): a test that depends on the host being quiet fails here.
STRESS_RUNS ?= 3
test-stress: deps
	$(Q)$(MAKE) --no-print-directory all $(TESTS)
	$(Q)$(MAKE) --no-print-directory O=$(O)/asan SAN=1 CFLAGS="-O1 -g" test-bins
	$(Q)scripts/test-stress.sh --runs $(STRESS_RUNS) $(O) $(O)/asan

# The README's two commands, as written, in a minimal Debian 12 root built
# with mmdebstrap from a clean clone of HEAD (scripts/check-fresh.sh).
check-fresh:
	$(Q)scripts/check-fresh.sh

# The layering of DESIGN.md, on includes and on the objects' calls.
check-layers: $(LIBS) $(PROGS)
	$(Q)scripts/check-layers.sh $(O)

# the sanitized pp-analyze too: e2e tests run it on hostile files
test-bins: $(TESTS) $(O)/pp-analyze

test_unit: $(TESTS)
	$(Q)tests/run-tests.sh --unit-only $(O)

test_asan: $(TESTS)
	$(Q)$(MAKE) --no-print-directory O=$(O)/asan SAN=1 CFLAGS="-O1 -g" test-bins
	$(Q)tests/run-tests.sh --unit-only $(O) $(O)/asan

# libFuzzer target over the reader.
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE
# A long run by default; CI runs a short one (FUZZ_SECONDS=60).
FUZZ_SECONDS ?= 900
# Each fuzzer's summary: runs, coverage (the DONE line: cov, ft, corp), peak memory.
FUZZ_SUMMARY := grep -E '^(stat::number_of_executed_units|stat::peak_rss|\#[0-9]+[[:space:]]+DONE)|ERROR|SUMMARY'
fuzz: fuzz-reader fuzz-replay
fuzz-reader: $(O)/fuzz/fuzz-reader $(O)/fuzz/make-seeds
	@mkdir -p $(O)/fuzz/corpus
	$(Q)$(O)/fuzz/make-seeds $(O)/fuzz/corpus
	$(Q)$(O)/fuzz/fuzz-reader -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -artifact_prefix=$(O)/fuzz/ -print_final_stats=1 \
		$(O)/fuzz/corpus 2>&1 | $(FUZZ_SUMMARY) ; \
		test $${PIPESTATUS[0]} -eq 0
# The whole analysis path: info, dump and every profiler on valid files built
# from a program (tests/fuzz/replay-prog.h), seeded from tests/data's traces.
fuzz-replay: $(O)/fuzz/fuzz-replay $(O)/fuzz/replay-seeds
	@mkdir -p $(O)/fuzz/replay-corpus
	$(Q)$(O)/fuzz/replay-seeds $(O)/fuzz/replay-corpus tests/data/*.trace
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
		$(O)/fuzz/fuzz-replay -max_total_time=$(FUZZ_SECONDS) -max_len=262144 \
		-rss_limit_mb=3072 -timeout=30 -close_fd_mask=2 -artifact_prefix=$(O)/fuzz/ -print_final_stats=1 \
		$(O)/fuzz/replay-corpus 2>&1 | $(FUZZ_SUMMARY) ; \
		test $${PIPESTATUS[0]} -eq 0
# The line coverage of format/ that fuzz-replay's corpus (seeds and what
# make fuzz-replay added) reaches: each input run once by a build that
# counts lines (llvm-cov), the report's TOTAL line last.
LLVM_BIN = $(dir $(realpath $(shell command -v $(CLANG))))
fuzz-cov: $(O)/fuzz/fuzz-replay-cov $(O)/fuzz/replay-seeds
	@mkdir -p $(O)/fuzz/replay-corpus $(O)/fuzz/cov
	$(Q)$(O)/fuzz/replay-seeds $(O)/fuzz/replay-corpus tests/data/*.trace
	$(Q)rm -f $(O)/fuzz/cov/*.profraw
	$(Q)LLVM_PROFILE_FILE=$(O)/fuzz/cov/%p.profraw $(O)/fuzz/fuzz-replay-cov -runs=0 \
		-rss_limit_mb=3072 -close_fd_mask=2 $(O)/fuzz/replay-corpus 2>&1 | grep -E 'INITED' ; \
		test $${PIPESTATUS[0]} -eq 0
	$(Q)$(LLVM_BIN)llvm-profdata merge -o $(O)/fuzz/cov/all.profdata $(O)/fuzz/cov/*.profraw
	$(Q)$(LLVM_BIN)llvm-cov report $(O)/fuzz/fuzz-replay-cov -instr-profile=$(O)/fuzz/cov/all.profdata \
		$(FORMAT_SRCS)
$(O)/fuzz/make-seeds: tests/fuzz/make-seeds.c $(FORMAT_SRCS)
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O1 -g -Iinclude -D_GNU_SOURCE -o $@ $^ $(LDLIBS_FORMAT)
$(O)/fuzz/replay-seeds: tests/fuzz/replay-seeds.c tests/fuzz/replay-prog.h $(FORMAT_SRCS)
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O1 -g -Iinclude -D_GNU_SOURCE -o $@ $(filter %.c,$^) $(LDLIBS_FORMAT)
$(O)/fuzz/fuzz-reader: tests/fuzz/fuzz-reader.c $(FORMAT_SRCS) $(wildcard format/*.h include/pp/*.h)
	$(call msg,FUZZ,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz-reader.c $(FORMAT_SRCS) $(LDLIBS_FORMAT)
# pp-analyze.c is linked in with its main renamed: info and dump run as the tool runs them.
FUZZ_REPLAY_SRCS := tests/fuzz/fuzz-replay.c tools/pp-analyze.c $(FORMAT_SRCS) $(RECORD_SRCS) \
		    $(REPLAY_SRCS) $(PB_C)
$(O)/fuzz/fuzz-replay: $(FUZZ_REPLAY_SRCS) tests/fuzz/replay-prog.h $(SKELS) \
		       $(wildcard format/*.h replay/*.h record/*.h analyzers/*.h include/pp/*.h)
	$(call msg,FUZZ,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -I$(O) -Dmain=pp_analyze_main \
		$(shell pkg-config --cflags libtraceevent libtracefs 2>/dev/null) \
		-I$(O)/analyzers -o $@ $(FUZZ_REPLAY_SRCS) $(LDLIBS_ALL)
$(O)/fuzz/fuzz-replay-cov: $(FUZZ_REPLAY_SRCS) tests/fuzz/replay-prog.h $(SKELS) \
			   $(wildcard format/*.h replay/*.h record/*.h analyzers/*.h include/pp/*.h)
	$(call msg,FUZZ,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping -Iinclude \
		-D_GNU_SOURCE -I$(O) -Dmain=pp_analyze_main \
		$(shell pkg-config --cflags libtraceevent libtracefs 2>/dev/null) \
		-I$(O)/analyzers -o $@ $(FUZZ_REPLAY_SRCS) $(LDLIBS_ALL)

deps:
	$(Q)scripts/install-deps.sh

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/run-demo.sh $(O)

bench: all $(O)/bench/format-bench $(O)/bench/rate-gen test-bins
	$(Q)tests/bench/bench.sh $(O)
	$(Q)python3 tests/bench/mem-bench.py $(O)
	$(Q)python3 tests/bench/heap-bench.py $(O)

$(O)/bench/format-bench: tests/bench/format-bench.c $(FORMAT_LIB)
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(FORMAT_LIB) $(LDLIBS_FORMAT)

# make bench's loss frontier: getppid events at a set rate.
$(O)/bench/rate-gen: tests/bench/rate-gen.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< -lpthread

# The recorder's user-symbol work alone (snapshot, symbol tables, USYMS).
$(O)/bench/syms-bench: $(O)/tests/bench/syms-bench.o $(LIBS)
	$(call msg,LINK,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -o $@ $< $(LIBS) $(LDLIBS_ALL)

# The replay symbol tables' map insertions alone (maps handed out top down).
$(O)/bench/maps-bench: $(O)/tests/bench/maps-bench.o $(LIBS)
	$(call msg,LINK,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -o $@ $< $(LIBS) $(LDLIBS_ALL)

# The programs, their man pages (spec/man) and bash completion; DESTDIR for
# packaging, PREFIX for where they run from.
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
install: $(PROGS) $(PRELOADS)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(COMPLETIONDIR)
	$(Q)install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -d $(DESTDIR)$(PREFIX)/lib/pp
	$(Q)install -m 644 $(PRELOADS) $(DESTDIR)$(PREFIX)/lib/pp/
	$(Q)install -m 644 $(wildcard spec/man/*.1) $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 644 $(wildcard spec/man/*.5) $(DESTDIR)$(MANDIR)/man5/
	$(Q)install -m 644 scripts/pp-completion.bash $(DESTDIR)$(COMPLETIONDIR)/pp-record
	$(Q)ln -sf pp-record $(DESTDIR)$(COMPLETIONDIR)/pp-analyze

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
