#ifndef DMD_SESSION_H
#define DMD_SESSION_H

/* The compiler core behind the command line: every stage from the job
 * to the classes' code, held in one struct dmd_session.  The rest of
 * cmd/ only uses its "in" (cmd/dmd_build.h). */

#include <isl/ctx.h>

#include "ir/dmd_diag.h"
#include "ir/dmd_model.h"
#include "partition/dmd_part.h"
#include "emit/dmd_emit.h"
#include "cmd/dmd_build.h"
#include "search/dmd_search.h"
#include "search/dmd_search_layout.h"

/* The analysed job: every stage of the compiler, each made and freed by
 * its room: job (ir) -> model (ir) -> transfer plan (partition) -> the
 * schedules of the steps that have none (search; the model and plan made
 * again with them) -> facts and cells (partition) -> each cell's program
 * (specialize), proved -> classes with their code (emit; cells with
 * identical code merged).  "in" is what the rest of cmd/
 * uses. */
struct dmd_session {
	struct dmd_diag diag;		/* the messages about its job */
	isl_ctx *ctx;
	struct dmd_job *job;
	struct dmd_model *m;
	struct dmd_plan *plan;
	struct dmd_cost *cost;		/* plan's cost as the search analysed
					 * it (memory: over the mesh), or
					 * NULL (owned) */
	struct dmd_proofs proofs;
	struct dmd_facts *facts;
	struct dmd_cells *cells;
	struct dmd_specs *specs;
	struct dmd_classes *classes;
	struct dmd_build_input in;
	struct dmd_build_class *cls;	/* in.cls, owned */
	struct dmd_build_file *files;	/* in.files, owned */
	char *lib_source;		/* in.lib_source, owned (--lib) */
	char *lib_header;		/* in.lib_header, owned (--lib) */
	int n_found;			/* steps searched for a schedule: */
	struct dmd_search **found;	/* per step, or NULL (owned) */
	struct dmd_layouts *layouts;	/* of the automatic tensors, or
					 * NULL (owned) */
};

/* How far dmd_session_analyse goes: the plan, the cells and their
 * programs with their proofs (DMD_SESSION_PLAN: check, classes, diff,
 * sweep); also the classes' code (DMD_SESSION_CLASSES: build, emit); or
 * the plan and its cells only, not their programs (DMD_SESSION_CELLS:
 * plan, whose figures are the plan's and the cells', "cost only", spec
 * 1.6; build still specializes and proves what plan chose). */
enum { DMD_SESSION_PLAN = 0, DMD_SESSION_CLASSES = 1,
	DMD_SESSION_CELLS = 2 };

/* Start "s", its messages to "fn" (stderr if NULL); read its job from
 * memory (the fuzz harness); analyse its job, with the classes' code or
 * not: how the analysis ended. */
void dmd_session_init(struct dmd_session *s, dmd_diag_fn fn, void *user);
enum dmd_status dmd_session_read_mem(struct dmd_session *s, const char *name,
	const char *data, size_t len);
enum dmd_status dmd_session_run(struct dmd_session *s, int classes);
/* dmd_session_init (stderr), read the job file "path", run: the exit
 * status (0, 2 for a bad job, 1 for an internal error). */
int dmd_session_analyse(struct dmd_session *s, const char *path,
	int classes);
void dmd_session_summary(struct dmd_session *s);
/* The library of the job (build --lib) into s->in: 0, 2 (refused, with
 * a located message) or 1. */
int dmd_session_lib(struct dmd_session *s);
void dmd_session_free(struct dmd_session *s);

#endif
