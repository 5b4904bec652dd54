/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for polkit's pkexec(1) in the tests, which have no polkit
 * daemon and nobody to ask. A test installs it setuid root in a directory
 * of its own (never anywhere else) and puts that first on PATH. It does
 * what pkexec does around PROGRAM, and nothing of the asking:
 *
 *  - PROGRAM must be an absolute path;
 *  - it runs as root (real, effective and saved uid and gid, no
 *    supplementary groups), with PKEXEC_UID set to the caller's real uid;
 *  - in pkexec's minimal environment (PATH, HOME, USER, LOGNAME, SHELL,
 *    TERM, PKEXEC_UID): nothing else of the caller's passes;
 *  - with descriptors 0, 1 and 2 only, in /;
 *  - its exit status is PROGRAM's (it execs it in place, keeping the PID).
 *
 * pkexec also refuses a caller whose parent is init; this does not, so
 * that a test may run slctl as PID 1 of a PID namespace.
 *
 * FAKE_PKEXEC_ANSWER=126|127  exit so without running PROGRAM: the user
 *                             dismissed the dialog, or is not authorized.
 * FAKE_PKEXEC_LOG=FILE        append "PID ARGS..." per call.
 * FAKE_PKEXEC_PROC=DIR        write DIR/PID/stat (the real line: the start
 *                             time) and DIR/PID/status (uid 0, the parent)
 *                             for the process PROGRAM becomes, as the
 *                             kernel's /proc of a fake root shows it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void copy(const char *from, const char *to)
{
	char buf[4096];
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	size_t n;

	if (!in || !out)
		exit(127);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out) != 0)
		exit(127);
}

static void fake_proc(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", dir, (int)getpid());
	copy("/proc/self/stat", path);
	snprintf(path, sizeof(path), "%s/%d/status", dir, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		exit(127);
	fprintf(f, "Name:\tslctl\nPPid:\t%d\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n", (int)getppid());
	if (fclose(f) != 0)
		exit(127);
}

int main(int argc, char **argv)
{
	const char *answer = getenv("FAKE_PKEXEC_ANSWER");
	const char *log = getenv("FAKE_PKEXEC_LOG");
	const char *proc = getenv("FAKE_PKEXEC_PROC");
	const char *term = getenv("TERM");
	char uid[32], termvar[256];
	char *env[9];
	size_t n = 0;

	if (argc < 2 || argv[1][0] != '/') {
		fprintf(stderr, "fake pkexec: PROGRAM must be an absolute path\n");
		return 127;
	}
	snprintf(uid, sizeof(uid), "PKEXEC_UID=%u", (unsigned)getuid());
	if (log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "%d", (int)getpid());
			for (int i = 1; i < argc; i++)
				fprintf(f, " %s", argv[i]);
			fputc('\n', f);
			fclose(f);
		}
	}
	if (answer && (strcmp(answer, "126") == 0 || strcmp(answer, "127") == 0))
		return atoi(answer);
	if (setgroups(0, NULL) < 0 || setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
		fprintf(stderr, "fake pkexec: not installed setuid root: %s\n", strerror(errno));
		return 127;
	}
	if (proc)
		fake_proc(proc);

	env[n++] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	env[n++] = "HOME=/root";
	env[n++] = "USER=root";
	env[n++] = "LOGNAME=root";
	env[n++] = "SHELL=/bin/sh";
	env[n++] = uid;
	if (term) {
		snprintf(termvar, sizeof(termvar), "TERM=%s", term);
		env[n++] = termvar;
	}
	env[n] = NULL;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (chdir("/") < 0)
		return 127;
	execve(argv[1], argv + 1, env);
	fprintf(stderr, "fake pkexec: cannot run %s: %s\n", argv[1], strerror(errno));
	return 127;
}
