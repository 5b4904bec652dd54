/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A dump cut inside a record, with another dump appended after it ("cat
 * cut whole > joined"): the next dump's first record runs on into the
 * cut one's line. Where the cut fell in the record's head or in the
 * first words of a detector line, nothing on that line says "detector"
 * any more, and the record it was is lost without a trace unless the
 * seam itself is seen.
 *
 * One rule for every text form, instead of a grammar of cut heads per
 * form: the seam is a place on the line where the form's own parser
 * reads a whole record head (the next dump's), and everything before it
 * has the shape of a head of the same form, cut short, or of a whole
 * head and the start of a detector line. Shape: digits and blanks are
 * one class, letters (and UTF-8, for localized month names) another,
 * runs of a class count once, every other byte is itself. So
 * "[  502.00" is a cut "[    0.000000] ", "2026-12-03T09:1" a cut
 * "2026-12-03T09:18:33,000000+00:00 [    T0] ", "kern  :wa" a cut
 * "kern  :info  : ", "4,1,5000000,-,c" a cut "6,0,0,-,caller=T0;",
 * whatever the widths of the numbers and the names of the levels.
 *
 * Forms without a head (dmesg -t, journalctl -o cat) show a seam only
 * where the next dump begins with the kernel's banner; see slctl(8).
 */
#include "log/format.h"

/* A byte's class for the shape of a head. */
static inline char shape_class(unsigned char c)
{
	if ((c >= '0' && c <= '9') || c == ' ')
		return '0';
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)
		return 'a';
	return (char)c;
}

/* The class of the run at *@pp, which it passes. */
static char next_shape(const char **pp, const char *end)
{
	const char *p = *pp;
	char c = shape_class((unsigned char)*p++);

	if (c == '0' || c == 'a')
		while (p < end && shape_class((unsigned char)*p) == c)
			p++;
	*pp = p;
	return c;
}

/* How far into a line a seam is looked for: the longest head (an ISO
 * stamp, a host, a tag, a kernel stamp and a caller id) and a detector
 * line's first words. */
#define SEAM_REACH 160

/* Past a colour's CSI sequence at @p ("\e[1;33m"), or what of it there
 * is; *@cut where it ends before its final letter. */
static const char *skip_colour(const char *p, const char *end, bool *cut)
{
	p++;
	/* An ESC without its '[' (another's after it) was cut there. */
	if (p >= end || *p != '[') {
		*cut = true;
		return p;
	}
	p++;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == ';'))
		p++;
	*cut = p == end;
	if (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		p++;
	return p;
}

/*
 * [@p, @end), what stands after a whole head on a cut line: nothing, the
 * start of a detector line, or a kernel stamp and printk caller id
 * inside the message (rsyslog keeps them: "kernel: [  5.000000] "),
 * whole or cut short.
 */
static int cut_message_start(const char *p, const char *end)
{
	char plain[SEAM_REACH] = "";
	size_t n = 0;
	bool cut = false;
	int64_t usec;
	int r;

	/* Colours left out (dmesg --color=always), one cut short noted. */
	if (memchr(p, '\x1b', (size_t)(end - p))) {
		while (p < end && n < sizeof(plain)) {
			if (*p == '\x1b') {
				bool c;

				p = skip_colour(p, end, &c);
				cut |= c;
			} else {
				plain[n++] = *p++;
			}
		}
		r = cut_message_start(plain, plain + n);
		return r == 2 && cut ? 1 : r;
	}

	/* A hole of NULs after a cut (a crash on a file system that
	 * allocates late): the text before it is what was kept. */
	while (end > p && end[-1] == '\0')
		end--;
	p = sl_skip_caller_id(sl_skip_kernel_stamp(p, end, &usec), end);
	if (p == end)
		return 2;
	if (sl_detector_start_prefix(p, (size_t)(end - p)))
		return 1;
	if (*p != '[' || end - p > 24 || memchr(p, ']', (size_t)(end - p)))
		return 0;
	for (const char *q = p + 1; q < end; q++)
		if (!((*q >= '0' && *q <= '9') || *q == ' ' || *q == '.' || *q == 'T' ||
		      *q == 'C' || *q == '<' || *q == '+'))
			return 0;
	return 1;
}

