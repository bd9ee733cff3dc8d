/* dmd_search_est.c: the closed-form estimate of a product candidate's
 * cost, by which the search keeps the few candidates it analyses exactly
 * (spec 1.6: "prune with a closed-form estimate, then analyse the few best
 * candidates exactly").
 *
 * For C[i, j] (+)= A * B and a candidate that distributes some of i, j, k
 * over a view of Q ranks (row-major over ranks 0 .. Q-1, the others idle),
 * rank r with view coordinates u needs, of each operand, the box of the
 * loops' blocks (a loop distributed over axis a of extent p: block
 * ceil(E / p), the last ones shorter or empty, as distribute cuts it; a
 * loop not distributed: all of it), and computes the box of C of its i and
 * j blocks (a partial sum when k is distributed).  What rank r holds is
 * the declared layout's box, read from the model (lo, ext at r's mesh
 * coordinates).  Per rank:
 *   received of A, B = |needed box| - |needed box ∩ held box|
 *                      (an operand that a rotated candidate shifts:
 *                      |needed box| - |first panel ∩ held box|, see
 *                      dmd_est_shifted)
 *   received of C    = sum over the other ranks s that compute a box K_s
 *                      of C: |K_s ∩ H_r| (H_r: the box r holds)
 *   flops            = 2 |I_r| |J_r| |K_r|
 *   time             = received bytes / bandwidth + messages x latency
 *                      + flops / (10 GFLOP/s), the slowest link of the mesh
 * and the step's figures are the maxima over the ranks (the total bytes:
 * their sum).  Messages of an operand are estimated as the received
 * elements over the size of a held block; of C, counted.  The ranks are
 * those of the mesh up to DMD_EST_ALL of them, else DMD_EST_ALL ranks
 * spread evenly (with the first and the last): the estimate orders the
 * candidates, the exact analysis gives the figures.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/point.h>
#include <isl/space.h>
#include <isl/val.h>

#include "search/dmd_search_est.h"

/* Ranks looked at (every rank of a mesh up to this size). */
#define DMD_EST_ALL	512

/* The flops per second the cost model assumes (partition/dmd_part_cost.c). */
#define DMD_EST_FLOPS	1e10

/* Of one tensor: the loop (0: i, 1: j, 2: k) each of its two dimensions
 * runs over, and the box each sampled rank holds. */
struct dmd_est_tensor {
	int loop[2];
	long *lo;			/* [sample * 2 + d] */
	long *len;
	double block;			/* the elements of a held block */
};

struct dmd_est {
	long P;
	int ns;
	long *rank;			/* the sampled ranks */
	long E[3];			/* extents of i, j, k */
	struct dmd_est_tensor t[3];	/* A, B, C */
	double esize;
	double lat_s, byte_s;		/* the slowest link */
};

/* Release "e"; returns NULL. */
struct dmd_est *dmd_search_est_free(struct dmd_est *e)
{
	int i;

	if (!e)
		return NULL;
	for (i = 0; i < 3; ++i) {
		free(e->t[i].lo);
		free(e->t[i].len);
	}
	free(e->rank);
	free(e);
	return NULL;
}

/* The value of "pa" ([c] -> { [v] }) at the mesh coordinates "c" (of
 * "m"'s axes); 0 where it is not defined.  -1 on error. */
int dmd_search_est_eval(const struct dmd_mesh *mesh,
	__isl_keep isl_pw_aff *pa, const long *c, long *v)
{
	isl_space *sp = isl_pw_aff_get_domain_space(pa);
	isl_space *all = isl_pw_aff_get_space(pa);
	isl_point *pt;
	isl_val *val;
	int i;

	pt = isl_point_zero(sp);
	for (i = 0; i < mesh->n && pt; ++i) {
		isl_id *id = isl_multi_id_get_at(mesh->ids, i);
		int pos = isl_space_find_dim_by_id(all, isl_dim_param, id);

		isl_id_free(id);
		if (pos < 0)
			continue;
		pt = isl_point_set_coordinate_val(pt, isl_dim_param, pos,
			isl_val_int_from_si(mesh->ctx, c[i]));
	}
	isl_space_free(all);
	if (!pt)
		return -1;
	val = isl_pw_aff_eval(isl_pw_aff_copy(pa), pt);
	if (!val)
		return -1;
	*v = isl_val_is_int(val) ? isl_val_get_num_si(val) : 0;
	isl_val_free(val);
	return 0;
}

