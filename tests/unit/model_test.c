/* model_test: the polyhedral model and the transfers of small jobs,
 * compared with isl_*_is_equal against objects read from strings.
 * Usage: model_test ROOT (the repository). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>

#include "ir/dmd_model.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	if (ok) {
		passed++;
		printf("ok %s\n", what);
	} else {
		failed++;
		printf("FAIL %s\n", what);
	}
}

static void set_eq(isl_ctx *ctx, __isl_keep isl_set *got, const char *want,
	const char *what)
{
	isl_set *w = isl_set_read_from_str(ctx, want);
	int ok = w && got && isl_set_is_equal(got, w) == isl_bool_true;

	if (!ok) {
		printf("  want %s\n", want);
		isl_set_dump(got);
	}
	isl_set_free(w);
	check(ok, what);
}

static void map_eq(isl_ctx *ctx, __isl_keep isl_map *got, const char *want,
	const char *what)
{
	isl_map *w = isl_map_read_from_str(ctx, want);
	int ok = w && got && isl_map_is_equal(got, w) == isl_bool_true;

	if (!ok) {
		printf("  want %s\n", want);
		isl_map_dump(got);
	}
	isl_map_free(w);
	check(ok, what);
}

static void pa_eq(isl_ctx *ctx, __isl_keep isl_pw_aff *got, const char *want,
	const char *what)
{
	isl_pw_aff *w = isl_pw_aff_read_from_str(ctx, want);
	int ok = w && got && isl_pw_aff_is_equal(got, w) == isl_bool_true;

	if (!ok) {
		printf("  want %s\n", want);
		isl_pw_aff_dump(got);
	}
	isl_pw_aff_free(w);
	check(ok, what);
}

/* Read and analyse ROOT/tests/e2e/jobs/NAME.yaml (or examples/). */
static struct dmd_model *load(isl_ctx *ctx, const char *root,
	const char *rel, struct dmd_job **job)
{
	char path[4096];
	struct dmd_model *m;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	*job = dmd_job_read(path);
	if (!*job)
		return NULL;
	m = dmd_model_build(ctx, *job);
	if (m && dmd_part_comm(m) < 0)
		m = dmd_model_free(m);
	return m;
}

static void test_summa(isl_ctx *ctx, const char *root)
{
	struct dmd_job *job;
	struct dmd_model *m = load(ctx, root, "tests/e2e/jobs/summa_2x2.yaml",
		&job);

	check(m != NULL, "summa_2x2 analysed");
	if (!m)
		return;
	set_eq(ctx, m->domain, "[x, y] -> { S[m, n, k] : 0 <= m < 64 and "
		"0 <= n < 48 and 0 <= k < 96 and 0 <= x < 2 and 0 <= y < 2 }",
		"summa domain");
	map_eq(ctx, m->acc[1].map, "[x, y] -> { S[m, n, k] -> A[m, k] : "
		"0 <= m < 64 and 0 <= n < 48 and 0 <= k < 96 and 0 <= x < 2 "
		"and 0 <= y < 2 }", "summa access A");
	set_eq(ctx, m->dist[0].held, "[x, y] -> { A[e0, e1] : 32x <= e0 < "
		"32x + 32 and 48y <= e1 < 48y + 48 and 0 <= x < 2 and "
		"0 <= y < 2 }", "summa A held by (x, y)");
	map_eq(ctx, m->rsched, "[x, y] -> { S[m, n, k] -> L[ko, mi, ni, ki] :"
		" m = 32x + mi and n = 24y + ni and k = 48ko + ki and "
		"0 <= mi < 32 and 0 <= ni < 24 and 0 <= ki < 48 and "
		"0 <= ko < 2 and 0 <= x < 2 and 0 <= y < 2 }",
		"summa per-rank schedule");
	check(m->n_xfer == 2, "summa: two transfers");
	if (m->n_xfer == 2) {
		check(m->xfer[0].kind == DMD_XFER_BCAST &&
			m->xfer[0].axis == 1, "summa: A broadcast along y");
		check(m->xfer[1].kind == DMD_XFER_BCAST &&
			m->xfer[1].axis == 0, "summa: B broadcast along x");
		pa_eq(ctx, m->xfer[0].root, "[x, y] -> { X0[ko] -> [(ko)] : "
			"0 <= ko < 2 }", "summa: A's root is y = ko");
		map_eq(ctx, m->xfer[1].need, "[x, y] -> { X1[ko] -> B[k, n] : "
			"48ko <= k < 48ko + 48 and 24y <= n < 24y + 24 and "
			"0 <= ko < 2 and 0 <= x < 2 and 0 <= y < 2 }",
			"summa: B needed at ko");
	}
	dmd_model_free(m);
	dmd_job_free(job);
}

