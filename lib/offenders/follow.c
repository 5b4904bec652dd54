/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Following the kernel log as it grows. /dev/kmsg is polled (no busy
 * loop: an idle follower sleeps in poll()); each readable record is read
 * whole, EPIPE means records were overwritten and reading goes on. The
 * proc connector's exec events are fed to the report first so that a
 * process that exits right after its split lock is still named.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "offenders/offenders.h"

#define RECORD_MAX 16384
/*
 * Offenders a follower remembers (for their event counts): about 17 MiB at
 * ~260 bytes each, however many tasks a machine runs in a year.
 */
#define FOLLOW_OFFENDERS_MAX 65536

struct splitlock_follow {
	struct splitlock_offenders *report;
	int log_fd;
	bool is_device;
	int conn_fd, conn_error;
	char *raw, *decoded;
	size_t used; /* regular file: bytes of an incomplete line kept */
	uint64_t bursts_said;
};

_public_ int splitlock_follow_new(struct splitlock_offenders *report,
				  bool from_start, struct splitlock_follow **out)
{
	struct splitlock_ctx *ctx = sl_offenders_ctx(report);
	struct splitlock_follow *f;
	struct stat st;
	int64_t boot;

	*out = NULL;
	f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->report = splitlock_offenders_ref(report);
	f->conn_fd = -1;
	sl_offenders_set_limit(report, FOLLOW_OFFENDERS_MAX);
	f->raw = malloc(RECORD_MAX);
	f->decoded = malloc(RECORD_MAX);
	f->log_fd = sl_open(ctx, "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (!f->raw || !f->decoded || f->log_fd < 0) {
		int r = f->log_fd < 0 && f->raw && f->decoded ? f->log_fd : -ENOMEM;

		f->log_fd = -1;
		splitlock_follow_free(f);
		return r;
	}
	if (fstat(f->log_fd, &st) < 0) {
		int r = -errno;

		splitlock_follow_free(f);
		return r;
	}
	f->is_device = S_ISCHR(st.st_mode);
	/* From the buffer's start, its first record is numbered: a buffer
	 * that wrapped before it was read lost the records before it. */
	if (from_start)
		report->kmsg_seq = (struct sl_kmsg_seq){ .from_start = true };
	if (f->is_device)
		lseek(f->log_fd, 0, from_start ? SEEK_DATA : SEEK_END);
	else if (!from_start)
		lseek(f->log_fd, 0, SEEK_END);
	if (sl_log_epoch(ctx, &boot) == 0)
		splitlock_offenders_set_boot_time(report, boot);
	f->conn_fd = splitlock_proc_connector_open(ctx);
	if (f->conn_fd < 0) {
		f->conn_error = f->conn_fd;
		f->conn_fd = -1;
	}
	*out = f;
	return 0;
}

_public_ struct splitlock_follow *splitlock_follow_free(struct splitlock_follow *f)
{
	if (!f)
		return NULL;
	if (f->log_fd >= 0)
		close(f->log_fd);
	splitlock_proc_connector_close(f->conn_fd);
	free(f->raw);
	free(f->decoded);
	splitlock_offenders_unref(f->report);
	free(f);
	return NULL;
}

_public_ int splitlock_follow_get_log_fd(const struct splitlock_follow *f)
{
	return f->is_device ? f->log_fd : -1;
}

_public_ int splitlock_follow_get_connector_fd(const struct splitlock_follow *f)
{
	return f->conn_fd;
}

_public_ int splitlock_follow_get_connector_error(const struct splitlock_follow *f)
{
	return f->conn_error;
}

static int proc_event_cb(const struct splitlock_proc_event *ev, void *data)
{
	return splitlock_offenders_proc_event(data, ev);
}

static int one_record(struct splitlock_follow *f, const char *text, size_t len,
		      splitlock_follow_fn fn, void *data)
{
	struct splitlock_kmsg_record rec;
	const struct splitlock_offender *o = NULL;
	const char *ip = NULL;
	int r;

	if (len == 0 || text[0] == ' ')
		return 0;
	if (splitlock_kmsg_parse_record(text, len, f->decoded, &rec) < 0) {
		/* No record (a --root's /dev/kmsg file holds any text): its
		 * detector words are unread, as a saved log's would be. */
		if (sl_detector_text_unread(text, len))
			sl_unread_note(&f->report->unread, 0);
		return 0;
	}
	sl_lookup_stall_recover(sl_offenders_ctx(f->report));
	r = sl_offenders_add_record(f->report, &rec, &o, &ip);
	/*
	 * A rate limit that used up its burst drops what follows until its
	 * interval ends, and says how many only with a later warning: a
	 * report tells of such a burst at its end, a follower when it is
	 * used up.
	 */
	for (; f->bursts_said < f->report->bursts.used_up; f->bursts_said++)
		sl_unread_note_why(&f->report->unread, 0, SPLITLOCK_UNREAD_BURST_USED_UP);
	/* Said as they come: the closed ones are not kept (bounded memory). */
	sl_bursts_forget_closed(&f->report->bursts);
	if (r <= 0)
		return r;
	return fn ? fn(o, &rec, ip, data) : 0;
}

static int process_device(struct splitlock_follow *f, splitlock_follow_fn fn,
			  void *data)
{
	for (;;) {
		ssize_t n = read(f->log_fd, f->raw, RECORD_MAX - 1);
		int r;

		if (n < 0) {
			/*
			 * Records overwritten before they were read: lost. The
			 * next record's number shows it once one was read, or
			 * from the buffer's start; following from the end,
			 * before the first, nothing else would.
			 */
			if (errno == EPIPE && !f->report->kmsg_seq.any &&
			    !f->report->kmsg_seq.from_start)
				sl_unread_note_why(&f->report->unread, 0, SPLITLOCK_UNREAD_LOST);
			if (errno == EINTR || errno == EPIPE)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return 0;
		r = one_record(f, f->raw, (size_t)n, fn, data);
		if (r < 0)
			return r;
	}
}

static int process_file(struct splitlock_follow *f, splitlock_follow_fn fn,
			void *data)
{
	for (;;) {
		ssize_t n = read(f->log_fd, f->raw + f->used, RECORD_MAX - 1 - f->used);
		size_t start = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return 0;
		f->used += (size_t)n;
		for (;;) {
			char *nl = memchr(f->raw + start, '\n', f->used - start);
			int r;

			if (!nl)
				break;
			r = one_record(f, f->raw + start, (size_t)(nl - f->raw - start), fn, data);
			if (r < 0)
				return r;
			start = (size_t)(nl + 1 - f->raw);
		}
		memmove(f->raw, f->raw + start, f->used - start);
		f->used -= start;
		if (f->used == RECORD_MAX - 1) {
			/* An overlong line: dropped, and said to be. */
			if (sl_detector_text_unread(f->raw, f->used))
				sl_unread_note_why(&f->report->unread, 0,
						   SPLITLOCK_UNREAD_CUT);
			f->used = 0;
		}
	}
}

_public_ int splitlock_follow_process(struct splitlock_follow *f,
				      splitlock_follow_fn fn, void *data)
{
	if (f->conn_fd >= 0) {
		int r = splitlock_proc_connector_receive(f->conn_fd, proc_event_cb,
							 f->report);

		if (r < 0)
			sl_dbg(sl_offenders_ctx(f->report), "proc connector: %s",
			       strerror(-r));
	}
	return f->is_device ? process_device(f, fn, data) : process_file(f, fn, data);
}
