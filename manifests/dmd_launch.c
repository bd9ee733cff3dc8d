/* dmd_launch.c: processes without a shell (compilers, mpiexec), passing
 * on cancellation, and running a build directory with the launcher of
 * the MPI that built it (spec section 2, "distmpmd run", "MPI").
 *
 * The launcher is mpiexec.mpich unless the command line or
 * DISTMPMD_MPIEXEC names another (manifests/dmd_mpi.c): on machines
 * where Open MPI is installed as well, plain "mpiexec" may be Open
 * MPI's.  It must belong to the MPI whose wrapper built the directory
 * (the manifest's "mpi"): a program built against one MPI's library
 * does not run under another's launcher.
 *
 * A run starts the ranks on mpiexec's command line, in the colon form
 * that MPICH and Open MPI share, "-n COUNT -wdir DIR DIR/BINARY : ...",
 * one section per line of the appfile (after checking that the appfile
 * is what the manifest implies): hydra applies a -wdir given before the
 * first section (or on the command line of -configfile) to the first
 * executable only, and an appfile has no quoting for a directory with
 * white space in its name.  MPICH's -genv holds for every section; Open
 * MPI's -x only for its own, so it is repeated in each.
 *
 * Cancelling: hydra's mpiexec stops its proxies and ranks when it gets
 * SIGINT or SIGTERM, but the proxies and ranks run in sessions of their
 * own, so neither a signal to our process group nor one to mpiexec's
 * reaches them if mpiexec dies first.  Hence: signals that cancel
 * distmpmd are passed on to mpiexec's group; distmpmd is the "child
 * subreaper" of its descendants, so that processes whose parent died
 * stay below it; and after a grace period, or once mpiexec has ended,
 * whatever is left below distmpmd is killed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir/dmd_int.h"
#include "dmd_launch.h"
#include "dmd_manifest.h"
#include "dmd_mpi.h"
#include "dmd_text.h"

/* At most this many processes started and not yet waited for. */
#define DMD_LAUNCH_MAX 256

extern char **environ;

/* The process groups started and not yet reaped (0: a free slot).
 * Changed only with the cancelling signals blocked; read by the signal
 * handler. */
static volatile pid_t dmd_launch_groups[DMD_LAUNCH_MAX];
/* The first cancelling signal received, or 0. */
static volatile sig_atomic_t dmd_launch_sig;

/* The signals that cancel distmpmd. */
static const int dmd_launch_cancel_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define DMD_LAUNCH_N_SIGS 3

static int dmd_launch_slot(pid_t pid);
static void dmd_launch_forget(pid_t pid);

/* The dispositions before dmd_launch_catch (and SIGCHLD's last). */
static struct sigaction dmd_launch_old[DMD_LAUNCH_N_SIGS + 1];
static int dmd_launch_caught;

/* The handler of the cancelling signals: remember the first one and
 * send it on to every group started.  Async-signal-safe. */
static void dmd_launch_on_signal(int sig)
{
	int i, saved = errno;

	if (!dmd_launch_sig)
		dmd_launch_sig = sig;
	for (i = 0; i < DMD_LAUNCH_MAX; ++i)
		if (dmd_launch_groups[i] > 0)
			kill(-dmd_launch_groups[i], sig);
	errno = saved;
}

/* The handler of SIGCHLD: nothing, but it interrupts the sleep of
 * dmd_launch_wait. */
static void dmd_launch_on_child(int sig)
{
	(void) sig;
}

/* Fill "set" with the cancelling signals. */
static void dmd_launch_sigset(sigset_t *set)
{
	int i;

	sigemptyset(set);
	for (i = 0; i < DMD_LAUNCH_N_SIGS; ++i)
		sigaddset(set, dmd_launch_cancel_sigs[i]);
}

/* Catch the cancelling signals (see the header).  A signal that was
 * ignored when we started (nohup, a background job) stays ignored. */
void dmd_launch_catch(void)
{
	struct sigaction sa;
	int i;

	if (dmd_launch_caught)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = &dmd_launch_on_signal;
	dmd_launch_sigset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: interrupt the waits */
	for (i = 0; i < DMD_LAUNCH_N_SIGS; ++i) {
		int sig = dmd_launch_cancel_sigs[i];

		sigaction(sig, NULL, &dmd_launch_old[i]);
		if (dmd_launch_old[i].sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);
	}
	sa.sa_handler = &dmd_launch_on_child;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &dmd_launch_old[DMD_LAUNCH_N_SIGS]);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	dmd_launch_sig = 0;
	dmd_launch_caught = 1;
}

