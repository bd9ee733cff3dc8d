/* dmd_sha256.c: SHA-256 as specified in FIPS 180-4, section 6.2. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dmd_sha256.h"

/* The round constants: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
static const uint32_t dmd_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Rotate "x" right by "n" bits. */
static uint32_t dmd_sha256_ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* Process one 64-byte block "p". */
static void dmd_sha256_block(struct dmd_sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; ++i)
		w[i] = (uint32_t) p[4 * i] << 24 |
			(uint32_t) p[4 * i + 1] << 16 |
			(uint32_t) p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; ++i) {
		uint32_t s0 = dmd_sha256_ror(w[i - 15], 7) ^
			dmd_sha256_ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = dmd_sha256_ror(w[i - 2], 17) ^
			dmd_sha256_ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; ++i) {
		t1 = h + (dmd_sha256_ror(e, 6) ^ dmd_sha256_ror(e, 11) ^
			dmd_sha256_ror(e, 25)) + ((e & f) ^ (~e & g)) +
			dmd_sha256_k[i] + w[i];
		t2 = (dmd_sha256_ror(a, 2) ^ dmd_sha256_ror(a, 13) ^
			dmd_sha256_ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

/* Start a hash: the initial values of FIPS 180-4, 5.3.3. */
void dmd_sha256_init(struct dmd_sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->n_buf = 0;
}

/* Hash "n" more bytes at "data". */
void dmd_sha256_update(struct dmd_sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;

	s->len += n;
	while (n > 0) {
		size_t k = 64 - s->n_buf;

		if (s->n_buf == 0 && n >= 64) {
			dmd_sha256_block(s, p);
			p += 64;
			n -= 64;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(s->buf + s->n_buf, p, k);
		s->n_buf += k;
		p += k;
		n -= k;
		if (s->n_buf == 64) {
			dmd_sha256_block(s, s->buf);
			s->n_buf = 0;
		}
	}
}

/* Pad (a 1 bit, zeros, the length in bits as 64 bits big-endian) and
 * write the digest in hex. */
void dmd_sha256_final(struct dmd_sha256 *s, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint64_t bits = s->len * 8;
	int i;

	s->buf[s->n_buf++] = 0x80;
	if (s->n_buf > 56) {
		memset(s->buf + s->n_buf, 0, 64 - s->n_buf);
		dmd_sha256_block(s, s->buf);
		s->n_buf = 0;
	}
	memset(s->buf + s->n_buf, 0, 56 - s->n_buf);
	for (i = 0; i < 8; ++i)
		s->buf[56 + i] = bits >> (56 - 8 * i);
	dmd_sha256_block(s, s->buf);
	for (i = 0; i < 32; ++i) {
		unsigned byte = s->h[i / 4] >> (24 - 8 * (i % 4)) & 0xff;

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 0xf];
	}
	hex[64] = '\0';
}

/* Hash what remains of the file "fd" into "hex". */
int dmd_sha256_fd(int fd, char hex[65])
{
	struct dmd_sha256 s;
	unsigned char buf[1 << 16];
	ssize_t got;

	dmd_sha256_init(&s);
	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		dmd_sha256_update(&s, buf, got);
	}
	dmd_sha256_final(&s, hex);
	return 0;
}
