/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one JSON reader (lib/core/json.c) and the kernelstub backend that reads
 * its configuration with it.
 */
#include <errno.h>

#include "boot/boot.h"
#include "core/json.h"
#include "fake-root.h"
#include "test.h"

/* @json's one string decoded, NUL-terminated; NULL when it is malformed. */
static const char *decode(const char *json)
{
	static char out[256];
	const char *p = json;
	size_t len;

	if (!sl_json_string(&p, json + strlen(json), out, sizeof(out) - 1, &len))
		return NULL;
	if (p != json + strlen(json))
		return NULL;
	out[len] = '\0';
	return out;
}

static bool valid(const char *json)
{
	const char *p = json, *end = json + strlen(json);

	return sl_json_value(&p, end, NULL, 0, NULL) && sl_json_skip_ws(p, end) == end;
}

TEST(json_string_escapes)
{
	CHECK_STR(decode("\"plain\""), "plain");
	CHECK_STR(decode("\"a\\\"b\\\\c\\/d\""), "a\"b\\c/d");
	CHECK_STR(decode("\"\\n\\t\\r\\b\\f\""), "\n\t\r\b\f");
	CHECK(!decode("\"\\x41\""));
	CHECK(!decode("\"cut short"));
	CHECK(!decode("\"ends in a backslash\\"));
}

TEST(json_unicode_escapes_are_utf8)
{
	CHECK_STR(decode("\"\\u0041\""), "A");
	CHECK_STR(decode("\"caf\\u00e9\""), "caf\xc3\xa9");
	CHECK_STR(decode("\"\\u20AC\""), "\xe2\x82\xac");
	/* U+1F600 as a surrogate pair is one four-byte character. */
	CHECK_STR(decode("\"\\ud83d\\ude00\""), "\xf0\x9f\x98\x80");
	/* A lone high surrogate is kept as its own three bytes. */
	CHECK_STR(decode("\"\\ud83dx\""), "\xed\xa0\xbdx");
	CHECK(!decode("\"\\u12\""));
	CHECK(!decode("\"\\u12G4\""));
}

TEST(json_string_longer_than_the_buffer_is_cut)
{
	const char *json = "\"abcdef\"", *p = json;
	char out[3];
	size_t len;

	CHECK(sl_json_string(&p, json + strlen(json), out, sizeof(out), &len));
	CHECK_INT(len, 3);
	CHECK(memcmp(out, "abc", 3) == 0);
	CHECK(p == json + strlen(json));
}

TEST(json_values_follow_the_grammar)
{
	CHECK(valid("0"));
	CHECK(valid("-12.5e+3"));
	CHECK(valid(" true "));
	CHECK(valid("null"));
	CHECK(valid("{\"a\": [1, \"x\", {\"b\": false}], \"c\": {}}"));
	CHECK(valid("[]"));
	CHECK(!valid("01"));
	CHECK(!valid("1."));
	CHECK(!valid("nul"));
	CHECK(!valid("NaN"));
	CHECK(!valid("[1,]"));
	CHECK(!valid("{\"a\":1,}"));
	CHECK(!valid("{\"a\" 1}"));
	CHECK(!valid("{1: 2}"));
	CHECK(!valid("[1 2]"));
	CHECK(!valid("[1"));
}

