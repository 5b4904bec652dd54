/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Modes: user input, the kernel's boot parameter, every boot line since 5.7. */
#include <errno.h>

#include "libsplitlock.h"
#include "test.h"

static const char *fmt(enum splitlock_mode mode, unsigned rate)
{
	static char buf[32];

	if (splitlock_mode_format(mode, rate, buf, sizeof(buf)) < 0)
		return "(error)";
	return buf;
}

static const char *boot_line(const char *msg)
{
	enum splitlock_mode mode;
	unsigned rate;

	if (!splitlock_mode_from_boot_line(msg, &mode, &rate))
		return "(none)";
	return fmt(mode, rate);
}

static const char *cmdline(const char *text)
{
	enum splitlock_mode mode;
	unsigned rate;

	if (!splitlock_mode_from_cmdline(text, &mode, &rate))
		return "(none)";
	return fmt(mode, rate);
}

#define P "x86/split lock detection: "

TEST(boot_lines_5_7_to_5_12)
{
	CHECK_STR(boot_line(P "warning about user-space split_locks"), "warn");
	CHECK_STR(boot_line(P "sending SIGBUS on user-space split_locks"), "fatal");
	CHECK_STR(boot_line(P "disabled"), "off");
}

TEST(boot_lines_5_13_and_later)
{
	CHECK_STR(boot_line(P "#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks"), "warn");
	CHECK_STR(boot_line(P "#AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks"), "fatal");
	CHECK_STR(boot_line(P "#DB: warning on user-space bus_locks"), "warn");
	CHECK_STR(boot_line(P "#DB: sending SIGBUS on user-space bus_locks"), "fatal");
	CHECK_STR(boot_line(P "#DB: sending SIGBUS on user-space bus_locks from non-WB"), "fatal");
	CHECK_STR(boot_line(P "#DB: setting system wide bus lock rate limit to 7/sec"), "ratelimit:7");
	CHECK_STR(boot_line(P "#DB: setting system wide bus lock rate limit to 1000/sec"), "ratelimit:1000");
	CHECK_STR(boot_line(P "disabled\n"), "off");
}

TEST(boot_lines_of_the_patched_kernel)
{
	CHECK_STR(boot_line(P "#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks with an unconditional penalty"), "seq");
	CHECK_STR(boot_line(P "#DB: warning on user-space bus_locks with an unconditional penalty"), "seq");
}

TEST(boot_lines_that_are_not_the_detector)
{
	CHECK_STR(boot_line("#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks"), "(none)");
	CHECK_STR(boot_line(P "#AC: game/1234 took a split_lock trap at address: 0x4011d6"), "(none)");
	CHECK_STR(boot_line(P "No splitlock CPU offline handler"), "(none)");
	CHECK_STR(boot_line(P "#DB: setting system wide bus lock rate limit to 0/sec"), "(none)");
	CHECK_STR(boot_line(P "#DB: setting system wide bus lock rate limit to /sec"), "(none)");
	CHECK_STR(boot_line(P "#DB: setting system wide bus lock rate limit to 5/secs"), "(none)");
	CHECK_STR(boot_line(P "disabledX"), "(none)");
	CHECK_STR(boot_line(""), "(none)");
}

TEST(cmdline_last_parameter_wins)
{
	CHECK_STR(cmdline("quiet split_lock_detect=fatal ro split_lock_detect=off"), "off");
	CHECK_STR(cmdline("split_lock_detect=off split_lock_detect=ratelimit:10"), "ratelimit:10");
	CHECK_STR(cmdline("root=/dev/sda1 quiet"), "(none)");
	CHECK_STR(cmdline(""), "(none)");
}

