/* dmd_launch.c: running a build directory's appfile with MPICH's
 * mpiexec (spec section 2, "distmpmd run").
 *
 * The launcher is always called mpiexec.mpich: on machines where Open MPI
 * is installed as well (it comes with ScaLAPACK), plain "mpiexec" may be
 * Open MPI's, which does not understand MPICH's -configfile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dmd_manifest.h"

#define DMD_LAUNCH_MPIEXEC "mpiexec.mpich"

extern char **environ;

/* Return the command line
 * "mpiexec.mpich EXTRA... [-genv DMD_STATS 1] -configfile APPFILE"
 * as a NULL-terminated array (the strings are not copied). */
static char **dmd_launch_argv(const char *appfile, int stats, int n_extra,
	char **extra)
{
	char **argv;
	int i, n = 0;

	argv = malloc((n_extra + 7) * sizeof(*argv));
	if (!argv)
		return NULL;
	argv[n++] = DMD_LAUNCH_MPIEXEC;
	for (i = 0; i < n_extra; ++i)
		argv[n++] = extra[i];
	if (stats) {
		argv[n++] = "-genv";
		argv[n++] = "DMD_STATS";
		argv[n++] = "1";
	}
	argv[n++] = "-configfile";
	argv[n++] = (char *) appfile;
	argv[n] = NULL;
	return argv;
}

/* Return the environment of mpiexec: ours, with OPENBLAS_NUM_THREADS=1
 * added if it is not set (the ranks already use every core; OpenBLAS
 * threads on top of them would oversubscribe it).  The strings are not
 * copied. */
static char **dmd_launch_envp(void)
{
	static char openblas[] = "OPENBLAS_NUM_THREADS=1";
	char **envp;
	int i, n = 0;

	while (environ && environ[n])
		++n;
	envp = malloc((n + 2) * sizeof(*envp));
	if (!envp)
		return NULL;
	for (i = 0; i < n; ++i)
		envp[i] = environ[i];
	if (!getenv("OPENBLAS_NUM_THREADS"))
		envp[n++] = openblas;
	envp[n] = NULL;
	return envp;
}

/* In the child after fork: restore the dispositions of SIGINT and
 * SIGQUIT, run "argv" with "envp" and, if that fails, send errno to the
 * parent through "fd" (closed on a successful exec).  Only
 * async-signal-safe calls. */
static void dmd_launch_child(char **argv, char **envp, int fd,
	const struct sigaction *old_int, const struct sigaction *old_quit)
{
	int err;

	sigaction(SIGINT, old_int, NULL);
	sigaction(SIGQUIT, old_quit, NULL);
	execvpe(argv[0], argv, envp);
	err = errno;
	if (write(fd, &err, sizeof(err)) < 0)
		err = 0;
	_exit(127);
}

/* Start "argv" with "envp" and wait for it.  Return its exit status
 * as waitpid reports it in *status, or -1 with a message if it could
 * not be started.  While it runs, SIGINT and SIGQUIT (which the terminal
 * sends to mpiexec too) are ignored here, as in system(3), so that we
 * report how mpiexec ended. */
static int dmd_launch_run(char **argv, char **envp, int *status)
{
	struct sigaction ignore, old_int, old_quit;
	int pipefd[2] = { -1, -1 };
	int err = 0, r = -1;
	ssize_t got;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(errno));
		return -1;
	}
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(errno));
		close(pipefd[1]);
		goto error;
	}
	if (pid == 0)
		dmd_launch_child(argv, envp, pipefd[1], &old_int, &old_quit);
	close(pipefd[1]);

	do
		got = read(pipefd[0], &err, sizeof(err));
	while (got < 0 && errno == EINTR);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "distmpmd: waiting for %s: %s\n",
				argv[0], strerror(errno));
			goto error;
		}
	}
	if (got == sizeof(err)) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(err));
		goto error;
	}
	r = 0;
error:
	close(pipefd[0]);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return r;
}

/* Report how mpiexec ended, given its wait "status", unless it
 * succeeded.  Return the exit status for distmpmd: 0 or 1. */
static int dmd_launch_status(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		fprintf(stderr, "distmpmd: %s failed (exit status %d)\n",
			DMD_LAUNCH_MPIEXEC, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "distmpmd: %s killed by signal %d (%s)\n",
			DMD_LAUNCH_MPIEXEC, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "distmpmd: %s failed\n", DMD_LAUNCH_MPIEXEC);
	return 1;
}

/* Run DIR/appfile with mpiexec.mpich (see the header) and return 0 if it
 * succeeded, 1 otherwise, with a message saying why. */
int dmd_launch(const char *dir, int stats, int n_extra, char **extra)
{
	char *appfile = NULL;
	char **argv = NULL, **envp = NULL;
	size_t len = strlen(dir);
	int status, r = 1;

	if (n_extra < 0 || (n_extra > 0 && !extra)) {
		fprintf(stderr, "distmpmd: bad mpiexec arguments\n");
		return 1;
	}
	if (asprintf(&appfile, "%s%sappfile", dir,
			len > 0 && dir[len - 1] == '/' ? "" : "/") < 0) {
		appfile = NULL;
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	if (access(appfile, R_OK) < 0) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", appfile,
			strerror(errno));
		goto error;
	}
	argv = dmd_launch_argv(appfile, stats, n_extra, extra);
	envp = dmd_launch_envp();
	if (!argv || !envp) {
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	if (dmd_launch_run(argv, envp, &status) < 0)
		goto error;
	r = dmd_launch_status(status);
error:
	free(envp);
	free(argv);
	free(appfile);
	return r;
}
