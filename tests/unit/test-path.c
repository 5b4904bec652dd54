/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every path stays inside the context's root, symlinks and ".." included. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "core/linereader.h"
#include "test.h"

static char root[] = "/tmp/slctl-test-path-XXXXXX";

static void setup(void)
{
	char path[256];
	FILE *f;

	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/etc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/inside", root);
	f = fopen(path, "w");
	fputs("inside\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/etc/abs-link", root);
	symlink("/etc/hostname", path);
	snprintf(path, sizeof(path), "%s/etc/rel-link", root);
	symlink("../../../../../../etc/hostname", path);
	snprintf(path, sizeof(path), "%s/etc/good-link", root);
	symlink("/etc/inside", path);
}

/* The first line of @path, symlinks followed (inside the root). */
static int read_under(const char *path, char *buf, size_t size)
{
	struct splitlock_ctx *ctx = splitlock_new(root);
	int fd = sl_open_regular(ctx, path, true);
	ssize_t n;

	splitlock_unref(ctx);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST(absolute_symlink_resolves_inside_the_root)
{
	char buf[64];

	setup();
	/* The real /etc/hostname exists; the root has none. */
	CHECK_INT(read_under("/etc/abs-link", buf, sizeof(buf)), -ENOENT);
	CHECK_INT(read_under("/etc/good-link", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "inside");
}

TEST(dotdot_cannot_climb_out)
{
	char buf[64];

	CHECK_INT(read_under("/etc/rel-link", buf, sizeof(buf)), -ENOENT);
	CHECK_INT(read_under("/../../../etc/inside", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "inside");
	CHECK_INT(read_under("/../../../etc/hostname", buf, sizeof(buf)), -ENOENT);
}

TEST(atomic_write_refuses_a_symlink_target)
{
	struct splitlock_ctx *ctx = splitlock_new(root);
	char buf[64];

	CHECK_INT(sl_write_atomic(ctx, "/etc/good-link", "x\n", 2, 0644), -ELOOP);
	CHECK_INT(read_under("/etc/inside", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "inside");
	CHECK_INT(sl_write_atomic(ctx, "/etc/new", "new\n", 4, 0600), 0);
	CHECK_INT(read_under("/etc/new", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "new");
	splitlock_unref(ctx);
}

TEST(context_reference_counting)
{
	struct splitlock_ctx *ctx = splitlock_new(root);

	CHECK(ctx != NULL);
	CHECK(splitlock_ref(ctx) == ctx);
	CHECK(splitlock_unref(ctx) == ctx);
	CHECK(splitlock_unref(ctx) == NULL);
	CHECK(splitlock_unref(NULL) == NULL);
	CHECK(splitlock_new("/nonexistent/root/dir") == NULL);
}

TEST(root_is_normalized)
{
	char with_slashes[300];
	struct splitlock_ctx *ctx;

	snprintf(with_slashes, sizeof(with_slashes), "%s///", root);
	ctx = splitlock_new(with_slashes);
	CHECK_STR(splitlock_get_root(ctx), root);
	splitlock_unref(ctx);
	ctx = splitlock_new(NULL);
	CHECK_STR(splitlock_get_root(ctx), "/");
	splitlock_unref(ctx);
}

/* Where openat2 is filtered (containers, valgrind), the walk by hand. */
TEST(by_hand_resolution_stays_inside_the_root)
{
	char buf[64];

	setenv("SPLITLOCK_NO_OPENAT2", "1", 1);
	CHECK_INT(read_under("/etc/abs-link", buf, sizeof(buf)), -ENOENT);
	CHECK_INT(read_under("/etc/rel-link", buf, sizeof(buf)), -ENOENT);
	CHECK_INT(read_under("/../../../etc/hostname", buf, sizeof(buf)), -ENOENT);
	CHECK_INT(read_under("/etc/good-link", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "inside");
	CHECK_INT(read_under("/etc/../etc/./inside", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "inside");
	CHECK_INT(read_under("/etc/inside/", buf, sizeof(buf)), -ENOTDIR);
	unsetenv("SPLITLOCK_NO_OPENAT2");
}

TEST(linereader_bounds_memory_on_a_long_line)
{
	int fds[2];
	struct sl_linereader lr;
	char *line;
	size_t len;
	bool truncated;
	char chunk[1000];

	CHECK_INT(pipe(fds), 0);
	memset(chunk, 'a', sizeof(chunk));
	/* 3000 bytes without newline, then a short line: buffer of 256. */
	for (int i = 0; i < 3; i++)
		CHECK_INT(write(fds[1], chunk, sizeof(chunk)), (long long)sizeof(chunk));
	CHECK_INT(write(fds[1], "\nshort\nlast", 11), 11);
	close(fds[1]);
	CHECK_INT(sl_linereader_init(&lr, fds[0], 256), 0);
	CHECK_INT(sl_linereader_next(&lr, &line, &len, &truncated), 1);
	CHECK(truncated);
	CHECK_INT(len, 256);
	CHECK_INT(sl_linereader_next(&lr, &line, &len, &truncated), 1);
	CHECK(!truncated);
	CHECK(len == 5 && memcmp(line, "short", 5) == 0);
	CHECK_INT(sl_linereader_next(&lr, &line, &len, &truncated), 1);
	CHECK(len == 4 && memcmp(line, "last", 4) == 0);
	CHECK_INT(sl_linereader_next(&lr, &line, &len, &truncated), 0);
	sl_linereader_done(&lr);
	close(fds[0]);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
}
