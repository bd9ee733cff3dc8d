/* dmd_part_comm.c: what each rank needs at each communication point, from
 * whom, and in which pattern; and the boxes of the GEMM leaf.
 *
 * For communicate(A, kor) in PUMMA on a 2x2 mesh:
 *   need  [x, y] -> { X0[kor] -> A[i, k] : 32x <= i < 32x + 32 and
 *                     48((kor + y) mod 2) <= k < ... }
 * need(r, kor + 1) = need(r + e_y, kor): a ring shift along y.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/val.h>
#include <isl/id.h>

#include "dmd_model.h"

/* Parameter names into set dimensions and back: the rank becomes
 * explicit. [x, y] -> { X[t] -> A[e] } becomes { [x, y, t] -> A[e] }. */
static __isl_give isl_map *params_to_in(__isl_take isl_map *map, int n)
{
	map = isl_map_move_dims(map, isl_dim_in, 0, isl_dim_param, 0, n);
	map = isl_map_reset_tuple_id(map, isl_dim_in);
	return map;
}

/* The time range of the first "len" time loops over all ranks, as a set
 * named "name" that does not depend on the rank. */
static __isl_give isl_set *time_range(struct dmd_model *m, int len,
	const char *name)
{
	isl_set *r;
	int np = m->job->n_axes;

	r = isl_map_range(isl_map_copy(m->rsched));
	r = isl_set_project_out(r, isl_dim_set, len, m->n_time - len);
	r = isl_set_move_dims(r, isl_dim_set, 0, isl_dim_param, 0, np);
	r = isl_set_project_out(r, isl_dim_set, 0, np);
	r = isl_set_set_tuple_name(r, name);
	r = isl_set_align_params(r, isl_set_get_space(m->mesh));
	r = isl_set_intersect_params(r, isl_set_copy(m->mesh));
	return isl_set_coalesce(r);
}

/* What each rank reads of tensor "ti" in each iteration of the first
 * "len" time loops: [x, y] -> { name[t] -> T[e] }. */
static __isl_give isl_map *need_map(struct dmd_model *m, int ti, int len,
	const char *name)
{
	isl_map *rev, *acc = NULL;
	int a;

	for (a = 1; a < m->n_acc; ++a) {
		if (m->acc[a].tensor != ti)
			continue;
		if (!acc)
			acc = isl_map_copy(m->acc[a].map);
		else
			acc = isl_map_union(acc, isl_map_copy(m->acc[a].map));
	}
	if (!acc)
		return NULL;
	rev = isl_map_reverse(isl_map_copy(m->rsched));
	rev = isl_map_project_out(rev, isl_dim_in, len, m->n_time - len);
	rev = isl_map_apply_range(rev, acc);
	rev = isl_map_set_tuple_name(rev, isl_dim_in, name);
	return isl_map_coalesce(rev);
}

/* Box origins and extents of "map" { X[t] -> T[e] } per output dim. */
static void box_of(__isl_keep isl_map *map, int n, isl_pw_aff **lo,
	isl_pw_aff **ext)
{
	int d;

	for (d = 0; d < n; ++d) {
		isl_pw_aff *mn = isl_map_dim_min(isl_map_copy(map), d);
		isl_pw_aff *mx = isl_map_dim_max(isl_map_copy(map), d);
		ext[d] = dmd_pw_aff_add_one(isl_pw_aff_sub(mx, isl_pw_aff_copy(mn)));
		ext[d] = isl_pw_aff_coalesce(ext[d]);
		lo[d] = isl_pw_aff_coalesce(mn);
	}
}

/* { X[t] -> T[e] : e held by this rank } */
static __isl_give isl_map *held_from(struct dmd_model *m, int ti,
	__isl_keep isl_set *dom)
{
	isl_set *u = isl_set_universe(isl_set_get_space(dom));
	return isl_map_from_domain_and_range(u,
		isl_set_copy(m->dist[ti].held));
}