/* The loop (0: i, 1: j, 2: k) that access "acc" indexes in dimension d,
 * by the names "iv", "jv", "kv" of the loops. */
static int dmd_est_loop(const struct dmd_expr *acc, int d,
	const char *const names[3])
{
	int l;

	for (l = 0; l < 3; ++l)
		if (!strcmp(acc->args[d]->name, names[l]))
			return l;
	return -1;
}

/* Read the boxes tensor "x" (an access of "p") holds at the sampled
 * ranks of "e". */
static int dmd_est_tensor(struct dmd_est *e, const struct dmd_model *m,
	const struct dmd_expr *acc, const char *const names[3],
	struct dmd_est_tensor *t)
{
	const struct dmd_layout *lay;
	long c[DMD_MAX_AXES];
	int tensor = dmd_job_find_tensor(m->job, acc->name), s, d, i;

	if (tensor < 0)
		return -1;
	lay = m->lay[tensor];
	if (!lay)
		return -1;
	for (d = 0; d < 2; ++d)
		if ((t->loop[d] = dmd_est_loop(acc, d, names)) < 0)
			return -1;
	t->lo = calloc(2 * e->ns, sizeof(*t->lo));
	t->len = calloc(2 * e->ns, sizeof(*t->len));
	if (!t->lo || !t->len)
		return -1;
	t->block = 1;
	for (s = 0; s < e->ns; ++s) {
		long r = e->rank[s];

		for (i = m->mesh->n - 1; i >= 0; --i) {
			c[i] = r % m->mesh->shape[i];
			r /= m->mesh->shape[i];
		}
		for (d = 0; d < 2; ++d)
			if (dmd_search_est_eval(m->mesh, lay->lo[d], c,
					&t->lo[2 * s + d]) < 0 ||
			    dmd_search_est_eval(m->mesh, lay->ext[d], c,
					&t->len[2 * s + d]) < 0)
				return -1;
		if (s == 0 || t->len[2 * s] * t->len[2 * s + 1] > t->block)
			t->block = (double) t->len[2 * s] * t->len[2 * s + 1];
	}
	if (t->block < 1)
		t->block = 1;
	return 0;
}

/* The latency (s) and the seconds per byte of the slowest link of
 * "job"'s mesh (the defaults of partition/dmd_part_cost.c without
 * mesh.links). */
void dmd_search_est_link(const struct dmd_job *job, double *lat_s,
	double *byte_s)
{
	const struct dmd_link *slow = NULL;
	int i;

	for (i = 0; i < job->n_axes; ++i) {
		const struct dmd_link *l = &job->links[i];

		if (!slow || l->gbps < slow->gbps ||
		    (l->gbps == slow->gbps && l->latency_us > slow->latency_us))
			slow = l;
	}
	*lat_s = slow ? slow->latency_us * 1e-6 : 2e-6;
	*byte_s = slow ? 1e-9 / slow->gbps : 1e-10;
}

/* The estimate's data for product step "p" of "m" (C[i, j] = A * B with
 * loops named "iv", "jv", "kv"). */
