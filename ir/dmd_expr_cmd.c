/* dmd_expr_cmd.c: the reader of schedule commands (spec 1.4):
 *	NAME '(' arg (',' arg)* ')'
 *	arg := NAME | ['-'] INTEGER | '[' [NAME (',' NAME)*] ']'
 * on the tokenizer of ir/dmd_expr_lex.c; the checks of a command are in
 * ir/dmd_expr_check.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_expr_private.h"

/* Release what "cmd" owns (not "cmd" itself). */
void dmd_sched_cmd_clear(struct dmd_sched_cmd *cmd)
{
	int i, j;

	if (!cmd)
		return;
	for (i = 0; i < cmd->n_args; ++i) {
		struct dmd_sched_arg *arg = &cmd->args[i];

		free(arg->id);
		for (j = 0; j < arg->n; ++j)
			free(arg->ids[j]);
		free(arg->ids);
		free(arg->locs);
	}
	free(cmd->args);
	cmd->args = NULL;
	cmd->n_args = 0;
}

/* The commands, their arities and the kinds of their arguments ('i' an
 * identifier, 'n' an integer, 'l' a list, '*' any number of identifiers
 * (reorder)). */
static const struct {
	const char *name;
	enum dmd_cmd_type type;
	const char *kinds;
	const char *arity;		/* for messages */
} dmd_expr_cmds[] = {
	{ "divide", DMD_CMD_DIVIDE, "iiini", "4 or 5 arguments" },
	{ "split", DMD_CMD_SPLIT, "iiin", "4 arguments" },
	{ "reorder", DMD_CMD_REORDER, "*", "at least 1 argument" },
	{ "distribute", DMD_CMD_DISTRIBUTE, "llll", "4 arguments" },
	{ "rotate", DMD_CMD_ROTATE, "ili", "3 arguments" },
	{ "communicate", DMD_CMD_COMMUNICATE, "li", "2 arguments" },
	{ "tensorize", DMD_CMD_TENSORIZE, "li", "2 arguments" },
};

/* Count one more name in the schedule command being parsed. */
static int dmd_expr_count_name(struct dmd_expr_parser *p)
{
	if (++p->n_names <= DMD_MAX_CMD_NAMES)
		return 0;
	dmd_expr_tok_error(p, "more than %d names in one schedule command",
		DMD_MAX_CMD_NAMES);
	return -1;
}

/* Append a zeroed argument to "cmd"; NULL after an error. */
static struct dmd_sched_arg *dmd_expr_cmd_add_arg(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *args;

	if (cmd->n_args >= DMD_MAX_CMD_NAMES) {
		dmd_expr_tok_error(p, "more than %d arguments in one schedule "
			"command", DMD_MAX_CMD_NAMES);
		return NULL;
	}
	if (dmd_expr_full(cmd->n_args)) {
		args = realloc(cmd->args, 2 * (cmd->n_args + 1) *
			sizeof(*args));
		if (!args) {
			dmd_expr_tok_error(p, "out of memory");
			return NULL;
		}
		cmd->args = args;
	}
	args = cmd->args;
	memset(&args[cmd->n_args], 0, sizeof(*args));
	return &args[cmd->n_args++];
}

/* Append the current token (an identifier) to list "arg". */
static int dmd_expr_list_add(struct dmd_expr_parser *p,
	struct dmd_sched_arg *arg)
{
	char **ids;
	struct dmd_loc *locs;

	if (dmd_expr_count_name(p) < 0)
		return -1;
	if (dmd_expr_full(arg->n)) {
		ids = realloc(arg->ids, 2 * (arg->n + 1) * sizeof(*ids));
		if (!ids)
			goto nomem;
		arg->ids = ids;
		locs = realloc(arg->locs, 2 * (arg->n + 1) * sizeof(*locs));
		if (!locs)
			goto nomem;
		arg->locs = locs;
	}
	arg->ids[arg->n] = dmd_expr_tok_strdup(p);
	if (!arg->ids[arg->n])
		return -1;
	arg->locs[arg->n++] = p->tok.loc;
	return dmd_expr_next(p);
nomem:
	dmd_expr_tok_error(p, "out of memory");
	return -1;
}

