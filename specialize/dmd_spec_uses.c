/* dmd_spec_uses.c: the typed program of a cell around its statements:
 * the buffers (the home buffer of each tensor, the buffers of each
 * transfer with their extents, double-buffered or not), the views of
 * each step (what backs them, const or updated, restrict, which
 * components the statements read) and every identifier the code uses,
 * found by walking the ASTs and the payloads of the statements, so that
 * emit/ declares exactly what it prints, in one pass, deciding nothing.
 *
 * The walk knows, per statement kind, the names its printer prints
 * (emit/dmd_emit_stmt.c, one function per kind there and here): in a
 * first pass, the view components that the statements read; in a
 * second, the names of main() (lo0_A, hx1_A, buf_A, r3a_A, rx3_A, c_x)
 * that statements, view declarations, the waits' view updates and the
 * set-up print.  A name the printer prints but the walk misses is an
 * undeclared identifier, one the walk records but nothing prints an
 * unused variable: the codegen test compiles every class with -Werror.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/id.h>

#include "specialize/dmd_spec.h"

/* The walk of one cell's program. */
struct dmd_uses {
	struct dmd_spec *spec;
	const struct dmd_model *m;
	const struct dmd_plan *plan;
	struct dmd_spec_step *ss;	/* the step walked */
	const struct dmd_poly *p;
	int views;			/* first pass: view components only */
	char **coord;			/* the coordinates' names */
	int err;
};

/* The C element types of the job's data (spec 1.3). */
static const struct dmd_spec_ctype dmd_uses_double = { "double", 0 };
static const struct dmd_spec_ctype dmd_uses_float = { "float", 1 };

/* The extents of the buffers of every transfer on the cell, how many
 * buffers each has and their size, and the size of every home buffer,
 * whether it holds ghost cells; the element type of every buffer. */
static int dmd_uses_sizes(struct dmd_spec *spec)
{
	const struct dmd_plan *plan = spec->plan;
	const struct dmd_model *m = plan->m;
	const struct dmd_spec_ctype *type = m->job->dtype == DMD_F32 ?
		&dmd_uses_float : &dmd_uses_double;
	int i, d, t;

	for (i = 0; i < plan->n_xfer; ++i) {
		const struct dmd_xfer *x = plan->xfer[i];
		struct dmd_spec_xbuf *xb = &spec->xbuf[i];
		int nd = m->lay[x->tensor]->ndim;

		xb->ext = calloc(nd + 1, sizeof(long));
		if (!xb->ext)
			return -1;
		xb->size = 1;
		for (d = 0; d < nd; ++d) {
			xb->ext[d] = dmd_spec_max(spec, x->box.ext[d]);
			if (xb->ext[d] < 0)
				return -1;
			xb->size *= xb->ext[d];
		}
		xb->n_buf = x->ghost ? 0 : x->level >= 0 ? 2 : 1;
		xb->type = type;
	}
	for (t = 0; t < m->job->n_tensors; ++t) {
		long n = 1;

		if (!m->lay[t])
			continue;	/* no step accesses it */
		for (d = 0; d < m->lay[t]->ndim; ++d) {
			long e = dmd_spec_max(spec, plan->home[t].ext[d]);

			if (e < 0)
				return -1;
			n *= e;
		}
		spec->tensor[t].size = n;
		spec->tensor[t].halo = plan->ghost[t];
		spec->tensor[t].type = type;
	}
	return 0;
}

static void dmd_uses_free_exprs(isl_ast_expr **e);

/* The expressions on the cell of "pa[0..n)" in the coordinates of view
 * "v" (-1: of the mesh), in a new NULL-terminated array. */
static isl_ast_expr **dmd_uses_params(const struct dmd_spec *spec,
	isl_pw_aff *const *pa, int n, int v)
{
	isl_ast_expr **e = calloc(n + 1, sizeof(*e));
	int d;

	for (d = 0; e && d < n; ++d) {
		e[d] = dmd_spec_param_expr_in(spec, pa[d], v);
		if (!e[d]) {
			dmd_uses_free_exprs(e);
			return NULL;
		}
	}
	return e;
}

/* The quantities of the set-up on the cell: each tensor's block and
 * home buffer (in the coordinates of the view it is laid out on, if
 * any), an output's writers; each transfer's box origins and root when
 * they are fixed before the step's loops (in the coordinates of the
 * view its step is distributed over, if any: the code of that step
 * speaks of them). */
