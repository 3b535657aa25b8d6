# mtrace: malloc API tracer and workload simulator.  `make`, `make check`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=` (and LIBDIR=/usr/lib/x86_64-linux-gnu for Debian's
# multiarch layout, BINDIR=, INCLUDEDIR=, MANDIR=, DOCDIR=), `make uninstall` with the same.
VERSION  := 0.1.0
# libmtrace's ABI (the control API of include/mtrace.h): its SONAME is libmtrace.so.$(SOVERSION)
SOVERSION := 0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR   ?= $(PREFIX)/share/man
DOCDIR   ?= $(PREFIX)/share/doc/mtrace
DESTDIR  ?=
CC       ?= cc
CXX      ?= c++
# SANITIZE=1: the tools and the test helpers that read files, with ASan+UBSan, in their own
# build directory; `make check SANITIZE=1` then runs the tests that exercise them
# (tests/sanitize.list).  Traced programs and the preload stay plain: ASan interposes malloc
# itself, ahead of any preload.
# DEBUG=1: the tracer with the rules its comments state checked (MT_ASSERT_LOCKED() and the
# like, malloc/mt_int.h), a broken one ending the program with a line on stderr; in its
# own build directory, and `make check DEBUG=1` runs every test on it.
ifeq ($(SANITIZE),1)
B        ?= build-san
TOOL_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(DEBUG),1)
B        ?= build-debug
MT_DEBUG := -DMT_DEBUG
else
B        ?= build
endif

