/* dmd_isl.c: isl objects built through the API from the job's
 * expressions, and small isl helpers the passes share.
 *
 * Nothing here prints text for isl to read: a variable of an expression
 * becomes whatever pw_aff the caller's dmd_isl_var_fn gives for its name
 * (a mesh parameter, a set dimension), so no user name reaches isl's
 * parser and none can collide with its syntax ("and", "mod", "nan").
 */
#include <limits.h>
#include <stdlib.h>

#include <isl/local_space.h>

#include "dmd_isl.h"

/* The set dimension "pos" of set space "space", as a pw_aff on it:
 * { S[i, j] -> [(j)] } for pos 1. */
__isl_give isl_pw_aff *dmd_isl_dim(__isl_keep isl_space *space, int pos)
{
	isl_local_space *ls;

	ls = isl_local_space_from_space(isl_space_copy(space));
	return isl_pw_aff_var_on_domain(ls, isl_dim_set, pos);
}

/* The constant "v" on set (or parameter) space "space". */
__isl_give isl_pw_aff *dmd_isl_cst(__isl_keep isl_space *space, long v)
{
	isl_local_space *ls;
	isl_val *val;

	if (!space)
		return NULL;
	ls = isl_local_space_from_space(isl_space_copy(space));
	val = isl_val_int_from_si(isl_space_get_ctx(space), v);
	return isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val));
}

/* The parameter-only "pa" as a pw_aff on set space "space":
 * [c] -> { [(64 c)] } becomes [c] -> { S[i] -> [(64 c)] }. */
__isl_give isl_pw_aff *dmd_isl_on(__isl_take isl_pw_aff *pa,
	__isl_keep isl_space *space)
{
	pa = isl_pw_aff_align_params(pa, isl_space_params(
		isl_space_copy(space)));
	return isl_pw_aff_insert_domain(pa, isl_space_copy(space));
}

/* The value of constant expression "e" in *v; 1 if it is a constant
 * (without overflow), 0 otherwise. */
static int dmd_isl_const(const struct dmd_expr *e, long *v)
{
	long a, b;

	switch (e->type) {
	case DMD_EXPR_INT:
		*v = e->ival;
		return 1;
	case DMD_EXPR_NEG:
		if (!dmd_isl_const(e->args[0], &a) || a == LONG_MIN)
			return 0;
		*v = -a;
		return 1;
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		break;
	default:
		return 0;
	}
	if (!dmd_isl_const(e->args[0], &a) || !dmd_isl_const(e->args[1], &b))
		return 0;
	switch (e->type) {
	case DMD_EXPR_ADD:
		return !__builtin_add_overflow(a, b, v);
	case DMD_EXPR_SUB:
		return !__builtin_sub_overflow(a, b, v);
	case DMD_EXPR_MUL:
		return !__builtin_mul_overflow(a, b, v);
	default:
		if (b <= 0)
			return 0;
		*v = a / b - (a % b != 0 && a < 0);
		if (e->type == DMD_EXPR_MOD)
			*v = a - *v * b;
		return 1;
	}
}

/* The value of "e" on "space" (see the header); NULL on error or if "e"
 * is not quasi-affine (the reader has checked that it is). */
__isl_give isl_pw_aff *dmd_isl_expr(__isl_keep isl_space *space,
	const struct dmd_expr *e, dmd_isl_var_fn var, void *user)
{
	isl_pw_aff *a, *b;
	isl_val *v;
	long c;

	if (!space || !e)
		return NULL;
	if (dmd_isl_const(e, &c))
		return dmd_isl_cst(space, c);
	switch (e->type) {
	case DMD_EXPR_VAR:
		return var(space, e->name, user);
	case DMD_EXPR_NEG:
		return isl_pw_aff_neg(dmd_isl_expr(space, e->args[0], var,
			user));
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
		a = dmd_isl_expr(space, e->args[0], var, user);
		b = dmd_isl_expr(space, e->args[1], var, user);
		if (e->type == DMD_EXPR_ADD)
			return isl_pw_aff_add(a, b);
		if (e->type == DMD_EXPR_SUB)
			return isl_pw_aff_sub(a, b);
		return isl_pw_aff_mul(a, b);
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		if (!dmd_isl_const(e->args[1], &c) || c <= 0)
			return NULL;
		a = dmd_isl_expr(space, e->args[0], var, user);
		v = isl_val_int_from_si(isl_space_get_ctx(space), c);
		if (e->type == DMD_EXPR_MOD)
			return isl_pw_aff_mod_val(a, v);
		return isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, v));
	default:
		return NULL;
	}
}