static int dmd_uses_quantities(struct dmd_spec *spec)
{
	const struct dmd_plan *plan = spec->plan;
	const struct dmd_model *m = plan->m;
	int i, t;

	for (t = 0; t < m->job->n_tensors; ++t) {
		struct dmd_spec_tensor *st = &spec->tensor[t];
		const struct dmd_layout *lay = m->lay[t];

		if (!lay)
			continue;
		st->lo = dmd_uses_params(spec, lay->lo, lay->ndim, lay->view);
		st->ext = dmd_uses_params(spec, lay->ext, lay->ndim,
			lay->view);
		st->ho = dmd_uses_params(spec, plan->home[t].lo, lay->ndim,
			lay->view);
		st->hx = dmd_uses_params(spec, plan->home[t].ext, lay->ndim,
			lay->view);
		if (!st->lo || !st->ext || !st->ho || !st->hx)
			return -1;
		if (m->use[t].output) {
			st->writer = isl_ast_build_expr_from_set(spec->pbuild,
				isl_set_copy(lay->writer));
			if (!st->writer)
				return -1;
		}
	}
	for (i = 0; i < plan->n_xfer; ++i) {
		const struct dmd_xfer *x = plan->xfer[i];
		struct dmd_spec_xbuf *xb = &spec->xbuf[i];
		int v = m->poly[x->step]->view;

		if (x->level >= 0)
			continue;
		xb->lo = dmd_uses_params(spec, x->box.lo,
			m->lay[x->tensor]->ndim, v);
		if (!xb->lo)
			return -1;
		if (x->kind == DMD_XFER_BCAST) {
			xb->root = dmd_spec_param_expr_in(spec, x->root, v);
			if (!xb->root)
				return -1;
		}
	}
	return 0;
}

/* Add view "v" to step "ss". */
static int dmd_uses_add_view(struct dmd_spec_step *ss,
	const struct dmd_spec_view *v)
{
	struct dmd_spec_view *n;

	n = realloc(ss->view, (ss->n_view + 1) * sizeof(*n));
	if (!n)
		return -1;
	ss->view = n;
	ss->view[ss->n_view++] = *v;
	return 0;
}

/* Set the type of compute statement "st" and the view each of its
 * accesses goes through: the output and a read of the element the
 * iteration writes through the write view, any other read through its
 * tensor's read view. */
static int dmd_uses_comp_views(struct dmd_spec_step *ss,
	struct dmd_spec_stmt *st, const struct dmd_step_plan *sp,
	const struct dmd_spec_ctype *type)
{
	int a;

	st->u.comp.type = type;
	for (a = 0; a < st->u.comp.n_acc; ++a) {
		struct dmd_spec_access *acc = &st->u.comp.acc[a];
		int write = a == 0 || sp->provider[a] == -2;
		const struct dmd_spec_view *v;

		v = dmd_spec_view_of(ss, acc->tensor, write);
		if (!v)
			return -1;
		acc->view = v - ss->view;
	}
	return 0;
}

/* The views of step "s" of "spec", one per tensor it reads (the first
 * access of each, reads in place of the output through the output's) and
 * the output's, with what their declarations point to; the views of the
 * accesses of its compute statements; the views' components are found
 * later (dmd_uses_walk). */
static int dmd_uses_views(struct dmd_spec *spec, int s)
{
	const struct dmd_plan *plan = spec->plan;
	const struct dmd_poly *p = plan->m->poly[s];
	const struct dmd_step_plan *sp = &plan->steps[s];
	struct dmd_spec_step *ss = &spec->steps[s];
	int a, b, i;

	for (a = 0; a < p->n_acc; ++a) {
		struct dmd_spec_view v = { .tensor = p->acc[a].tensor,
			.write = a == 0 };

		for (b = 1; b < a; ++b)
			if (p->acc[b].tensor == v.tensor)
				break;
		if (a > 0 && (b < a || sp->provider[a] == -2))
			continue;
		if (a == 0) {
			v.xfer = sp->ret;
			v.restrict_ok = !sp->ret;
			for (i = 0; i < sp->n_xfer; ++i)
				if (sp->xfer[i]->tensor == v.tensor &&
				    sp->xfer[i]->use == DMD_USE_SNAPSHOT)
					v.restrict_ok = 0;
		} else if (sp->provider[a] >= 0) {
			v.xfer = plan->xfer[sp->provider[a]];
			v.mut = v.xfer->level >= 0;
			v.root = !v.mut && v.xfer->kind == DMD_XFER_BCAST;
		} else
			v.restrict_ok = 1;
		v.home = !v.xfer || (!v.write && (v.xfer->ghost || v.mut));
		v.type = spec->tensor[v.tensor].type;
		if (dmd_uses_add_view(ss, &v) < 0)
			return -1;
	}
	for (i = 0; i < ss->n_stmt; ++i)
		if (ss->stmt[i].kind == DMD_SPEC_COMP &&
		    dmd_uses_comp_views(ss, &ss->stmt[i], sp,
			    spec->tensor[p->out].type) < 0)
			return -1;
	return 0;
}

