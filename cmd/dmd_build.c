/* dmd_build.c: from the compiler's result to a build directory (see
 * dmd_build.h): the sources, the class binaries compiled in parallel
 * with the MPI compiler wrapper (mpicc.mpich unless --mpicc or
 * DISTMPMD_MPICC says otherwise; fork/execvp, no shell), manifest.yaml
 * (which records the MPI), appfile and multiprog.conf.
 *
 * Every file is written under a temporary name in the build directory
 * (".NAME.tmp.PID") and renamed, so that concurrent builds of one job
 * into one directory both succeed (a binary that another build is
 * running is never written in place) and no reader sees a partial file.
 * The binaries are renamed only when every class compiled, and the
 * manifest, which records their SHA-256, last.
 *
 * The generated programs find the job's files (.npy inputs and outputs)
 * through DMD_JOB_DIR, compiled in as the job directory relative to the
 * build directory (absolute only when the two have nothing in common but
 * "/"); the ranks run in the build directory, so the build directory can
 * be moved or copied together with the job's files.
 *
 * The runtime (dmd_rt.h, libdmdrt.a) is found relative to the distmpmd
 * executable: installed, <prefix>/include/distmpmd and
 * <prefix>/lib/libdmdrt.a for <prefix>/bin/distmpmd; in the source
 * tree, runtime/ and obj/libdmdrt.a beside bin/.  DISTMPMD_HOME, when
 * set, replaces <prefix> (either layout).  That runtime is MPICH's; the
 * runtime of another MPI is <prefix>/lib/distmpmd/KEY/libdmdrt.a, in
 * the source tree obj/KEY/libdmdrt.a (KEY: "openmpi").  The runtime
 * carries the mark of the MPI whose mpi.h compiled it
 * (runtime/dmd_rt_mpi.c), and a class is never linked against the
 * runtime of another MPI: its handles and constants would not be the
 * library's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/dmd_build.h"
#include "manifests/dmd_launch.h"
#include "manifests/dmd_manifest.h"
#include "manifests/dmd_mpi.h"
#include "manifests/dmd_sha256.h"
#include "manifests/dmd_text.h"

#ifndef DMD_BLAS_CFLAGS
#define DMD_BLAS_CFLAGS ""
#endif
#ifndef DMD_BLAS_LIBS
#define DMD_BLAS_LIBS "-lopenblas"
#endif

/* The flags every class is compiled with, before the include and
 * library flags.  No -Werror: a warning must not fail a user's build. */
static const char *const dmd_build_default_flags[] = {
	"-O3", "-Wall", "-Wextra",
};

/* At most this many compilers run at once, whatever -j says. */
#define DMD_BUILD_MAX_JOBS 128

/* A progress line is printed (on a terminal) from this many classes. */
#define DMD_BUILD_PROGRESS_MIN 5

/* Where the runtime is. */
struct dmd_build_rt {
	char *include;		/* the directory of dmd_rt.h */
	char *lib;		/* libdmdrt.a */
};

/* The state of one build. */
struct dmd_build {
	const struct dmd_build_input *in;
	const char *dir;	/* as given, for messages */
	char *absdir;
	struct dmd_build_rt rt;
	const char *cc;		/* the MPI compiler wrapper */
	struct dmd_mpi mpi;	/* its MPI */
	char *job_dir;		/* the -DDMD_JOB_DIR=... argument */
	char *job_rel;		/* its value: the job directory relative to
				 * absdir, or absolute */
	char **bin_tmp;		/* per class: its binary's temporary name */
	char (*sha)[65];	/* per class: its binary's SHA-256 */
};

/* An argument vector that owns its strings. */
struct dmd_build_args {
	int n;
	int size;
	char **v;		/* NULL-terminated */
};

/* Report "out of memory" and return -1. */
static int dmd_build_nomem(void)
{
	fprintf(stderr, "distmpmd: out of memory\n");
	return -1;
}

/* Return the temporary name in "dir" of its file "name":
 * "dir/.name.tmp.PID" (newly allocated), or NULL with a message. */
static char *dmd_build_tmp_path(const char *dir, const char *name)
{
	char *base, *path;

	if (asprintf(&base, ".%s.tmp.%ld", name, (long) getpid()) < 0)
		return dmd_build_nomem(), NULL;
	path = dmd_path_join(dir, base);
	free(base);
	return path;
}

/* Is "path" a readable file? */
static int dmd_build_readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		access(path, R_OK) == 0;
}

/* Look for the runtime of MPI "family" in "prefix", in the installed
 * layout and then in the source tree's.  Returns 1 and fills "rt" if
 * found, 0 if not, -1 if memory runs out. */
static int dmd_build_rt_in(const char *prefix, enum dmd_mpi_family family,
	struct dmd_build_rt *rt)
{
	const char *key = dmd_mpi_key(family);
	char *layouts[2][2] = { { "include/distmpmd", NULL },
		{ "runtime", NULL } };
	int i, r = -1;

	if (family == DMD_MPI_MPICH) {
		layouts[0][1] = strdup("lib/libdmdrt.a");
		layouts[1][1] = strdup("obj/libdmdrt.a");
	} else if (asprintf(&layouts[0][1], "lib/distmpmd/%s/libdmdrt.a",
			key) < 0 ||
		   asprintf(&layouts[1][1], "obj/%s/libdmdrt.a", key) < 0) {
		layouts[0][1] = layouts[1][1] = NULL;
	}
	if (!layouts[0][1] || !layouts[1][1])
		goto done;
	r = 0;
	for (i = 0; i < 2 && r == 0; ++i) {
		char *inc = dmd_path_join(prefix, layouts[i][0]);
		char *lib = dmd_path_join(prefix, layouts[i][1]);
		char *hdr = inc ? dmd_path_join(inc, "dmd_rt.h") : NULL;
		int nomem = !inc || !lib || !hdr;
		int found = !nomem && dmd_build_readable(hdr) &&
			dmd_build_readable(lib);

		free(hdr);
		if (found) {
			rt->include = inc;
			rt->lib = lib;
			r = 1;
			break;
		}
		free(inc);
		free(lib);
		if (nomem)
			r = -1;
	}
done:
	free(layouts[0][1]);
	free(layouts[1][1]);
	return r;
}

/* Say that the runtime of MPI "m" is not in "prefix", which is
 * DISTMPMD_HOME if "home", else found from the executable. */
static void dmd_build_no_rt(const struct dmd_mpi *m, const char *prefix,
	int home)
{
	const char *key = dmd_mpi_key(m->family);

	if (home)
		fprintf(stderr, "distmpmd: DISTMPMD_HOME=%s holds no distmpmd "
			"runtime", prefix);
	else
		fprintf(stderr, "distmpmd: cannot find the distmpmd runtime");
	if (m->family != DMD_MPI_MPICH)
		fprintf(stderr, " for %s", dmd_mpi_name(m->family));
	if (!home)
		fprintf(stderr, " in %s", prefix);
	if (m->family == DMD_MPI_MPICH)
		fprintf(stderr, " (neither include/distmpmd/dmd_rt.h and "
			"lib/libdmdrt.a nor runtime/dmd_rt.h and "
			"obj/libdmdrt.a)");
	else
		fprintf(stderr, " (neither include/distmpmd/dmd_rt.h and "
			"lib/distmpmd/%s/libdmdrt.a nor runtime/dmd_rt.h and "
			"obj/%s/libdmdrt.a; in the source tree: make "
			"runtime-%s)", key, key, key);
	fprintf(stderr, "%s\n", home ? "" : "; set DISTMPMD_HOME");
}

/* Check that the runtime library "lib" was compiled with the mpi.h of
 * MPI "m": the mark of runtime/dmd_rt_mpi.c ("distmpmd-runtime-mpi=KEY;",
 * none in runtimes older than it, which were MPICH's).  -1 after a
 * message. */
static int dmd_build_check_rt(const char *lib, const struct dmd_mpi *m)
{
	static const char mark[] = "distmpmd-runtime-mpi=";
	char *data = NULL, *p, *end;
	const char *key = "mpich";
	size_t size = 0, len;
	FILE *f = fopen(lib, "rb");
	int fam, r = -1;

	if (!f) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", lib,
			strerror(errno));
		return -1;
	}
	for (;;) {
		char *more = realloc(data, size + 65536);

		if (!more) {
			dmd_build_nomem();
			goto done;
		}
		data = more;
		len = fread(data + size, 1, 65536, f);
		size += len;
		if (len < 65536)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", lib,
			strerror(errno));
		goto done;
	}
	p = memmem(data, size, mark, sizeof(mark) - 1);
	if (p) {
		p += sizeof(mark) - 1;
		end = memchr(p, ';', size - (p - data));
		key = NULL;
		if (end && end - p < 32) {
			*end = '\0';
			key = p;
		}
	}
	fam = key ? dmd_mpi_family_of(key) : -1;
	if (fam != (int) m->family) {
		fprintf(stderr, "distmpmd: the runtime %s was compiled with "
			"%s, not with %s\n", lib,
			fam < 0 ? "another MPI" : dmd_mpi_name(fam),
			dmd_mpi_name(m->family));
		goto done;
	}
	r = 0;
done:
	free(data);
	fclose(f);
	return r;
}

/* Find the runtime of MPI "m" (see the top of this file) and check its
 * mark.  -1 with a message if it is nowhere or of another MPI. */
