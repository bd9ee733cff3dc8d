/* dmd_ref.c: finding and running the sequential reference dmd_ref.py
 * (see dmd_ref.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/dmd_ref.h"

/* The interpreter that has Debian's numpy and yaml. */
#define DMD_REF_PYTHON "/usr/bin/python3"

/* Where dmd_ref.py lies under a prefix: a source tree, an installation. */
static const char *const dmd_ref_where[] = {
	"tests/ref/dmd_ref.py", "share/distmpmd/dmd_ref.py",
};

/* Is "path" a readable regular file?  If not, errno says why. */
static int dmd_ref_readable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return 0;
	}
	return access(path, R_OK) == 0;
}

/* Find dmd_ref.py (see the header). */
char *dmd_ref_find(const char *self, const char *path, const char *cmd)
{
	const char *home = getenv("DISTMPMD_HOME");
	char *prefix = NULL, *found = NULL, *slash;
	size_t i;

	if (path) {
		if (dmd_ref_readable(path))
			return strdup(path);
		fprintf(stderr, "distmpmd: %s: --ref=%s: %s\n", cmd, path,
			strerror(errno));
		return NULL;
	}
	prefix = strdup(home && *home ? home : self);
	if (!prefix)
		goto nomem;
	if (!(home && *home)) {
		/* <prefix>/bin/distmpmd */
		for (i = 0; i < 2; ++i) {
			slash = strrchr(prefix, '/');
			if (slash)
				slash[slash == prefix ? 1 : 0] = '\0';
		}
	}
	for (i = 0; i < sizeof(dmd_ref_where) / sizeof(dmd_ref_where[0]);
	     ++i) {
		free(found);
		if (asprintf(&found, "%s/%s", prefix, dmd_ref_where[i]) < 0) {
			found = NULL;
			goto nomem;
		}
		if (dmd_ref_readable(found)) {
			free(prefix);
			return found;
		}
	}
	fprintf(stderr, "distmpmd: %s: cannot find the reference in %s%s "
		"(tests/ref/dmd_ref.py or share/distmpmd/dmd_ref.py)%s\n", cmd,
		home && *home ? "DISTMPMD_HOME=" : "", prefix,
		strcmp(cmd, "sweep") ? "" : ": give --ref=PATH");
	free(found);
	free(prefix);
	return NULL;
nomem:
	fprintf(stderr, "distmpmd: out of memory\n");
	free(found);
	free(prefix);
	return NULL;
}

/* The interpreter (see the header). */
const char *dmd_ref_python(void)
{
	const char *env = getenv("DISTMPMD_PYTHON");

	if (env && *env)
		return env;
	return access(DMD_REF_PYTHON, X_OK) == 0 ? DMD_REF_PYTHON : "python3";
}

/* Run dmd_ref.py in place of this process (see the header). */
int dmd_ref_exec(const char *self, int argc, char *const *argv)
{
	const char *python = dmd_ref_python();
	char *script, **args;
	int i;

	script = dmd_ref_find(self, NULL, "ref");
	if (!script)
		return 1;
	args = malloc((argc + 3) * sizeof(*args));
	if (!args || setenv("DMD_REF_PROG", "distmpmd ref", 1) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		free(args);
		free(script);
		return 1;
	}
	args[0] = (char *) python;
	args[1] = script;
	for (i = 0; i < argc; ++i)
		args[2 + i] = argv[i];
	args[2 + argc] = NULL;
	fflush(NULL);
	execvp(python, args);
	fprintf(stderr, "distmpmd: ref: cannot run %s: %s%s\n", python,
		strerror(errno), errno == ENOENT ? " (apt-get install "
		"python3-numpy python3-yaml, or set DISTMPMD_PYTHON)" : "");
	free(args);
	free(script);
	return 1;
}
