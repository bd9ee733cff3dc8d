/* dmd_spec.c: the per-class program as statements placed in one schedule
 * (2d+1 form), and its isl AST generated with the class as context.
 *
 * With time loops [kor] and a broadcast of B then the GEMM leaf at kor:
 *   { X1[kor] -> [0, kor, 0]; gemm[kor] -> [0, kor, 1] }
 * Under the context [x, y] -> { : x = 1 and y = 0 }, guards that hold for
 * the whole class disappear and the coordinates fold into constants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/val.h>
#include <isl/id.h>
#include <isl/ast.h>
#include <isl/ast_build.h>

#include "specialize/dmd_spec.h"

/* "pa" (over the parameters and possibly a statement space) with the
 * domain tuple renamed to "name". */
static __isl_give isl_pw_aff *renamed(__isl_keep isl_pw_aff *pa,
	const char *name)
{
	return isl_pw_aff_set_tuple_id(isl_pw_aff_copy(pa), isl_dim_in,
		isl_id_alloc(isl_pw_aff_get_ctx(pa), name, NULL));
}

/* "pa" completed with 0 on the points of "dom" where it is undefined,
 * so that a transfer's extents are 0 (not undefined) when nothing is
 * needed. */
static __isl_give isl_pw_aff *completed(__isl_take isl_pw_aff *pa,
	__isl_keep isl_set *dom)
{
	isl_set *rest;
	isl_pw_aff *zero;

	rest = isl_set_subtract(isl_set_copy(dom),
		isl_pw_aff_domain(isl_pw_aff_copy(pa)));
	zero = isl_pw_aff_zero_on_domain(isl_local_space_from_space(
		isl_set_get_space(rest)));
	zero = isl_pw_aff_intersect_domain(zero, rest);
	return isl_pw_aff_coalesce(isl_pw_aff_union_add(pa, zero));
}

/* Add a statement of type "type" for transfer "xi" named "name". */
static struct dmd_stmt *add_stmt(struct dmd_prog *p, enum dmd_stmt_type type,
	int xi, const char *name)
{
	struct dmd_stmt *s;

	p->stmt = realloc(p->stmt, (p->n_stmt + 1) * sizeof(*p->stmt));
	s = &p->stmt[p->n_stmt++];
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->xfer = xi;
	s->name = strdup(name);
	return s;
}

/* Append a quantity the statement prints. */
static void push_pa(struct dmd_stmt *s, __isl_take isl_pw_aff *pa)
{
	s->pa[s->n_pa++] = pa;
}

/* The schedule of statement "name" whose domain has the first "len"
 * time loops (and "npeer" peer coordinates), placed with "beta":
 *   { name[t0, t1, p0] -> [b0, t0, b1, t1, b2, 0, ..., p0, 0..] } */
static __isl_give isl_map *placement(struct dmd_prog *p, const char *name,
	int len, int npeer, const int *beta, int K)
{
	struct dmd_model *m = p->m;
	char s[4096];
	size_t n = 0;
	int i, np = m->job->n_axes;

	n += sprintf(s + n, "%s -> { %s[", dmd_model_params(m), name);
	for (i = 0; i < len; ++i)
		n += sprintf(s + n, "%st%d", i ? ", " : "", i);
	for (i = 0; i < npeer; ++i)
		n += sprintf(s + n, "%sp%d", i || len ? ", " : "", i);
	n += sprintf(s + n, "] -> [");
	for (i = 0; i <= K; ++i) {
		n += sprintf(s + n, "%s%d", i ? ", " : "", i <= len ? beta[i] : 0);
		if (i < K) {
			if (i < len)
				n += sprintf(s + n, ", t%d", i);
			else
				n += sprintf(s + n, ", 0");
		}
	}
	for (i = 0; i < np; ++i) {
		if (i < npeer)
			n += sprintf(s + n, ", p%d", i);
		else
			n += sprintf(s + n, ", 0");
	}
	sprintf(s + n, "] }");
	return isl_map_read_from_str(m->ctx, s);
}

/* beta for a statement at level "level" taking slot "slot": the slots
 * used at the shallower levels come first. */
static void betas(const int *cnt, int level, int slot, int *beta)
{
	int j;

	for (j = 0; j <= level; ++j)
		beta[j] = cnt[j];	/* cnt[j]: slots at level j - 1 */
	beta[level + 1] = slot;
}

