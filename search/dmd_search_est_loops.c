/* dmd_search_est_loops.c: the closed-form estimate of the cost of a loop
 * distribution of a step that is not a matrix product (a stencil, an
 * element-wise step, another contraction), by which the search keeps the
 * few candidates it analyses exactly, as it does for products
 * (search/dmd_search_est.c).
 *
 * A candidate distributes some of the step's index variables over the
 * axes of a view of Q ranks (row-major over ranks 0 .. Q-1, the others
 * idle).  Variable v's loop runs over [Lo, Lo + Ext) (as ir/dmd_poly.c
 * dmd_poly_loop_range makes it) and is cut over an axis of extent p in
 * blocks of ceil(Ext / p), as distribute cuts it; the iterations a rank
 * runs are its blocks intersected with the values v takes (spec 1.3:
 * where every access is in bounds).  Each access is affine in the index
 * variables (A[i + 1, j - 1]), so the box of elements it touches from a
 * box of iterations is interval arithmetic, clipped to the tensor.  Per
 * rank r:
 *   received of a tensor read = |(union of its accesses' boxes) - H_r|
 *     (H_r: the box r holds, read from the model at r's coordinates)
 *   received of the output    = sum over the ranks s that compute a box
 *     W_s of it, s != r: |W_s ∩ H_r| (each partial sum once when a
 *     summed variable is distributed)
 *   flops = the step's operations per iteration x |iterations|
 *   time  = received bytes / bandwidth + messages x latency
 *           + flops / (10 GFLOP/s), the slowest link of the mesh
 * The step's figures are the maxima over the ranks (the totals summed).
 * When the held boxes of a tensor read are a grid of blocks (of the
 * largest held extent per dimension), the rank receives from each block
 * it needs a part of the bounding box of that part (as the transfers
 * move it: the corners of a five-point stencil's halo come along when
 * they share a sender), one message each; else the elements it needs
 * and does not hold, in messages of a held block's size.  Those of the output are the
 * senders counted.  The ranks are sampled as for products (every rank up
 * to DMD_EST_ALL, else DMD_EST_ALL spread evenly).
 *
 * The estimate does not apply (dmd_search_est_loops_new gives NULL and
 * dmd_search_est_loops_applies says no) to accesses that are not affine
 * with integer coefficients, to tensors with cyclic or partial layouts,
 * and to steps of more than DMD_EST_VARS index variables.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/val.h>

#include "search/dmd_search_est.h"

/* Ranks looked at (every rank of a mesh up to this size), as
 * search/dmd_search_est.c. */
#define DMD_EST_ALL	512

/* The most cells of the union of a tensor's boxes counted exactly (else
 * its bounding box), and the most blocks of a grid looked at one by
 * one. */
#define DMD_EST_CELLS	65536
#define DMD_EST_BLOCKS	4096

/* The most accesses of one tensor in a step that are told apart (the
 * others are left out of its union of boxes), and the most index
 * variables of a step the estimate applies to. */
#define DMD_EST_ACC	32
#define DMD_EST_VARS	64

/* An access: tensor[cst + coef . vars] per dimension. */
struct dmd_estl_acc {
	int tensor;			/* index into e->t */
	int nd;
	long *coef;			/* [d * nv + v] */
	long *cst;			/* [d] */
};

/* A tensor of the step: its shape, the box each sampled rank holds, and
 * the grid of its blocks (grid[d]: block size; 0 if the held boxes are
 * not a grid). */
struct dmd_estl_tensor {
	int tensor;			/* in the job */
	int nd;
	long shape[DMD_MAX_DIMS];
	long *lo;			/* [sample * nd + d] */
	long *len;
	long grid[DMD_MAX_DIMS];
	double block;			/* the elements of the largest box */
};

struct dmd_est_loops {
	long P;
	int ns;
	long *rank;			/* the sampled ranks */
	int nv;
	long *Lo, *Ext;			/* the loops before the cut */
	long *rlo, *rhi;		/* the values taken (rlo > rhi: none) */
	int *reduced;
	double ops;			/* per iteration */
	int na;
	struct dmd_estl_acc *acc;	/* acc[0]: the output */
	int nt;
	struct dmd_estl_tensor *t;
	double esize;
	double lat_s, byte_s;
};

/* Release "e"; returns NULL. */
struct dmd_est_loops *dmd_search_est_loops_free(struct dmd_est_loops *e)
{
	int i;

	if (!e)
		return NULL;
	for (i = 0; i < e->na; ++i) {
		free(e->acc[i].coef);
		free(e->acc[i].cst);
	}
	for (i = 0; i < e->nt; ++i) {
		free(e->t[i].lo);
		free(e->t[i].len);
	}
	free(e->acc);
	free(e->t);
	free(e->rank);
	free(e->Lo);
	free(e->Ext);
	free(e->rlo);
	free(e->rhi);
	free(e->reduced);
	free(e);
	return NULL;
}

/* The integer value of "v" (taken) into *out; -1 if it is not an
 * integer. */
static int dmd_estl_int(__isl_take isl_val *v, long *out)
{
	int ok = v && isl_val_is_int(v) == isl_bool_true;

	if (ok)
		*out = isl_val_get_num_si(v);
	isl_val_free(v);
	return ok ? 0 : -1;
}

/* Read access "a" ({ S[vars] -> T[e] }) into "x": each dimension an
 * affine function of the index variables with integer coefficients, no
 * divisions, no parameters.  -1 if it is not such. */
static int dmd_estl_read_acc(const struct dmd_access *a, int nv,
	struct dmd_estl_acc *x)
{
	isl_size nd = isl_multi_aff_size(a->idx);
	int d, v;

	if (nd < 0 || nd > DMD_MAX_DIMS)
		return -1;
	x->nd = nd;
	x->coef = calloc(nd * nv + 1, sizeof(*x->coef));
	x->cst = calloc(nd + 1, sizeof(*x->cst));
	if (!x->coef || !x->cst)
		return -1;
	for (d = 0; d < nd; ++d) {
		isl_aff *aff = isl_multi_aff_get_at(a->idx, d);
		isl_size ndiv = isl_aff_dim(aff, isl_dim_div);
		isl_size nin = isl_aff_dim(aff, isl_dim_in);
		isl_size npar = isl_aff_dim(aff, isl_dim_param);
		isl_val *den = isl_aff_get_denominator_val(aff);
		int ok = ndiv == 0 && nin == nv && npar >= 0 && den &&
			isl_val_is_one(den);
		int k;

		isl_val_free(den);
		for (k = 0; ok && k < npar; ++k) {
			isl_val *c = isl_aff_get_coefficient_val(aff,
				isl_dim_param, k);

			ok = c && isl_val_is_zero(c);
			isl_val_free(c);
		}
		for (v = 0; ok && v < nv; ++v)
			ok = dmd_estl_int(isl_aff_get_coefficient_val(aff,
				isl_dim_in, v), &x->coef[d * nv + v]) == 0;
		if (ok)
			ok = dmd_estl_int(isl_aff_get_constant_val(aff),
				&x->cst[d]) == 0;
		isl_aff_free(aff);
		if (!ok)
			return -1;
	}
	return 0;
}

/* Do the accesses of step "p" allow the estimate (affine, integer
 * coefficients, no divisions), its tensors the estimate's layouts (no
 * cyclic dimension, no partial sums)? */
int dmd_search_est_loops_applies(const struct dmd_poly *p,
	const struct dmd_job *job)
{
	int a, ok = p->n_vars <= DMD_EST_VARS;

	for (a = 0; ok && a < p->n_acc; ++a) {
		struct dmd_estl_acc x = { 0 };
		const struct dmd_tensor *t = &job->tensors[p->acc[a].tensor];

		ok = dmd_estl_read_acc(&p->acc[a], p->n_vars, &x) == 0 &&
			!t->n_cyclic && !t->n_partial && x.nd == t->ndim;
		free(x.coef);
		free(x.cst);
	}
	return ok;
}

/* The tensor of "e" that is job tensor "tensor", added (its held boxes
 * read from "m" at the sampled ranks) if it is not there yet.  -1 on
 * error or a layout the estimate does not handle. */
