/* dmd_diag.c: error messages about a job file.
 *
 * Every message about a job has the form
 *	PATH:LINE:COL: error: MESSAGE
 * with PATH as given on the command line and LINE:COL 1-based; a
 * location with line 0 stands for "no particular place" and gives
 *	PATH: error: MESSAGE
 */
#include <stdio.h>
#include <stdarg.h>

#include "dmd_job.h"

/* The number of messages printed so far. */
static int dmd_diag_n_errors;

/* How many errors have been reported (so that a caller can tell a
 * failure that was explained from one that was not). */
int dmd_job_n_errors(void)
{
	return dmd_diag_n_errors;
}

/* Print "PATH:LINE:COL: error: <fmt...>\n" to stderr. */
void dmd_job_verror(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, va_list ap)
{
	const char *path = job && job->path ? job->path : "<job>";

	if (loc.line > 0)
		fprintf(stderr, "%s:%d:%d: error: ", path, loc.line,
			loc.col > 0 ? loc.col : 1);
	else
		fprintf(stderr, "%s: error: ", path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
	dmd_diag_n_errors++;
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
