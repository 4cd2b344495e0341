/* forkexec.c - forks a child that execs PROGRAM [ARGS...] (argv[1]...), waits for it and exits
 * with its status. The parent itself does almost nothing: the child's lines must show. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: forkexec PROGRAM [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		execv(argv[1], argv + 1); /* HOT: exec */
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