/* [@p, @end) holds only blanks. */
static bool blanks_only(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p == end;
}

/* [@p, @end): a printk caller id, "[ T4242]" or "[    C0]". */
static bool caller_id(const char *p, const char *end)
{
	return sl_skip_caller_id(p, end) == end;
}


/*
 * [@line, @hend): a head of the form cut short, or a whole one and the
 * start of a detector line, where [@at, @msg) is the head of the record
 * that follows (@hend: @at less the next dump's indentation): 0 if not, 1 if so, 2 if it is a whole head and nothing
 * after it (a record cut right before its message; some forms ask more
 * of the record after such a one).
 */
static int cut_head(const char *line, const char *hend, const char *at, const char *msg)
{
	const char *h = line, *g = at, *h0, *g0;
	bool any = false;

	while (h < hend) {
		char c, d;

		/* NULs a crash left after the cut: no part of the head. */
		if (*h == '\0') {
			h++;
			continue;
		}
		/* A colour, whole or cut (dmesg --color=always): the next
		 * dump's head is read with its colours left out. */
		if (*h == '\x1b') {
			bool cut;

			h = skip_colour(h, hend, &cut);
			any |= cut;
			continue;
		}
		if (g == msg)
			return cut_message_start(h, hend);
		any = true;
		h0 = h;
		g0 = g;
		c = next_shape(&h, hend);
		d = next_shape(&g, msg);
		/*
		 * Padding on one side only ("warn  :" against "notice:", as
		 * dmesg -x pads its levels): a run of blanks alone is no part
		 * of the shape.
		 */
		if (c != d && c == '0' && blanks_only(h0, h) && h < hend)
			c = next_shape(&h, hend);
		else if (c != d && d == '0' && blanks_only(g0, g) && g < msg)
			d = next_shape(&g, msg);
		if (c != d)
			return 0;
		/*
		 * A stamp or caller id in brackets matches one of any kind: a
		 * log mixes them (dmesg -H's minute and its deltas, -e). One
		 * cut short is the line's end.
		 */
		if (c == '[') {
			const char *close = memchr(g, ']', (size_t)(msg - g));
			const char *hclose = memchr(h, ']', (size_t)(hend - h));

			if (!close)
				return 0;
			if (!hclose)
				return hend - h < 40 ? 1 : 0;
			/* But a caller id ("[ T4242]") only one. */
			if (caller_id(g - 1, close + 1) != caller_id(h - 1, hclose + 1))
				return 0;
			g = close + 1;
			h = hclose + 1;
		}
	}
	/* Whole colours alone are the line's own. */
	if (!any)
		return 0;
	return g == msg ? 2 : 1;
}


/*
 * [@line, @hend): a whole head of the form (its own parser reads it) and
 * after it nothing or the start of a detector line, as cut_message_start()
 * says, whatever the next record's head looks like: a cut kernel line
 * with the next dump's first line, a program's ("host systemd[1]: "),
 * after it, whose tag has another shape than "kernel:".
 */
static int whole_head_cut(const char *line, const char *hend, const struct sl_head_form *form)
{
	const char *own = form->head(line, hend, false, form->ctx);

	return own && own <= hend ? cut_message_start(own, hend) : 0;
}

/*
 * Where the next record's head may be of any shape (any_next_head), its
 * stamp may be of another style than the line's own ("Dec  3 ..." then
 * "2024-12-04T09:00:00..." after an upgrade): a word's first digit or
 * letter may begin it.
 */
