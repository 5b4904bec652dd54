# slctl and libsplitlock. GNU make; objects go under build/.

# A failed recipe (scdoc, a compiler) must not leave a target that looks done.
.DELETE_ON_ERROR:

VERSION := 0.1.0
SONAME_MAJOR := 0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR ?=

PKG_CONFIG ?= pkg-config
SCDOC ?= scdoc
CC ?= cc
B ?= build

BASHCOMPDIR ?= $(shell $(PKG_CONFIG) --define-variable=prefix=$(PREFIX) \
	--variable=completionsdir bash-completion 2>/dev/null || \
	echo $(PREFIX)/share/bash-completion/completions)

LIB_PKGS := libcap libmnl
CLI_PKGS := smartcols libmnl

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wpointer-arith -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DVERSION='"$(VERSION)"' $(WARNINGS) \
	-fvisibility=hidden -fPIC -Ilib
LIB_CFLAGS = $(BASE_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LIB_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_PKGS))
CLI_CFLAGS = $(BASE_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(CLI_PKGS))
CLI_LIBS = $(shell $(PKG_CONFIG) --libs $(CLI_PKGS))

LIB_SRCS := $(sort $(wildcard lib/*.c))
CLI_SRCS := $(sort $(wildcard cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/test-*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(B)/tests/%)
MANS := $(B)/man/slctl.8 $(B)/man/libsplitlock.3

SO := $(B)/libsplitlock.so.$(SONAME_MAJOR)
SO_FULL := $(B)/libsplitlock.so.$(VERSION)

all: $(B)/slctl $(SO) $(B)/libsplitlock.a $(B)/libsplitlock.pc $(MANS)

$(B)/lib/%.o: lib/%.c lib/*.h | $(B)/lib
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/cli/%.o: cli/%.c cli/*.h lib/libsplitlock.h | $(B)/cli
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/lib $(B)/cli $(B)/tests $(B)/man:
	mkdir -p $@

$(SO_FULL): $(LIB_OBJS) lib/libsplitlock.sym
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libsplitlock.so.$(SONAME_MAJOR) \
		-Wl,--version-script=lib/libsplitlock.sym -Wl,-z,defs \
		-o $@ $(LIB_OBJS) $(LIB_LIBS)

$(SO): $(SO_FULL)
	ln -sf libsplitlock.so.$(VERSION) $@
	ln -sf libsplitlock.so.$(SONAME_MAJOR) $(B)/libsplitlock.so

$(B)/libsplitlock.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# slctl carries the library statically so build/slctl runs from the tree.
$(B)/slctl: $(CLI_OBJS) $(B)/libsplitlock.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(B)/libsplitlock.a \
		$(CLI_LIBS) $(LIB_LIBS)

# Regenerated every time: PREFIX at install may differ from PREFIX at build.
$(B)/libsplitlock.pc: lib/libsplitlock.pc.in FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(B)/man/%: man/%.scd | $(B)/man
	$(SCDOC) < $< > $@

$(B)/tests/test-%: tests/unit/test-%.c tests/unit/*.h $(B)/libsplitlock.a | $(B)/tests
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -Itests/unit $(CFLAGS) -o $@ $< \
		$(B)/libsplitlock.a $(LIB_LIBS)

$(B)/tests/faultinject.so: tests/fault/faultinject.c | $(B)/tests
	$(CC) $(CFLAGS) -std=gnu11 -shared -fPIC -o $@ $< -ldl

tests: $(TEST_BINS) $(B)/tests/faultinject.so

deps:
	@tools/deps.sh

run: deps
	$(MAKE) all
	$(B)/slctl status

check: deps
	$(MAKE) all tests
	tests/run

# Library, CLI and every test built with ASan + UBSan, then the whole suite.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
check-asan: deps
	$(MAKE) B=build-asan CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" all tests
	BUILD_DIR=build-asan TEST_CFLAGS="$(SAN_FLAGS)" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 tests/run

# The CLI tests with every slctl run under valgrind memcheck: any error or
# leak makes slctl exit 99, which fails the test that ran it. valgrind 3.19
# does not know openat2, so paths are resolved by hand there.
check-valgrind: deps
	@command -v valgrind >/dev/null || tools/deps.sh valgrind
	$(MAKE) all tests
	printf '#!/bin/sh\nSPLITLOCK_NO_OPENAT2=1 exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect "%s" "$$@"\n' \
		"$(CURDIR)/$(B)/slctl" > $(B)/slctl-valgrind
	chmod +x $(B)/slctl-valgrind
	SLCTL=$(CURDIR)/$(B)/slctl-valgrind tests/run

# libFuzzer targets for every parser; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 10
fuzz:
	@tools/deps.sh fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# Regenerate tests/RELIABILITY.md with fresh figures.
reliability: deps
	@tools/deps.sh valgrind fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/reliability-report

# slctl against the real GRUB, systemd-boot and rEFInd tools in Debian 12
# images (mmdebstrap, cached in /var/cache/slctl-boot); needs root.
check-boot: deps
	$(MAKE) all
	tests/boot/run

check-kernel: deps
	$(MAKE) all
	tests/kernel/run

install: all
	install -Dm755 $(B)/slctl $(DESTDIR)$(BINDIR)/slctl
	install -Dm755 $(SO_FULL) $(DESTDIR)$(LIBDIR)/libsplitlock.so.$(VERSION)
	ln -sf libsplitlock.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsplitlock.so.$(SONAME_MAJOR)
	ln -sf libsplitlock.so.$(SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libsplitlock.so
	install -Dm644 $(B)/libsplitlock.a $(DESTDIR)$(LIBDIR)/libsplitlock.a
	install -Dm644 lib/libsplitlock.h $(DESTDIR)$(INCLUDEDIR)/libsplitlock.h
	install -Dm644 $(B)/libsplitlock.pc $(DESTDIR)$(PKGCONFIGDIR)/libsplitlock.pc
	install -Dm644 $(B)/man/slctl.8 $(DESTDIR)$(MANDIR)/man8/slctl.8
	install -Dm644 $(B)/man/libsplitlock.3 $(DESTDIR)$(MANDIR)/man3/libsplitlock.3
	install -Dm644 completions/slctl.bash $(DESTDIR)$(BASHCOMPDIR)/slctl

clean:
	rm -rf $(B) build-asan build-fuzz

.PHONY: all tests deps run fuzz reliability check check-asan check-valgrind check-boot check-kernel install clean FORCE
FORCE:
