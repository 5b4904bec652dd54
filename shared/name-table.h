/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tables of {value, name}: one place maps an enum to the words users and
 * JSON see and back, so a name is spelled once.
 */
#ifndef SPLITLOCK_SHARED_NAME_TABLE_H
#define SPLITLOCK_SHARED_NAME_TABLE_H

#include <errno.h>
#include <stddef.h>

#include "macro.h"

struct name_table {
	int value;
	const char *name;
};

/* The name of @value, or NULL when the table has none. */
static inline const char *name_table_name(const struct name_table *t, size_t n,
					  int value)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == value)
			return t[i].name;
	return NULL;
}

/* The value named exactly @name (case matters), or -EINVAL. */
static inline int name_table_value(const struct name_table *t, size_t n,
				   const char *name, int *value)
{
	for (size_t i = 0; name && i < n; i++)
		if (streq(t[i].name, name)) {
			*value = t[i].value;
			return 0;
		}
	return -EINVAL;
}

#define NAME_TABLE_NAME(t, v) name_table_name(t, ARRAY_SIZE(t), v)
#define NAME_TABLE_VALUE(t, s, v) name_table_value(t, ARRAY_SIZE(t), s, v)
/* The name of @v, or @fallback when the table has none. */
#define NAME_TABLE_NAME_OR(t, v, fallback) (NAME_TABLE_NAME(t, v) ?: (fallback))

/*
 * Defines "int FUNC(const char *name, TYPE *value)": the value of @table
 * named @name, or -EINVAL with *value untouched. One body for every enum
 * that is parsed by name, as systemd's DEFINE_STRING_TABLE_LOOKUP; put a
 * storage class or _public_ in front.
 */
#define DEFINE_NAME_TABLE_PARSE(func, table, type)			\
	int func(const char *name, type *value)				\
	{								\
		int v, r = NAME_TABLE_VALUE(table, name, &v);		\
									\
		if (r == 0)						\
			*value = (type)v;				\
		return r;						\
	}

#endif
