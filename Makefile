# mtrace: malloc API tracer and workload simulator.  `make`, `make check`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`.
VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CXX      ?= c++
B        := build

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -Iinclude -Itools/lib -DMTRACE_PKG_VERSION='"$(VERSION)"' -D_FILE_OFFSET_BITS=64
# The preload: hidden by default (only the allocator API and mtrace_* are exported), and
# initial-exec TLS, because global-dynamic TLS access can itself call malloc.
LIB_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-plt \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc
LDLIBS   := -ldl -pthread

# SANITIZE=1: the tools (not the preload) with ASan+UBSan
ifeq ($(SANITIZE),1)
TOOL_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

MALLOC_SRC := $(wildcard malloc/*.c)
MALLOC_OBJ := $(MALLOC_SRC:%.c=$(B)/%.o)
TLIB_SRC   := $(wildcard tools/lib/*.c)
TLIB_OBJ   := $(TLIB_SRC:%.c=$(B)/%.o)
TOOLS      := trace_dump trace2wl trace_run
TOOL_BINS  := $(TOOLS:%=$(B)/bin/%) $(B)/bin/mtracectl
LIBS       := $(B)/lib/libmtrace.so $(B)/lib/libmtracectl.so
TEST_C     := $(wildcard tests/prog/*.c)
TEST_CXX   := $(wildcard tests/prog/*.cc)
TEST_BINS  := $(TEST_C:tests/prog/%.c=$(B)/tests/%) $(TEST_CXX:tests/prog/%.cc=$(B)/tests/%)
HEADERS    := $(wildcard include/*.h)

all: $(LIBS) $(TOOL_BINS)

$(B)/malloc/%.o: malloc/%.c $(wildcard malloc/*.h) $(HEADERS) | dirs
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(B)/mtracectl/preload.o: mtracectl/preload.c $(HEADERS) | dirs
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(B)/lib/libmtrace.so: $(MALLOC_OBJ)
	$(CC) -shared -Wl,-soname,libmtrace.so -Wl,-z,nodelete $^ -o $@ $(LDLIBS)
$(B)/lib/libmtracectl.so: $(MALLOC_OBJ) $(B)/mtracectl/preload.o
	$(CC) -shared -Wl,-soname,libmtracectl.so -Wl,-z,nodelete $^ -o $@ $(LDLIBS)

$(B)/tools/lib/%.o: tools/lib/%.c $(wildcard tools/lib/*.h) $(HEADERS) | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -c $< -o $@
$(B)/libmtools.a: $(TLIB_OBJ)
	rm -f $@; ar rcs $@ $^
$(B)/bin/%: tools/%.c $(B)/libmtools.a $(HEADERS) | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) $< -o $@ $(B)/libmtools.a $(LDLIBS) -lm
$(B)/bin/mtracectl: mtracectl/mtracectl.c $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) $(TOOL_SAN) -DMTRACE_LIBDIR='"$(PREFIX)/lib"' $< -o $@ $(B)/libmtools.a

# test programs: plain C/C++ programs; those named api_* link -lmtrace
$(B)/tests/api_%: tests/prog/api_%.c $(B)/lib/libmtrace.so $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin $< -o $@ -L$(B)/lib -lmtrace -Wl,-rpath,'$$ORIGIN/../lib' $(B)/libmtools.a -pthread
$(B)/tests/static_%: tests/prog/static_%.c | dirs
	-$(CC) $(ALL_CFLAGS) -static $< -o $@ || cp /bin/true $@.nostatic
$(B)/tests/%: tests/prog/%.c $(B)/libmtools.a | dirs
	$(CC) $(ALL_CFLAGS) -fno-builtin $< -o $@ $(B)/libmtools.a -pthread -ldl
$(B)/tests/%: tests/prog/%.cc | dirs
	$(CXX) -O2 -g -Wall -Iinclude $< -o $@ -pthread

dirs:
	@mkdir -p $(B)/malloc $(B)/mtracectl $(B)/tools/lib $(B)/lib $(B)/bin $(B)/tests

check: all $(TEST_BINS)
	@B=$(B) sh tests/run.sh

bench: all $(TEST_BINS) $(B)/bench/mbench
	@B=$(B) sh bench/capture.sh
	@echo
	@B=$(B) sh bench/trace2wl.sh
	@echo
	@B=$(B) sh bench/replay.sh
$(B)/bench/mbench: bench/mbench.c
	@mkdir -p $(B)/bench
	$(CC) -std=gnu11 -O2 -g $< -o $@ -pthread

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

clean:
	rm -rf $(B)

.PHONY: all check bench demo install clean dirs
.SECONDARY:
