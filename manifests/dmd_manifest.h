/* dmd_manifest.h: the build directory (spec section 3): manifest.yaml,
 * appfile, and launching it with MPICH's mpiexec.
 */
#ifndef DMD_MANIFEST_H
#define DMD_MANIFEST_H

/* One rank class as the manifest lists it. */
struct dmd_mclass {
	int id;
	char *source;		/* "class0.c", relative to the manifest */
	char *binary;		/* "class0" */
	char *set;		/* the class as an isl set, "[x, y] -> { : ... }" */
	char *why;		/* one line: why these ranks form a class */
	int n_ranges;
	long (*ranges)[2];	/* inclusive, increasing, non-adjacent */
	long count;
};

struct dmd_manifest {
	char *job;
	int n_axes;
	char **axes;
	long *shape;
	long nranks;
	int n_classes;
	struct dmd_mclass *classes;
};

/* Write DIR/manifest.yaml (libyaml emitter) and DIR/appfile, each first
 * under a temporary name and then renamed.  The appfile lists, in rank
 * order, one line per maximal run of consecutive ranks of one class:
 * "-n COUNT BINARY" with BINARY an absolute path.  Every rank must belong
 * to exactly one class (else an error on stderr and -1).  Returns 0 on
 * success, -1 on error (message on stderr). */
int dmd_manifest_write(const char *dir, const struct dmd_manifest *m);

/* Read DIR/manifest.yaml back (libyaml parser).  NULL with a message on
 * stderr if it is missing or malformed. */
struct dmd_manifest *dmd_manifest_read(const char *dir);
struct dmd_manifest *dmd_manifest_free(struct dmd_manifest *m);

/* Run "mpiexec.mpich [extra args] -configfile DIR/appfile" (fork/exec,
 * waiting for it).  With stats != 0 the ranks get DMD_STATS=1 (via
 * -genv).  Returns the exit status to use: 0 if mpiexec succeeded, 1
 * otherwise (and if mpiexec.mpich cannot be started). */
int dmd_launch(const char *dir, int stats, int n_extra, char **extra);

#endif
