/* model_test: the stages of the compiler on small jobs -- the polyhedral
 * model (ir/dmd_model.h), the transfer plan (partition/dmd_part.h) and the
 * rank classes (emit/dmd_emit.h) -- with every isl object compared with
 * isl_*_is_equal against an object read from a string (only this test
 * parses isl text), and counts, kinds and strings compared exactly.
 * Each expectation is derived from the job format (spec 1.2-1.5), not
 * copied from the compiler's output.
 * Usage: model_test ROOT (the repository).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>

#include "ir/dmd_model.h"
#include "ir/dmd_isl.h"
#include "partition/dmd_part.h"
#include "emit/dmd_emit.h"

static const char *root;
static int passed, failed;

/* Record one check: "ok WHAT" or "FAIL WHAT". */
static int check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
	fflush(stdout);
	return ok;
}

/* An integer (count, index, kind) equal to "want". */
static int int_eq(long got, long want, const char *what)
{
	if (got != want)
		printf("  got %ld, want %ld\n", got, want);
	return check(got == want, "%s", what);
}

/* A double (flops) equal to "want"; both are integers or -1. */
static int dbl_eq(double got, double want, const char *what)
{
	if (got != want)
		printf("  got %.17g, want %.17g\n", got, want);
	return check(got == want, "%s", what);
}

/* A string equal to "want". */
static int str_eq(const char *got, const char *want, const char *what)
{
	int ok = got && !strcmp(got, want);

	if (!ok)
		printf("  got \"%s\"\n  want \"%s\"\n", got ? got : "(null)",
			want);
	return check(ok, "%s", what);
}

/* Print "got" after a failed comparison (isl dumps go to stderr). */
static void show(const char *want, char *got)
{
	printf("  want %s\n  got  %s\n", want, got ? got : "(null)");
	free(got);
}

/* Set "got" equal to the set read from "want". */
static int set_eq(isl_ctx *ctx, __isl_keep isl_set *got, const char *want,
	const char *what)
{
	isl_set *w = isl_set_read_from_str(ctx, want);
	int ok = w && got && isl_set_is_equal(got, w) == isl_bool_true;

	if (!ok)
		show(want, got ? isl_set_to_str(got) : NULL);
	isl_set_free(w);
	return check(ok, "%s", what);
}

/* Map "got" equal to the map read from "want". */
static int map_eq(isl_ctx *ctx, __isl_keep isl_map *got, const char *want,
	const char *what)
{
	isl_map *w = isl_map_read_from_str(ctx, want);
	int ok = w && got && isl_map_is_equal(got, w) == isl_bool_true;

	if (!ok)
		show(want, got ? isl_map_to_str(got) : NULL);
	isl_map_free(w);
	return check(ok, "%s", what);
}

/* Map "got" restricted to the domain "dom" equal to "want" (for maps such
 * as the schedule, whose values outside the domain do not matter). */
static int map_on_eq(isl_ctx *ctx, __isl_keep isl_map *got,
	__isl_keep isl_set *dom, const char *want, const char *what)
{
	isl_map *r = NULL;
	int ok;

	if (got && dom)
		r = isl_map_intersect_domain(isl_map_copy(got),
			isl_set_copy(dom));
	ok = map_eq(ctx, r, want, what);
	isl_map_free(r);
	return ok;
}

/* Piecewise affine "got" equal to the one read from "want" (domains
 * included). */
static int pa_eq(isl_ctx *ctx, __isl_keep isl_pw_aff *got, const char *want,
	const char *what)
{
	isl_pw_aff *w = isl_pw_aff_read_from_str(ctx, want);
	int ok = w && got && isl_pw_aff_is_equal(got, w) == isl_bool_true;

	if (!ok)
		show(want, got ? isl_pw_aff_to_str(got) : NULL);
	isl_pw_aff_free(w);
	return check(ok, "%s", what);
}

/* "got" restricted to the points of set "dom" equal to "want". */
static int pa_on_eq(isl_ctx *ctx, __isl_keep isl_pw_aff *got,
	__isl_keep isl_set *dom, const char *want, const char *what)
{
	isl_pw_aff *r = NULL;
	int ok;

	if (got && dom)
		r = isl_pw_aff_intersect_domain(isl_pw_aff_copy(got),
			isl_set_copy(dom));
	ok = pa_eq(ctx, r, want, what);
	isl_pw_aff_free(r);
	return ok;
}

/* Parameter-only "got" restricted to the ranks of "params" (a string)
 * equal to "want". */
static int pa_params_eq(isl_ctx *ctx, __isl_keep isl_pw_aff *got,
	const char *params, const char *want, const char *what)
{
	isl_set *p = isl_set_read_from_str(ctx, params);
	isl_pw_aff *r = NULL;
	int ok;

	if (got && p)
		r = isl_pw_aff_intersect_params(isl_pw_aff_copy(got),
			isl_set_copy(p));
	ok = pa_eq(ctx, r, want, what);
	isl_pw_aff_free(r);
	isl_set_free(p);
	return ok;
}

/* Every stage of one job, as cmd/distmpmd.c (analyse) makes them. */
struct sess {
	isl_ctx *ctx;
	struct dmd_job *job;
	struct dmd_model *m;
	struct dmd_plan *plan;
	struct dmd_facts *facts;
	struct dmd_cells *cells;
	struct dmd_specs *specs;
	struct dmd_classes *cls;
};

/* Read ROOT/REL and analyse it up to the plan (and with "classes" up to
 * the rank classes).  Returns 1 when every stage asked for exists. */
static int sess_open(struct sess *s, const char *rel, int classes)
{
	char path[4096];
	int ok;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	s->job = dmd_job_read(path, NULL);
	if (s->job) {
		s->ctx = isl_ctx_alloc();
		isl_options_set_on_error(s->ctx, ISL_ON_ERROR_CONTINUE);
		isl_options_set_ast_iterator_type(s->ctx, "int64_t");
		dmd_model_build(s->ctx, s->job, &s->m);
	}
	if (s->m)
		dmd_part_plan(s->m, &s->plan);
	if (s->plan && classes) {
		dmd_part_facts(s->plan, &s->facts);
		if (s->facts)
			dmd_part_cells(s->m, s->facts, &s->cells);
		if (s->cells)
			dmd_spec_cells(s->plan, s->cells, &s->specs);
		if (s->specs)
			dmd_emit_classes(s->plan, s->facts, s->cells, s->specs,
				&s->cls);
	}
	ok = s->plan && (!classes || s->cls);
	check(ok, "%s: analysed%s", rel, classes ? " up to the classes" : "");
	return ok;
}

/* Free every stage of "s" and its isl context. */
static void sess_close(struct sess *s)
{
	dmd_emit_classes_free(s->cls);
	dmd_specs_free(s->specs);
	dmd_part_cells_free(s->cells);
	dmd_part_facts_free(s->facts);
	dmd_part_plan_free(s->plan);
	dmd_model_free(s->m);
	dmd_job_free(s->job);
	if (s->ctx)
		isl_ctx_free(s->ctx);
	memset(s, 0, sizeof(*s));
}

/* The index of tensor "name" in the job, checked to be "want" (the k of
 * the tuple name T<k>). */
static int tensor(const struct sess *s, const char *name, int want)
{
	char what[128];
	int t;

	t = dmd_job_find_tensor(s->job, name);
	snprintf(what, sizeof(what), "%s: tensor %s is T%d", s->job->name,
		name, want);
	int_eq(t, want, what);
	return t == want ? t : -1;
}

/* The program's transfer "i" if there are exactly "n" transfers. */
static struct dmd_xfer *xfer(const struct sess *s, int n, int i)
{
	char what[128];

	snprintf(what, sizeof(what), "%s: %d transfer(s)", s->job->name, n);
	if (i == 0 && !int_eq(s->plan->n_xfer, n, what))
		return NULL;
	return s->plan->n_xfer == n && i < n ? s->plan->xfer[i] : NULL;
}

/* The kind, use, step, tensor and level of transfer "x". */
static int xfer_is(const struct dmd_xfer *x, const char *what,
	enum dmd_xfer_kind kind, enum dmd_xfer_use use, int step, int t,
	int level)
{
	int ok = x && x->kind == kind && x->use == use && x->step == step &&
		x->tensor == t && x->level == level;

	if (x && !ok)
		printf("  got kind %s use %d step %d tensor %d level %d\n",
			dmd_part_kind_name(x->kind), x->use, x->step,
			x->tensor, x->level);
	return check(ok, "%s", what);
}

/* Class "k" of "s": its rank count and rank ranges (n pairs in r). */
static void class_is(const struct sess *s, int k, long count, int n,
	const long (*r)[2])
{
	const struct dmd_class *c = &s->cls->cls[k];
	int ok = c->count == count && c->n_ranges == n;
	int i;

	for (i = 0; ok && i < n; ++i)
		ok = c->ranges[i][0] == r[i][0] && c->ranges[i][1] == r[i][1];
	if (!ok) {
		printf("  got %ld ranks:", c->count);
		for (i = 0; i < c->n_ranges; ++i)
			printf(" %ld-%ld", c->ranges[i][0], c->ranges[i][1]);
		printf("\n");
	}
	check(ok, "%s: class %d has %ld ranks in %d range(s)", s->job->name,
		k, count, n);
}

/* The mesh and block layouts of SUMMA on 2x2: A [64, 96], B [96, 48],
 * C [64, 48], all dist [x, y]: blocks of ceil(E/2) along each dimension. */
static void test_block(void)
{
	struct sess s;
	const struct dmd_layout *a;
	char *name;

	if (!sess_open(&s, "tests/e2e/jobs/summa_2x2.yaml", 0))
		goto out;
	str_eq(isl_set_get_dim_name(s.m->mesh->set, isl_dim_param, 0),
		"c_x", "mesh parameter 0 is c_x");
	str_eq(isl_set_get_dim_name(s.m->mesh->set, isl_dim_param, 1),
		"c_y", "mesh parameter 1 is c_y");
	name = dmd_mesh_coord_name(s.job, 1);
	str_eq(name, "c_y", "dmd_mesh_coord_name(y) is c_y");
	free(name);
	set_eq(s.ctx, s.m->mesh->set,
		"[c_x, c_y] -> { : 0 <= c_x <= 1 and 0 <= c_y <= 1 }",
		"summa: the mesh is 2x2");
	if (tensor(&s, "A", 0) < 0 || tensor(&s, "B", 1) < 0 ||
	    tensor(&s, "C", 2) < 0)
		goto out;
	a = s.m->lay[0];
	int_eq(a->ndim, 2, "summa: A has 2 dimensions");
	pa_eq(s.ctx, a->lo[0], "[c_x, c_y] -> { [(32c_x)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 }", "summa: A lo[0] = 32 c_x");
	pa_eq(s.ctx, a->ext[0], "[c_x, c_y] -> { [(32)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 }", "summa: A ext[0] = 32");
	pa_eq(s.ctx, a->lo[1], "[c_x, c_y] -> { [(48c_y)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 }", "summa: A lo[1] = 48 c_y");
	pa_eq(s.ctx, a->ext[1], "[c_x, c_y] -> { [(48)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 }", "summa: A ext[1] = 48");
	set_eq(s.ctx, a->held, "[c_x, c_y] -> { T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"32c_x <= e0 < 32c_x + 32 and 48c_y <= e1 < 48c_y + 48 }",
		"summa: A held by (c_x, c_y)");
	map_eq(s.ctx, a->holds, "[c_x, c_y] -> { R[x, y] -> T0[e0, e1] : "
		"0 <= x <= 1 and 0 <= y <= 1 and "
		"32x <= e0 < 32x + 32 and 48y <= e1 < 48y + 48 }",
		"summa: A holds map");
	set_eq(s.ctx, a->writer, "[c_x, c_y] -> { : 0 <= c_x <= 1 and "
		"0 <= c_y <= 1 }", "summa: every rank writes its A block");
	set_eq(s.ctx, s.m->lay[1]->held, "[c_x, c_y] -> { T1[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"48c_x <= e0 < 48c_x + 48 and 24c_y <= e1 < 24c_y + 24 }",
		"summa: B held");
	set_eq(s.ctx, s.m->lay[2]->held, "[c_x, c_y] -> { T2[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"32c_x <= e0 < 32c_x + 32 and 24c_y <= e1 < 24c_y + 24 }",
		"summa: C held");
