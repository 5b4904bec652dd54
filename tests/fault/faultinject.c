/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LD_PRELOAD shim for the fault-injection tests. It fails (or kills the
 * process at) the FAULT_NTH call of one operation on a path below
 * FAULT_PREFIX:
 *   FAULT_OP      write | fsync | rename | creat | socketpair (of AF_UNIX;
 *                 no FAULT_PREFIX needed)
 *   FAULT_NTH     1-based call number
 *   FAULT_REPEAT  1: fail that call and every later one (a disk that stays full)
 *   FAULT_ERRNO   ENOSPC | EIO (default) | ENOSYS | EAFNOSUPPORT | EMFILE
 *   FAULT_ACTION  fail (default) | kill (SIGKILL before the call runs)
 *   FAULT_LOG     file to which each injected fault is appended
 * Only the test suite uses it; slctl itself knows nothing of it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int calls;

static bool fd_below_prefix(int fd)
{
	const char *prefix = getenv("FAULT_PREFIX");
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (!prefix)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return false;
	path[n] = '\0';
	return strncmp(path, prefix, strlen(prefix)) == 0;
}

/* True when this call is the one to break; kills instead when asked. */
static bool strike(const char *op, bool relevant)
{
	const char *want = getenv("FAULT_OP"), *nth = getenv("FAULT_NTH");
	const char *action = getenv("FAULT_ACTION"), *err = getenv("FAULT_ERRNO");

	if (!relevant || !want || !nth || strcmp(want, op) != 0)
		return false;
	++calls;
	if (getenv("FAULT_REPEAT") && strcmp(getenv("FAULT_REPEAT"), "1") == 0 ?
	    calls < atoi(nth) : calls != atoi(nth))
		return false;
	if (getenv("FAULT_LOG")) {
		FILE *log = fopen(getenv("FAULT_LOG"), "a");

		if (log) {
			fprintf(log, "%s %s %s\n", op, nth, action ? action : "fail");
			fclose(log);
		}
	}
	if (action && strcmp(action, "kill") == 0)
		raise(SIGKILL);
	errno = !err ? EIO : strcmp(err, "ENOSPC") == 0 ? ENOSPC :
		strcmp(err, "ENOSYS") == 0 ? ENOSYS :
		strcmp(err, "EAFNOSUPPORT") == 0 ? EAFNOSUPPORT :
		strcmp(err, "EMFILE") == 0 ? EMFILE : EIO;
	return true;
}

#define REAL(name, ret, ...) \
	static ret (*real_##name)(__VA_ARGS__); \
	if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write, ssize_t, int, const void *, size_t);
	if (strike("write", fd_below_prefix(fd)))
		return -1;
	return real_write(fd, buf, n);
}

/* The lease writes the sysctl in place through a descriptor it opened
 * before the take, as the kernel's own /proc/sys file is written. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, ssize_t, int, const void *, size_t, off_t);
	if (strike("write", fd_below_prefix(fd)))
		return -1;
	return real_pwrite(fd, buf, n, off);
}

int fsync(int fd)
{
	REAL(fsync, int, int);
	if (strike("fsync", fd_below_prefix(fd)))
		return -1;
	return real_fsync(fd);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	REAL(renameat, int, int, const char *, int, const char *);
	if (strike("rename", fd_below_prefix(newdirfd)))
		return -1;
	return real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	REAL(openat, int, int, const char *, int, ...);
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
		if (strike("creat", fd_below_prefix(dirfd)))
			return -1;
	}
	return real_openat(dirfd, path, flags, mode);
}

/* A kernel without UNIX sockets (CONFIG_UNIX=n: ENOSYS or EAFNOSUPPORT),
 * or a process out of descriptors (EMFILE). */
int socketpair(int domain, int type, int protocol, int sv[2])
{
	REAL(socketpair, int, int, int, int, int *);
	if (strike("socketpair", domain == AF_UNIX))
		return -1;
	return real_socketpair(domain, type, protocol, sv);
}