/* A set space with the parameters of "params", tuple "name" (NULL: no
 * name) and "n" dimensions. */
__isl_give isl_space *dmd_isl_set_space(__isl_keep isl_space *params,
	const char *name, int n)
{
	isl_space *space;

	space = isl_space_set_from_params(isl_space_params(
		isl_space_copy(params)));
	space = isl_space_add_dims(space, isl_dim_set, n);
	if (name)
		space = isl_space_set_tuple_name(space, isl_dim_set, name);
	return space;
}

/* Give the tuple of "set" the name "name". */
__isl_give isl_set *dmd_isl_set_name(__isl_take isl_set *set,
	const char *name)
{
	return isl_set_set_tuple_name(set, name);
}

/* Give the domain tuple of "pa" the name "name". */
__isl_give isl_pw_aff *dmd_isl_pw_aff_name(__isl_take isl_pw_aff *pa,
	const char *name)
{
	isl_id *id;

	if (!pa)
		return NULL;
	id = isl_id_alloc(isl_pw_aff_get_ctx(pa), name, NULL);
	return isl_pw_aff_set_tuple_id(pa, isl_dim_in, id);
}

struct dmd_isl_opt_data {
	int max;
	isl_val *opt;
};

/* Fold the optimum of "aff" on "set" into data->opt.  An affine
 * expression with a denominator (isl writes a piece as
 * (-1 + 2048c)/15 where it is integral on the piece's points) is
 * optimized as its integral multiple by the denominator, then divided:
 * isl_set_max_val refuses it ("expecting integer affine expression"). */
static isl_stat dmd_isl_opt_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_isl_opt_data *data = user;
	isl_val *d, *v;

	d = isl_aff_get_denominator_val(aff);
	aff = isl_aff_scale_val(aff, isl_val_copy(d));
	v = data->max ? isl_set_max_val(set, aff) : isl_set_min_val(set, aff);
	isl_set_free(set);
	isl_aff_free(aff);
	v = isl_val_div(v, d);
	if (!v)
		return isl_stat_error;
	if (isl_val_is_nan(v) == isl_bool_true) {
		isl_val_free(v);	/* an empty piece */
		return isl_stat_ok;
	}
	if (!data->opt)
		data->opt = v;
	else if (data->max)
		data->opt = isl_val_max(data->opt, v);
	else
		data->opt = isl_val_min(data->opt, v);
	return data->opt ? isl_stat_ok : isl_stat_error;
}

/* The largest ("max") or smallest value of "pa" over its domain, as
 * isl_pw_aff_max_val / isl_pw_aff_min_val (NaN where "pa" is empty,
 * infinite where unbounded), also where a piece's expression has a
 * denominator.  NULL on error. */
__isl_give isl_val *dmd_isl_opt_val(__isl_take isl_pw_aff *pa, int max)
{
	struct dmd_isl_opt_data data = { max, NULL };
	isl_ctx *ctx;

	if (!pa)
		return NULL;
	ctx = isl_pw_aff_get_ctx(pa);
	if (isl_pw_aff_foreach_piece(pa, &dmd_isl_opt_piece, &data) < 0)
		data.opt = isl_val_free(data.opt);
	else if (!data.opt)
		data.opt = isl_val_nan(ctx);
	isl_pw_aff_free(pa);
	return data.opt;
}

/* The largest value of "pa" where it is defined and the parameters lie
 * in "ctx" (NULL: anywhere); 0 if nowhere; -1 if unbounded or on error.
 * For the extents of buffers: [c] -> { [(64)] : c = 0; [(63)] : c = 1 }
 * gives 64. */
long dmd_isl_max(__isl_keep isl_pw_aff *pa, __isl_keep isl_set *ctx)
{
	isl_pw_aff *p;
	isl_val *v;
	isl_bool empty;
	long r;

	p = isl_pw_aff_copy(pa);
	if (ctx)
		p = isl_pw_aff_intersect_params(p, isl_set_copy(ctx));
	empty = isl_pw_aff_is_empty(p);
	if (empty != isl_bool_false) {
		isl_pw_aff_free(p);
		return empty == isl_bool_true ? 0 : -1;
	}
	v = dmd_isl_opt_val(p, 1);
	if (!v || !isl_val_is_int(v))
		r = -1;
	else
		r = isl_val_get_num_si(v);
	isl_val_free(v);
	return r;
}