TEST(json_nesting_is_bounded)
{
	char deep[2 * SL_JSON_MAX_DEPTH + 8];
	size_t n = 0;

	for (int i = 0; i < SL_JSON_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < SL_JSON_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	CHECK(valid(deep));
	memmove(deep + 1, deep, n + 1);
	deep[0] = '[';
	strcat(deep, "]");
	CHECK(!valid(deep));
}

TEST(json_value_text_of_each_kind)
{
	const char *json = "[\"caf\\u00e9\", [104, 105], 42, {\"x\": 1}]", *p = json;
	const char *end = json + strlen(json);
	struct sl_json_iter it;
	char out[16];
	size_t len;

	CHECK(sl_json_iter_begin(&it, &p, end));
	CHECK_INT(sl_json_iter_next(&it, &p, end, NULL, 0, NULL), 1);
	CHECK(sl_json_value(&p, end, out, sizeof(out), &len));
	CHECK(len == 5 && memcmp(out, "caf\xc3\xa9", 5) == 0);
	/* journald's form of a message that is not UTF-8: byte values. */
	CHECK_INT(sl_json_iter_next(&it, &p, end, NULL, 0, NULL), 1);
	CHECK(sl_json_value(&p, end, out, sizeof(out), &len));
	CHECK(len == 2 && memcmp(out, "hi", 2) == 0);
	CHECK_INT(sl_json_iter_next(&it, &p, end, NULL, 0, NULL), 1);
	CHECK(sl_json_value(&p, end, out, sizeof(out), &len));
	CHECK(len == 2 && memcmp(out, "42", 2) == 0);
	CHECK_INT(sl_json_iter_next(&it, &p, end, NULL, 0, NULL), 1);
	CHECK(sl_json_value(&p, end, out, sizeof(out), &len));
	CHECK_INT(len, 0);
	CHECK_INT(sl_json_iter_next(&it, &p, end, NULL, 0, NULL), 0);
	CHECK(p == end);
}

TEST(json_byte_array_refuses_what_is_not_a_byte)
{
	const char *json = "[104, 256]", *p = json;
	char out[4];

	CHECK(!sl_json_value(&p, json + strlen(json), out, sizeof(out), NULL));
	CHECK(p == json);
}

TEST(json_object_find_takes_the_last_of_a_repeated_name)
{
	const char *json = "{\"user\": 1, \"username\": 2, \"user\": 3}", *p = json;
	const char *end = json + strlen(json);

	CHECK_INT(sl_json_object_find(&p, end, "user"), 0);
	CHECK(*p == '3');
	p = json;
	CHECK_INT(sl_json_object_find(&p, end, "use"), -ENOENT);
	CHECK(p == json);
	p = "[1]";
	CHECK_INT(sl_json_object_find(&p, p + 3, "user"), -EBADMSG);
	p = "{\"user\": }";
	CHECK_INT(sl_json_object_find(&p, p + strlen(p), "user"), -EBADMSG);
}

/* ---- kernelstub's configuration, read through the backend ---------------- */

/* @config as /etc/kernelstub/configuration of a fresh root, read by the backend. */
static int stub_options(const char *config, char **cmdline)
{
	struct splitlock_ctx *ctx;
	char *source = NULL;
	int r;

	fake_root_make("json");
	put("/etc/kernelstub/configuration", config);
	ctx = fake_root_ctx();
	r = sl_boot_kernelstub.read(ctx, cmdline, &source);
	free(source);
	splitlock_unref(ctx);
	fake_root_remove();
	return r;
}

/* The options the backend reads from @config, or "-EBADMSG" and the like. */
static const char *options_of(const char *config)
{
	static char text[256];
	char *cmdline = NULL;
	int r = stub_options(config, &cmdline);

	if (r < 0)
		snprintf(text, sizeof(text), "%s", r == -EBADMSG ? "-EBADMSG" : "other error");
	else
		snprintf(text, sizeof(text), "%s", cmdline);
	free(cmdline);
	return text;
}

TEST(kernelstub_reads_the_user_options_in_order)
{
	CHECK_STR(options_of("{\n"
			     "  \"default\": {\"kernel_options\": [\"quiet\", \"splash\"]},\n"
			     "  \"user\": {\n"
			     "    \"kernel_options\": [\"quiet\", \"loglevel=0\", \"splash\"],\n"
			     "    \"config_rev\": 3\n"
			     "  }\n"
			     "}\n"), "quiet loglevel=0 splash");
}

TEST(kernelstub_decodes_escapes_in_options)
{
	CHECK_STR(options_of("{\"user\": {\"kernel_options\": "
			     "[\"acpi_osi=\\\"Windows 2015\\\"\", \"x=caf\\u00e9\", "
			     "\"y=\\ud83d\\ude00\", \"path=a\\\\b\"]}}"),
		  "acpi_osi=\"Windows 2015\" x=caf\xc3\xa9 y=\xf0\x9f\x98\x80 path=a\\b");
}

TEST(kernelstub_is_not_fooled_by_names_inside_strings)
{
	/* The old strstr() reading took the first "user" anywhere. */
	CHECK_STR(options_of("{\"default\": {\"kernel_options\": [\"\\\"user\\\"\"], "
			     "\"comment\": \"user kernel_options [x]\"}, "
			     "\"user\": {\"kernel_options\": []}}"), "");
}

TEST(kernelstub_refuses_what_kernelstub_could_not_read)
{
	char *cmdline = NULL;

	CHECK_INT(stub_options("{\"user\": {\"esp_path\": \"/boot/efi\"}}", &cmdline), -EBADMSG);
	CHECK(!cmdline);
	CHECK_STR(options_of("{\"user\": {\"kernel_options\": [\"quiet\", 3]}}"), "-EBADMSG");
	CHECK_STR(options_of("{\"user\": {\"kernel_options\": \"quiet\"}}"), "-EBADMSG");
	CHECK_STR(options_of("{\"user\": {\"kernel_options\": [\"a\\u0000b\"]}}"), "-EBADMSG");
	CHECK_STR(options_of("{\"user\": {\"kernel_options\": [\"quiet\""), "-EBADMSG");
	CHECK_STR(options_of("\"user\" \"kernel_options\" [\"quiet\"]"), "-EBADMSG");
}