/* The view of tensor "t" of step "ss" ("write": the output's), or NULL. */
const struct dmd_spec_view *dmd_spec_view_of(const struct dmd_spec_step *ss,
	int t, int write)
{
	int i;

	for (i = 0; i < ss->n_view; ++i)
		if (ss->view[i].tensor == t && ss->view[i].write == write)
			return &ss->view[i];
	return NULL;
}

/* Record that the statements read component "kind" ('p' the pointer,
 * 'o' an origin, 'x' an extent) "d" of the view of "t" ("write": the
 * output's); first pass only. */
static void dmd_uses_view(struct dmd_uses *u, int t, int write, char kind,
	int d)
{
	struct dmd_spec_view *v;

	if (!u->views)
		return;
	v = (struct dmd_spec_view *) dmd_spec_view_of(u->ss, t, write);
	if (!v) {
		u->err = 1;
		return;
	}
	if (kind == 'p')
		v->ptr = 1;
	else if (kind == 'o')
		v->o |= 1u << d;
	else
		v->x |= 1u << d;
}

/* Record the coordinates that expression "e" mentions (second pass). */
static void dmd_uses_expr(struct dmd_uses *u, __isl_keep isl_ast_expr *e)
{
	int i, n;

	if (u->views || !e)
		return;
	if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
		isl_id *id = isl_ast_expr_get_id(e);
		const char *name = isl_id_get_name(id);

		for (i = 0; name && i < u->m->mesh->n_all; ++i)
			if (u->coord[i] && !strcmp(u->coord[i], name))
				u->spec->use_coord[i] = 1;
		isl_id_free(id);
		return;
	}
	if (isl_ast_expr_get_type(e) != isl_ast_expr_op)
		return;
	n = isl_ast_expr_op_get_n_arg(e);
	for (i = 0; i < n; ++i) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);

		dmd_uses_expr(u, a);
		isl_ast_expr_free(a);
	}
}

/* dmd_uses_expr on e[0..n). */
static void dmd_uses_exprs(struct dmd_uses *u, isl_ast_expr **e, int n)
{
	int d;

	for (d = 0; d < n; ++d)
		dmd_uses_expr(u, e[d]);
}

/* Record coordinate "axis" (printed by name: c_x == root). */
static void dmd_uses_coord(struct dmd_uses *u, int axis)
{
	if (!u->views)
		u->spec->use_coord[axis] = 1;
}

/* Record component "d" of the home buffer of tensor "t": its origin
 * (origin != 0: ho<d>_A with ghost cells, else lo<d>_A) or extent
 * (hx<d>_A or ext<d>_A); second pass. */
static void dmd_uses_home(struct dmd_uses *u, int t, int origin, int d)
{
	struct dmd_spec_tensor *st = &u->spec->tensor[t];
	int ghost = st->halo;

	if (u->views)
		return;
	if (origin && ghost)
		st->use_ho |= 1u << d;
	else if (origin)
		st->use_lo |= 1u << d;
	else if (ghost)
		st->use_hx |= 1u << d;
	else
		st->use_ext |= 1u << d;
}

/* Record every component of the home buffer of "t" of one kind. */
static void dmd_uses_home_all(struct dmd_uses *u, int t, int origin)
{
	int d;

	for (d = 0; d < u->m->lay[t]->ndim; ++d)
		dmd_uses_home(u, t, origin, d);
}

/* Record buf_A of tensor "t". */
static void dmd_uses_buf(struct dmd_uses *u, int t)
{
	if (!u->views)
		u->spec->tensor[t].use_buf = 1;
}