/* pa + v */
__isl_give isl_pw_aff *dmd_isl_add(__isl_take isl_pw_aff *pa, long v)
{
	isl_val *val;

	if (!pa)
		return NULL;
	val = isl_val_int_from_si(isl_pw_aff_get_ctx(pa), v);
	return isl_pw_aff_add_constant_val(pa, val);
}

/* The map on set space "space" (of at least 2 n + len dimensions) that
 * swaps its first "n" dimensions with the "n" that follow the next
 * "len", the others unchanged:
 *	{ [a, t, b, r] -> [b, t, a, r] }
 * with a and b of n dimensions and t of len: the two ranks of a piece of
 * a transfer (the rank and its peer around the time point), seen from
 * the other side. */
__isl_give isl_multi_aff *dmd_isl_swap(__isl_take isl_space *space, int n,
	int len)
{
	isl_local_space *ls;
	isl_aff_list *list;
	int i, pos, dim = isl_space_dim(space, isl_dim_set);

	ls = isl_local_space_from_space(isl_space_copy(space));
	list = isl_aff_list_alloc(isl_space_get_ctx(space), dim);
	for (i = 0; i < dim; ++i) {
		if (i < n)
			pos = n + len + i;
		else if (i >= n + len && i < 2 * n + len)
			pos = i - n - len;
		else
			pos = i;
		list = isl_aff_list_add(list, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, pos));
	}
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(isl_space_map_from_set(space),
		list);
}

/* "pa" extended with 0 where it is undefined on "dom", so that a box is
 * empty (not undefined) on ranks that need nothing. */
__isl_give isl_pw_aff *dmd_isl_complete(__isl_take isl_pw_aff *pa,
	__isl_keep isl_set *dom)
{
	isl_set *rest;
	isl_pw_aff *zero;

	rest = isl_set_subtract(isl_set_copy(dom),
		isl_pw_aff_domain(isl_pw_aff_copy(pa)));
	zero = isl_pw_aff_val_on_domain(rest,
		isl_val_zero(isl_set_get_ctx(dom)));
	return isl_pw_aff_coalesce(isl_pw_aff_union_add(pa, zero));
}

/* Piece "aff" on "set" with the existentially quantified variables of
 * "set" made explicit (isl_set_compute_divs), added to *user. */
static isl_stat dmd_isl_explicit_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	isl_pw_aff **acc = user;

	set = isl_set_coalesce(isl_set_compute_divs(set));
	*acc = isl_pw_aff_union_add(*acc, isl_pw_aff_alloc(set, aff));
	return *acc ? isl_stat_ok : isl_stat_error;
}

/* "pa" with the domains of its pieces free of unknown existentials:
 * a domain projected from a map, { [c] : exists e : ... }, whose
 * existential isl cannot name, makes every later operation on the
 * pw_aff solve for it again (copies of it pile up under
 * intersections); with explicit divisions (often none, where the
 * parameters fix the piece) they stay small. */
__isl_give isl_pw_aff *dmd_isl_explicit(__isl_take isl_pw_aff *pa)
{
	isl_pw_aff *acc;

	if (!pa)
		return NULL;
	acc = isl_pw_aff_empty(isl_pw_aff_get_space(pa));
	if (isl_pw_aff_foreach_piece(pa, &dmd_isl_explicit_piece, &acc) < 0)
		acc = isl_pw_aff_free(acc);
	isl_pw_aff_free(pa);
	return isl_pw_aff_coalesce(acc);
}

/* The most points of a domain on which a difference of two affs is
 * evaluated point by point (dmd_isl_cst_on). */
#define DMD_ISL_MAX_EVAL	(1 << 11)

/* What dmd_isl_cst_on and dmd_isl_cst_pw carry over the points of a
 * domain: the difference hi - lo (parameters as inputs; lo NULL for 0). */
struct dmd_isl_cst_data {
	isl_pw_aff *hi, *lo;	/* the difference, parameters as inputs */
	isl_val *v;		/* its value at the first point */
	long n;			/* points seen */
	int same;		/* the same value at each so far */
};

static isl_stat dmd_isl_cst_point(__isl_take isl_point *pnt, void *user)
{
	struct dmd_isl_cst_data *data = user;
	isl_val *v;

	if (++data->n > DMD_ISL_MAX_EVAL) {
		isl_point_free(pnt);
		data->same = 0;
		return isl_stat_error;
	}
	v = isl_pw_aff_eval(isl_pw_aff_copy(data->hi), isl_point_copy(pnt));
	if (data->lo)
		v = isl_val_sub(v, isl_pw_aff_eval(isl_pw_aff_copy(data->lo),
			isl_point_copy(pnt)));
	isl_point_free(pnt);
	if (!v || !isl_val_is_int(v))
		data->same = 0;
	else if (!data->v)
		data->v = isl_val_copy(v);
	else if (!isl_val_eq(data->v, v))
		data->same = 0;
	isl_val_free(v);
	return data->same ? isl_stat_ok : isl_stat_error;
}

/* The number of points of the bounding box of "set" (a set without
 * parameters), or more than DMD_ISL_MAX_EVAL if it is unbounded or
 * larger (then not all of it is looked at): a bound of the points
 * dmd_isl_cst_on would evaluate, found by 2 n integer programs instead
 * of a walk over all of them. */
static long dmd_isl_hull_points(__isl_keep isl_set *set)
{
	isl_size n = isl_set_dim(set, isl_dim_set);
	long size = 1;
	int i;

	if (n < 0)
		return DMD_ISL_MAX_EVAL + 1;
	for (i = 0; i < n && size <= DMD_ISL_MAX_EVAL; ++i) {
		isl_val *lo = isl_set_dim_min_val(isl_set_copy(set), i);
		isl_val *hi = isl_set_dim_max_val(isl_set_copy(set), i);
		isl_val *w = NULL;

		if (lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi))
			w = isl_val_add_ui(isl_val_sub(hi, lo), 1);
		else {
			isl_val_free(lo);
			isl_val_free(hi);
		}
		if (!w || isl_val_cmp_si(w, DMD_ISL_MAX_EVAL) > 0)
			size = DMD_ISL_MAX_EVAL + 1;
		else if (!isl_val_is_pos(w))
			size = 0;
		else
			size *= isl_val_get_num_si(w);
		isl_val_free(w);
	}
	return size;
}

/* The value of "df" (taken) on "dom" (over the domain of "df", bounded,
 * parameters included) if it takes a single one there: a constant as
 * it is, else where it has divisions (isl's simplification of an aff
 * without them is quick) found by evaluating it at each point of "dom"
 * (at most DMD_ISL_MAX_EVAL); else NULL.  For the difference of the
 * largest and smallest rows of a block of 2048 rows on a view of a 1-D
 * mesh of 64 ranks,
 *   [c] -> { X[i] -> [(2047 + 2048*floor((floor((3*floor((4*floor((7*
 *            floor((8*floor((15c)/16))/15))/8))/7))/4))/3))
 *            - 2048c + 2048*floor((2 + 2c + ...)/3))] }
 * on [c] -> { X[i] : 0 <= c <= 63 and 0 <= i <= 7 }: 2047. */
static __isl_give isl_val *dmd_isl_cst_on(__isl_take isl_aff *df,
	__isl_keep isl_set *dom)
{
	struct dmd_isl_cst_data data = { NULL, NULL, NULL, 0, 1 };
	isl_size np = isl_set_dim(dom, isl_dim_param);
	isl_set *pts;

	if (isl_aff_is_cst(df) == isl_bool_true) {
		data.v = isl_aff_get_constant_val(df);
		isl_aff_free(df);
		return data.v;
	}
	if (np < 0 || isl_aff_dim(df, isl_dim_param) != np ||
	    isl_aff_dim(df, isl_dim_div) <= 0) {
		isl_aff_free(df);
		return NULL;
	}
	data.hi = isl_pw_aff_from_aff(isl_aff_move_dims(df, isl_dim_in, 0,
		isl_dim_param, 0, np));
	pts = isl_set_move_dims(isl_set_copy(dom), isl_dim_set, 0,
		isl_dim_param, 0, np);
	if (!data.hi || !pts || dmd_isl_hull_points(pts) > DMD_ISL_MAX_EVAL ||
	    isl_set_foreach_point(pts, &dmd_isl_cst_point, &data) < 0)
		data.same = 0;
	isl_set_free(pts);
	isl_pw_aff_free(data.hi);
	if (data.same && data.v)
		return data.v;
	isl_val_free(data.v);
	return NULL;
}

