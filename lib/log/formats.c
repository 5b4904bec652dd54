/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The forms of saved log that the reader knows, one entry each. A form's
 * file (log/format-*.c) holds its parser and its entry: how the form is
 * told from the start of a log, what it needs before its first line, how
 * it ends. Adding a form is that file, its line here and its member at the
 * end of the public enum splitlock_input_format; the CLI's help, the shell
 * completions, the fuzz target and the tests take their lists from
 * splitlock_input_format_name() (API-MIGRATION.md).
 */
#include <errno.h>

#include "log/format.h"

static const struct sl_log_format *const formats[] = {
	[SPLITLOCK_INPUT_AUTO] = NULL, /* no form: decided by sl_log_detect() */
	[SPLITLOCK_INPUT_KMSG] = &sl_log_format_kmsg,
	[SPLITLOCK_INPUT_KMSG_NUL] = &sl_log_format_kmsg_nul,
	[SPLITLOCK_INPUT_DMESG] = &sl_log_format_dmesg,
	[SPLITLOCK_INPUT_JOURNAL] = &sl_log_format_journal_json,
	[SPLITLOCK_INPUT_SYSLOG] = &sl_log_format_syslog,
	[SPLITLOCK_INPUT_JOURNAL_TEXT] = &sl_log_format_journal_text,
	[SPLITLOCK_INPUT_DMESG_JSON] = &sl_log_format_dmesg_json,
	[SPLITLOCK_INPUT_JOURNAL_EXPORT] = &sl_log_format_journal_export,
	[SPLITLOCK_INPUT_JOURNAL_VERBOSE] = &sl_log_format_journal_verbose,
};

const struct sl_log_format *sl_log_format_of(enum splitlock_input_format id)
{
	return (size_t)id < ARRAY_SIZE(formats) ? formats[id] : NULL;
}

_public_ const char *splitlock_input_format_name(enum splitlock_input_format format)
{
	if (format == SPLITLOCK_INPUT_AUTO)
		return "auto";
	return sl_log_format_of(format) ? formats[format]->name : NULL;
}

_public_ int splitlock_input_format_parse(const char *name,
					  enum splitlock_input_format *format)
{
	const char *n;

	if (!name)
		return -EINVAL;
	for (size_t i = 0; (n = splitlock_input_format_name((enum splitlock_input_format)i)); i++)
		if (streq(n, name)) {
			*format = (enum splitlock_input_format)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * The forms that tell themselves by their first bytes (JSON, export and
 * verbose fields, /dev/kmsg records) are asked first; no two answer yes
 * to the same start. The text forms share stamps and prefixes and are
 * decided by the vote of log/detect.c.
 */
enum splitlock_input_format sl_log_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end && (*p == '\n' || *p == '\0' || *p == ' '))
		p++;
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i] && formats[i]->sniff && formats[i]->sniff(p, end))
			return formats[i]->id;
	return sl_log_detect_text(p, end);
}
