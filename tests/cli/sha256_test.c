/* sha256_test.c: print the SHA-256 of each file named on the command
 * line as sha256sum(1) does ("HEX  FILE"), with manifests/dmd_sha256.c,
 * hashing the data in pieces of awkward sizes to exercise the buffering
 * of dmd_sha256_update.  Exit status 1 if a file cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "manifests/dmd_sha256.h"

/* Hash the file "path" in pieces of 1, 2, 3, ... 70 bytes, repeated. */
static int hash_file(const char *path, char hex[65])
{
	struct dmd_sha256 s;
	unsigned char buf[70];
	size_t piece = 1, got;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	dmd_sha256_init(&s);
	while ((got = fread(buf, 1, piece, f)) > 0) {
		dmd_sha256_update(&s, buf, got);
		piece = piece % sizeof(buf) + 1;
	}
	dmd_sha256_final(&s, hex);
	return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char hex[65];
	int i, r = 0;

	for (i = 1; i < argc; ++i) {
		if (hash_file(argv[i], hex) < 0) {
			perror(argv[i]);
			r = 1;
			continue;
		}
		printf("%s  %s\n", hex, argv[i]);
	}
	return r;
}
