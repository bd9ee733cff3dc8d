/* dmd_isl.h: building isl objects through the API (never from text), and
 * small isl helpers the passes share.
 */
#ifndef DMD_ISL_H
#define DMD_ISL_H

#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/val.h>
#include <isl/id.h>
#include <isl/ilp.h>

#include "dmd_job.h"

/* How dmd_isl_expr finds the value of a variable: a pw_aff on the
 * domain space "space" (or NULL after an error). */
typedef __isl_give isl_pw_aff *(*dmd_isl_var_fn)(__isl_keep isl_space *space,
	const char *name, void *user);

/* The value of the (quasi-)affine expression "e" (integers, variables,
 * + - * by a constant, // and % by a positive constant, negation) as a
 * pw_aff on the set space "space". */
__isl_give isl_pw_aff *dmd_isl_expr(__isl_keep isl_space *space,
	const struct dmd_expr *e, dmd_isl_var_fn var, void *user);

/* The set dimension "pos" of set space "space", as a pw_aff on it. */
__isl_give isl_pw_aff *dmd_isl_dim(__isl_keep isl_space *space, int pos);
/* The constant "v" on set space "space". */
__isl_give isl_pw_aff *dmd_isl_cst(__isl_keep isl_space *space, long v);
/* The parameter-only pw_aff "pa" (domain: a parameter set) as a pw_aff
 * on set space "space" that does not depend on the set dimensions. */
__isl_give isl_pw_aff *dmd_isl_on(__isl_take isl_pw_aff *pa,
	__isl_keep isl_space *space);
/* A set space with the parameters of "params", tuple "name" and "n"
 * dimensions. */
__isl_give isl_space *dmd_isl_set_space(__isl_keep isl_space *params,
	const char *name, int n);
/* Give the tuple of set "set" / of the domain of "pa" the name "name". */
__isl_give isl_set *dmd_isl_set_name(__isl_take isl_set *set,
	const char *name);
__isl_give isl_pw_aff *dmd_isl_pw_aff_name(__isl_take isl_pw_aff *pa,
	const char *name);

/* The largest value of "pa" on its domain intersected with parameter
 * set "ctx" (NULL: anywhere); 0 if that is empty; -1 if unbounded or on
 * error. */
long dmd_isl_max(__isl_keep isl_pw_aff *pa, __isl_keep isl_set *ctx);
__isl_give isl_val *dmd_isl_opt_val(__isl_take isl_pw_aff *pa, int max);
/* Whether some basic set of "set" has divisions: 1, 0, or -1 on
 * error. */
int dmd_isl_set_has_div(__isl_keep isl_set *set);
/* pa + v */
__isl_give isl_pw_aff *dmd_isl_add(__isl_take isl_pw_aff *pa, long v);
/* "pa" extended with the value 0 on the points of "dom" where it is not
 * defined. */
__isl_give isl_pw_aff *dmd_isl_complete(__isl_take isl_pw_aff *pa,
	__isl_keep isl_set *dom);
/* The box hull of map "map" per output dimension: lo[d] = min, ext[d] =
 * max - min + 1, as pw_affs on the domain of "map" (defined where the
 * image is not empty). */
int dmd_isl_box(__isl_keep isl_map *map, isl_pw_aff **lo, isl_pw_aff **ext);
/* "pa" with explicit divisions in the domains of its pieces. */
__isl_give isl_pw_aff *dmd_isl_explicit(__isl_take isl_pw_aff *pa);
/* The same for a set (pw_affs on its parameters). */
int dmd_isl_set_box(__isl_keep isl_set *set, isl_pw_aff **lo,
	isl_pw_aff **ext);
/* { name[lo <= e < lo + ext] } over the domain of the pw_affs: the map
 * from the domain of lo/ext (a set space) to the box, tuple "out". */
__isl_give isl_map *dmd_isl_box_map(__isl_keep isl_space *out,
	int n, isl_pw_aff *const *lo, isl_pw_aff *const *ext);

/* The swap of the first "n" dimensions of set space "space" with the
 * "n" after the next "len": { [a, t, b, ..] -> [b, t, a, ..] } (the
 * rank and the peer of a piece of a transfer exchanged). */
__isl_give isl_multi_aff *dmd_isl_swap(__isl_take isl_space *space, int n,
	int len);

/* The relation of map "a" to map "b" asked of dmd_isl_map_rel_by_rank. */
enum dmd_isl_rel {
	DMD_ISL_EQUAL,
	DMD_ISL_SUBSET,
};

/* Whether "a" is equal to or a subset of "b", decided for each rank of
 * a mesh of shape "shape" on its own: the first n input dimensions of
 * both, or (with "ids") the parameters named by ids, are the rank's
 * coordinates; false if "a" ("b" too for equality) has a point beyond
 * the mesh. */
isl_bool dmd_isl_map_rel_by_rank(__isl_keep isl_map *a,
	__isl_keep isl_map *b, enum dmd_isl_rel rel,
	__isl_keep isl_multi_id *ids, int n, const long *shape);

/* isl_bool to int with errors as -1: 1 true, 0 false. */
static inline int dmd_isl_bool(isl_bool b)
{
	return b < 0 ? -1 : b == isl_bool_true;
}

#endif