out:
	sess_close(&s);
}

/* A tail block (tests/codegen/tail.yaml): X [127, 128] dist [x, -] on 2
 * ranks is cut 64 + 63 rows; W is replicated, written by one replica. */
static void test_tail(void)
{
	struct sess s;
	const struct dmd_layout *x, *w;

	if (!sess_open(&s, "tests/codegen/tail.yaml", 0))
		goto out;
	if (tensor(&s, "X", 0) < 0 || tensor(&s, "W", 1) < 0)
		goto out;
	x = s.m->lay[0];
	w = s.m->lay[1];
	pa_eq(s.ctx, x->lo[0], "[c_x] -> { [(64c_x)] : 0 <= c_x <= 1 }",
		"tail: X lo[0] = 64 c_x");
	pa_eq(s.ctx, x->ext[0], "[c_x] -> { [(64)] : c_x = 0; "
		"[(63)] : c_x = 1 }", "tail: X ext[0] = 64, 63");
	pa_eq(s.ctx, x->lo[1], "[c_x] -> { [(0)] : 0 <= c_x <= 1 }",
		"tail: X lo[1] = 0 (not split)");
	pa_eq(s.ctx, x->ext[1], "[c_x] -> { [(128)] : 0 <= c_x <= 1 }",
		"tail: X ext[1] = 128 (not split)");
	set_eq(s.ctx, x->held, "[c_x] -> { T0[e0, e1] : 0 <= e1 <= 127 and "
		"((c_x = 0 and 0 <= e0 <= 63) or (c_x = 1 and "
		"64 <= e0 <= 126)) }", "tail: X held");
	set_eq(s.ctx, w->held, "[c_x] -> { T1[e0, e1] : 0 <= c_x <= 1 and "
		"0 <= e0 <= 127 and 0 <= e1 <= 127 }",
		"tail: W (replicated) held whole by every rank");
	map_eq(s.ctx, w->holds, "[c_x] -> { R[r] -> T1[e0, e1] : "
		"0 <= r <= 1 and 0 <= e0 <= 127 and 0 <= e1 <= 127 }",
		"tail: W holds map");
	set_eq(s.ctx, w->writer, "[c_x] -> { : c_x = 0 }",
		"tail: one replica of W is the writer");
out:
	sess_close(&s);
}

/* Three layouts of one dimension of 22 on 3 ranks (vec_offsets): A by
 * offsets [0,5) [5,6) [6,22); B balanced (q = 7, r = 1): [0,8) [8,15)
 * [15,22); C block (s = 8): [0,8) [8,16) [16,22). */
static void test_offsets(void)
{
	struct sess s;
	struct dmd_xfer *xa, *xb;

	if (!sess_open(&s, "tests/codegen/vec_offsets.yaml", 0))
		goto out;
	if (tensor(&s, "A", 0) < 0 || tensor(&s, "B", 1) < 0 ||
	    tensor(&s, "C", 2) < 0)
		goto out;
	pa_eq(s.ctx, s.m->lay[0]->lo[0], "[c_x] -> { [(0)] : c_x = 0; "
		"[(5)] : c_x = 1; [(6)] : c_x = 2 }", "offsets: A lo");
	pa_eq(s.ctx, s.m->lay[0]->ext[0], "[c_x] -> { [(5)] : c_x = 0; "
		"[(1)] : c_x = 1; [(16)] : c_x = 2 }", "offsets: A ext");
	set_eq(s.ctx, s.m->lay[0]->held, "[c_x] -> { T0[e] : "
		"(c_x = 0 and 0 <= e <= 4) or (c_x = 1 and e = 5) or "
		"(c_x = 2 and 6 <= e <= 21) }", "offsets: A held");
	pa_eq(s.ctx, s.m->lay[1]->lo[0], "[c_x] -> { [(0)] : c_x = 0; "
		"[(8)] : c_x = 1; [(15)] : c_x = 2 }", "balanced: B lo");
	pa_eq(s.ctx, s.m->lay[1]->ext[0], "[c_x] -> { [(8)] : c_x = 0; "
		"[(7)] : 1 <= c_x <= 2 }", "balanced: B ext 8, 7, 7");
	set_eq(s.ctx, s.m->lay[1]->held, "[c_x] -> { T1[e] : "
		"(c_x = 0 and 0 <= e <= 7) or (c_x = 1 and 8 <= e <= 14) or "
		"(c_x = 2 and 15 <= e <= 21) }", "balanced: B held");
	pa_eq(s.ctx, s.m->lay[2]->lo[0], "[c_x] -> { [(8c_x)] : "
		"0 <= c_x <= 2 }", "block: C lo = 8 c_x");
	pa_eq(s.ctx, s.m->lay[2]->ext[0], "[c_x] -> { [(8)] : "
		"0 <= c_x <= 1; [(6)] : c_x = 2 }", "block: C ext 8, 8, 6");
	/* iterations follow C: rank r needs A and B on [8r, 8r + 8) */
	if (!(xa = xfer(&s, 2, 0)) || !(xb = xfer(&s, 2, 1)))
		goto out;
	xfer_is(xa, "offsets: A fetched point to point before the loops",
		DMD_XFER_P2P, DMD_USE_INPUT, 0, 0, -1);
	xfer_is(xb, "offsets: B fetched point to point before the loops",
		DMD_XFER_P2P, DMD_USE_INPUT, 0, 1, -1);
	set_eq(s.ctx, xa->p2p->recv_dom, "[c_x] -> { X0[p] : "
		"(c_x = 0 and 1 <= p <= 2) or (c_x = 1 and p = 2) }",
		"offsets: rank 0 gets A from 1 and 2, rank 1 from 2");
	set_eq(s.ctx, xa->p2p->self_dom, "[c_x] -> { X0[] : c_x = 0 or "
		"c_x = 2 }", "offsets: ranks 0 and 2 copy A from their block");
	set_eq(s.ctx, xb->p2p->recv_dom, "[c_x] -> { X1[p] : c_x = 1 and "
		"p = 2 }", "balanced: only rank 1 gets B (B[15] from 2)");
	pa_on_eq(s.ctx, xb->p2p->recv.lo[0], xb->p2p->recv_dom,
		"[c_x] -> { X1[p] -> [(15)] : c_x = 1 and p = 2 }",
		"balanced: the piece of B rank 1 gets starts at 15");
	pa_on_eq(s.ctx, xb->p2p->recv.ext[0], xb->p2p->recv_dom,
		"[c_x] -> { X1[p] -> [(1)] : c_x = 1 and p = 2 }",
		"balanced: the piece of B rank 1 gets has 1 element");
	/* B's needed box [8r, 8r + 8) contains or lies in its block: ghost
	 * cells around the block; A's ([8, 16) on rank 1) does not */
	int_eq(xa->ghost, 0, "offsets: A is not a ghost transfer");
	int_eq(xb->ghost, 1, "balanced: B lands in its home buffer");
	pa_eq(s.ctx, s.plan->home[1].lo[0], "[c_x] -> { [(0)] : c_x = 0; "
		"[(8)] : c_x = 1; [(15)] : c_x = 2 }", "balanced: B home lo");
	pa_eq(s.ctx, s.plan->home[1].ext[0], "[c_x] -> { [(8)] : "
		"0 <= c_x <= 1; [(7)] : c_x = 2 }",
		"balanced: B home ext (rank 1: [8, 16))");
out:
	sess_close(&s);
}

/* place: A [6, 5] dist [x, -] place {y: 0} on 2x2 lives on y = 0 only
 * (blocks of 3 rows); B replicated is written by one rank. */
static void test_place(void)
{
	struct sess s;
	const struct dmd_layout *a;
	struct dmd_xfer *x;
	static const long r0[][2] = { { 0, 0 } }, r1[][2] = { { 1, 1 },
		{ 3, 3 } }, r2[][2] = { { 2, 2 } };

	if (!sess_open(&s, "tests/e2e/jobs/reshard_place_2x2.yaml", 1))
		goto out;
	if (tensor(&s, "A", 0) < 0)
		goto out;
	a = s.m->lay[0];
	pa_eq(s.ctx, a->ext[0], "[c_x, c_y] -> { [(3)] : 0 <= c_x <= 1 and "
		"c_y = 0; [(0)] : 0 <= c_x <= 1 and c_y = 1 }",
		"place: A ext[0] = 3 on y = 0, none elsewhere");
	pa_eq(s.ctx, a->ext[1], "[c_x, c_y] -> { [(5)] : 0 <= c_x <= 1 and "
		"c_y = 0; [(0)] : 0 <= c_x <= 1 and c_y = 1 }",
		"place: A ext[1] = 5 on y = 0, none elsewhere");
	pa_params_eq(s.ctx, a->lo[0], "[c_x, c_y] -> { : c_y = 0 }",
		"[c_x, c_y] -> { [(3c_x)] : 0 <= c_x <= 1 and c_y = 0 }",
		"place: A lo[0] = 3 c_x on y = 0");
	set_eq(s.ctx, a->held, "[c_x, c_y] -> { T0[e0, e1] : c_y = 0 and "
		"0 <= c_x <= 1 and 3c_x <= e0 <= 3c_x + 2 and 0 <= e1 <= 4 }",
		"place: A held on y = 0 only");
	map_eq(s.ctx, a->holds, "[c_x, c_y] -> { R[x, y] -> T0[e0, e1] : "
		"y = 0 and 0 <= x <= 1 and 3x <= e0 <= 3x + 2 and "
		"0 <= e1 <= 4 }", "place: A holds map");
	set_eq(s.ctx, a->writer, "[c_x, c_y] -> { : c_y = 0 and "
		"0 <= c_x <= 1 }", "place: A's holders write it");
	set_eq(s.ctx, s.m->lay[1]->writer, "[c_x, c_y] -> { : c_x = 0 and "
		"c_y = 0 }", "place: one replica of B is the writer");
	/* every rank computes all of B and needs all of A: (0,0) and (1,0)
	 * get each other's rows, (x,1) get both */
	if (!(x = xfer(&s, 1, 0)))
		goto out;
	xfer_is(x, "place: A fetched point to point before the step",
		DMD_XFER_P2P, DMD_USE_INPUT, 0, 0, -1);
	set_eq(s.ctx, x->p2p->recv_dom, "[c_x, c_y] -> { X0[px, py] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and py = 0 and "
		"0 <= px <= 1 and (c_y = 1 or px = 1 - c_x) }",
		"place: receives A from the holders of the missing rows");
	set_eq(s.ctx, x->p2p->self_dom, "[c_x, c_y] -> { X0[] : c_y = 0 and "
		"0 <= c_x <= 1 }", "place: holders copy their own rows");
	int_eq(x->ghost, 1, "place: A lands in its home buffer");
	pa_eq(s.ctx, s.plan->home[0].ext[0], "[c_x, c_y] -> { [(6)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 }",
		"place: A's home buffer has all 6 rows");
	int_eq(s.cells->n, 4, "place: 4 cells");
	if (!int_eq(s.cls->n, 3, "place: 3 classes ((0,1) and (1,1) get "
			"the same pieces from the same ranks)"))
		goto out;
	class_is(&s, 0, 1, 1, r0);
	class_is(&s, 1, 2, 2, r1);
	class_is(&s, 2, 1, 1, r2);
out:
	sess_close(&s);
}

/* The 3D product on 2x2x2: C placed on z = 0, partial products summed
 * along z onto it (a RETURN); A [x, z] and B [z, y] replicated along y
 * and x, written by one replica each. */
static void test_mm3d(void)
{
	struct sess s;
	struct dmd_xfer *x;
	const struct dmd_poly *p;
	static const long r0[][2] = { { 0, 0 }, { 2, 2 }, { 4, 4 },
		{ 6, 6 } };

	if (!sess_open(&s, "tests/e2e/jobs/mm3d_2x2x2.yaml", 1))
		goto out;
	if (tensor(&s, "C", 2) < 0)
		goto out;
	set_eq(s.ctx, s.m->lay[2]->held, "[c_x, c_y, c_z] -> { T2[e0, e1] : "
		"c_z = 0 and 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"15c_x <= e0 <= 15c_x + 14 and 13c_y <= e1 <= 13c_y + 12 }",
		"mm3d: C held on z = 0");
	pa_eq(s.ctx, s.m->lay[2]->ext[1], "[c_x, c_y, c_z] -> { [(13)] : "
		"c_z = 0 and 0 <= c_x <= 1 and 0 <= c_y <= 1; [(0)] : "
		"c_z = 1 and 0 <= c_x <= 1 and 0 <= c_y <= 1 }",
		"mm3d: C ext[1] = 13 on z = 0, none on z = 1");
	set_eq(s.ctx, s.m->lay[0]->writer, "[c_x, c_y, c_z] -> { : c_y = 0 "
		"and 0 <= c_x <= 1 and 0 <= c_z <= 1 }",
		"mm3d: A written by y = 0");
	set_eq(s.ctx, s.m->lay[1]->writer, "[c_x, c_y, c_z] -> { : c_x = 0 "
		"and 0 <= c_y <= 1 and 0 <= c_z <= 1 }",
		"mm3d: B written by x = 0");
	p = s.m->poly[0];
	map_eq(s.ctx, p->rsched, "[c_x, c_y, c_z] -> { S[m, n, k] -> "
		"L[mi, ni, ki] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"0 <= c_z <= 1 and m = 15c_x + mi and 0 <= mi <= 14 and "
		"n = 13c_y + ni and 0 <= ni <= 12 and k = 11c_z + ki and "
		"0 <= ki <= 10 }", "mm3d: rank (x, y, z) runs block (x, y, z)");
	if (!(x = xfer(&s, 1, 0)))
		goto out;
	xfer_is(x, "mm3d: C returned to its holders after the step",
		DMD_XFER_RETURN, DMD_USE_RETURN, 0, 2, -1);
	check(s.plan->steps[0].ret == x && s.plan->steps[0].part == 1,
		"mm3d: the step writes its own buffer, returned by X0");
	int_eq(x->p2p->sum, 1, "mm3d: the returned pieces are summed");
	set_eq(s.ctx, x->p2p->recv_dom, "[c_x, c_y, c_z] -> { X0[px, py, pz] "
		": c_z = 0 and 0 <= c_x <= 1 and 0 <= c_y <= 1 and px = c_x "
		"and py = c_y and pz = 1 }",
		"mm3d: (x, y, 0) receives from (x, y, 1)");
	set_eq(s.ctx, x->p2p->send_dom, "[c_x, c_y, c_z] -> { X0[px, py, pz] "
		": c_z = 1 and 0 <= c_x <= 1 and 0 <= c_y <= 1 and px = c_x "
		"and py = c_y and pz = 0 }",
		"mm3d: (x, y, 1) sends to (x, y, 0)");
	if (!int_eq(s.cls->n, 2, "mm3d: 2 classes"))
		goto out;
	class_is(&s, 0, 4, 4, r0);
out:
	sess_close(&s);
}

/* Skewed layouts: Cannon on 2x2 (A [48, 80] dist [x, (x + y) % 2], B
 * [80, 64] dist [(x + y) % 2, y]) and a block index over two axes
 * (x * 2 + y, 11 rows in blocks of 3). Cannon's operands both shift. */
static void test_skew(void)
{
	struct sess s;
	struct dmd_xfer *xa, *xb;

	if (!sess_open(&s, "tests/e2e/jobs/cannon_2x2.yaml", 0))
		goto next;
	if (tensor(&s, "A", 0) < 0 || tensor(&s, "B", 1) < 0)
		goto next;
	pa_eq(s.ctx, s.m->lay[0]->lo[1], "[c_x, c_y] -> { "
		"[(40 * ((c_x + c_y) mod 2))] : 0 <= c_x <= 1 and "
		"0 <= c_y <= 1 }", "cannon: A lo[1] = 40 ((x + y) mod 2)");
	set_eq(s.ctx, s.m->lay[0]->held, "[c_x, c_y] -> { T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"24c_x <= e0 <= 24c_x + 23 and "
		"40 * ((c_x + c_y) mod 2) <= e1 <= "
		"40 * ((c_x + c_y) mod 2) + 39 }", "cannon: A held (skewed)");
	map_eq(s.ctx, s.m->lay[1]->holds, "[c_x, c_y] -> { R[x, y] -> "
		"T1[e0, e1] : 0 <= x <= 1 and 0 <= y <= 1 and "
		"40 * ((x + y) mod 2) <= e0 <= 40 * ((x + y) mod 2) + 39 and "
		"32y <= e1 <= 32y + 31 }", "cannon: B holds map (skewed)");
	/* ko = (kor + mo + no) mod 2: at kor rank (x, y) needs A's column
	 * block (x + y + kor) mod 2, which (x, y + 1) needed at kor - 1 */
	if (!(xa = xfer(&s, 2, 0)) || !(xb = xfer(&s, 2, 1)))
		goto next;
	xfer_is(xa, "cannon: A at kor", DMD_XFER_SHIFT, DMD_USE_INPUT, 0, 0,
		0);
	check(xa->axis == 1 && xa->disp == 1 && xa->first_local,
		"cannon: A shifts along y by 1, first block local");
	xfer_is(xb, "cannon: B at kor", DMD_XFER_SHIFT, DMD_USE_INPUT, 0, 1,
		0);
	check(xb->axis == 0 && xb->disp == 1 && xb->first_local,
		"cannon: B shifts along x by 1, first block local");
	map_eq(s.ctx, xa->need, "[c_x, c_y] -> { X0[t] -> T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= t <= 1 and "
		"24c_x <= e0 <= 24c_x + 23 and "
		"40 * ((c_x + c_y + t) mod 2) <= e1 <= "
		"40 * ((c_x + c_y + t) mod 2) + 39 }",
		"cannon: A needed at kor");
next:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/reshard_two_axes_2x2.yaml", 0))
		goto out;
	set_eq(s.ctx, s.m->lay[0]->held, "[c_x, c_y] -> { T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= e1 <= 4 and "
		"6c_x + 3c_y <= e0 <= 6c_x + 3c_y + 2 and e0 <= 10 }",
		"two axes: A held, block x * 2 + y");
	pa_eq(s.ctx, s.m->lay[0]->ext[0], "[c_x, c_y] -> { [(3)] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and (c_x = 0 or c_y = 0); "
		"[(2)] : c_x = 1 and c_y = 1 }", "two axes: A ext 3, 3, 3, 2");
out:
	sess_close(&s);
}

/* The three-point stencil over 5 ranks (A, B [1003] in blocks of 201,
 * the last 199): domain, accesses, executors, the halo transfer, A's home
 * buffer, and the three classes. */
static void test_stencil(void)
{
	struct sess s;
	const struct dmd_poly *p;
	struct dmd_xfer *x;
	static const long r0[][2] = { { 0, 0 } }, r1[][2] = { { 1, 3 } },
		r2[][2] = { { 4, 4 } };
	isl_set *shown;
	int a;

	if (!sess_open(&s, "tests/e2e/jobs/stencil3.yaml", 1))
		goto out;
	if (tensor(&s, "A", 0) < 0 || tensor(&s, "B", 1) < 0 ||
	    !int_eq(s.m->n_poly, 1, "stencil3: one step"))
		goto out;
	pa_eq(s.ctx, s.m->lay[0]->ext[0], "[c_x] -> { [(201)] : "
		"0 <= c_x <= 3; [(199)] : c_x = 4 }",
		"stencil3: A ext 201 x 4, 199");
	p = s.m->poly[0];
	set_eq(s.ctx, p->domain, "[c_x] -> { S[i] : 1 <= i <= 1001 and "
		"0 <= c_x <= 4 }", "stencil3: domain 1 <= i <= 1001");
	int_eq(p->out, 1, "stencil3: writes B");
	int_eq(p->reduce, 0, "stencil3: one iteration per element");
	dbl_eq(p->flops, -1, "stencil3: not a matrix product");
	if (!int_eq(p->n_acc, 4, "stencil3: 4 accesses"))
		goto out;
	map_eq(s.ctx, p->acc[0].map, "[c_x] -> { S[i] -> T1[i] : "
		"1 <= i <= 1001 and 0 <= c_x <= 4 }", "stencil3: writes B[i]");
	map_eq(s.ctx, p->acc[1].map, "[c_x] -> { S[i] -> T0[i - 1] : "
		"1 <= i <= 1001 and 0 <= c_x <= 4 }",
		"stencil3: reads A[i - 1]");
	map_eq(s.ctx, p->acc[2].map, "[c_x] -> { S[i] -> T0[i] : "
		"1 <= i <= 1001 and 0 <= c_x <= 4 }", "stencil3: reads A[i]");
	map_eq(s.ctx, p->acc[3].map, "[c_x] -> { S[i] -> T0[i + 1] : "
		"1 <= i <= 1001 and 0 <= c_x <= 4 }",
		"stencil3: reads A[i + 1]");
	map_eq(s.ctx, p->rsched, "[c_x] -> { S[i] -> L[ii] : 0 <= c_x <= 4 "
		"and i = 201c_x + ii and 0 <= ii <= 200 and 1 <= i <= 1001 }",
		"stencil3: rank x runs i in its block, time loop ii");
	check(p->n_comm == 1 && p->comm[0].tensor == 0 &&
		p->comm[0].level == -1,
		"stencil3: communicate(A, io) is before the time loops");
	/* rank x needs A[201x - 1 .. 201x + 201] within [0, 1002] */
	if (!(x = xfer(&s, 1, 0)))
		goto out;
	xfer_is(x, "stencil3: A's halo point to point, once",
		DMD_XFER_P2P, DMD_USE_INPUT, 0, 0, -1);
	int_eq(x->ghost, 1, "stencil3: the halo lands in A's home buffer");
	for (a = 1; a < 4; ++a)
		int_eq(s.plan->steps[0].provider[a], 0,
			"stencil3: reads of A come through X0");
	set_eq(s.ctx, x->dom, "[c_x] -> { X0[] : 0 <= c_x <= 4 }",
		"stencil3: one time point");
	map_eq(s.ctx, x->need, "[c_x] -> { X0[] -> T0[e] : 0 <= c_x <= 4 and "
		"201c_x - 1 <= e <= 201c_x + 201 and 0 <= e <= 1002 }",
		"stencil3: A needed: block and one element each side");
	set_eq(s.ctx, x->p2p->recv_dom, "[c_x] -> { X0[p] : 0 <= c_x <= 4 "
		"and 0 <= p <= 4 and (p = c_x - 1 or p = c_x + 1) }",
		"stencil3: receives from each neighbour that exists");
	set_eq(s.ctx, x->p2p->send_dom, "[c_x] -> { X0[p] : 0 <= c_x <= 4 "
		"and 0 <= p <= 4 and (p = c_x - 1 or p = c_x + 1) }",
		"stencil3: sends to each neighbour that exists");
	pa_on_eq(s.ctx, x->p2p->recv.lo[0], x->p2p->recv_dom,
		"[c_x] -> { X0[p] -> [(201c_x - 1)] : p = c_x - 1 and "
		"1 <= c_x <= 4; X0[p] -> [(201c_x + 201)] : p = c_x + 1 and "
		"0 <= c_x <= 3 }",
		"stencil3: halo elements 201x - 1, 201x + 201");
	pa_on_eq(s.ctx, x->p2p->recv.ext[0], x->p2p->recv_dom,
		"[c_x] -> { X0[p] -> [(1)] : 0 <= c_x <= 4 and 0 <= p <= 4 and "
		"(p = c_x - 1 or p = c_x + 1) }",
		"stencil3: one element from each neighbour");
	int_eq(s.plan->ghost[0], 1, "stencil3: A's home is larger than "
		"its block");
	int_eq(s.plan->ghost[1], 0, "stencil3: B's home is its block");
	pa_eq(s.ctx, s.plan->home[0].lo[0], "[c_x] -> { [(0)] : c_x = 0; "
		"[(201c_x - 1)] : 1 <= c_x <= 4 }",
		"stencil3: A home lo = 201 c_x - 1 (0 on rank 0)");
	pa_eq(s.ctx, s.plan->home[0].ext[0], "[c_x] -> { [(202)] : c_x = 0; "
		"[(203)] : 1 <= c_x <= 3; [(200)] : c_x = 4 }",
		"stencil3: A home ext 202, 203, 200");
	pa_eq(s.ctx, s.plan->home[1].ext[0], "[c_x] -> { [(201)] : "
		"0 <= c_x <= 3; [(199)] : c_x = 4 }",
		"stencil3: B home ext = its block");
	if (!int_eq(s.cells->n, 3, "stencil3: 3 cells") ||
	    !int_eq(s.cls->n, 3, "stencil3: 3 classes"))
		goto out;
	class_is(&s, 0, 1, 1, r0);
	class_is(&s, 1, 3, 1, r1);
	class_is(&s, 2, 1, 1, r2);
	set_eq(s.ctx, s.cls->cls[1].set, "[c_x] -> { : 1 <= c_x <= 3 }",
		"stencil3: class 1 is the interior ranks");
	shown = isl_set_read_from_str(s.ctx, s.cls->cls[1].set_text);
	set_eq(s.ctx, shown, "[x] -> { : 1 <= x <= 3 }",
		"stencil3: class 1 shown with the job's axis names");
	isl_set_free(shown);
out:
	sess_close(&s);
}

