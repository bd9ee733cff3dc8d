/* dmd_diff.h: a line diff in unified format ("distmpmd diff JOB A B").
 */
#ifndef DMD_DIFF_H
#define DMD_DIFF_H

#include <stdio.h>

/* Print to "out" the unified diff that turns the text "a" into the text
 * "b", line by line (a minimal edit script, Myers' algorithm in linear
 * space): the header "--- LABEL_A" and "+++ LABEL_B", then hunks
 * "@@ -START,COUNT +START,COUNT @@" with "context" lines of context
 * around changes (",COUNT" left out when it is 1, START the line before
 * the hunk when COUNT is 0, as GNU diff does), and
 * "\ No newline at end of file" after a last line without one.  Nothing
 * at all when the texts are equal.  Returns the number of hunks, or -1
 * if memory runs out (with a message). */
int dmd_diff_unified(FILE *out, const char *a, const char *b,
	const char *label_a, const char *label_b, int context);

#endif
