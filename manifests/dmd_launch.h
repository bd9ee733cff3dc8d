/* dmd_launch.h: starting and waiting for processes without a shell
 * (the compilers of a build, the MPI launcher for a run), passing on
 * cancellation, and launching a build directory.
 *
 * Every process is started with fork and execvp from an argument vector,
 * in a process group of its own.  While signals are caught
 * (dmd_launch_catch), SIGINT, SIGTERM and SIGHUP received by distmpmd are
 * sent on to every group started and not yet waited for; after such a
 * signal, dmd_launch_wait kills (SIGKILL) whatever is left of them once
 * a grace period has passed, so that cancelling distmpmd leaves nothing
 * running.
 */
#ifndef DMD_LAUNCH_H
#define DMD_LAUNCH_H

#include <stdio.h>
#include <sys/types.h>

/* Seconds between passing on a cancelling signal and SIGKILL. */
#define DMD_LAUNCH_GRACE 5

/* Catch SIGINT, SIGTERM and SIGHUP (see above), and become the reaper of
 * our orphaned descendants (so that none escapes the cleanup).
 * dmd_launch_release restores the previous dispositions. */
void dmd_launch_catch(void);
void dmd_launch_release(void);
/* The first cancelling signal received while caught, or 0. */
int dmd_launch_cancelled(void);

/* Start "argv" (argv[0] looked up in PATH) with the environment "envp"
 * (NULL: ours) in the directory "wdir" (NULL: ours), in a new process
 * group.  Returns its pid, or -1 after a message on stderr (also when it
 * could not be executed). */
pid_t dmd_launch_start(char *const *argv, char *const *envp,
	const char *wdir);
/* The same, with the standard output of the process on the file
 * descriptor "out_fd" (-1: ours). */
pid_t dmd_launch_start_out(char *const *argv, char *const *envp,
	const char *wdir, int out_fd);
/* Run "argv" (no shell) with its standard input and error on /dev/null
 * and its standard output into "out" (at most size - 1 bytes kept, NUL
 * terminated, the rest read and dropped); wait for it, at most
 * "seconds" (then its process group is killed).  Returns 0 with its wait
 * status in *status, -2 if it did not end in time, or -1 after a message
 * if it could not be started. */
int dmd_launch_capture(char *const *argv, char *out, size_t size,
	int seconds, int *status);
/* Wait for one of the processes started by dmd_launch_start to end;
 * return its pid and its wait status in *status, or -1 if there are none
 * left (or waiting failed, with a message).  Before it is reaped, what
 * is left of its process group is killed.  After a cancelling signal,
 * every started group gets SIGKILL once DMD_LAUNCH_GRACE seconds have
 * passed. */
pid_t dmd_launch_wait(int *status);
/* Kill (SIGKILL) and reap every descendant of this process that is
 * still there. */
void dmd_launch_kill_all(void);

/* How to launch a build directory.  "trace" (absolute, or NULL) goes to
 * every rank as DMD_TRACE, "stats" as DMD_STATS=1; "mpiexec" is the
 * launcher given on the command line (NULL: dmd_mpi_exec's default);
 * "extra" (n_extra words) goes to the launcher before the ranks. */
struct dmd_launch_opts {
	int stats;
	const char *trace;
	const char *mpiexec;
	int n_extra;
	char **extra;
};

/* Run the build directory "dir": check it (dmd_manifest_verify), check
 * that the launcher belongs to the MPI that built it (the manifest's
 * "mpi", MPICH when it has none), then run it with the ranks on the
 * launcher's command line, one section per line of the appfile (DIR
 * absolute), waiting for it with signals caught:
 *   MPICH:    MPIEXEC [-genv DMD_TRACE FILE] EXTRA [-genv DMD_STATS 1]
 *	       -n COUNT -wdir DIR DIR/BINARY : ...
 *   Open MPI: MPIEXEC EXTRA -n COUNT -wdir DIR [-x DMD_TRACE=FILE]
 *	       [-x DMD_STATS=1] -x OPENBLAS_NUM_THREADS [-x DMD_JOB_DIR]
 *	       DIR/BINARY : ...
 * (Open MPI's -x holds for its own section only, and is what carries a
 * variable to other nodes.)  The environment gets OPENBLAS_NUM_THREADS=1
 * if it is not set, and a relative DMD_JOB_DIR is made absolute.
 * Returns the exit status to use: 0 if the launcher succeeded, 1
 * otherwise (a message says why: a failed check, a launcher of another
 * MPI, missing or failing, a cancelling signal). */
int dmd_launch(const char *dir, const struct dmd_launch_opts *o);

/* Check "dir" as dmd_launch does, then print to "out", without running
 * anything, the commands that run it: the launcher with the ranks on
 * its command line (what dmd_launch runs), with MPICH also
 * mpiexec -configfile appfile in the build directory, and srun
 * --multi-prog; each one line, quoted for a POSIX shell.  Returns 0, or
 * 1 after a message. */
int dmd_launch_dry_run(const char *dir, const struct dmd_launch_opts *o,
	FILE *out);

#endif