/* The schedule after the commands: SUMMA (divide, reorder) and PUMMA
 * (rotate(ko, [no], kor): ko = (kor + no) mod 2) on 2x2 -- loops,
 * sched on the domain, and rsched with the space loops fixed to the
 * rank's coordinates. */
static void test_schedule(void)
{
	struct sess s;
	const struct dmd_poly *p;
	static const char *names[] = { "mo", "no", "kor", "mi", "ni", "ki" };
	static const long ext[] = { 2, 2, 2, 32, 24, 48 };
	int i, ok;

	if (!sess_open(&s, "tests/e2e/jobs/summa_2x2.yaml", 0))
		goto next;
	p = s.m->poly[0];
	map_eq(s.ctx, p->rsched, "[c_x, c_y] -> { S[m, n, k] -> "
		"L[ko, mi, ni, ki] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"m = 32c_x + mi and 0 <= mi <= 31 and n = 24c_y + ni and "
		"0 <= ni <= 23 and k = 48ko + ki and 0 <= ko <= 1 and "
		"0 <= ki <= 47 }", "summa: rsched");
next:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/pumma_2x2.yaml", 0))
		goto out;
	p = s.m->poly[0];
	ok = p->n_loops == 6;
	for (i = 0; ok && i < 6; ++i)
		ok = !strcmp(p->loops[i].name, names[i]) &&
			p->loops[i].extent == ext[i] &&
			p->loops[i].kind == (i < 2 ? DMD_LOOP_SPACE :
				DMD_LOOP_TIME) &&
			(i >= 2 || p->loops[i].axis == i) &&
			p->loops[i].tensorized == (i >= 3);
	check(ok, "pumma: loops mo(x) no(y) kor mi ni ki, extents 2 2 2 "
		"32 24 48, the inner three tensorized");
	ok = p->n_time == 4;
	for (i = 0; ok && i < 4; ++i)
		ok = p->time_loop[i] == i + 2;
	check(ok, "pumma: time loops kor mi ni ki");
	check(p->n_comm == 2 && p->comm[0].tensor == 0 &&
		p->comm[0].level == 0 && p->comm[1].tensor == 1 &&
		p->comm[1].level == 0, "pumma: A and B communicated at kor");
	check(p->gemm && !p->gemm->ta && !p->gemm->tb,
		"pumma: a GEMM without transposes");
	map_on_eq(s.ctx, p->sched, p->domain, "[c_x, c_y] -> { S[m, n, k] -> "
		"L[mo, no, kor, mi, ni, ki] : 0 <= c_x <= 1 and 0 <= c_y <= 1 "
		"and 0 <= m <= 63 and 0 <= n <= 47 and 0 <= k <= 95 and "
		"m = 32mo + mi and 0 <= mi <= 31 and n = 24no + ni and "
		"0 <= ni <= 23 and 0 <= kor <= 1 and 0 <= ki <= 47 and "
		"k = 48 * ((kor + no) mod 2) + ki }",
		"pumma: sched on the domain (rotate)");
	map_eq(s.ctx, p->rsched, "[c_x, c_y] -> { S[m, n, k] -> "
		"L[kor, mi, ni, ki] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"m = 32c_x + mi and 0 <= mi <= 31 and n = 24c_y + ni and "
		"0 <= ni <= 23 and 0 <= kor <= 1 and 0 <= ki <= 47 and "
		"k = 48 * ((kor + c_y) mod 2) + ki }",
		"pumma: rsched fixes mo = c_x, no = c_y");
out:
	sess_close(&s);
}

/* Who executes what without distribute: owner computes (the holder of
 * the C element), every holder of a replicated output, a step that
 * writes nothing on some rank. */
static void test_executors(void)
{
	struct sess s;

	if (!sess_open(&s, "tests/e2e/jobs/owner_computes_2x2.yaml", 0))
		goto next1;
	/* C [13, 11] dist [x, y]: rows 7 + 6, columns 6 + 5 */
	map_eq(s.ctx, s.m->poly[0]->rsched, "[c_x, c_y] -> { S[m, n, k] -> "
		"L[m, n, k] : 0 <= k <= 8 and "
		"((c_x = 0 and 0 <= m <= 6) or (c_x = 1 and 7 <= m <= 12)) and "
		"((c_y = 0 and 0 <= n <= 5) or (c_y = 1 and 6 <= n <= 10)) }",
		"owner computes: rank (x, y) runs the iterations of its C");
	int_eq(s.plan->n_xfer, 0, "owner computes: A's rows and B's "
		"columns are held: no transfer");
	check(!s.plan->steps[0].ret && !s.plan->steps[0].part,
		"owner computes: nothing returned");
next1:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/reshard_allgather_2.yaml", 0))
		goto next2;
	map_eq(s.ctx, s.m->poly[0]->rsched, "[c_x] -> { S[i, j] -> L[i, j] : "
		"0 <= c_x <= 1 and 0 <= i <= 9 and 0 <= j <= 13 }",
		"replicated: both holders of B run every iteration");
	set_eq(s.ctx, s.m->lay[1]->writer, "[c_x] -> { : c_x = 0 }",
		"replicated: one replica of B is written");
next2:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/jacobi_4.yaml", 0))
		goto out;
	/* B[i] for 1 <= i <= 11 over blocks [0,4) [4,8) [8,12) [12,13) */
	map_eq(s.ctx, s.m->poly[0]->rsched, "[c_x] -> { S[i] -> L[i] : "
		"0 <= c_x <= 2 and 4c_x <= i <= 4c_x + 3 and 1 <= i <= 11 }",
		"jacobi: rank 3 writes no B[i] and runs nothing");
	set_eq(s.ctx, s.plan->steps[0].comp, "[c_x] -> { : 0 <= c_x <= 2 }",
		"jacobi: ranks 0-2 compute in step 0");
	set_eq(s.ctx, s.plan->steps[1].comp, "[c_x] -> { : 0 <= c_x <= 3 }",
		"jacobi: every rank computes in step 1");
out:
	sess_close(&s);
}

/* SUMMA on 2x2: A's column block ko broadcast along y from y = ko, B's
 * row block ko along x from x = ko; the GEMM leaf per ko. */
static void test_plan_summa(void)
{
	struct sess s;
	struct dmd_xfer *xa, *xb;
	const struct dmd_step_plan *sp;
	static const long r0[][2] = { { 0, 3 } };

	if (!sess_open(&s, "tests/e2e/jobs/summa_2x2.yaml", 1))
		goto out;
	if (!(xa = xfer(&s, 2, 0)) || !(xb = xfer(&s, 2, 1)))
		goto out;
	xfer_is(xa, "summa: A at ko", DMD_XFER_BCAST, DMD_USE_INPUT, 0, 0, 0);
	int_eq(xa->axis, 1, "summa: A broadcast along y");
	xfer_is(xb, "summa: B at ko", DMD_XFER_BCAST, DMD_USE_INPUT, 0, 1, 0);
	int_eq(xb->axis, 0, "summa: B broadcast along x");
	pa_on_eq(s.ctx, xa->root, xa->dom, "[c_x, c_y] -> { X0[ko] -> [(ko)] "
		": 0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= ko <= 1 }",
		"summa: A's root is y = ko");
	pa_on_eq(s.ctx, xb->root, xb->dom, "[c_x, c_y] -> { X1[ko] -> [(ko)] "
		": 0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= ko <= 1 }",
		"summa: B's root is x = ko");
	map_eq(s.ctx, xa->need, "[c_x, c_y] -> { X0[ko] -> T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= ko <= 1 and "
		"32c_x <= e0 <= 32c_x + 31 and 48ko <= e1 <= 48ko + 47 }",
		"summa: A needed at ko");
	map_eq(s.ctx, xb->need, "[c_x, c_y] -> { X1[ko] -> T1[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= ko <= 1 and "
		"48ko <= e0 <= 48ko + 47 and 24c_y <= e1 <= 24c_y + 23 }",
		"summa: B needed at ko");
	sp = &s.plan->steps[0];
	check(sp->provider[1] == 0 && sp->provider[2] == 1,
		"summa: A read through X0, B through X1");
	check(!sp->ret && !sp->part && !sp->zero,
		"summa: owner computes, no return, nothing zeroed");
	if (check(sp->gemm != NULL, "summa: a GEMM leaf")) {
		int_eq(sp->gemm->q, 1, "summa: the GEMM runs per ko");
		set_eq(s.ctx, sp->gemm->dom, "[c_x, c_y] -> { G[ko] : "
			"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= ko <= 1 }",
			"summa: GEMM points");
		pa_eq(s.ctx, sp->gemm->lo[2], "[c_x, c_y] -> { G[ko] -> "
			"[(48ko)] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
			"0 <= ko <= 1 }", "summa: GEMM k origin 48 ko");
		pa_eq(s.ctx, sp->gemm->ext[0], "[c_x, c_y] -> { G[ko] -> "
			"[(32)] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
			"0 <= ko <= 1 }", "summa: GEMM M = 32");
	}
	if (!int_eq(s.cls->n, 1, "summa: 1 class"))
		goto out;
	class_is(&s, 0, 4, 1, r0);
out:
	sess_close(&s);
}

/* PUMMA on 2x2: A shifts along y (first block local), B is broadcast
 * along x from x = (c_y + kor) mod 2; a single class. */
static void test_plan_pumma(void)
{
	struct sess s;
	struct dmd_xfer *xa, *xb;
	static const long r0[][2] = { { 0, 3 } };

	if (!sess_open(&s, "tests/e2e/jobs/pumma_2x2.yaml", 1))
		goto out;
	if (!(xa = xfer(&s, 2, 0)) || !(xb = xfer(&s, 2, 1)))
		goto out;
	xfer_is(xa, "pumma: A at kor", DMD_XFER_SHIFT, DMD_USE_INPUT, 0, 0, 0);
	check(xa->axis == 1 && xa->disp == 1 && xa->first_local,
		"pumma: A shifts along y by 1, first block local");
	map_eq(s.ctx, xa->need, "[c_x, c_y] -> { X0[kor] -> T0[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= c_y <= 1 and 0 <= kor <= 1 and "
		"32c_x <= e0 <= 32c_x + 31 and "
		"48 * ((c_y + kor) mod 2) <= e1 <= "
		"48 * ((c_y + kor) mod 2) + 47 }", "pumma: A needed at kor");
	xfer_is(xb, "pumma: B at kor", DMD_XFER_BCAST, DMD_USE_INPUT, 0, 1, 0);
	int_eq(xb->axis, 0, "pumma: B broadcast along x");
	pa_on_eq(s.ctx, xb->root, xb->dom, "[c_x, c_y] -> { X1[kor] -> "
		"[((c_y + kor) mod 2)] : 0 <= c_x <= 1 and 0 <= c_y <= 1 and "
		"0 <= kor <= 1 }", "pumma: B's root is x = (y + kor) mod 2");
	int_eq(s.cells->n, 1, "pumma: 1 cell");
	if (!int_eq(s.cls->n, 1, "pumma: 1 class"))
		goto out;
	class_is(&s, 0, 4, 1, r0);
	str_eq(s.cls->cls[0].why_line, "every extent, bound and transfer role "
		"is the same on these ranks", "pumma: why one class");
out:
	sess_close(&s);
}

/* A step that reads its output elsewhere than it writes (B[i] +=
 * B[7 - i] on 2 ranks): a snapshot of the other rank's half. */
