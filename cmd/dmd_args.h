/* dmd_args.h: the options of one distmpmd command, as GNU getopt_long
 * reads them: long options by any unambiguous prefix ("--stat" is
 * "--stats"), "--opt=value" and "--opt value", short options alone,
 * clustered or with their value attached ("-j4"), options and positional
 * arguments in any order, "--" ending the options.
 *
 * Every problem is reported as "distmpmd: CMD: ..." naming the argument
 * as given (an unknown option with the known one it most resembles, an
 * ambiguous prefix with its candidates, a missing or unexpected value),
 * followed by the command's usage; the exit status is then 2.
 */
#ifndef DMD_ARGS_H
#define DMD_ARGS_H

#include <getopt.h>

/* The state of the parse of one command's arguments. */
struct dmd_args {
	const char *cmd;		/* "build", for messages */
	const char *usage;		/* printed after a message */
	int argc;
	char **argv;			/* argv[0] is the command */
	const char *shortopts;		/* getopt's, without "-:" */
	const struct option *longopts;	/* ends with a zeroed entry */
	/* Set for a command whose positional arguments are numbers: an
	 * argument such as "-1" before "--" is then positional (a rank out
	 * of range), not an unknown option "-1". */
	int negative_positionals;

	/* Set by dmd_args_next. */
	const char *value;		/* the option's value, or the argument */
	int rest;			/* index of the first argument after
					 * "--" (argc if none), at the end */

	/* private */
	char **v;			/* what getopt reads: argv, or a copy */
	char *optstring;
	int started;
	int done;
};

/* The next option or argument: the option's "val" (its value, if any,
 * in a->value), 1 for a positional argument (in a->value), 0 at the end
 * (the arguments after "--", if any, start at a->rest), or -1 after a
 * message (exit status 2). */
int dmd_args_next(struct dmd_args *a);

/* Report "distmpmd: CMD: " and the message "fmt" (printf-style), in
 * which every "%s" argument should come from dmd_args_show, then the
 * usage; return 2. */
int dmd_args_error(struct dmd_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "s" for a message, in newly allocated memory: bytes outside printable
 * ASCII, '\'' and '\\' as octal escapes, at most 200 of them ("..."
 * after).  NULL if memory runs out. */
char *dmd_args_show(const char *s);

/* Free what the parse holds (not "a" itself). */
void dmd_args_clear(struct dmd_args *a);

/* The word among "words" (n of them) that "s" most resembles: a word
 * of which "s" is the start, or the nearest within a small edit distance
 * (letters swapped, missing, extra or wrong: "biuld" is "build"), if
 * only one is nearest; NULL otherwise. */
const char *dmd_args_suggest(const char *s, const char *const *words,
	int n);

#endif