/* Which buffer of its transfer the statement of "pl" uses at its node
 * (pl->which): the only one, or of two the one of the parity of its
 * "par" there, a number or not. */
static void dmd_uses_which(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	isl_ast_expr *par = dmd_spec_par(pl);
	isl_val *v;

	pl->which = DMD_SPEC_ONE;
	if (!x || !par || u->spec->xbuf[x->id].n_buf < 2)
		return;
	pl->which = DMD_SPEC_BY_PARITY;
	if (isl_ast_expr_get_type(par) != isl_ast_expr_int)
		return;
	v = isl_ast_expr_get_val(par);
	pl->which = isl_val_is_int(v) && isl_val_get_num_si(v) % 2 != 0 ?
		DMD_SPEC_SECOND : DMD_SPEC_FIRST;
	isl_val_free(v);
}

/* Record the buffer of its transfer that the statement of "pl" uses at
 * its node (pl->which): r3_A, r3a_A or r3b_A, or both of them and its
 * "par" when the parity is known at run time only. */
static void dmd_uses_xbuf(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	struct dmd_spec_xbuf *xb = &u->spec->xbuf[pl->stmt->xfer->id];

	if (u->views)
		return;
	switch (pl->which) {
	case DMD_SPEC_ONE:
		xb->use_r = 1;
		break;
	case DMD_SPEC_FIRST:
		xb->use_ra = 1;
		break;
	case DMD_SPEC_SECOND:
		xb->use_rb = 1;
		break;
	case DMD_SPEC_BY_PARITY:
		xb->use_ra = xb->use_rb = 1;
		dmd_uses_expr(u, dmd_spec_par(pl));
		break;
	}
}

/* Record rx<k>_A of transfer "x" (NULL for a scalar: nothing). */
static void dmd_uses_rx(struct dmd_uses *u, const struct dmd_xfer *x)
{
	if (!u->views && u->m->lay[x->tensor]->ndim > 0)
		u->spec->xbuf[x->id].use_rx = 1;
}

/* An index into a view ("t", "write") of elements e[0..nd): every
 * origin, the extents from dimension 1 on (dmd_emit_index). */
static void dmd_uses_index(struct dmd_uses *u, int t, int write,
	isl_ast_expr **e, int nd)
{
	int d;

	dmd_uses_view(u, t, write, 'p', 0);
	for (d = 0; d < nd; ++d) {
		dmd_uses_view(u, t, write, 'o', d);
		if (d > 0)
			dmd_uses_view(u, t, write, 'x', d);
	}
	dmd_uses_exprs(u, e, nd);
}

/* An index into the home buffer of "t" of elements e[0..nd): every
 * origin, the extents from dimension 1 on. */
static void dmd_uses_home_index(struct dmd_uses *u, int t, isl_ast_expr **e)
{
	int d, nd = u->m->lay[t]->ndim;

	for (d = 0; d < nd; ++d) {
		dmd_uses_home(u, t, 1, d);
		if (d > 0)
			dmd_uses_home(u, t, 0, d);
	}
	dmd_uses_exprs(u, e, nd);
}

/* The differences lo[d] - blo[d] of dmd_emit_rel_arr ("0" where the two
 * are the same expression). */
static void dmd_uses_rel(struct dmd_uses *u, isl_ast_expr **lo,
	isl_ast_expr **blo, int nd)
{
	int d;

	for (d = 0; d < nd; ++d) {
		if (isl_ast_expr_is_equal(lo[d], blo[d]) == isl_bool_true)
			continue;
		dmd_uses_expr(u, lo[d]);
		dmd_uses_expr(u, blo[d]);
	}
}

/* A view update of a wait or VIEW_HOME statement "pl" (dmd_emit_view):
 * the components of the view of the tensor of its transfer that the
 * step reads, from its home buffer ("home") or from the transfer's
 * buffer at the node (pl->which) with origins lo[]. */
