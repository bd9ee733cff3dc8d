/* dmd_sha256.h: SHA-256 (FIPS 180-4), to record in manifest.yaml what
 * each class binary is and to check it before a launch.
 */
#ifndef DMD_SHA256_H
#define DMD_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The state of one hash computation. */
struct dmd_sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];	/* the block being filled */
	size_t n_buf;
};

void dmd_sha256_init(struct dmd_sha256 *s);
void dmd_sha256_update(struct dmd_sha256 *s, const void *data, size_t n);
/* Finish: the digest as 64 lowercase hex digits and a NUL in "hex". */
void dmd_sha256_final(struct dmd_sha256 *s, char hex[65]);

/* Hash the open file "fd" from its current position to its end into
 * "hex".  Returns 0, or -1 with errno set if reading fails. */
int dmd_sha256_fd(int fd, char hex[65]);

#endif
