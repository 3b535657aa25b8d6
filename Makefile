# mtrace: malloc API tracer and workload simulator.  `make`, `make check`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`.
VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CXX      ?= c++
# SANITIZE=1: the tools and the test helpers that read files, with ASan+UBSan, in their own
# build directory; `make check SANITIZE=1` then runs the tests that exercise them
# (tests/sanitize.list).  Traced programs and the preload stay plain: ASan interposes malloc
# itself, ahead of any preload.
ifeq ($(SANITIZE),1)
B        ?= build-san
TOOL_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B        ?= build
endif

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -Iinclude -Itools/lib -DMTRACE_PKG_VERSION='"$(VERSION)"' -D_FILE_OFFSET_BITS=64
# The preload: hidden by default (only the allocator API and mtrace_* are exported), and
# initial-exec TLS, because global-dynamic TLS access can itself call malloc.
LIB_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-plt \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc
LDLIBS   := -ldl -pthread

MALLOC_SRC := $(wildcard malloc/*.c)
MALLOC_OBJ := $(MALLOC_SRC:%.c=$(B)/%.o)
TLIB_SRC   := $(wildcard tools/lib/*.c)
TLIB_OBJ   := $(TLIB_SRC:%.c=$(B)/%.o)
TOOLS      := trace_dump trace2wl trace_run trace_stats trace_import trace_pack trace_plot
TOOL_BINS  := $(TOOLS:%=$(B)/bin/%) $(B)/bin/mtracectl
LIBS       := $(B)/lib/libmtrace.so $(B)/lib/libmtracectl.so
TEST_C     := $(filter-out tests/prog/lib%.c,$(wildcard tests/prog/*.c))
TEST_LIBS  := $(patsubst tests/prog/%.c,$(B)/tests/%.so,$(wildcard tests/prog/lib*.c))
TEST_CXX   := $(wildcard tests/prog/*.cc)
TEST_BINS  := $(TEST_C:tests/prog/%.c=$(B)/tests/%) $(TEST_CXX:tests/prog/%.cc=$(B)/tests/%) $(TEST_LIBS)
HEADERS    := $(wildcard include/*.h)

all: $(LIBS) $(TOOL_BINS)

$(B)/malloc/%.o: malloc/%.c $(wildcard malloc/*.h) $(HEADERS) | dirs
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(B)/mtracectl/preload.o: mtracectl/preload.c $(HEADERS) | dirs
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(B)/lib/libmtrace.so: $(MALLOC_OBJ)
	$(CC) -shared -Wl,-soname,libmtrace.so -Wl,-z,nodelete $^ -o $@ $(LDLIBS)
$(B)/lib/libmtracectl.so: $(MALLOC_OBJ) $(B)/mtracectl/preload.o
	$(CC) -shared -Wl,-soname,libmtracectl.so -Wl,-z,nodelete -Wl,-z,initfirst $^ -o $@ $(LDLIBS)

$(B)/tools/lib/%.o: tools/lib/%.c $(wildcard tools/lib/*.h) $(HEADERS) | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -c $< -o $@
$(B)/libmtools.a: $(TLIB_OBJ)
	rm -f $@; ar rcs $@ $^
$(B)/bin/%: tools/%.c $(B)/libmtools.a $(HEADERS) | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) $< -o $@ $(B)/libmtools.a $(LDLIBS) -lm
$(B)/bin/mtracectl: mtracectl/mtracectl.c $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -DMTRACE_LIBDIR='"$(PREFIX)/lib"' $< -o $@ $(B)/libmtools.a

# test programs.  Helpers read files through tools/lib (sanitized with SANITIZE=1); the others
# are the programs that get traced: plain, and api_* link -lmtrace and compile the reader in.
HELPERS := trace_count order_check wl_check mkfixture swap_trace dj_wl_scan mkprogmem
$(HELPERS:%=$(B)/tests/%): $(B)/tests/%: tests/prog/%.c $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) $< -o $@ $(B)/libmtools.a -pthread
# a program that traces itself (its memory is what a replay is held to): plain, as traced
# programs are, with the shared writer compiled in
$(B)/tests/selftrace: tests/prog/selftrace.c tools/lib/trace_writer.c tools/lib/tool.c $(HEADERS) | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin $< tools/lib/trace_writer.c tools/lib/tool.c -o $@ -ldl
# setuid-run test: secure mode ignores $$ORIGIN, so an absolute RUNPATH
$(B)/tests/api_secure: tests/prog/api_secure.c $(B)/lib/libmtrace.so | dirs
	$(CC) $(ALL_CFLAGS) $< -o $@ -L$(B)/lib -lmtrace -Wl,-rpath,$(abspath $(B)/lib)
$(B)/tests/api_%: tests/prog/api_%.c tools/lib/trace_reader.c tools/lib/tool.c $(B)/lib/libmtrace.so | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin $< tools/lib/trace_reader.c tools/lib/tool.c -o $@ -L$(B)/lib -lmtrace -Wl,-rpath,'$$ORIGIN/../lib' -pthread
$(B)/tests/static_%: tests/prog/static_%.c | dirs
	-$(CC) $(ALL_CFLAGS) -static $< -o $@ || cp /bin/true $@.nostatic
$(B)/tests/nopie_%: tests/prog/nopie_%.c | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin -fno-pie -no-pie $< -o $@
$(B)/tests/ctor_dep: tests/prog/ctor_dep.c $(B)/tests/libctor.so | dirs
	$(CC) $(ALL_CFLAGS) $< -o $@ -L$(B)/tests -lctor -Wl,-rpath,'$$ORIGIN'
$(B)/tests/lib%.so: tests/prog/lib%.c | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin -fPIC -shared $< -o $@
$(B)/tests/%: tests/prog/%.c | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin $< -o $@ -pthread -ldl -Wl,-rpath,'$$ORIGIN'
$(B)/tests/%: tests/prog/%.cc | dirs
	$(CXX) -O2 -g -Wall -Iinclude $< -o $@ -pthread

# fuzz harnesses with a plain driver: every kept crashing input runs in `make check`
FUZZ_HARNESSES := fuzz_trace_reader fuzz_convert fuzz_workload fuzz_dj_workload fuzz_import fuzz_latency \
	fuzz_replay_maps
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(B)/fuzz/%)
$(B)/fuzz/%: fuzz/%.c fuzz/driver.c fuzz/fuzz.h $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -D_GNU_SOURCE -Ifuzz $< fuzz/driver.c -o $@ $(B)/libmtools.a -pthread -lm

FUZZ_SECONDS ?= 60
fuzz: all $(TEST_BINS)
	@B=$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh || [ $$? -eq 77 ]

dirs:
	@mkdir -p $(B)/malloc $(B)/mtracectl $(B)/tools/lib $(B)/lib $(B)/bin $(B)/tests $(B)/fuzz

check: all $(TEST_BINS) $(FUZZ_BINS) $(B)/bench/mbench
	@B=$(B) SANITIZE=$(SANITIZE) sh tests/run.sh $(if $(filter 1,$(SANITIZE)),$(shell cat tests/sanitize.list))

check-large: all $(TEST_BINS) $(B)/bench/mbench
	@B=$(B) sh tests/run.sh tests/large/t_large.sh

bench: all $(TEST_BINS) $(B)/bench/mbench $(B)/bench/clockcost
	@B=$(B) sh bench/capture.sh
	@echo
	@B=$(B) sh bench/trace2wl.sh
	@echo
	@B=$(B) sh bench/replay.sh
$(B)/bench/mbench: bench/mbench.c | dirs
	@mkdir -p $(B)/bench
	$(CC) -std=gnu11 -O2 -g $< -o $@ -pthread
# the tracer's clock reads, compiled from its own header and clock.c
$(B)/bench/clockcost: bench/clockcost.c malloc/clock.c malloc/clock.h | dirs
	@mkdir -p $(B)/bench
	$(CC) $(ALL_CFLAGS) -Imalloc bench/clockcost.c malloc/clock.c -o $@

demo: all $(TEST_BINS) $(B)/bench/mbench
	@B=$(B) sh examples/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(LIBS) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard man/*.3) $(DESTDIR)$(PREFIX)/share/man/man3/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		'Name: mtrace' 'Description: control API of the mtrace malloc tracer (libmtrace.so)' \
		'Version: $(VERSION)' 'Libs: -L$${libdir} -lmtrace' 'Cflags: -I$${includedir}' \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/mtrace.pc

clean:
	rm -rf $(B) build-san build-fuzz

.PHONY: all check check-large bench demo install clean dirs fuzz
.SECONDARY:
