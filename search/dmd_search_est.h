/* dmd_search_est.h: the closed-form estimate of a product candidate's
 * cost (search/dmd_search_est.c), by which the search orders its
 * candidates before analysing the best few exactly.
 *
 * Ownership: dmd_search_est_new gives a dmd_est; dmd_search_est_free
 * releases it and returns NULL.
 */
#ifndef DMD_SEARCH_EST_H
#define DMD_SEARCH_EST_H

#include "ir/dmd_model.h"
#include "partition/dmd_part.h"

struct dmd_est;

/* A candidate as the estimate sees it: loop[a] (0: i, 1: j, 2: k)
 * distributed over view axis a of extent shape[a], n axes; k in
 * "panels" panels (0: at once), the panel loop rotated by the
 * coordinates of the view axes in the bit set "rot" (0: not rotated). */
struct dmd_est_cand {
	int n;
	int loop[3];
	long shape[3];
	long panels;
	int rot;			/* bit a: panels rotated by axis a */
};

/* Does the operand whose loop besides k is "xl" (0: i, 1: j) shift
 * around a ring with candidate "c" (its panel loop rotated by the
 * coordinate of the axis of the other output loop, along which its
 * panels differ from rank to rank), rather than being broadcast? */
int dmd_search_est_shifts(const struct dmd_est_cand *c, int xl);

/* The boxes the declared layouts of product step "p" give the ranks (a
 * sample of them on large meshes); "iv", "jv", "kv" name its loops i, j
 * (of the output) and k (summed).  NULL on error. */
struct dmd_est *dmd_search_est_new(const struct dmd_model *m,
	const struct dmd_poly *p, const char *iv, const char *jv,
	const char *kv);
struct dmd_est *dmd_search_est_free(struct dmd_est *e);

/* The estimated figures of candidate "c": time_s, bytes_recv_max,
 * bytes_moved_total, messages, flops_max, mem_max. */
void dmd_search_est(const struct dmd_est *e, const struct dmd_est_cand *c,
	struct dmd_cost_figs *fig);

#endif
