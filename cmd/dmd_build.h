/* dmd_build.h: from the compiler's result to a build directory (the
 * boundary between the compiler core and the command line).
 *
 * The core (ir -> partition -> specialize -> emit) produces, for a job,
 * the text of every file of the build: one C source per rank class and
 * one header shared by all of them, plus what the manifest says of each
 * class.  Everything below only writes, compiles and launches that.
 *
 * Ownership: the caller owns the struct and everything in it.
 */
#ifndef DMD_BUILD_H
#define DMD_BUILD_H

/* One rank class: its C source and what the manifest says of it. */
struct dmd_build_class {
	const char *code;	/* the whole text of classK.c */
	const char *set;	/* the class as an isl set (for the manifest) */
	const char *why;	/* one line: why these ranks form a class */
	int n_blocks;		/* the cyclic tensors' blocks, a line each */
	char *const *blocks;
	long count;		/* number of ranks */
	int n_ranges;
	long (*ranges)[2];	/* inclusive, increasing, non-adjacent */
};

/* A .npy file of the job (spec 1.2 'file'): read, written or both. */
struct dmd_build_file {
	const char *tensor;
	const char *file;	/* as in the job: relative to job_dir, or
				 * absolute */
	int input;		/* read before the first step */
	int output;		/* written after the last */
	int f64;		/* dtype f64 (else f32) */
	int ndim;
	const long *shape;
};

/* Everything a build directory is made of. */
struct dmd_build_input {
	const char *job_name;
	const char *job_path;	/* the job file as given */
	const char *job_dir;	/* the job file's directory, absolute */
	const char *job_file;	/* the job file's name in job_dir */
	int n_files;		/* the files the programs read or write */
	const struct dmd_build_file *files;
	int n_axes;
	char *const *axes;
	const long *shape;
	long nranks;
	/* "common.h": included by every class source (job descriptor,
	 * tensor table); NULL if the core does not emit one. */
	const char *common;
	int n_class;
	const struct dmd_build_class *cls;
	/* build --lib: the library's C source (libNAME.c, including
	 * common.h) and header (NAME.h); NULL for programs. */
	const char *lib_source;
	const char *lib_header;
};

/* Options of a build. */
struct dmd_build_opts {
	int jobs;		/* classes compiled at once; <= 0: the cores */
	int n_cflags;		/* extra compiler flags, one argument each */
	char *const *cflags;
	int progress;		/* print a progress line (on a terminal) */
	const char *mpicc;	/* --mpicc, or NULL (manifests/dmd_mpi.h) */
};

/* Write "in" into build directory "dir" (created if missing): common.h,
 * classK.c for each class, compile each into classK, then manifest.yaml,
 * appfile and multiprog.conf.  Every file is written under a temporary
 * name and renamed, so that concurrent builds of one job into one
 * directory both succeed and no reader sees a partial file.  The
 * compiler is run with fork/execvp and an argument vector (no shell).
 * With in->lib_source (build --lib): common.h, libNAME.c and NAME.h,
 * compiled and archived into libNAME.a, and NAME.pc and NAME.mk (the
 * flags and libraries of a program that calls it); no classes, no
 * manifest.  Returns 0, or 1 after a message on stderr. */
int dmd_build_dir(const struct dmd_build_input *in, const char *dir,
	const struct dmd_build_opts *opts);

#endif
