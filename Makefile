# slctl and libsplitlock. GNU make; objects go under build/.
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
B := build

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

$(B)/libsplitlock.pc: lib/libsplitlock.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(B)/man/%: man/%.scd | $(B)/man
	$(SCDOC) < $< > $@

$(B)/tests/test-%: tests/unit/test-%.c tests/unit/*.h $(B)/libsplitlock.a | $(B)/tests
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -Itests/unit $(CFLAGS) -o $@ $< \
		$(B)/libsplitlock.a $(LIB_LIBS)

tests: $(TEST_BINS)

deps:
	@tools/deps.sh

run: deps
	$(MAKE) all
	$(B)/slctl status

check: deps
	$(MAKE) all tests
	tests/run

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
	rm -rf $(B)

.PHONY: all tests deps run check check-kernel install clean
