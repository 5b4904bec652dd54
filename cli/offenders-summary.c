/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sentences after a report: what it could not read, place or trust. */
#include <inttypes.h>
#include <stdio.h>

#include "offenders.h"

/*
 * Events a --since/--until window could not place: the log gives no time.
 * The count holds the kernel's suppressed events too: "8 events" of a log
 * that showed 4 read as a miscount.
 */
const char *offenders_undated_sentence(const struct splitlock_offenders *r)
{
	static char buf[512];
	uint64_t n = splitlock_offenders_get_undated(r);

	snprintf(buf, sizeof(buf), "%" PRIu64 " event%s (logged or suppressed by the kernel's "
		 "rate limit) cannot be placed by --since/--until, so this report is incomplete: "
		 "this log's form gives %s no wall-clock time, or only the second, or no year "
		 "across a gap of months, or a local hour that a fall back repeats, or the rate "
		 "limit's late count only, inside which the bound falls (dmesg --time-format iso "
		 "and journalctl -o short-iso-precise give exact times)",
		 n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	return buf;
}

/*
 * Events that may be a dump's repeat: counted, never silently (a file of
 * dmesg >> saved.log run twice, in a form whose stamps cannot prove it).
 */
const char *offenders_maybe_repeated_sentence(const struct splitlock_offenders *r)
{
	static char buf[400];
	uint64_t n = splitlock_offenders_get_maybe_repeated(r);

	snprintf(buf, sizeof(buf), "%" PRIu64 " event%s (logged or suppressed by the kernel's "
		 "rate limit) in this log repeat%s an earlier one "
		 "(an earlier boot's text, the task and address of a split lock, which the "
		 "kernel warns of once a task, or, where no stamp shows, of a bus lock), and "
		 "this form's stamps cannot tell a dump saved "
		 "twice from a new event, so %s may be counted twice and this report is incomplete",
		 n, n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "it" : "they");
	return buf;
}

/* Every event of the log counted once, none left out or maybe twice. */
bool offenders_report_complete(const struct splitlock_offenders *r)
{
	return splitlock_offenders_get_suppressed(r) == 0 &&
	       splitlock_offenders_get_unrecognized(r, NULL) == 0 &&
	       splitlock_offenders_get_undated(r) == 0 &&
	       splitlock_offenders_get_maybe_repeated(r) == 0;
}

/* Never silently incomplete: say how much detector text was not read. */
void offenders_print_unrecognized(FILE *out, const struct options *o,
				  const struct splitlock_offenders *r)
{
	uint64_t first, n = splitlock_offenders_get_unrecognized(r, &first);

	if (n && first)
		fprintf(out, "%" PRIu64 " line%s that may hold detector text could not be read (the first "
		       "is line %" PRIu64 "), so this report is incomplete.\n",
		       n, n == 1 ? "" : "s", first);
	else if (n)
		fprintf(out, "%" PRIu64 " line%s that may hold detector text could not be read, so this "
		       "report is incomplete.\n", n, n == 1 ? "" : "s");
	/* Where the reader knows why, the sentence says what to run instead. */
	if (o->input && !o->input_format_set &&
	    (n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_UNPARSED)))
		fprintf(out, "Of these, %" PRIu64 " %s not parse as %s, the form guessed from the "
		       "log's lines: if it is another, --input-format names it.\n", n,
		       n == 1 ? "does" : "do",
		       splitlock_input_format_name(splitlock_offenders_get_input_format(r)));
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_HIDDEN)))
		fprintf(out, "Of these, %" PRIu64 " %s kernel record%s whose message the log hides "
		       "(journalctl prints \"[84B blob data]\" for a message that is not printable "
		       "text unless run with -a).\n", n, n == 1 ? "is a" : "are", n == 1 ? "" : "s");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_WRITER_UNKNOWN)))
		fprintf(out, "Of these, %" PRIu64 " %s journal entr%s without _TRANSPORT, which tells "
		       "the kernel's from user space's (journalctl --output-fields leaves it out "
		       "unless named).\n", n, n == 1 ? "is a" : "are", n == 1 ? "y" : "ies");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_MODE_UNKNOWN)))
		fprintf(out, "Of these, %" PRIu64 " %s alignment-check kill%s in a boot whose detector "
		       "mode the log does not show before %s (its boot line is gone, or comes after: "
		       "journalctl -r): split lock kills if that boot ran in fatal mode.\n",
		       n, n == 1 ? "is an" : "are", n == 1 ? "" : "s", n == 1 ? "it" : "them");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_BURST_USED_UP)))
		fprintf(out, "Of these, %" PRIu64 " stand%s for a rate limit that used up its burst "
		       "(10 lines in 5 s) with no line in the log that says how many it dropped "
		       "(the line named is then the burst's 10th, which was read and counted: "
		       "what was dropped came after it).\n",
		       n, n == 1 ? "s" : "");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_CUT)))
		fprintf(out, "Of these, %" PRIu64 " %s where the log ends inside a record, or another "
		       "dump begins inside one (a copy stopped mid-write, a last line without its "
		       "newline, a cut dump with another appended), that may have been the "
		       "detector's: it is not counted.\n", n, n == 1 ? "is the line" : "are lines");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_LOST)))
		fprintf(out, "Of these, %" PRIu64 " mark%s where kernel records were lost before the "
		       "log held them (the kernel's numbering skips some or starts past the boot's "
		       "first: its buffer wrapped or was cleared; or a logger says it missed kernel "
		       "messages): the detector's lines may be among them.\n", n, n == 1 ? "s" : "");
	if ((n = splitlock_offenders_get_unrecognized_by(r, SPLITLOCK_UNREAD_KILLS_SUPPRESSED)))
		fprintf(out, "Of these, %" PRIu64 " say%s that the kernel's rate limit on kill messages "
		       "dropped some in a boot in fatal mode (or of a mode the log does not show): "
		       "split lock kills may be among them.\n", n, n == 1 ? "s" : "");
	if (splitlock_offenders_get_undated(r))
		fprintf(out, "%s.\n", offenders_undated_sentence(r));
	if (splitlock_offenders_get_maybe_repeated(r))
		fprintf(out, "%s.\n", offenders_maybe_repeated_sentence(r));
	if (splitlock_offenders_get_alignment_checks(r))
		fprintf(out, "%" PRIu64 " alignment-check kill%s outside fatal mode left out: "
		       "programs that set the AC flag themselves, not split locks.\n",
		       splitlock_offenders_get_alignment_checks(r),
		       splitlock_offenders_get_alignment_checks(r) == 1 ? "" : "s");
}