static void test_shift(isl_ctx *ctx, const char *root)
{
	struct dmd_job *job;
	struct dmd_model *m = load(ctx, root, "tests/e2e/jobs/pumma_2x2.yaml",
		&job);

	check(m && m->n_xfer == 2, "pumma_2x2 analysed");
	if (m && m->n_xfer == 2) {
		check(m->xfer[0].kind == DMD_XFER_SHIFT &&
			m->xfer[0].axis == 1 && m->xfer[0].disp == 1 &&
			m->xfer[0].first_local,
			"pumma: A shifts along y by +1, first step local");
		check(m->xfer[1].kind == DMD_XFER_BCAST &&
			m->xfer[1].axis == 0, "pumma: B broadcast along x");
	}
	dmd_model_free(m);
	dmd_job_free(job);
	m = load(ctx, root, "tests/e2e/jobs/cannon_2x2.yaml", &job);
	check(m && m->n_xfer == 2, "cannon_2x2 analysed");
	if (m && m->n_xfer == 2) {
		check(m->xfer[0].kind == DMD_XFER_SHIFT &&
			m->xfer[0].axis == 1 && m->xfer[0].first_local,
			"cannon: A shifts along y");
		check(m->xfer[1].kind == DMD_XFER_SHIFT &&
			m->xfer[1].axis == 0 && m->xfer[1].first_local,
			"cannon: B shifts along x");
		set_eq(ctx, m->dist[0].held, "[x, y] -> { A[e0, e1] : "
			"exists b : b = (x + y) mod 2 and 24x <= e0 < 24x + 24 "
			"and 40b <= e1 < 40b + 40 and 0 <= x < 2 and "
			"0 <= y < 2 }", "cannon: skewed A layout");
	}
	dmd_model_free(m);
	dmd_job_free(job);
}

static void test_uneven(isl_ctx *ctx, const char *root)
{
	struct dmd_job *job;
	struct dmd_model *m = load(ctx, root, "examples/tail.yaml", &job);

	check(m != NULL, "tail analysed");
	if (m) {
		pa_eq(ctx, m->dist[0].ext[0], "[x] -> { [(64)] : x = 0; "
			"[(63)] : x = 1 }", "tail: X block rows 64 + 63");
		check(m->n_xfer == 0, "tail: nothing moves");
	}
	dmd_model_free(m);
	dmd_job_free(job);

	m = load(ctx, root, "examples/stencil3.yaml", &job);
	check(m && m->n_xfer == 1, "stencil3 analysed");
	if (m && m->n_xfer == 1) {
		set_eq(ctx, m->domain, "[x] -> { S[i] : 1 <= i <= 1001 and "
			"0 <= x < 5 }", "stencil3: all accesses in bounds");
		check(m->xfer[0].kind == DMD_XFER_P2P,
			"stencil3: point-to-point halo");
		set_eq(ctx, m->xfer[0].p2p->recv_dom, "[x] -> { recv[p] : "
			"(p = x - 1 and 1 <= x <= 4) or (p = x + 1 and "
			"0 <= x <= 3) }", "stencil3: receives from each "
			"neighbour that exists");
		map_eq(ctx, m->xfer[0].need, "[x] -> { X0[] -> A[e] : "
			"201x - 1 <= e <= 201x + 201 and 0 <= e < 1003 and "
			"0 <= x < 5 }", "stencil3: halo of one element");
	}
	dmd_model_free(m);
	dmd_job_free(job);

	m = load(ctx, root, "tests/e2e/jobs/vec_offsets.yaml", &job);
	check(m != NULL, "vec_offsets analysed");
	if (m) {
		set_eq(ctx, m->dist[0].held, "[x] -> { A[e] : "
			"(x = 0 and 0 <= e < 5) or (x = 1 and e = 5) or "
			"(x = 2 and 6 <= e < 22) }", "offsets blocks");
		set_eq(ctx, m->dist[1].held, "[x] -> { B[e] : "
			"(x = 0 and 0 <= e < 8) or (x = 1 and 8 <= e < 15) or "
			"(x = 2 and 15 <= e < 22) }", "balanced blocks 8 7 7");
	}
	dmd_model_free(m);
	dmd_job_free(job);
}

int main(int argc, char **argv)
{
	isl_ctx *ctx = isl_ctx_alloc();

	if (argc != 2) {
		fprintf(stderr, "usage: model_test ROOT\n");
		return 2;
	}
	test_summa(ctx, argv[1]);
	test_shift(ctx, argv[1]);
	test_uneven(ctx, argv[1]);
	isl_ctx_free(ctx);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