/* Restore the dispositions that dmd_launch_catch changed. */
void dmd_launch_release(void)
{
	int i;

	if (!dmd_launch_caught)
		return;
	for (i = 0; i < DMD_LAUNCH_N_SIGS; ++i)
		sigaction(dmd_launch_cancel_sigs[i], &dmd_launch_old[i], NULL);
	sigaction(SIGCHLD, &dmd_launch_old[DMD_LAUNCH_N_SIGS], NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	dmd_launch_caught = 0;
}

/* The first cancelling signal, or 0. */
int dmd_launch_cancelled(void)
{
	return dmd_launch_sig;
}

/* In the child after fork: a process group of its own, the signal mask
 * of before the fork and the dispositions of before dmd_launch_catch,
 * SIGTERM if distmpmd dies (even of SIGKILL), standard output on
 * "out_fd" (if >= 0), standard input and error on "null_fd" (if >= 0),
 * the directory "wdir", then "argv" with "envp".
 * If anything fails, errno goes to the parent through "fd" (closed on a
 * successful exec).  Only async-signal-safe calls. */
static void dmd_launch_child(char *const *argv, char *const *envp,
	const char *wdir, int out_fd, int null_fd, int fd,
	const sigset_t *mask, pid_t parent)
{
	struct sigaction sa;
	int i, err;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (getppid() != parent)
		_exit(127);
	/* our handlers are not the child's: a cancelling signal that
	 * arrives before the exec must stop it */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; dmd_launch_caught && i < DMD_LAUNCH_N_SIGS; ++i) {
		sa.sa_handler = dmd_launch_old[i].sa_handler == SIG_IGN ?
			SIG_IGN : SIG_DFL;
		sigaction(dmd_launch_cancel_sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, mask, NULL);
	if ((out_fd < 0 || out_fd == 1 || dup2(out_fd, 1) == 1) &&
	    (null_fd < 0 || (dup2(null_fd, 0) == 0 && dup2(null_fd, 2) == 2)) &&
	    (!wdir || chdir(wdir) == 0))
		execvpe(argv[0], argv, envp ? envp : environ);
	err = errno;
	if (write(fd, &err, sizeof(err)) < 0)
		err = 0;
	_exit(127);
}

/* Start "argv" (see the header). */
pid_t dmd_launch_start(char *const *argv, char *const *envp,
	const char *wdir)
{
	return dmd_launch_start_out(argv, envp, wdir, -1);
}

static pid_t dmd_launch_start_io(char *const *argv, char *const *envp,
	const char *wdir, int out_fd, int null_fd);

/* Start "argv" with its standard output on "out_fd" (see the header). */
pid_t dmd_launch_start_out(char *const *argv, char *const *envp,
	const char *wdir, int out_fd)
{
	return dmd_launch_start_io(argv, envp, wdir, out_fd, -1);
}

/* Start "argv" with its standard output on "out_fd" and, if "null_fd"
 * is not -1, its standard input and error on "null_fd". */
static pid_t dmd_launch_start_io(char *const *argv, char *const *envp,
	const char *wdir, int out_fd, int null_fd)
{
	sigset_t block, old;
	int pipefd[2] = { -1, -1 };
	int slot, err = 0, status;
	ssize_t got;
	pid_t pid, parent = getpid();

	for (slot = 0; slot < DMD_LAUNCH_MAX; ++slot)
		if (dmd_launch_groups[slot] == 0)
			break;
	if (slot == DMD_LAUNCH_MAX) {
		fprintf(stderr, "distmpmd: cannot run %s: too many processes\n",
			argv[0]);
		return -1;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(errno));
		return -1;
	}
	dmd_launch_sigset(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		dmd_launch_child(argv, envp, wdir, out_fd, null_fd, pipefd[1],
			&old, parent);
	if (pid > 0) {
		setpgid(pid, pid);
		dmd_launch_groups[slot] = pid;
	} else
		err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (pid < 0) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(err));
		close(pipefd[0]);
		return -1;
	}

	do
		got = read(pipefd[0], &err, sizeof(err));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	if (got != sizeof(err))
		return pid;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	dmd_launch_forget(pid);
	if (wdir && err == ENOENT && access(wdir, X_OK) < 0)
		fprintf(stderr, "distmpmd: cannot enter %s: %s\n", wdir,
			strerror(err));
	else
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(err));
	return -1;
}