/* Whether a basic set has a division (dmd_isl_set_has_div). */
static isl_stat dmd_isl_bset_div(__isl_take isl_basic_set *bset, void *user)
{
	isl_size n = isl_basic_set_dim(bset, isl_dim_div);

	isl_basic_set_free(bset);
	if (n < 0)
		return isl_stat_error;
	*(int *) user |= n > 0;
	return isl_stat_ok;
}

/* Whether some basic set of "set" has local variables (divisions), as
 * [c] -> { : exists e0 : c = 2 e0 }: 1 if so, 0 if not, -1 on error. */
int dmd_isl_set_has_div(__isl_keep isl_set *set)
{
	int div = 0;

	if (isl_set_foreach_basic_set(set, &dmd_isl_bset_div, &div) < 0)
		return -1;
	return div;
}

/* Whether a piece of a pw_aff has a division (dmd_isl_pw_has_div); an
 * error counts as one. */
static isl_stat dmd_isl_piece_div(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	if (isl_aff_dim(aff, isl_dim_div) != 0 ||
	    dmd_isl_set_has_div(set) != 0)
		*(int *) user = 1;
	isl_aff_free(aff);
	isl_set_free(set);
	return isl_stat_ok;
}

/* Whether "pa" has a piece whose domain or value has a division (also
 * on error), e.g. [c] -> { X[i] -> [(-1 + 11*((1 + c + i) mod 3))] }. */
static int dmd_isl_pw_has_div(__isl_keep isl_pw_aff *pa)
{
	int has = 0;

	if (isl_pw_aff_foreach_piece(pa, &dmd_isl_piece_div, &has) < 0)
		return 1;
	return has;
}

/* Count the points of a set, up to one more than DMD_ISL_MAX_EVAL
 * (dmd_isl_cst_pw). */
static isl_stat dmd_isl_count_point(__isl_take isl_point *pnt, void *user)
{
	long *n = user;

	isl_point_free(pnt);
	return ++*n > DMD_ISL_MAX_EVAL ? isl_stat_error : isl_stat_ok;
}

/* The value of hi - lo (pw_affs over the same space, kept) if they have
 * the same domain, bounded, and the difference takes a single value
 * there; else NULL.  Only where one of them has a division (isl's
 * difference of pieces without them is quick), by evaluating both at
 * each point of the domain of "hi", parameters included (at most
 * DMD_ISL_MAX_EVAL): every one in the domain of "lo" (the value is an
 * integer) and as many as there, so the domains are equal.  For the
 * largest and smallest rows of a block of A on a 3-D view 2x3x16 of a
 * 1-D mesh of 96 ranks, two pieces each with nested divisions of the
 * coordinates, isl_pw_aff_sub took 20 s (its isl_aff_gist on each pair
 * of pieces) for a difference of 6143 everywhere. */
static __isl_give isl_val *dmd_isl_cst_pw(__isl_keep isl_pw_aff *hi,
	__isl_keep isl_pw_aff *lo)
{
	struct dmd_isl_cst_data data = { NULL, NULL, NULL, 0, 1 };
	isl_size np = isl_pw_aff_dim(hi, isl_dim_param);
	isl_set *pts = NULL, *pts_lo = NULL;
	long n_lo = 0;

	if (np < 0 || isl_pw_aff_dim(lo, isl_dim_param) != np ||
	    (!dmd_isl_pw_has_div(hi) && !dmd_isl_pw_has_div(lo)))
		return NULL;
	data.hi = isl_pw_aff_move_dims(isl_pw_aff_copy(hi), isl_dim_in, 0,
		isl_dim_param, 0, np);
	data.lo = isl_pw_aff_move_dims(isl_pw_aff_copy(lo), isl_dim_in, 0,
		isl_dim_param, 0, np);
	pts = isl_pw_aff_domain(isl_pw_aff_copy(data.hi));
	pts_lo = isl_pw_aff_domain(isl_pw_aff_copy(data.lo));
	if (!data.lo || !pts || !pts_lo ||
	    dmd_isl_hull_points(pts) > DMD_ISL_MAX_EVAL ||
	    isl_set_foreach_point(pts, &dmd_isl_cst_point, &data) < 0 ||
	    isl_set_foreach_point(pts_lo, &dmd_isl_count_point, &n_lo) < 0 ||
	    n_lo != data.n)
		data.same = 0;
	isl_set_free(pts);
	isl_set_free(pts_lo);
	isl_pw_aff_free(data.hi);
	isl_pw_aff_free(data.lo);
	if (data.same && data.v)
		return data.v;
	isl_val_free(data.v);
	return NULL;
}