static void test_snapshot(void)
{
	struct sess s;
	struct dmd_xfer *x;
	isl_bool empty;

	if (!sess_open(&s, "tests/e2e/jobs/self_reverse_2.yaml", 0))
		goto out;
	check(s.m->use[0].used && s.m->use[0].input && s.m->use[0].output &&
		s.m->use[0].written, "self_reverse: B used, input, output, "
		"written");
	map_eq(s.ctx, s.m->poly[0]->rsched, "[c_x] -> { S[i] -> L[i] : "
		"0 <= c_x <= 1 and 4c_x <= i <= 4c_x + 3 }",
		"self_reverse: the holder of B[i] runs i");
	if (!(x = xfer(&s, 1, 0)))
		goto out;
	xfer_is(x, "self_reverse: B as before the step",
		DMD_XFER_P2P, DMD_USE_SNAPSHOT, 0, 0, -1);
	map_eq(s.ctx, x->need, "[c_x] -> { X0[] -> T0[e] : 0 <= c_x <= 1 and "
		"4 - 4c_x <= e <= 7 - 4c_x }",
		"self_reverse: rank x needs the other half");
	set_eq(s.ctx, x->p2p->recv_dom, "[c_x] -> { X0[p] : 0 <= c_x <= 1 "
		"and p = 1 - c_x }", "self_reverse: from the other rank");
	empty = isl_set_is_empty(x->p2p->self_dom);
	check(empty == isl_bool_true, "self_reverse: nothing from its own "
		"block");
	int_eq(s.plan->steps[0].provider[1], 0,
		"self_reverse: B[7 - i] read from the snapshot");
out:
	sess_close(&s);
}

/* Partial sums: Z = X W with k split over x stays partial (no transfer);
 * R (replicated) and S (rows over x) read Z reduced (REDUCE transfers);
 * and distir_mlp's last step reads Z reduced. */
static void test_reduce(void)
{
	struct sess s;
	struct dmd_xfer *x0, *x1;

	if (!sess_open(&s, "tests/e2e/jobs/partial_reduce_2.yaml", 0))
		goto next;
	if (tensor(&s, "Z", 2) < 0)
		goto next;
	check(s.m->lay[2]->n_partial == 1 && s.m->lay[2]->partial[0] == 0,
		"partial_reduce: Z partial along x");
	check(s.m->use[2].used && !s.m->use[2].input && !s.m->use[2].output &&
		s.m->use[2].written, "partial_reduce: Z is an intermediate");
	map_eq(s.ctx, s.m->poly[0]->rsched, "[c_x] -> { S[m, n, k] -> "
		"L[m, n, ki] : 0 <= c_x <= 1 and 0 <= m <= 5 and 0 <= n <= 4 "
		"and k = 4c_x + ki and 0 <= ki <= 3 and k <= 6 }",
		"partial_reduce: rank x sums over its k block");
	if (!(x0 = xfer(&s, 2, 0)) || !(x1 = xfer(&s, 2, 1)))
		goto next;
	check(!s.plan->steps[0].ret && s.plan->steps[0].n_xfer == 0,
		"partial_reduce: step 1 moves nothing");
	xfer_is(x0, "partial_reduce: Z reduced for R = Z",
		DMD_XFER_P2P, DMD_USE_REDUCE, 1, 2, -1);
	int_eq(x0->p2p->sum, 1, "partial_reduce: pieces are summed");
	map_eq(s.ctx, x0->need, "[c_x] -> { X0[] -> T2[e0, e1] : "
		"0 <= c_x <= 1 and 0 <= e0 <= 5 and 0 <= e1 <= 4 }",
		"partial_reduce: R needs all of Z");
	set_eq(s.ctx, x0->p2p->recv_dom, "[c_x] -> { X0[p] : 0 <= c_x <= 1 "
		"and p = 1 - c_x }", "partial_reduce: the other partial");
	xfer_is(x1, "partial_reduce: Z reduced for S = Z",
		DMD_XFER_P2P, DMD_USE_REDUCE, 2, 2, -1);
	map_eq(s.ctx, x1->need, "[c_x] -> { X1[] -> T2[e0, e1] : "
		"0 <= c_x <= 1 and 3c_x <= e0 <= 3c_x + 2 and 0 <= e1 <= 4 }",
		"partial_reduce: S needs its 3 rows of Z");
	pa_on_eq(s.ctx, x1->p2p->recv.lo[0], x1->p2p->recv_dom,
		"[c_x] -> { X1[p] -> [(3c_x)] : 0 <= c_x <= 1 and "
		"p = 1 - c_x }", "partial_reduce: the other's partial of "
		"its own rows");
next:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/distir_mlp.yaml", 0))
		goto out;
	if (!(x0 = xfer(&s, 1, 0)))
		goto out;
	xfer_is(x0, "distir_mlp: Z reduced for O = Z * C",
		DMD_XFER_P2P, DMD_USE_REDUCE, 3, 6, -1);
	int_eq(x0->p2p->sum, 1, "distir_mlp: pieces are summed");
out:
	sess_close(&s);
}

/* Resharding steps B = A: who receives from whom. */
static void test_reshard(void)
{
	struct sess s;
	struct dmd_xfer *x;

	/* rows 5 + 5 into replicated: each gets the other's rows */
	if (sess_open(&s, "tests/e2e/jobs/reshard_allgather_2.yaml", 0) &&
	    (x = xfer(&s, 1, 0))) {
		xfer_is(x, "allgather: P2P input", DMD_XFER_P2P,
			DMD_USE_INPUT, 0, 0, -1);
		set_eq(s.ctx, x->p2p->recv_dom, "[c_x] -> { X0[p] : "
			"0 <= c_x <= 1 and p = 1 - c_x }",
			"allgather: from the other rank");
		int_eq(x->ghost, 1, "allgather: into A's home buffer");
	}
	sess_close(&s);
	/* rows 3 3 1 into columns 4 4 2: every row block meets every
	 * column block */
	if (sess_open(&s, "tests/e2e/jobs/reshard_alltoall_3.yaml", 0) &&
	    (x = xfer(&s, 1, 0)))
		set_eq(s.ctx, x->p2p->recv_dom, "[c_x] -> { X0[p] : "
			"0 <= c_x <= 2 and 0 <= p <= 2 and "
			"(p < c_x or p > c_x) }",
			"alltoall: each rank from the 2 others");
	sess_close(&s);
	/* into the skewed [x, (x + y) % 3]: row x = 0 unchanged, (1, y)
	 * gets its columns from (1, (y + 1) mod 3) */
	if (sess_open(&s, "tests/e2e/jobs/reshard_skew_2x3.yaml", 0) &&
	    (x = xfer(&s, 1, 0)))
		set_eq(s.ctx, x->p2p->recv_dom, "[c_x, c_y] -> { X0[px, py] : "
			"c_x = 1 and 0 <= c_y <= 2 and px = 1 and "
			"py = (c_y + 1) mod 3 }",
			"skew: (1, y) from (1, (y + 1) mod 3)");
	sess_close(&s);
	/* [x, y] into [y, x] (7 x 8): the 12 messages of the job's table */
	if (sess_open(&s, "tests/e2e/jobs/reshard_transpose_2x3.yaml", 0) &&
	    (x = xfer(&s, 1, 0)))
		set_eq(s.ctx, x->p2p->recv_dom, "[c_x, c_y] -> { X0[px, py] : "
			"(c_x = 0 and c_y = 0 and px = 0 and py = 1) or "
			"(c_x = 0 and c_y = 1 and ((px = 0 and py = 0) or "
			"(px = 1 and 0 <= py <= 1))) or "
			"(c_x = 0 and c_y = 2 and px = 1 and 0 <= py <= 1) or "
			"(c_x = 1 and c_y = 0 and px = 0 and 1 <= py <= 2) or "
			"(c_x = 1 and c_y = 1 and ((px = 0 and 1 <= py <= 2) "
			"or (px = 1 and py = 2))) or "
			"(c_x = 1 and c_y = 2 and px = 1 and py = 1) }",
			"transpose: receivers and senders");
	sess_close(&s);
	/* replicated into [x, y]: every rank holds what it needs */
	if (sess_open(&s, "tests/e2e/jobs/reshard_slice_2x2.yaml", 0))
		int_eq(s.plan->n_xfer, 0, "slice: no transfer");
	sess_close(&s);
}

/* Uses and the program tree: Jacobi (a repeat of 10 around two steps)
 * and distir_mlp (4 steps, two matrix products). */
static void test_program(void)
{
	struct sess s;
	const struct dmd_node *n;
	const struct dmd_tensor_use *u;
	int i, ok;

	if (!sess_open(&s, "tests/e2e/jobs/jacobi_4.yaml", 0))
		goto next;
	if (tensor(&s, "A", 0) < 0 || tensor(&s, "B", 1) < 0)
		goto next;
	u = s.m->use;
	check(u[0].used && u[0].input && u[0].output && u[0].written,
		"jacobi: A used, input, output, written");
	check(u[1].used && !u[1].input && !u[1].output && u[1].written,
		"jacobi: B an intermediate");
	int_eq(s.m->n_poly, 2, "jacobi: 2 compute steps");
	n = s.m->node;
	ok = s.m->n_node == 1 && n[0].type == DMD_NODE_REPEAT &&
		n[0].n_repeat == 10 && n[0].n_child == 2 &&
		n[0].child[0].type == DMD_NODE_STEP &&
		n[0].child[0].step == 0 && n[0].child[0].n_child == 0 &&
		n[0].child[1].type == DMD_NODE_STEP &&
		n[0].child[1].step == 1 && n[0].child[1].n_child == 0;
	check(ok, "jacobi: program = repeat 10 { step 0; step 1 }");
	int_eq(dmd_model_step_count(s.m, 0), 10, "jacobi: step 0 runs 10x");
	int_eq(dmd_model_step_count(s.m, 1), 10, "jacobi: step 1 runs 10x");
	dbl_eq(s.m->flops, -1, "jacobi: no matrix product");
	set_eq(s.ctx, s.m->poly[1]->domain, "[c_x] -> { S[i] : 0 <= i <= 12 "
		"and 0 <= c_x <= 3 }", "jacobi: A[i] = B[i] over all of A");
next:
	sess_close(&s);
	if (!sess_open(&s, "tests/e2e/jobs/distir_mlp.yaml", 0))
		goto out;
	if (!int_eq(s.m->n_poly, 4, "distir_mlp: 4 steps") ||
	    !int_eq(s.m->n_node, 4, "distir_mlp: 4 top-level nodes"))
		goto out;
	ok = 1;
	for (i = 0; i < 4; ++i)
		ok = ok && s.m->node[i].type == DMD_NODE_STEP &&
			s.m->node[i].step == i &&
			dmd_model_step_count(s.m, i) == 1;
	check(ok, "distir_mlp: steps 0-3 in order, once each");
	/* 2 M N K: L = X A is 128 x 127 x 128, Z = Y B 128 x 128 x 127 */
	dbl_eq(s.m->poly[0]->flops, 4161536, "distir_mlp: step 0 flops");
	dbl_eq(s.m->poly[1]->flops, -1, "distir_mlp: gelu is no product");
	dbl_eq(s.m->poly[2]->flops, 4161536, "distir_mlp: step 2 flops");
	dbl_eq(s.m->poly[3]->flops, -1, "distir_mlp: Z * C is no product");
	dbl_eq(s.m->flops, 8323072, "distir_mlp: program flops");
	str_eq(s.m->poly[1]->label, "Y[m, n] = gelu(L[m, n])",
		"distir_mlp: step 1 label");
	/* X A B C inputs; L Y Z intermediates; O the output */
	u = s.m->use;
	ok = s.job->n_tensors == 8;
	for (i = 0; ok && i < 8; ++i)
		ok = u[i].used && u[i].input == (i < 4) &&
			u[i].output == (i == 7) && u[i].written == (i >= 4);
	check(ok, "distir_mlp: inputs X A B C, intermediates L Y Z, "
		"output O");
	check(s.m->poly[0]->reduce && !s.m->poly[1]->reduce &&
		s.m->poly[2]->reduce && !s.m->poly[3]->reduce,
		"distir_mlp: the products sum, the others do not");
out:
	sess_close(&s);
}