static int dmd_build_find_rt(const struct dmd_mpi *m, struct dmd_build_rt *rt)
{
	const char *home = getenv("DISTMPMD_HOME");
	char *exe, *prefix, *p;
	int r;

	if (home && *home) {
		r = dmd_build_rt_in(home, m->family, rt);
		if (r == 0)
			dmd_build_no_rt(m, home, 1);
		if (r == 1)
			return dmd_build_check_rt(rt->lib, m);
		return -1;
	}
	exe = realpath("/proc/self/exe", NULL);
	if (!exe) {
		fprintf(stderr, "distmpmd: cannot find the distmpmd "
			"executable: %s (set DISTMPMD_HOME)\n",
			strerror(errno));
		return -1;
	}
	/* <prefix>/bin/distmpmd */
	prefix = exe;
	p = strrchr(prefix, '/');
	if (p)
		*p = '\0';
	p = strrchr(prefix, '/');
	if (p)
		p[p == prefix ? 1 : 0] = '\0';
	r = dmd_build_rt_in(prefix, m->family, rt);
	if (r == 0)
		dmd_build_no_rt(m, prefix, 0);
	free(exe);
	if (r == 1)
		return dmd_build_check_rt(rt->lib, m);
	return -1;
}

/* Return the path of the directory "to" relative to the directory
 * "from" (both absolute and canonical), "." if they are the same; or a
 * copy of "to" if they have no component in common.  NULL if memory
 * runs out. */
static char *dmd_build_relative(const char *from, const char *to)
{
	const char *f = from, *t = to, *rest;
	size_t common = 0, i;
	int up = 0;
	char *rel, *p;

	/* the longest common prefix that ends at a component boundary */
	for (i = 0; from[i] && from[i] == to[i]; ++i)
		if (from[i] == '/')
			common = i;
	if (!from[i] && (!to[i] || to[i] == '/'))
		common = i;
	else if (!to[i] && from[i] == '/')
		common = i;
	if (common == 0)
		return strdup(to);
	for (f = from + common; *f; ++f)
		if (*f == '/')
			++up;
	t = to + common;
	rest = *t == '/' ? t + 1 : t;
	rel = malloc(3 * up + strlen(rest) + 2);
	if (!rel)
		return NULL;
	p = rel;
	for (i = 0; i < (size_t) up; ++i) {
		memcpy(p, "../", 3);
		p += 3;
	}
	strcpy(p, rest);
	if (!*rel)
		strcpy(rel, ".");
	else if (p > rel && !*rest)
		p[-1] = '\0';	/* no trailing '/' */
	return rel;
}

/* Return "s" as a C string literal in newly allocated memory: '\\',
 * '"' and '?' (trigraphs) escaped, and every byte outside printable
 * ASCII as a three-digit octal escape.  NULL if memory runs out. */
static char *dmd_build_c_string(const char *s)
{
	char *lit, *p;

	lit = malloc(4 * strlen(s) + 3);
	if (!lit)
		return NULL;
	p = lit;
	*p++ = '"';
	for (; *s; ++s) {
		unsigned char c = *s;

		if (c == '\\' || c == '"' || c == '?') {
			*p++ = '\\';
			*p++ = c;
		} else if (c < 0x20 || c > 0x7e) {
			*p++ = '\\';
			*p++ = '0' + (c >> 6);
			*p++ = '0' + ((c >> 3) & 7);
			*p++ = '0' + (c & 7);
		} else
			*p++ = c;
	}
	*p++ = '"';
	*p = '\0';
	return lit;
}

/* Append a copy of "s" to "a".  -1 with a message if memory runs out. */
static int dmd_build_arg(struct dmd_build_args *a, const char *s)
{
	if (a->n + 2 > a->size) {
		int size = a->size ? 2 * a->size : 32;
		char **v = realloc(a->v, size * sizeof(*v));

		if (!v)
			return dmd_build_nomem();
		a->v = v;
		a->size = size;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n])
		return dmd_build_nomem();
	a->v[++a->n] = NULL;
	return 0;
}

/* Append the white-space separated words of "s" (may be NULL) to "a". */
static int dmd_build_words(struct dmd_build_args *a, const char *s)
{
	while (s && *s) {
		const char *e;
		char *w;
		int r;

		while (isspace((unsigned char) *s))
			++s;
		if (!*s)
			break;
		for (e = s; *e && !isspace((unsigned char) *e); ++e)
			;
		w = strndup(s, e - s);
		if (!w)
			return dmd_build_nomem();
		r = dmd_build_arg(a, w);
		free(w);
		if (r < 0)
			return -1;
		s = e;
	}
	return 0;
}

/* Free the strings of "a" and its vector. */
static void dmd_build_args_free(struct dmd_build_args *a)
{
	int i;

	for (i = 0; i < a->n; ++i)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->size = 0;
}

/* Write "text" to the file "name" of the build directory: under its
 * temporary name, then renamed.  -1 with the system's reason. */
