/* fuzz_job.c: a libFuzzer harness for the job reader.
 *
 * Each input is the content of a job file.  It goes through
 * dmd_job_read_mem (by dmd_session_read_mem), the function that
 * dmd_job_read (and so every distmpmd command) calls after reading the
 * file, so the fuzzer exercises exactly the production reader.  Each
 * input has a session of its own, which owns the diagnostics: messages
 * are not printed but counted and checked (fuzz_diag), and nothing is
 * carried from one input to the next.  Each message must be one
 * well-formed line
 *	fuzz.yaml:LINE:COL: error: MESSAGE   or   fuzz.yaml: error: MESSAGE
 * with LINE and COL within the input, printable valid UTF-8 and a
 * non-empty MESSAGE.  A read that fails must have printed exactly one
 * message, one that succeeds none; a job that was read must hold what
 * the later passes rely on (fuzz_check_job), and its statements and dist
 * entries, printed (dmd_expr_to_str) and read again, must print the same.
 * A job that was read is then analysed to the code of its classes
 * (fuzz_analyse, the core of every command, cmd/dmd_session.c): a refusal
 * (DMD_REFUSED) must print exactly one message, an internal error
 * (DMD_INTERNAL) is a finding.
 * Any violation aborts, which libFuzzer reports as a crash.
 *
 * Build and run: "make fuzz" (see README.md, "Fuzzing the job reader and
 * the analysis"), which compiles this file with the sources of ir/,
 * partition/, specialize/, emit/ and cmd/dmd_session.c,
 * -fsanitize=fuzzer,address,undefined.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"
#include "cmd/dmd_session.h"

/* The name the inputs are read under. */
#define FUZZ_NAME "fuzz.yaml"

/* What the message checker knows about the current input. */
struct fuzz_input {
	size_t size;			/* bytes of the input */
	int n_messages;			/* messages seen for it */
};

/* Report a broken rule about "line" and abort. */
static void fuzz_fail(const char *why, const char *line)
{
	fprintf(stderr, "fuzz_job: %s: %s\n", why, line ? line : "(null)");
	abort();
}

/* Read a decimal number without leading zeros at *p (advanced), at least
 * 1 and at most "max".  Returns 0 if there is none. */
static int fuzz_number(const char **p, size_t max)
{
	const char *s = *p;
	size_t v = 0;

	if (*s < '1' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; ++s) {
		v = 10 * v + (*s - '0');
		if (v > max)
			return 0;
	}
	*p = s;
	return 1;
}

/* Is s valid UTF-8 (shortest forms, no surrogates) without anything that
 * would break or hide a one-line message: control characters (C0, DEL,
 * C1), U+2028 and U+2029, bidirectional controls? */
static int fuzz_printable_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned long c;
		int n, i;

		if (*s < 0x80) {
			if (*s < 0x20 || *s == 0x7f)
				return 0;
			s++;
			continue;
		}
		if (*s >= 0xc2 && *s <= 0xdf)
			n = 1, c = *s & 0x1f;
		else if (*s >= 0xe0 && *s <= 0xef)
			n = 2, c = *s & 0x0f;
		else if (*s >= 0xf0 && *s <= 0xf4)
			n = 3, c = *s & 0x07;
		else
			return 0;
		for (i = 1; i <= n; ++i) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
		    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c <= 0x9f ||
		    c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
		    (c >= 0x2066 && c <= 0x2069))
			return 0;
		s += n + 1;
	}
	return 1;
}

/* The message hook of the session (struct dmd_diag): check one message. */
static void fuzz_diag(const char *line, void *user)
{
	struct fuzz_input *in = user;
	const char *p = line;

	in->n_messages++;
	if (strncmp(p, FUZZ_NAME ":", strlen(FUZZ_NAME ":")) != 0)
		fuzz_fail("message does not start with the job's name", line);
	p += strlen(FUZZ_NAME ":");
	if (*p != ' ') {
		if (!fuzz_number(&p, in->size + 1) || *p++ != ':' ||
		    !fuzz_number(&p, in->size + 1) || *p++ != ':')
			fuzz_fail("bad location", line);
	}
	if (strncmp(p, " error: ", 8) != 0)
		fuzz_fail("no ' error: '", line);
	p += 8;
	if (!*p || *p == ' ')
		fuzz_fail("empty message", line);
	if (!fuzz_printable_utf8((const unsigned char *) line))
		fuzz_fail("message not printable UTF-8", line);
	if (strlen(line) > 1024)
		fuzz_fail("message longer than 1024 bytes", line);
}

/* Check expression "e" of "what": printable in the job's syntax, and,
 * if "affine", in isl's. */
static void fuzz_check_expr(const struct dmd_expr *e, int affine,
	const char *what)
{
	char *s;

	if (!e)
		fuzz_fail("missing expression", what);
	s = dmd_expr_to_str(e);
	if (!s)
		fuzz_fail("expression cannot be printed", what);
	free(s);
	if (!affine)
		return;
	s = dmd_expr_to_isl(e);
	if (!s)
		fuzz_fail("affine expression cannot be printed for isl", what);
	free(s);
}

/* Check the indices of every access in "e". */
static void fuzz_check_accesses(const struct dmd_job *job,
	const struct dmd_expr *e)
{
	int i, t;

	if (e->type != DMD_EXPR_ACCESS) {
		for (i = 0; i < e->n_arg; ++i)
			fuzz_check_accesses(job, e->args[i]);
		return;
	}
	t = dmd_job_find_tensor(job, e->name);
	if (t < 0 || job->tensors[t].ndim != e->n_arg)
		fuzz_fail("access to an undeclared tensor or with a wrong "
			"number of indices", e->name);
	for (i = 0; i < e->n_arg; ++i)
		fuzz_check_expr(e->args[i], 1, "index");
}

/* Make "src" the text "text" (named "what") with every byte at line 1,
 * column 1; "locs" must have room for strlen(text) + 1 entries. */
static void fuzz_src(struct dmd_src *src, const char *text, const char *what,
	struct dmd_loc *locs)
{
	size_t i, n = strlen(text);

	for (i = 0; i <= n; ++i)
		locs[i] = (struct dmd_loc) { 1, 1 };
	src->text = text;
	src->len = n;
	src->locs = locs;
	src->what = what;
}

/* The statement of "step" printed in the job's syntax (owned by the
 * caller). */
static char *fuzz_stmt_str(const struct dmd_step *step)
{
	char *lhs = dmd_expr_to_str(step->lhs), *rhs = dmd_expr_to_str(step->rhs);
	char *s = NULL;

	if (!lhs || !rhs || asprintf(&s, "%s %s %s", lhs,
			step->accumulate ? "+=" : "=", rhs) < 0)
		fuzz_fail("statement cannot be printed", "");
	free(lhs);
	free(rhs);
	return s;
}

/* The statement of "step", printed and read again, must print the same
 * (the printer puts every parenthesis the tree needs), without message. */
static void fuzz_round_trip_stmt(struct dmd_job *job,
	const struct dmd_step *step)
{
	struct dmd_step again = { 0 };
	struct dmd_src src;
	struct dmd_loc *locs;
	char *text = fuzz_stmt_str(step), *text2;
	int before = dmd_diag_count(job->diag);

	locs = malloc((strlen(text) + 1) * sizeof(*locs));
	if (!locs)
		abort();
	fuzz_src(&src, text, "compute", locs);
	if (dmd_expr_parse_stmt(job, &src, &again) < 0 ||
	    dmd_diag_count(job->diag) != before)
		fuzz_fail("a printed statement does not read back", text);
	text2 = fuzz_stmt_str(&again);
	if (strcmp(text, text2) != 0)
		fuzz_fail("a statement read back prints differently", text2);
	dmd_expr_free(again.lhs);
	dmd_expr_free(again.rhs);
	free(text2);
	free(text);
	free(locs);
}

/* Dist entry "e", printed and read again, must print the same. */
static void fuzz_round_trip_dist(struct dmd_job *job, const struct dmd_expr *e)
{
	struct dmd_src src;
	struct dmd_loc *locs;
	struct dmd_expr *again;
	char *text = dmd_expr_to_str(e), *text2;
	int before = dmd_diag_count(job->diag);

	if (!text)
		fuzz_fail("dist entry cannot be printed", "");
	locs = malloc((strlen(text) + 1) * sizeof(*locs));
	if (!locs)
		abort();
	fuzz_src(&src, text, "dist", locs);
	again = dmd_expr_parse_dist(job, &src);
	if (!again || dmd_diag_count(job->diag) != before)
		fuzz_fail("a printed dist entry does not read back", text);
	text2 = dmd_expr_to_str(again);
	if (!text2 || strcmp(text, text2) != 0)
		fuzz_fail("a dist entry read back prints differently", text);
	dmd_expr_free(again);
	free(text2);
	free(text);
	free(locs);
}

/* Check "n" steps. */
static void fuzz_check_steps(struct dmd_job *job,
	const struct dmd_step *steps, int n)
{
	int i;

	if (n < 1 || !steps)
		fuzz_fail("no steps", job->path);
	for (i = 0; i < n; ++i) {
		const struct dmd_step *s = &steps[i];

		if (s->type == DMD_STEP_REPEAT) {
			if (s->n_repeat < 1 || s->n_repeat > DMD_MAX_RUNS)
				fuzz_fail("bad repeat count", job->path);
			fuzz_check_steps(job, s->steps, s->n_steps);
			continue;
		}
		fuzz_check_expr(s->lhs, 0, "lhs");
		fuzz_check_expr(s->rhs, 0, "rhs");
		fuzz_check_accesses(job, s->lhs);
		fuzz_check_accesses(job, s->rhs);
		fuzz_round_trip_stmt(job, s);
	}
}

/* Check what the later passes rely on in a job that was read. */
static void fuzz_check_job(struct dmd_job *job)
{
	long bytes;
	int i, d;

	if (!job->name || !job->dir || job->n_axes < 1 || job->nranks < 1)
		fuzz_fail("incomplete job", job->path);
	if (job->n_tensors < 1 || job->n_tensors > DMD_MAX_TENSORS)
		fuzz_fail("bad number of tensors", job->path);
	for (i = 0; i < job->n_tensors; ++i) {
		const struct dmd_tensor *t = &job->tensors[i];

		if (dmd_job_find_tensor(job, t->name) != i)
			fuzz_fail("tensor lookup fails", t->name);
		bytes = t->dtype == DMD_F32 ? 4 : 8;
		for (d = 0; d < t->ndim; ++d) {
			if (t->shape[d] < 0 ||
			    __builtin_mul_overflow(bytes, t->shape[d], &bytes))
				fuzz_fail("tensor size overflows", t->name);
			if (!t->dist[d])
				continue;
			fuzz_check_expr(t->dist[d], 1, "dist");
			fuzz_round_trip_dist(job, t->dist[d]);
		}
	}
	fuzz_check_steps(job, job->steps, job->n_steps);
}

/* Analyse the job of "s" as the command line's "classes" does: model,
 * transfer plan, proofs, facts, cells, the code of every class.  A bad
 * job must be explained by exactly one message; an internal error (a
 * failed proof, a failed stage) is a finding. */
static void fuzz_analyse(struct fuzz_input *in, struct dmd_session *s)
{
	enum dmd_status r;

	r = dmd_session_run(s, 1);
	if (r == DMD_INTERNAL)
		fuzz_fail("internal error in the analysis", FUZZ_NAME);
	if (r == DMD_REFUSED && in->n_messages != 1)
		fuzz_fail("a job refused by the analysis did not print "
			"exactly one message", FUZZ_NAME);
	if (r == DMD_OK && in->n_messages != 0)
		fuzz_fail("a job analysed without error printed a message",
			FUZZ_NAME);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read "data" as a job file in a session of its own and check the rules
 * above. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { size, 0 };
	struct dmd_session s;
	enum dmd_status r;

	dmd_session_init(&s, &fuzz_diag, &in);
	r = dmd_session_read_mem(&s, FUZZ_NAME, size ? (const char *) data :
		"", size);
	if (s.diag.n_errors != in.n_messages)
		fuzz_fail("messages counted wrongly", FUZZ_NAME);
	if (r == DMD_OK && in.n_messages != 0)
		fuzz_fail("a job was read after an error", FUZZ_NAME);
	if (r != DMD_OK && in.n_messages != 1)
		fuzz_fail("a failed read did not print exactly one message",
			FUZZ_NAME);
	if (r == DMD_OK) {
		fuzz_check_job(s.job);
		fuzz_analyse(&in, &s);
	}
	dmd_session_free(&s);
	return 0;
}
