/* dmd_ref.h: the sequential reference, dmd_ref.py, as distmpmd finds and
 * runs it ("distmpmd ref ...", "sweep --ref").
 *
 * The script is found relative to the distmpmd executable, as the
 * runtime is: tests/ref/dmd_ref.py in the source tree (bin/distmpmd),
 * share/distmpmd/dmd_ref.py under an installation prefix
 * (<prefix>/bin/distmpmd; "make install" puts it there), or under
 * DISTMPMD_HOME (either layout) when that is set.  It runs under
 * DISTMPMD_PYTHON if set, else /usr/bin/python3 (Debian's, which has
 * python3-numpy and python3-yaml), else python3 from PATH; always from an
 * argument vector, never through a shell.
 */
#ifndef DMD_REF_H
#define DMD_REF_H

/* The path of dmd_ref.py for the executable "self" (an absolute path):
 * "path" if not NULL (checked: a readable regular file), else found as
 * above.  Newly allocated, or NULL after a message that starts with
 * "distmpmd: CMD: " ("cmd": "ref", "sweep"). */
char *dmd_ref_find(const char *self, const char *path, const char *cmd);

/* The interpreter of dmd_ref.py (see above); not to be freed. */
const char *dmd_ref_python(void);

/* Replace this process with "python dmd_ref.py ARGS..." (the script
 * found for "self"), with DMD_REF_PROG="distmpmd ref" in its
 * environment.  Returns only on failure: the exit status (1 or 2), after
 * a message. */
int dmd_ref_exec(const char *self, int argc, char *const *argv);

#endif