/* Add "map" (restricted to "dom" and the cell) to the schedule. */
static void place(struct dmd_prog *p, __isl_take isl_map *map,
	__isl_take isl_set *dom)
{
	map = isl_map_intersect_domain(map, dom);
	map = isl_map_intersect_params(map, isl_set_copy(p->cell));
	if (isl_map_is_empty(map)) {
		isl_map_free(map);
		return;
	}
	p->sched = isl_union_map_union(p->sched, isl_union_map_from_map(map));
}

/* The pw_aff of "dom" (a set with "n" dims) that is its dimension "d". */
static __isl_give isl_pw_aff *dim_pa(__isl_keep isl_set *dom, int d)
{
	isl_local_space *ls = isl_local_space_from_space(
		isl_set_get_space(dom));
	return isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, d));
}

/* Statements of a point-to-point transfer, restricted to "dom". */
static void add_p2p(struct dmd_prog *p, int xi, __isl_keep isl_set *dom,
	int *cnt, int *slot, int K)
{
	struct dmd_model *m = p->m;
	struct dmd_xfer *x = &m->xfer[xi];
	struct dmd_p2p *pp = x->p2p;
	int nd = m->job->tensors[x->tensor].ndim, np = m->job->n_axes;
	int len = x->level + 1, d, beta[DMD_MAX_LOOPS + 2];
	struct dmd_stmt *s;
	char name[64];
	isl_set *rd, *sd, *fd;

	/* begin: the view becomes the receive buffer */
	snprintf(name, sizeof(name), "%s_begin_%d", x->name, *slot);
	s = add_stmt(p, DMD_STMT_BEGIN, xi, name);
	{
		isl_set *bd = isl_set_set_tuple_name(isl_set_copy(dom), name);
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_lo[d], name), bd));
		isl_set_free(bd);
	}
	betas(cnt, x->level, (*slot)++, beta);
	place(p, placement(p, name, len, 0, beta, K),
		isl_set_set_tuple_name(isl_set_copy(dom), name));

	snprintf(name, sizeof(name), "%s_recv", x->name);
	s = add_stmt(p, DMD_STMT_RECV, xi, name);
	rd = isl_set_set_tuple_name(isl_set_copy(pp->recv_dom), name);
	for (d = 0; d < np; ++d)
		push_pa(s, dim_pa(rd, len + d));
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->recv_lo[d], name));
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->recv_ext[d], name));
	betas(cnt, x->level, (*slot)++, beta);
	place(p, placement(p, name, len, np, beta, K), rd);

	snprintf(name, sizeof(name), "%s_self", x->name);
	s = add_stmt(p, DMD_STMT_SELF, xi, name);
	fd = isl_set_set_tuple_name(isl_set_copy(pp->self_dom), name);
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->self_lo[d], name));
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->self_ext[d], name));
	betas(cnt, x->level, (*slot)++, beta);
	place(p, placement(p, name, len, 0, beta, K), fd);

	snprintf(name, sizeof(name), "%s_send", x->name);
	s = add_stmt(p, DMD_STMT_SEND, xi, name);
	sd = isl_set_set_tuple_name(isl_set_copy(pp->send_dom), name);
	for (d = 0; d < np; ++d)
		push_pa(s, dim_pa(sd, len + d));
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->send_lo[d], name));
	for (d = 0; d < nd; ++d)
		push_pa(s, renamed(pp->send_ext[d], name));
	betas(cnt, x->level, (*slot)++, beta);
	place(p, placement(p, name, len, np, beta, K), sd);

	snprintf(name, sizeof(name), "%s_end_%d", x->name, *slot);
	add_stmt(p, DMD_STMT_END, xi, name);
	betas(cnt, x->level, (*slot)++, beta);
	place(p, placement(p, name, len, 0, beta, K),
		isl_set_set_tuple_name(isl_set_copy(dom), name));
}

/* dom restricted to t_level = its minimum (first != 0) or above it. */
static __isl_give isl_set *first_step(struct dmd_xfer *x, int first)
{
	isl_val *v = isl_set_dim_min_val(isl_set_copy(x->dom), x->level);
	isl_set *s = isl_set_copy(x->dom);

	if (first)
		s = isl_set_fix_val(s, isl_dim_set, x->level, v);
	else
		s = isl_set_lower_bound_val(s, isl_dim_set, x->level,
			isl_val_add_ui(v, 1));
	return s;
}

