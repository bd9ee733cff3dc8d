/* dmd_diag.c: error messages about a job file.
 *
 * Every message about a job has the form
 *	PATH:LINE:COL: error: MESSAGE
 * with PATH as given on the command line and LINE:COL 1-based; a
 * location with line 0 stands for "no particular place" and gives
 *	PATH: error: MESSAGE
 * Messages go to stderr, or to the function set with dmd_job_set_diag.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>

#include "dmd_job.h"

/* The number of messages printed so far. */
static int dmd_diag_n_errors;
/* Where messages go instead of stderr, if not NULL. */
static dmd_job_diag_fn dmd_diag_fn;
static void *dmd_diag_user;

/* How many errors have been reported (so that a caller can tell a
 * failure that was explained from one that was not). */
int dmd_job_n_errors(void)
{
	return dmd_diag_n_errors;
}

/* Send messages to "fn" (with "user"), or to stderr if "fn" is NULL. */
void dmd_job_set_diag(dmd_job_diag_fn fn, void *user)
{
	dmd_diag_fn = fn;
	dmd_diag_user = user;
}

/* Print "PATH:LINE:COL: error: <fmt...>\n" to stderr, or hand it without
 * the '\n' to the function set with dmd_job_set_diag. */
void dmd_job_verror(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, va_list ap)
{
	const char *path = job && job->path ? job->path : "<job>";
	char *msg = NULL, *line = NULL;
	int col = loc.col > 0 ? loc.col : 1, r;

	dmd_diag_n_errors++;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (loc.line > 0)
		r = asprintf(&line, "%s:%d:%d: error: %s", path, loc.line, col,
			msg ? msg : "out of memory");
	else
		r = asprintf(&line, "%s: error: %s", path,
			msg ? msg : "out of memory");
	if (r < 0)
		line = NULL;
	if (dmd_diag_fn)
		dmd_diag_fn(line ? line : "<job>: error: out of memory",
			dmd_diag_user);
	else {
		fprintf(stderr, "%s\n", line ? line :
			"<job>: error: out of memory");
		fflush(stderr);
	}
	free(line);
	free(msg);
}

/* Variadic front end of dmd_job_verror. */
void dmd_job_error(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(job, loc, fmt, ap);
	va_end(ap);
}
