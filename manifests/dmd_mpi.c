/* dmd_mpi.c: which MPI a compiler wrapper or a launcher belongs to (see
 * dmd_mpi.h).
 *
 * What they print is not trusted: only a version made of letters,
 * digits, '.', '-', '+' and '_' is kept from it, and names given by
 * the user are shown in messages with bytes outside printable ASCII as
 * octal escapes.  Each probe is a process of its own (fork and execvp,
 * no shell), with a time limit.
 *
 *	mpicc.mpich -show              gcc ... -lmpich
 *	mpicc.mpich -v                 mpicc for MPICH version 4.0.2
 *	mpicc.openmpi -show            gcc ... -lmpi
 *	mpicc.openmpi --showme:version mpicc.openmpi: Open MPI 4.1.4 (...)
 *	mpiexec.mpich --version        HYDRA build details: / Version: 4.0.2
 *	mpiexec.openmpi --version      mpiexec.openmpi (OpenRTE) 4.1.4
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "dmd_launch.h"
#include "dmd_mpi.h"

/* Seconds a wrapper or a launcher has to answer. */
#define DMD_MPI_TIMEOUT 30

/* What a probe keeps of the output. */
#define DMD_MPI_OUT 65536

static const char *const dmd_mpi_keys[] = { "mpich", "openmpi" };
static const char *const dmd_mpi_names[] = { "MPICH", "Open MPI" };

/* The wrapper to use (see the header). */
const char *dmd_mpi_cc(const char *opt)
{
	const char *env = getenv("DISTMPMD_MPICC");

	if (opt)
		return opt;
	return env && *env ? env : "mpicc.mpich";
}

/* The launcher to use (see the header). */
const char *dmd_mpi_exec(const char *opt)
{
	const char *env = getenv("DISTMPMD_MPIEXEC");

	if (opt)
		return opt;
	return env && *env ? env : "mpiexec.mpich";
}

/* The family's key. */
const char *dmd_mpi_key(enum dmd_mpi_family family)
{
	return dmd_mpi_keys[family];
}

/* The family's name for people. */
const char *dmd_mpi_name(enum dmd_mpi_family family)
{
	return dmd_mpi_names[family];
}

/* The family whose key is "key", or -1. */
int dmd_mpi_family_of(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(dmd_mpi_keys) / sizeof(dmd_mpi_keys[0]); ++i)
		if (!strcmp(key, dmd_mpi_keys[i]))
			return (int) i;
	return -1;
}

/* Print "s" to "f" for a message (see the header). */
void dmd_mpi_show_in(FILE *f, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < 200; ++i) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	if (s[i])
		fputs("...", f);
}

/* Print "s" to stderr for a message. */
static void dmd_mpi_show(const char *s)
{
	dmd_mpi_show_in(stderr, s);
}

/* Run "prog arg" and keep its output in "out".  Returns 1 if it exited
 * with status 0, 0 if it ended otherwise, -1 after a message if it could
 * not be run or did not answer in time ("what": "compiler wrapper",
 * "launcher"). */
static int dmd_mpi_ask(const char *prog, const char *arg, char *out,
	const char *what)
{
	char *argv[3];
	int r, status = 0;

	argv[0] = (char *) prog;
	argv[1] = (char *) arg;
	argv[2] = NULL;
	r = dmd_launch_capture(argv, out, DMD_MPI_OUT, DMD_MPI_TIMEOUT,
		&status);
	if (r == -2) {
		fprintf(stderr, "distmpmd: the MPI %s '", what);
		dmd_mpi_show(prog);
		fprintf(stderr, "' did not answer '%s' in %d s\n", arg,
			DMD_MPI_TIMEOUT);
		return -1;
	}
	if (r < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Does the white-space separated word "w" appear in "text"? */
static int dmd_mpi_has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = text; (p = strstr(p, w)); p += n)
		if ((p == text || isspace((unsigned char) p[-1])) &&
		    (!p[n] || isspace((unsigned char) p[n])))
			return 1;
	return 0;
}

/* Copy into m->version the version that follows "after" in "text" (after
 * blanks): letters, digits, '.', '-', '+', '_'.  Empty if none. */
static void dmd_mpi_version(struct dmd_mpi *m, const char *text,
	const char *after)
{
	const char *p = strstr(text, after);
	size_t n = 0;

	m->version[0] = '\0';
	if (!p)
		return;
	for (p += strlen(after); *p == ' ' || *p == '\t'; ++p)
		;
	while (n + 1 < sizeof(m->version) &&
	       (isalnum((unsigned char) p[n]) || strchr(".-+_", p[n])) &&
	       p[n])
		++n;
	memcpy(m->version, p, n);
	m->version[n] = '\0';
}

/* Say that "prog" is not an MPI that distmpmd knows, and return -1. */
static int dmd_mpi_unknown(const char *prog, const char *what,
	const char *how)
{
	fprintf(stderr, "distmpmd: cannot tell which MPI the %s '", what);
	dmd_mpi_show(prog);
	fprintf(stderr, "' belongs to (%s); distmpmd knows MPICH and "
		"Open MPI\n", how);
	return -1;
}

/* Identify the MPI of the compiler wrapper "cc" (see the header). */
int dmd_mpi_probe_cc(const char *cc, struct dmd_mpi *m)
{
	static const char what[] = "compiler wrapper";
	char *out = malloc(DMD_MPI_OUT);
	int r = -1, ok;

	if (!out) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	ok = dmd_mpi_ask(cc, "-show", out, what);
	if (ok < 0)
		goto done;
	if (ok && dmd_mpi_has_word(out, "-lmpich")) {
		m->family = DMD_MPI_MPICH;
		if (dmd_mpi_ask(cc, "-v", out, what) < 0)
			goto done;
		dmd_mpi_version(m, out, "for MPICH version");
		r = 0;
		goto done;
	}
	ok = dmd_mpi_ask(cc, "--showme:version", out, what);
	if (ok < 0)
		goto done;
	if (ok && strstr(out, "Open MPI ")) {
		m->family = DMD_MPI_OPENMPI;
		dmd_mpi_version(m, out, "Open MPI");
		r = 0;
		goto done;
	}
	r = dmd_mpi_unknown(cc, what, "'-show' names no -lmpich and "
		"'--showme:version' no Open MPI");
done:
	free(out);
	return r;
}

/* Identify the MPI of the launcher "exec" (see the header). */
int dmd_mpi_probe_exec(const char *exec, struct dmd_mpi *m)
{
	static const char what[] = "launcher";
	char *out = malloc(DMD_MPI_OUT);
	int r = -1, ok;

	if (!out) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	ok = dmd_mpi_ask(exec, "--version", out, what);
	if (ok < 0)
		goto done;
	if (ok && strstr(out, "HYDRA build details")) {
		m->family = DMD_MPI_MPICH;
		dmd_mpi_version(m, out, "Version:");
		r = 0;
	} else if (ok && (strstr(out, "(OpenRTE)") ||
			strstr(out, "(Open MPI)"))) {
		m->family = DMD_MPI_OPENMPI;
		dmd_mpi_version(m, out, strstr(out, "(OpenRTE)") ?
			"(OpenRTE)" : "(Open MPI)");
		r = 0;
	} else {
		r = dmd_mpi_unknown(exec, what, "'--version' names neither "
			"HYDRA nor OpenRTE or Open MPI");
	}
done:
	free(out);
	return r;
}