/* Does "pa" depend on mesh coordinate "axis" (once the mesh bounds are
 * known)? */
static int involves_param(struct dmd_model *m, __isl_keep isl_pw_aff *pa,
	int axis)
{
	isl_pw_aff *g;
	isl_bool r;

	g = isl_pw_aff_gist_params(isl_pw_aff_copy(pa), isl_set_copy(m->mesh));
	g = isl_pw_aff_coalesce(g);
	r = isl_pw_aff_involves_dims(g, isl_dim_param, axis, 1);
	isl_pw_aff_free(g);
	return r != isl_bool_false;
}

/* Broadcast along "axis": the need does not depend on the coordinate
 * along the axis, and one rank of the axis group (the same coordinates
 * elsewhere) holds all of it.  Sets x->root. */
static int try_bcast(struct dmd_model *m, struct dmd_xfer *x, int axis)
{
	int ti = x->tensor, nd = m->job->tensors[ti].ndim, d, i, np;
	isl_multi_pw_aff *lo;
	isl_map *root, *rholds, *cover;
	isl_pw_multi_aff *pma;
	isl_pw_aff *pa;
	isl_bool sub;
	char *s, *p;
	size_t len = 0;

	isl_map *group;
	isl_pw_aff *glo[DMD_MAX_DIMS], *gext[DMD_MAX_DIMS];

	np = m->job->n_axes;
	if (nd == 0)
		return 0;
	/* what the whole axis group needs; each rank that needs anything
	 * must need all of it (ranks with empty shards receive it anyway) */
	group = isl_map_eliminate(isl_map_copy(x->need), isl_dim_param, axis,
		1);
	group = isl_map_intersect_params(group, isl_set_copy(m->mesh));
	group = isl_map_coalesce(group);
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(x->need)));
	sub = isl_map_is_subset(cover, x->need);
	isl_map_free(cover);
	if (sub != isl_bool_true) {
		isl_map_free(group);
		return 0;
	}
	box_of(group, nd, glo, gext);
	for (d = 0; d < nd; ++d)
		if (involves_param(m, glo[d], axis) ||
		    involves_param(m, gext[d], axis))
			sub = isl_bool_false;
	if (sub != isl_bool_true) {
		for (d = 0; d < nd; ++d) {
			isl_pw_aff_free(glo[d]);
			isl_pw_aff_free(gext[d]);
		}
		isl_map_free(group);
		return 0;
	}
	/* the holder of the box origin within the group */
	lo = isl_multi_pw_aff_from_pw_aff(isl_pw_aff_copy(glo[0]));
	for (d = 1; d < nd; ++d)
		lo = isl_multi_pw_aff_flat_range_product(lo,
			isl_multi_pw_aff_from_pw_aff(
				isl_pw_aff_copy(glo[d])));
	root = isl_map_from_multi_pw_aff(lo);
	root = isl_map_set_tuple_name(root, isl_dim_out,
		m->job->tensors[ti].name);
	root = isl_map_apply_range(root,
		isl_map_reverse(isl_map_copy(m->dist[ti].holds)));
	/* same coordinates along the other axes */
	s = malloc(1024);
	p = s;
	len += sprintf(p + len, "%s -> { R[", dmd_model_params(m));
	for (i = 0; i < np; ++i)
		len += sprintf(p + len, "%sr%d", i ? ", " : "", i);
	len += sprintf(p + len, "] : true");
	for (i = 0; i < np; ++i)
		if (i != axis)
			len += sprintf(p + len, " and r%d = %s", i,
				m->job->axes[i]);
	sprintf(p + len, " }");
	root = isl_map_intersect_range(root, isl_set_read_from_str(m->ctx, s));
	free(s);
	root = isl_map_lexmin(root);
	/* every element needed must be held by the root */
	rholds = isl_map_apply_range(isl_map_copy(root),
		isl_map_copy(m->dist[ti].holds));
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(root)));
	sub = isl_map_is_subset(cover, rholds);

	isl_map_free(cover);
	isl_map_free(rholds);
	/* the root must be found wherever something is needed */
	if (sub == isl_bool_true) {
		isl_set *nd_dom = isl_map_domain(isl_map_copy(group));
		isl_set *rd = isl_map_domain(isl_map_copy(root));
		sub = isl_set_is_subset(nd_dom, rd);
		isl_set_free(nd_dom);
		isl_set_free(rd);
	}
	isl_map_free(group);
	if (sub != isl_bool_true) {
		isl_map_free(root);
		for (d = 0; d < nd; ++d) {
			isl_pw_aff_free(glo[d]);
			isl_pw_aff_free(gext[d]);
		}
		return 0;
	}
	pma = isl_pw_multi_aff_from_map(root);
	pa = isl_pw_multi_aff_get_pw_aff(pma, axis);
	isl_pw_multi_aff_free(pma);
	pa = isl_pw_aff_coalesce(isl_pw_aff_gist_params(pa,
		isl_set_copy(m->mesh)));
	if (involves_param(m, pa, axis)) {
		isl_pw_aff_free(pa);
		for (d = 0; d < nd; ++d) {
			isl_pw_aff_free(glo[d]);
			isl_pw_aff_free(gext[d]);
		}
		return 0;
	}
	/* the broadcast box is the group's */
	for (d = 0; d < nd; ++d) {
		isl_pw_aff_free(x->need_lo[d]);
		isl_pw_aff_free(x->need_ext[d]);
		x->need_lo[d] = glo[d];
		x->need_ext[d] = gext[d];
	}
	x->kind = DMD_XFER_BCAST;
	x->axis = axis;
	x->root = pa;
	return 1;
}

