/* dmd_emit_ops.h: the operators isl's C printer uses in emitted code
 * (floord, min, max), as in PPCG's output. */
#ifndef DMD_EMIT_OPS_H
#define DMD_EMIT_OPS_H

#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))

/* The origin of a box that starts at a buffer's first element. */
static const long dmd_zero[8] = { 0 };

#endif