TEST(cmdline_values_the_kernel_falls_back_to_warn_for)
{
	CHECK_STR(cmdline("split_lock_detect=bogus"), "warn");
	CHECK_STR(cmdline("split_lock_detect=ratelimit:0"), "warn");
	CHECK_STR(cmdline("split_lock_detect=ratelimit:1001"), "warn");
	CHECK_STR(cmdline("split_lock_detect=ratelimit:-3"), "warn");
	CHECK_STR(cmdline("split_lock_detect=offx"), "warn");
	CHECK_STR(cmdline("split_lock_detect=OFF"), "warn");
	CHECK_STR(cmdline("split_lock_detect="), "warn");
	CHECK_STR(cmdline("split_lock_detect"), "warn");
}

TEST(cmdline_kernel_quirks)
{
	/* sscanf("%d") stops at the first non-digit: the kernel takes 5. */
	CHECK_STR(cmdline("split_lock_detect=ratelimit:5abc"), "ratelimit:5");
	CHECK_STR(cmdline("split_lock_detect=ratelimit:1"), "ratelimit:1");
	CHECK_STR(cmdline("split_lock_detect=ratelimit:1000"), "ratelimit:1000");
	/* Only 19 bytes of the value reach the parser. */
	CHECK_STR(cmdline("split_lock_detect=ratelimit:000000000000000005"), "warn");
	/* Other parameters that merely contain the name do not count. */
	CHECK_STR(cmdline("xsplit_lock_detect=off"), "(none)");
	CHECK_STR(cmdline("split_lock_detector=off"), "(none)");
	CHECK_STR(cmdline("\"split_lock_detect=fatal\" quiet"), "fatal");
	CHECK_STR(cmdline("a\tsplit_lock_detect=off\n"), "off");
	CHECK_STR(cmdline("split_lock_detect=seq"), "seq");
}

TEST(parse_is_strict)
{
	enum splitlock_mode mode;
	unsigned rate = 99;

	CHECK_INT(splitlock_mode_parse("off", &mode, &rate), 0);
	CHECK_INT(mode, SPLITLOCK_MODE_OFF);
	CHECK_INT(splitlock_mode_parse("seq", &mode, &rate), 0);
	CHECK_INT(mode, SPLITLOCK_MODE_SEQ);
	CHECK_INT(splitlock_mode_parse("ratelimit:250", &mode, &rate), 0);
	CHECK_INT(mode, SPLITLOCK_MODE_RATELIMIT);
	CHECK_INT(rate, 250);
	CHECK_INT(splitlock_mode_parse("ratelimit:0", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("ratelimit:1001", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("ratelimit:5abc", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("ratelimit:", &mode, &rate), -EINVAL);
	/* Found by fuzz-mode: accepted text must format back unchanged. */
	CHECK_INT(splitlock_mode_parse("ratelimit:0999", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("ratelimit:01", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("ratelimit", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("Warn", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse("", &mode, &rate), -EINVAL);
	CHECK_INT(splitlock_mode_parse(NULL, &mode, &rate), -EINVAL);
}

TEST(format_round_trips)
{
	static const char *const modes[] = { "off", "warn", "seq", "fatal", "ratelimit:1", "ratelimit:1000" };
	char small[4];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		enum splitlock_mode mode;
		unsigned rate;

		CHECK_INT(splitlock_mode_parse(modes[i], &mode, &rate), 0);
		CHECK_STR(fmt(mode, rate), modes[i]);
	}
	CHECK_INT(splitlock_mode_format(SPLITLOCK_MODE_FATAL, 0, small, sizeof(small)), -ENOSPC);
	CHECK_INT(splitlock_mode_format(SPLITLOCK_MODE_UNKNOWN, 0, small, sizeof(small)), -EINVAL);
	CHECK_INT(splitlock_mode_format((enum splitlock_mode)99, 0, small, sizeof(small)), -EINVAL);
	CHECK_INT(splitlock_mode_format(SPLITLOCK_MODE_RATELIMIT, 0, small, sizeof(small)), -EINVAL);
	CHECK_INT(splitlock_mode_format(SPLITLOCK_MODE_RATELIMIT, 1001, small, sizeof(small)), -EINVAL);
}
