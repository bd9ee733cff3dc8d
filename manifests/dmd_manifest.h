/* dmd_manifest.h: the build directory (spec section 3): manifest.yaml,
 * and the launcher files it implies, appfile (MPICH's -configfile) and
 * multiprog.conf (Slurm's srun --multi-prog).
 *
 * Both launcher files name the binaries relative to the build directory
 * ("./class0"), so that a build directory can be moved or copied; they
 * are run from it (mpiexec.mpich -wdir DIR, srun --chdir=DIR).
 */
#ifndef DMD_MANIFEST_H
#define DMD_MANIFEST_H

/* One rank class as the manifest lists it. */
struct dmd_mclass {
	int id;
	char *source;		/* "class0.c", relative to the manifest */
	char *binary;		/* "class0": a file name in the directory */
	char *set;		/* the class as an isl set, "[x, y] -> { : ... }" */
	char *why;		/* one line: why these ranks form a class */
	int n_ranges;
	long (*ranges)[2];	/* inclusive, increasing, non-adjacent */
	long count;
	char *sha256;		/* of the binary, 64 hex digits; NULL: none */
	int n_blocks;
	char **blocks;		/* per cyclic tensor, the blocks it holds
				 * ("A: dim 0: 2 blocks of 2, ..."); written,
				 * not read back (borrowed) */
};

/* A .npy file of the job (spec 1.2 'file'), as the manifest lists it:
 * what "run DIR" checks before it starts anything, and says it wrote. */
struct dmd_mfile {
	char *tensor;
	char *file;		/* as in the job: relative to the job's
				 * directory, or absolute */
	int input;		/* read before the first step */
	int output;		/* written after the last */
	int f64;		/* dtype f64 (else f32) */
	int ndim;
	long *shape;		/* ndim extents */
};

/* The MPI that built the directory ("mpi" in manifest.yaml): the
 * family's key as manifests/dmd_mpi.c names it ("mpich", "openmpi"),
 * its version as the wrapper said it (may be ""), the wrapper.  A
 * manifest without "mpi" (written before it was recorded) was built
 * with mpicc.mpich: all three NULL. */
struct dmd_manifest {
	char *job;
	int n_axes;
	char **axes;
	long *shape;
	long nranks;
	int n_classes;
	struct dmd_mclass *classes;
	char *mpi;
	char *mpi_version;
	char *mpicc;
	/* The job's directory as the programs have it compiled in
	 * (DMD_JOB_DIR: relative to the build directory, or absolute), the
	 * job file's name in it, and the job's .npy files; NULL and 0 in a
	 * manifest written before they were recorded (not written then). */
	char *job_dir;
	char *job_file;
	int n_files;
	struct dmd_mfile *files;
};

/* Write DIR/manifest.yaml (libyaml emitter), DIR/appfile and
 * DIR/multiprog.conf, each first under a temporary name and then
 * renamed (the manifest last).  Every rank must belong to exactly one
 * class and every binary must be a plain file name (else an error on
 * stderr and -1).  Returns 0 on success, -1 on error (message on
 * stderr). */
int dmd_manifest_write(const char *dir, const struct dmd_manifest *m);

/* The text of the appfile that "m" implies: in rank order, one line per
 * maximal run of consecutive ranks of one class, "-n COUNT ./BINARY".
 * NULL with a message on stderr if "m" is wrong.  The caller frees it. */
char *dmd_manifest_appfile(const struct dmd_manifest *m);
/* The text of multiprog.conf that "m" implies: one line per class,
 * "RANKS ./BINARY" with RANKS as comma-separated inclusive ranges
 * ("0-6,8-14", a single rank as "7").  NULL with a message if "m" is
 * wrong.  The caller frees it. */
char *dmd_manifest_multiprog(const struct dmd_manifest *m);

/* Read DIR/manifest.yaml back (libyaml parser).  NULL with a message on
 * stderr if it is missing or malformed. */
struct dmd_manifest *dmd_manifest_read(const char *dir);
struct dmd_manifest *dmd_manifest_free(struct dmd_manifest *m);

/* Check that the build directory "dir" is what its manifest describes,
 * before anything in it is run: the manifest parses; every class binary
 * is a regular file in "dir" (a symbolic link only to a file inside it)
 * whose SHA-256 is the one the manifest records; the appfile is exactly
 * the text the manifest implies, and so is multiprog.conf if present.
 * Returns the manifest, or NULL after a message on stderr naming the
 * file (and for the launcher files the first line that differs). */
struct dmd_manifest *dmd_manifest_verify(const char *dir);

#endif