struct dmd_est *dmd_search_est_new(const struct dmd_model *m,
	const struct dmd_poly *p, const char *iv, const char *jv,
	const char *kv)
{
	const char *names[3] = { iv, jv, kv };
	const struct dmd_job *job = m->job;
	struct dmd_est *e = calloc(1, sizeof(*e));
	int s, v, i;

	if (!e)
		return NULL;
	e->P = job->nranks;
	e->ns = e->P <= DMD_EST_ALL ? (int) e->P : DMD_EST_ALL;
	e->rank = calloc(e->ns, sizeof(*e->rank));
	if (!e->rank)
		return dmd_search_est_free(e);
	for (s = 0; s < e->ns; ++s)
		e->rank[s] = e->ns == e->P ? s :
			(long) ((double) s * (e->P - 1) / (e->ns - 1));
	for (v = 0; v < p->n_vars; ++v)
		for (i = 0; i < 3; ++i)
			if (!strcmp(p->vars[v], names[i]))
				e->E[i] = p->var_extent[v];
	e->esize = job->dtype == DMD_F32 ? 4 : 8;
	dmd_search_est_link(job, &e->lat_s, &e->byte_s);
	if (dmd_est_tensor(e, m, p->st->rhs->args[0], names, &e->t[0]) < 0 ||
	    dmd_est_tensor(e, m, p->st->rhs->args[1], names, &e->t[1]) < 0 ||
	    dmd_est_tensor(e, m, p->st->lhs, names, &e->t[2]) < 0)
		return dmd_search_est_free(e);
	return e;
}

/* The overlap of [a, a + n) and [b, b + k). */
static long dmd_est_meet(long a, long n, long b, long k)
{
	long lo = a > b ? a : b, hi = a + n < b + k ? a + n : b + k;

	return hi > lo ? hi - lo : 0;
}

/* The larger of "a" and "b". */
static double dmd_est_max(double a, double b)
{
	return a > b ? a : b;
}

/* Block q of extent E cut in p blocks: its start and length. */
static void dmd_est_block(long E, long p, long q, long *lo, long *len)
{
	long B = (E + p - 1) / p;

	*lo = q * B;
	*len = *lo >= E ? 0 : (*lo + B > E ? E - *lo : B);
}

/* The interval of loop l at view coordinates "u" of candidate "cand". */
static void dmd_est_interval(const struct dmd_est *e,
	const struct dmd_est_cand *cand, const long *u, int l, long *lo,
	long *len)
{
	int a;

	*lo = 0;
	*len = e->E[l];
	for (a = 0; a < cand->n; ++a)
		if (cand->loop[a] == l)
			dmd_est_block(e->E[l], cand->shape[a], u[a], lo, len);
}

/* What rank at sample "s" receives of C: from every other rank that
 * computes a part of the box it holds.  Elements in *elems, senders in
 * *msgs. */
static void dmd_est_result(const struct dmd_est *e,
	const struct dmd_est_cand *cand, int s, const long *u, int active,
	double *elems, double *msgs)
{
	const struct dmd_est_tensor *t = &e->t[2];
	long nb[2], kb = 1, B[2], q0, q1;
	int a, d, dims[2];

	*elems = *msgs = 0;
	if (t->len[2 * s] <= 0 || t->len[2 * s + 1] <= 0)
		return;
	for (d = 0; d < 2; ++d) {
		long p = 1;

		dims[d] = t->loop[d];
		for (a = 0; a < cand->n; ++a)
			if (cand->loop[a] == dims[d])
				p = cand->shape[a];
		B[d] = (e->E[dims[d]] + p - 1) / p;
		nb[d] = B[d] ? (e->E[dims[d]] + B[d] - 1) / B[d] : 0;
	}
	for (a = 0; a < cand->n; ++a)
		if (cand->loop[a] == 2) {
			long Bk = (e->E[2] + cand->shape[a] - 1) /
				cand->shape[a];

			kb = Bk ? (e->E[2] + Bk - 1) / Bk : 0;
		}
	/* the blocks of C that meet the held box, each computed kb times */
	for (q0 = t->lo[2 * s] / B[0]; q0 < nb[0]; ++q0) {
		long o0 = dmd_est_meet(q0 * B[0], B[0], t->lo[2 * s],
			t->len[2 * s]);

		if (!o0)
			break;
		for (q1 = t->lo[2 * s + 1] / B[1]; q1 < nb[1]; ++q1) {
			long o1 = dmd_est_meet(q1 * B[1], B[1],
				t->lo[2 * s + 1], t->len[2 * s + 1]);
			long senders = kb, lo, len, own = 1;

			if (!o1)
				break;
			/* is rank s one of them? */
			for (d = 0; d < 2 && active; ++d) {
				dmd_est_interval(e, cand, u, dims[d], &lo,
					&len);
				if (lo != (d ? q1 : q0) * B[d] || !len)
					own = 0;
			}
			if (active && own)
				--senders;
			*elems += (double) senders * o0 * o1;
			*msgs += senders;
		}
	}
}