static void dmd_uses_set_view(struct dmd_uses *u, struct dmd_spec_payload *pl,
	int home, isl_ast_expr **lo)
{
	const struct dmd_spec_view *v;
	int t = pl->stmt->xfer->tensor, d;

	if (u->views)
		return;
	v = dmd_spec_view_of(u->ss, t, 0);
	if (!v)
		return;
	if (v->ptr && home)
		dmd_uses_buf(u, t);
	else if (v->ptr)
		dmd_uses_xbuf(u, pl);
	for (d = 0; d < u->m->lay[t]->ndim; ++d) {
		if ((v->o >> d) & 1) {
			if (home)
				dmd_uses_home(u, t, 1, d);
			else
				dmd_uses_expr(u, lo[d]);
		}
		if (((v->x >> d) & 1) && home)
			dmd_uses_home(u, t, 0, d);
	}
}

/* The compute statement: each access through its view (the output's
 * through w_C). */
static void dmd_uses_comp(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	int a;

	for (a = 0; a < st->u.comp.n_acc; ++a) {
		const struct dmd_spec_access *acc = &st->u.comp.acc[a];
		const struct dmd_spec_view *v = &u->ss->view[acc->view];

		dmd_uses_index(u, v->tensor, v->write,
			dmd_spec_exprs(pl, acc->index), acc->n_index);
	}
}

/* The GEMM leaf: the corners of A and B through their views, of C
 * through w_C (dmd_emit_corner: origins 0 and 1, extent 1). */
static void dmd_uses_gemm(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_poly *p = u->p;
	const struct dmd_gemm_info *g = p->gemm;
	int acc[3] = { g->acc_a, g->acc_b, 0 }, i;

	for (i = 0; i < 3; ++i) {
		int t = p->acc[acc[i]].tensor;

		dmd_uses_view(u, t, i == 2, 'p', 0);
		dmd_uses_view(u, t, i == 2, 'o', 0);
		dmd_uses_view(u, t, i == 2, 'o', 1);
		dmd_uses_view(u, t, i == 2, 'x', 1);
	}
	dmd_uses_exprs(u, dmd_spec_exprs(pl, pl->stmt->u.gemm.lo), 3);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, pl->stmt->u.gemm.ext), 3);
	if (pl->stmt->u.gemm.org)
		dmd_uses_exprs(u, dmd_spec_exprs(pl, pl->stmt->u.gemm.org),
			6);
}

/* A post of a broadcast (dmd_emit_bcast). */
static void dmd_uses_bcast(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	int nd = u->m->lay[x->tensor]->ndim;

	dmd_uses_coord(u, x->axis);
	dmd_uses_expr(u, *dmd_spec_exprs(pl, st->u.bcast.root));
	dmd_uses_buf(u, x->tensor);
	dmd_uses_home_all(u, x->tensor, 0);
	dmd_uses_home_all(u, x->tensor, 1);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.bcast.lo), nd);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.bcast.ext), nd);
	dmd_uses_xbuf(u, pl);
	dmd_uses_rx(u, x);
}

/* A post of a ring shift: from the view (all its components, the box
 * sent relative to its origins), into the transfer's buffer. */
static void dmd_uses_shift(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	int nd = u->m->lay[x->tensor]->ndim, d;

	dmd_uses_view(u, x->tensor, 0, 'p', 0);
	for (d = 0; d < nd; ++d) {
		dmd_uses_view(u, x->tensor, 0, 'x', d);
		dmd_uses_view(u, x->tensor, 0, 'o', d);
	}
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.shift.plo), nd);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.shift.pext), nd);
	dmd_uses_xbuf(u, pl);
	dmd_uses_rx(u, x);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.shift.ext), nd);
}

/* The home buffer and a box in it (dmd_emit_home_box, arr_home). */
static void dmd_uses_home_box(struct dmd_uses *u, int t, isl_ast_expr **lo)
{
	dmd_uses_buf(u, t);
	dmd_uses_home_all(u, t, 0);
	dmd_uses_home_all(u, t, 1);
	dmd_uses_exprs(u, lo, u->m->lay[t]->ndim);
}

/* A box of the step's write buffer (w_C, all its extents, origins). */
static void dmd_uses_write_box(struct dmd_uses *u, int t)
{
	int d;

	dmd_uses_view(u, t, 1, 'p', 0);
	for (d = 0; d < u->m->lay[t]->ndim; ++d) {
		dmd_uses_view(u, t, 1, 'x', d);
		dmd_uses_view(u, t, 1, 'o', d);
	}
}

