/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The edges of the API a program may reach: what a program built for a
 * later library passes to this one (a flag bit or an enum value this
 * library does not know is refused with -EINVAL: a flag ignored would do
 * less than the caller asked, silently; every name function gives NULL
 * for a value outside its enum), and the out-parameters documented as
 * optional.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

#define LATER_FLAG (1u << 31)

TEST(unknown_flags_and_groups_are_refused)
{
	struct splitlock_ctx *ctx;
	struct splitlock_boot_plan *bp = (struct splitlock_boot_plan *)1;
	struct splitlock_offenders *rep = (struct splitlock_offenders *)1;
	struct splitlock_mitigate_plan *mp = NULL;
	char *content = NULL;

	fake_root_make("later");
	put("/proc/sys/kernel/osrelease", "6.12.0\n");
	put("/proc/sys/kernel/split_lock_mitigate", "1\n");
	ctx = fake_root_ctx();

	CHECK_INT(splitlock_boot_plan_new(ctx, "grub", LATER_FLAG, &bp), -EINVAL);
	CHECK(bp == NULL);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, LATER_FLAG, &rep), -EINVAL);
	CHECK(rep == NULL);
	rep = (struct splitlock_offenders *)1;
	CHECK_INT(splitlock_offenders_new(ctx, (enum splitlock_group)99, 0, &rep), -EINVAL);
	CHECK(rep == NULL);
	CHECK_INT(splitlock_sysctld_persist(ctx, "kernel.split_lock_mitigate", "0",
					    SPLITLOCK_WRITE_DRY_RUN | LATER_FLAG, &content), -EINVAL);
	CHECK(content == NULL);
	CHECK(get("/etc/sysctl.d/zz-slctl.conf") == NULL);
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, LATER_FLAG, &mp), -EINVAL);

	/* The flags this library knows still work. */
	CHECK_INT(splitlock_boot_plan_new(ctx, "grub", SPLITLOCK_BOOT_RUN_TOOLS, &bp), 0);
	splitlock_boot_plan_free(bp);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_UNIT, SPLITLOCK_OFFENDERS_RESOLVE, &rep), 0);
	splitlock_offenders_unref(rep);
	CHECK_INT(splitlock_sysctld_persist(ctx, "kernel.split_lock_mitigate", "0",
					    SPLITLOCK_WRITE_DRY_RUN, &content), 0);
	CHECK(content != NULL);
	free(content);
	CHECK(get("/etc/sysctl.d/zz-slctl.conf") == NULL);
	splitlock_unref(ctx);
	fake_root_remove();
}

TEST(name_functions_give_null_past_their_enum)
{
	CHECK_STR(splitlock_kind_name(SPLITLOCK_KIND_BUS_LOCK), "bus_lock");
	CHECK(splitlock_kind_name((enum splitlock_kind)99) == NULL);
	CHECK_STR(splitlock_action_name(SPLITLOCK_ACTION_SIGBUS), "sigbus");
	CHECK(splitlock_action_name((enum splitlock_action)99) == NULL);
	CHECK_STR(splitlock_group_name(SPLITLOCK_GROUP_UNIT), "unit");
	CHECK(splitlock_group_name((enum splitlock_group)99) == NULL);
	CHECK(splitlock_group_name((enum splitlock_group)-1) == NULL);
	CHECK_STR(splitlock_mode_source_name(SPLITLOCK_SOURCE_NONE), "none");
	CHECK(splitlock_mode_source_name((enum splitlock_mode_source)99) == NULL);
}

/* A call that fails returns no object: its out pointer is NULL. */
TEST(failed_calls_leave_their_out_pointer_null)
{
	struct splitlock_ctx *ctx;
	struct splitlock_sysctld *sd = (struct splitlock_sysctld *)1;
	struct splitlock_offenders *rep = NULL;
	struct splitlock_follow *fol = (struct splitlock_follow *)1;
	char key[300], *content = (char *)1;

	fake_root_make("outs");
	ctx = fake_root_ctx();
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	CHECK(splitlock_sysctld_resolve(ctx, key, &sd) < 0);
	CHECK(sd == NULL);
	CHECK(splitlock_sysctld_persist(ctx, "", "0", 0, &content) < 0);
	CHECK(content == NULL);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &rep), 0);
	/* no /dev/kmsg under this root */
	CHECK(splitlock_follow_new(rep, false, &fol) < 0);
	CHECK(fol == NULL);
	splitlock_offenders_unref(rep);
	splitlock_unref(ctx);
	fake_root_remove();
}

TEST(parsers_refuse_null)
{
	enum splitlock_input_format f = SPLITLOCK_INPUT_DMESG;
	enum splitlock_mode m = SPLITLOCK_MODE_WARN;
	enum splitlock_group g = SPLITLOCK_GROUP_EXE;
	unsigned rate = 0;

	CHECK_INT(splitlock_input_format_parse(NULL, &f), -EINVAL);
	CHECK_INT(f, SPLITLOCK_INPUT_DMESG);
	CHECK_INT(splitlock_mode_from_cmdline(NULL, &m, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse(NULL, &m, &rate), -EINVAL);
	CHECK_INT(splitlock_group_parse(NULL, &g), -EINVAL);
	CHECK_INT(m, SPLITLOCK_MODE_WARN);
}

TEST(boot_read_takes_no_source_and_an_alias)
{
	struct splitlock_ctx *ctx;
	enum splitlock_mode mode = SPLITLOCK_MODE_UNKNOWN;
	unsigned rate = 0;
	char *source = NULL;

	fake_root_make("bootread");
	put("/etc/kernel/cmdline", "root=/dev/sda1 split_lock_detect=fatal\n");
	ctx = fake_root_ctx();
	CHECK_INT(splitlock_boot_read(ctx, "kernel-install", &mode, &rate, NULL), 1);
	CHECK_INT(mode, SPLITLOCK_MODE_FATAL);
	mode = SPLITLOCK_MODE_UNKNOWN;
	CHECK_INT(splitlock_boot_read(ctx, "systemd-boot", &mode, &rate, &source), 1);
	CHECK_INT(mode, SPLITLOCK_MODE_FATAL);
	CHECK(source && strstr(source, "/etc/kernel/cmdline"));
	free(source);
	CHECK_INT(splitlock_boot_read(ctx, "lilo", &mode, &rate, NULL), -EINVAL);
	CHECK_INT(splitlock_boot_read(ctx, NULL, &mode, &rate, NULL), -EINVAL);
	CHECK_STR(splitlock_boot_backend_name("systemd-boot"), "kernel-install");
	CHECK_STR(splitlock_boot_backend_name("grub"), "grub");
	CHECK(splitlock_boot_backend_name("lilo") == NULL);
	CHECK(splitlock_boot_backend_name(NULL) == NULL);
	CHECK_STR(splitlock_boot_backend_alias("kernel-install", 0), "systemd-boot");
	CHECK(splitlock_boot_backend_alias("kernel-install", 1) == NULL);
	CHECK(splitlock_boot_backend_alias("systemd-boot", 0) == NULL);
	splitlock_unref(ctx);
	fake_root_remove();
}
