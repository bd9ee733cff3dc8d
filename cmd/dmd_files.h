/* dmd_files.h: a job's .npy files as a run sees them: where they are (the
 * job directory the programs will use), whether every input is there
 * before anything starts, and where the outputs go.
 *
 * The programs read and write the files of the job relative to the job
 * directory: DMD_JOB_DIR at run time if it is set (distmpmd run makes a
 * relative value absolute, from where it was started), else the
 * directory compiled in, relative to the build directory in which the
 * ranks run (manifest.yaml's job_dir).  The same rule is applied here.
 */
#ifndef DMD_FILES_H
#define DMD_FILES_H

#include "manifests/dmd_manifest.h"

/* The job directory that a run of the build directory "absdir" (an
 * absolute path) uses, "job_dir" being the one compiled in (relative to
 * "absdir", or absolute).  Newly allocated, absolute; NULL if memory
 * runs out. */
char *dmd_files_job_dir(const char *absdir, const char *job_dir);

/* The path of the file "file" of the job (absolute, or relative to the
 * absolute directory "dir") for messages and for opening: relative to
 * the current directory when it lies below it, else absolute.  Newly
 * allocated; NULL if memory runs out. */
char *dmd_files_path(const char *dir, const char *file);

/* Check before a run that every input among "files" (n of them) is what
 * the job says, as the programs would check it only once started: a
 * regular .npy file with the tensor's shape and dtype, all its data
 * present (runtime/dmd_npy.c); and that the directory of every output
 * exists.  Each problem is one line on stderr, "distmpmd: CMD: ...",
 * then, if an input is wrong, one line saying how to make the inputs of
 * the job file "job" (as the user may type it).  Returns 0 if all is
 * well, else -1. */
int dmd_files_check(const char *cmd, const struct dmd_mfile *files, int n,
	const char *dir, const char *job);

#endif
