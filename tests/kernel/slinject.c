// SPDX-License-Identifier: GPL-2.0
/*
 * slinject: drives the split lock injection hook from inside the test VM.
 *
 *   slinject [-t THREADS] KIND COUNT   write KIND ("ac" or "db") COUNT times
 *                                      to /sys/kernel/debug/split_lock/inject,
 *                                      from each of THREADS threads that exit
 *                                      before the results are read (default:
 *                                      from the main thread); then print the
 *                                      elapsed time and /proc/self/split_lock
 *   slinject write PATH VALUE          write VALUE to PATH and print the errno
 *
 * Output lines start with "SLINJECT " so that the host can find them in the
 * console log. Built with gcc -static: the initramfs has no C library.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INJECT_PATH "/sys/kernel/debug/split_lock/inject"

struct job {
	const char *kind;
	long count;
	long errors;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void *inject(void *arg)
{
	struct job *job = arg;
	int fd = open(INJECT_PATH, O_WRONLY);
	long i;

	if (fd < 0) {
		job->errors = job->count;
		return NULL;
	}
	for (i = 0; i < job->count; i++)
		if (write(fd, job->kind, strlen(job->kind)) < 0)
			job->errors++;
	close(fd);
	return NULL;
}

static void print_proc_counts(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/split_lock", "r");

	if (!f) {
		printf("SLINJECT proc unreadable errno=%d\n", errno);
		return;
	}
	while (fgets(line, sizeof(line), f))
		printf("SLINJECT proc %s", line);
	fclose(f);
}

static int cmd_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		printf("SLINJECT write %s errno=%s\n", path, strerror(errno));
		return 1;
	}
	n = write(fd, value, strlen(value));
	printf("SLINJECT write %s=%s %s\n", path, value,
	       n < 0 ? (errno == EPERM ? "errno=EPERM" :
			errno == EINVAL ? "errno=EINVAL" :
			errno == ERANGE ? "errno=ERANGE" :
			errno == EACCES ? "errno=EACCES" :
			errno == EOPNOTSUPP ? "errno=EOPNOTSUPP" : strerror(errno)) : "ok");
	close(fd);
	return n < 0;
}

/*
 * Read another process's /proc/PID/split_lock as an unprivileged user
 * (nobody): the counters are private to the owner, like /proc/PID/io.
 */
static int cmd_peek(const char *pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/split_lock", pid);
	if (setgid(65534) || setuid(65534)) {
		printf("SLINJECT peek cannot drop privileges: %s\n", strerror(errno));
		return 1;
	}
	fd = open(path, O_RDONLY);
	printf("SLINJECT peek %s %s\n", path,
	       fd < 0 ? (errno == EACCES ? "errno=EACCES" : strerror(errno)) : "readable");
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

int main(int argc, char **argv)
{
	long threads = 0, errors = 0, count, i;
	struct job *jobs;
	pthread_t *tids;
	double start;
	int opt;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			return 2;
		threads = atol(optarg);
	}
	argc -= optind;
	argv += optind;

	if (argc == 2 && !strcmp(argv[0], "peek"))
		return cmd_peek(argv[1]);
	if (argc == 3 && !strcmp(argv[0], "write"))
		return cmd_write(argv[1], argv[2]);
	if (argc != 2 || (strcmp(argv[0], "ac") && strcmp(argv[0], "db"))) {
		fprintf(stderr, "usage: slinject [-t THREADS] ac|db COUNT\n"
				"       slinject write PATH VALUE\n");
		return 2;
	}
	count = atol(argv[1]);

	jobs = calloc(threads ? threads : 1, sizeof(*jobs));
	tids = calloc(threads ? threads : 1, sizeof(*tids));
	if (!jobs || !tids)
		return 1;

	start = now_ms();
	if (!threads) {
		jobs[0] = (struct job){ argv[0], count, 0 };
		inject(&jobs[0]);
		errors = jobs[0].errors;
	} else {
		for (i = 0; i < threads; i++) {
			jobs[i] = (struct job){ argv[0], count, 0 };
			if (pthread_create(&tids[i], NULL, inject, &jobs[i]))
				return 1;
		}
		for (i = 0; i < threads; i++) {
			pthread_join(tids[i], NULL);
			errors += jobs[i].errors;
		}
	}
	printf("SLINJECT kind=%s count=%ld threads=%ld errors=%ld elapsed_ms=%.0f pid=%d\n",
	       argv[0], threads ? threads * count : count, threads, errors,
	       now_ms() - start, (int)getpid());
	print_proc_counts();
	fflush(stdout);
	return errors ? 1 : 0;
}
