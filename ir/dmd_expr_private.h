/* dmd_expr_private.h: what the parts of the reader of the small
 * languages share (ir/dmd_expr_lex.c, the tokenizer; ir/dmd_expr.c, the
 * expressions; ir/dmd_expr_cmd.c, the schedule commands;
 * ir/dmd_expr_check.c, the checks of both): the tokens and the state of
 * one parse.
 */
#ifndef DMD_EXPR_PRIVATE_H
#define DMD_EXPR_PRIVATE_H

#include <stddef.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"

/* Limits that keep the recursive walks shallow on hostile input. */
#define DMD_EXPR_MAX_NEST	200	/* nested parentheses and signs */
#define DMD_EXPR_MAX_NODES	4096	/* nodes in one expression */

enum dmd_tok_type {
	DMD_TOK_END,
	DMD_TOK_ID,
	DMD_TOK_INT,
	DMD_TOK_NUM,
	DMD_TOK_PLUS,
	DMD_TOK_MINUS,
	DMD_TOK_STAR,
	DMD_TOK_SLASH,
	DMD_TOK_FDIV,
	DMD_TOK_MOD,
	DMD_TOK_LPAR,
	DMD_TOK_RPAR,
	DMD_TOK_LBRACK,
	DMD_TOK_RBRACK,
	DMD_TOK_COMMA,
	DMD_TOK_ASSIGN,
	DMD_TOK_ADD_ASSIGN,
};

/* A token: text[start .. start + len) of the source. */
struct dmd_tok {
	enum dmd_tok_type type;
	size_t start;
	size_t len;
	struct dmd_loc loc;
	long ival;			/* DMD_TOK_INT, unless overflow */
	int overflow;			/* DMD_TOK_INT too large for a long */
	double fval;			/* DMD_TOK_NUM, DMD_TOK_INT */
};

/* The state of one parse. */
struct dmd_expr_parser {
	struct dmd_job *job;		/* not owned */
	const struct dmd_src *src;	/* not owned */
	size_t pos;			/* next byte to scan */
	struct dmd_tok tok;		/* the current token */
	int depth;			/* current nesting */
	int n_nodes;			/* nodes allocated so far */
	int n_names;			/* names in the schedule command */
};

/* ir/dmd_expr_lex.c: the tokenizer. */
/* Report an error at "loc" about the source being parsed. */
void dmd_expr_error(struct dmd_expr_parser *p, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Report an error at the current token. */
#define dmd_expr_tok_error(p, ...) dmd_expr_error(p, (p)->tok.loc, __VA_ARGS__)
/* The text of the current token for messages (cut with "..." to fit
 * "size" bytes of "buf"; "end" at the end). */
const char *dmd_expr_tok_text(struct dmd_expr_parser *p, char *buf,
	size_t size);
/* Start parsing "src" (read the first token); move to the next token;
 * a copy of the current token's text.  -1 / NULL after an error. */
int dmd_expr_start(struct dmd_expr_parser *p, struct dmd_job *job,
	const struct dmd_src *src);
int dmd_expr_next(struct dmd_expr_parser *p);
char *dmd_expr_tok_strdup(struct dmd_expr_parser *p);
/* Is the current token of type "type"?  Consume one of "type" or report
 * "expected <what>"; report that the current token cannot come here;
 * enter one more level of nesting. */
int dmd_expr_is(struct dmd_expr_parser *p, enum dmd_tok_type type);
int dmd_expr_expect(struct dmd_expr_parser *p, enum dmd_tok_type type,
	const char *what);
void dmd_expr_unexpected(struct dmd_expr_parser *p);
int dmd_expr_enter(struct dmd_expr_parser *p);
/* Must an array of "n" elements, grown by doubling, grow first? */
int dmd_expr_full(int n);

/* ir/dmd_expr.c: the value of binary operator "type" (+ - * // %) on
 * "a" and "b" in *val: 1, or -1 on overflow or a divisor <= 0. */
int dmd_expr_fold(enum dmd_expr_type type, long a, long b, long *val);

/* ir/dmd_expr_cmd.c: the argument lists of a command made regular. */
int dmd_expr_arg_to_list(struct dmd_expr_parser *p,
	struct dmd_sched_arg *arg);
int dmd_expr_flatten(struct dmd_expr_parser *p, struct dmd_sched_cmd *cmd);

/* ir/dmd_expr_check.c: the checks, each in one place.  Of expressions:
 * (quasi-)affine "e" (1 if constant, its value in *val; 0 if not; -1
 * after an error), an access of the statement, every access of a right
 * side.  Of schedule commands: the number and kinds of the arguments,
 * then what the arguments alone decide (what needs the loops is checked
 * by the analysis, ir/dmd_poly.c). */
int dmd_expr_check_aff(struct dmd_expr_parser *p, const struct dmd_expr *e,
	long *val);
int dmd_expr_check_access(struct dmd_expr_parser *p,
	const struct dmd_expr *e);
int dmd_expr_check_rhs(struct dmd_expr_parser *p, const struct dmd_expr *e);
int dmd_expr_check_kinds(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd, const char *name, const char *kinds,
	const char *arity);
int dmd_expr_check_cmd(struct dmd_expr_parser *p, struct dmd_sched_cmd *cmd,
	const char *name);

#endif
