/* dmd_search_spec.c: analyses of candidates made ahead, in child
 * processes, while the search analyses the first one itself.
 *
 * The search analyses its best estimated candidates one after another
 * (search/dmd_search.c: dmd_search_analyse_best); each analysis is a few
 * seconds of isl on a large mesh (8192^3 on 64 ranks: 3-D on 4x4x4 takes
 * 5.8 s, on 8x2x4 1.5 s, on 8x4x2 2.2 s).  Which of the next ones it
 * analyses depends on the figures of those before, but the analysis of
 * one does not: so the next few are analysed ahead by forked children
 * (as many as there are other processors, DMD_SEARCH_JOBS in the
 * environment overriding), each writing the figures of its candidates
 * down a pipe.  The search takes them when it comes to that candidate,
 * in its own order, and so decides exactly as without children: the
 * same candidates analysed, the same figures (the analysis is the same
 * computation on a copy of the same state, its isl operation quota
 * counted afresh for each candidate), the same plan.  A child's analysis
 * is only figures: where the search keeps the candidate's analysis for
 * the build (the best so far), it analyses it again itself.  A child
 * that fails or dies costs nothing but time: the search then analyses
 * the candidate itself.
 *
 * What a record carries: the candidate's index, costed, its figures
 * (struct dmd_cost_figs, written as it lies in memory: the child is a
 * copy of this process), the memory of its busiest rank, and the two
 * messages (refused: why; beyond mesh.memory: rejected).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "search/dmd_search_spec.h"
#include "ir/dmd_int.h"

/* The most children (and candidates analysed ahead). */
#define DMD_SPEC_MAX	8

/* The longest message a record carries.  A child whose candidate has a
 * longer one stops writing before it, so the search analyses that
 * candidate (and the child's later ones) itself: never a cut message. */
#define DMD_SPEC_MSG	(1 << 20)

/* One child: its process, the read end of its pipe, its candidates (in
 * the search's order) and how many of their records were read. */
struct dmd_spec_child {
	pid_t pid;
	int fd;
	int n;
	int idx[DMD_SPEC_MAX];
	int read;
};

struct dmd_spec {
	int n;
	struct dmd_spec_child ch[DMD_SPEC_MAX];
};

/* The processes the search may use: DMD_SEARCH_JOBS (1 .. 64) if set,
 * else the processors online. */
int dmd_search_spec_jobs(void)
{
	long v = dmd_int_env("DMD_SEARCH_JOBS", 1, 64, 0);

	if (v > 0)
		return (int) v;
	v = sysconf(_SC_NPROCESSORS_ONLN);
	return v < 1 ? 1 : v > 64 ? 64 : (int) v;
}

/* Write the "n" bytes at "p" to "fd" whole.  Returns 0 or -1. */
static int dmd_spec_write(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t) w;
	}
	return 0;
}

/* Read "n" bytes from "fd" into "p" whole.  Returns 0, or -1 (error or
 * the end of the pipe before them). */
