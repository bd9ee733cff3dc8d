/* dmd_expr_check.c: the checks of what the job's small languages say,
 * each in one place: affine indices and dist entries, the accesses of
 * the statement, and what the arguments of a schedule command decide
 * alone (what needs the loops of a step is checked by the analysis,
 * ir/dmd_poly.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_expr_private.h"

/* Report "'<e>' in <what> <msg>" at the operator of "e". */
static void dmd_expr_node_error(struct dmd_expr_parser *p,
	const struct dmd_expr *e, const char *msg)
{
	char *s = dmd_expr_to_msg(e);

	dmd_expr_error(p, e->loc, "'%s' in %s %s", s ? s : "?",
		p->src->what, msg);
	free(s);
}

/* Check that constant "e" with value "val" is within +-DMD_MAX_INT. */
static int dmd_expr_check_range(struct dmd_expr_parser *p,
	const struct dmd_expr *e, long val)
{
	if (val >= -DMD_MAX_INT && val <= DMD_MAX_INT)
		return 1;
	dmd_expr_node_error(p, e, "is out of range (integers in indices and "
		"dist entries are at most 2^62 in absolute value)");
	return -1;
}

/* Check that "e" (from dmd_expr_parse_aff) is (quasi-)affine: products
 * have a constant side, divisors are positive constants, constants and
 * constant parts lie within +-DMD_MAX_INT.  Returns 1 if "e" is constant
 * (its value in *val), 0 if not, -1 after an error. */
int dmd_expr_check_aff(struct dmd_expr_parser *p,
	const struct dmd_expr *e, long *val)
{
	long a = 0, b = 0;
	int ra, rb;

	switch (e->type) {
	case DMD_EXPR_INT:
		*val = e->ival;
		return dmd_expr_check_range(p, e, *val);
	case DMD_EXPR_VAR:
		return 0;
	case DMD_EXPR_NEG:
		ra = dmd_expr_check_aff(p, e->args[0], &a);
		if (ra == 1 && a == LONG_MIN) {
			dmd_expr_node_error(p, e, "overflows");
			return -1;
		}
		*val = -a;
		return ra;
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		break;
	default:
		dmd_expr_node_error(p, e, "is not affine");
		return -1;
	}
	ra = dmd_expr_check_aff(p, e->args[0], &a);
	if (ra < 0)
		return -1;
	rb = dmd_expr_check_aff(p, e->args[1], &b);
	if (rb < 0)
		return -1;
	if (e->type == DMD_EXPR_MUL && ra == 0 && rb == 0) {
		dmd_expr_node_error(p, e, "is not affine");
		return -1;
	}
	if ((e->type == DMD_EXPR_FDIV || e->type == DMD_EXPR_MOD) &&
	    (rb == 0 || b <= 0)) {
		dmd_expr_node_error(p, e,
			"does not divide by a positive integer constant");
		return -1;
	}
	if (ra == 0 || rb == 0)
		return 0;
	if (dmd_expr_fold(e->type, a, b, val) < 0) {
		dmd_expr_node_error(p, e, "overflows");
		return -1;
	}
	return dmd_expr_check_range(p, e, *val);
}

/* Check one access of the statement being parsed by "p": a declared
 * tensor, one index per dimension, affine indices.  The extents of the
 * dimensions an index variable indexes need not agree: it ranges over
 * the values where every access is in bounds (spec 1.3; the iteration
 * domain of ir/dmd_poly.c). */
int dmd_expr_check_access(struct dmd_expr_parser *p,
	const struct dmd_expr *e)
{
	const struct dmd_tensor *tensor;
	int t, d;
	long val;

	t = dmd_job_find_tensor(p->job, e->name);
	if (t < 0) {
		dmd_expr_error(p, e->loc, "tensor '%s' is not declared",
			e->name);
		return -1;
	}
	tensor = &p->job->tensors[t];
	if (e->n_arg != tensor->ndim) {
		dmd_expr_error(p, e->loc, "tensor '%s' has %d dimension%s "
			"but is accessed with %d ind%s", e->name, tensor->ndim,
			tensor->ndim == 1 ? "" : "s", e->n_arg,
			e->n_arg == 1 ? "ex" : "ices");
		return -1;
	}
	for (d = 0; d < e->n_arg; ++d)
		if (dmd_expr_check_aff(p, e->args[d], &val) < 0)
			return -1;
	return 0;
}

