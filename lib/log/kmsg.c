/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's records as /dev/kmsg and syslog(2) write them, and their
 * \xNN escapes, which every log form keeps (log/live.c reads the running
 * boot's log).
 */
#include <errno.h>
#include <inttypes.h>

#include "core/internal.h"
#include "log/format.h"

/*
 * Decode \xNN escapes. @out may be @in (the decoded text is never
 * longer). Runs without a backslash are copied whole: a detector line has
 * none. /dev/kmsg escapes every byte that is not printable, and the
 * backslash (@all); text that dmesg printed escapes only the bytes that
 * are not printable: a task may name itself "GoW\x2eexe", which stays.
 */
static size_t unescape(const char *in, size_t len, char *out, bool all)
{
	size_t o = 0, i = 0;

	while (i < len) {
		const char *bs = memchr(in + i, '\\', len - i);
		size_t run = bs ? (size_t)(bs - in) - i : len - i;

		if (run) {
			memmove(out + o, in + i, run);
			o += run;
			i += run;
			if (i == len)
				break;
		}
		if (i + 3 < len && in[i + 1] == 'x') {
			int hi = sl_hexval(in[i + 2]);
			int lo = sl_hexval(in[i + 3]);

			if (hi >= 0 && lo >= 0) {
				unsigned char c = (unsigned char)(hi << 4 | lo);

				if (all || c < 0x20 || c >= 0x7f) {
					out[o++] = (char)c;
					i += 4;
					continue;
				}
			}
		}
		out[o++] = in[i++];
	}
	return o;
}

size_t sl_unescape(const char *in, size_t len, char *out)
{
	return unescape(in, len, out, true);
}

size_t sl_unescape_unprintable(const char *in, size_t len, char *out)
{
	return unescape(in, len, out, false);
}

static int parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	while (s < end && *s >= '0' && *s <= '9') {
		if (n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s++ - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

_public_ int splitlock_kmsg_parse_record(const char *text, size_t len,
					 char *buf,
					 struct splitlock_kmsg_record *rec)
{
	const char *end = text + len, *p = text, *semi, *msg_end;
	uint64_t pri, seq, usec;

	semi = memchr(text, ';', len);
	if (!semi)
		return -EINVAL;
	if (parse_u64(&p, semi, &pri) < 0 || p >= semi || *p++ != ',')
		return -EINVAL;
	if (parse_u64(&p, semi, &seq) < 0 || p >= semi || *p++ != ',')
		return -EINVAL;
	if (parse_u64(&p, semi, &usec) < 0)
		return -EINVAL;
	/* FLAGS and any future fields up to ';' are ignored. */
	if (p < semi && *p != ',')
		return -EINVAL;
	if (pri > 0x7ffff)
		return -EINVAL;

	msg_end = memchr(semi + 1, '\n', (size_t)(end - semi - 1));
	if (!msg_end)
		msg_end = end;
	rec->facility = (int)(pri >> 3);
	rec->level = (int)(pri & 7);
	rec->seq = seq;
	rec->usec = usec;
	rec->message_len = sl_unescape(semi + 1, (size_t)(msg_end - semi - 1), buf);
	buf[rec->message_len] = '\0';
	rec->message = buf;
	return 0;
}

bool sl_klog_line_parse(const char *line, size_t len, struct splitlock_kmsg_record *rec)
{
	const char *p, *end = line + len;
	int64_t usec = 0;
	int pri;

	p = sl_syslog_pri(line, end, &pri);
	if (!p)
		return false;
	p = sl_skip_kernel_stamp(p, end, &usec);
	/* CONFIG_PRINTK_CALLER: "[    5.000000][ T1234] msg" */
	p = sl_skip_caller_id(p, end);
	rec->facility = (int)(pri >> 3);
	rec->level = (int)(pri & 7);
	rec->usec = (uint64_t)usec;
	rec->message = p;
	rec->message_len = (size_t)(end - p);
	return true;
}

uint64_t sl_kmsg_seq_lost(struct sl_kmsg_seq *s, uint64_t seq)
{
	uint64_t lost = 0;

	if (!s->any) {
		if (s->from_start)
			lost = seq;
	} else if (seq > s->last + 1) {
		lost = seq - s->last - 1;
	}
	s->any = true;
	s->last = seq;
	return lost;
}
