/* dmd_diag.c: error messages about a job file (see dmd_diag.h).  No
 * state outside the struct dmd_diag of whoever runs the compiler.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_diag.h"

/* Start "diag": no message yet, messages to "fn" or stderr. */
void dmd_diag_init(struct dmd_diag *diag, dmd_diag_fn fn, void *user)
{
	diag->fn = fn;
	diag->user = user;
	diag->n_errors = 0;
}

/* Keep the first message in *(char **) user (see the header). */
void dmd_diag_keep_first(const char *line, void *user)
{
	char **first = user;

	if (!*first)
		*first = strdup(line);
}

/* Report "PATH:LINE:COL: error: <fmt...>" to "diag": count it and hand
 * it without the '\n' to diag->fn, or print it to stderr. */
void dmd_diag_verror(struct dmd_diag *diag, const char *path,
	struct dmd_loc loc, const char *fmt, va_list ap)
{
	const char *nomem = "<job>: error: out of memory";
	char *msg = NULL, *line = NULL;
	int col = loc.col > 0 ? loc.col : 1, r;

	if (!path)
		path = "<job>";
	if (diag)
		diag->n_errors++;
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
	if (diag && diag->fn)
		diag->fn(line ? line : nomem, diag->user);
	else {
		fprintf(stderr, "%s\n", line ? line : nomem);
		fflush(stderr);
	}
	free(line);
	free(msg);
}

/* Variadic front end of dmd_diag_verror. */
void dmd_diag_error(struct dmd_diag *diag, const char *path,
	struct dmd_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_diag_verror(diag, path, loc, fmt, ap);
	va_end(ap);
}

/* The number of messages "diag" has counted. */
int dmd_diag_count(const struct dmd_diag *diag)
{
	return diag ? diag->n_errors : 0;
}

/* The status of a stage: its result, else a refusal if it said why. */
enum dmd_status dmd_diag_status(const struct dmd_diag *diag, int before,
	int done)
{
	if (done)
		return DMD_OK;
	return dmd_diag_count(diag) > before ? DMD_REFUSED : DMD_INTERNAL;
}

/* The exit status for "status". */
int dmd_status_exit(enum dmd_status status)
{
	return status == DMD_OK ? 0 : status == DMD_REFUSED ? 2 : 1;
}

/* Report an error at "loc" in the job file to the job's diag. */
void dmd_job_verror(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, va_list ap)
{
	dmd_diag_verror(job ? job->diag : NULL, job ? job->path : NULL, loc,
		fmt, ap);
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