/* A post of a receive (dmd_emit_recv). */
static void dmd_uses_recv(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	int nd = u->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, st->u.recv.lo);

	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.recv.peer), u->m->mesh->n);
	if (st->u.recv.into == DMD_BUF_HOME) {
		dmd_uses_home_box(u, x->tensor, lo);
	} else {
		dmd_uses_xbuf(u, pl);
		dmd_uses_rx(u, x);
		dmd_uses_rel(u, lo, dmd_spec_exprs(pl, st->u.recv.blo), nd);
	}
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.recv.ext), nd);
	if (st->u.recv.comb)
		dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.recv.comb),
			(1 + 2 * st->u.recv.runs) * nd);
}

/* A post of a send (dmd_emit_send). */
static void dmd_uses_send(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	int nd = u->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, st->u.send.lo);

	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.send.peer), u->m->mesh->n);
	if (st->u.send.from == DMD_BUF_WRITE) {
		dmd_uses_write_box(u, x->tensor);
		dmd_uses_exprs(u, lo, nd);
	} else
		dmd_uses_home_box(u, x->tensor, lo);
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.send.ext), nd);
	if (st->u.send.comb)
		dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.send.comb),
			(1 + 2 * st->u.send.runs) * nd);
}

/* The copy of the rank's own piece (dmd_emit_self). */
static void dmd_uses_self(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	int nd = u->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, st->u.self.lo);

	if (st->u.self.from == DMD_BUF_WRITE) {
		dmd_uses_home_box(u, x->tensor, lo);
		dmd_uses_write_box(u, x->tensor);
	} else {
		dmd_uses_xbuf(u, pl);
		dmd_uses_rx(u, x);
		dmd_uses_rel(u, lo, dmd_spec_exprs(pl, st->u.self.blo), nd);
		dmd_uses_home_box(u, x->tensor, lo);
	}
	dmd_uses_exprs(u, dmd_spec_exprs(pl, st->u.self.ext), nd);
}

/* The wait of a transfer and the view update at its time point. */
static void dmd_uses_wait(struct dmd_uses *u, struct dmd_spec_payload *pl)
{
	const struct dmd_spec_stmt *st = pl->stmt;
	const struct dmd_xfer *x = st->xfer;
	isl_ast_expr **lo = dmd_spec_exprs(pl, st->u.wait.lo);

	if (!st->u.wait.set_view)
		return;
	if (st->u.wait.root) {
		dmd_uses_coord(u, x->axis);
		dmd_uses_expr(u, *dmd_spec_exprs(pl, st->u.wait.root));
		dmd_uses_set_view(u, pl, 1, NULL);
	}
	dmd_uses_set_view(u, pl, 0, lo);
}

static isl_bool dmd_uses_node(__isl_keep isl_ast_node *node, void *user);

/* Walk the zero nest of the step, printed at its marker. */
static void dmd_uses_zero(struct dmd_uses *u)
{
	if (isl_ast_node_foreach_descendant_top_down(u->ss->zero,
			&dmd_uses_node, u) < 0)
		u->err = 1;
}

/* Record what the statement of user node "node" prints (by kind, as
 * dmd_emit_user), once the buffer of its transfer it uses there is
 * chosen (dmd_uses_which). */
static void dmd_uses_stmt(struct dmd_uses *u, __isl_keep isl_ast_node *node)
{
	isl_id *id = isl_ast_node_get_annotation(node);
	struct dmd_spec_payload *pl = isl_id_get_user(id);
	const struct dmd_spec_stmt *st;
	int out = u->p->out;

	isl_id_free(id);
	if (!pl) {
		u->err = 1;
		return;
	}
	st = pl->stmt;
	dmd_uses_which(u, pl);
	switch (st->kind) {
	case DMD_SPEC_COMP:
		dmd_uses_comp(u, pl);
		break;
	case DMD_SPEC_GEMM:
		dmd_uses_gemm(u, pl);
		break;
	case DMD_SPEC_ZERO:
		if (!pl->n_expr) {	/* the marker: the zero nest there */
			dmd_uses_zero(u);
			break;
		}
		dmd_uses_buf(u, out);
		dmd_uses_home_index(u, out, dmd_spec_exprs(pl,
			st->u.zero.e));
		break;
	case DMD_SPEC_CLEAR:
		dmd_uses_xbuf(u, pl);
		break;
	case DMD_SPEC_BCAST:
		dmd_uses_bcast(u, pl);
		break;
	case DMD_SPEC_SHIFT:
		dmd_uses_shift(u, pl);
		break;
	case DMD_SPEC_RECV:
		dmd_uses_recv(u, pl);
		break;
	case DMD_SPEC_SEND:
		dmd_uses_send(u, pl);
		break;
	case DMD_SPEC_SELF:
		dmd_uses_self(u, pl);
		break;
	case DMD_SPEC_WAIT:
		dmd_uses_wait(u, pl);
		break;
	case DMD_SPEC_VIEW_HOME:
		dmd_uses_set_view(u, pl, 1, NULL);
		break;
	}
}

