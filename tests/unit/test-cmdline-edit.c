/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Token editing of kernel command lines and the GRUB defaults reader. */
#include <errno.h>

#include "test.h"
#include "../../lib/boot/boot.h"

static char *set(const char *in, const char *token)
{
	static char *last;

	free(last);
	last = NULL;
	if (sl_cmdline_set(in, strlen(in), token, &last) < 0)
		return NULL;
	return last;
}

TEST(cmdline_append_keeps_everything_else)
{
	CHECK_STR(set("root=/dev/sda1 ro quiet\n", "split_lock_detect=warn"),
		  "root=/dev/sda1 ro quiet split_lock_detect=warn\n");
	CHECK_STR(set("", "split_lock_detect=off"), "split_lock_detect=off");
	CHECK_STR(set("  a\tb  ", NULL), "  a\tb  ");
}

TEST(cmdline_removes_every_token)
{
	CHECK_STR(set("split_lock_detect=off a split_lock_detect b split_lock_detect=fatal\n",
		      "split_lock_detect=seq"), "a b split_lock_detect=seq\n");
	CHECK_STR(set("a \"split_lock_detect=warn\" b", NULL), "a b");
	/* A longer key is somebody else's. */
	CHECK_STR(set("split_lock_detect_x=1 a", NULL), "split_lock_detect_x=1 a");
}

TEST(cmdline_respects_quotes)
{
	CHECK_STR(set("a \"acpi_osi=!Windows 2012\" split_lock_detect=warn c", NULL),
		  "a \"acpi_osi=!Windows 2012\" c");
	CHECK_STR(set("x=\"split_lock_detect=warn y\" z", "split_lock_detect=off"),
		  "x=\"split_lock_detect=warn y\" z split_lock_detect=off");
}

TEST(cmdline_count)
{
	const char *line = "a split_lock_detect=off b split_lock_detect=warn";
	char *last = NULL;

	CHECK_INT(sl_cmdline_count(line, strlen(line), &last), 2);
	CHECK_STR(last, "split_lock_detect=warn");
	free(last);
	CHECK_INT(sl_cmdline_count("a b", 3, NULL), 0);
}

/*
 * The kernel hands the words after a bare "--" to init: the token goes
 * before it, and init's words are neither counted nor removed.
 */
TEST(cmdline_words_after_double_dash_belong_to_init)
{
	const char *line = "ro quiet -- split_lock_detect=off";

	CHECK_STR(set("root=/dev/sda1 ro quiet -- single\n", "split_lock_detect=warn"),
		  "root=/dev/sda1 ro quiet split_lock_detect=warn -- single\n");
	CHECK_STR(set("ro split_lock_detect=off -- split_lock_detect=fatal", "split_lock_detect=warn"),
		  "ro split_lock_detect=warn -- split_lock_detect=fatal");
	CHECK_STR(set("ro split_lock_detect=off -- x", NULL), "ro -- x");
	CHECK_STR(set("-- single", "split_lock_detect=warn"), "split_lock_detect=warn -- single");
	CHECK_STR(set("a \"--\" b", "split_lock_detect=warn"), "a \"--\" b split_lock_detect=warn");
	CHECK_INT(sl_cmdline_count(line, strlen(line), NULL), 0);
}

/* mkinitcpio's files: comment lines neither count nor change. */
TEST(cmdline_file_keeps_comments)
{
	char *out = NULL;

	CHECK_INT(sl_cmdline_file_set("# split_lock_detect=off old\nro split_lock_detect=off\n# end\n",
				      "split_lock_detect=warn", &out), 0);
	CHECK_STR(out, "# split_lock_detect=off old\nro split_lock_detect=warn\n# end\n");
	free(out);
	CHECK_INT(sl_cmdline_file_set("# only a comment\n", "split_lock_detect=warn", &out), 0);
	CHECK_STR(out, "# only a comment\nsplit_lock_detect=warn\n");
	free(out);
	CHECK_INT(sl_cmdline_file_join("a\n # b split_lock_detect=off\nc\n", &out), 0);
	CHECK_STR(out, "a c");
	free(out);
}

static int eval(const char *text, struct sl_grub_result *res)
{
	struct sl_sh_file f = { "/etc/default/grub", text };

	return sl_grub_eval(&f, 1, res);
}

TEST(grub_eval_like_sh)
{
	struct sl_grub_result res;

	CHECK_INT(eval("# c\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
		       "export GRUB_CMDLINE_LINUX='a \"b c\"'\n"
		       "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT q\\\"x\"  # tail\n"
		       "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} z\"\n", &res), 0);
	CHECK_STR(res.linux_, "a \"b c\"");
	CHECK_STR(res.linux_default, " q\"x z");
	CHECK_INT(res.n_assigns, 3);
	sl_grub_result_free(&res);
}

TEST(grub_eval_refuses)
{
	static const char *const bad[] = {
		"GRUB_CMDLINE_LINUX=\"quiet\n",
		"GRUB_CMDLINE_LINUX='quiet\n",
		"GRUB_CMDLINE_LINUX=\"a\nb\"\n",
		"GRUB_CMDLINE_LINUX=\"$HOME\"\n",
		"GRUB_CMDLINE_LINUX=\"$(cat /x)\"\n",
		"X=`date`\nGRUB_CMDLINE_LINUX=\"$X\"\n",
		"if true; then GRUB_CMDLINE_LINUX=a; fi\n",
		"GRUB_CMDLINE_LINUX=a; echo\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sl_grub_result res;

		CHECK_INT(eval(bad[i], &res), -EBADMSG);
		CHECK(res.error != NULL);
		sl_grub_result_free(&res);
	}
}

/* Found by fuzz-cmdline-edit: appending after an open quote hid the word. */
TEST(cmdline_set_refuses_unbalanced_quotes)
{
	char *out = NULL;

	CHECK_INT(sl_cmdline_set("root=/dev/sda li\"snpul", 20, "split_lock_detect=off", &out), -EBADMSG);
	CHECK(out == NULL);
	CHECK_INT(sl_cmdline_set("a=\"b c\" d", 9, "split_lock_detect=off", &out), 0);
	CHECK_STR(out, "a=\"b c\" d split_lock_detect=off");
	free(out);
}

TEST(diff_is_unified)
{
	char *out = NULL;

	CHECK_INT(sl_diff("/f", "a\nb\nc\n", "a\nB\nc\n", &out), 0);
	CHECK_STR(out, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
	free(out);
}
