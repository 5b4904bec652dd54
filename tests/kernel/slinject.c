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
 *   slinject proc                      print /proc/self/split_lock
 *   slinject asuser UID PROG [ARG...]  exec PROG as UID (and GID UID)
 *
 * KIND "split" (series v3) is a split lock that traps only where detection
 * is armed on the CPU, as on hardware. KIND "retrap" (v4) is one whose #AC
 * comes again during the single step of "seq" (the SMT sibling re-armed the
 * core). KIND "probed" (v4) is "split" written by a system call followed
 * by the instruction at slinject_probed, the one the single step of "seq"
 * runs, where the step scenario puts a uprobe:
 *
 *   slinject probe-offset              print the file offset of that
 *                                      instruction in /bin/slinject
 *
 * KIND "sigreturn" (v5) is the attack on the single step of "seq" that the
 * review of v4 describes (H1): a split lock whose stepped instruction is a
 * system call, rt_sigreturn, with a frame that returns to the same address
 * with TF clear; the instruction there is then "split" again, which must
 * trap (v4 kept the step, and detection off, for it). KIND "fault" (v5) is
 * a split lock whose stepped instruction page-faults first: the step goes
 * on after the fault and ends at its own trap.
 *
 * Output lines start with "SLINJECT " so that the host can find them in the
 * console log. Built with gcc -static: the initramfs has no C library.
 */
/* REG_RIP and the other gregs indices. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <termios.h>
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

/*
 * write(fd, "split", 5) as a bare system call, and after it the instruction
 * that the single step of "seq" runs: the step scenario puts a uprobe on it
 * (slinject_probed), which uprobes single-steps out of line. Not inlined:
 * the label must exist once.
 */
extern const char slinject_probed[];

static __attribute__((noinline)) long probed_split(int fd)
{
	long ret;

	asm volatile("syscall\n\t"
		     ".globl slinject_probed\n"
		     "slinject_probed:\n\t"
		     "mov %%rax, %%r8\n\t"
		     : "=a"(ret)
		     : "a"(1L), "D"((long)fd), "S"("split"), "d"(5L)
		     : "rcx", "r11", "r8", "memory");
	return ret;
}

/*
 * The frame rt_sigreturn reads at the stack pointer minus 8: pretcode, then
 * the kernel's struct ucontext, of which glibc's ucontext_t has the layout
 * (as the kernel's sigreturn selftest relies on), then room for the siginfo
 * whose access rt_sigreturn checks.
 */
struct sigreturn_frame {
	unsigned long pretcode;
	ucontext_t uc;
	char room[512];
} __attribute__((aligned(64)));

extern const char slinject_sigreturn_at[];

/* "split" and NULs: a write of 15 bytes returns 15, __NR_rt_sigreturn. */
static const char split15[15] = "split";

/*
 * H1 of the review of v4, through the hook. write(fd, split15, 15) takes a
 * split lock at its return address, slinject_sigreturn_at, where "seq"
 * single-steps the instruction after the penalty. That instruction is a
 * system call, rt_sigreturn (rax = 15, what the write returned), whose frame
 * returns to the same address with TF clear and the registers of
 * write(fd, "split", 5), which the instruction then makes: a split lock
 * that must trap. In v4 the step, and detection off, survived the return to
 * its address with TF clear, and this split lock went untrapped.
 */
static __attribute__((noinline)) long sigreturn_split(int fd, struct sigreturn_frame *f)
{
	greg_t *g = f->uc.uc_mcontext.gregs;
	long ax = 1, di = fd, si = (long)split15, dx = sizeof(split15);

	memset(f, 0, sizeof(*f));
	sigprocmask(SIG_BLOCK, NULL, &f->uc.uc_sigmask);
	f->uc.uc_flags = 0x2 | 0x4;	/* UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS */
	f->uc.uc_stack.ss_flags = SS_DISABLE;
	g[REG_RIP] = (long)slinject_sigreturn_at;
	g[REG_EFL] = 0x202;		/* IF, and no TF */
	g[REG_CSGSFS] = 0x33 | (0x2bL << 48);	/* __USER_CS, __USER_DS as SS */
	g[REG_RAX] = 1;			/* write */
	g[REG_RDI] = fd;
	g[REG_RSI] = (long)"split";
	g[REG_RDX] = 5;
	/* The registers the compiler may keep live, and the stack pointer. */
	asm volatile("mov %%rsp, %c[rsp](%[f])\n\t"
		     "mov %%rbx, %c[rbx](%[f])\n\t"
		     "mov %%rbp, %c[rbp](%[f])\n\t"
		     "mov %%r12, %c[r12](%[f])\n\t"
		     "mov %%r13, %c[r13](%[f])\n\t"
		     "mov %%r14, %c[r14](%[f])\n\t"
		     "mov %%r15, %c[r15](%[f])\n\t"
		     "lea %c[uc](%[f]), %%rsp\n\t"
		     "syscall\n\t"
		     ".globl slinject_sigreturn_at\n"
		     "slinject_sigreturn_at:\n\t"
		     "syscall\n\t"
		     : "+a"(ax), "+D"(di), "+S"(si), "+d"(dx)
		     : [f] "r"(f),
		       [uc] "i"(offsetof(struct sigreturn_frame, uc)),
		       [rsp] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_RSP])),
		       [rbx] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_RBX])),
		       [rbp] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_RBP])),
		       [r12] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_R12])),
		       [r13] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_R13])),
		       [r14] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_R14])),
		       [r15] "i"(offsetof(struct sigreturn_frame, uc.uc_mcontext.gregs[REG_R15]))
		     : "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	/* The second write's result: 5, or an error. */
	return ax;
}