/* Record what AST node "node" prints: its loops' bounds, its
 * conditions, its statements (a callback of
 * isl_ast_node_foreach_descendant_top_down). */
static isl_bool dmd_uses_node(__isl_keep isl_ast_node *node, void *user)
{
	struct dmd_uses *u = user;
	isl_ast_expr *e[3] = { NULL };
	int i;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		e[0] = isl_ast_node_for_get_init(node);
		e[1] = isl_ast_node_for_get_cond(node);
		e[2] = isl_ast_node_for_get_inc(node);
		break;
	case isl_ast_node_if:
		e[0] = isl_ast_node_if_get_cond(node);
		break;
	case isl_ast_node_user:
		dmd_uses_stmt(u, node);
		break;
	default:
		break;
	}
	for (i = 0; i < 3; ++i) {
		dmd_uses_expr(u, e[i]);
		isl_ast_expr_free(e[i]);
	}
	return u->err ? isl_bool_error : isl_bool_true;
}

/* Walk the AST of step "s" (and its zero nest at its marker). */
static void dmd_uses_step(struct dmd_uses *u, int s)
{
	u->ss = &u->spec->steps[s];
	u->p = u->m->poly[s];
	if (isl_ast_node_foreach_descendant_top_down(u->ss->ast,
			&dmd_uses_node, u) < 0)
		u->err = 1;
}

/* Record one component ("origin" or extent) "d" of view "v" as declared
 * (dmd_emit_views): from the home buffer, the box of its transfer (the
 * buffer's extents are numbers), or chosen by the root test. */
static void dmd_uses_decl_comp(struct dmd_uses *u,
	const struct dmd_spec_view *v, int origin, int d)
{
	const struct dmd_xfer *x = v->xfer;

	if (v->root)
		dmd_uses_home(u, v->tensor, origin, d);
	if (v->home)
		dmd_uses_home(u, v->tensor, origin, d);
	else if (origin)
		dmd_uses_expr(u, u->spec->xbuf[x->id].lo[d]);
}

/* Record the names of the declarations of the views of step "ss". */
static void dmd_uses_decls(struct dmd_uses *u, struct dmd_spec_step *ss)
{
	int i, d;

	for (i = 0; i < ss->n_view; ++i) {
		const struct dmd_spec_view *v = &ss->view[i];
		const struct dmd_xfer *x = v->xfer;

		if (!v->ptr)
			continue;
		if (v->root) {
			dmd_uses_coord(u, x->axis);
			dmd_uses_expr(u, u->spec->xbuf[x->id].root);
			dmd_uses_buf(u, v->tensor);
		}
		if (v->home)
			dmd_uses_buf(u, v->tensor);
		else
			u->spec->xbuf[x->id].use_r = 1;
		for (d = 0; d < u->m->lay[v->tensor]->ndim; ++d) {
			if ((v->o >> d) & 1)
				dmd_uses_decl_comp(u, v, 1, d);
			if ((v->x >> d) & 1)
				dmd_uses_decl_comp(u, v, 0, d);
		}
		if (v->root && (v->o | v->x))
			dmd_uses_expr(u, u->spec->xbuf[x->id].root);
	}
}

/* The set-up of every tensor the program uses: its buffer, the read of
 * an input, the write of an output (dmd_emit_io: the block's origins and
 * extents, the home buffer's, the writers). */
static void dmd_uses_io(struct dmd_uses *u)
{
	const struct dmd_model *m = u->m;
	int t, d;

	for (t = 0; t < m->job->n_tensors; ++t) {
		struct dmd_spec_tensor *st = &u->spec->tensor[t];

		if (!m->use[t].used)
			continue;
		st->use_buf = 1;
		if (!m->use[t].input && !m->use[t].output)
			continue;
		for (d = 0; d < m->lay[t]->ndim; ++d) {
			st->use_lo |= 1u << d;
			st->use_ext |= 1u << d;
		}
		dmd_uses_home_all(u, t, 1);
		dmd_uses_home_all(u, t, 0);
		if (m->use[t].output)
			dmd_uses_expr(u, st->writer);
	}
}

