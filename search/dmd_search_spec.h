/* dmd_search_spec.h: candidates analysed ahead in child processes (see
 * dmd_search_spec.c).
 *
 * Ownership: dmd_search_spec_start gives a dmd_spec (NULL: no child);
 * dmd_search_spec_free stops its children, releases it and returns NULL.
 */
#ifndef DMD_SEARCH_SPEC_H
#define DMD_SEARCH_SPEC_H

#include "search/dmd_search.h"

/* Analyse candidate "c" (in a child: its figures and messages are what
 * the child reports). */
typedef void (*dmd_search_spec_eval)(struct dmd_search_cand *c,
	void *user);

struct dmd_spec;

int dmd_search_spec_jobs(void);
struct dmd_spec *dmd_search_spec_start(struct dmd_search_cand *c,
	const int *idx, int n, int jobs, dmd_search_spec_eval eval,
	void *user);
int dmd_search_spec_take(struct dmd_spec *sp, int i,
	struct dmd_search_cand *c);
struct dmd_spec *dmd_search_spec_free(struct dmd_spec *sp);

#endif