/* The statements of transfer "xi". */
static void add_xfer(struct dmd_prog *p, int xi, int *cnt, int *slots,
	int K)
{
	struct dmd_model *m = p->m;
	struct dmd_xfer *x = &m->xfer[xi];
	int nd = m->job->tensors[x->tensor].ndim, d, len = x->level + 1;
	int beta[DMD_MAX_LOOPS + 2];
	int *slot = &slots[x->level + 1];
	struct dmd_stmt *s;
	isl_set *dom;

	if (x->kind == DMD_XFER_LOCAL)
		return;
	if (x->kind == DMD_XFER_BCAST) {
		s = add_stmt(p, DMD_STMT_BCAST, xi, x->name);
		push_pa(s, renamed(x->root, x->name));
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_lo[d], x->name),
				x->dom));
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_ext[d], x->name),
				x->dom));
		betas(cnt, x->level, (*slot)++, beta);
		place(p, placement(p, x->name, len, 0, beta, K),
			isl_set_copy(x->dom));
		return;
	}
	if (x->kind == DMD_XFER_P2P) {
		add_p2p(p, xi, x->dom, cnt, slot, K);
		return;
	}
	if (x->kind == DMD_XFER_RETURN) {
		/* after the computation, which has beta[0] = cnt[0] */
		int after = cnt[0] + 1;
		add_p2p(p, xi, x->dom, cnt, &after, K);
		return;
	}
	/* shift: the first step, then the ring */
	dom = first_step(x, 1);
	if (x->first_local) {
		char name[64];
		isl_set *fd;
		snprintf(name, sizeof(name), "%s_first", x->name);
		s = add_stmt(p, DMD_STMT_VIEW_LOCAL, xi, name);
		fd = isl_set_set_tuple_name(isl_set_copy(x->dom), name);
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_lo[d], name), fd));
		isl_set_free(fd);
		betas(cnt, x->level, (*slot)++, beta);
		place(p, placement(p, name, len, 0, beta, K),
			isl_set_set_tuple_name(dom, name));
	} else {
		add_p2p(p, xi, dom, cnt, slot, K);
		isl_set_free(dom);
	}
	{
		char name[64];
		isl_multi_aff *prev;
		char str[1024];
		size_t n = 0;
		int i;

		snprintf(name, sizeof(name), "%s_shift", x->name);
		s = add_stmt(p, DMD_STMT_SHIFT, xi, name);
		dom = isl_set_set_tuple_name(isl_set_copy(x->dom), name);
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_lo[d], name),
				dom));
		for (d = 0; d < nd; ++d)
			push_pa(s, completed(renamed(x->need_ext[d], name),
				dom));
		/* the previous step's box */
		n += sprintf(str + n, "{ %s[", name);
		for (i = 0; i < len; ++i)
			n += sprintf(str + n, "%st%d", i ? ", " : "", i);
		n += sprintf(str + n, "] -> %s[", name);
		for (i = 0; i < len; ++i)
			n += sprintf(str + n, "%st%d%s", i ? ", " : "", i,
				i == len - 1 ? " - 1" : "");
		sprintf(str + n, "] }");
		for (d = 0; d < nd; ++d) {
			prev = isl_multi_aff_read_from_str(m->ctx, str);
			push_pa(s, isl_pw_aff_pullback_multi_aff(
				isl_pw_aff_copy(s->pa[nd + d]), prev));
		}
		isl_set_free(dom);
		betas(cnt, x->level, (*slot)++, beta);
		place(p, placement(p, name, len, 0, beta, K),
			isl_set_set_tuple_name(first_step(x, 0), name));
	}
}

/* The number of slots each transfer takes at its level. */
static int xfer_slots(struct dmd_xfer *x)
{
	switch (x->kind) {
	case DMD_XFER_LOCAL:
		return 0;
	case DMD_XFER_BCAST:
		return 1;
	case DMD_XFER_P2P:
		return 5;
	case DMD_XFER_SHIFT:
		return (x->first_local ? 1 : 5) + 1;
	case DMD_XFER_RETURN:
		return 0;	/* after the computation */
	}
	return 0;
}

