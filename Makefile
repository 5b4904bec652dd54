# slctl and libsplitlock. GNU make; objects go under build/.

# A failed recipe (scdoc, a compiler) must not leave a target that looks done.
.DELETE_ON_ERROR:

# The one place for the version: VERSION. debian/changelog and slctl.spec
# must repeat it (their formats demand it); tests/cli/version.sh checks they do.
VERSION := $(shell cat VERSION)
# 1: the symbols of node LIBSPLITLOCK_1 in lib/libsplitlock.sym are frozen.
SONAME_MAJOR := 1

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR ?=

PKG_CONFIG ?= pkg-config
SCDOC ?= scdoc
ABIDW ?= abidw
ABIDIFF ?= abidiff
CC ?= cc
B ?= build

DATADIR ?= $(PREFIX)/share
# The shells publish where they look, as a pkg-config variable under their
# own datadir; defining datadir moves it under ours, so that PREFIX and
# DATADIR are honoured and /usr lands where the distribution's shell reads.
BASHCOMPDIR ?= $(shell $(PKG_CONFIG) --define-variable=datadir=$(DATADIR) \
	--variable=completionsdir bash-completion 2>/dev/null || \
	echo $(DATADIR)/bash-completion/completions)
FISHCOMPDIR ?= $(shell $(PKG_CONFIG) --define-variable=datadir=$(DATADIR) \
	--variable=completionsdir fish 2>/dev/null || \
	echo $(DATADIR)/fish/vendor_completions.d)
# zsh has no pkg-config file. Debian's zsh reads vendor-completions and not
# share/zsh/site-functions (its fpath says so); every other zsh reads
# site-functions. Ask the installed zsh which of the two it reads.
ZSHCOMPDIR ?= $(shell zsh -fc 'print -l $$fpath' 2>/dev/null | \
	grep -qx '$(DATADIR)/zsh/vendor-completions' && \
	echo $(DATADIR)/zsh/vendor-completions || \
	echo $(DATADIR)/zsh/site-functions)
# polkit reads actions from its own prefix's share/polkit-1/actions only:
# with PREFIX=/usr/local, point POLKITACTIONDIR at /usr/share/polkit-1/actions.
POLKITACTIONDIR ?= $(DATADIR)/polkit-1/actions
# systemd-tmpfiles reads /usr/lib/tmpfiles.d and /usr/local/lib/tmpfiles.d
# (not a multiarch LIBDIR).
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d

LIB_PKGS := libcap libmnl libkmod
CLI_PKGS := smartcols libmnl

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wpointer-arith -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DVERSION='"$(VERSION)"' $(WARNINGS) \
	-fvisibility=hidden -fPIC
# Dependencies on headers come from the compiler (build/.../*.d).
DEPFLAGS := -MMD -MP
LIB_CFLAGS = $(BASE_CFLAGS) -Ilib -Ishared $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LIB_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_PKGS))
# The CLI sees the public header only, as any program linking the library,
# and the internal helpers of shared/.
CLI_CFLAGS = $(BASE_CFLAGS) -I$(B)/include -Ishared $(shell $(PKG_CONFIG) --cflags $(CLI_PKGS)) \
	-DSLCTL_INSTALLED_PATH='"$(BINDIR)/slctl"'
