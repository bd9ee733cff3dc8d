/* dmd_search_est.h: the closed-form estimate of a candidate's cost, of
 * a product (search/dmd_search_est.c) and of a loop distribution of
 * another step (search/dmd_search_est_loops.c), by which the search
 * orders its candidates before analysing the best few exactly.
 *
 * Ownership: dmd_search_est_new gives a dmd_est, dmd_search_est_loops_new
 * a dmd_est_loops; their _free release them and return NULL.
 */
#ifndef DMD_SEARCH_EST_H
#define DMD_SEARCH_EST_H

#include "ir/dmd_model.h"
#include "partition/dmd_part.h"

struct dmd_est;
struct dmd_est_loops;

/* A candidate as the estimate sees it: loop[a] (of a product 0: i, 1: j,
 * 2: k; of another step the index of the variable in the step's
 * variables) distributed over view axis a of extent shape[a], n axes; k
 * in "panels" panels (0: at once), the panel loop rotated by the
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


/* The estimate's data for step "p" of "m" that is not a matrix product
 * (its loops, accesses, and the boxes the declared layouts give the
 * ranks, a sample of them on large meshes).  NULL on error or where the
 * estimate does not apply (see dmd_search_est_loops_applies). */
struct dmd_est_loops *dmd_search_est_loops_new(const struct dmd_model *m,
	const struct dmd_poly *p);
struct dmd_est_loops *dmd_search_est_loops_free(struct dmd_est_loops *e);
/* Does the estimate of loop distributions apply to step "p" of "job":
 * every access affine in the index variables with integer coefficients,
 * no tensor with a cyclic layout (partial layouts: see _new)? */
int dmd_search_est_loops_applies(const struct dmd_poly *p,
	const struct dmd_job *job);
/* The estimated figures of loop distribution "c": as dmd_search_est. */
void dmd_search_est_loops(const struct dmd_est_loops *e,
	const struct dmd_est_cand *c, struct dmd_cost_figs *fig);

/* Shared by both: the value of "pa" at mesh coordinates "c" (0 where it
 * is not defined; -1 on error), and the slowest link's latency and
 * seconds per byte. */
int dmd_search_est_eval(const struct dmd_mesh *mesh,
	__isl_keep isl_pw_aff *pa, const long *c, long *v);
void dmd_search_est_link(const struct dmd_job *job, double *lat_s,
	double *byte_s);

/* The figures of the sampled ranks folded as both estimates report
 * them: the slowest rank's modeled time, the busiest receiver's and the
 * largest flops and memory, the sums of elements received and messages
 * (scaled from the sample to the P ranks by dmd_search_est_fold_fig). */
struct dmd_est_fold {
	double tmax, rmax, fmax, mmax, total, msgs;
	double esize, byte_s, lat_s;
};
/* Fold in one sampled rank that receives "recv" elements in "nmsg"
 * messages, computes "flops" and holds "mem" elements. */
void dmd_search_est_fold_rank(struct dmd_est_fold *f, double recv,
	double nmsg, double flops, double mem);
/* Write the folded figures of "ns" sampled ranks of "P" into "fig". */
void dmd_search_est_fold_fig(const struct dmd_est_fold *f, long P, int ns,
	struct dmd_cost_figs *fig);
#endif