/* The compute statement: the per-rank schedule composed with the
 * placement after every transfer. */
static void add_compute(struct dmd_prog *p, const int *cnt, int K)
{
	struct dmd_model *m = p->m;
	int beta[DMD_MAX_LOOPS + 2], j;
	isl_map *pl, *s;

	for (j = 0; j <= K; ++j)
		beta[j] = cnt[j];
	if (m->gemm) {
		struct dmd_stmt *st = add_stmt(p, DMD_STMT_GEMM, -1, "gemm");
		for (j = 0; j < 3; ++j)
			push_pa(st, isl_pw_aff_copy(m->gemm->lo[j]));
		for (j = 0; j < 3; ++j)
			push_pa(st, isl_pw_aff_copy(m->gemm->ext[j]));
		pl = placement(p, "gemm", K, 0, beta, K);
		place(p, pl, isl_set_copy(m->gemm->dom));
		return;
	}
	add_stmt(p, DMD_STMT_COMP, -1, "S");
	pl = placement(p, "L", K, 0, beta, K);
	s = isl_map_apply_range(isl_map_copy(m->rsched), pl);
	place(p, s, isl_map_domain(isl_map_copy(m->rsched)));
}

/* The statement whose domain tuple is "name". */
static struct dmd_stmt *find_stmt(struct dmd_prog *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_stmt; ++i)
		if (!strcmp(p->stmt[i].name, name))
			return &p->stmt[i];
	return NULL;
}

/* Free a payload (the free_user of its isl_id). */
static void payload_free(void *user)
{
	struct dmd_payload *pl = user;
	int i;

	for (i = 0; i < pl->n_expr; ++i)
		isl_ast_expr_free(pl->expr[i]);
	free(pl->expr);
	free(pl);
}

/* The expression of "pa" at "build"; 0 where "pa" is nowhere defined
 * (a quantity of an empty transfer, e.g. the extent of a box that no
 * rank of this class needs). */
__isl_give isl_ast_expr *dmd_spec_expr(__isl_keep isl_ast_build *build,
	__isl_take isl_pw_aff *pa, __isl_keep isl_set *where)
{
	isl_set *dom;
	isl_bool empty;

	dom = isl_pw_aff_domain(isl_pw_aff_copy(pa));
	if (isl_set_dim(where, isl_dim_set) == 0)
		dom = isl_set_intersect_params(dom, isl_set_copy(where));
	else
		dom = isl_set_intersect(dom, isl_set_copy(where));
	empty = isl_set_is_empty(dom);
	isl_set_free(dom);
	if (empty != isl_bool_false) {
		isl_ctx *ctx = isl_pw_aff_get_ctx(pa);
		isl_pw_aff_free(pa);
		return isl_ast_expr_from_val(isl_val_zero(ctx));
	}
	return isl_ast_build_expr_from_pw_aff(build, pa);
}

/* Attach to each user node the expressions its statement needs, in
 * terms of the AST iterators: each pw_aff is pulled back by the inverse
 * of the schedule at this point and turned into an expression. */
static __isl_give isl_ast_node *at_each_domain(__isl_take isl_ast_node *node,
	__isl_keep isl_ast_build *build, void *user)
{
	struct dmd_prog *p = user;
	isl_union_map *us = isl_ast_build_get_schedule(build);
	isl_map *s = isl_map_from_union_map(us);
	char name[128];
	struct dmd_stmt *st;
	struct dmd_payload *pl;
	isl_pw_multi_aff *iter;
	isl_set *where;
	isl_id *id;
	int i, d;

	snprintf(name, sizeof(name), "%s", isl_map_get_tuple_name(s,
		isl_dim_in));
	st = find_stmt(p, name);
	where = isl_map_range(isl_map_copy(s));
	iter = isl_pw_multi_aff_from_map(isl_map_reverse(s));
	pl = calloc(1, sizeof(*pl));
	pl->stmt = st;
	if (st->type == DMD_STMT_COMP) {
		struct dmd_model *m = p->m;
		int n = 0;
		for (i = 0; i < m->n_acc; ++i)
			n += m->acc[i].expr->n_arg;
		pl->expr = calloc(n + 1, sizeof(isl_ast_expr *));
		for (i = 0; i < m->n_acc; ++i) {
			isl_pw_multi_aff *a = isl_pw_multi_aff_from_map(
				isl_map_copy(m->acc[i].map));
			a = isl_pw_multi_aff_pullback_pw_multi_aff(a,
				isl_pw_multi_aff_copy(iter));
			for (d = 0; d < m->acc[i].expr->n_arg; ++d) {
				isl_pw_aff *pa = isl_pw_multi_aff_get_pw_aff(a,
					d);
				pl->expr[pl->n_expr++] =
					dmd_spec_expr(build, pa, where);
			}
			isl_pw_multi_aff_free(a);
		}
	} else {
		pl->expr = calloc(st->n_pa + 1, sizeof(isl_ast_expr *));
		for (i = 0; i < st->n_pa; ++i) {
			isl_pw_aff *pa = isl_pw_aff_pullback_pw_multi_aff(
				isl_pw_aff_copy(st->pa[i]),
				isl_pw_multi_aff_copy(iter));
			pa = isl_pw_aff_coalesce(pa);
			pl->expr[pl->n_expr++] = dmd_spec_expr(build, pa, where);
		}
	}
	isl_pw_multi_aff_free(iter);
	isl_set_free(where);
	id = isl_id_alloc(p->m->ctx, name, pl);
	id = isl_id_set_free_user(id, &payload_free);
	return isl_ast_node_set_annotation(node, id);
}

