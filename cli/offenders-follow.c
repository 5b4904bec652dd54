/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders --follow: each event of the live log as it comes, until
 * a signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <syslog.h>
#include <unistd.h>

#include "offenders.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int follow_event(const struct splitlock_offender *of,
			const struct splitlock_kmsg_record *rec, const char *ip,
			void *data)
{
	const struct options *o = data;
	size_t len;
	const char *comm = splitlock_offender_get_comm(of, &len);

	if (o->format == FORMAT_JSON) {
		offenders_print_json_event(of, rec, ip);
	} else {
		const char *exe = splitlock_offender_get_exe(of);
		char name[256], where[2048], path[16384];

		/* Comm, object names in the address and the path all come from
		 * the process: none reaches the terminal unescaped. */
		offenders_printable(comm ? comm : "-", comm ? len : 1, name, sizeof(name));
		offenders_printable(ip ? ip : "?", strlen(ip ? ip : "?"), where, sizeof(where));
		offenders_printable(exe ? exe : "", exe ? strlen(exe) : 0, path, sizeof(path));
		printf("[%5" PRIu64 ".%06" PRIu64 "] %s/%" PRIu32 " %s %s%s at %s%s%s\n",
		       splitlock_kmsg_record_get_usec(rec) / 1000000,
		       splitlock_kmsg_record_get_usec(rec) % 1000000, name,
		       splitlock_offender_get_pid(of),
		       splitlock_kind_name(splitlock_offender_get_kind(of)),
		       splitlock_action_name(splitlock_offender_get_action(of)),
		       splitlock_offender_is_probe(of) ? " (probe)" : "",
		       where, exe ? " exe " : "", path);
	}
	fflush(stdout);
	return 0;
}

/*
 * A follower prints no summary, so what the report would call incomplete
 * is said on stderr as it happens: each rise of a reason's count of
 * unread lines (a record lost, detector text that did not parse, a cut
 * line, a burst used up), of the kernel's "callbacks suppressed" warnings
 * and of events the window cannot place.
 */
#define FOLLOW_REASONS 32

struct follow_tally {
	uint64_t suppressed, undated;
	uint64_t unread[FOLLOW_REASONS];
};

static void tell_news(const struct splitlock_offenders *r, struct follow_tally *t)
{
	uint64_t n = splitlock_offenders_get_suppressed(r);
	const char *name;

	if (n > t->suppressed)
		slctl_warning("the kernel's rate limit suppressed %" PRIu64 " more warning%s "
			      "(\"callbacks suppressed\"), whose tasks are not shown.",
			      n - t->suppressed, n - t->suppressed == 1 ? "" : "s");
	t->suppressed = n;
	n = splitlock_offenders_get_undated(r);
	if (n > t->undated)
		slctl_warning("%" PRIu64 " more event%s could not be placed in the --since/--until "
			      "window (the boot's start is unknown) and %s not shown.",
			      n - t->undated, n - t->undated == 1 ? "" : "s",
			      n - t->undated == 1 ? "is" : "are");
	t->undated = n;
	for (int u = 0; u < FOLLOW_REASONS && (name = splitlock_unread_name((enum splitlock_unread)u)); u++) {
		n = splitlock_offenders_get_unrecognized_by(r, (enum splitlock_unread)u);
		if (n > t->unread[u] && u == SPLITLOCK_UNREAD_BURST_USED_UP)
			slctl_warning("a rate limit used up its burst (10 warnings in 5 s): the "
				      "kernel drops the next ones until the 5 s end, and says how "
				      "many (\"callbacks suppressed\") only with a later warning.");
		else if (n > t->unread[u])
			slctl_warning("%" PRIu64 " more line%s that may hold detector text went unread "
				      "(%s): the events shown are incomplete.", n - t->unread[u],
				      n - t->unread[u] == 1 ? "" : "s", name);
		t->unread[u] = n;
	}
}

/*
 * The kernel refuses /dev/kmsg to a user without CAP_SYSLOG while
 * kernel.dmesg_restrict is 1 (a file under --root: by its mode); either
 * way, one sentence says what it takes. The exit status for @err.
 */
int offenders_kmsg_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		slctl_error("cannot read the kernel log: it needs CAP_SYSLOG (run as root) "
			    "or kernel.dmesg_restrict=0.");
	else
		slctl_error("cannot read the kernel log: %s.", strerror(-err));
	return slctl_exit_for(err);
}

int offenders_follow(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
		  const struct options *o)
{
	struct splitlock_follow *f;
	struct sigaction sa = { .sa_handler = on_signal };
	struct follow_tally tally = { 0 };
	int ret = splitlock_follow_new(r, o->since != NULL, &f);
	int err;

	if (ret < 0)
		return offenders_kmsg_error(ret);
	err = splitlock_follow_get_connector_error(f);
	if (err == -EPERM || err == -EACCES)
		slctl_warning("process events unavailable (needs CAP_NET_ADMIN): a task that "
			      "exits before its line is read stays unnamed.");
	else if (err == -EXDEV)
		slctl_warning("process events are only followed on the running system, not under --root.");
	else if (err == -EOPNOTSUPP)
		slctl_warning("process events unavailable in a container or non-initial "
			      "namespace: a task that exits before its line is read stays unnamed.");
	else if (err < 0)
		slctl_warning("process events unavailable: %s.", strerror(-err));
	/* The library's warnings say what a long follow forgets: show them. */
	if (splitlock_get_log_priority(ctx) < LOG_WARNING)
		splitlock_set_log_priority(ctx, LOG_WARNING);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		struct pollfd pfd[2];
		int n = 0;
		int timeout = -1;

		if (splitlock_follow_get_log_fd(f) >= 0)
			pfd[n++] = (struct pollfd){ splitlock_follow_get_log_fd(f), POLLIN, 0 };
		else
			timeout = 500; /* a regular file cannot be polled */
		if (splitlock_follow_get_connector_fd(f) >= 0)
			pfd[n++] = (struct pollfd){ splitlock_follow_get_connector_fd(f), POLLIN, 0 };
		ret = splitlock_follow_process(f, follow_event, (void *)o);
		tell_news(r, &tally);
		if (ret < 0)
			break;
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	splitlock_follow_free(f);
	if (ret < 0)
		return offenders_kmsg_error(ret);
	return EXIT_OK;
}