static int dmd_build_put(struct dmd_build *b, const char *name,
	const char *text)
{
	char *path = dmd_path_join(b->absdir, name);
	char *tmp = dmd_build_tmp_path(b->absdir, name);
	size_t len = strlen(text), done = 0;
	int fd = -1, r = -1;

	if (!path || !tmp) {
		free(tmp);
		free(path);
		return -1;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		0666);
	if (fd < 0)
		goto error;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto error;
		done += n;
	}
	r = close(fd);
	fd = -1;
	if (r == 0)
		r = rename(tmp, path);
error:
	if (r < 0) {
		fprintf(stderr, "distmpmd: cannot write %s/%s: %s\n", b->dir,
			name, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	}
	free(tmp);
	free(path);
	return r;
}

/* Fill "a" with the command line that compiles class "k", run in the
 * build directory:
 *   MPICC -O3 -Wall -Wextra -I<runtime>
 *	<BLAS cflags>
 *	-DDMD_JOB_DIR=<literal> -o .classK.tmp.PID classK.c
 *	<libdmdrt.a> <BLAS libs> -lm <DISTMPMD_CFLAGS> <--cflag...>
 * The extra flags come last, so that they override the defaults (-O0)
 * and libraries among them are linked. */
static int dmd_build_argv(struct dmd_build *b, int k,
	const struct dmd_build_opts *opts, struct dmd_build_args *a)
{
	char *inc = NULL, *src = NULL, *tmp_base;
	size_t i;
	int r = -1;

	if (asprintf(&inc, "-I%s", b->rt.include) < 0 ||
	    asprintf(&src, "class%d.c", k) < 0) {
		inc = src = NULL;
		dmd_build_nomem();
		goto error;
	}
	tmp_base = strrchr(b->bin_tmp[k], '/') + 1;
	if (dmd_build_arg(a, b->cc) < 0)
		goto error;
	for (i = 0; i < sizeof(dmd_build_default_flags) /
			sizeof(dmd_build_default_flags[0]); ++i)
		if (dmd_build_arg(a, dmd_build_default_flags[i]) < 0)
			goto error;
	if (dmd_build_arg(a, inc) < 0 ||
	    dmd_build_words(a, DMD_BLAS_CFLAGS) < 0 ||
	    dmd_build_arg(a, b->job_dir) < 0 ||
	    dmd_build_arg(a, "-o") < 0 || dmd_build_arg(a, tmp_base) < 0 ||
	    dmd_build_arg(a, src) < 0 || dmd_build_arg(a, b->rt.lib) < 0 ||
	    dmd_build_words(a, DMD_BLAS_LIBS) < 0 ||
	    dmd_build_arg(a, "-lm") < 0 ||
	    dmd_build_words(a, getenv("DISTMPMD_CFLAGS")) < 0)
		goto error;
	for (i = 0; i < (size_t) opts->n_cflags; ++i)
		if (dmd_build_arg(a, opts->cflags[i]) < 0)
			goto error;
	r = 0;
error:
	free(inc);
	free(src);
	return r;
}

/* Say on stderr that class "k" (of n) starts compiling, on one line
 * that the next one overwrites. */
static void dmd_build_progress(int started, int n, int k)
{
	fprintf(stderr, "\r[%d/%d] compiling class%d.c   ", started, n, k);
	fflush(stderr);
}

/* Report how the compiler of class "k" ended (wait status "status"),
 * unless it succeeded; return 0 if it did, -1 otherwise. */
static int dmd_build_status(struct dmd_build *b, int k, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		fprintf(stderr, "distmpmd: compiling %s/class%d.c failed "
			"(%s exit status %d)\n", b->dir, k, b->cc,
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "distmpmd: compiling %s/class%d.c failed "
			"(%s killed by signal %d)\n", b->dir, k,
			b->cc, WTERMSIG(status));
	else
		fprintf(stderr, "distmpmd: compiling %s/class%d.c failed\n",
			b->dir, k);
	return -1;
}

/* Compile every class into its temporary binary, up to "jobs" at once
 * (signals caught by the caller).  On the first failure, start no more
 * and wait for the others.  Returns 0 if all compiled, -1 otherwise
 * (with a message). */