/* Return the slot of "pid" among the started groups, or -1. */
static int dmd_launch_slot(pid_t pid)
{
	int i;

	for (i = 0; i < DMD_LAUNCH_MAX; ++i)
		if (dmd_launch_groups[i] == pid)
			return i;
	return -1;
}

/* Forget the started process "pid" (reaped elsewhere), if it is one. */
static void dmd_launch_forget(pid_t pid)
{
	sigset_t block, old;
	int slot = pid > 0 ? dmd_launch_slot(pid) : -1;

	if (slot < 0)
		return;
	dmd_launch_sigset(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	dmd_launch_groups[slot] = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The time in seconds (monotonic). */
static double dmd_launch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run "argv" and keep what it prints (see the header). */
int dmd_launch_capture(char *const *argv, char *out, size_t size,
	int seconds, int *status)
{
	double deadline = dmd_launch_now() + seconds;
	int pipefd[2] = { -1, -1 }, null_fd, r = 0;
	size_t len = 0;
	pid_t pid;

	out[0] = '\0';
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", argv[0],
			strerror(errno));
		if (null_fd >= 0)
			close(null_fd);
		return -1;
	}
	pid = dmd_launch_start_io(argv, NULL, NULL, pipefd[1], null_fd);
	close(pipefd[1]);
	close(null_fd);
	if (pid < 0) {
		close(pipefd[0]);
		return -1;
	}
	for (;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		double left = deadline - dmd_launch_now();
		char drop[4096];
		ssize_t n;

		if (left <= 0) {
			r = -2;
			break;
		}
		n = poll(&p, 1, (int) (left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		if (len + 1 < size)
			n = read(pipefd[0], out + len, size - 1 - len);
		else
			n = read(pipefd[0], drop, sizeof(drop));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < size)
			len += n;
	}
	out[len] = '\0';
	close(pipefd[0]);
	if (r == -2)
		kill(-pid, SIGKILL);
	/* what is left of its group goes before the group's id is free */
	{
		siginfo_t info;

		while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0 &&
		       errno == EINTR)
			;
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	dmd_launch_forget(pid);
	return r;
}

/* Sleep "s" seconds or until a signal arrives. */
static void dmd_launch_nap(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t) s;
	ts.tv_nsec = (long) ((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* Wait for a started process (see the header).  Ended processes are
 * looked at with WNOWAIT first, so that the process group is still
 * theirs when what is left of it is killed. */
pid_t dmd_launch_wait(int *status)
{
	double deadline = 0;
	int i, slot, any, killed = 0;

	for (;;) {
		siginfo_t info;

		any = 0;
		for (i = 0; i < DMD_LAUNCH_MAX; ++i)
			if (dmd_launch_groups[i] > 0)
				any = 1;
		if (!any)
			return -1;
		memset(&info, 0, sizeof(info));
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD) {
				/* reaped by dmd_launch_kill_all */
				for (i = 0; i < DMD_LAUNCH_MAX; ++i)
					dmd_launch_forget(
						dmd_launch_groups[i]);
				return -1;
			}
			fprintf(stderr, "distmpmd: waiting for a child: %s\n",
				strerror(errno));
			return -1;
		}
		if (info.si_pid > 0) {
			pid_t pid = info.si_pid;

			slot = dmd_launch_slot(pid);
			if (slot >= 0)
				kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			if (slot < 0)
				continue;	/* an orphan we adopted */
			dmd_launch_forget(pid);
			return pid;
		}
		if (dmd_launch_sig && !killed) {
			double now = dmd_launch_now();

			if (deadline == 0)
				deadline = now + DMD_LAUNCH_GRACE;
			if (now >= deadline) {
				for (i = 0; i < DMD_LAUNCH_MAX; ++i)
					if (dmd_launch_groups[i] > 0)
						kill(-dmd_launch_groups[i],
							SIGKILL);
				dmd_launch_kill_all();
				killed = 1;
			}
		}
		dmd_launch_nap(dmd_launch_sig ? 0.02 : 0.2);
	}
}

/* Return the parent of "pid" as /proc says, or -1. */
static pid_t dmd_launch_parent(const char *pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long ppid;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything */
	p = strrchr(buf, ')');
	if (!p || strlen(p) < 4 || dmd_int_parse(p + 3, strcspn(p + 3, " "),
			0, INT_MAX, &ppid) != DMD_INT_OK)
		return -1;
	return (pid_t) ppid;
}

/* Return the descendants of this process, from /proc, in newly
 * allocated memory, their number in *n (NULL and 0 if there are none or
 * memory runs out). */
static pid_t *dmd_launch_descendants(int *n)
{
	pid_t *pids = NULL, *ppids = NULL, *out = NULL, me = getpid();
	char *mark = NULL;
	int size = 0, n_all = 0, i, j, changed;
	struct dirent *e;
	DIR *d;

	*n = 0;
	d = opendir("/proc");
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		long pid;

		if (dmd_int_parse(e->d_name, DMD_INT_NUL, 1, INT_MAX, &pid) !=
				DMD_INT_OK)
			continue;
		if (n_all == size) {
			pid_t *p, *q;

			size = size ? 2 * size : 1024;
			p = realloc(pids, size * sizeof(*pids));
			if (p)
				pids = p;
			q = realloc(ppids, size * sizeof(*ppids));
			if (q)
				ppids = q;
			if (!p || !q)
				goto error;
		}
		pids[n_all] = (pid_t) pid;
		ppids[n_all] = dmd_launch_parent(e->d_name);
		++n_all;
	}
	mark = calloc(n_all ? n_all : 1, 1);
	out = malloc((n_all ? n_all : 1) * sizeof(*out));
	if (!mark || !out)
		goto error;
	do {
		changed = 0;
		for (i = 0; i < n_all; ++i) {
			int below = ppids[i] == me;

			for (j = 0; !below && j < n_all; ++j)
				below = mark[j] && pids[j] == ppids[i];
			if (below && !mark[i]) {
				mark[i] = 1;
				changed = 1;
			}
		}
	} while (changed);
	for (i = 0; i < n_all; ++i)
		if (mark[i])
			out[(*n)++] = pids[i];
	closedir(d);
	free(mark);
	free(pids);
	free(ppids);
	return out;
error:
	closedir(d);
	free(out);
	free(mark);
	free(pids);
	free(ppids);
	*n = 0;
	return NULL;
}

