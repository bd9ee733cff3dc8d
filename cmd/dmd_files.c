/* dmd_files.c: the job's .npy files before and after a run (see
 * dmd_files.h).  The inputs are checked with the runtime's own header
 * check (runtime/dmd_npy.c, which calls no MPI), so that a file the
 * programs would refuse once started is refused here, before any rank
 * starts: a missing input used to show only as one MPI_Abort per rank.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/dmd_files.h"
#include "runtime/dmd_npy.h"

/* The job directory of a run (see the header). */
char *dmd_files_job_dir(const char *absdir, const char *job_dir)
{
	const char *env = getenv("DMD_JOB_DIR");
	char *cwd, *dir;

	if (env && *env && env[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd || asprintf(&dir, "%s/%s", cwd, env) < 0)
			dir = NULL;
		free(cwd);
		return dir;
	}
	if (env && *env)
		return strdup(env);
	if (job_dir[0] == '/')
		return strdup(job_dir);
	if (asprintf(&dir, "%s/%s", absdir, job_dir) < 0)
		return NULL;
	return dir;
}

/* The path of a file of the job (see the header): e.g. "B.npy" for a
 * job directory that is the current directory, "data/B.npy" below it,
 * "/scratch/job/B.npy" elsewhere. */
char *dmd_files_path(const char *dir, const char *file)
{
	char *real, *cwd, *path = NULL;
	size_t len;

	if (file[0] == '/')
		return strdup(file);
	real = realpath(dir, NULL);
	cwd = getcwd(NULL, 0);
	if (!real)
		real = strdup(dir);
	if (!real || !cwd)
		goto done;
	len = strlen(cwd);
	if (!strcmp(real, cwd)) {
		path = strdup(file);
		goto done;
	}
	if (len == 1 || strncmp(real, cwd, len) || real[len] != '/')
		len = -1;			/* elsewhere, or from "/" */
	if (asprintf(&path, "%s/%s", len == (size_t) -1 ? real :
			real + len + 1, file) < 0)
		path = NULL;
done:
	free(real);
	free(cwd);
	return path;
}

/* Print "s" to stderr as one word for a POSIX shell (plain if no shell
 * treats any of its characters specially, else in single quotes). */
static void dmd_files_quote(const char *s)
{
	const char *p;

	for (p = s; *p; ++p)
		if (!isalnum((unsigned char) *p) && !strchr("_@%+=:,./-", *p))
			break;
	if (*s && !*p) {
		fputs(s, stderr);
		return;
	}
	fputc('\'', stderr);
	for (p = s; *p; ++p)
		if (*p == '\'')
			fputs("'\"'\"'", stderr);
		else
			fputc(*p, stderr);
	fputc('\'', stderr);
}

/* Check the input "f", at "path": 0, or -1 after a message. */
static int dmd_files_check_input(const char *cmd, const struct dmd_mfile *f,
	const char *path)
{
	int64_t shape[32];
	char msg[DMD_NPY_MSG];
	struct stat st;
	long long offset;
	int d;

	if (stat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		fprintf(stderr, "distmpmd: %s: the input %s of tensor '%s' "
			"does not exist\n", cmd, path, f->tensor);
		return -1;
	}
	for (d = 0; d < f->ndim && d < 32; ++d)
		shape[d] = f->shape[d];
	if (dmd_npy_check(path, path, f->f64 ? "<f8" : "<f4", f->ndim, shape,
			&offset, msg, sizeof(msg)) == 0)
		return 0;
	fprintf(stderr, "distmpmd: %s: the input of tensor '%s': %s\n", cmd,
		f->tensor, msg);
	return -1;
}

/* Check that the directory of the output "f", at "path", exists: 0, or
 * -1 after a message. */
static int dmd_files_check_output(const char *cmd, const struct dmd_mfile *f,
	const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	int r = 0;

	if (!slash)
		return 0;
	dir = strndup(path, slash > path ? (size_t) (slash - path) : 1);
	if (!dir) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "distmpmd: %s: the output %s of tensor '%s' "
			"cannot be written: %s is not a directory\n", cmd, path,
			f->tensor, dir);
		r = -1;
	}
	free(dir);
	return r;
}

/* Check the files of a run (see the header). */
int dmd_files_check(const char *cmd, const struct dmd_mfile *files, int n,
	const char *dir, const char *job)
{
	int i, bad_input = 0, bad = 0;

	for (i = 0; i < n; ++i) {
		const struct dmd_mfile *f = &files[i];
		char *path = dmd_files_path(dir, f->file);

		if (!path) {
			fprintf(stderr, "distmpmd: out of memory\n");
			return -1;
		}
		if (f->input && dmd_files_check_input(cmd, f, path) < 0)
			bad = bad_input = 1;
		else if (!f->input && dmd_files_check_output(cmd, f,
				path) < 0)
			bad = 1;
		free(path);
	}
	if (bad_input) {
		fprintf(stderr, "distmpmd: %s: nothing was run; to make the "
			"inputs: distmpmd ref inputs ", cmd);
		dmd_files_quote(job);
		fprintf(stderr, " (random values from each tensor's seed), or "
			"numpy.save each array (C order, the shape and dtype "
			"the job gives)\n");
	}
	return bad ? -1 : 0;
}
