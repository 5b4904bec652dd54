/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running the bootloader tools: an argument vector, never a shell string,
 * so no value can be reinterpreted by a shell. With a root other than "/"
 * the tool runs inside it (chroot), found on the root's own standard PATH:
 * the tools of the running system never see the image's files, and the
 * image's tools never touch the running system's. The tool's standard
 * output goes to our standard error unless the caller reads it: slctl's own
 * standard output stays one JSON document.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "boot/boot.h"

extern char **environ;

/* What a freshly booted system has; the caller's PATH names its own tree. */
#define ROOT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static bool same_name(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	return la == lb && strncmp(a, b, la) == 0;
}

/* The environment plus @extra (which wins), @path replacing PATH if set. */
static char **merge_env(char *const *extra, const char *path)
{
	size_t n = 0, m = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	while (extra && extra[m])
		m++;
	env = calloc(n + m + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool overridden = path && same_name(environ[i], path);

		for (size_t j = 0; j < m; j++)
			if (same_name(extra[j], environ[i]))
				overridden = true;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = extra[j];
	if (path)
		env[k++] = (char *)path;
	return env;
}

/*
 * In the child, never returning; only async-signal-safe calls after fork.
 * Why the tool could not start travels back as an errno on @err_fd, which
 * closes unwritten when exec succeeds.
 */
__attribute__((noreturn)) static void child(const char *root, int out_fd, int err_fd,
					     char *const *argv, char *const *env)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int e;

	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    (root && (chroot(root) < 0 || chdir("/") < 0)))
		goto fail;
	execvpe(argv[0], argv, env);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int sl_spawn(struct splitlock_ctx *ctx, char *const *argv, char *const *env_extra,
	     char **output)
{
	const char *root = streq(ctx->root, "/") ? NULL : ctx->root;
	int pipefd[2] = { -1, -1 }, errpipe[2] = { -1, -1 };
	char **env = merge_env(env_extra, root ? ROOT_PATH : NULL);
	int r = 0, status, child_errno;
	pid_t pid;

	if (!env)
		return -ENOMEM;
	if ((output && pipe2(pipefd, O_CLOEXEC) < 0) || pipe2(errpipe, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0)
		child(root, output ? pipefd[1] : STDERR_FILENO, errpipe[1], argv, env);
	close(errpipe[1]);
	errpipe[1] = -1;
	if (output) {
		close(pipefd[1]);
		pipefd[1] = -1;
		r = sl_read_fd(pipefd[0], SL_MAX_CONFIG_SIZE, output, NULL);
		if (r < 0)
			*output = NULL;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = -errno;
			goto out;
		}
	if (read(errpipe[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
		if (output) {
			free(*output);
			*output = NULL;
		}
		r = -child_errno;
	} else if (r >= 0) {
		r = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
out:
	free(env);
	for (size_t i = 0; i < 2; i++) {
		if (pipefd[i] >= 0)
			close(pipefd[i]);
		if (errpipe[i] >= 0)
			close(errpipe[i]);
	}
	return r;
}
