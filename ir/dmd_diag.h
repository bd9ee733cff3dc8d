/* dmd_diag.h: where the messages about a job go, and how a stage of the
 * compiler ended.
 *
 * A struct dmd_diag is owned by whoever runs the compiler on a job (the
 * session of cmd/dmd_session.c, a test, the fuzz harness): it counts the
 * messages reported to it and sends each one to a function or to
 * stderr.  A job points to the diag its messages go to (job->diag, not
 * owned), so that every stage reports against the same one, and two
 * sessions (or the iterations of the fuzzer's loop) never share a count.
 *
 * Every message about a job has the form
 *	PATH:LINE:COL: error: MESSAGE
 * with PATH as given on the command line and LINE:COL 1-based; a
 * location with line 0 stands for "no particular place" and gives
 *	PATH: error: MESSAGE
 */
#ifndef DMD_DIAG_H
#define DMD_DIAG_H

#include <stdarg.h>

#include "dmd_job.h"

/* How a stage ended: with its result; refusing the job, after a message
 * that says why (a bad job: exit status 2); or failing without that (an
 * internal error, a failed proof: exit status 1). */
enum dmd_status {
	DMD_OK = 0,
	DMD_REFUSED,
	DMD_INTERNAL,
};

/* A function that gets every message, without its '\n'. */
typedef void (*dmd_diag_fn)(const char *line, void *user);

struct dmd_diag {
	dmd_diag_fn fn;			/* NULL: stderr */
	void *user;
	int n_errors;			/* messages reported so far */
};

/* Start "diag" with no message; messages go to "fn" (with "user"), or
 * to stderr if "fn" is NULL. */
void dmd_diag_init(struct dmd_diag *diag, dmd_diag_fn fn, void *user);
/* A dmd_diag_fn that keeps the first message in *(char **) user (a
 * copy, for the caller to free) and drops the others: why an analysis
 * tried on the side (a search candidate) was refused. */
void dmd_diag_keep_first(const char *line, void *user);
/* Report "PATH:LINE:COL: error: <fmt...>" (see the top) to "diag"
 * (NULL: to stderr, counted nowhere). */
void dmd_diag_verror(struct dmd_diag *diag, const char *path,
	struct dmd_loc loc, const char *fmt, va_list ap);
void dmd_diag_error(struct dmd_diag *diag, const char *path,
	struct dmd_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The status of a stage that started when "diag" had counted "before"
 * messages and made its result ("done" nonzero) or not: DMD_OK, or
 * DMD_REFUSED if it reported a message since, else DMD_INTERNAL. */
enum dmd_status dmd_diag_status(const struct dmd_diag *diag, int before,
	int done);
/* The number of messages "diag" has counted (0 for NULL). */
int dmd_diag_count(const struct dmd_diag *diag);
/* The exit status of a command whose analysis ended with "status":
 * 0, 2 (refused) or 1 (internal). */
int dmd_status_exit(enum dmd_status status);

#endif