/* Kill and reap every descendant (see the header).  A process may fork
 * while we look, so look again until nothing is left (for a while). */
void dmd_launch_kill_all(void)
{
	pid_t *pids, pid;
	int round, i, n;

	for (round = 0; round < 100; ++round) {
		pids = dmd_launch_descendants(&n);
		for (i = 0; i < n; ++i) {
			if (dmd_launch_slot(pids[i]) >= 0)
				kill(-pids[i], SIGKILL);
			kill(pids[i], SIGKILL);
		}
		free(pids);
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			dmd_launch_forget(pid);
		if (n == 0)
			break;
		dmd_launch_nap(0.01);
	}
}

/* A command line being put together; it owns the strings in "own". */
struct dmd_launch_cmd {
	int n;
	char **argv;		/* NULL-terminated, strings not owned */
	int n_own;
	char **own;
};

/* Free what "c" holds. */
static void dmd_launch_cmd_free(struct dmd_launch_cmd *c)
{
	int i;

	for (i = 0; i < c->n_own; ++i)
		free(c->own[i]);
	free(c->own);
	free(c->argv);
}

/* Keep "s" (newly allocated, may be NULL) in "c" and return it. */
static char *dmd_launch_own(struct dmd_launch_cmd *c, char *s)
{
	c->own[c->n_own++] = s;
	return s;
}

/* Put in "c" the command line that runs the build directory "absdir"
 * whose checked manifest implies the appfile "appfile" (its text), with
 * the launcher "exec" of MPI "family" (see dmd_launch in the header),
 * or, if "configfile" (MPICH only), with the sections replaced by
 * "-configfile appfile" (to be run in ABSDIR).  -1 with a message if
 * memory runs out. */
