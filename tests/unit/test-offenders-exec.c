/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process events and a process that exec()s twice: an image that could not
 * be read is unknown, never the image before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "libsplitlock.h"
/* White-box: it builds records and events by hand, as the readers do. */
#include "core/public-types.h"

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* /proc/500 of a fake root, started 1 s after boot, running @exe. */
static void make_proc(const char *root, const char *exe)
{
	char dir[512], link[600];

	snprintf(dir, sizeof(dir), "%s/proc", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc/500", root);
	mkdir(dir, 0755);
	put_file(dir, "status", "Name:\tgame\nTgid:\t500\nPid:\t500\n");
	put_file(dir, "stat", "500 (game) S 1 500 500 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 1 1 1\n");
	put_file(dir, "cmdline", "game");
	snprintf(link, sizeof(link), "%s/exe", dir);
	unlink(link);
	CHECK_INT(symlink(exe, link), 0);
}

static void remove_proc(const char *root)
{
	const char *names[] = { "status", "stat", "cmdline", "exe" };
	char path[512];

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/proc/500/%s", root, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/proc/500", root);
	rmdir(path);
}

static struct splitlock_proc_event exec_at(uint64_t sec)
{
	return (struct splitlock_proc_event){ .type = SPLITLOCK_PROC_EXEC, .pid = 500,
					      .tgid = 500, .timestamp_ns = sec * 1000000000ull };
}

static const struct splitlock_offender *event_at(struct splitlock_offenders *r, uint64_t sec)
{
	static const char msg[] = "#AC: game/500 took a split_lock trap at address: 0x10";
	struct splitlock_kmsg_record rec = { .facility = 0, .level = 4, .usec = sec * 1000000,
					     .message = msg, .message_len = sizeof(msg) - 1 };
	const struct splitlock_offender *o = NULL;

	CHECK_INT(splitlock_offenders_add_record(r, &rec, &o), 1);
	return o;
}

/* A report that saw 500 exec at 2 s (read) and at 4 s (gone by then). */
static struct splitlock_offenders *two_execs(struct splitlock_ctx *ctx, const char *root)
{
	struct splitlock_proc_event first = exec_at(2), second = exec_at(4);
	struct splitlock_offenders *r;

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK,
					  SPLITLOCK_OFFENDERS_RESOLVE, &r), 0);
	make_proc(root, "/usr/bin/first");
	CHECK_INT(splitlock_offenders_proc_event(r, &first), 0);
	remove_proc(root);
	CHECK_INT(splitlock_offenders_proc_event(r, &second), 0);
	return r;
}

TEST(second_exec_unresolved_is_not_the_first_image)
{
	char root[] = "/tmp/slctl-exec-XXXXXX", dir[512];
	struct splitlock_ctx *ctx;
	struct splitlock_offenders *r;
	const struct splitlock_offender *o;

	CHECK(mkdtemp(root) != NULL);
	ctx = splitlock_new(root);
	CHECK(ctx != NULL);
	/* An event between the two execs is the first image's... */
	r = two_execs(ctx, root);
	o = event_at(r, 3);
	CHECK(splitlock_offender_get_exe(o) != NULL);
	CHECK_STR(splitlock_offender_get_exe(o), "/usr/bin/first");
	CHECK_INT(splitlock_offender_get_tgid(o), 500);
	splitlock_offenders_unref(r);
	/* ...one after the second is no image we know. */
	r = two_execs(ctx, root);
	o = event_at(r, 5);
	CHECK(splitlock_offender_get_exe(o) == NULL);
	CHECK(splitlock_offender_get_cmdline(o) == NULL);
	CHECK_INT(splitlock_offender_get_tgid(o), 0);
	splitlock_offenders_unref(r);

	snprintf(dir, sizeof(dir), "%s/proc", root);
	rmdir(dir);
	CHECK_INT(rmdir(root), 0);
	splitlock_unref(ctx);
}