/* Check every access in "e", left to right. */
int dmd_expr_check_rhs(struct dmd_expr_parser *p,
	const struct dmd_expr *e)
{
	int i;

	if (e->type == DMD_EXPR_ACCESS)
		return dmd_expr_check_access(p, e);
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_expr_check_rhs(p, e->args[i]) < 0)
			return -1;
	return 0;
}

/* Check the number and kinds of the arguments of "cmd" against "kinds"
 * (see dmd_expr_cmds), turning lone identifiers into lists where lists
 * are expected. */
int dmd_expr_check_kinds(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd, const char *name, const char *kinds,
	const char *arity)
{
	int i, n = strlen(kinds);
	int ok;

	if (kinds[0] == '*') {
		if (cmd->n_args == 1 && cmd->args[0].kind == DMD_ARG_LIST &&
		    dmd_expr_flatten(p, cmd) < 0)
			return -1;
		ok = cmd->n_args >= 1;
	} else if (cmd->type == DMD_CMD_DIVIDE)
		ok = cmd->n_args == 4 || cmd->n_args == 5;
	else
		ok = cmd->n_args == n;
	if (!ok) {
		dmd_expr_error(p, cmd->loc, "%s takes %s, got %d", name,
			arity, cmd->n_args);
		return -1;
	}
	for (i = 0; i < cmd->n_args; ++i) {
		struct dmd_sched_arg *arg = &cmd->args[i];
		char kind = kinds[0] == '*' ? 'i' : kinds[i];

		if (kind == 'l' && arg->kind == DMD_ARG_ID &&
		    dmd_expr_arg_to_list(p, arg) < 0)
			return -1;
		if (kind == 'i' && arg->kind != DMD_ARG_ID)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"a name", i + 1, name);
		else if (kind == 'n' && arg->kind != DMD_ARG_INT)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"an integer", i + 1, name);
		else if (kind == 'l' && arg->kind != DMD_ARG_LIST)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"a list of names", i + 1, name);
		else
			continue;
		return -1;
	}
	return 0;
}

/* Is "id" one of ids[0..n)? */
static int dmd_expr_listed(char *const *ids, int n, const char *id)
{
	int i;

	for (i = 0; i < n; ++i)
		if (!strcmp(ids[i], id))
			return 1;
	return 0;
}

/* Check that no name appears twice in lists args[0..n) of "cmd" (taken
 * together); otherwise report "<name>: <what> '<id>' appears twice" at the
 * second one. */
static int dmd_expr_check_twice(struct dmd_expr_parser *p,
	const struct dmd_sched_arg *args, int n, const char *name,
	const char *what)
{
	int a, b, i;

	for (a = 0; a < n; ++a)
		for (i = 0; i < args[a].n; ++i) {
			int twice = dmd_expr_listed(args[a].ids, i,
				args[a].ids[i]);

			for (b = 0; b < a && !twice; ++b)
				twice = dmd_expr_listed(args[b].ids, args[b].n,
					args[a].ids[i]);
			if (!twice)
				continue;
			dmd_expr_error(p, args[a].locs[i], "%s: %s '%s' "
				"appears twice", name, what, args[a].ids[i]);
			return -1;
		}
	return 0;
}

/* The checks of rotate(t, [v..], r) beyond the kinds of its arguments:
 * the new loop "r" is not "t", and "t" is not in the list. */
static int dmd_expr_check_rotate(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *args = cmd->args;
	int i;

	if (!strcmp(args[2].id, args[0].id)) {
		dmd_expr_error(p, args[2].loc, "rotate: the new loop needs a "
			"name other than '%s'", args[0].id);
		return -1;
	}
	for (i = 0; i < args[1].n; ++i) {
		if (strcmp(args[1].ids[i], args[0].id))
			continue;
		dmd_expr_error(p, args[1].locs[i], "rotate: loop '%s' cannot "
			"be rotated by itself", args[0].id);
		return -1;
	}
	return dmd_expr_check_twice(p, &args[1], 1, "rotate", "loop");
}