/*
 * Each reason its own words: "from user space" was said of the kernel's
 * own lines at another level and of any record's further lines, and sent
 * admins looking for a process writing to /dev/kmsg.
 */
void offenders_print_forged(FILE *out, const struct splitlock_offenders *r)
{
	static const char *const why[] = {
		[SPLITLOCK_FORGED_USER_SPACE] = "from user space",
		[SPLITLOCK_FORGED_FURTHER_LINE] = "continuing a record",
		[SPLITLOCK_FORGED_LEVEL] = "of the kernel at another level than the detector's",
	};
	uint64_t total = splitlock_offenders_get_forged(r), n;
	size_t reasons = 0, said = 0;

	if (!total)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(why); i++)
		reasons += splitlock_offenders_get_forged_by(r, (enum splitlock_forged)i) != 0;
	if (reasons == 1) {
		for (size_t i = 0; i < ARRAY_SIZE(why); i++)
			if (splitlock_offenders_get_forged_by(r, (enum splitlock_forged)i))
				fprintf(out, "%" PRIu64 " detector-like line%s %s ignored.\n", total,
					total == 1 ? "" : "s", why[i]);
		return;
	}
	fprintf(out, "%" PRIu64 " detector-like line%s ignored:", total, total == 1 ? "" : "s");
	for (size_t i = 0; i < ARRAY_SIZE(why); i++) {
		n = splitlock_offenders_get_forged_by(r, (enum splitlock_forged)i);
		if (!n)
			continue;
		said++;
		fprintf(out, "%s %" PRIu64 " %s", said == 1 ? "" : said == reasons ? " and" : ",",
			n, why[i]);
	}
	fputs(".\n", out);
}