CLI_LIBS = $(shell $(PKG_CONFIG) --libs $(CLI_PKGS))

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
CLI_SRCS := $(sort $(wildcard cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/test-*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(B)/tests/%)
MAN3 := $(patsubst man/%.scd,%,$(sort $(wildcard man/*.3.scd)))
MANS := $(B)/man/slctl.8 $(MAN3:%=$(B)/man/%)

# Plain make installs nothing: it names the first missing build dependency
# and the targets that install it, in one sentence. Targets that run
# tools/deps.sh first are not held up here.
INSTALLING_GOALS := deps run check check-asan check-valgrind check-kernel fuzz \
	reliability check-abi abi-update clean
# Cleaning and uninstalling need nothing installed: dh_auto_clean runs make distclean
# before the build dependencies are there (and probes it with make -n).
NO_DEP_GOALS := clean distclean uninstall dist
ifeq ($(filter $(INSTALLING_GOALS) $(NO_DEP_GOALS),$(MAKECMDGOALS)),)
MISSING_DEP := $(shell \
	command -v $(CC) >/dev/null 2>&1 || { echo "the C compiler $(CC)"; exit; }; \
	command -v $(PKG_CONFIG) >/dev/null 2>&1 || { echo "$(PKG_CONFIG)"; exit; }; \
	for p in $(sort $(LIB_PKGS) $(CLI_PKGS)); do \
		$(PKG_CONFIG) --exists $$p || { echo "the pkg-config module $$p"; exit; }; done; \
	command -v $(SCDOC) >/dev/null 2>&1 || echo "$(SCDOC) (it builds the man pages)")
ifneq ($(MISSING_DEP),)
$(error $(MISSING_DEP) is missing; 'make deps' installs it as root, or prints the command that does)
endif
endif

SO := $(B)/libsplitlock.so.$(SONAME_MAJOR)
SO_FULL := $(B)/libsplitlock.so.$(VERSION)

all: $(B)/slctl $(SO) $(B)/libsplitlock.a $(B)/libsplitlock.pc $(MANS) $(B)/org.slctl.run.policy

# VERSION: the objects carry it (-DVERSION).
$(B)/lib/%.o: lib/%.c VERSION | $(B)/lib
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/cli/%.o: cli/%.c VERSION | $(B)/cli $(B)/include/libsplitlock.h
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

# BINDIR/slctl is compiled into the helper (SLCTL_INSTALLED_PATH): a stamp
# holding it, rewritten only when it changes, rebuilds the objects that use
# it, so that `make && make install PREFIX=/usr` installs a program that
# knows it is /usr/bin/slctl, as the .pc and the policy are regenerated.
# Written as the Makefile is read, not by a rule that always runs, so that
# `make -n` shows only what a change requires.
INSTALLED_PATH_STAMP := $(B)/cli/installed-path
ifeq ($(filter $(NO_DEP_GOALS),$(MAKECMDGOALS)),)
ifneq ($(shell cat $(INSTALLED_PATH_STAMP) 2>/dev/null),$(BINDIR)/slctl)
$(shell mkdir -p $(B)/cli && echo '$(BINDIR)/slctl' > $(INSTALLED_PATH_STAMP))
endif
endif
$(INSTALLED_PATH_STAMP):
	mkdir -p $(@D)
	echo '$(BINDIR)/slctl' > $@

$(B)/cli/helper.o: $(INSTALLED_PATH_STAMP)

$(B)/include/libsplitlock.h: lib/libsplitlock.h | $(B)/include
	cp $< $@

$(B)/lib $(B)/cli $(B)/tests $(B)/man $(B)/include:
	mkdir -p $@

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TEST_BINS:=.d)


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

# The action names the installed program: regenerated for BINDIR, as the .pc.
$(B)/org.slctl.run.policy: polkit/org.slctl.run.policy.in FORCE
	sed -e 's|@BINDIR@|$(BINDIR)|g' $< > $@

$(B)/man/%: man/%.scd | $(B)/man
	$(SCDOC) < $< > $@

$(B)/tests/test-%: tests/unit/test-%.c $(B)/libsplitlock.a | $(B)/tests
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -Itests/unit $(DEPFLAGS) -MF $@.d $(CFLAGS) -o $@ $< \
		$(B)/libsplitlock.a $(LIB_LIBS)

$(B)/tests/faultinject.so: tests/fault/faultinject.c | $(B)/tests
	$(CC) $(CFLAGS) -std=gnu11 -shared -fPIC -o $@ $< -ldl

# pkexec's stand-in for tests/cli/run.sh, which installs a setuid copy in
# its scratch directory; never installed anywhere else.
$(B)/tests/fake-pkexec: tests/fake/fake-pkexec.c | $(B)/tests
	$(CC) $(CFLAGS) -std=gnu11 -o $@ $<

# A FUSE server that never answers, and a user's thread parked in it while
# holding a file's or pipe's lock, for tests/cli/run-attacks-locks.sh.
$(B)/tests/hangfs: tests/fake/hangfs.c | $(B)/tests
	$(CC) $(CFLAGS) -std=gnu11 -o $@ $<

# A test binary that crashes part-way, for tests/cli/runner.sh: built
# without the sanitizers (their SEGV handler would turn the signal into an
# exit status) so that tests/run meets a real crash in every build.
$(B)/tests/selftest-crash: tests/selftest/crash.c tests/unit/test.h | $(B)/tests
	$(CC) -std=gnu11 -O1 -Itests/unit -o $@ $<

tests: $(TEST_BINS) $(B)/tests/faultinject.so $(B)/tests/fake-pkexec $(B)/tests/hangfs \
	$(B)/tests/selftest-crash

# tools/deps.sh installs what is missing as root. A package build must not
# change its machine: debian/rules and slctl.spec pass INSTALL_DEPS=no, and
# then a missing build dependency fails and a missing test tool makes the
# tests that need it skip (deps.sh also sees dpkg-buildpackage's and
# rpmbuild's environment).
INSTALL_DEPS ?= yes
DEPS := tools/deps.sh$(if $(filter no,$(INSTALL_DEPS)), --no-install)

deps:
	@$(DEPS)

run: deps
	$(MAKE) all
	$(B)/slctl status

# One deps.sh call checks the build and the test dependencies: a user
# missing both hears of all of them at once.
check:
	@$(DEPS) test
	$(MAKE) all tests
	tests/run

# Library, CLI and every test built with ASan + UBSan, then the whole suite.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
check-asan:
	@$(DEPS) test
	$(MAKE) B=build-asan CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" all tests
	BUILD_DIR=build-asan TEST_CFLAGS="$(SAN_FLAGS)" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 tests/run

# The CLI tests with every slctl run under valgrind memcheck: any error or
# leak makes slctl exit 99, which fails the test that ran it. valgrind 3.19
# does not know openat2, so paths are resolved by hand there.
check-valgrind:
	@$(DEPS) test valgrind
	$(MAKE) all tests
	printf '#!/bin/sh\nSPLITLOCK_NO_OPENAT2=1 exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --suppressions=%s "%s" "$$@"\n' \
		"$(CURDIR)/tests/valgrind.supp" "$(CURDIR)/$(B)/slctl" > $(B)/slctl-valgrind
	chmod +x $(B)/slctl-valgrind
	SLCTL=$(CURDIR)/$(B)/slctl-valgrind SLCTL_UNWRAPPED=$(CURDIR)/$(B)/slctl tests/run

# libFuzzer targets for every parser; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 10
fuzz:
	@$(DEPS) fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# Regenerate tests/RELIABILITY.md with fresh figures.
reliability:
	@$(DEPS) valgrind fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/reliability-report

# slctl against the real GRUB, systemd-boot and rEFInd tools in Debian 12
# images (mmdebstrap, cached in /var/cache/slctl-boot); needs root.
check-boot: deps
	$(MAKE) all
	tests/boot/run

# The kernel series make check-kernel proves, each on its Debian tree
# (tests/kernel/run kernel-patch/TREE). A series is listed only once it
# passes; kernel-patch/README.md has the status of each series.
KERNEL_SERIES ?= 6.1 6.12 7.3

check-kernel: deps
	$(MAKE) all
	@rc=0; for s in $(KERNEL_SERIES); do \
		tests/kernel/run kernel-patch/$$s || rc=1; \
	done; exit $$rc

# Each patch of each series built on its own with CONFIG_WERROR=y and W=1,
# in the test configuration and with SYSFS=n DEBUG_FS=n INJECT=n KUNIT=n
# (tests/kernel/run with SLCTL_KERNEL_BISECT=1): about 1-2 min a patch, so
# not part of check-kernel; a passing series is remembered in the cache.
check-kernel-bisect: deps
	$(MAKE) all
	@rc=0; for s in $(KERNEL_SERIES); do \
		SLCTL_KERNEL_BISECT=1 tests/kernel/run kernel-patch/$$s || rc=1; \
	done; exit $$rc

# The ABI of libsplitlock.so against the committed description: any change
# to an exported function or a public type fails, so that none slips in
# unnoticed. After an intended change, 'make abi-update' and commit it.
ABI_REF := lib/libsplitlock.abi
ABI_CONSTANTS_REF := lib/libsplitlock.constants
ABIDW_FLAGS := --no-corpus-path --no-comp-dir-path --no-show-locs \
	--drop-private-types --header-file lib/libsplitlock.h
$(B)/libsplitlock.abi: $(SO_FULL)
	$(ABIDW) $(ABIDW_FLAGS) --out-file $@ $<

# The values of the header's constants (flag bits, enumerators, macros),
# which abidw does not describe: a program compiles them in.
$(B)/libsplitlock.constants: lib/libsplitlock.h tools/abi-constants.sh | $(B)
	sh tools/abi-constants.sh lib/libsplitlock.h $(CC) >$@.tmp && mv $@.tmp $@

check-abi: deps
	@$(DEPS) abi
	$(MAKE) $(B)/libsplitlock.abi
	$(MAKE) $(B)/libsplitlock.constants
	@$(ABIDIFF) $(ABI_REF) $(B)/libsplitlock.abi || { \
		echo "check-abi: libsplitlock's ABI differs from $(ABI_REF) (above); if that is intended, run 'make abi-update' and commit the result." >&2; exit 1; }
	@diff -u $(ABI_CONSTANTS_REF) $(B)/libsplitlock.constants || { \
		echo "check-abi: a constant of libsplitlock.h differs from $(ABI_CONSTANTS_REF) (above); if that is intended, run 'make abi-update' and commit the result." >&2; exit 1; }
	@echo "check-abi: the ABI matches $(ABI_REF), the constants $(ABI_CONSTANTS_REF)."

abi-update: deps
	@$(DEPS) abi
	$(MAKE) $(B)/libsplitlock.abi $(B)/libsplitlock.constants
	cp $(B)/libsplitlock.abi $(ABI_REF)
	cp $(B)/libsplitlock.constants $(ABI_CONSTANTS_REF)

install: all
	install -Dm755 $(B)/slctl $(DESTDIR)$(BINDIR)/slctl
	install -Dm755 $(SO_FULL) $(DESTDIR)$(LIBDIR)/libsplitlock.so.$(VERSION)
	ln -sf libsplitlock.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsplitlock.so.$(SONAME_MAJOR)
	ln -sf libsplitlock.so.$(SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libsplitlock.so
	install -Dm644 $(B)/libsplitlock.a $(DESTDIR)$(LIBDIR)/libsplitlock.a
	install -Dm644 lib/libsplitlock.h $(DESTDIR)$(INCLUDEDIR)/libsplitlock.h
	install -Dm644 $(B)/libsplitlock.pc $(DESTDIR)$(PKGCONFIGDIR)/libsplitlock.pc
	install -Dm644 $(B)/man/slctl.8 $(DESTDIR)$(MANDIR)/man8/slctl.8
	for m in $(MAN3); do install -Dm644 $(B)/man/$$m $(DESTDIR)$(MANDIR)/man3/$$m || exit 1; done
	install -Dm644 completions/slctl.bash $(DESTDIR)$(BASHCOMPDIR)/slctl
	install -Dm644 completions/_slctl $(DESTDIR)$(ZSHCOMPDIR)/_slctl
	install -Dm644 completions/slctl.fish $(DESTDIR)$(FISHCOMPDIR)/slctl.fish
	install -Dm644 $(B)/org.slctl.run.policy $(DESTDIR)$(POLKITACTIONDIR)/org.slctl.run.policy
	install -Dm644 tmpfiles.d/slctl.conf $(DESTDIR)$(TMPFILESDIR)/slctl.conf
	@# On the running system (no DESTDIR): /run/slctl now, not at the next
	@# boot; missing, its lookup and creation wait on /run's lock, which any
	@# user can hold (slctl bounds them and fails: tests/SECURITY.md, 42).
	@if [ -z "$(DESTDIR)" ] && command -v systemd-tmpfiles >/dev/null 2>&1; then \
		echo "systemd-tmpfiles --create $(TMPFILESDIR)/slctl.conf"; \
		systemd-tmpfiles --create $(TMPFILESDIR)/slctl.conf || true; \
	fi

# Exactly the files install writes, under the same variables (zsh's both
# candidate directories: the zsh that chose one may be gone by now);
# directories are left alone (others may share them).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/slctl \
		$(DESTDIR)$(LIBDIR)/libsplitlock.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libsplitlock.so.$(SONAME_MAJOR) \
		$(DESTDIR)$(LIBDIR)/libsplitlock.so \
		$(DESTDIR)$(LIBDIR)/libsplitlock.a \
		$(DESTDIR)$(INCLUDEDIR)/libsplitlock.h \
		$(DESTDIR)$(PKGCONFIGDIR)/libsplitlock.pc \
		$(DESTDIR)$(MANDIR)/man8/slctl.8 \
		$(MAN3:%=$(DESTDIR)$(MANDIR)/man3/%) \
		$(DESTDIR)$(BASHCOMPDIR)/slctl \
		$(DESTDIR)$(ZSHCOMPDIR)/_slctl \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_slctl \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_slctl \
		$(DESTDIR)$(FISHCOMPDIR)/slctl.fish \
		$(DESTDIR)$(POLKITACTIONDIR)/org.slctl.run.policy \
		$(DESTDIR)$(TMPFILESDIR)/slctl.conf

# The release tarball: every tracked file, as git has them in the work tree
# (so a change is packed before it is committed), reproducible: names
# sorted, owner root, the last commit's time, modes as git knows them
# (0644 or 0755 whatever the umask of the clone: go=u-w). tar's transform
# must not touch the fixtures' symlink targets (the S flag).
DIST := slctl-$(VERSION)
dist:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "make dist: needs a git checkout: the tarball is made of the tracked files." >&2; exit 1; }
	git ls-files -z | tar --null -T - --transform 's|^|$(DIST)/|S' --sort=name \
		--owner=0 --group=0 --numeric-owner --mode=u+rw,go=u-w --mtime=@$$(git log -1 --format=%ct) \
		-cf - | gzip -n9 > $(DIST).tar.gz.tmp
	mv $(DIST).tar.gz.tmp $(DIST).tar.gz
	@echo "$(DIST).tar.gz: $$(tar -tzf $(DIST).tar.gz | grep -vc '/$$') files"

# Unpack the tarball outside the tree; build, test and install from there.
distcheck: dist
	@set -e; d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	tar -xzf $(DIST).tar.gz -C "$$d"; \
	$(MAKE) -C "$$d/$(DIST)" check WERROR=$(WERROR); \
	$(MAKE) -C "$$d/$(DIST)" install PREFIX=/usr DESTDIR="$$d/dest"; \
	test "$$("$$d/dest/usr/bin/slctl" --version)" = "slctl $(VERSION)"; \
	echo "$(DIST).tar.gz builds, passes its tests and installs out of the tree."

# Debian packages from the tarball, lintian-clean, in $(B)/deb/.
deb: dist
	tools/deb.sh $(DIST).tar.gz $(B)/deb

# The .debs installed with apt in a clean bookworm chroot, slctl run there,
# and autopkgtest (debian/tests) against them. Root and the Debian mirror.
debcheck: deb
	tools/debcheck.sh $(DIST).tar.gz $(B)/deb $(B)/debcheck

# RPMs of slctl.spec from the tarball, in $(B)/rpm/rpmbuild/RPMS/.
rpm: dist
	tools/rpm.sh $(DIST).tar.gz $(B)/rpm

clean:
	rm -rf $(B) build-asan build-fuzz build-kernel $(DIST).tar.gz

# clean, and the tarballs of every version.
.PHONY: distclean
distclean: clean
	rm -f slctl-*.tar.gz slctl-*.tar.gz.tmp

.PHONY: all tests deps run check-abi abi-update check-kernel-bisect fuzz reliability check check-asan check-valgrind \
	check-boot check-kernel install uninstall dist distcheck deb debcheck rpm clean FORCE
FORCE:
