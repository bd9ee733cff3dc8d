/* dmd_diff.c: a line diff in unified format (see dmd_diff.h).
 *
 * Lines are hashed, then compared as in GNU diff: Myers' O(ND) algorithm
 * in linear space (the middle snake of the common subsequence of the two
 * files, found from both ends, then each half recursively; common
 * prefixes and suffixes are stripped first), marking each line as changed
 * or not; then runs of changes are slid to a canonical place (as GNU
 * diff's shift_boundaries: merged with neighbouring runs where possible,
 * as late as possible otherwise, and aligned with a run of changes in the
 * other file); then the hunks are printed with their context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/dmd_diff.h"

/* One side of the diff. */
struct dmd_diff_file {
	long n;			/* number of lines */
	const char **line;	/* line i starts at line[i] (owned array) */
	long *len;		/* its length, newline included (owned) */
	unsigned long *hash;	/* owned */
	char *mark;		/* owned, n + 3 entries: changed = mark + 1 */
	char *changed;		/* changed[-1] and changed[n] are 0 */
	int no_newline;		/* the last line has no newline */
};

/* The state of one diff: both sides, and the furthest reaching paths
 * of the forward and the backward search (indexed by diagonal + off). */
struct dmd_diff {
	struct dmd_diff_file a, b;
	long *vf;		/* owned */
	long *vb;		/* owned */
	long off;
};

/* Split "text" into the lines of "f".  -1 if memory runs out. */
static int dmd_diff_split(struct dmd_diff_file *f, const char *text)
{
	const char *p;
	long n = 0, i;

	for (p = text; *p; ++p)
		if (*p == '\n')
			++n;
	if (p > text && p[-1] != '\n')
		++n;
	f->n = n;
	f->line = malloc((n + 1) * sizeof(*f->line));
	f->len = malloc((n + 1) * sizeof(*f->len));
	f->hash = malloc((n + 1) * sizeof(*f->hash));
	f->mark = calloc(n + 3, 1);
	if (!f->line || !f->len || !f->hash || !f->mark)
		return -1;
	f->changed = f->mark + 1;
	for (i = 0, p = text; i < n; ++i) {
		const char *e = strchr(p, '\n');
		unsigned long h = 5381;
		const char *q;

		e = e ? e + 1 : p + strlen(p);
		for (q = p; q < e; ++q)
			h = h * 33 + (unsigned char) *q;
		f->line[i] = p;
		f->len[i] = e - p;
		f->hash[i] = h;
		p = e;
	}
	f->no_newline = n > 0 && f->line[n - 1][f->len[n - 1] - 1] != '\n';
	return 0;
}

/* Free what "f" holds. */
static void dmd_diff_file_free(struct dmd_diff_file *f)
{
	free(f->line);
	free(f->len);
	free(f->hash);
	free(f->mark);
}

/* Are line "i" of the first file and line "j" of the second equal? */
static int dmd_diff_eq(struct dmd_diff *d, long i, long j)
{
	return d->a.hash[i] == d->b.hash[j] && d->a.len[i] == d->b.len[j] &&
		memcmp(d->a.line[i], d->b.line[j], d->a.len[i]) == 0;
}

/* Are lines "i" and "j" of the file "f" equal? */
static int dmd_diff_same(struct dmd_diff_file *f, long i, long j)
{
	return f->hash[i] == f->hash[j] && f->len[i] == f->len[j] &&
		memcmp(f->line[i], f->line[j], f->len[i]) == 0;
}

/* Find the middle snake of the lines [a0, a1) of the first file and
 * [b0, b1) of the second (both non-empty, without a common first or
 * last line): the split point (*x, *y) before the snake and (*u, *v)
 * after it, as offsets from a0 and b0. */
static void dmd_diff_snake(struct dmd_diff *d, long a0, long a1, long b0,
	long b1, long *x, long *y, long *u, long *v)
{
	long n = a1 - a0, m = b1 - b0, delta = n - m, max = (n + m + 1) / 2;
	long *vf = d->vf + d->off, *vb = d->vb + d->off;
	long dd, k, c, px, py, sx, sy;
	int odd = delta & 1;

	vf[1] = 0;
	vb[1] = 0;
	for (dd = 0; dd <= max; ++dd) {
		for (k = -dd; k <= dd; k += 2) {
			if (k == -dd || (k != dd && vf[k - 1] < vf[k + 1]))
				px = vf[k + 1];
			else
				px = vf[k - 1] + 1;
			py = px - k;
			sx = px;
			sy = py;
			while (px < n && py < m &&
			       dmd_diff_eq(d, a0 + px, b0 + py))
				++px, ++py;
			vf[k] = px;
			c = delta - k;
			if (odd && c >= -(dd - 1) && c <= dd - 1 &&
			    vf[k] + vb[c] >= n) {
				*x = sx;
				*y = sy;
				*u = px;
				*v = py;
				return;
			}
		}
		for (c = -dd; c <= dd; c += 2) {
			if (c == -dd || (c != dd && vb[c - 1] < vb[c + 1]))
				px = vb[c + 1];
			else
				px = vb[c - 1] + 1;
			py = px - c;
			sx = px;
			sy = py;
			while (px < n && py < m &&
			       dmd_diff_eq(d, a1 - px - 1, b1 - py - 1))
				++px, ++py;
			vb[c] = px;
			k = delta - c;
			if (!odd && k >= -dd && k <= dd && vb[c] + vf[k] >= n) {
				*x = n - px;
				*y = m - py;
				*u = n - sx;
				*v = m - sy;
				return;
			}
		}
	}
	/* not reached: the paths meet by d = max */
	*x = *u = n;
	*y = *v = 0;
}

/* Mark the changed lines of [a0, a1) of the first file and [b0, b1) of
 * the second, for a shortest edit script between them. */
static void dmd_diff_compare(struct dmd_diff *d, long a0, long a1, long b0,
	long b1)
{
	long x, y, u, v;

	while (a0 < a1 && b0 < b1 && dmd_diff_eq(d, a0, b0))
		++a0, ++b0;
	while (a0 < a1 && b0 < b1 && dmd_diff_eq(d, a1 - 1, b1 - 1))
		--a1, --b1;
	if (a0 == a1) {
		while (b0 < b1)
			d->b.changed[b0++] = 1;
		return;
	}
	if (b0 == b1) {
		while (a0 < a1)
			d->a.changed[a0++] = 1;
		return;
	}
	dmd_diff_snake(d, a0, a1, b0, b1, &x, &y, &u, &v);
	dmd_diff_compare(d, a0, a0 + x, b0, b0 + y);
	dmd_diff_compare(d, a0 + u, a1, b0 + v, b1);
}

/* Slide the runs of changed lines of "f" (whose counterpart is
 * "other") to a canonical place, as GNU diff's shift_boundaries: back
 * as long as the line before a run equals its last line (merging with
 * runs before), then forward as long as its first line equals the line
 * after it (merging with runs after), then back again to the last place
 * where it lines up with a run of changes in "other". */
static void dmd_diff_shift(struct dmd_diff_file *f,
	struct dmd_diff_file *other)
{
	char *changed = f->changed, *other_changed = other->changed;
	long i = 0, j = 0, end = f->n;
	long run, start, corresponding;

	for (;;) {
		while (i < end && !changed[i]) {
			while (other_changed[j++])
				;
			++i;
		}
		if (i == end)
			break;
		start = i;
		while (changed[++i])
			;
		while (other_changed[j])
			++j;
		do {
			run = i - start;
			while (start && dmd_diff_same(f, start - 1, i - 1)) {
				changed[--start] = 1;
				changed[--i] = 0;
				while (changed[start - 1])
					--start;
				while (other_changed[--j])
					;
			}
			corresponding = other_changed[j - 1] ? i : end;
			while (i != end && dmd_diff_same(f, start, i)) {
				changed[start++] = 0;
				changed[i++] = 1;
				while (changed[i])
					++i;
				while (other_changed[++j])
					corresponding = i;
			}
		} while (run != i - start);
		while (corresponding < i) {
			changed[--start] = 1;
			changed[--i] = 0;
			while (other_changed[--j])
				;
		}
	}
}

/* Print line "i" of "f" after "prefix", with the note GNU diff adds
 * after a last line without a newline. */
static void dmd_diff_line(FILE *out, struct dmd_diff_file *f, char prefix,
	long i)
{
	fputc(prefix, out);
	fwrite(f->line[i], 1, f->len[i], out);
	if (i == f->n - 1 && f->no_newline)
		fputs("\n\\ No newline at end of file\n", out);
}

/* Print the range of a hunk header: "START,COUNT", or "START" when COUNT
 * is 1; for an empty range, START is the line before it. */
static void dmd_diff_range(FILE *out, long start, long count)
{
	if (count == 1)
		fprintf(out, "%ld", start + 1);
	else
		fprintf(out, "%ld,%ld", count ? start + 1 : start, count);
}

/* Find the next change at or after lines (i, j) (i in the first file, j
 * in the second, in step: the lines before them correspond): set *ci,
 * *cj to where it starts, *ei, *ej to where it ends.  Returns 0 if there
 * is no change left. */
static int dmd_diff_next(struct dmd_diff *d, long i, long j, long *ci,
	long *cj, long *ei, long *ej)
{
	while ((i < d->a.n || j < d->b.n) && !d->a.changed[i] &&
	       !d->b.changed[j])
		++i, ++j;
	if (i >= d->a.n && j >= d->b.n)
		return 0;
	*ci = i;
	*cj = j;
	while (d->a.changed[i])
		++i;
	while (d->b.changed[j])
		++j;
	*ei = i;
	*ej = j;
	return 1;
}

/* Print the hunks of the marked lines, with "context" lines of context;
 * return their number. */
static int dmd_diff_hunks(FILE *out, struct dmd_diff *d, int context)
{
	long ci, cj, ei, ej, ni, nj, fi, fj, hi, hj, i, j, k;
	int n_hunks = 0, more;

	more = dmd_diff_next(d, 0, 0, &ci, &cj, &ei, &ej);
	while (more) {
		/* the hunk: from context lines before its first change to
		 * context lines after its last */
		hi = ci - context < 0 ? 0 : ci - context;
		hj = cj - (ci - hi);
		fi = ei;
		fj = ej;
		for (;;) {
			more = dmd_diff_next(d, fi, fj, &ni, &nj, &ei, &ej);
			if (!more || ni - fi > 2 * context)
				break;
			fi = ei;
			fj = ej;
		}
		k = d->a.n - fi < context ? d->a.n - fi : context;
		fi += k;
		fj += k;
		fputs("@@ -", out);
		dmd_diff_range(out, hi, fi - hi);
		fputs(" +", out);
		dmd_diff_range(out, hj, fj - hj);
		fputs(" @@\n", out);
		for (i = hi, j = hj; i < fi || j < fj; ) {
			if (i < fi && d->a.changed[i]) {
				dmd_diff_line(out, &d->a, '-', i++);
				continue;
			}
			if (j < fj && d->b.changed[j]) {
				dmd_diff_line(out, &d->b, '+', j++);
				continue;
			}
			dmd_diff_line(out, &d->a, ' ', i++);
			++j;
		}
		++n_hunks;
		ci = ni;
		cj = nj;
	}
	return n_hunks;
}

/* Print the unified diff of "a" and "b" (see the header). */
int dmd_diff_unified(FILE *out, const char *a, const char *b,
	const char *label_a, const char *label_b, int context)
{
	struct dmd_diff d;
	long size;
	int n = -1;

	memset(&d, 0, sizeof(d));
	if (dmd_diff_split(&d.a, a) < 0 || dmd_diff_split(&d.b, b) < 0)
		goto error;
	size = d.a.n + d.b.n + 3;
	d.off = size;
	d.vf = malloc((2 * size + 1) * sizeof(*d.vf));
	d.vb = malloc((2 * size + 1) * sizeof(*d.vb));
	if (!d.vf || !d.vb)
		goto error;
	dmd_diff_compare(&d, 0, d.a.n, 0, d.b.n);
	dmd_diff_shift(&d.a, &d.b);
	dmd_diff_shift(&d.b, &d.a);
	if (context < 0)
		context = 0;
	for (n = 0; n < d.a.n && !d.a.changed[n]; ++n)
		;
	if (n == d.a.n) {
		for (n = 0; n < d.b.n && !d.b.changed[n]; ++n)
			;
		if (n == d.b.n) {
			n = 0;
			goto done;
		}
	}
	fprintf(out, "--- %s\n+++ %s\n", label_a, label_b);
	n = dmd_diff_hunks(out, &d, context);
	goto done;
error:
	fprintf(stderr, "distmpmd: out of memory\n");
	n = -1;
done:
	free(d.vf);
	free(d.vb);
	dmd_diff_file_free(&d.a);
	dmd_diff_file_free(&d.b);
	return n;
}