static int dmd_build_compile(struct dmd_build *b,
	const struct dmd_build_opts *opts)
{
	int n = b->in->n_class, next = 0, running = 0, failed = 0;
	int jobs = opts->jobs, progress, k, status;
	pid_t *pids, pid;

	if (jobs <= 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cores > 0 ? (int) (cores < INT_MAX ? cores : INT_MAX)
			: 1;
	}
	if (jobs > DMD_BUILD_MAX_JOBS)
		jobs = DMD_BUILD_MAX_JOBS;
	progress = opts->progress && n >= DMD_BUILD_PROGRESS_MIN;
	pids = calloc(n, sizeof(*pids));
	if (!pids)
		return dmd_build_nomem();
	for (;;) {
		while (running < jobs && next < n && !failed &&
		       !dmd_launch_cancelled()) {
			struct dmd_build_args a = { 0, 0, NULL };

			unlink(b->bin_tmp[next]);
			if (dmd_build_argv(b, next, opts, &a) < 0) {
				failed = 1;
				break;
			}
			if (progress)
				dmd_build_progress(next + 1, n, next);
			pid = dmd_launch_start(a.v, NULL, b->absdir);
			dmd_build_args_free(&a);
			if (pid < 0) {
				failed = 1;
				break;
			}
			pids[next++] = pid;
			++running;
		}
		if (running == 0)
			break;
		pid = dmd_launch_wait(&status);
		if (pid < 0)
			break;
		for (k = 0; k < n && pids[k] != pid; ++k)
			;
		if (k == n)
			continue;
		pids[k] = 0;
		--running;
		if (!failed && !dmd_launch_cancelled()) {
			if (progress && !(WIFEXITED(status) &&
					WEXITSTATUS(status) == 0))
				fputc('\n', stderr);
			if (dmd_build_status(b, k, status) < 0)
				failed = 1;
		}
	}
	if (progress)
		fprintf(stderr, "\r%*s\r", 40, "");
	free(pids);
	if (dmd_launch_cancelled())
		return -1;
	return failed || next < n ? -1 : 0;
}

/* Hash the temporary binary of class "k" into b->sha[k] and rename it
 * to classK. */