/* Build the program of "cell": its statements, schedule and AST. */
__isl_give struct dmd_prog *dmd_spec_prog(struct dmd_model *m,
	__isl_keep isl_set *cell)
{
	struct dmd_prog *p;
	int cnt[DMD_MAX_LOOPS + 2] = { 0 }, slots[DMD_MAX_LOOPS + 2] = { 0 };
	int K, i, np = m->job->n_axes;
	isl_id_list *iters;
	isl_ast_build *build;

	p = calloc(1, sizeof(*p));
	p->m = m;
	p->cell = isl_set_copy(cell);
	K = m->n_time - m->n_tens;
	p->sched = isl_union_map_empty(isl_set_get_space(m->mesh));
	for (i = 0; i < m->n_xfer; ++i)
		cnt[m->xfer[i].level + 1] += xfer_slots(&m->xfer[i]);
	for (i = 0; i < m->n_xfer; ++i)
		add_xfer(p, i, cnt, slots, K);
	add_compute(p, cnt, K);

	iters = isl_id_list_alloc(m->ctx, 2 * K + 1 + np);
	for (i = 0; i <= K; ++i) {
		char b[32];
		snprintf(b, sizeof(b), "b%d", i);
		iters = isl_id_list_add(iters, isl_id_alloc(m->ctx, b, NULL));
		if (i < K)
			iters = isl_id_list_add(iters, isl_id_alloc(m->ctx,
				m->loops[m->time_loop[i]].name, NULL));
	}
	for (i = 0; i < np; ++i) {
		char b[64];
		snprintf(b, sizeof(b), "peer_%s", m->job->axes[i]);
		iters = isl_id_list_add(iters, isl_id_alloc(m->ctx, b, NULL));
	}
	if (getenv("DMD_DEBUG"))
		isl_union_map_dump(p->sched);
	build = isl_ast_build_from_context(isl_set_copy(cell));
	build = isl_ast_build_set_iterators(build, iters);
	build = isl_ast_build_set_at_each_domain(build, &at_each_domain, p);
	p->ast = isl_ast_build_node_from_schedule_map(build,
		isl_union_map_copy(p->sched));
	isl_ast_build_free(build);
	p->pbuild = isl_ast_build_from_context(isl_set_copy(cell));
	if (!p->ast || !p->pbuild)
		return dmd_spec_prog_free(p);
	return p;
}

/* Free the program; returns NULL. */
struct dmd_prog *dmd_spec_prog_free(__isl_take struct dmd_prog *p)
{
	int i, j;

	if (!p)
		return NULL;
	for (i = 0; i < p->n_stmt; ++i) {
		free(p->stmt[i].name);
		for (j = 0; j < p->stmt[i].n_pa; ++j)
			isl_pw_aff_free(p->stmt[i].pa[j]);
	}
	free(p->stmt);
	isl_set_free(p->cell);
	isl_union_map_free(p->sched);
	isl_ast_node_free(p->ast);
	isl_ast_build_free(p->pbuild);
	free(p);
	return NULL;
}
