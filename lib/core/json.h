/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's one JSON reader (internal, not exported): journal JSON
 * (log/format-journal-json.c) and kernelstub's configuration
 * (boot/backend-kernelstub.c) go through it. It reads in place over [p, end):
 * nothing is allocated, strings are decoded into the caller's buffer, and
 * nesting is bounded so that hostile input cannot exhaust the stack. A
 * function that fails leaves *pp where it was.
 */
#ifndef SPLITLOCK_JSON_H
#define SPLITLOCK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Arrays and objects nested deeper than this are refused as malformed. */
#define SL_JSON_MAX_DEPTH 32

/* The white space JSON allows between tokens. */
const char *sl_json_skip_ws(const char *p, const char *end);

/*
 * The string at *pp (at its opening quote), decoded into @out: the escapes
 * of RFC 8259, \uXXXX as UTF-8, a surrogate pair as the one code point it
 * encodes. A decoded string is never longer than its JSON text. Bytes past
 * @size are dropped; @out NULL only checks the string. *@len (may be NULL):
 * the bytes written. False when it is not a well-formed string.
 */
bool sl_json_string(const char **pp, const char *end, char *out, size_t size,
		    size_t *len);

/*
 * Any value at *pp (white space before it allowed), passed over. With @out,
 * its text: a string decoded, an array of numbers 0-255 as those bytes
 * (journald writes text that is not UTF-8 so), a number or literal as
 * written; an object gives nothing. False when it is malformed.
 */
bool sl_json_value(const char **pp, const char *end, char *out, size_t size,
		   size_t *len);

/* Walking the members of an object or the elements of an array. */
struct sl_json_iter {
	char close;   /* '}' or ']' */
	bool started; /* a member was handed out: the next needs a ',' */
};

/* *pp at '{' or '[' (white space before it allowed): enters it. */
bool sl_json_iter_begin(struct sl_json_iter *it, const char **pp, const char *end);

/*
 * The next member: 1 with *pp at its value, which the caller must read or
 * pass over (sl_json_value) before the next call; for an object its key
 * decoded into @key as sl_json_string() does (@key NULL: not kept). 0 when
 * the closing bracket was reached (*pp after it); -EBADMSG when malformed.
 */
int sl_json_iter_next(struct sl_json_iter *it, const char **pp, const char *end,
		      char *key, size_t size, size_t *klen);

/*
 * In the object at *pp, the value of member @name: *pp at it and 0, or
 * -ENOENT. With a name given twice the last counts, as Python's json module
 * (and so kernelstub) has it. -EBADMSG when the object is malformed.
 */
int sl_json_object_find(const char **pp, const char *end, const char *name);

/* A decoded key or field of @len bytes is @name. */
static inline bool sl_json_name_is(const char *s, size_t len, const char *name)
{
	return len == strlen(name) && memcmp(s, name, len) == 0;
}

#endif