/* Facts, cells and classes of uneven jobs, and rank ranges. */
static void test_classes(void)
{
	struct sess s;
	static const long t0[][2] = { { 0, 0 } }, t1[][2] = { { 1, 1 } };
	static const long c0[][2] = { { 0, 1 }, { 3, 3 } };
	long (*ranges)[2] = NULL, count = -1;
	isl_set *set;
	int n;

	if (sess_open(&s, "tests/codegen/tail.yaml", 1) &&
	    int_eq(s.cls->n, 2, "tail: 2 classes")) {
		class_is(&s, 0, 1, 1, t0);
		class_is(&s, 1, 1, 1, t1);
		str_eq(s.cls->cls[1].why_line, "X's block extent along dim 0 "
			"= 63; Y's block extent along dim 0 = 63; the GEMM's "
			"M in step 1 = 63", "tail: why rank 1 differs");
		if (int_eq(s.cls->cls[1].why.n, 3, "tail: 3 facts"))
			str_eq(s.cls->cls[1].why.fact[2], "the GEMM's M in "
				"step 1 = 63", "tail: the GEMM's M, a fact");
	}
	sess_close(&s);
	/* 50 = 17+17+16 rows, K 70 = 24+24+22, 41 = 14+14+13 columns: only
	 * (0,0), (0,1), (1,0) share every extent */
	if (sess_open(&s, "tests/codegen/cannon_uneven_3x3.yaml", 1)) {
		int_eq(s.cells->n, 7, "cannon_uneven: 7 cells");
		if (int_eq(s.cls->n, 7, "cannon_uneven: 7 classes"))
			class_is(&s, 0, 3, 2, c0);
		set = isl_set_read_from_str(s.ctx, "[c_x, c_y] -> { : "
			"0 <= c_x <= 2 and 0 <= c_y <= 2 and "
			"(c_y = 1 or c_x = 2) }");
		n = dmd_part_rank_ranges(s.m, set, &ranges, &count);
		check(n == 3 && count == 5 && ranges[0][0] == 1 &&
			ranges[0][1] == 1 && ranges[1][0] == 4 &&
			ranges[1][1] == 4 && ranges[2][0] == 6 &&
			ranges[2][1] == 8, "rank ranges of y = 1 or x = 2 "
			"on 3x3: 1, 4, 6-8 (5 ranks)");
		free(ranges);
		isl_set_free(set);
	}
	sess_close(&s);
}

/* Run every test on the repository ROOT; exit 1 if a check failed. */
/* Verify the transfers of "rel" and expect "want" proofs, none failed
 * (or, with "fail", that the proofs fail). */
static void proofs_are(struct sess *s, const char *rel, int want, int fail)
{
	struct dmd_proofs rep = { 0 };
	enum dmd_status r = dmd_part_verify(s->plan, &rep);
	int failed = dmd_part_proofs_failed(&rep);

	check(r == (fail ? DMD_INTERNAL : DMD_OK) && rep.n == want &&
		failed == fail, "%s: %d proofs, %s (got %d, status %d, "
		"failed %d)", rel, want, fail ? "one fails" : "all hold",
		rep.n, r, failed);
	if (rep.n) {
		printf("  ");
		dmd_part_proof_print(stdout, &rep.proof[rep.n - 1]);
		printf("\n");
	}
	dmd_part_proofs_clear(&rep);
}

/* The proofs of transfers: they hold for the plans of several jobs, and
 * fail when a plan is corrupted (a send's extent one larger, a
 * broadcast's root depending on the coordinate along its axis, a shift's
 * received extent changed on one rank). */