/* arg := NAME | ['-'] INTEGER | '[' [NAME (',' NAME)*] ']' */
static int dmd_expr_parse_cmd_arg(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *arg;
	char buf[48];
	int neg = 0;

	arg = dmd_expr_cmd_add_arg(p, cmd);
	if (!arg)
		return -1;
	arg->loc = p->tok.loc;
	switch (p->tok.type) {
	case DMD_TOK_ID:
		if (dmd_expr_count_name(p) < 0)
			return -1;
		arg->kind = DMD_ARG_ID;
		arg->id = dmd_expr_tok_strdup(p);
		if (!arg->id)
			return -1;
		return dmd_expr_next(p);
	case DMD_TOK_MINUS:
		if (dmd_expr_next(p) < 0)
			return -1;
		if (!dmd_expr_is(p, DMD_TOK_INT)) {
			dmd_expr_tok_error(p, "expected an integer in %s",
				p->src->what);
			return -1;
		}
		neg = 1;
		/* fall through */
	case DMD_TOK_INT:
		if (p->tok.overflow) {
			dmd_expr_tok_error(p, "integer '%s' is too large in %s",
				dmd_expr_tok_text(p, buf, sizeof(buf)),
				p->src->what);
			return -1;
		}
		arg->kind = DMD_ARG_INT;
		arg->ival = neg ? -p->tok.ival : p->tok.ival;
		return dmd_expr_next(p);
	case DMD_TOK_LBRACK:
		arg->kind = DMD_ARG_LIST;
		if (dmd_expr_next(p) < 0)
			return -1;
		if (dmd_expr_is(p, DMD_TOK_RBRACK))
			return dmd_expr_next(p);
		for (;;) {
			if (!dmd_expr_is(p, DMD_TOK_ID)) {
				dmd_expr_tok_error(p, "expected a name in %s",
					p->src->what);
				return -1;
			}
			if (dmd_expr_list_add(p, arg) < 0)
				return -1;
			if (!dmd_expr_is(p, DMD_TOK_COMMA))
				break;
			if (dmd_expr_next(p) < 0)
				return -1;
		}
		return dmd_expr_expect(p, DMD_TOK_RBRACK, "']'");
	default:
		if (dmd_expr_is(p, DMD_TOK_END))
			dmd_expr_tok_error(p, "expected an argument in %s",
				p->src->what);
		else
			dmd_expr_tok_error(p, "expected an argument in %s, "
				"got '%s'", p->src->what,
				dmd_expr_tok_text(p, buf, sizeof(buf)));
		return -1;
	}
}

/* Turn identifier argument "arg" into a list of one. */
int dmd_expr_arg_to_list(struct dmd_expr_parser *p,
	struct dmd_sched_arg *arg)
{
	arg->ids = malloc(sizeof(*arg->ids));
	arg->locs = malloc(sizeof(*arg->locs));
	if (!arg->ids || !arg->locs) {
		dmd_expr_error(p, arg->loc, "out of memory");
		return -1;
	}
	arg->kind = DMD_ARG_LIST;
	arg->n = 1;
	arg->ids[0] = arg->id;
	arg->locs[0] = arg->loc;
	arg->id = NULL;
	return 0;
}

/* reorder([a, b, c]): replace the single list argument of "cmd" by its
 * identifiers. */
int dmd_expr_flatten(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *list = &cmd->args[0];
	struct dmd_sched_arg *args;
	int i, n = list->n;

	args = calloc(list->n > 0 ? list->n : 1, sizeof(*args));
	if (!args) {
		dmd_expr_error(p, cmd->loc, "out of memory");
		return -1;
	}
	for (i = 0; i < list->n; ++i) {
		args[i].kind = DMD_ARG_ID;
		args[i].id = list->ids[i];
		args[i].loc = list->locs[i];
	}
	free(list->ids);
	free(list->locs);
	free(cmd->args);
	cmd->args = args;
	cmd->n_args = n;
	return 0;
}

/* Parse and check one schedule command into "cmd" (zeroed by the caller,
 * which owns what is stored in it, also on error).  Returns 0, or -1
 * after an error. */
int dmd_expr_parse_cmd(struct dmd_job *job, const struct dmd_src *src,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_expr_parser p;
	size_t i, n = sizeof(dmd_expr_cmds) / sizeof(dmd_expr_cmds[0]);
	char buf[48];

	if (dmd_expr_start(&p, job, src) < 0)
		return -1;
	cmd->loc = p.tok.loc;
	if (!dmd_expr_is(&p, DMD_TOK_ID)) {
		if (dmd_expr_is(&p, DMD_TOK_END))
			dmd_expr_tok_error(&p, "expected a command in %s",
				src->what);
		else
			dmd_expr_tok_error(&p, "expected a command in %s, "
				"got '%s'", src->what,
				dmd_expr_tok_text(&p, buf, sizeof(buf)));
		return -1;
	}
	for (i = 0; i < n; ++i)
		if (p.tok.len == strlen(dmd_expr_cmds[i].name) &&
		    strncmp(src->text + p.tok.start, dmd_expr_cmds[i].name,
			    p.tok.len) == 0)
			break;
	if (i >= n) {
		dmd_expr_tok_error(&p, "unknown schedule command '%s'",
			dmd_expr_tok_text(&p, buf, sizeof(buf)));
		return -1;
	}
	cmd->type = dmd_expr_cmds[i].type;
	if (dmd_expr_next(&p) < 0 ||
	    dmd_expr_expect(&p, DMD_TOK_LPAR, "'('") < 0)
		return -1;
	if (!dmd_expr_is(&p, DMD_TOK_RPAR)) {
		for (;;) {
			if (dmd_expr_parse_cmd_arg(&p, cmd) < 0)
				return -1;
			if (!dmd_expr_is(&p, DMD_TOK_COMMA))
				break;
			if (dmd_expr_next(&p) < 0)
				return -1;
		}
	}
	if (dmd_expr_expect(&p, DMD_TOK_RPAR, "')'") < 0)
		return -1;
	if (!dmd_expr_is(&p, DMD_TOK_END)) {
		dmd_expr_unexpected(&p);
		return -1;
	}
	if (dmd_expr_check_kinds(&p, cmd, dmd_expr_cmds[i].name,
			dmd_expr_cmds[i].kinds, dmd_expr_cmds[i].arity) < 0)
		return -1;
	return dmd_expr_check_cmd(&p, cmd, dmd_expr_cmds[i].name);
}