static int dmd_estl_tensor(struct dmd_est_loops *e,
	const struct dmd_model *m, int tensor)
{
	const struct dmd_layout *lay = m->lay[tensor];
	const struct dmd_tensor *jt = &m->job->tensors[tensor];
	struct dmd_estl_tensor *t;
	long c[DMD_MAX_AXES];
	int i, s, d;

	for (i = 0; i < e->nt; ++i)
		if (e->t[i].tensor == tensor)
			return i;
	if (!lay || lay->n_partial || lay->local || jt->n_cyclic ||
	    jt->ndim > DMD_MAX_DIMS)
		return -1;
	t = &e->t[e->nt];
	memset(t, 0, sizeof(*t));
	t->tensor = tensor;
	t->nd = jt->ndim;
	for (d = 0; d < t->nd; ++d)
		t->shape[d] = jt->shape[d];
	t->lo = calloc(t->nd * e->ns + 1, sizeof(*t->lo));
	t->len = calloc(t->nd * e->ns + 1, sizeof(*t->len));
	e->nt++;
	if (!t->lo || !t->len)
		return -1;
	t->block = 1;
	for (s = 0; s < e->ns; ++s) {
		long r = e->rank[s];
		double sz = 1;

		for (i = m->mesh->n - 1; i >= 0; --i) {
			c[i] = r % m->mesh->shape[i];
			r /= m->mesh->shape[i];
		}
		for (d = 0; d < t->nd; ++d) {
			long *lo = &t->lo[s * t->nd + d];
			long *len = &t->len[s * t->nd + d];

			if (dmd_search_est_eval(m->mesh, lay->lo[d], c, lo) < 0 ||
			    dmd_search_est_eval(m->mesh, lay->ext[d], c,
					len) < 0)
				return -1;
			if (*len < 0)
				*len = 0;
			sz *= *len;
			if (*len > t->grid[d])
				t->grid[d] = *len;
		}
		if (sz > t->block)
			t->block = sz;
	}
	/* a grid: every box is block q of the largest extent, the last
	 * one shorter */
	for (d = 0; d < t->nd; ++d)
		for (s = 0; s < e->ns && t->grid[d]; ++s) {
			long lo = t->lo[s * t->nd + d];
			long len = t->len[s * t->nd + d];

			if (len && (lo % t->grid[d] ||
			    (len != t->grid[d] && lo + len != t->shape[d])))
				t->grid[d] = 0;
		}
	return e->nt - 1;
}

/* The estimate's data for step "p" of "m" (not a matrix product): its
 * loops, accesses and the boxes the declared layouts give the sampled
 * ranks.  NULL on error or where the estimate does not apply. */
struct dmd_est_loops *dmd_search_est_loops_new(const struct dmd_model *m,
	const struct dmd_poly *p)
{
	const struct dmd_job *job = m->job;
	struct dmd_est_loops *e;
	int s, v, a;

	if (!dmd_search_est_loops_applies(p, job))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->P = job->nranks;
	e->ns = e->P <= DMD_EST_ALL ? (int) e->P : DMD_EST_ALL;
	e->rank = calloc(e->ns, sizeof(*e->rank));
	e->nv = p->n_vars;
	e->Lo = calloc(e->nv + 1, sizeof(long));
	e->Ext = calloc(e->nv + 1, sizeof(long));
	e->rlo = calloc(e->nv + 1, sizeof(long));
	e->rhi = calloc(e->nv + 1, sizeof(long));
	e->reduced = calloc(e->nv + 1, sizeof(int));
	e->acc = calloc(p->n_acc + 1, sizeof(*e->acc));
	e->t = calloc(p->n_acc + 1, sizeof(*e->t));
	if (!e->rank || !e->Lo || !e->Ext || !e->rlo || !e->rhi ||
	    !e->reduced || !e->acc || !e->t)
		return dmd_search_est_loops_free(e);
	for (s = 0; s < e->ns; ++s)
		e->rank[s] = e->ns == e->P ? s :
			(long) ((double) s * (e->P - 1) / (e->ns - 1));
	/* the loops as dmd_poly_loop_range makes them */
	for (v = 0; v < e->nv; ++v) {
		const struct dmd_var_range *r = &p->range[v];
		long hi = p->var_extent[v] - 1;

		e->Lo[v] = 0;
		if (!r->empty && r->lo < 0)
			e->Lo[v] = r->lo;
		if (!r->empty && r->hi > hi)
			hi = r->hi;
		e->Ext[v] = hi - e->Lo[v] + 1;
		e->rlo[v] = r->empty ? 1 : r->lo;
		e->rhi[v] = r->empty ? 0 : r->hi;
		e->reduced[v] = p->var_reduced ? p->var_reduced[v] : 0;
	}
	e->ops = dmd_poly_ops(p);
	for (a = 0; a < p->n_acc; ++a) {
		struct dmd_estl_acc *x = &e->acc[a];

		e->na = a + 1;
		if (dmd_estl_read_acc(&p->acc[a], e->nv, x) < 0)
			return dmd_search_est_loops_free(e);
		x->tensor = dmd_estl_tensor(e, m, p->acc[a].tensor);
		if (x->tensor < 0)
			return dmd_search_est_loops_free(e);
	}
	e->esize = job->dtype == DMD_F32 ? 4 : 8;
	dmd_search_est_link(job, &e->lat_s, &e->byte_s);
	return e;
}

/* The iterations of variable v at block q of p blocks (p = 1: all of
 * them): [*lo, *hi] (empty: *lo > *hi). */
static void dmd_estl_iter(const struct dmd_est_loops *e, int v, long p,
	long q, long *lo, long *hi)
{
	long B = (e->Ext[v] + p - 1) / p, a = e->Lo[v] + q * B, b = a + B - 1;

	if (p <= 1)
		a = e->Lo[v], b = e->Lo[v] + e->Ext[v] - 1;
	*lo = a > e->rlo[v] ? a : e->rlo[v];
	*hi = b < e->rhi[v] ? b : e->rhi[v];
}

/* The box of access "x" over the iterations [ilo, ihi] (per variable),
 * clipped to the tensor's shape: [lo, lo + len) per dimension.  Returns
 * its size. */
static double dmd_estl_box(const struct dmd_est_loops *e,
	const struct dmd_estl_acc *x, const long *ilo, const long *ihi,
	long *lo, long *len)
{
	const struct dmd_estl_tensor *t = &e->t[x->tensor];
	double n = 1;
	int d, v;

	for (v = 0; v < e->nv; ++v)
		if (ilo[v] > ihi[v]) {
			for (d = 0; d < x->nd; ++d)
				lo[d] = len[d] = 0;
			return 0;
		}
	for (d = 0; d < x->nd; ++d) {
		long a = x->cst[d], b = x->cst[d];

		for (v = 0; v < e->nv; ++v) {
			long c = x->coef[d * e->nv + v];

			a += c >= 0 ? c * ilo[v] : c * ihi[v];
			b += c >= 0 ? c * ihi[v] : c * ilo[v];
		}
		if (a < 0)
			a = 0;
		if (b > t->shape[d] - 1)
			b = t->shape[d] - 1;
		lo[d] = a;
		len[d] = b >= a ? b - a + 1 : 0;
		n *= len[d];
	}
	return n;
}

/* The overlap of [a, a + n) and [b, b + k). */
static long dmd_estl_meet(long a, long n, long b, long k)
{
	long lo = a > b ? a : b, hi = a + n < b + k ? a + n : b + k;

	return hi > lo ? hi - lo : 0;
}

/* Sort and deduplicate the "n" values "x"; returns how many remain. */
static int dmd_estl_uniq(long *x, int n)
{
	int i, j, k = 0;

	for (i = 1; i < n; ++i)
		for (j = i; j > 0 && x[j - 1] > x[j]; --j) {
			long t = x[j];

			x[j] = x[j - 1];
			x[j - 1] = t;
		}
	for (i = 0; i < n; ++i)
		if (!k || x[k - 1] != x[i])
			x[k++] = x[i];
	return k;
}

/* Of tensor "t" on a grid of blocks (t->grid), at sample "s": what the
 * rank receives of the "nb" boxes (lo, len: [b * nd + d]) it needs, as
 * the transfers move it: from each block of the grid that the boxes
 * meet, the bounding box of what it needs there, less what it holds;
 * the elements into *in, the blocks that send into *msgs.  -1 if the
 * boxes meet more than DMD_EST_BLOCKS blocks. */
static int dmd_estl_recv_grid(const struct dmd_estl_tensor *t, int s,
	int nb, const long *lo, const long *len, double *in, double *msgs)
{
	long q0[DMD_MAX_DIMS], q1[DMD_MAX_DIMS], q[DMD_MAX_DIMS];
	const long *hlo = &t->lo[s * t->nd], *hlen = &t->len[s * t->nd];
	int nd = t->nd, b, d, any = 0;
	double blocks = 1;

	*in = *msgs = 0;
	for (d = 0; d < nd; ++d) {
		long a = -1, z = -1;

		for (b = 0; b < nb; ++b) {
			long l = lo[b * nd + d], n = len[b * nd + d];

			if (!n)
				continue;
			if (a < 0 || l < a)
				a = l;
			if (z < 0 || l + n > z)
				z = l + n;
		}
		if (a < 0)
			return 0;
		q0[d] = q[d] = a / t->grid[d];
		q1[d] = (z - 1) / t->grid[d];
		blocks *= q1[d] - q0[d] + 1;
	}
	if (blocks > DMD_EST_BLOCKS)
		return -1;
	for (;;) {
		long bl[DMD_MAX_DIMS], bh[DMD_MAX_DIMS];
		double vol = 1, have = 1;

		/* the bounding box of the boxes within block q */
		any = 0;
		for (b = 0; b < nb; ++b) {
			long il[DMD_MAX_DIMS], ih[DMD_MAX_DIMS];
			int meets = 1;

			for (d = 0; d < nd && meets; ++d) {
				long gl = q[d] * t->grid[d];
				long gh = gl + t->grid[d];
				long l = lo[b * nd + d];
				long h = l + len[b * nd + d];

				il[d] = l > gl ? l : gl;
				ih[d] = h < gh ? h : gh;
				meets = ih[d] > il[d];
			}
			if (!meets)
				continue;
			for (d = 0; d < nd; ++d) {
				if (!any || il[d] < bl[d])
					bl[d] = il[d];
				if (!any || ih[d] > bh[d])
					bh[d] = ih[d];
			}
			any = 1;
		}
		if (any) {
			for (d = 0; d < nd; ++d) {
				vol *= bh[d] - bl[d];
				have *= dmd_estl_meet(bl[d], bh[d] - bl[d],
					hlo[d], hlen[d]);
			}
			if (vol > have) {
				*in += vol - have;
				*msgs += 1;
			}
		}
		for (d = nd - 1; d >= 0; --d) {
			if (++q[d] <= q1[d])
				break;
			q[d] = q0[d];
		}
		if (d < 0)
			break;
	}
	return 0;
}

/* Of tensor "t" at sample "s": the elements of the union of the "nb"
 * boxes (lo, len: [b * nd + d]) that the rank does not hold, into *in,
 * and the messages they take into *msgs: as dmd_estl_recv_grid on a
 * grid, else by coordinate compression (the cells between the boxes'
 * and the held box's bounds; beyond DMD_EST_CELLS of them, the bounding
 * box), the messages the received elements over a held block. */
static void dmd_estl_recv(const struct dmd_estl_tensor *t, int s, int nb,
	const long *lo, const long *len, double *in, double *msgs)
{
	long cut[DMD_MAX_DIMS][2 * DMD_EST_ACC + 2];
	int ncut[DMD_MAX_DIMS], idx[DMD_MAX_DIMS];
	int b, d, nd = t->nd, k, grid = 1;
	const long *hlo = &t->lo[s * nd], *hlen = &t->len[s * nd];
	double cells = 1;

	for (d = 0; d < nd; ++d)
		grid &= t->grid[d] > 0;
	if (grid && dmd_estl_recv_grid(t, s, nb, lo, len, in, msgs) == 0)
		return;
	*in = *msgs = 0;
	for (d = 0; d < nd; ++d) {
		k = 0;
		for (b = 0; b < nb; ++b) {
			if (!len[b * nd + d])
				continue;
			cut[d][k++] = lo[b * nd + d];
			cut[d][k++] = lo[b * nd + d] + len[b * nd + d];
		}
		cut[d][k++] = hlo[d];
		cut[d][k++] = hlo[d] + hlen[d];
		ncut[d] = dmd_estl_uniq(cut[d], k);
		cells *= ncut[d] - 1 > 0 ? ncut[d] - 1 : 0;
		idx[d] = 0;
	}
	if (cells > DMD_EST_CELLS) {
		/* the bounding box of the boxes, the held part off */
		double need = 1, have = 1;

		for (d = 0; d < nd; ++d) {
			long a = cut[d][0], z = cut[d][ncut[d] - 1];

			need *= z - a;
			have *= dmd_estl_meet(a, z - a, hlo[d], hlen[d]);
		}
		*in = need - have;
	} else if (cells > 0) {
		for (;;) {
			double vol = 1;
			int inside = 0, held = 1;

			/* cell idx: [cut[d][idx[d]], cut[d][idx[d] + 1]) */
			for (b = 0; b < nb && !inside; ++b) {
				inside = 1;
				for (d = 0; d < nd && inside; ++d) {
					long c = cut[d][idx[d]];

					inside = len[b * nd + d] &&
						c >= lo[b * nd + d] &&
						c < lo[b * nd + d] +
							len[b * nd + d];
				}
			}
			for (d = 0; d < nd && held; ++d) {
				long c = cut[d][idx[d]];

				held = c >= hlo[d] && c < hlo[d] + hlen[d];
			}
			if (inside && !held) {
				for (d = 0; d < nd; ++d)
					vol *= cut[d][idx[d] + 1] -
						cut[d][idx[d]];
				*in += vol;
			}
			for (d = nd - 1; d >= 0; --d) {
				if (++idx[d] < ncut[d] - 1)
					break;
				idx[d] = 0;
			}
			if (d < 0)
				break;
		}
	}
	*msgs = *in > 0 ? (double) (long) (*in / t->block + 0.999) : 0;
	if (*in > 0 && *msgs < 1)
		*msgs = 1;
}