/* Does the operand whose loop besides k is "xl" shift (see the
 * header)? */
int dmd_search_est_shifts(const struct dmd_est_cand *c, int xl)
{
	int a;

	for (a = 0; a < c->n; ++a)
		if (c->loop[a] != xl && c->loop[a] != 2 && (c->rot >> a & 1))
			return 1;
	return 0;
}

/* What operand "t", shifted around a ring by candidate "cand", costs
 * the rank at sample "s" with view coordinates "u", needing the box
 * "lo", "len" of the loops: at the first time point the panel (sum of
 * the rotated coordinates) mod panels, fetched unless held (from about
 * as many holders as it takes held blocks); at each later one the panel
 * its neighbour had, received whole when not empty (dmd_part_cost.c
 * counts a shift so, held or not).  Received elements in *in, messages
 * in *msgs. */
static void dmd_est_shifted(const struct dmd_est_cand *cand,
	const struct dmd_est_tensor *t, int s, const long *u, const long *lo,
	const long *len, double *in, double *msgs)
{
	long L = cand->panels, p0 = 0, klo, klen, t1;
	double need = 1, need0 = 1, have0 = 1;
	int a, d;

	for (a = 0; a < cand->n; ++a)
		if (cand->rot >> a & 1)
			p0 += u[a];
	p0 %= L;
	for (d = 0; d < 2; ++d) {
		int l = t->loop[d];
		long plo = lo[l], plen = len[l];

		if (l == 2) {
			dmd_est_block(len[2], L, p0, &klo, &klen);
			plo = lo[2] + klo;
			plen = klen;
		}
		need *= len[l];
		need0 *= plen;
		have0 *= dmd_est_meet(plo, plen, t->lo[2 * s + d],
			t->len[2 * s + d]);
	}
	*in = need - have0;
	*msgs = 0;
	if (need0 > have0)
		*msgs = dmd_est_max(1, (double) (long) ((need0 - have0) /
			t->block + 0.999));
	for (t1 = 1; t1 < L; ++t1) {
		dmd_est_block(len[2], L, (t1 + p0) % L, &klo, &klen);
		if (klen > 0 && need > 0)
			*msgs += 1;
	}
}

/* The view coordinates "u" of the rank at sample "s" for candidate
 * "cand" (over the first Q ranks) and the intervals "lo", "len" of the
 * loops it runs (empty for an idle rank).  Is it active? */
static int dmd_est_coords(const struct dmd_est *e,
	const struct dmd_est_cand *cand, int s, long Q, long *u, long *lo,
	long *len)
{
	long r = e->rank[s];
	int active = r < Q, a, d;

	for (a = 0; a < 3; ++a)
		u[a] = 0;
	for (a = cand->n - 1; a >= 0 && active; --a) {
		u[a] = r % cand->shape[a];
		r /= cand->shape[a];
	}
	for (d = 0; d < 3; ++d) {
		if (active)
			dmd_est_interval(e, cand, u, d, &lo[d], &len[d]);
		else
			lo[d] = len[d] = 0;
	}
	return active;
}

/* Does every sampled rank hold all it needs of operand "t" with
 * candidate "cand"?  Then its transfer is local (dmd_part_plan.c tries
 * that before a shift): a rotation shifts nothing. */
static int dmd_est_local(const struct dmd_est *e,
	const struct dmd_est_cand *cand, const struct dmd_est_tensor *t,
	long Q)
{
	long u[3], lo[3], len[3];
	int s, d;

	for (s = 0; s < e->ns; ++s) {
		double need = 1, have = 1;

		if (!dmd_est_coords(e, cand, s, Q, u, lo, len))
			continue;
		for (d = 0; d < 2; ++d) {
			int l = t->loop[d];

			need *= len[l];
			have *= dmd_est_meet(lo[l], len[l], t->lo[2 * s + d],
				t->len[2 * s + d]);
		}
		if (have < need)
			return 0;
	}
	return 1;
}