/* The coordinates in the expressions of the tensors' block and home
 * buffer components the code uses (declared in the set-up). */
static void dmd_uses_scalars(struct dmd_uses *u)
{
	const struct dmd_model *m = u->m;
	int t, d;

	for (t = 0; t < m->job->n_tensors; ++t) {
		struct dmd_spec_tensor *st = &u->spec->tensor[t];

		for (d = 0; m->lay[t] && d < m->lay[t]->ndim; ++d) {
			if ((st->use_lo >> d) & 1)
				dmd_uses_expr(u, st->lo[d]);
			if ((st->use_ext >> d) & 1)
				dmd_uses_expr(u, st->ext[d]);
			if ((st->use_ho >> d) & 1)
				dmd_uses_expr(u, st->ho[d]);
			if ((st->use_hx >> d) & 1)
				dmd_uses_expr(u, st->hx[d]);
		}
	}
}

/* The buffers, views and identifiers of the program of "spec" (see the
 * top of this file). */
int dmd_spec_uses(struct dmd_spec *spec)
{
	const struct dmd_plan *plan = spec->plan;
	const struct dmd_model *m = plan->m;
	struct dmd_uses u = { .spec = spec, .m = m, .plan = plan };
	int i, s;

	spec->tensor = calloc(m->job->n_tensors + 1, sizeof(*spec->tensor));
	spec->xbuf = calloc(plan->n_xfer + 1, sizeof(*spec->xbuf));
	spec->use_coord = calloc(m->mesh->n_all + 1, sizeof(int));
	u.coord = calloc(m->mesh->n_all + 1, sizeof(char *));
	if (!spec->tensor || !spec->xbuf || !spec->use_coord || !u.coord ||
	    dmd_uses_sizes(spec) < 0 || dmd_uses_quantities(spec) < 0)
		u.err = 1;
	for (i = 0; !u.err && i < m->mesh->n_all; ++i)
		if (!(u.coord[i] = dmd_mesh_coord_name(m->job, i)))
			u.err = 1;
	for (s = 0; !u.err && s < spec->n_step; ++s)
		if (dmd_uses_views(spec, s) < 0)
			u.err = 1;
	for (u.views = 1; u.views >= 0 && !u.err; --u.views)
		for (s = 0; !u.err && s < spec->n_step; ++s) {
			dmd_uses_step(&u, s);
			if (!u.views)
				dmd_uses_decls(&u, u.ss);
		}
	u.views = 0;
	dmd_uses_io(&u);
	dmd_uses_scalars(&u);
	for (i = 0; u.coord && i < m->mesh->n_all; ++i)
		free(u.coord[i]);
	free(u.coord);
	return u.err ? -1 : 0;
}

/* Free the expressions of "e" (NULL-terminated). */
static void dmd_uses_free_exprs(isl_ast_expr **e)
{
	int i;

	for (i = 0; e && e[i]; ++i)
		isl_ast_expr_free(e[i]);
	free(e);
}

/* Release what dmd_spec_uses added to "spec". */
void dmd_spec_uses_free(struct dmd_spec *spec)
{
	const struct dmd_plan *plan = spec->plan;
	int i;

	for (i = 0; spec->tensor && i < plan->m->job->n_tensors; ++i) {
		dmd_uses_free_exprs(spec->tensor[i].lo);
		dmd_uses_free_exprs(spec->tensor[i].ext);
		dmd_uses_free_exprs(spec->tensor[i].ho);
		dmd_uses_free_exprs(spec->tensor[i].hx);
		isl_ast_expr_free(spec->tensor[i].writer);
	}
	for (i = 0; spec->xbuf && i < plan->n_xfer; ++i) {
		free(spec->xbuf[i].ext);
		dmd_uses_free_exprs(spec->xbuf[i].lo);
		isl_ast_expr_free(spec->xbuf[i].root);
	}
	free(spec->tensor);
	free(spec->xbuf);
	free(spec->use_coord);
	for (i = 0; spec->steps && i < spec->n_step; ++i)
		free(spec->steps[i].view);
}
