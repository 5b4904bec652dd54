/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The mitigate plan, through the public API only, on small fake roots. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

/* A stock 6.x kernel with misery on and no sysctl.d file setting it. */
static struct splitlock_ctx *fresh_root(void)
{
	struct splitlock_ctx *ctx;

	strcpy(root, "/tmp/slctl-test-mitigate-XXXXXX");
	if (!mkdtemp(root))
		abort();
	put("/proc/sys/kernel/split_lock_mitigate", "1\n");
	put("/proc/cmdline", "quiet\n");
	put("/etc/sysctl.d/.keep", "");
	ctx = splitlock_new(root);
	if (!ctx)
		abort();
	splitlock_set_log_priority(ctx, 0);
	return ctx;
}

static void done(struct splitlock_ctx *ctx)
{
	char cmd[128];

	splitlock_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		abort();
}

TEST(plan_applies_and_reads_back_both_values)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = NULL;
	char *file = NULL;
	int value = -1;

	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, SPLITLOCK_MITIGATE_PERSIST, &plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_refusal(plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_previous(plan), 1);
	CHECK_INT(splitlock_mitigate_plan_get_running(plan), -1);
	CHECK_INT(splitlock_mitigate_plan_get_capability(plan), SPLITLOCK_CAP_SYS_ADMIN);
	CHECK(strstr(splitlock_mitigate_plan_get_dropin(plan), "\nkernel.split_lock_mitigate = 0\n") != NULL);
	CHECK(splitlock_mitigate_plan_get_override(plan, NULL, NULL) == NULL);
	/* Planning wrote nothing. */
	CHECK(get(SPLITLOCK_SYSCTLD_DROPIN) == NULL);
	CHECK_STR(get("/proc/sys/kernel/split_lock_mitigate"), "1\n");

	CHECK_INT(splitlock_mitigate_plan_apply(plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_running(plan), 0);
	CHECK(splitlock_mitigate_plan_is_persisted(plan));
	CHECK_STR(get("/proc/sys/kernel/split_lock_mitigate"), "0\n");
	CHECK_STR(get(SPLITLOCK_SYSCTLD_DROPIN), splitlock_mitigate_plan_get_dropin(plan));
	CHECK_INT(splitlock_mitigate_get_persisted(ctx, &value, &file, NULL), 1);
	CHECK_INT(value, 0);
	CHECK_STR(file, SPLITLOCK_SYSCTLD_DROPIN);
	free(file);
	CHECK(splitlock_mitigate_plan_free(plan) == NULL);
	done(ctx);
}

TEST(plan_without_persist_leaves_sysctl_d_alone)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = NULL;

	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, 0, &plan), 0);
	CHECK(splitlock_mitigate_plan_get_dropin(plan) == NULL);
	CHECK_INT(splitlock_mitigate_plan_apply(plan), 0);
	CHECK(!splitlock_mitigate_plan_is_persisted(plan));
	CHECK(get(SPLITLOCK_SYSCTLD_DROPIN) == NULL);
	CHECK_STR(get("/proc/sys/kernel/split_lock_mitigate"), "0\n");
	splitlock_mitigate_plan_free(plan);
	done(ctx);
}

TEST(override_names_file_line_and_value)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = NULL;
	const char *value = NULL;
	unsigned line = 0;

	put("/etc/sysctl.d/zzz-local.conf", "# local\nkernel/split_lock_mitigate=1\n");
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, SPLITLOCK_MITIGATE_PERSIST, &plan), 0);
	CHECK_STR(splitlock_mitigate_plan_get_override(plan, &line, &value),
		  "/etc/sysctl.d/zzz-local.conf");
	CHECK_INT(line, 2);
	CHECK_STR(value, "1");
	splitlock_mitigate_plan_free(plan);
	/* The same value later is no override. */
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 1, SPLITLOCK_MITIGATE_PERSIST, &plan), 0);
	CHECK(splitlock_mitigate_plan_get_override(plan, NULL, NULL) == NULL);
	splitlock_mitigate_plan_free(plan);
	done(ctx);
}

TEST(refusals_carry_a_sentence_that_names_no_program_option)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = NULL;
	const char *msg;

	put(SPLITLOCK_SYSCTLD_DROPIN, "kernel.split_lock_mitigate = 1\n");
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, SPLITLOCK_MITIGATE_PERSIST, &plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_refusal(plan), -EEXIST);
	msg = splitlock_mitigate_plan_get_error(plan);
	CHECK(msg && strstr(msg, "was not written by libsplitlock"));
	CHECK(msg && !strstr(msg, "--") && !strstr(msg, "slctl mitigate"));
	CHECK_INT(splitlock_mitigate_plan_apply(plan), -EEXIST);
	CHECK_STR(get("/proc/sys/kernel/split_lock_mitigate"), "1\n");
	splitlock_mitigate_plan_free(plan);
	done(ctx);

	ctx = fresh_root();
	put("/sys/kernel/split_lock/mode", "seq\n");
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, 0, &plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_refusal(plan), -EPERM);
	msg = splitlock_mitigate_plan_get_error(plan);
	CHECK(msg && strstr(msg, "seq mode") && !strstr(msg, "slctl"));
	splitlock_mitigate_plan_free(plan);
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 1, 0, &plan), 0);
	CHECK_INT(splitlock_mitigate_plan_get_refusal(plan), 0);
	splitlock_mitigate_plan_free(plan);
	done(ctx);
}

TEST(errors_return_no_plan)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = (void *)1;

	CHECK_INT(splitlock_mitigate_plan_new(ctx, 2, 0, &plan), -EINVAL);
	CHECK(plan == NULL);
	plan = (void *)1;
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, 1u << 7, &plan), -EINVAL);
	CHECK(plan == NULL);
	done(ctx);

	ctx = fresh_root();
	put("/proc/sys/kernel/osrelease", "5.10.0\n");
	unlink(strcat(strcpy((char[128]){ 0 }, root), "/proc/sys/kernel/split_lock_mitigate"));
	plan = (void *)1;
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, SPLITLOCK_MITIGATE_PERSIST, &plan), -ENOENT);
	CHECK(plan == NULL);
	done(ctx);
}

TEST(persisted_value_other_than_0_or_1_is_ebadmsg_with_its_file)
{
	struct splitlock_ctx *ctx = fresh_root();
	char *file = NULL, *override = NULL;
	int value = -1;

	CHECK_INT(splitlock_mitigate_get_persisted(ctx, &value, &file, &override), 0);
	CHECK(file == NULL && override == NULL);
	put("/usr/lib/sysctl.d/50-odd.conf", "kernel.split_lock_mitigate = 2\n");
	CHECK_INT(splitlock_mitigate_get_persisted(ctx, &value, &file, &override), -EBADMSG);
	CHECK_STR(file, "/usr/lib/sysctl.d/50-odd.conf");
	CHECK(override == NULL);
	CHECK_INT(value, -1);
	free(file);
	put("/etc/sysctl.d/zzz.conf", "kernel.split_lock_mitigate = 0\n");
	CHECK_INT(splitlock_mitigate_get_persisted(ctx, &value, NULL, &override), 1);
	CHECK_INT(value, 0);
	CHECK_STR(override, "/etc/sysctl.d/zzz.conf");
	free(override);
	done(ctx);
}