/* The block of candidate "c"'s view coordinates "u" along variable v:
 * the extent of its axis in *p and the coordinate in *q (p = 1: not
 * distributed). */
static void dmd_estl_coord(const struct dmd_est_cand *c, const long *u,
	int v, long *p, long *q)
{
	int a;

	*p = 1, *q = 0;
	for (a = 0; a < c->n; ++a)
		if (c->loop[a] == v)
			*p = c->shape[a], *q = u[a];
}

/* What the rank at sample "s" (view coordinates "u", "active": in the
 * view) receives of the output: from every other rank that computes a
 * part of the box it holds.  Elements in *elems, senders in *msgs. */
static void dmd_estl_result(const struct dmd_est_loops *e,
	const struct dmd_est_cand *c, int s, const long *u, int active,
	double *elems, double *msgs)
{
	const struct dmd_estl_acc *x = &e->acc[0];
	const struct dmd_estl_tensor *t = &e->t[x->tensor];
	const long *hlo = &t->lo[s * t->nd], *hlen = &t->len[s * t->nd];
	long q0[3], q1[3], q[3], ilo[DMD_EST_VARS], ihi[DMD_EST_VARS];
	long lo[DMD_MAX_DIMS], len[DMD_MAX_DIMS];
	double kb = 1;
	int a, d, v, own_red = 1;

	*elems = *msgs = 0;
	for (d = 0; d < t->nd; ++d)
		if (hlen[d] <= 0)
			return;
	/* the senders of each element: the nonempty blocks of the summed
	 * variables distributed; the range of blocks of the others that
	 * meets the held box */
	for (a = 0; a < c->n; ++a) {
		long p = c->shape[a], k, n = 0, l, h;

		v = c->loop[a];
		q0[a] = 0, q1[a] = p - 1;
		if (e->reduced[v]) {
			for (k = 0; k < p; ++k) {
				dmd_estl_iter(e, v, p, k, &l, &h);
				n += l <= h;
			}
			kb *= n;
			if (active) {
				dmd_estl_iter(e, v, p, u[a], &l, &h);
				own_red &= l <= h;
			}
			q1[a] = 0;
			continue;
		}
		/* a dimension indexed by v alone, with coefficient +-1 */
		for (d = 0; d < x->nd; ++d) {
			long cf = x->coef[d * e->nv + v], B, vl, vh;
			int alone = cf == 1 || cf == -1, w;

			for (w = 0; w < e->nv && alone; ++w)
				alone = w == v || !x->coef[d * e->nv + w];
			if (!alone)
				continue;
			vl = cf * (hlo[d] - x->cst[d]);
			vh = cf * (hlo[d] + hlen[d] - 1 - x->cst[d]);
			if (vl > vh) {
				long tmp = vl;

				vl = vh, vh = tmp;
			}
			B = (e->Ext[v] + p - 1) / p;
			vl = vl < e->Lo[v] ? 0 : (vl - e->Lo[v]) / B;
			vh = vh < e->Lo[v] ? -1 : (vh - e->Lo[v]) / B;
			if (vl > q0[a])
				q0[a] = vl;
			if (vh < q1[a])
				q1[a] = vh;
		}
		if (q0[a] > q1[a])
			return;
	}
	if (kb <= 0)
		return;
	for (a = 0; a < c->n; ++a)
		q[a] = q0[a];
	for (;;) {
		double ov = 1, senders = kb;
		int mine = active && own_red;

		for (v = 0; v < e->nv; ++v) {
			long p, k;

			dmd_estl_coord(c, q, v, &p, &k);
			if (e->reduced[v])
				p = 1;
			dmd_estl_iter(e, v, p, k, &ilo[v], &ihi[v]);
		}
		for (a = 0; a < c->n; ++a)
			if (!e->reduced[c->loop[a]] && q[a] != u[a])
				mine = 0;
		dmd_estl_box(e, x, ilo, ihi, lo, len);
		for (d = 0; d < t->nd; ++d)
			ov *= dmd_estl_meet(lo[d], len[d], hlo[d], hlen[d]);
		if (mine)
			senders -= 1;
		if (ov > 0 && senders > 0) {
			*elems += senders * ov;
			*msgs += senders;
		}
		for (a = c->n - 1; a >= 0; --a) {
			if (++q[a] <= q1[a])
				break;
			q[a] = q0[a];
		}
		if (a < 0)
			break;
	}
}