static int dmd_launch_command(struct dmd_launch_cmd *c, const char *absdir,
	const char *appfile, const char *exec, enum dmd_mpi_family family,
	const struct dmd_launch_opts *o, int configfile)
{
	int ompi = family == DMD_MPI_OPENMPI;
	const char *line;
	int i, n_lines = 0;

	memset(c, 0, sizeof(*c));
	for (line = appfile; *line; ++line)
		n_lines += *line == '\n';
	/* the launcher, extra, 2 x "-genv NAME VALUE" or -configfile
	 * appfile; per line ": -n COUNT -wdir DIR PATH" and with Open MPI
	 * up to 4 x "-x NAME[=VALUE]"; NULL */
	c->argv = malloc((o->n_extra + 14 * n_lines + 9) * sizeof(*c->argv));
	c->own = calloc(4 * n_lines + 1, sizeof(*c->own));
	if (!c->argv || !c->own)
		goto error;
	c->argv[c->n++] = (char *) exec;
	if (!ompi && o->trace) {
		c->argv[c->n++] = "-genv";
		c->argv[c->n++] = "DMD_TRACE";
		c->argv[c->n++] = (char *) o->trace;
	}
	for (i = 0; i < o->n_extra; ++i)
		c->argv[c->n++] = o->extra[i];
	if (!ompi && o->stats) {
		c->argv[c->n++] = "-genv";
		c->argv[c->n++] = "DMD_STATS";
		c->argv[c->n++] = "1";
	}
	if (configfile) {
		c->argv[c->n++] = "-configfile";
		c->argv[c->n++] = "appfile";
		n_lines = 0;
	}
	/* the appfile's lines are "-n COUNT ./BINARY" */
	for (line = appfile; n_lines > 0 && *line; ) {
		const char *count = line + 3, *binary = strchr(count, ' ');
		const char *end = strchr(line, '\n');
		char *name, *s;

		if (line != appfile)
			c->argv[c->n++] = ":";
		c->argv[c->n++] = "-n";
		if (!(c->argv[c->n++] = dmd_launch_own(c,
				strndup(count, binary - count))))
			goto error;
		c->argv[c->n++] = "-wdir";
		c->argv[c->n++] = (char *) absdir;
		if (ompi && o->trace) {
			c->argv[c->n++] = "-x";
			if (asprintf(&s, "DMD_TRACE=%s", o->trace) < 0 ||
			    !(c->argv[c->n++] = dmd_launch_own(c, s)))
				goto error;
		}
		if (ompi && o->stats) {
			c->argv[c->n++] = "-x";
			c->argv[c->n++] = "DMD_STATS=1";
		}
		if (ompi) {
			c->argv[c->n++] = "-x";
			c->argv[c->n++] = "OPENBLAS_NUM_THREADS";
		}
		if (ompi && getenv("DMD_JOB_DIR")) {
			c->argv[c->n++] = "-x";
			c->argv[c->n++] = "DMD_JOB_DIR";
		}
		name = strndup(binary + 3, end - binary - 3);
		s = name ? dmd_path_join(absdir, name) : NULL;
		free(name);
		if (!(c->argv[c->n++] = dmd_launch_own(c, s)))
			goto error;
		line = end + 1;
	}
	c->argv[c->n] = NULL;
	return 0;
error:
	fprintf(stderr, "distmpmd: out of memory\n");
	dmd_launch_cmd_free(c);
	memset(c, 0, sizeof(*c));
	return -1;
}

/* Return the environment of mpiexec: ours, with OPENBLAS_NUM_THREADS=1
 * added if it is not set (the ranks already use every core; OpenBLAS
 * threads on top of them would oversubscribe it), and a relative
 * DMD_JOB_DIR made absolute (the ranks run in the build directory).
 * The strings are not copied, except the new DMD_JOB_DIR, returned in
 * *job_dir for the caller to free. */
static char **dmd_launch_envp(char **job_dir)
{
	static char openblas[] = "OPENBLAS_NUM_THREADS=1";
	const char *jd = getenv("DMD_JOB_DIR");
	char **envp, *cwd;
	int i, n = 0;

	*job_dir = NULL;
	while (environ && environ[n])
		++n;
	envp = malloc((n + 2) * sizeof(*envp));
	if (!envp)
		return NULL;
	if (jd && *jd && *jd != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd || asprintf(job_dir, "DMD_JOB_DIR=%s/%s", cwd,
				jd) < 0) {
			*job_dir = NULL;
			free(cwd);
			free(envp);
			return NULL;
		}
		free(cwd);
	}
	for (i = 0; i < n; ++i)
		envp[i] = *job_dir && !strncmp(environ[i], "DMD_JOB_DIR=", 12) ?
			*job_dir : environ[i];
	if (!getenv("OPENBLAS_NUM_THREADS"))
		envp[n++] = openblas;
	envp[n] = NULL;
	return envp;
}