static void test_proofs(void)
{
	struct sess s;
	isl_pw_aff *pa;

	if (sess_open(&s, "tests/e2e/jobs/stencil3.yaml", 0)) {
		proofs_are(&s, "stencil3", 1, 0);
		pa = s.plan->xfer[0]->p2p->send.ext[0];
		s.plan->xfer[0]->p2p->send.ext[0] = dmd_isl_add(pa, 1);
		proofs_are(&s, "stencil3 with a send one element too long", 1,
			1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/summa_2x2.yaml", 0)) {
		proofs_are(&s, "summa_2x2", 2, 0);
		pa = s.plan->xfer[0]->root;
		s.plan->xfer[0]->root = isl_pw_aff_add(pa,
			isl_pw_aff_param_on_domain_id(isl_pw_aff_domain(
			isl_pw_aff_copy(pa)), isl_id_alloc(s.ctx, "c_y",
			NULL)));
		proofs_are(&s, "summa_2x2 with a root along its axis", 2, 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/pumma_2x2.yaml", 0)) {
		isl_pw_aff *less;
		isl_set *one;

		proofs_are(&s, "pumma_2x2", 2, 0);
		one = isl_set_fix_si(isl_pw_aff_domain(isl_pw_aff_copy(
			s.plan->xfer[0]->box.ext[1])), isl_dim_param, 1, 1);
		pa = s.plan->xfer[0]->box.ext[1];
		less = isl_pw_aff_intersect_domain(dmd_isl_add(
			isl_pw_aff_copy(pa), -1), isl_set_copy(one));
		s.plan->xfer[0]->box.ext[1] = isl_pw_aff_union_add(
			isl_pw_aff_subtract_domain(pa, one), less);
		proofs_are(&s, "pumma_2x2 with a shifted extent changed", 2,
			1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/partial_reduce_2.yaml", 0))
		proofs_are(&s, "partial_reduce_2", 2, 0);
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/cannon_pre.yaml", 0))
		proofs_are(&s, "cannon_pre", 4, 0);
	sess_close(&s);
}

/* Prove the programs of "s" as emitted (dmd_spec_prove) and expect a
 * line starting with "want" (the first that fails, or the last), and
 * rep.failed == "fail". */
static void spec_proofs_are(struct sess *s, const char *what,
	const char *want, int fail)
{
	struct dmd_proofs rep = { 0 };
	const struct dmd_proof *pf = NULL;
	enum dmd_status r = dmd_spec_prove(s->plan, s->specs, &rep);
	int i, failed = dmd_part_proofs_failed(&rep);
	char *line = NULL;
	size_t size;
	FILE *f;

	for (i = 0; i < rep.n && !pf; ++i)
		if (rep.proof[i].verdict == DMD_PROOF_FAILS)
			pf = &rep.proof[i];
	if (!pf && rep.n)
		pf = &rep.proof[rep.n - 1];
	f = pf ? open_memstream(&line, &size) : NULL;
	if (f) {
		dmd_part_proof_print(f, pf);
		fclose(f);
	}
	check(r == (fail ? DMD_INTERNAL : DMD_OK) && failed == fail && line &&
		!strncmp(line, want, strlen(want)),
		"%s: %s (got status %d, failed %d: %s)", what, want, r, failed,
		line ? line : "no line");
	free(line);
	dmd_part_proofs_clear(&rep);
}

/* The statement of kind "kind" of transfer "x" in step "step" of cell
 * "c" of "s" that runs somewhere, or NULL. */
static struct dmd_spec_stmt *spec_stmt(struct sess *s, int c, int step,
	enum dmd_spec_kind kind, const struct dmd_xfer *x)
{
	struct dmd_spec_step *ss = &s->specs->spec[c]->steps[step];
	int i;

	for (i = 0; i < ss->n_stmt; ++i)
		if (ss->stmt[i].kind == kind && ss->stmt[i].xfer == x &&
		    ss->stmt[i].dom)
			return &ss->stmt[i];
	return NULL;
}

/* Statement "kind" of transfer "x" in step "step" of the first cell
 * that runs one. */
static struct dmd_spec_stmt *spec_stmt_any(struct sess *s, int step,
	enum dmd_spec_kind kind, const struct dmd_xfer *x)
{
	struct dmd_spec_stmt *st = NULL;
	int c;

	for (c = 0; !st && c < s->specs->n; ++c)
		st = spec_stmt(s, c, step, kind, x);
	return st;
}

/* The named fields of the typed program (specialize/dmd_spec.h) that
 * say which buffer or view each statement uses: stencil3's compute
 * statement writes B through w_B and reads A[i - 1], A[i], A[i + 1]
 * through v_A, the home buffer with the halo's ghost cells (a plain
 * wait, no view set); stencil_acc_3 adds into B; elem (f32) computes in
 * float, receives A and B into their transfers' buffers and returns C
 * from the write view, added into the holders' home buffers;
 * partial_reduce_2 adds the partials it receives and its own into the
 * transfer's buffer. */
static void test_spec_fields(void)
{
	const struct dmd_spec_access *acc;
	const struct dmd_spec_step *ss;
	struct dmd_spec_stmt *st;
	const struct dmd_xfer *x;
	struct sess s;
	int a;

	if (sess_open(&s, "tests/e2e/jobs/stencil3.yaml", 1)) {
		ss = &s.specs->spec[0]->steps[0];
		st = spec_stmt(&s, 0, 0, DMD_SPEC_COMP, NULL);
		if (check(st && st->u.comp.n_acc == 4,
				"stencil3: a compute statement, 4 accesses")) {
			acc = st->u.comp.acc;
			check(dmd_spec_access_at(st, s.m->poly[0]->st->lhs) ==
				&acc[0], "stencil3: the output's access at the "
				"left side's node");
			int_eq(acc[0].mode, DMD_SPEC_WRITE, "stencil3: B = ..");
			int_eq(ss->view[acc[0].view].write, 1,
				"stencil3: B through w_B");
			int_eq(ss->view[acc[0].view].tensor, 1,
				"stencil3: w_B is B's");
			for (a = 1; a < 4; ++a) {
				check(dmd_spec_access_at(st,
					s.m->poly[0]->acc[a].expr) == &acc[a],
					"stencil3: read %d at its node", a);
				int_eq(acc[a].mode, DMD_SPEC_READ,
					"stencil3: A read");
				int_eq(acc[a].n_index, 1, "stencil3: 1 index");
				int_eq(ss->view[acc[a].view].write, 0,
					"stencil3: A through v_A");
				int_eq(ss->view[acc[a].view].home, 1,
					"stencil3: v_A is A's home buffer");
			}
			str_eq(st->u.comp.type->name, "double",
				"stencil3: computes in double");
		}
		int_eq(s.specs->spec[0]->tensor[0].halo, 1,
			"stencil3: A's home buffer has ghost cells");
		int_eq(s.specs->spec[0]->tensor[1].halo, 0,
			"stencil3: B's home buffer is its block");
		x = s.plan->xfer[0];
		st = spec_stmt_any(&s, 0, DMD_SPEC_RECV, x);
		if (check(st != NULL, "stencil3: a receive of the halo")) {
			int_eq(st->u.recv.into, DMD_BUF_HOME,
				"stencil3: the halo into the home buffer");
			int_eq(st->u.recv.sum, 0, "stencil3: stored");
		}
		st = spec_stmt_any(&s, 0, DMD_SPEC_WAIT, x);
		if (check(st != NULL, "stencil3: a wait of the halo"))
			int_eq(st->u.wait.set_view, 0,
				"stencil3: the wait sets no view");
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/stencil_acc_3.yaml", 1)) {
		st = spec_stmt(&s, 0, 0, DMD_SPEC_COMP, NULL);
		if (check(st != NULL, "stencil_acc_3: a compute statement"))
			int_eq(st->u.comp.acc[0].mode, DMD_SPEC_ADD,
				"stencil_acc_3: B += ..");
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/elem.yaml", 1)) {
		st = spec_stmt_any(&s, 0, DMD_SPEC_COMP, NULL);
		if (check(st != NULL, "elem: a compute statement")) {
			str_eq(st->u.comp.type->name, "float",
				"elem: computes in float");
			int_eq(st->u.comp.type->single, 1,
				"elem: float constants and functions");
		}
		str_eq(s.specs->spec[0]->tensor[0].type->name, "float",
			"elem: A's home buffer holds floats");
		x = s.plan->steps[0].ret;
		st = spec_stmt_any(&s, 0, DMD_SPEC_SEND, x);
		if (check(x && st, "elem: C returned, a send"))
			int_eq(st->u.send.from, DMD_BUF_WRITE,
				"elem: sent from the write view");
		st = spec_stmt_any(&s, 0, DMD_SPEC_RECV, x);
		if (check(x && st, "elem: a receive of the return")) {
			int_eq(st->u.recv.into, DMD_BUF_HOME,
				"elem: returned into the home buffer");
			int_eq(st->u.recv.sum, 1, "elem: added");
		}
		st = spec_stmt_any(&s, 0, DMD_SPEC_SELF, x);
		if (check(x && st, "elem: the own piece of the return")) {
			int_eq(st->u.self.from, DMD_BUF_WRITE,
				"elem: own piece from the write view");
			int_eq(st->u.self.into, DMD_BUF_HOME,
				"elem: own piece into the home buffer");
			int_eq(st->u.self.sum, 1, "elem: own piece added");
		}
		st = spec_stmt_any(&s, 0, DMD_SPEC_RECV, s.plan->xfer[0]);
		if (check(s.plan->xfer[0] != x && st,
				"elem: transfer #0 (a read) received"))
			int_eq(st->u.recv.into, DMD_BUF_XFER,
				"elem: a read into its transfer's buffer");
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/partial_reduce_2.yaml", 1)) {
		x = s.plan->steps[1].n_xfer ? s.plan->steps[1].xfer[0] : NULL;
		st = x ? spec_stmt_any(&s, 1, DMD_SPEC_RECV, x) : NULL;
		if (check(st != NULL, "partial_reduce_2: step 2 receives")) {
			int_eq(st->u.recv.into, DMD_BUF_XFER,
				"partial_reduce_2: into the transfer's buffer");
			int_eq(st->u.recv.sum, 1,
				"partial_reduce_2: partials added");
		}
		st = x ? spec_stmt_any(&s, 1, DMD_SPEC_SELF, x) : NULL;
		if (check(st != NULL, "partial_reduce_2: its own partial")) {
			int_eq(st->u.self.from, DMD_BUF_HOME,
				"partial_reduce_2: own partial from home");
			int_eq(st->u.self.sum, 1,
				"partial_reduce_2: own partial added");
		}
	}
	sess_close(&s);
}

/* The proofs as emitted of steps distributed over views (their
 * quantities are printed in the view's coordinates): they hold, and fail
 * when a broadcast's roots are one further along a view axis, when one
 * cell's broadcast root differs from its group's, when a shift around a
 * view's ring receives a shifted box, when a point-to-point send goes to
 * the next rank in a view over 6 of 8 ranks, and when partial sums
 * along a view axis are counted along another axis of the view. */
static void test_spec_proofs_views(void)
{
	struct dmd_spec_stmt *st;
	struct sess s;
	int c, np;

	if (sess_open(&s, "tests/e2e/jobs/summa_view6.yaml", 1)) {
		spec_proofs_are(&s, "summa_view6", "covered: step", 0);
		for (c = 0; c < s.specs->n; ++c) {
			st = spec_stmt(&s, c, 0, DMD_SPEC_BCAST,
				s.plan->xfer[0]);
			if (st)
				*st->u.bcast.root = dmd_isl_add(
					*st->u.bcast.root, 1);
		}
		spec_proofs_are(&s, "summa_view6 with every root one further",
			"NOT covered: transfer #0 (A in step 1: broadcast): a "
			"root broadcasts a box it does not hold", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/summa_view6.yaml", 1)) {
		st = spec_stmt(&s, 0, 0, DMD_SPEC_BCAST, s.plan->xfer[1]);
		if (check(st != NULL, "summa_view6: a broadcast in cell 0")) {
			*st->u.bcast.root = dmd_isl_add(*st->u.bcast.root,
				1);
			spec_proofs_are(&s, "summa_view6 with cell 0's root "
				"one further", "NOT proved as emitted: transfer "
				"#1 (B in step 1: broadcast): the ranks of a "
				"group along p may disagree", 1);
		}
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/pumma_view7.yaml", 1)) {
		int nd = s.plan->xfer[0]->box.n;

		spec_proofs_are(&s, "pumma_view7", "covered: step", 0);
		for (c = 0; c < s.specs->n; ++c) {
			st = spec_stmt(&s, c, 0, DMD_SPEC_SHIFT,
				s.plan->xfer[0]);
			if (st)
				st->u.shift.lo[nd - 1] = dmd_isl_add(
					st->u.shift.lo[nd - 1], 1);
		}
		spec_proofs_are(&s, "pumma_view7 receiving a shifted box",
			"NOT covered: transfer #0 (A in step 1: shift)", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/summa_view_6of8.yaml", 1)) {
		spec_proofs_are(&s, "summa_view_6of8", "covered: step", 0);
		np = s.m->mesh->n;
		for (c = 0; c < s.specs->n; ++c) {
			st = spec_stmt(&s, c, 0, DMD_SPEC_SEND,
				s.plan->xfer[1]);
			if (st)
				st->u.send.peer[np - 1] = dmd_isl_add(
					st->u.send.peer[np - 1], 1);
		}
		spec_proofs_are(&s, "summa_view_6of8 sending to the next rank",
			"NOT proved as emitted: transfer #1", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/partial_view_4.yaml", 1)) {
		struct dmd_layout *z = s.m->lay[2];

		spec_proofs_are(&s, "partial_view_4", "covered: step", 0);
		/* Z's partial sums taken along a instead of b: the holders
		 * along a do not hold the same rows */
		z->partial[0] = dmd_job_find_axis(s.job, "a");
		spec_proofs_are(&s, "partial_view_4 with Z partial along a",
			"NOT covered: step 1: some holder of Z gets the result "
			"of an iteration", 1);
		z->partial[0] = dmd_job_find_axis(s.job, "b");
	}
	sess_close(&s);
}

/* The proofs on the programs as emitted hold for several jobs, and fail
 * with a witness when a cell's program is corrupted the way a bug in the
 * specializer would: a send to the next rank, a broadcast root one
 * further, a receive box one element shorter, a shift's received origin
 * moved, an iteration no rank runs. */
static void test_spec_proofs(void)
{
	struct dmd_spec_stmt *st;
	struct sess s;
	int np;

	if (sess_open(&s, "tests/e2e/jobs/jacobi_4.yaml", 1)) {
		spec_proofs_are(&s, "jacobi_4", "covered: step", 0);
		np = s.m->mesh->n;
		st = spec_stmt(&s, 0, 0, DMD_SPEC_SEND, s.plan->xfer[0]);
		if (check(st != NULL, "jacobi_4: a send in cell 0")) {
			st->u.send.peer[np - 1] = dmd_isl_add(
				st->u.send.peer[np - 1], 1);
			spec_proofs_are(&s, "jacobi_4 sending to the next rank",
				"NOT proved as emitted: transfer #0", 1);
		}
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/stencil3.yaml", 1)) {
		st = spec_stmt(&s, 1, 0, DMD_SPEC_RECV, s.plan->xfer[0]);
		if (check(st != NULL, "stencil3: a receive in cell 1")) {
			/* receives and sends both one shorter: they match,
			 * but a ghost cell is missing */
			st->u.recv.ext[0] = dmd_isl_add(st->u.recv.ext[0], -1);
			spec_proofs_are(&s, "stencil3 with a receive one "
				"element short", "NOT proved as emitted", 1);
		}
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/summa_2x2.yaml", 1)) {
		int c;

		spec_proofs_are(&s, "summa_2x2", "covered: step", 0);
		for (c = 0; c < s.specs->n; ++c) {
			st = spec_stmt(&s, c, 0, DMD_SPEC_BCAST,
				s.plan->xfer[0]);
			if (st)
				*st->u.bcast.root = dmd_isl_add(
					*st->u.bcast.root, 1);
		}
		spec_proofs_are(&s, "summa_2x2 with every root one further",
			"NOT covered: transfer #0 (A in step 1: broadcast): a "
			"root broadcasts a box it does not hold", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/pumma_2x2.yaml", 1)) {
		int c, nd = s.plan->xfer[0]->box.n;

		spec_proofs_are(&s, "pumma_2x2", "covered: step", 0);
		for (c = 0; c < s.specs->n; ++c) {
			st = spec_stmt(&s, c, 0, DMD_SPEC_SHIFT,
				s.plan->xfer[0]);
			if (st)
				st->u.shift.lo[nd - 1] = dmd_isl_add(
					st->u.shift.lo[nd - 1], 1);
		}
		spec_proofs_are(&s, "pumma_2x2 receiving a shifted box",
			"NOT covered: transfer #0 (A in step 1: shift)", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/jacobi_4.yaml", 1)) {
		struct dmd_spec_step *ss = &s.specs->spec[1]->steps[1];
		int i;

		for (i = 0; i < ss->n_stmt; ++i)
			if (ss->stmt[i].kind == DMD_SPEC_COMP &&
			    ss->stmt[i].dom)
				ss->stmt[i].dom = isl_set_lexmin(
					ss->stmt[i].dom);
		spec_proofs_are(&s, "jacobi_4 with cell 1 running one "
			"iteration of A = B", "NOT covered: step 2: some holder "
			"of A gets the result of an iteration never", 1);
	}
	sess_close(&s);
	if (sess_open(&s, "tests/e2e/jobs/elem.yaml", 1)) {
		struct dmd_spec_step *ss = &s.specs->spec[0]->steps[0];
		int i;

		spec_proofs_are(&s, "elem", "covered: step", 0);
		for (i = 0; i < ss->n_stmt; ++i)
			if (ss->stmt[i].kind == DMD_SPEC_COMP &&
			    ss->stmt[i].dom)
				ss->stmt[i].dom = isl_set_lexmin(
					ss->stmt[i].dom);
		/* its results are returned: what the return sends was not
		 * computed */
		spec_proofs_are(&s, "elem with cell 0 running one iteration",
			"NOT covered: transfer #1 (C in step 1: returned to the "
			"holders): rank", 1);
	}
	sess_close(&s);
	test_spec_proofs_views();
}

/* Views (spec 1.1) on a 1-D mesh of 8 ranks (tests/e2e/jobs/mm3d_view8):
 * g = 2x2x2 (a, b, c) = (r // 4, r // 2 % 2, r % 2) are quasi-affine
 * functions of the mesh parameter, not parameters; A [32, 24] dist [a, c]
 * and C dist [a, b] placed on c = 0; the distributed loops equal them. */
static void test_views_model(void)
{
	struct sess s;
	const struct dmd_poly *p;
	isl_pw_aff *pa;
	isl_map *line;
	int a;

	if (!sess_open(&s, "tests/e2e/jobs/mm3d_view8.yaml", 0))
		goto out;
	int_eq(s.m->mesh->n, 1, "views: the mesh has 1 parameter");
	int_eq(s.m->mesh->n_all, 4, "views: 4 axes (r and a, b, c of g)");
	a = dmd_job_find_axis(s.job, "b");
	int_eq(a, 2, "views: axis b has index 2");
	int_eq(dmd_mesh_axis_view(s.m->mesh, a), 0, "views: b is on view 0");
	pa = dmd_mesh_coord(s.m->mesh, 1);
	pa_eq(s.ctx, pa, "[c_r] -> { [(floor((c_r)/4))] : 0 <= c_r <= 7 }",
		"views: a = r // 4");
	isl_pw_aff_free(pa);
	pa = dmd_mesh_coord(s.m->mesh, 2);
	pa_eq(s.ctx, pa, "[c_r] -> { [(floor((c_r)/2) mod 2)] : "
		"0 <= c_r <= 7 }", "views: b = r // 2 % 2");
	isl_pw_aff_free(pa);
	pa = dmd_mesh_coord(s.m->mesh, 3);
	pa_eq(s.ctx, pa, "[c_r] -> { [(c_r mod 2)] : 0 <= c_r <= 7 }",
		"views: c = r % 2");
	isl_pw_aff_free(pa);
	set_eq(s.ctx, s.m->lay[0]->held, "[c_r] -> { T0[e0, e1] : "
		"0 <= c_r <= 7 and 16*floor((c_r)/4) <= e0 < "
		"16*floor((c_r)/4) + 16 and 12*(c_r mod 2) <= e1 < "
		"12*(c_r mod 2) + 12 }",
		"views: A held by (a, c)");
	int_eq(s.m->lay[0]->view, 0, "views: A is laid out on g");
	set_eq(s.ctx, s.m->lay[0]->writer, "[c_r] -> { : 0 <= c_r <= 7 and "
		"floor((c_r)/2) mod 2 = 0 }", "views: A written by b = 0");
	set_eq(s.ctx, s.m->lay[2]->held, "[c_r] -> { T2[e0, e1] : "
		"0 <= c_r <= 7 and c_r mod 2 = 0 and "
		"16*floor((c_r)/4) <= e0 < 16*floor((c_r)/4) + 16 and "
		"8*(floor((c_r)/2) mod 2) <= e1 < "
		"8*(floor((c_r)/2) mod 2) + 8 }",
		"views: C held on c = 0");
	p = s.m->poly[0];
	int_eq(p->view, 0, "views: the step is distributed over g");
	map_eq(s.ctx, p->rsched, "[c_r] -> { S[m, n, k] -> L[mi, ni, ki] : "
		"0 <= c_r <= 7 and m = 16*floor((c_r)/4) + mi and "
		"0 <= mi <= 15 and n = 8*(floor((c_r)/2) mod 2) + ni and "
		"0 <= ni <= 7 and k = 12*(c_r mod 2) + ki and 0 <= ki <= 11 }",
		"views: rank (a, b, c) runs block (a, b, c)");
	line = dmd_mesh_line(s.m->mesh, 2);
	map_eq(s.ctx, line, "{ R[r] -> R[s] : 0 <= r <= 7 and 0 <= s <= 7 and "
		"floor((r)/4) = floor((s)/4) and r mod 2 = s mod 2 }",
		"views: the line along b: a and c equal");
	isl_map_free(line);
out:
	sess_close(&s);
}

/* One count of flops (spec 1.3 ranges, spec 1.6 cost): summa_cut_2x2
 * (C [10, 12] = A [13, 9] * B [7, 14]: m, n, k run over 10, 12 and 7
 * values) does 2 operations an iteration; the model's flops (the
 * runtime's GFLOP/s) are 2 * 10 * 12 * 7 and the cost model's busiest
 * rank, with blocks of 5 x 6 of C, 2 * 5 * 6 * 7. */
static void test_flops(void)
{
	struct sess s;
	struct dmd_cost *cost;

	if (!sess_open(&s, "tests/e2e/jobs/summa_cut_2x2.yaml", 0))
		goto out;
	int_eq(dmd_poly_ops(s.m->poly[0]), 2, "flops: 2 an iteration");
	int_eq((long) s.m->poly[0]->flops, 1680, "flops: 2 M N K of the ranges");
	cost = dmd_part_cost(s.plan, NULL);
	if (check(cost != NULL, "flops: the cost of summa_cut_2x2"))
		int_eq(cost->total.flops_max, 420,
			"flops: the busiest rank's, from the same count");
	dmd_part_cost_free(cost);
out:
	sess_close(&s);
}

/* A view over 6 of the 7 ranks (tests/e2e/jobs/pumma_view7: 2x3 (p, q)
 * of a 1-D mesh of 7): rank 6 holds nothing laid out on it and runs
 * nothing of the step distributed over it; A shifts along q; and SUMMA
 * on a 2x3 view of 6 ranks (summa_view6) broadcasts A along q, B along
 * p, with roots that are coordinates along them. */
static void test_views_plan(void)
{
	struct sess s;
	struct dmd_xfer *x;
	isl_set *set;

	if (!sess_open(&s, "tests/e2e/jobs/pumma_view7.yaml", 0))
		goto out;
	set = dmd_mesh_frame(s.m->mesh, 0);
	set_eq(s.ctx, set, "[c_r] -> { : 0 <= c_r <= 5 }",
		"pumma_view7: the view has ranks 0 to 5");
	isl_set_free(set);
	pa_eq(s.ctx, s.m->lay[0]->ext[0], "[c_r] -> { [(10)] : 0 <= c_r <= 5; "
		"[(0)] : c_r = 6 }", "pumma_view7: rank 6 holds no rows of A");
	set = isl_set_params(isl_map_domain(isl_map_copy(s.m->poly[0]->rsched)));
	set_eq(s.ctx, set, "[c_r] -> { : 0 <= c_r <= 5 }",
		"pumma_view7: rank 6 runs nothing");
	isl_set_free(set);
	if (!(x = xfer(&s, 2, 0)))
		goto out;
	xfer_is(x, "pumma_view7: A shifts at kor", DMD_XFER_SHIFT,
		DMD_USE_INPUT, 0, 0, 0);
	int_eq(x->axis, dmd_job_find_axis(s.job, "q"), "pumma_view7: along q");
	sess_close(&s);

	if (!sess_open(&s, "tests/e2e/jobs/summa_view6.yaml", 0))
		goto out;
	if (!(x = xfer(&s, 2, 0)))
		goto out;
	xfer_is(x, "summa_view6: A broadcast at ko", DMD_XFER_BCAST,
		DMD_USE_INPUT, 0, 0, 0);
	int_eq(x->axis, dmd_job_find_axis(s.job, "q"), "summa_view6: along q");
	pa_params_eq(s.ctx, x->root, "[c_r] -> { : 0 <= c_r <= 5 }",
		"[c_r] -> { X0[ko] -> [(floor((ko)/2))] : "
		"0 <= c_r <= 5 and 0 <= ko <= 5 }",
		"summa_view6: A's root is q = ko // 2");
	x = xfer(&s, 2, 1);
	xfer_is(x, "summa_view6: B broadcast at ko", DMD_XFER_BCAST,
		DMD_USE_INPUT, 0, 1, 0);
	int_eq(x->axis, dmd_job_find_axis(s.job, "p"), "summa_view6: along p");
	pa_params_eq(s.ctx, x->root, "[c_r] -> { : 0 <= c_r <= 5 }",
		"[c_r] -> { X1[ko] -> [(floor((ko)/3))] : "
		"0 <= c_r <= 5 and 0 <= ko <= 5 }",
		"summa_view6: B's root is p = ko // 3");
	sess_close(&s);

	/* partial sums along an axis of a view */
	if (!sess_open(&s, "tests/e2e/jobs/partial_view_4.yaml", 0))
		goto out;
	int_eq(s.m->lay[2]->n_partial, 1, "partial_view_4: Z partial along 1");
	int_eq(s.m->lay[2]->partial[0], dmd_job_find_axis(s.job, "b"),
		"partial_view_4: along b");
	if (!(x = xfer(&s, 2, 0)))
		goto out;
	xfer_is(x, "partial_view_4: Z summed for step 2", DMD_XFER_P2P,
		DMD_USE_REDUCE, 1, 2, -1);
	set_eq(s.ctx, x->p2p->recv_dom, "[c_r] -> { X0[s] : 0 <= c_r <= 3 and "
		"floor((s)/2) = floor((c_r)/2) and s mod 2 = 1 - (c_r mod 2) }",
		"partial_view_4: (a, b) receives the partial of (a, 1 - b)");
out:
	sess_close(&s);
}

/* dmd_isl_opt_val on pieces whose expression has a denominator (isl
 * writes an extent on a view of 60 of 64 ranks as (-1 + 2048c)/15 where
 * it is integral on the piece's points; isl_set_max_val refuses such an
 * expression): the optimum is the expression's, not its multiple by the
 * denominator.  Written from the definition: on c = 0, 15, 30, 45, 60,
 * (2048c)/15 takes 0, 2048, ..., 8192; (c + 1)/4 on c = 3, 7, 11 takes
 * 1, 2, 3. */
static void test_isl_opt(void)
{
	isl_ctx *ctx = isl_ctx_alloc();
	static const struct {
		const char *pa;
		int max;
		long want;
	} t[] = {
		{ "[c] -> { [] -> [((2048c)/15)] : exists (e: c = 15e) and "
		  "0 <= c <= 63 }", 1, 8192 },
		{ "[c] -> { [] -> [((2048c)/15)] : exists (e: c = 15e) and "
		  "0 <= c <= 63 }", 0, 0 },
		{ "[c] -> { [] -> [((c + 1)/4)] : exists (e: c = 3 + 4e) and "
		  "0 <= c <= 11; [] -> [(c)] : 20 <= c <= 21 }", 0, 1 },
		{ "[c] -> { [] -> [((c + 1)/4)] : exists (e: c = 3 + 4e) and "
		  "0 <= c <= 11; [] -> [(c)] : 20 <= c <= 21 }", 1, 21 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); ++i) {
		isl_val *v = dmd_isl_opt_val(isl_pw_aff_read_from_str(ctx,
			t[i].pa), t[i].max);
		int ok = v && isl_val_is_int(v) &&
			isl_val_cmp_si(v, t[i].want) == 0;

		if (!ok) {
			printf("  got ");
			fflush(stdout);
			isl_val_dump(v);
		}
		check(ok, "isl: %s of %s is %ld", t[i].max ? "max" : "min",
			t[i].pa, t[i].want);
		isl_val_free(v);
	}
	isl_ctx_free(ctx);
}

/* dmd_isl_map_rel_by_rank on a mesh of 2x3: equal relations, and
 * ones that differ on the first rank, on the last, or beyond the mesh on
 * either side; with the coordinates as parameters, a subset and not,
 * also of a map that lacks one of them. */
static void test_isl_by_rank(void)
{
	isl_ctx *ctx = isl_ctx_alloc();
	static const long shape[] = { 2, 3 };
#define MESH "0 <= r0 <= 1 and 0 <= r1 <= 2 and 0 <= t <= 3"
	static const struct {
		const char *a, *b;
		enum dmd_isl_rel rel;
		int params, want;
	} t[] = {
		{ "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " }",
		  "{ [r0, r1, t] -> [x] : " MESH " and x - t = r1 + r0 }",
		  DMD_ISL_EQUAL, 0, 1 },
		{ "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " }",
		  "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " and r0 + r1 > 0; "
		  "[0, 0, t] -> [t + 1] : 0 <= t <= 3 }", DMD_ISL_EQUAL, 0, 0 },
		{ "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " }",
		  "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " and r0 + r1 < 3; "
		  "[1, 2, t] -> [t + 4] : 0 <= t <= 3 }", DMD_ISL_EQUAL, 0, 0 },
		{ "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " }",
		  "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH "; "
		  "[2, 0, 0] -> [2] }", DMD_ISL_EQUAL, 0, 0 },
		{ "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH "; "
		  "[0, -1, 0] -> [-1] }",
		  "{ [r0, r1, t] -> [r0 + r1 + t] : " MESH " }",
		  DMD_ISL_EQUAL, 0, 0 },
		{ "[n, r1, r0] -> { [t] -> [r0 + r1 + t] : " MESH " }",
		  "[r0, r1] -> { [t] -> [x] : " MESH " and "
		  "r0 + r1 <= x <= r0 + r1 + 3 }", DMD_ISL_SUBSET, 1, 1 },
		{ "[n, r1, r0] -> { [t] -> [r0 + r1 + t] : " MESH " }",
		  "[r0, r1] -> { [t] -> [x] : " MESH " and "
		  "r0 + r1 <= x <= r0 + r1 + 3 and (r0 < 1 or r1 < 2 or "
		  "x < 6) }", DMD_ISL_SUBSET, 1, 0 },
		{ "[r0, r1] -> { [t] -> [t] : " MESH " }",
		  "[r0] -> { [t] -> [t] : 0 <= t <= 3 }", DMD_ISL_SUBSET, 1, 1 },
		{ "[r0, r1] -> { [t] -> [t] : " MESH " }",
		  "[r0] -> { [t] -> [t] : 0 <= t <= 3 and r0 = 0 }",
		  DMD_ISL_SUBSET, 1, 0 },
	};
#undef MESH
	isl_multi_id *ids = isl_multi_id_read_from_str(ctx, "{ [r0, r1] }");
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); ++i) {
		isl_map *a = isl_map_read_from_str(ctx, t[i].a);
		isl_map *b = isl_map_read_from_str(ctx, t[i].b);
		isl_bool r = dmd_isl_map_rel_by_rank(a, b, t[i].rel,
			t[i].params ? ids : NULL, 2, shape);

		check(r == (t[i].want ? isl_bool_true : isl_bool_false),
			"isl: %s %s %s %s rank by rank", t[i].a,
			t[i].want ? "is" : "is not", t[i].rel == DMD_ISL_EQUAL ?
			"equal to" : "a subset of", t[i].b);
		isl_map_free(a);
		isl_map_free(b);
	}
	isl_multi_id_free(ids);
	isl_ctx_free(ctx);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: model_test ROOT\n");
		return 2;
	}
	root = argv[1];
	test_block();
	test_tail();
	test_offsets();
	test_place();
	test_mm3d();
	test_skew();
	test_stencil();
	test_schedule();
	test_executors();
	test_plan_summa();
	test_plan_pumma();
	test_snapshot();
	test_reduce();
	test_reshard();
	test_program();
	test_classes();
	test_proofs();
	test_spec_proofs();
	test_spec_fields();
	test_views_model();
	test_views_plan();
	test_flops();
	test_isl_opt();
	test_isl_by_rank();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