/* The checks of each command beyond the kinds of its arguments, those
 * that its arguments decide (those that need the loops are done by the
 * analysis). */
int dmd_expr_check_cmd(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd, const char *name)
{
	struct dmd_sched_arg *args = cmd->args;
	int i;

	switch (cmd->type) {
	case DMD_CMD_DIVIDE:
	case DMD_CMD_SPLIT:
		if (args[3].ival < 1) {
			dmd_expr_error(p, args[3].loc, "the %s of %s must be "
				">= 1, got %ld", cmd->type == DMD_CMD_DIVIDE ?
				"number of parts" : "chunk size", name,
				args[3].ival);
			return -1;
		}
		if (args[3].ival > DMD_MAX_INT) {
			dmd_expr_error(p, args[3].loc, "the %s of %s must be "
				"at most 2^62, got %ld",
				cmd->type == DMD_CMD_DIVIDE ?
				"number of parts" : "chunk size", name,
				args[3].ival);
			return -1;
		}
		if (!strcmp(args[1].id, args[2].id)) {
			dmd_expr_error(p, args[2].loc, "%s: the two new loops "
				"need different names", name);
			return -1;
		}
		if (cmd->n_args == 5) {
			if (strcmp(args[4].id, "balanced") != 0) {
				dmd_expr_error(p, args[4].loc, "argument 5 of "
					"divide must be 'balanced', got '%s'",
					args[4].id);
				return -1;
			}
			cmd->balanced = 1;
		}
		return 0;
	case DMD_CMD_DISTRIBUTE:
		if (args[0].n == 0) {
			dmd_expr_error(p, args[0].loc,
				"distribute needs at least one loop");
			return -1;
		}
		for (i = 1; i < 4; ++i) {
			if (args[i].n == args[0].n)
				continue;
			dmd_expr_error(p, args[i].loc, "argument %d of "
				"distribute has %d name%s but argument 1 has "
				"%d", i + 1, args[i].n,
				args[i].n == 1 ? "" : "s", args[0].n);
			return -1;
		}
		if (dmd_expr_check_twice(p, args, 3, name, "loop") < 0)
			return -1;
		for (i = 0; i < args[3].n; ++i) {
			if (dmd_job_find_axis(p->job, args[3].ids[i]) >= 0)
				continue;
			dmd_expr_error(p, args[3].locs[i], "unknown mesh axis "
				"'%s' in distribute", args[3].ids[i]);
			return -1;
		}
		return dmd_expr_check_twice(p, &args[3], 1, name, "mesh axis");
	case DMD_CMD_ROTATE:
		return dmd_expr_check_rotate(p, cmd);
	case DMD_CMD_COMMUNICATE:
		if (args[0].n == 0) {
			dmd_expr_error(p, args[0].loc,
				"communicate needs at least one tensor");
			return -1;
		}
		for (i = 0; i < args[0].n; ++i) {
			if (dmd_job_find_tensor(p->job, args[0].ids[i]) >= 0)
				continue;
			dmd_expr_error(p, args[0].locs[i], "tensor '%s' is not "
				"declared", args[0].ids[i]);
			return -1;
		}
		return dmd_expr_check_twice(p, args, 1, name, "tensor");
	case DMD_CMD_TENSORIZE:
		if (strcmp(args[1].id, "gemm") != 0) {
			dmd_expr_error(p, args[1].loc, "unknown tensorize kind "
				"'%s' (only gemm is known)", args[1].id);
			return -1;
		}
		if (args[0].n != 3) {
			dmd_expr_error(p, args[0].loc, "tensorize(..., gemm) "
				"takes 3 loops, got %d", args[0].n);
			return -1;
		}
		return dmd_expr_check_twice(p, args, 1, name, "loop");
	default:
		return 0;
	}
}
