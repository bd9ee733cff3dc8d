/* dmd_launch.h: starting and waiting for processes without a shell
 * (the compilers of a build, mpiexec.mpich for a run), passing on
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

/* Run the build directory "dir": check it (dmd_manifest_verify), then
 * run "mpiexec.mpich [extra args] [-genv DMD_STATS 1] -n COUNT -wdir DIR
 * DIR/BINARY : ..." with one section per line of the appfile (DIR
 * absolute), waiting for it with signals caught.  The
 * environment gets OPENBLAS_NUM_THREADS=1 if it is not set, and a
 * relative DMD_JOB_DIR is made absolute.  Returns the exit status to use:
 * 0 if mpiexec succeeded, 1 otherwise (a message says why: a failed
 * check, mpiexec.mpich missing or failing, a cancelling signal). */
int dmd_launch(const char *dir, int stats, int n_extra, char **extra);

/* Check "dir" as dmd_launch does, then print to "out", without running
 * anything, the commands that run it: mpiexec.mpich with the ranks on
 * its command line (colon form, what dmd_launch runs), mpiexec.mpich
 * with the appfile in the build directory, and srun --multi-prog; each
 * one line, quoted for a POSIX shell.  Returns 0,
 * or 1 after a message. */
int dmd_launch_dry_run(const char *dir, int stats, int n_extra,
	char **extra, FILE *out);

#endif