static bool other_stamp_start(const char *p, const char *end, const struct sl_head_form *form)
{
	if (!form->any_next_head)
		return false;
	/* A year run on into a cut stamp's digits ("[    6.02024-12-04T"). */
	if (sl_digit(*p))
		return !sl_digit(p[-1]) || (end - p > 4 && sl_digit(p[1]) && sl_digit(p[2]) &&
					     sl_digit(p[3]) && p[4] == '-');
	/* A word's first letter, or a capital run on into a word ("xDec",
	 * "kernDec": the cut word, then the next dump's month). */
	return shape_class((unsigned char)*p) == 'a' &&
	       (shape_class((unsigned char)p[-1]) != 'a' ||
		(*p >= 'A' && *p <= 'Z' && p[-1] >= 'a' && p[-1] <= 'z'));
}

/* The kernel's first line of a boot, where the next dump begins with it. */
static const char banner[] = "Linux version ";

/* (log/format.h) */
bool sl_joined_line(const char *line, const char *end, const struct sl_head_form *form)
{
	size_t reach = form->reach ? form->reach : SEAM_REACH;
	const char *stop = (size_t)(end - line) > reach ? line + reach : end;
	const char *hole = memchr(line, '\0', (size_t)(stop - line));

	/* A hole of NULs after a cut (a crash) is no part of the reach. */
	if (hole) {
		const char *after = sl_skip_nuls(hole, end);

		stop = (size_t)(end - after) > (size_t)(stop - hole) ? after + (stop - hole) : end;
	}
	const char *token;
	bool own_strict;
	char first;

	/*
	 * No head (dmesg -t, journalctl -o cat): the detector's first words,
	 * then the banner. (Only lines that begin as a detector line can.)
	 */
	if (line < end && strchr("x#tsh", *line)) {
		const char *p = memmem(line, (size_t)(stop - line), banner, sizeof(banner) - 1);

		if (p && p > line && sl_detector_start_prefix(line, (size_t)(p - line)))
			return true;
	}
	if (!form->head || line == end)
		return false;
	/* A colour first: the head is the '[' after it. */
	first = shape_class((unsigned char)(*line == '\x1b' ? '[' : *line));
	/*
	 * Inside the line's first word a head may be the line's own, read
	 * from its second byte ("ec  3 10:42:35" of "Dec  3 ...", a month
	 * no locale has, "764547205.000000" of a Unix time): one there is
	 * the next dump's only where the line's own head does not read
	 * and that one does, strictly ("DeDec  3 ...").
	 */
	token = line;
	next_shape(&token, end);
	own_strict = token > line + 1 && form->head(line, end, true, form->ctx);
	for (const char *p = line + 1; p < stop; p++) {
		const char *msg, *hend;
		int r;

		/*
		 * The next dump's head begins as this line's own does (a
		 * digit, a letter, '[', '<'); a colour's own '[' begins none.
		 */
		if ((shape_class((unsigned char)*p) != first && !other_stamp_start(p, end, form)) ||
		    (*p == '[' && p[-1] == '\x1b') || !(msg = form->head(p, end, false, form->ctx)))
			continue;
		/* The next dump's lines are indented as this one's were
		 * (a pasted log): its blanks are no part of the cut head. */
		hend = p;
		while (hend > line && p - hend < (ptrdiff_t)form->indent && hend[-1] == ' ')
			hend--;
		if (p < token && (own_strict || !form->head(p, end, true, form->ctx)))
			continue;
		r = cut_head(line, hend, p, msg);
		if (!r && form->any_next_head)
			r = whole_head_cut(line, hend, form);
		/* A head of the line's own style cut short, before a head of
		 * another style (which never has its shape). */
		if (!r && form->cut_short && form->cut_short(line, hend, form->ctx) &&
		    form->head(p, end, true, form->ctx))
			r = 1;
		if ((r == 1 || (r == 2 && form->head(p, end, true, form->ctx))) &&
		    (!form->maybe_kernel || form->maybe_kernel(line, hend, form->ctx)))
			return true;
	}
	return false;
}