/* The one piece of a pw_aff (dmd_isl_extent): its domain and aff. */
struct dmd_isl_piece {
	int n;
	isl_set *set;
	isl_aff *aff;
};

static isl_stat dmd_isl_piece_get(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_isl_piece *p = user;

	if (p->n++ > 0) {
		isl_set_free(set);
		isl_aff_free(aff);
		return isl_stat_error;
	}
	p->set = set;
	p->aff = aff;
	return isl_stat_ok;
}

/* The extent mx - mn + 1 of a box whose largest and smallest values are
 * "mx" and "mn" (taken).  Where both are one piece on plainly equal
 * domains and differ by a constant there (dmd_isl_cst_on), that
 * constant plus one on the domain: isl_pw_aff_sub simplifies the
 * difference on the domain (isl_aff_gist), which for the nested
 * divisions of the bounds of a block on a view of a 1-D mesh (see
 * dmd_isl_cst_on) took half a second for a constant 2048 (a 2.5-D plan
 * of 64 ranks spent a fifth of its analysis there).  Where either has
 * several pieces with divisions and the difference is one constant on
 * their common domain (dmd_isl_cst_pw), that constant plus one (a 3-D
 * plan of 96 ranks spent 90 s in isl_pw_aff_sub of such pieces).  Else
 * mx - mn + 1 by isl. */
static __isl_give isl_pw_aff *dmd_isl_extent(__isl_take isl_pw_aff *mx,
	__isl_take isl_pw_aff *mn)
{
	struct dmd_isl_piece px = { 0, NULL, NULL }, pn = { 0, NULL, NULL };
	isl_pw_aff *res = NULL;
	isl_val *v = NULL;

	if (mx && mn &&
	    isl_pw_aff_foreach_piece(mx, &dmd_isl_piece_get, &px) >= 0 &&
	    isl_pw_aff_foreach_piece(mn, &dmd_isl_piece_get, &pn) >= 0 &&
	    px.n == 1 && pn.n == 1 &&
	    isl_set_plain_is_equal(px.set, pn.set) == isl_bool_true)
		v = dmd_isl_cst_on(isl_aff_sub(isl_aff_copy(px.aff),
			isl_aff_copy(pn.aff)), px.set);
	else if (mx && mn && (px.n > 1 || pn.n > 1))
		v = dmd_isl_cst_pw(mx, mn);
	if (v)
		res = isl_pw_aff_val_on_domain(isl_pw_aff_domain(
			isl_pw_aff_copy(mx)), isl_val_add_ui(v, 1));
	isl_set_free(px.set);
	isl_aff_free(px.aff);
	isl_set_free(pn.set);
	isl_aff_free(pn.aff);
	if (res || !mx || !mn) {
		isl_pw_aff_free(mx);
		isl_pw_aff_free(mn);
		return res;
	}
	return dmd_isl_add(isl_pw_aff_sub(mx, mn), 1);
}

/* lo[d] = the smallest value of output d of "map", ext[d] = the largest
 * minus the smallest plus one, as pw_affs on the domain of "map".
 * Returns 0, or -1 on error (with the pw_affs already made kept in
 * lo/ext for the caller to free).
 * The map is coalesced first: the pieces a transfer is split into
 * (isl_map_subtract_domain of the rank itself) come as disjuncts with
 * divisions over the mesh coordinates, e.g. on a 3x3x7 view of 63 of 64
 * ranks
 *   [c] -> { X[c'] -> T[o0, o1] : 64c <= o0 <= 63 + 64c and
 *            1366*floor((-1 - c')/21) < -o0 and ... }
 * where isl_map_dim_min ran its integer sampling (generalized basis
 * reduction) for more than 20 minutes; coalesced, 0.1 s. */
