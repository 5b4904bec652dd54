/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running the bootloader tools: posix_spawnp with an argument vector, never
 * a shell string, so no value can be reinterpreted by a shell. The tool's
 * standard output goes to our standard error unless the caller reads it:
 * slctl's own standard output stays one JSON document.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "bootloader.h"

extern char **environ;

static char **merge_env(char *const *extra)
{
	size_t n = 0, m = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	while (extra && extra[m])
		m++;
	env = calloc(n + m + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
		bool overridden = false;

		for (size_t j = 0; j < m; j++)
			if (strncmp(extra[j], environ[i], len) == 0)
				overridden = true;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = extra[j];
	return env;
}

int sl_spawn(char *const *argv, char *const *env_extra, char **output)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2] = { -1, -1 };
	char **env = merge_env(env_extra);
	pid_t pid;
	int r, status;

	if (!env)
		return -ENOMEM;
	if (output && pipe2(pipefd, O_CLOEXEC) < 0) {
		free(env);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	if (output)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	else
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	if (output)
		close(pipefd[1]);
	if (r != 0) {
		if (output)
			close(pipefd[0]);
		return -r;
	}
	if (output) {
		r = sl_read_fd(pipefd[0], SL_MAX_CONFIG_SIZE, output, NULL);
		close(pipefd[0]);
		if (r < 0)
			*output = NULL;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (output && r < 0) {
		return r;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