/* Estimate candidate "c" (see the file's comment) into "fig". */
void dmd_search_est_loops(const struct dmd_est_loops *e,
	const struct dmd_est_cand *c, struct dmd_cost_figs *fig)
{
	long Q = 1, ilo[DMD_EST_VARS], ihi[DMD_EST_VARS];
	long lo[DMD_EST_ACC * DMD_MAX_DIMS], len[DMD_EST_ACC * DMD_MAX_DIMS];
	struct dmd_est_fold f = { 0, 0, 0, 0, 0, 0, e->esize, e->byte_s,
		e->lat_s };
	int s, a, v, x, d;

	for (a = 0; a < c->n; ++a)
		Q *= c->shape[a];
	for (s = 0; s < e->ns; ++s) {
		long r = e->rank[s], u[3] = { 0, 0, 0 };
		double recv = 0, nmsg = 0, flops = 0, mem = 0, in, m;
		double iters = 1;
		int active = r < Q;

		for (a = c->n - 1; a >= 0 && active; --a) {
			u[a] = r % c->shape[a];
			r /= c->shape[a];
		}
		for (v = 0; v < e->nv; ++v) {
			long p, q;

			dmd_estl_coord(c, u, v, &p, &q);
			dmd_estl_iter(e, v, p, q, &ilo[v], &ihi[v]);
			if (!active)
				ilo[v] = 1, ihi[v] = 0;
			iters *= ihi[v] >= ilo[v] ? ihi[v] - ilo[v] + 1 : 0;
		}
		flops = e->ops * iters;
		/* each tensor read: the union of its accesses' boxes */
		for (x = 0; x < e->nt; ++x) {
			const struct dmd_estl_tensor *t = &e->t[x];
			int nb = 0, k;
			double held = 1;

			for (k = 1; k < e->na; ++k) {
				if (e->acc[k].tensor != x)
					continue;
				if (nb == DMD_EST_ACC)
					break;
				dmd_estl_box(e, &e->acc[k], ilo, ihi,
					&lo[nb * t->nd], &len[nb * t->nd]);
				++nb;
			}
			for (d = 0; d < t->nd; ++d)
				held *= t->len[s * t->nd + d];
			mem += held;
			if (!nb)
				continue;
			dmd_estl_recv(t, s, nb, lo, len, &in, &m);
			recv += in;
			nmsg += m;
			mem += in;
		}
		/* the output: what this rank computes, and receives */
		mem += dmd_estl_box(e, &e->acc[0], ilo, ihi, lo, len);
		dmd_estl_result(e, c, s, u, active, &in, &m);
		recv += in;
		nmsg += m;
		dmd_search_est_fold_rank(&f, recv, nmsg, flops, mem);
	}
	dmd_search_est_fold_fig(&f, e->P, e->ns, fig);
}