/*
 * write(fd, "split", 5), whose stepped instruction then loads from @page,
 * which is not mapped in yet: the step has to go on across the page fault.
 */
static __attribute__((noinline)) long fault_split(int fd, volatile char *page)
{
	long ret;

	asm volatile("syscall\n\t"
		     "movb (%[p]), %%r8b\n\t"
		     : "=a"(ret)
		     : "a"(1L), "D"((long)fd), "S"("split"), "d"(5L), [p] "r"(page)
		     : "rcx", "r8", "r11", "memory");
	return ret;
}

/* The file offset of slinject_probed, for uprobe_events. */
static int cmd_probe_offset(void)
{
	unsigned long addr = (unsigned long)slinject_probed, start, end, pgoff;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) == 3 &&
		    addr >= start && addr < end) {
			printf("0x%lx\n", addr - start + pgoff);
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	return 1;
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
	for (i = 0; i < job->count; i++) {
		if (!strcmp(job->kind, "probed")) {
			if (probed_split(fd) < 0)
				job->errors++;
		} else if (!strcmp(job->kind, "sigreturn")) {
			static struct sigreturn_frame frame;

			if (sigreturn_split(fd, &frame) != 5)
				job->errors++;
		} else if (!strcmp(job->kind, "fault")) {
			char *page = mmap(NULL, 4096, PROT_READ,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (page == MAP_FAILED || fault_split(fd, page) < 0)
				job->errors++;
			if (page != MAP_FAILED)
				munmap(page, 4096);
		} else if (write(fd, job->kind, strlen(job->kind)) < 0) {
			job->errors++;
		}
	}
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
/*
 * Wait until the console has sent everything written to it. reboot(2)
 * does not drain the serial port's transmit buffer: up to a page of the
 * scenario's last lines (slctl's JSON) was lost on a busy host.
 */
static int cmd_drain(void)
{
	if (tcdrain(STDOUT_FILENO)) {
		perror("slinject: tcdrain");
		return 1;
	}
	return 0;
}

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

/* Run @argv as @uid, e.g. to exec a setuid program from a user. */
static int cmd_asuser(const char *uid, char **argv)
{
	gid_t id = atoi(uid);

	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		printf("SLINJECT asuser cannot become %s: %s\n", uid, strerror(errno));
		return 1;
	}
	fflush(stdout);
	execv(argv[0], argv);
	printf("SLINJECT asuser cannot run %s: %s\n", argv[0], strerror(errno));
	return 1;
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

	if (argc == 1 && !strcmp(argv[0], "drain"))
		return cmd_drain();
	if (argc == 2 && !strcmp(argv[0], "peek"))
		return cmd_peek(argv[1]);
	if (argc == 3 && !strcmp(argv[0], "write"))
		return cmd_write(argv[1], argv[2]);
	if (argc == 1 && !strcmp(argv[0], "proc")) {
		printf("SLINJECT pid=%d uid=%d euid=%d\n", (int)getpid(),
		       (int)getuid(), (int)geteuid());
		print_proc_counts();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[0], "asuser"))
		return cmd_asuser(argv[1], argv + 2);
	if (argc == 1 && !strcmp(argv[0], "probe-offset"))
		return cmd_probe_offset();
	if (argc != 2 || (strcmp(argv[0], "ac") && strcmp(argv[0], "db") &&
			  strcmp(argv[0], "split") && strcmp(argv[0], "retrap") &&
			  strcmp(argv[0], "probed") && strcmp(argv[0], "sigreturn") &&
			  strcmp(argv[0], "fault") && strcmp(argv[0], "guest"))) {
		fprintf(stderr, "usage: slinject [-t THREADS] ac|db|split|retrap|probed|sigreturn|fault|guest COUNT\n"
				"       slinject write PATH VALUE\n"
				"       slinject proc\n"
				"       slinject asuser UID PROG [ARG...]\n"
				"       slinject probe-offset\n"
				"       slinject drain\n");
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
