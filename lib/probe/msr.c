/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The detector's model-specific registers on every CPU, through the msr
 * driver's /dev/cpu/N/msr (pread at the register's number).
 *
 * The driver answers EIO for a register the CPU does not have (VMs, AMD,
 * older Intel): that is a fact about the CPU, kept per CPU. A short read
 * can only come from a file that is not the driver (fake roots) and means
 * the same.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>

#include "core/internal.h"
#include "probe/probe.h"

static const struct {
	uint32_t msr;
	unsigned bit;
} bits[SL_MSR_BIT_COUNT] = {
	[SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED] = { 0xcf, 5 },  /* IA32_CORE_CAPABILITIES */
	[SPLITLOCK_MSR_SPLIT_LOCK_ARMED] = { 0x33, 29 },     /* MSR_TEST_CTRL */
	[SPLITLOCK_MSR_BUS_LOCK_ARMED] = { 0x1d9, 2 },       /* IA32_DEBUGCTL */
};

struct msr_cpu {
	unsigned cpu;
	int error[SL_MSR_BIT_COUNT]; /* 0, -ENODATA, or how it failed */
	bool value[SL_MSR_BIT_COUNT];
};

struct splitlock_msr {
	size_t count, size;
	struct msr_cpu *cpus;
};

static int add_cpu(struct splitlock_msr *m, unsigned cpu)
{
	if (m->count == m->size) {
		size_t size = m->size ? m->size * 2 : 16;
		struct msr_cpu *cpus = reallocarray(m->cpus, size, sizeof(*cpus));

		if (!cpus)
			return -ENOMEM;
		m->cpus = cpus;
		m->size = size;
	}
	m->cpus[m->count++] = (struct msr_cpu){ .cpu = cpu };
	return 0;
}

/* "0-3,5,7-8\n" as the kernel writes CPU lists. */
static int parse_cpu_list(const char *text, struct splitlock_msr *m)
{
	const char *p = text;

	while (*p && *p != '\n') {
		char *end;
		unsigned long first = strtoul(p, &end, 10), last = first;
		int r;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			last = strtoul(p + 1, &end, 10);
			if (end == p + 1 || last < first)
				return -EINVAL;
			p = end;
		}
		if (last >= 1u << 16)
			return -EINVAL;
		for (unsigned long c = first; c <= last; c++)
			if ((r = add_cpu(m, (unsigned)c)) < 0)
				return r;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

static int online_cpus(struct splitlock_ctx *ctx, struct splitlock_msr *m)
{
	char line[4096];
	int r = sl_read_line(ctx, "/sys/devices/system/cpu/online", line, sizeof(line));

	if (r < 0)
		return r;
	return parse_cpu_list(line, m);
}

static void read_cpu(struct splitlock_ctx *ctx, struct msr_cpu *c)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%u/msr", c->cpu);
	fd = sl_open(ctx, path, O_RDONLY, 0);
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		uint64_t value = 0;
		ssize_t n;

		if (fd < 0) {
			c->error[i] = fd;
			continue;
		}
		n = pread(fd, &value, sizeof(value), bits[i].msr);
		if (n == (ssize_t)sizeof(value))
			c->value[i] = value >> bits[i].bit & 1;
		else if (n >= 0 || errno == EIO)
			c->error[i] = -ENODATA;
		else
			c->error[i] = -errno;
	}
	if (fd >= 0)
		close(fd);
}

_public_ int splitlock_msr_check_capabilities(struct splitlock_ctx *ctx,
					      enum splitlock_cap *missing)
{
	enum splitlock_msr_module state;
	int r;

	if (splitlock_have_capability(SPLITLOCK_CAP_SYS_RAWIO) <= 0) {
		*missing = SPLITLOCK_CAP_SYS_RAWIO;
		return -EPERM;
	}
	r = splitlock_msr_module_find(ctx, &state, NULL);
	if (r < 0)
		return r;
	if (state == SPLITLOCK_MSR_MODULE_LOADABLE &&
	    splitlock_have_capability(SPLITLOCK_CAP_SYS_MODULE) <= 0) {
		*missing = SPLITLOCK_CAP_SYS_MODULE;
		return -EPERM;
	}
	return 0;
}

_public_ int splitlock_msr_read(struct splitlock_ctx *ctx,
				struct splitlock_msr **out)
{
	struct splitlock_msr *m;
	enum splitlock_cap missing;
	int r;

	*out = NULL;
	r = splitlock_msr_check_capabilities(ctx, &missing);
	if (r == -EPERM)
		sl_info(ctx, "reading the MSRs needs %s", splitlock_capability_name(missing));
	if (r < 0)
		return r;
	r = sl_msr_module_load(ctx);
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = online_cpus(ctx, m);
	if (r < 0) {
		splitlock_msr_free(m);
		return r;
	}
	for (size_t i = 0; i < m->count; i++)
		read_cpu(ctx, &m->cpus[i]);
	*out = m;
	return 0;
}