int dmd_isl_box(__isl_keep isl_map *map, isl_pw_aff **lo, isl_pw_aff **ext)
{
	isl_size n = isl_map_dim(map, isl_dim_out);
	isl_map *c;
	int d;

	if (n < 0)
		return -1;
	c = isl_map_coalesce(isl_map_copy(map));
	for (d = 0; d < n; ++d) {
		isl_pw_aff *mn, *mx;

		mn = dmd_isl_explicit(isl_map_dim_min(isl_map_copy(c), d));
		mx = dmd_isl_explicit(isl_map_dim_max(isl_map_copy(c), d));
		ext[d] = isl_pw_aff_coalesce(dmd_isl_extent(mx,
			isl_pw_aff_copy(mn)));
		lo[d] = mn;
		if (!lo[d] || !ext[d])
			break;
	}
	isl_map_free(c);
	return d < n ? -1 : 0;
}

/* The same for set "set": pw_affs on its parameters. */
int dmd_isl_set_box(__isl_keep isl_set *set, isl_pw_aff **lo,
	isl_pw_aff **ext)
{
	isl_map *map;
	int r;

	map = isl_map_from_range(isl_set_copy(set));
	r = dmd_isl_box(map, lo, ext);
	isl_map_free(map);
	if (r < 0)
		return -1;
	for (r = 0; r < isl_set_dim(set, isl_dim_set); ++r) {
		lo[r] = isl_pw_aff_project_domain_on_params(lo[r]);
		ext[r] = isl_pw_aff_project_domain_on_params(ext[r]);
		if (!lo[r] || !ext[r])
			return -1;
	}
	return 0;
}

/* { D[x] -> out[e] : lo(x) <= e < lo(x) + ext(x) } where D is the domain
 * of lo/ext (n >= 1 pw_affs on one set space, or on the parameters), as
 * a map (a set if the domain is a parameter domain). */
__isl_give isl_map *dmd_isl_box_map(__isl_keep isl_space *out,
	int n, isl_pw_aff *const *lo, isl_pw_aff *const *ext)
{
	isl_space *dom, *space;
	isl_multi_aff *proj;
	isl_set *box;
	int d;

	if (n < 1 || !lo[0])
		return NULL;
	dom = isl_pw_aff_get_domain_space(lo[0]);
	if (isl_space_is_params(dom))
		dom = isl_space_set_from_params(dom);
	space = isl_space_map_from_domain_and_range(dom,
		isl_space_copy(out));
	space = isl_space_wrap(space);
	proj = isl_multi_aff_domain_map(isl_space_unwrap(
		isl_space_copy(space)));
	box = isl_set_universe(isl_space_copy(space));
	for (d = 0; d < n; ++d) {
		isl_pw_aff *l, *x, *e;
		int nd = isl_space_dim(space, isl_dim_set) - n;

		isl_space *ls = isl_pw_aff_get_domain_space(lo[d]);
		isl_bool par = isl_space_is_params(ls);

		isl_space_free(ls);
		l = isl_pw_aff_copy(lo[d]);
		x = isl_pw_aff_copy(ext[d]);
		if (par == isl_bool_true) {
			isl_space *ds = isl_space_domain(isl_space_unwrap(
				isl_space_copy(space)));
			l = dmd_isl_on(l, ds);
			x = dmd_isl_on(x, ds);
			isl_space_free(ds);
		}
		l = isl_pw_aff_pullback_multi_aff(l,
			isl_multi_aff_copy(proj));
		x = isl_pw_aff_pullback_multi_aff(x,
			isl_multi_aff_copy(proj));
		e = dmd_isl_dim(space, nd + d);
		box = isl_set_intersect(box, isl_pw_aff_le_set(
			isl_pw_aff_copy(l), isl_pw_aff_copy(e)));
		box = isl_set_intersect(box, isl_pw_aff_lt_set(e,
			isl_pw_aff_add(l, x)));
	}
	isl_multi_aff_free(proj);
	isl_space_free(space);
	return isl_set_unwrap(box);
}

/* The position in "map" of the coordinate of mesh axis "d": input
 * dimension d, or with "ids" the parameter of ids[d]; -1 if absent. */
static int dmd_isl_rank_pos(__isl_keep isl_map *map,
	__isl_keep isl_multi_id *ids, int d)
{
	isl_id *id;
	int pos;

	if (!ids)
		return d;
	id = isl_multi_id_get_at(ids, d);
	pos = isl_map_find_dim_by_id(map, isl_dim_param, id);
	isl_id_free(id);
	return pos;
}