static int dmd_build_install(struct dmd_build *b, int k)
{
	char name[32], *path = NULL;
	struct stat st;
	int fd, r = -1;

	snprintf(name, sizeof(name), "class%d", k);
	path = dmd_path_join(b->absdir, name);
	if (!path)
		return -1;
	fd = open(b->bin_tmp[k], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    dmd_sha256_fd(fd, b->sha[k]) < 0) {
		fprintf(stderr, "distmpmd: cannot read the binary of "
			"%s/class%d.c: %s\n", b->dir, k,
			fd >= 0 && !S_ISREG(st.st_mode) ?
			"not a regular file" : strerror(errno));
		goto error;
	}
	if (rename(b->bin_tmp[k], path) < 0) {
		fprintf(stderr, "distmpmd: cannot write %s/%s: %s\n", b->dir,
			name, strerror(errno));
		goto error;
	}
	r = 0;
error:
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

/* Write manifest.yaml, appfile and multiprog.conf for the build. */
static int dmd_build_manifest(struct dmd_build *b)
{
	const struct dmd_build_input *in = b->in;
	struct dmd_manifest man;
	struct dmd_mclass *mc;
	struct dmd_mfile *mf;
	int i, r = -1;

	mc = calloc(in->n_class, sizeof(*mc));
	mf = calloc(in->n_files + 1, sizeof(*mf));
	if (!mc || !mf) {
		free(mc);
		free(mf);
		return dmd_build_nomem();
	}
	memset(&man, 0, sizeof(man));
	man.mpi = (char *) dmd_mpi_key(b->mpi.family);
	man.mpi_version = b->mpi.version;
	man.mpicc = (char *) b->cc;
	man.job = (char *) in->job_name;
	man.n_axes = in->n_axes;
	man.axes = (char **) in->axes;
	man.shape = (long *) in->shape;
	man.nranks = in->nranks;
	man.n_classes = in->n_class;
	man.classes = mc;
	man.job_dir = b->job_rel;
	man.job_file = (char *) in->job_file;
	man.n_files = in->n_files;
	man.files = mf;
	for (i = 0; i < in->n_files; ++i) {
		mf[i].tensor = (char *) in->files[i].tensor;
		mf[i].file = (char *) in->files[i].file;
		mf[i].input = in->files[i].input;
		mf[i].output = in->files[i].output;
		mf[i].f64 = in->files[i].f64;
		mf[i].ndim = in->files[i].ndim;
		mf[i].shape = (long *) in->files[i].shape;
	}
	for (i = 0; i < in->n_class; ++i) {
		mc[i].id = i;
		if (asprintf(&mc[i].source, "class%d.c", i) < 0 ||
		    asprintf(&mc[i].binary, "class%d", i) < 0) {
			mc[i].source = mc[i].binary = NULL;
			dmd_build_nomem();
			goto error;
		}
		mc[i].set = (char *) in->cls[i].set;
		mc[i].why = (char *) in->cls[i].why;
		mc[i].n_blocks = in->cls[i].n_blocks;
		mc[i].blocks = (char **) in->cls[i].blocks;
		mc[i].n_ranges = in->cls[i].n_ranges;
		mc[i].ranges = in->cls[i].ranges;
		mc[i].count = in->cls[i].count;
		mc[i].sha256 = b->sha[i];
	}
	r = dmd_manifest_write(b->absdir, &man);
error:
	for (i = 0; i < in->n_class; ++i) {
		free(mc[i].source);
		free(mc[i].binary);
	}
	free(mc);
	free(mf);
	return r;
}

/* Create the build directory "dir" if it is missing (not its parents)
 * and check that we can write in it.  -1 with the system's reason. */
static int dmd_build_mkdir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "distmpmd: cannot create the build directory "
			"%s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "distmpmd: cannot use %s as the build "
			"directory: %s\n", dir,
			errno && !S_ISDIR(st.st_mode) ? strerror(ENOTDIR) :
			strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		fprintf(stderr, "distmpmd: cannot write in the build "
			"directory %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Prepare "b" for building "in" into "dir": the directory, the MPI
 * wrapper and its MPI, the runtime of that MPI, the job directory as a
 * C string, the temporary names. */
static int dmd_build_prepare(struct dmd_build *b,
	const struct dmd_build_input *in, const char *dir,
	const struct dmd_build_opts *opts)
{
	char *job_dir = NULL, *rel = NULL, *lit = NULL;
	char name[32];
	int k, r = -1;

	b->in = in;
	b->dir = dir;
	if (dmd_build_mkdir(dir) < 0)
		return -1;
	b->absdir = realpath(dir, NULL);
	if (!b->absdir) {
		fprintf(stderr, "distmpmd: cannot use the build directory "
			"%s: %s\n", dir, strerror(errno));
		return -1;
	}
	b->cc = dmd_mpi_cc(opts->mpicc);
	if (dmd_mpi_probe_cc(b->cc, &b->mpi) < 0 ||
	    dmd_build_find_rt(&b->mpi, &b->rt) < 0)
		return -1;
	job_dir = realpath(in->job_dir, NULL);
	rel = dmd_build_relative(b->absdir, job_dir ? job_dir : in->job_dir);
	lit = rel ? dmd_build_c_string(rel) : NULL;
	if (!lit || asprintf(&b->job_dir, "-DDMD_JOB_DIR=%s", lit) < 0) {
		b->job_dir = NULL;
		dmd_build_nomem();
		goto error;
	}
	b->job_rel = rel;
	rel = NULL;
	b->bin_tmp = calloc(in->n_class, sizeof(*b->bin_tmp));
	b->sha = calloc(in->n_class, sizeof(*b->sha));
	if (!b->bin_tmp || !b->sha) {
		dmd_build_nomem();
		goto error;
	}
	for (k = 0; k < in->n_class; ++k) {
		snprintf(name, sizeof(name), "class%d", k);
		b->bin_tmp[k] = dmd_build_tmp_path(b->absdir, name);
		if (!b->bin_tmp[k])
			goto error;
	}
	r = 0;
error:
	free(lit);
	free(rel);
	free(job_dir);
	return r;
}

/* Free what "b" holds; remove the temporary binaries that are left. */
static void dmd_build_clear(struct dmd_build *b)
{
	int k;

	if (b->bin_tmp)
		for (k = 0; k < b->in->n_class; ++k) {
			if (b->bin_tmp[k])
				unlink(b->bin_tmp[k]);
			free(b->bin_tmp[k]);
		}
	free(b->bin_tmp);
	free(b->sha);
	free(b->job_dir);
	free(b->job_rel);
	free(b->rt.include);
	free(b->rt.lib);
	free(b->absdir);
}

/* Run "a" (no shell) in the build directory and wait for it; 0 if it
 * exited with 0, else -1 after a message naming "what". */
static int dmd_build_run(struct dmd_build *b, struct dmd_build_args *a,
	const char *what)
{
	pid_t pid = dmd_launch_start(a->v, NULL, b->absdir), got;
	int status = 0;

	if (pid < 0)
		return -1;
	do
		got = dmd_launch_wait(&status);
	while (got >= 0 && got != pid);
	if (got == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (dmd_launch_cancelled())
		return -1;
	if (got == pid && WIFEXITED(status))
		fprintf(stderr, "distmpmd: %s failed (%s exit status %d)\n",
			what, a->v[0], WEXITSTATUS(status));
	else
		fprintf(stderr, "distmpmd: %s failed (%s)\n", what, a->v[0]);
	return -1;
}

/* "s" for a pkg-config file or a makefile: every byte that is not
 * [A-Za-z0-9/._+-] escaped with a backslash (NULL: out of memory). */
static char *dmd_build_lib_word(const char *s)
{
	char *w = malloc(2 * strlen(s) + 1), *p = w;

	if (!w)
		return NULL;
	for (; *s; ++s) {
		if (!isalnum((unsigned char) *s) && !strchr("/._+-", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return w;
}

/* Write NAME.pc and NAME.mk beside the library: the flags a program
 * that calls it is compiled with and the libraries it is linked with
 * (the library, the runtime, OpenBLAS, m; the MPI wrapper b->cc). */
static int dmd_build_lib_flags(struct dmd_build *b)
{
	const char *name = b->in->job_name;
	char *rt = dmd_build_lib_word(b->rt.lib), *pc = NULL, *mk = NULL;
	char *file = NULL;
	int r = -1;

	if (!rt ||
	    asprintf(&pc, "# distmpmd: the library of job '%s' (distmpmd "
		"build --lib); compile a program\n# that calls it with "
		"%s and $(pkg-config --cflags --libs %s),\n# "
		"PKG_CONFIG_PATH naming this directory.\n"
		"Name: %s\nDescription: distmpmd library of job %s\n"
		"Version: 1\nCflags: -I${pcfiledir}\n"
		"Libs: ${pcfiledir}/lib%s.a %s %s -lm\n", name, b->cc, name,
		name, name, name, rt, DMD_BLAS_LIBS) < 0 ||
	    asprintf(&mk, "# distmpmd: the library of job '%s' (distmpmd "
		"build --lib).  In a makefile:\n#   include %s.mk\n#   app: "
		"app.c\n#   \t$(%s_MPICC) $(%s_CFLAGS) -o $@ app.c "
		"$(%s_LIBS)\n%s_DIR := $(patsubst %%/,%%,$(dir $(lastword "
		"$(MAKEFILE_LIST))))\n%s_MPICC := %s\n%s_CFLAGS := "
		"-I$(%s_DIR)\n%s_LIBS := $(%s_DIR)/lib%s.a %s %s -lm\n",
		name, name, name, name, name, name, name, b->cc, name, name,
		name, name, name, rt, DMD_BLAS_LIBS) < 0) {
		pc = mk = NULL;
		dmd_build_nomem();
		goto error;
	}
	if (asprintf(&file, "%s.pc", name) < 0) {
		file = NULL;
		dmd_build_nomem();
		goto error;
	}
	if (dmd_build_put(b, file, pc) < 0)
		goto error;
	free(file);
	if (asprintf(&file, "%s.mk", name) < 0) {
		file = NULL;
		dmd_build_nomem();
		goto error;
	}
	if (dmd_build_put(b, file, mk) < 0)
		goto error;
	r = 0;
error:
	free(file);
	free(mk);
	free(pc);
	free(rt);
	return r;
}

/* Compile libNAME.c (written in the build directory) into an object
 * "obj" and archive it as "lib" (temporary names, in the directory):
 *   MPICC -O3 -Wall -Wextra -fPIC -I<runtime> <BLAS cflags> -c
 *	-o OBJ libNAME.c <DISTMPMD_CFLAGS> <--cflag...>
 *   ar rcs LIB OBJ */
static int dmd_build_lib_compile(struct dmd_build *b, const char *src,
	const char *obj, const char *lib, const struct dmd_build_opts *opts)
{
	struct dmd_build_args a = { 0, 0, NULL };
	char *inc = NULL;
	size_t i;
	int r = -1;

	if (asprintf(&inc, "-I%s", b->rt.include) < 0) {
		inc = NULL;
		dmd_build_nomem();
		goto error;
	}
	if (dmd_build_arg(&a, b->cc) < 0)
		goto error;
	for (i = 0; i < sizeof(dmd_build_default_flags) /
			sizeof(dmd_build_default_flags[0]); ++i)
		if (dmd_build_arg(&a, dmd_build_default_flags[i]) < 0)
			goto error;
	if (dmd_build_arg(&a, "-fPIC") < 0 || dmd_build_arg(&a, inc) < 0 ||
	    dmd_build_words(&a, DMD_BLAS_CFLAGS) < 0 ||
	    dmd_build_arg(&a, "-c") < 0 || dmd_build_arg(&a, "-o") < 0 ||
	    dmd_build_arg(&a, obj) < 0 || dmd_build_arg(&a, src) < 0 ||
	    dmd_build_words(&a, getenv("DISTMPMD_CFLAGS")) < 0)
		goto error;
	for (i = 0; i < (size_t) opts->n_cflags; ++i)
		if (dmd_build_arg(&a, opts->cflags[i]) < 0)
			goto error;
	if (dmd_build_run(b, &a, "compiling the library") < 0)
		goto error;
	dmd_build_args_free(&a);
	unlink(lib);
	if (dmd_build_arg(&a, "ar") < 0 || dmd_build_arg(&a, "rcs") < 0 ||
	    dmd_build_arg(&a, lib) < 0 || dmd_build_arg(&a, obj) < 0 ||
	    dmd_build_run(b, &a, "archiving the library") < 0)
		goto error;
	r = 0;
error:
	dmd_build_args_free(&a);
	free(inc);
	return r;
}

/* build --lib: write common.h, libNAME.c and NAME.h into the prepared
 * build directory of "b", compile and archive libNAME.a, write NAME.pc
 * and NAME.mk.  Returns 0, or -1 after a message. */
static int dmd_build_lib(struct dmd_build *b,
	const struct dmd_build_opts *opts)
{
	const char *name = b->in->job_name;
	char *src = NULL, *hdr = NULL, *lib = NULL, *obj = NULL;
	char *obj_tmp = NULL, *lib_tmp = NULL, *lib_path = NULL;
	char *obj_dir = NULL;
	int r = -1;

	if (asprintf(&src, "lib%s.c", name) < 0 ||
	    asprintf(&hdr, "%s.h", name) < 0 ||
	    asprintf(&lib, "lib%s.a", name) < 0 ||
	    asprintf(&obj, "lib%s.o", name) < 0) {
		src = hdr = lib = obj = NULL;
		dmd_build_nomem();
		goto error;
	}
	/* the object in a directory of its own, so that the archive's
	 * member is libNAME.o */
	obj_dir = dmd_path_join(b->absdir, ".lib.tmp.XXXXXX");
	lib_tmp = dmd_build_tmp_path(b->absdir, lib);
	lib_path = dmd_path_join(b->absdir, lib);
	if (!obj_dir || !lib_tmp || !lib_path)
		goto error;
	if (!mkdtemp(obj_dir)) {
		fprintf(stderr, "distmpmd: cannot create a directory in %s: "
			"%s\n", b->dir, strerror(errno));
		free(obj_dir);
		obj_dir = NULL;
		goto error;
	}
	obj_tmp = dmd_path_join(obj_dir, obj);
	if (!obj_tmp)
		goto error;
	if (dmd_build_put(b, "common.h", b->in->common) < 0 ||
	    dmd_build_put(b, hdr, b->in->lib_header) < 0 ||
	    dmd_build_put(b, src, b->in->lib_source) < 0)
		goto error;
	dmd_launch_catch();
	r = dmd_build_lib_compile(b, src, obj_tmp, lib_tmp, opts);
	dmd_launch_kill_all();
	if (dmd_launch_cancelled()) {
		int sig = dmd_launch_cancelled();

		fprintf(stderr, "distmpmd: build cancelled by signal %d "
			"(%s)\n", sig, strsignal(sig));
		r = -1;
	}
	dmd_launch_release();
	if (r == 0 && rename(lib_tmp, lib_path) < 0) {
		fprintf(stderr, "distmpmd: cannot write %s/%s: %s\n", b->dir,
			lib, strerror(errno));
		r = -1;
	}
	if (r == 0)
		r = dmd_build_lib_flags(b);
error:
	if (obj_tmp)
		unlink(obj_tmp);
	if (obj_dir)
		rmdir(obj_dir);
	free(obj_dir);
	if (lib_tmp)
		unlink(lib_tmp);
	free(lib_path);
	free(lib_tmp);
	free(obj_tmp);
	free(obj);
	free(lib);
	free(hdr);
	free(src);
	return r;
}

/* Write "in" into the build directory "dir" (see the header). */
int dmd_build_dir(const struct dmd_build_input *in, const char *dir,
	const struct dmd_build_opts *opts)
{
	struct dmd_build b;
	char name[32];
	int k, sig, r = 1;

	memset(&b, 0, sizeof(b));
	if (in->n_class < 1) {
		fprintf(stderr, "distmpmd: internal error: no rank classes\n");
		return 1;
	}
	if (dmd_build_prepare(&b, in, dir, opts) < 0)
		goto error;
	if (in->lib_source) {
		r = dmd_build_lib(&b, opts) < 0;
		goto error;
	}
	if (in->common && dmd_build_put(&b, "common.h", in->common) < 0)
		goto error;
	for (k = 0; k < in->n_class; ++k) {
		snprintf(name, sizeof(name), "class%d.c", k);
		if (dmd_build_put(&b, name, in->cls[k].code) < 0)
			goto error;
	}
	dmd_launch_catch();
	if (dmd_build_compile(&b, opts) == 0) {
		for (k = 0; k < in->n_class; ++k)
			if (dmd_build_install(&b, k) < 0)
				break;
		if (k == in->n_class && !dmd_launch_cancelled() &&
		    dmd_build_manifest(&b) == 0)
			r = 0;
	}
	dmd_launch_kill_all();
	sig = dmd_launch_cancelled();
	dmd_launch_release();
	if (sig) {
		fprintf(stderr, "distmpmd: build cancelled by signal %d (%s)\n",
			sig, strsignal(sig));
		r = 1;
	}
error:
	dmd_build_clear(&b);
	return r;
}