/* Report how the launcher "exec" ended, given its wait "status", unless
 * it succeeded.  Return the exit status for distmpmd: 0 or 1. */
static int dmd_launch_status(const char *exec, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		fprintf(stderr, "distmpmd: %s failed (exit status %d)\n",
			exec, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "distmpmd: %s killed by signal %d (%s)\n",
			exec, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "distmpmd: %s failed\n", exec);
	return 1;
}

/* Check that the launcher "exec" belongs to the MPI that built "dir"
 * (manifest "m"), whose family goes to *family.  -1 after a message. */
static int dmd_launch_check_mpi(const char *dir, const struct dmd_manifest *m,
	const char *exec, enum dmd_mpi_family *family)
{
	struct dmd_mpi built, run;

	built.family = DMD_MPI_MPICH;
	if (m->mpi)
		built.family = dmd_mpi_family_of(m->mpi);
	if (dmd_mpi_probe_exec(exec, &run) < 0)
		return -1;
	*family = built.family;
	if (run.family == built.family)
		return 0;
	fprintf(stderr, "distmpmd: %s was built with %s (", dir,
		dmd_mpi_name(built.family));
	dmd_mpi_show_in(stderr, m->mpicc ? m->mpicc : "mpicc.mpich");
	fprintf(stderr, ") but the launcher ");
	dmd_mpi_show_in(stderr, exec);
	fprintf(stderr, " is %s's: give %s's launcher (--mpiexec or "
		"DISTMPMD_MPIEXEC, e.g. %s)\n", dmd_mpi_name(run.family),
		dmd_mpi_name(built.family),
		built.family == DMD_MPI_MPICH ? "mpiexec.mpich" :
		"mpiexec.openmpi");
	return -1;
}

/* Check "dir" and return its absolute path and the appfile text that
 * its manifest implies (*m the manifest), and the launcher and its MPI
 * family, or -1 after a message. */
