/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shared/: the helpers lib/ and cli/ both use. */
#include <fcntl.h>
#include <sys/stat.h>

#include "dir-list.h"
#include "message.h"
#include "name-table.h"
#include "test.h"

enum colour { RED = 3, GREEN = 7 };
static const struct name_table colours[] = { { RED, "red" }, { GREEN, "green" } };

TEST(name_table_maps_both_ways_and_refuses_unknowns)
{
	int v = -1;

	CHECK_STR(NAME_TABLE_NAME(colours, GREEN), "green");
	CHECK(NAME_TABLE_NAME(colours, 5) == NULL);
	CHECK_INT(NAME_TABLE_VALUE(colours, "red", &v), 0);
	CHECK_INT(v, RED);
	v = -1;
	CHECK_INT(NAME_TABLE_VALUE(colours, "Red", &v), -EINVAL);
	CHECK_INT(NAME_TABLE_VALUE(colours, NULL, &v), -EINVAL);
	CHECK_INT(v, -1);
}

static DEFINE_NAME_TABLE_PARSE(colour_parse, colours, enum colour)

TEST(name_table_parse_and_fallback_name)
{
	enum colour c = RED;

	CHECK_INT(colour_parse("green", &c), 0);
	CHECK_INT(c, GREEN);
	CHECK_INT(colour_parse("blue", &c), -EINVAL);
	CHECK_INT(c, GREEN);
	CHECK_STR(NAME_TABLE_NAME_OR(colours, RED, "unknown"), "red");
	CHECK_STR(NAME_TABLE_NAME_OR(colours, 4, "unknown"), "unknown");
}

TEST(message_set_replaces_the_old_sentence)
{
	char *msg = NULL;

	CHECK_INT(message_set(&msg, "first %d", 1), 0);
	CHECK_STR(msg, "first 1");
	CHECK_INT(message_set(&msg, "second: %s", errno_text(-ENOENT)), 0);
	CHECK_STR(msg, "second: No such file or directory");
	CHECK_STR(errno_text(EACCES), errno_text(-EACCES));
	free(msg);
}

static bool conf_only(const char *name, void *data)
{
	size_t len = strlen(name);

	(void)data;
	return len > 5 && streq(name + len - 5, ".conf");
}

TEST(dir_list_sorts_bytewise_and_filters)
{
	char dir[] = "/tmp/test-shared.XXXXXX", path[64];
	static const char *const files[] = { "b.conf", "a.conf", "Z.conf", "10-x.conf", "c.txt" };
	char **names;
	int n;

	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	n = dir_list(open(dir, O_RDONLY | O_DIRECTORY), conf_only, NULL, &names);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(names[0], "10-x.conf");
		CHECK_STR(names[1], "Z.conf");
		CHECK_STR(names[2], "a.conf");
		CHECK_STR(names[3], "b.conf");
	}
	dir_list_free(names, n > 0 ? (size_t)n : 0);
	n = dir_list(open(dir, O_RDONLY | O_DIRECTORY), NULL, NULL, &names);
	CHECK_INT(n, 5);
	dir_list_free(names, n > 0 ? (size_t)n : 0);
	CHECK_INT(dir_list(-1, NULL, NULL, &names), -EBADF);
	CHECK(names == NULL);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}