/* Ring shift along "axis" by "disp": for every step but the first,
 * need(r, t + e_level) = need(r + disp e_axis mod P, t). */
static int try_shift(struct dmd_model *m, struct dmd_xfer *x, int axis,
	int disp)
{
	int np = m->job->n_axes, len = x->level + 1, i;
	isl_map *needr, *next, *nb;
	isl_set *dom;
	isl_multi_aff *f, *step;
	char s[2048];
	size_t n = 0;
	isl_bool eq;

	if (x->level < 0)
		return 0;
	needr = params_to_in(isl_map_copy(x->need), np);
	/* r, t -> r, t + e_level */
	n = sprintf(s, "{ [");
	for (i = 0; i < np + len; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	n += sprintf(s + n, "] -> [");
	for (i = 0; i < np + len; ++i)
		n += sprintf(s + n, "%sa%d%s", i ? ", " : "", i,
			i == np + len - 1 ? " + 1" : "");
	sprintf(s + n, "] }");
	step = isl_multi_aff_read_from_str(m->ctx, s);
	next = isl_map_preimage_domain_multi_aff(isl_map_copy(needr),
		isl_multi_aff_copy(step));
	/* r, t -> r + disp e_axis mod P, t */
	n = sprintf(s, "{ [");
	for (i = 0; i < np + len; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	n += sprintf(s + n, "] -> [");
	for (i = 0; i < np + len; ++i) {
		if (i == axis)
			n += sprintf(s + n, "%s(a%d + %d) mod %ld",
				i ? ", " : "", i, disp + (int)
				m->job->mesh_shape[axis],
				m->job->mesh_shape[axis]);
		else
			n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	}
	sprintf(s + n, "] }");
	f = isl_multi_aff_read_from_str(m->ctx, s);
	nb = isl_map_preimage_domain_multi_aff(needr, f);
	/* compare where t and t + e_level are both in the time range */
	{
		isl_set *d0 = isl_set_copy(x->dom), *d1;
		d0 = isl_set_move_dims(d0, isl_dim_set, 0, isl_dim_param, 0,
			np);
		d0 = isl_set_reset_tuple_id(d0);
		d1 = isl_set_preimage_multi_aff(isl_set_copy(d0),
			isl_multi_aff_copy(step));
		dom = isl_set_intersect(d0, d1);
	}
	next = isl_map_intersect_domain(next, isl_set_copy(dom));
	nb = isl_map_intersect_domain(nb, dom);
	isl_multi_aff_free(step);
	eq = isl_map_is_equal(next, nb);
	isl_map_free(next);
	isl_map_free(nb);
	if (eq != isl_bool_true)
		return 0;
	x->kind = DMD_XFER_SHIFT;
	x->axis = axis;
	x->disp = disp;
	return 1;
}

/* Name the first n input dims of "map" after the mesh axes and move them
 * to the parameters. */
static __isl_give isl_map *in_to_params(struct dmd_model *m,
	__isl_take isl_map *map, int first)
{
	int i, np = m->job->n_axes;

	for (i = 0; i < np; ++i)
		map = isl_map_set_dim_name(map, isl_dim_in, first + i,
			m->job->axes[i]);
	map = isl_map_move_dims(map, isl_dim_param, 0, isl_dim_in, first, np);
	map = isl_map_align_params(map, isl_set_get_space(m->mesh));
	return map;
}

/* The general transfer: each element the rank needs (restricted to
 * "need") comes from one holder, chosen as the rank itself if it holds
 * it, else the holder that shares the most leading coordinates, else the
 * lexicographically first.  Pieces are grouped per (receiver, sender). */
static struct dmd_p2p *split_pieces(struct dmd_model *m, struct dmd_xfer *x,
	__isl_take isl_map *pieces);

/* Each piece { [r, t, s] -> T[e] } travels as its box (its hull in each
 * dimension).  That is right when the sender holds the whole box (extra
 * elements are copies of the same values); check it:
 *   { [r, t, s] -> e : lo <= e <= hi } is a subset of { [r, t, s] -> e :
 *   e held by s }. */
static int check_piece_boxes(struct dmd_model *m, struct dmd_xfer *x,
	__isl_keep isl_map *pieces)
{
	int np = m->job->n_axes, len = x->level + 1, nd, d, i;
	isl_multi_pw_aff *lo, *hi;
	isl_map *box, *sender, *held;
	isl_bool ok;
	char s[2048];
	size_t n;

	nd = m->job->tensors[x->tensor].ndim;
	if (nd == 0)
		return 0;
	lo = isl_multi_pw_aff_from_pw_aff(isl_map_dim_min(
		isl_map_copy(pieces), 0));
	hi = isl_multi_pw_aff_from_pw_aff(isl_map_dim_max(
		isl_map_copy(pieces), 0));
	for (d = 1; d < nd; ++d) {
		lo = isl_multi_pw_aff_flat_range_product(lo,
			isl_multi_pw_aff_from_pw_aff(isl_map_dim_min(
				isl_map_copy(pieces), d)));
		hi = isl_multi_pw_aff_flat_range_product(hi,
			isl_multi_pw_aff_from_pw_aff(isl_map_dim_max(
				isl_map_copy(pieces), d)));
	}
	lo = isl_multi_pw_aff_set_tuple_name(lo, isl_dim_out,
		m->job->tensors[x->tensor].name);
	hi = isl_multi_pw_aff_set_tuple_name(hi, isl_dim_out,
		m->job->tensors[x->tensor].name);
	box = isl_map_from_domain_and_range(
		isl_map_domain(isl_map_copy(pieces)),
		isl_set_universe(isl_space_range(isl_map_get_space(pieces))));
	box = isl_map_lower_bound_multi_pw_aff(box, lo);
	box = isl_map_upper_bound_multi_pw_aff(box, hi);
	n = sprintf(s, "{ [");
	for (i = 0; i < 2 * np + len; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	n += sprintf(s + n, "] -> R[");
	for (i = 0; i < np; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", np + len + i);
	sprintf(s + n, "] }");
	sender = isl_map_read_from_str(m->ctx, s);
	held = isl_map_apply_range(sender, isl_map_copy(m->dist[x->tensor].holds));
	ok = isl_map_is_subset(box, held);
	isl_map_free(box);
	isl_map_free(held);
	if (ok == isl_bool_true)
		return 0;
	if (ok == isl_bool_false)
		dmd_job_error(m->job, m->st->compute_loc, "the pieces of "
			"tensor '%s' that ranks exchange are not boxes held by "
			"one rank each; this distribution is not supported",
			m->job->tensors[x->tensor].name);
	return -1;
}

static struct dmd_p2p *build_p2p(struct dmd_model *m, struct dmd_xfer *x,
	__isl_take isl_map *need)
{
	int np = m->job->n_axes, len = x->level + 1, nd, i;
	int ti = x->tensor;
	isl_map *needr, *c, *pref, *pieces;
	char s[2048];
	size_t n;

	nd = m->job->tensors[ti].ndim;
	needr = params_to_in(need, np);
	/* { [[r, t] -> T[e]] -> R[s] } */
	c = isl_map_range_map(needr);
	c = isl_map_apply_range(c,
		isl_map_reverse(isl_map_copy(m->dist[ti].holds)));
	/* preferences: s = r, then s_a = r_a for each axis */
	for (i = -1; i < np; ++i) {
		isl_map *eq;
		isl_set *dom;
		int j;
		n = sprintf(s, "{ [[");
		for (j = 0; j < np + len; ++j)
			n += sprintf(s + n, "%sa%d", j ? ", " : "", j);
		n += sprintf(s + n, "] -> %s[", m->job->tensors[ti].name);
		for (j = 0; j < nd; ++j)
			n += sprintf(s + n, "%se%d", j ? ", " : "", j);
		n += sprintf(s + n, "]] -> R[");
		for (j = 0; j < np; ++j)
			n += sprintf(s + n, "%ss%d", j ? ", " : "", j);
		n += sprintf(s + n, "] : true");
		for (j = 0; j < np; ++j)
			if (i < 0 || j == i)
				n += sprintf(s + n, " and s%d = a%d", j, j);
		sprintf(s + n, " }");
		eq = isl_map_read_from_str(m->ctx, s);
		eq = isl_map_intersect(isl_map_copy(c), eq);
		dom = isl_map_domain(isl_map_copy(eq));
		c = isl_map_subtract_domain(c, dom);
		c = isl_map_union(c, eq);
	}
	c = isl_map_lexmin(c);
	/* { [r, t, s] -> T[e] } */
	pref = isl_map_curry(c);
	pref = isl_map_range_reverse(pref);
	pref = isl_map_uncurry(pref);
	pieces = isl_map_flatten_domain(pref);
	pieces = isl_map_coalesce(pieces);
	if (check_piece_boxes(m, x, pieces) < 0) {
		isl_map_free(pieces);
		return NULL;
	}
	return split_pieces(m, x, pieces);
}

/* The points of name[t0..t_{len-1}, p...] whose peer p is the rank
 * itself: [x, y] -> { name[a0, a1, a2, a3] : a2 = x and a3 = y }. */
static __isl_give isl_set *peer_is_me(struct dmd_model *m, const char *name,
	int len)
{
	int np = m->job->n_axes, i;
	char s[2048];
	size_t n;

	n = sprintf(s, "%s -> { %s[", dmd_model_params(m), name);
	for (i = 0; i < len + np; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	n += sprintf(s + n, "] : ");
	for (i = 0; i < np; ++i)
		n += sprintf(s + n, "%sa%d = %s", i ? " and " : "", len + i,
			m->job->axes[i]);
	sprintf(s + n, " }");
	return isl_set_read_from_str(m->ctx, s);
}

/* Split the pieces { [r, t, s] -> T[e] } (receiver r gets e from sender
 * s at time t) into what each rank receives, copies from itself, and
 * sends, each over the parameters (the rank itself) and its peers. */
static struct dmd_p2p *split_pieces(struct dmd_model *m, struct dmd_xfer *x,
	__isl_take isl_map *pieces)
{
	int np = m->job->n_axes, len = x->level + 1, nd, i;
	isl_map *recv, *send, *self;
	struct dmd_p2p *p;
	char s[2048];
	size_t n;

	nd = m->job->tensors[x->tensor].ndim;
	p = calloc(1, sizeof(*p));
	/* receiver's view: r -> params; { X_recv[t, s] -> T[e] } */
	recv = in_to_params(m, isl_map_copy(pieces), 0);
	{
		isl_set *me = peer_is_me(m, "", len);
		self = isl_map_intersect_domain(isl_map_copy(recv),
			isl_set_copy(me));
		recv = isl_map_subtract_domain(recv, me);
	}
	self = isl_map_project_out(self, isl_dim_in, len, np);
	recv = isl_map_set_tuple_name(recv, isl_dim_in, "recv");
	self = isl_map_set_tuple_name(self, isl_dim_in, "self");
	recv = isl_map_coalesce(recv);
	self = isl_map_coalesce(self);
	p->recv_dom = isl_map_domain(isl_map_copy(recv));
	p->self_dom = isl_map_domain(isl_map_copy(self));
	box_of(recv, nd, p->recv_lo, p->recv_ext);
	box_of(self, nd, p->self_lo, p->self_ext);
	isl_map_free(recv);
	isl_map_free(self);

	/* sender's view: s -> params, excluding r = s; { X_send[t, r] } */
	send = in_to_params(m, pieces, np + len);
	/* now { [r, t] -> e }: move r after t */
	{
		isl_map *perm;
		n = sprintf(s, "{ [");
		for (i = 0; i < np + len; ++i)
			n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
		n += sprintf(s + n, "] -> send[");
		for (i = 0; i < len; ++i)
			n += sprintf(s + n, "%sa%d", i ? ", " : "", np + i);
		for (i = 0; i < np; ++i)
			n += sprintf(s + n, "%sa%d", i || len ? ", " : "", i);
		sprintf(s + n, "] }");
		perm = isl_map_read_from_str(m->ctx, s);
		send = isl_map_apply_domain(send, perm);
	}
	send = isl_map_subtract_domain(send, peer_is_me(m, "send", len));
	send = isl_map_coalesce(send);
	p->send_dom = isl_map_domain(isl_map_copy(send));
	box_of(send, nd, p->send_lo, p->send_ext);
	isl_map_free(send);
	if (!p->recv_dom || !p->send_dom || !p->self_dom) {
		free(p);
		return NULL;
	}
	return p;
}

/* The return of the output: elements a rank computes but does not hold
 * (or holds with other replicas) are summed onto every holder after the
 * computation.  The pieces are { [h, r] -> O[e] }: holder h receives from
 * contributor r the elements r writes and h holds. */
static int analyse_return(struct dmd_model *m, int idx)
{
	int ti = m->out_tensor, nd = m->job->tensors[ti].ndim, np;
	isl_set *written;
	isl_map *w, *a, *b, *pieces;
	struct dmd_xfer *x;
	isl_bool local;

	written = isl_set_apply(isl_map_domain(isl_map_copy(m->rsched)),
		isl_map_copy(m->acc[0].map));
	written = isl_set_coalesce(written);
	local = isl_set_is_subset(written, m->dist[ti].held);
	if (local == isl_bool_true) {
		/* and every iteration writing an element this rank holds is
		 * executed here (no split reduction) */
		isl_set *mine = isl_set_apply(isl_set_copy(m->dist[ti].held),
			isl_map_reverse(isl_map_copy(m->acc[0].map)));
		isl_set *done = isl_map_domain(isl_map_copy(m->rsched));
		local = isl_set_is_subset(mine, done);
		isl_set_free(mine);
		isl_set_free(done);
	}
	if (local != isl_bool_false) {
		isl_set_free(written);
		return local < 0 ? -1 : 0;
	}
	/* replicas of the output each end with the full value */
	m->xfer = realloc(m->xfer, (m->n_xfer + 1) * sizeof(*m->xfer));
	x = &m->xfer[m->n_xfer++];
	memset(x, 0, sizeof(*x));
	x->tensor = ti;
	x->level = -1;
	x->kind = DMD_XFER_RETURN;
	x->name = dmd_strdup_printf("X%d", idx);
	x->dom = time_range(m, 0, x->name);
	x->need = isl_map_from_domain_and_range(isl_set_universe(
		isl_set_get_space(x->dom)), written);
	box_of(x->need, nd, x->need_lo, x->need_ext);
	np = m->job->n_axes;
	w = params_to_in(isl_map_copy(x->need), np);
	a = isl_map_reverse(isl_map_copy(m->dist[ti].holds));
	b = isl_map_reverse(w);
	pieces = isl_map_range_product(a, b);
	pieces = isl_map_flatten_domain(isl_map_reverse(pieces));
	x->p2p = split_pieces(m, x, isl_map_coalesce(pieces));
	return x->p2p ? 0 : -1;
}

/* Analyse the transfer of tensor "ti" at time level "level". */
static int analyse_xfer(struct dmd_model *m, int ti, int level, int idx)
{
	struct dmd_xfer *x;
	int nd = m->job->tensors[ti].ndim, a, d;
	isl_map *h;
	isl_bool local;

	m->xfer = realloc(m->xfer, (m->n_xfer + 1) * sizeof(*m->xfer));
	x = &m->xfer[m->n_xfer++];
	memset(x, 0, sizeof(*x));
	x->tensor = ti;
	x->level = level;
	x->name = dmd_strdup_printf("X%d", idx);
	x->dom = time_range(m, level + 1, x->name);
	x->need = need_map(m, ti, level + 1, x->name);
	if (!x->dom || !x->need)
		return -1;
	box_of(x->need, nd, x->need_lo, x->need_ext);
	for (d = 0; d < nd; ++d)
		x->alloc[d] = dmd_pw_aff_max(x->need_ext[d], NULL);

	h = held_from(m, ti, x->dom);
	local = isl_map_is_subset(x->need, h);
	isl_map_free(h);
	if (local < 0)
		return -1;
	if (local) {
		x->kind = DMD_XFER_LOCAL;
		return 0;
	}
	for (a = 0; a < m->job->n_axes; ++a)
		if (try_bcast(m, x, a))
			return 0;
	for (a = 0; a < m->job->n_axes; ++a)
		if (try_shift(m, x, a, 1) || try_shift(m, x, a, -1))
			break;
	if (x->kind == DMD_XFER_SHIFT) {
		/* the first step: local, or fetched point to point */
		isl_set *first = isl_set_lexmin(isl_set_copy(x->dom));
		isl_val *v = isl_set_dim_min_val(isl_set_copy(x->dom),
			x->level);
		isl_map *n0;
		char s[512];
		int i;
		size_t n = 0;

		isl_set_free(first);
		n = sprintf(s, "%s -> { %s[", dmd_model_params(m), x->name);
		for (i = 0; i <= x->level; ++i)
			n += sprintf(s + n, "%st%d", i ? ", " : "", i);
		sprintf(s + n, "] : t%d = %ld }", x->level,
			isl_val_get_num_si(v));
		isl_val_free(v);
		n0 = isl_map_intersect_domain(isl_map_copy(x->need),
			isl_set_read_from_str(m->ctx, s));
		h = held_from(m, ti, x->dom);
		local = isl_map_is_subset(n0, h);
		isl_map_free(h);
		x->first_local = local == isl_bool_true;
		if (!x->first_local) {
			x->p2p = build_p2p(m, x, n0);
			if (!x->p2p)
				return -1;
		} else
			isl_map_free(n0);
		return 0;
	}
	x->kind = DMD_XFER_P2P;
	x->p2p = build_p2p(m, x, isl_map_copy(x->need));
	return x->p2p ? 0 : -1;
}

/* The boxes of the GEMM leaf: at each point of the outer q time loops,
 * the iterations form a box in (i, j, k). */
static int analyse_gemm(struct dmd_model *m)
{
	struct dmd_gemm *g = m->gemm;
	isl_map *rev;
	int v, q = g->q;
	isl_bool box;

	rev = isl_map_reverse(isl_map_copy(m->rsched));
	rev = isl_map_project_out(rev, isl_dim_in, q, m->n_time - q);
	rev = isl_map_set_tuple_name(rev, isl_dim_in, "gemm");
	rev = isl_map_coalesce(rev);
	g->dom = isl_map_domain(isl_map_copy(rev));
	/* variables 0, 1, 2 are i, j, k in order of appearance: C[i, j] */
	for (v = 0; v < 3; ++v) {
		isl_pw_aff *mn = isl_map_dim_min(isl_map_copy(rev), v);
		isl_pw_aff *mx = isl_map_dim_max(isl_map_copy(rev), v);
		g->ext[v] = isl_pw_aff_coalesce(dmd_pw_aff_add_one(isl_pw_aff_sub(mx, isl_pw_aff_copy(mn))));
		g->lo[v] = isl_pw_aff_coalesce(mn);
	}
	/* check that the iterations form exactly that box: the set equals
	 * the product of its projections onto each variable */
	{
		/* equality of the iteration set with the product of its
		 * projections onto each variable */
		isl_map *p0 = isl_map_copy(rev), *prod;
		isl_map *pi[3];
		for (v = 0; v < 3; ++v) {
			pi[v] = isl_map_copy(rev);
			if (v < 2)
				pi[v] = isl_map_project_out(pi[v], isl_dim_out,
					v + 1, 2 - v);
			if (v > 0)
				pi[v] = isl_map_project_out(pi[v], isl_dim_out,
					0, v);
		}
		prod = isl_map_flat_range_product(pi[0], pi[1]);
		prod = isl_map_flat_range_product(prod, pi[2]);
		prod = isl_map_set_tuple_name(prod, isl_dim_out, "S");
		box = isl_map_is_equal(p0, prod);
		isl_map_free(p0);
		isl_map_free(prod);
	}
	isl_map_free(rev);
	if (box != isl_bool_true) {
		dmd_job_error(m->job, m->gemm_loc, "tensorize(..., gemm): "
			"the iterations under the outer loops do not form a "
			"box");
		return -1;
	}
	return 0;
}

/* Find every transfer: one per communicate point, and a first-time fetch
 * for each input that some rank needs but does not hold and that has no
 * communicate. */
int dmd_part_comm(struct dmd_model *m)
{
	int i, ti, idx = 0;
	isl_set *d;

	for (i = 0; i < m->n_comm; ++i) {
		int level = dmd_model_time_pos(m, m->comm_loop[i]);
		ti = m->comm_tensor[i];
		/* the output is returned after the computation */
		if (ti == m->out_tensor)
			continue;
		if (analyse_xfer(m, ti, level, idx++) < 0)
			return -1;
	}
	for (ti = 0; ti < m->job->n_tensors; ++ti) {
		int has = 0;
		/* the output's starting values are read by its holders */
		if (!m->dist[ti].is_input || ti == m->out_tensor)
			continue;
		for (i = 0; i < m->n_comm; ++i)
			has |= m->comm_tensor[i] == ti;
		if (has)
			continue;
		if (analyse_xfer(m, ti, -1, idx++) < 0)
			return -1;
		if (m->xfer[m->n_xfer - 1].kind == DMD_XFER_LOCAL) {
			/* nothing to do: drop it */
			dmd_xfer_clear(&m->xfer[--m->n_xfer]);
			idx--;
		}
	}
	if (analyse_return(m, idx++) < 0)
		return -1;
	d = isl_set_params(isl_map_domain(isl_map_copy(m->rsched)));
	m->comp_ranks = isl_set_coalesce(d);
	if (m->gemm && analyse_gemm(m) < 0)
		return -1;
	return 0;
}