/* "map" (taken) with the coordinate of mesh axis "d" (dmd_isl_rank_pos)
 * at most "v" (up = 0) or at least "v" (up = 1). */
static __isl_give isl_map *dmd_isl_rank_bound(__isl_take isl_map *map,
	__isl_keep isl_multi_id *ids, int d, int up, long v)
{
	enum isl_dim_type t = ids ? isl_dim_param : isl_dim_in;
	int pos = dmd_isl_rank_pos(map, ids, d);

	if (pos < 0)
		return isl_map_free(map);
	return up ? isl_map_lower_bound_si(map, t, pos, v) :
		isl_map_upper_bound_si(map, t, pos, v);
}

/* Whether map "map" is empty beyond the box 0 <= c < shape of a mesh
 * (2 n emptiness tests: cheaper than a subset test of a map of many
 * pieces). */
static isl_bool dmd_isl_map_in_mesh(__isl_keep isl_map *map,
	__isl_keep isl_multi_id *ids, int n, const long *shape)
{
	isl_bool in = isl_bool_true;
	int d;

	for (d = 0; in == isl_bool_true && d < 2 * n; ++d) {
		isl_map *out = dmd_isl_rank_bound(isl_map_copy(map), ids,
			d / 2, d % 2, d % 2 ? shape[d / 2] : -1);

		in = isl_map_is_empty(out);
		isl_map_free(out);
	}
	return in;
}

/* Whether map "a" is equal to (DMD_ISL_EQUAL) or a subset of
 * (DMD_ISL_SUBSET) map "b", decided rank by rank: the coordinates of a
 * rank of a mesh of shape "shape" (n axes) are the first n input
 * dimensions of both, or with "ids" their parameters ids[0 .. n - 1].
 * The relation holds with those fixed to each rank's coordinates in
 * turn, and "a" (and for equality "b") has no point beyond the mesh.
 * For relations as { [R[me] -> X[t, peer]] -> B[lo.., ext..] } whose
 * pieces depend on the coordinates through divisions, where isl's test
 * for all ranks at once takes minutes (a gist per pair of pieces) and
 * each rank's milliseconds.  A point beyond the mesh gives false even
 * where the relation would hold there: the answer errs to the safe side
 * (a refused proof, a box taken as having holes). */
isl_bool dmd_isl_map_rel_by_rank(__isl_keep isl_map *a,
	__isl_keep isl_map *b, enum dmd_isl_rel rel,
	__isl_keep isl_multi_id *ids, int n, const long *shape)
{
	enum isl_dim_type t = ids ? isl_dim_param : isl_dim_in;
	isl_bool r;
	long k, q, nr = 1;
	int d;

	a = isl_map_copy(a);
	b = isl_map_copy(b);
	if (ids) {
		/* every coordinate a parameter of both, even one that a map
		 * does not depend on */
		isl_space *ps = isl_space_params_alloc(isl_map_get_ctx(a), 0);

		for (d = 0; d < n; ++d)
			ps = isl_space_add_param_id(ps,
				isl_multi_id_get_at(ids, d));
		a = isl_map_align_params(a, isl_space_copy(ps));
		b = isl_map_align_params(b, ps);
	}
	for (d = 0; d < n; ++d)
		nr *= shape[d];
	r = dmd_isl_map_in_mesh(a, ids, n, shape);
	if (r == isl_bool_true && rel == DMD_ISL_EQUAL)
		r = dmd_isl_map_in_mesh(b, ids, n, shape);
	for (k = 0; r == isl_bool_true && k < nr; ++k) {
		isl_map *a1 = isl_map_copy(a), *b1 = isl_map_copy(b);

		for (q = k, d = n - 1; d >= 0; --d) {
			int pa = dmd_isl_rank_pos(a1, ids, d);
			int pb = dmd_isl_rank_pos(b1, ids, d);

			a1 = pa < 0 ? isl_map_free(a1) :
				isl_map_fix_si(a1, t, pa, q % shape[d]);
			b1 = pb < 0 ? isl_map_free(b1) :
				isl_map_fix_si(b1, t, pb, q % shape[d]);
			q /= shape[d];
		}
		r = rel == DMD_ISL_EQUAL ? isl_map_is_equal(a1, b1) :
			isl_map_is_subset(a1, b1);
		isl_map_free(a1);
		isl_map_free(b1);
	}
	isl_map_free(a);
	isl_map_free(b);
	return r;
}
