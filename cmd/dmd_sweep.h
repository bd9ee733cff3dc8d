/* dmd_sweep.h: running a job over a range of values of its fields
 * ("distmpmd sweep JOB --set KEY=LIST ...").
 *
 * For each point of the Cartesian product of the --set lists, the job
 * file is edited as a YAML document (libyaml's document API) and emitted
 * into WORK/point-N/ (N from 1), then analysed (--no-run) or built and
 * run with --stats by this same executable, optionally with the inputs
 * written and the outputs checked by the sequential reference
 * (dmd_ref.py); one CSV row per point.  Without --ref, each point gets
 * a copy of the job's input files that lie beside it.  Every process is started with
 * fork/exec from an argument vector, one after another; SIGINT, SIGTERM
 * and SIGHUP stop the sweep and its current run.
 */
#ifndef DMD_SWEEP_H
#define DMD_SWEEP_H

/* Analyse the job file "job" (and with "classes", find its rank
 * classes): 0 with the number of ranks and classes in *ranks and
 * *n_class, or the exit status (2: a bad job, 1 otherwise) after a
 * message. */
typedef int (*dmd_sweep_analyse)(const char *job, int classes, long *ranks,
	int *n_class);
/* The input files of the job file "job" (the 'file' of every tensor the
 * program reads before writing it, as written in the job), in *files:
 * a newly allocated NULL-terminated array of newly allocated strings.
 * Returns 0, or the exit status after a message. */
typedef int (*dmd_sweep_inputs)(const char *job, char ***files);

/* What "distmpmd sweep" was asked for. */
struct dmd_sweep_opts {
	const char *job;
	int n_set;
	char *const *set;	/* each "KEY[,KEY...]=LIST" as given */
	const char *csv;	/* the CSV file; NULL: standard output */
	const char *svg;	/* the plot; NULL: none */
	const char *work;	/* NULL: build/<name>-sweep */
	int ref;		/* write inputs, check outputs */
	const char *ref_path;	/* dmd_ref.py; NULL: found beside us */
	int no_run;		/* only analyse: classes per point */
	dmd_sweep_analyse analyse;
	dmd_sweep_inputs inputs;
};

/* Run the sweep "o".  Returns the exit status: 0, 1 (a point failed,
 * the sweep was cancelled, a file could not be written; the rows of the
 * points before are kept) or 2 (a bad job or a bad --set, before any
 * point runs), after a message. */
int dmd_sweep(const struct dmd_sweep_opts *o);

#endif