/* Fold one sampled rank into "f" (see the header). */
void dmd_search_est_fold_rank(struct dmd_est_fold *f, double recv,
	double nmsg, double flops, double mem)
{
	double t = recv * f->esize * f->byte_s + nmsg * f->lat_s +
		flops / DMD_EST_FLOPS;

	if (t > f->tmax)
		f->tmax = t;
	if (recv > f->rmax)
		f->rmax = recv;
	if (flops > f->fmax)
		f->fmax = flops;
	if (mem > f->mmax)
		f->mmax = mem;
	f->total += recv;
	f->msgs += nmsg;
}

/* The folded figures of "ns" of "P" ranks into "fig" (see the header). */
void dmd_search_est_fold_fig(const struct dmd_est_fold *f, long P, int ns,
	struct dmd_cost_figs *fig)
{
	memset(fig, 0, sizeof(*fig));
	fig->time_s = f->tmax;
	fig->bytes_recv_max = (long long) (f->rmax * f->esize);
	fig->bytes_moved_total = (long long) (f->total * f->esize *
		((double) P / ns));
	fig->messages = (long long) (f->msgs * ((double) P / ns));
	fig->flops_max = (long long) f->fmax;
	fig->mem_max = (long long) (f->mmax * f->esize);
}

/* Estimate candidate "cand" (see the file's comment) into "fig". */
void dmd_search_est(const struct dmd_est *e, const struct dmd_est_cand *cand,
	struct dmd_cost_figs *fig)
{
	long Q = 1;
	struct dmd_est_fold f = { 0, 0, 0, 0, 0, 0, e->esize, e->byte_s,
		e->lat_s };
	int s, a, x, d, local[2] = { 1, 1 };

	for (a = 0; a < cand->n; ++a)
		Q *= cand->shape[a];
	for (x = 0; x < 2 && cand->rot; ++x)
		local[x] = dmd_est_local(e, cand, &e->t[x], Q);
	for (s = 0; s < e->ns; ++s) {
		long u[3], lo[3], len[3];
		double recv = 0, nmsg = 0, flops, ce, cm, mem = 0;
		int active = dmd_est_coords(e, cand, s, Q, u, lo, len);
		/* the operands */
		for (x = 0; x < 2; ++x) {
			const struct dmd_est_tensor *t = &e->t[x];
			double need = 1, have = 1, in;
			int shifted;

			for (d = 0; d < 2; ++d) {
				int l = t->loop[d];

				need *= len[l];
				have *= dmd_est_meet(lo[l], len[l],
					t->lo[2 * s + d], t->len[2 * s + d]);
			}
			in = need - have;
			shifted = active && cand->rot && !local[x] &&
				dmd_search_est_shifts(cand, t->loop[0] == 2 ?
					t->loop[1] : t->loop[0]);
			if (shifted) {
				double sm;

				dmd_est_shifted(cand, t, s, u, lo, len, &in,
					&sm);
				nmsg += sm;
			} else if (in > 0)
				/* from about as many holders as it takes
				 * blocks; a panel at a time with SUMMA */
				nmsg += dmd_est_max(dmd_est_max(1,
					(double) (long) (in / t->block +
						0.999)), cand->panels);
			recv += in;
			/* in panels, two at a time (the next one received
			 * while the last is multiplied), as the runtime
			 * holds them */
			mem += cand->panels > 2 ? need * 2 / cand->panels :
				need;
		}
		dmd_est_result(e, cand, s, u, active, &ce, &cm);
		recv += ce;
		nmsg += cm;
		flops = 2.0 * len[0] * len[1] * len[2];
		mem += (double) len[0] * len[1];
		for (x = 0; x < 3; ++x)
			mem += (double) e->t[x].len[2 * s] *
				e->t[x].len[2 * s + 1];
		dmd_search_est_fold_rank(&f, recv, nmsg, flops, mem);
	}
	dmd_search_est_fold_fig(&f, e->P, e->ns, fig);
}