static int dmd_launch_prepare(const char *dir, const struct dmd_launch_opts *o,
	struct dmd_manifest **m, char **absdir, char **appfile,
	const char **exec, enum dmd_mpi_family *family)
{
	*absdir = *appfile = NULL;
	*m = dmd_manifest_verify(dir);
	if (!*m)
		return -1;
	*exec = dmd_mpi_exec(o->mpiexec);
	if (dmd_launch_check_mpi(dir, *m, *exec, family) < 0)
		return -1;
	*absdir = realpath(dir, NULL);
	if (!*absdir) {
		fprintf(stderr, "distmpmd: cannot run %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	*appfile = dmd_manifest_appfile(*m);
	return *appfile ? 0 : -1;
}

/* Run the build directory "dir" (see the header). */
int dmd_launch(const char *dir, const struct dmd_launch_opts *o)
{
	struct dmd_manifest *m = NULL;
	struct dmd_launch_cmd c;
	enum dmd_mpi_family family;
	const char *exec = NULL;
	char *absdir = NULL, *appfile = NULL, *job_dir = NULL;
	char **envp = NULL;
	int status = 0, sig, r = 1;
	pid_t pid, done;

	memset(&c, 0, sizeof(c));
	if (o->n_extra < 0 || (o->n_extra > 0 && !o->extra)) {
		fprintf(stderr, "distmpmd: bad mpiexec arguments\n");
		return 1;
	}
	if (dmd_launch_prepare(dir, o, &m, &absdir, &appfile, &exec,
			&family) < 0 ||
	    dmd_launch_command(&c, absdir, appfile, exec, family, o, 0) < 0)
		goto error;
	envp = dmd_launch_envp(&job_dir);
	if (!envp) {
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	dmd_launch_catch();
	pid = dmd_launch_start(c.argv, envp, NULL);
	if (pid > 0) {
		do
			done = dmd_launch_wait(&status);
		while (done > 0 && done != pid);
		if (done != pid && !dmd_launch_cancelled())
			status = -1;
	}
	dmd_launch_kill_all();
	sig = dmd_launch_cancelled();
	dmd_launch_release();
	if (sig)
		fprintf(stderr, "distmpmd: run cancelled by signal %d (%s)\n",
			sig, strsignal(sig));
	else if (pid > 0 && status != -1)
		r = dmd_launch_status(exec, status);
error:
	dmd_launch_cmd_free(&c);
	free(job_dir);
	free(envp);
	free(appfile);
	free(absdir);
	dmd_manifest_free(m);
	return r;
}

/* Print "s" to "out" as one word for a POSIX shell: as it is if it
 * holds only characters that no shell treats specially, else in single
 * quotes, a quote inside as '"'"' (as Python's shlex.quote). */
static void dmd_launch_quote(FILE *out, const char *s)
{
	const char *p;

	for (p = s; *p; ++p)
		if (!isalnum((unsigned char) *p) && !strchr("_@%+=:,./-", *p))
			break;
	if (*s && !*p) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (p = s; *p; ++p)
		if (*p == '\'')
			fputs("'\"'\"'", out);
		else
			fputc(*p, out);
	fputc('\'', out);
}

/* Print the words of "argv" to "out", quoted, after "pre" (shell text,
 * may be NULL), and then "post" (may be NULL), on one line. */
static void dmd_launch_print(FILE *out, const char *pre, char **argv,
	const char *post)
{
	int i;

	if (pre)
		fputs(pre, out);
	for (i = 0; argv[i]; ++i) {
		if (i)
			fputc(' ', out);
		dmd_launch_quote(out, argv[i]);
	}
	if (post)
		fputs(post, out);
	fputc('\n', out);
}

/* Print the commands that run "dir" (see the header). */
int dmd_launch_dry_run(const char *dir, const struct dmd_launch_opts *o,
	FILE *out)
{
	struct dmd_manifest *m = NULL;
	struct dmd_launch_cmd c;
	enum dmd_mpi_family family;
	const char *exec = NULL;
	char *absdir = NULL, *appfile = NULL, *multiprog = NULL;
	char *srun[6] = { NULL };
	const char *env = getenv("OPENBLAS_NUM_THREADS") ? "" :
		"OPENBLAS_NUM_THREADS=1 ";
	int r = 1;

	memset(&c, 0, sizeof(c));
	if (dmd_launch_prepare(dir, o, &m, &absdir, &appfile, &exec,
			&family) < 0 ||
	    dmd_launch_command(&c, absdir, appfile, exec, family, o, 0) < 0)
		goto error;
	fprintf(out, "# %s: %ld ranks, %d class%s\n", dir, m->nranks,
		m->n_classes, m->n_classes == 1 ? "" : "es");
	fprintf(out, "# %s, the ranks on the command line (what "
		"distmpmd run does):\n", dmd_mpi_name(family));
	dmd_launch_print(out, env, c.argv, NULL);
	dmd_launch_cmd_free(&c);
	memset(&c, 0, sizeof(c));
	if (family == DMD_MPI_MPICH) {
		if (dmd_launch_command(&c, absdir, appfile, exec, family, o,
				1) < 0)
			goto error;
		fprintf(out, "# MPICH, with the appfile, in the build "
			"directory:\n");
		fputs("(cd ", out);
		dmd_launch_quote(out, absdir);
		fputs(" && ", out);
		dmd_launch_print(out, env, c.argv, ")");
	}
	multiprog = dmd_path_join(absdir, "multiprog.conf");
	if (!multiprog || asprintf(&srun[1], "--ntasks=%ld", m->nranks) < 0 ||
	    asprintf(&srun[2], "--chdir=%s", absdir) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	srun[0] = "srun";
	srun[3] = "--multi-prog";
	srun[4] = multiprog;
	fprintf(out, "# Slurm, inside an allocation of %ld task%s:\n",
		m->nranks, m->nranks == 1 ? "" : "s");
	fprintf(out, "%s%s", env, o->stats ? "DMD_STATS=1 " : "");
	dmd_launch_print(out, NULL, srun, NULL);
	r = fflush(out) == 0 ? 0 : 1;
error:
	free(srun[1]);
	free(srun[2]);
	free(multiprog);
	dmd_launch_cmd_free(&c);
	free(appfile);
	free(absdir);
	dmd_manifest_free(m);
	return r;
}