_public_ struct splitlock_msr *splitlock_msr_free(struct splitlock_msr *m)
{
	if (m) {
		free(m->cpus);
		free(m);
	}
	return NULL;
}

_public_ size_t splitlock_msr_get_count(const struct splitlock_msr *m)
{
	return m->count;
}

_public_ int splitlock_msr_get_cpu(const struct splitlock_msr *m, size_t index,
				   unsigned *cpu)
{
	if (index >= m->count)
		return -ERANGE;
	*cpu = m->cpus[index].cpu;
	return 0;
}

_public_ int splitlock_msr_get_bit(const struct splitlock_msr *m, size_t index,
				   enum splitlock_msr_bit bit, bool *value)
{
	if (index >= m->count)
		return -ERANGE;
	if ((size_t)bit >= ARRAY_SIZE(bits))
		return -EINVAL;
	if (m->cpus[index].error[bit] < 0)
		return m->cpus[index].error[bit];
	*value = m->cpus[index].value[bit];
	return 0;
}

/* ---- the summary ---------------------------------------------------------- */

/* The CPUs for which @pick says yes, as "CPU 3" or "CPUs 0-2,4-7". */
static size_t count(const struct splitlock_msr *m,
		    bool (*pick)(const struct msr_cpu *c))
{
	size_t n = 0;

	for (size_t k = 0; k < m->count; k++)
		n += pick(&m->cpus[k]);
	return n;
}

static void append_cpus(FILE *f, const struct splitlock_msr *m,
			bool (*pick)(const struct msr_cpu *c))
{
	size_t n = count(m, pick), i = 0;
	bool first = true;

	fputs(n == 1 ? "CPU " : "CPUs ", f);
	while (i < m->count) {
		size_t j = i;

		if (!pick(&m->cpus[i])) {
			i++;
			continue;
		}
		while (j + 1 < m->count && pick(&m->cpus[j + 1]) &&
		       m->cpus[j + 1].cpu == m->cpus[j].cpu + 1)
			j++;
		fprintf(f, "%s%u", first ? "" : ",", m->cpus[i].cpu);
		if (j > i)
			fprintf(f, "-%u", m->cpus[j].cpu);
		first = false;
		i = j + 1;
	}
}

static bool sl_armed(const struct msr_cpu *c)
{
	return !c->error[SPLITLOCK_MSR_SPLIT_LOCK_ARMED] &&
	       c->value[SPLITLOCK_MSR_SPLIT_LOCK_ARMED];
}

static bool sl_disarmed(const struct msr_cpu *c)
{
	/* Supported but not armed: the state a trap leaves until re-enabled. */
	return !c->error[SPLITLOCK_MSR_SPLIT_LOCK_ARMED] &&
	       !c->value[SPLITLOCK_MSR_SPLIT_LOCK_ARMED] &&
	       !c->error[SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED] &&
	       c->value[SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED];
}

static bool bl_armed(const struct msr_cpu *c)
{
	return !c->error[SPLITLOCK_MSR_BUS_LOCK_ARMED] &&
	       c->value[SPLITLOCK_MSR_BUS_LOCK_ARMED];
}

static bool unavailable(const struct msr_cpu *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (c->error[i])
			return true;
	return false;
}

_public_ int splitlock_msr_summary(const struct splitlock_msr *m, char **text)
{
	char *buf = NULL;
	size_t len = 0;
	size_t armed = count(m, sl_armed), disarmed = count(m, sl_disarmed);
	const char *sep = "";
	FILE *f;

	*text = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	if (armed) {
		fputs("split lock detection armed on ", f);
		append_cpus(f, m, sl_armed);
		sep = "; ";
	}
	if (disarmed && armed) {
		fputs("; ", f);
		append_cpus(f, m, sl_disarmed);
		fputs(" disarmed (a penalty in progress?)", f);
	} else if (disarmed) {
		fputs("split lock detection supported but disarmed on ", f);
		append_cpus(f, m, sl_disarmed);
		sep = "; ";
	}
	if (!armed && !disarmed) {
		fputs("split lock detection armed on no CPU", f);
		sep = "; ";
	}
	if (count(m, bl_armed)) {
		fprintf(f, "%sbus lock detection armed on ", sep);
		append_cpus(f, m, bl_armed);
	}
	if (count(m, unavailable)) {
		fprintf(f, "%sMSRs unavailable on ", sep);
		append_cpus(f, m, unavailable);
	}
	fputc('.', f);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	/* A sentence starts with a capital letter. */
	if (buf[0] >= 'a' && buf[0] <= 'z')
		buf[0] = (char)(buf[0] - 'a' + 'A');
	*text = buf;
	return 0;
}