# V=1: each command as run; else one line a step ("  CC  build/tools/...")
ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-4s %s\n' '$(1)' '$(2)';
endif
# -MMD -MP: each object and program lists the headers it includes (build/**/*.d, read below),
# so that a header's change rebuilds what uses it, and only that
DEPFLAGS := -MMD -MP
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS   ?= -O2 -g
# tools/lib/{format,analysis,util} hold what several tools share; a tool's folder, tools/NAME/,
# holds its main file NAME.c and the modules only it uses (also linked by tests and fuzzers).
# Only tools/lib is on the include path: a tool's file finds its own folder's headers beside it
# ("x.h" is looked for in the including file's folder first), and another tool's not at all.
LIB_INC  := $(patsubst %/,-I%,$(sort $(wildcard tools/lib/*/)))
ALL_CFLAGS = -std=gnu11 $(DEPFLAGS) $(WARN) $(CFLAGS) -Iinclude $(LIB_INC) -DMTRACE_PKG_VERSION='"$(VERSION)"' -D_FILE_OFFSET_BITS=64
# The preload: hidden by default (only the allocator API and mtrace_* are exported), and
# initial-exec TLS, because global-dynamic TLS access can itself call malloc.
LIB_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-plt \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc $(MT_DEBUG)
LDLIBS   := -ldl -pthread

MALLOC_SRC := $(wildcard malloc/*.c)
MALLOC_OBJ := $(MALLOC_SRC:%.c=$(B)/%.o)
TOOLS      := trace_dump trace2wl trace_run trace_stats trace_import trace_pack trace_plot trace_recv
TOOL_MAINS := $(foreach t,$(TOOLS),tools/$(t)/$(t).c)
TLIB_SRC   := $(filter-out $(TOOL_MAINS),$(wildcard tools/lib/*/*.c tools/*/*.c))
TLIB_OBJ   := $(TLIB_SRC:%.c=$(B)/%.o)
TOOL_HDRS  := $(wildcard tools/lib/*/*.h tools/*/*.h)
TOOL_BINS  := $(TOOLS:%=$(B)/bin/%) $(B)/bin/mtracectl
LIBMTRACE  := $(B)/lib/libmtrace.so.$(VERSION)
LIBS       := $(LIBMTRACE) $(B)/lib/libmtracectl.so
TEST_C     := $(filter-out tests/prog/lib%.c,$(wildcard tests/prog/*.c))
TEST_LIBS  := $(patsubst tests/prog/%.c,$(B)/tests/%.so,$(wildcard tests/prog/lib*.c))
TEST_CXX   := $(wildcard tests/prog/*.cc)
TEST_BINS  := $(TEST_C:tests/prog/%.c=$(B)/tests/%) $(TEST_CXX:tests/prog/%.cc=$(B)/tests/%) $(TEST_LIBS)
HEADERS    := $(wildcard include/*.h)
# shared by the capture library and the tools, not installed
INTERNAL_HEADERS := $(wildcard include/internal/*.h)

all: $(LIBS) $(TOOL_BINS)

$(B)/malloc/%.o: malloc/%.c $(B)/malloc/%.d | dirs
	$(call quiet,CC,$@)$(CC) $(LIB_CFLAGS) -c $< -o $@
$(B)/mtracectl/preload.o: mtracectl/preload.c $(B)/mtracectl/preload.d | dirs
	$(call quiet,CC,$@)$(CC) $(LIB_CFLAGS) -c $< -o $@
# libmtrace is linked against (-lmtrace): versioned as a Debian library, the real file
# libmtrace.so.VERSION, the SONAME link libmtrace.so.SOVERSION, the development link libmtrace.so.
# libmtracectl.so is a preload, named by its path (LD_PRELOAD, mtracectl --lib) and never
# linked against, so no program records a SONAME of it: unversioned, the name dj/malloc gave it.
$(LIBMTRACE): $(MALLOC_OBJ)
	$(call quiet,LD,$@)$(CC) -shared -Wl,-soname,libmtrace.so.$(SOVERSION) -Wl,-z,nodelete $^ \
		-o $@ $(LDLIBS)
	@ln -sf libmtrace.so.$(VERSION) $(B)/lib/libmtrace.so.$(SOVERSION)
	@ln -sf libmtrace.so.$(SOVERSION) $(B)/lib/libmtrace.so
$(B)/lib/libmtracectl.so: $(MALLOC_OBJ) $(B)/mtracectl/preload.o
	$(call quiet,LD,$@)$(CC) -shared -Wl,-soname,libmtracectl.so -Wl,-z,nodelete \
		-Wl,-z,initfirst $^ -o $@ $(LDLIBS)

$(B)/tools/%.o: tools/%.c $(B)/tools/%.d | dirs
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -c $< -o $@
$(B)/libmtools.a: $(TLIB_OBJ)
	$(call quiet,AR,$@)rm -f $@; ar rcs $@ $^
define tool_rule
$(B)/bin/$(1): tools/$(1)/$(1).c $(B)/bin/$(1).d $(B)/libmtools.a | dirs
	$(call quiet,CC,$(B)/bin/$(1))$$(CC) $$(ALL_CFLAGS) $$(TOOL_SAN) $$< -o $$@ $(B)/libmtools.a \
		$$(LDLIBS) -lm
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))
# mtracectl finds the preload where it was installed: LIBDIR seen from BINDIR (so also in a
# DESTDIR staging tree, or a tree moved elsewhere), then ../lib (the build tree), then LIBDIR.
# Rebuilt when those change (a file that changes only with them).
LIBDIR_FROM_BIN := $(shell realpath -s -m --relative-to='$(BINDIR)' '$(LIBDIR)')
MAN_FROM_DOC := $(shell realpath -s -m --relative-to='$(DOCDIR)' '$(MANDIR)')
$(B)/install-dirs: FORCE | dirs
	@echo '$(LIBDIR) $(LIBDIR_FROM_BIN)' | cmp -s - $@ || echo '$(LIBDIR) $(LIBDIR_FROM_BIN)' >$@
# the command's sources: mtracectl/ but the preload's constructor
MTRACECTL_SRC := $(filter-out mtracectl/preload.c,$(wildcard mtracectl/*.c))
$(B)/bin/mtracectl: $(MTRACECTL_SRC) $(wildcard mtracectl/*.h) $(B)/libmtools.a $(B)/install-dirs | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -DMTRACE_LIBDIR='"$(LIBDIR)"' \
		-DMTRACE_LIBDIR_FROM_BIN='"$(LIBDIR_FROM_BIN)"' $(MTRACECTL_SRC) -o $@ $(B)/libmtools.a

# test programs.  Helpers read files through tools/lib (sanitized with SANITIZE=1); the others
# are the programs that get traced: plain, and api_* link -lmtrace and compile the reader in.
HELPERS := trace_count order_check wl_check mkfixture swap_trace dj_wl_scan mkprogmem retrace \
	live_check mkwlmem stacks_check caller_form
$(HELPERS:%=$(B)/tests/%): $(B)/tests/%: tests/prog/%.c $(B)/libmtools.a | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(TOOL_SAN) $< -o $@ $(B)/libmtools.a -pthread
# a program that traces itself (its memory is what a replay is held to): plain, as traced
# programs are, with the shared writer compiled in
SELFTRACE_SRC := tools/lib/format/trace_writer.c tools/lib/util/output.c tools/lib/util/msg.c \
	tools/lib/util/textout.c
$(B)/tests/selftrace: tests/prog/selftrace.c $(SELFTRACE_SRC) $(HEADERS) | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin $< $(SELFTRACE_SRC) -o $@ -ldl
$(B)/tests/stackprog: tests/prog/stackprog.c $(SELFTRACE_SRC) $(HEADERS) | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $< $(SELFTRACE_SRC) -o $@
# setuid-run test: secure mode ignores $$ORIGIN, so an absolute RUNPATH
$(B)/tests/api_secure: tests/prog/api_secure.c $(LIBMTRACE) | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@ -L$(B)/lib -lmtrace -Wl,-rpath,$(abspath $(B)/lib)
$(B)/tests/ctl_secure: tests/prog/ctl_secure.c $(B)/lib/libmtracectl.so | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@ -L$(B)/lib -l:libmtracectl.so \
		-Wl,-rpath,$(abspath $(B)/lib)
API_READER := $(addprefix tools/lib/,$(addprefix format/trace_,reader.c input.c map.c header.c record.c follow.c \
	ext.c slots.c dj.c) util/msg.c util/textout.c util/output.c util/proc.c util/units.c \
	util/progress.c util/input.c \
	format/hint.c format/mtrace_log.c)
$(B)/tests/api_%: tests/prog/api_%.c $(API_READER) $(LIBMTRACE) | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin $< $(API_READER) -o $@ -L$(B)/lib -lmtrace -Wl,-rpath,'$$ORIGIN/../lib' -pthread
$(B)/tests/static_%: tests/prog/static_%.c | dirs
	-$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -static $< -o $@ || cp /bin/true $@.nostatic
$(B)/tests/nopie_%: tests/prog/nopie_%.c | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin -fno-pie -no-pie $< -o $@
$(B)/tests/sites_prog: tests/prog/sites_prog.c | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin -rdynamic $< -o $@
$(B)/tests/ctor_dep: tests/prog/ctor_dep.c $(B)/tests/libctor.so | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@ -L$(B)/tests -lctor -Wl,-rpath,'$$ORIGIN'
$(B)/tests/lib%.so: tests/prog/lib%.c | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin -fPIC -shared $< -o $@
# (every call site its own: no merged tails, no tail calls)
$(B)/tests/manystacks: tests/prog/manystacks.c | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -O1 -fno-crossjumping -fno-tree-tail-merge \
		-fno-optimize-sibling-calls -fno-inline $< -o $@
# the tracer's clock reads, compiled from its own header and clock.c
$(B)/tests/order_point: tests/prog/order_point.c malloc/clock.c malloc/vdso.c malloc/clock.h include/mtrace-trace.h | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -Imalloc $< malloc/clock.c malloc/vdso.c -o $@ -pthread
$(B)/tests/%: tests/prog/%.c | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -fno-builtin $< -o $@ -pthread -ldl -Wl,-rpath,'$$ORIGIN'
$(B)/tests/%: tests/prog/%.cc | dirs
	$(call quiet,CXX,$@)$(CXX) -O2 -g -Wall -Iinclude $< -o $@ -pthread

# unit tests: a program per module of tools/lib (tests/unit/u_NAME.c, checks in tests/unit/unit.h),
# run by tests/t_unit.sh; one alone: make build/tests/unit/u_NAME && build/tests/unit/u_NAME
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/u_*.c))
$(B)/tests/unit/%: tests/unit/%.c tests/unit/unit.h $(B)/libmtools.a | dirs
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(TOOL_SAN) $< -o $@ $(B)/libmtools.a -pthread -lm

# fuzz harnesses with a plain driver: every kept crashing input runs in `make check`
FUZZ_HARNESSES := fuzz_trace_reader fuzz_convert fuzz_workload fuzz_dj_workload fuzz_import fuzz_latency \
	fuzz_replay_maps fuzz_stacks fuzz_elf_symbols fuzz_stream
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(B)/fuzz/%)
# the harnesses drive trace2wl's converter, trace_run's replay check and maps, trace_recv's reader
FUZZ_INC  := -Itools/trace2wl -Itools/trace_run -Itools/trace_recv
$(B)/fuzz/%: fuzz/%.c fuzz/driver.c fuzz/fuzz.h $(B)/libmtools.a | dirs
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -D_GNU_SOURCE -Ifuzz $(FUZZ_INC) $< fuzz/driver.c -o $@ $(B)/libmtools.a -pthread -lm

FUZZ_SECONDS ?= 60
fuzz: all $(TEST_BINS)
	@B=$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) LIBSRC="$(TLIB_SRC)" TOOL_INC="$(LIB_INC) $(FUZZ_INC)" sh fuzz/run.sh || [ $$? -eq 77 ]

dirs:
	@mkdir -p $(B)/malloc $(B)/mtracectl $(B)/lib $(B)/bin $(B)/tests $(B)/fuzz

check: all $(TEST_BINS) $(UNIT_BINS) $(FUZZ_BINS) $(B)/bench/mbench
	@B=$(B) SANITIZE=$(SANITIZE) sh tests/run.sh $(if $(filter 1,$(SANITIZE)),$(shell cat tests/sanitize.list))

check-large: all $(TEST_BINS) $(B)/bench/mbench
	@B=$(B) sh tests/run.sh tests/large/t_large.sh

bench: all $(TEST_BINS) $(B)/bench/mbench $(B)/bench/clockcost $(B)/bench/cxx_alloc
	@B=$(B) sh bench/capture.sh
	@echo
	@B=$(B) sh bench/trace2wl.sh
	@echo
	@B=$(B) sh bench/replay.sh
	@echo
	@B=$(B) sh bench/fidelity.sh
	@echo
	@B=$(B) sh bench/send.sh
$(B)/bench/mbench: bench/mbench.c | dirs
	@mkdir -p $(B)/bench
	$(call quiet,CC,$@)$(CC) -std=gnu11 -O2 -g $< -o $@ -pthread
# objects made by operator new through a few levels of calls, for --stacks beside heaptrack
$(B)/bench/cxx_alloc: bench/cxx_alloc.cc | dirs
	@mkdir -p $(B)/bench
	$(call quiet,CXX,$@)$(CXX) -O2 -g -Wall $< -o $@
# the tracer's clock reads, compiled from its own header and clock.c
$(B)/bench/clockcost: bench/clockcost.c malloc/clock.c malloc/vdso.c malloc/clock.h include/mtrace-trace.h | dirs
	@mkdir -p $(B)/bench
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -Imalloc bench/clockcost.c malloc/clock.c malloc/vdso.c -o $@

demo: all $(TEST_BINS) $(B)/bench/mbench
	@B=$(B) sh examples/demo.sh

# README's and doc/'s pictures, drawn again from doc/pictures/ (MEASURE=1: that data made anew)
pictures: all $(B)/bench/mbench
	@B=$(B) sh doc/pictures.sh $(if $(filter 1,$(MEASURE)),--measure)

# what is installed: man page links for libmtrace and each function of <mtrace.h> (man
# mtrace_init), the format documents and the example program README's commands build
LP := (
MAN3_LINKS := libmtrace $(shell sed -n 's/^[a-z].*[ *]\(mtrace_[a-z_]*\)$(LP).*/\1/p' include/mtrace.h)
DOCS       := README.md doc/trace-format.md doc/workload-format.md doc/options.md doc/performance.md doc/architecture.md doc/guarantees.md $(wildcard doc/*.svg)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(DOCDIR)/examples
	install -m 644 $(LIBS) $(DESTDIR)$(LIBDIR)/
	ln -sf libmtrace.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmtrace.so.$(SOVERSION)
	ln -sf libmtrace.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libmtrace.so
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(wildcard man/*.3) $(DESTDIR)$(MANDIR)/man3/
	for f in $(MAN3_LINKS); do ln -sf libmtracectl.3 $(DESTDIR)$(MANDIR)/man3/$$f.3 || exit 1; done
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	@# the documents' links as they lie installed: doc/ flat in DOCDIR, the man pages in MANDIR
	for f in $(notdir $(filter %.md,$(DOCS))); do \
		sed -e 's|](doc/|](|g' -e 's|](\(\.\./\)\{0,1\}man/\([a-z_0-9]*\)\.\([13]\))|]($(MAN_FROM_DOC)/man\3/\2.\3)|g' \
		    -e 's|\[\([^]]*\)\](tests/[^)]*)|\1|g' $(DESTDIR)$(DOCDIR)/$$f >$(DESTDIR)$(DOCDIR)/$$f.tmp && \
		mv $(DESTDIR)$(DOCDIR)/$$f.tmp $(DESTDIR)$(DOCDIR)/$$f || exit 1; done
	install -m 644 bench/mbench.c $(DESTDIR)$(DOCDIR)/examples/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: mtrace' 'Description: control API of the mtrace malloc tracer (libmtrace.so)' \
		'Version: $(VERSION)' 'Libs: -L$${libdir} -lmtrace' 'Cflags: -I$${includedir}' \
		>$(DESTDIR)$(LIBDIR)/pkgconfig/mtrace.pc

# every file install wrote, and the documentation's own directories; the shared ones (bin,
# lib, man1, ...) stay
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOL_BINS))) \
		$(addprefix $(DESTDIR)$(LIBDIR)/,libmtrace.so libmtrace.so.$(SOVERSION) $(notdir $(LIBS)) pkgconfig/mtrace.pc) \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/*.3)) $(MAN3_LINKS:%=%.3)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)) examples/mbench.c)
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)

clean:
	rm -rf $(B) build-san build-fuzz

-include $(shell find $(B) -name '*.d' 2>/dev/null)
# an object or tool without its list (built before there were lists, or the list removed) is
# rebuilt: the lists are its prerequisites, targets of a rule that makes nothing
DEPFILES := $(MALLOC_OBJ:.o=.d) $(B)/mtracectl/preload.d $(TLIB_OBJ:.o=.d) $(TOOLS:%=$(B)/bin/%.d)
$(DEPFILES): ;

FORCE:
.PHONY: all check check-large bench demo pictures install uninstall clean dirs fuzz FORCE