static int dmd_spec_read(int fd, void *p, size_t n)
{
	char *s = p;

	while (n > 0) {
		ssize_t r = read(fd, s, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		s += r;
		n -= (size_t) r;
	}
	return 0;
}

/* Write message "msg" (NULL: none) to "fd": its length (-1: none), then
 * its bytes.  Returns -1, writing nothing, for a message longer than
 * DMD_SPEC_MSG. */
static int dmd_spec_write_msg(int fd, const char *msg)
{
	size_t n = msg ? strnlen(msg, DMD_SPEC_MSG + 1) : 0;
	int32_t len = msg ? (int32_t) n : -1;

	if (n > DMD_SPEC_MSG)
		return -1;
	if (dmd_spec_write(fd, &len, sizeof(len)) < 0)
		return -1;
	return len > 0 ? dmd_spec_write(fd, msg, (size_t) len) : 0;
}

/* Read a message written by dmd_spec_write_msg into *msg (malloc'ed, or
 * NULL: none).  Returns 0 or -1. */
static int dmd_spec_read_msg(int fd, char **msg)
{
	int32_t len;

	*msg = NULL;
	if (dmd_spec_read(fd, &len, sizeof(len)) < 0 || len > DMD_SPEC_MSG ||
	    len < -1)
		return -1;
	if (len < 0)
		return 0;
	*msg = malloc((size_t) len + 1);
	if (!*msg)
		return -1;
	if (dmd_spec_read(fd, *msg, (size_t) len) < 0) {
		free(*msg);
		*msg = NULL;
		return -1;
	}
	(*msg)[len] = '\0';
	return 0;
}

/* In the child: analyse candidates "idx" (n of them) of "c" with "eval"
 * and write each one's record to "fd"; never returns.  With
 * DMD_SEARCH_AHEAD_DIE set (for tests), the child dies after the first
 * part of its first record, as a child that crashes would. */
static void dmd_spec_child_run(int fd, struct dmd_search_cand *c,
	const int *idx, int n, dmd_search_spec_eval eval, void *user)
{
	int i, bad = 0, die = getenv("DMD_SEARCH_AHEAD_DIE") != NULL;

	for (i = 0; i < n && !bad; ++i) {
		struct dmd_search_cand *ci = &c[idx[i]];
		int32_t head[2];

		eval(ci, user);
		head[0] = idx[i];
		head[1] = ci->costed;
		if (die) {
			dmd_spec_write(fd, head, sizeof(head));
			_exit(1);
		}
		bad = dmd_spec_write(fd, head, sizeof(head)) < 0 ||
			dmd_spec_write(fd, &ci->fig, sizeof(ci->fig)) < 0 ||
			dmd_spec_write(fd, &ci->mem_total,
				sizeof(ci->mem_total)) < 0 ||
			dmd_spec_write_msg(fd, ci->why) < 0 ||
			dmd_spec_write_msg(fd, ci->rejected) < 0;
	}
	close(fd);
	_exit(bad ? 1 : 0);
}

/* Start analysing candidates "idx" (n of them, in the order the search
 * will come to them) of "c" ahead, in at most "jobs" - 1 children: the
 * i-th to child i mod their count.  NULL where no child could be started
 * (the search then analyses them itself). */
struct dmd_spec *dmd_search_spec_start(struct dmd_search_cand *c,
	const int *idx, int n, int jobs, dmd_search_spec_eval eval,
	void *user)
{
	struct dmd_spec *sp;
	int i, k, nc;

	nc = jobs - 1 < n ? jobs - 1 : n;
	if (nc > DMD_SPEC_MAX)
		nc = DMD_SPEC_MAX;
	if (nc <= 0)
		return NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	for (i = 0; i < n && i < DMD_SPEC_MAX * DMD_SPEC_MAX; ++i) {
		struct dmd_spec_child *ch = &sp->ch[i % nc];

		if (ch->n < DMD_SPEC_MAX)
			ch->idx[ch->n++] = idx[i];
	}
	/* what this process has buffered is written once, by itself */
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < nc; ++k) {
		struct dmd_spec_child *ch = &sp->ch[k];
		int fds[2];

		ch->fd = -1;
		if (pipe(fds) < 0)
			break;
		ch->pid = fork();
		if (ch->pid < 0) {
			close(fds[0]);
			close(fds[1]);
			break;
		}
		if (ch->pid == 0) {
			int j;

			close(fds[0]);
			for (j = 0; j < k; ++j)
				close(sp->ch[j].fd);
			dmd_spec_child_run(fds[1], c, ch->idx, ch->n, eval,
				user);
		}
		close(fds[1]);
		ch->fd = fds[0];
		sp->n = k + 1;
	}
	if (sp->n == 0) {
		free(sp);
		return NULL;
	}
	return sp;
}

/* Take the record of candidate "i" from the child that analyses it into
 * "c" (costed, figures, memory, messages; estimated cleared): the
 * records of its candidates before it, which the search passed over,
 * are read and dropped.  Returns 1 if taken, 0 if "i" was not analysed
 * ahead, or its child failed (it is then the search's to analyse). */
int dmd_search_spec_take(struct dmd_spec *sp, int i,
	struct dmd_search_cand *c)
{
	int k, pos;

	if (!sp)
		return 0;
	for (k = 0; k < sp->n; ++k) {
		struct dmd_spec_child *ch = &sp->ch[k];

		for (pos = ch->read; pos < ch->n; ++pos)
			if (ch->idx[pos] == i)
				break;
		if (pos == ch->n || ch->fd < 0)
			continue;
		while (ch->read <= pos) {
			int32_t head[2];
			struct dmd_cost_figs fig;
			long long mem;
			char *why = NULL, *rej = NULL;

			if (dmd_spec_read(ch->fd, head, sizeof(head)) < 0 ||
			    dmd_spec_read(ch->fd, &fig, sizeof(fig)) < 0 ||
			    dmd_spec_read(ch->fd, &mem, sizeof(mem)) < 0 ||
			    dmd_spec_read_msg(ch->fd, &why) < 0 ||
			    dmd_spec_read_msg(ch->fd, &rej) < 0 ||
			    head[0] != ch->idx[ch->read]) {
				free(why);
				free(rej);
				close(ch->fd);
				ch->fd = -1;
				return 0;
			}
			if (ch->read++ < pos) {
				free(why);
				free(rej);
				continue;
			}
			c->costed = head[1];
			c->estimated = 0;
			c->fig = fig;
			c->mem_total = mem;
			free(c->why);
			c->why = why;
			free(c->rejected);
			c->rejected = rej;
			return 1;
		}
	}
	return 0;
}

/* Stop the children of "sp" (those still analysing are killed) and
 * release it; returns NULL. */
struct dmd_spec *dmd_search_spec_free(struct dmd_spec *sp)
{
	int k;

	if (!sp)
		return NULL;
	for (k = 0; k < sp->n; ++k) {
		struct dmd_spec_child *ch = &sp->ch[k];

		if (ch->fd >= 0)
			close(ch->fd);
		kill(ch->pid, SIGKILL);
		while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(sp);
	return NULL;
}
