/*
 * np_results_check_suite.c - the set as a whole, once every run was seen:
 *   - suite.json's plan_sha256 recomputed from the embedded plan, and its
 *     suite, protocol, configurations and repetitions from the plan's own
 *     expansion (np_matrix_plan_from_json, the matrix's code);
 *   - every run a configuration and repetition of that expansion, run
 *     with exactly that configuration's options (rep-N.cmd.txt), by the
 *     suite's program (bench_binary), into one folder per session;
 *   - completeness: planned repetitions with a record (an until_stable
 *     plan plans, per configuration, as many as its rule runs given the
 *     records: np_results_check_stable.c); an incomplete set is said so
 *     ("incomplete: N of M repetitions"), a "complete" one missing
 *     records is a problem;
 *   - the timeline: sessions in order, every run inside its runner
 *     session's window (runner.session names it since 0.2, else its
 *     times do), each session's runs in plan order (until_stable: round
 *     by round), one at a time, and as many as the session says it ran;
 *   - one build (tool hashes) and one machine per set, the suite's own,
 *     unless suite.json says it spans hosts ("spans_hosts": true);
 *   - kept/ records and the sessions' kept_records lists agree;
 *   - each session's services hold its passed runs inside their windows
 *     (np_results_check_services.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_matrix_capacity.h"
#include "np_results_check_int.h"

/* One session of suite.json. */
struct session {
  const char *id;   /* 32 hex, or NULL before 0.2 */
  int64_t start, end;
  int start_whole, end_whole;
  double run;       /* repetitions_run, -1 when absent */
  size_t seen;      /* runs attributed to it */
  const char *out_prefix; /* the --output folder its runs name */
  double shard;     /* merged set: the shard it ran, -1 otherwise */
};

/* A configuration's argv and (exec) its "--" PROGRAM tail, '\x1f'-joined. */
static char *join_plan_args(const struct np_matrix_config *cf) {
  size_t n = 1;
  for (size_t i = 0; i < cf->argc; i++)
    n += strlen(cf->argv[i]) + 1;
  for (size_t i = 0; i < cf->ntail; i++)
    n += strlen(cf->tail[i]) + 1;
  char *s = malloc(n), *w = s;
  if (s == NULL)
    return NULL;
  *w = '\0';
  for (size_t i = 0; i < cf->argc; i++)
    w += sprintf(w, "%s%s", w == s ? "" : "\x1f", cf->argv[i]);
  for (size_t i = 0; i < cf->ntail; i++)
    w += sprintf(w, "%s%s", w == s ? "" : "\x1f", cf->tail[i]);
  return s;
}

/* A rate-fraction configuration's arguments with its --rate as the runner
 * set it: round(F x median round trips/s of the capacity configuration's
 * passed runs in this set), the same formula (np_matrix_capacity.h).
 * Takes want; returns the new string (want itself when there is no
 * capacity: the comparison then reports the stand-in), NULL on no memory. */
static char *resolved_rate(const struct np_results_check *c,
                           const struct np_matrix_plan *p,
                           const struct np_matrix_config *cf, char *want) {
  double *v = calloc(c->nruns + 1, sizeof *v);
  size_t n = 0;
  char text[32];
  if (v == NULL) {
    free(want);
    return NULL;
  }
  for (size_t i = 0; i < c->nruns; i++)
    if (c->runs[i].plan_idx == p->capacity_ref &&
        strcmp(c->runs[i].status, "passed") == 0 && isfinite(c->runs[i].rps))
      v[n++] = c->runs[i].rps;
  int rc = np_matrix_capacity_rate_text(cf->rate_fraction, v, n, text,
                                        sizeof text, NULL);
  free(v);
  const char *stand = cf->argv[cf->rate_arg];
  char *at = strstr(want, stand);
  if (rc != 0 || at == NULL)
    return want;
  size_t pre = (size_t)(at - want);
  char *out = malloc(strlen(want) - strlen(stand) + strlen(text) + 1);
  if (out != NULL)
    sprintf(out, "%.*s%s%s", (int)pre, want, text, at + strlen(stand));
  free(want);
  return out;
}

/* "a\x1fb" -> "a b" for messages. */
static void spaced(const char *s, char *buf, size_t len) {
  snprintf(buf, len, "%s", s ? s : "");
  for (char *p = buf; *p; p++)
    if (*p == '\x1f')
      *p = ' ';
}

static void check_plan_fields(struct np_results_check *c,
                              const struct np_matrix_plan *p) {
  const cJSON *s = c->suite;
  const char *h = np_json_get_string(s, "plan_sha256", "");
  if (strcmp(h, p->hash) != 0)
    np_chk__problem(c, "suite.json", "/plan_sha256",
                    "%s, but the embedded plan hashes to %s (SHA-256 of its "
                    "compact JSON): the plan or the hash was edited",
                    h, p->hash);
  if (strcmp(np_json_get_string(s, "suite", ""), p->suite) != 0)
    np_chk__problem(c, "suite.json", "/suite",
                    "\"%s\", but the plan's is \"%s\"",
                    np_json_get_string(s, "suite", ""), p->suite);
  if (strcmp(np_json_get_string(s, "protocol", ""), p->protocol) != 0)
    np_chk__problem(c, "suite.json", "/protocol",
                    "\"%s\", but the plan's is \"%s\"",
                    np_json_get_string(s, "protocol", ""), p->protocol);
  double nc = np_json_get_number(s, "configurations", -1);
  if (nc != (double)p->nconfigs)
    np_chk__problem(c, "suite.json", "/configurations",
                    "%.0f, but the plan expands to %zu configurations", nc,
                    p->nconfigs);
  double nr = np_json_get_number(s, "repetitions", -1);
  if (nr != (double)p->repetitions)
    np_chk__problem(c, "suite.json", "/repetitions",
                    "%.0f, but the plan asks for %d", nr, p->repetitions);
}

/* 1 when binary is one of a merged set's shards' programs
 * (merged.from[].bench_binary): each machine of a fleet may keep the
 * program elsewhere. */
static int merged_binary(const cJSON *suite, const char *binary) {
  const cJSON *f;
  cJSON_ArrayForEach(f, np_json_pointer(suite, "/merged/from")) {
    if (strcmp(np_json_get_string(f, "bench_binary", ""), binary) == 0)
      return 1;
  }
  return 0;
}

/* Each run against its configuration in the plan. */
static void check_runs_against_plan(struct np_results_check *c,
                                    const struct np_matrix_plan *p,
                                    long *idx) {
  const char *bin = np_json_get_string(c->suite, "bench_binary", NULL);
  char last_unknown[NP_RESULTS_ID_MAX] = "";
  for (size_t i = 0; i < c->nruns; i++) {
    struct np_chk_run *r = &c->runs[i];
    idx[i] = r->plan_idx;
    if (idx[i] < 0) {
      if (strcmp(last_unknown, r->cid) != 0)
        np_chk__problem(c, r->file, "",
                        "configuration %s is not one of the %zu the plan in "
                        "suite.json expands to",
                        r->cid, p->nconfigs);
      snprintf(last_unknown, sizeof last_unknown, "%s", r->cid);
      continue;
    }
    if (r->rep > p->repetitions)
      np_chk__problem(c, r->file, "",
                      "repetition %ld was not planned (suite.json "
                      "repetitions: %d)",
                      r->rep, p->repetitions);
    if (!r->have_record)
      continue;
    const struct np_matrix_config *cf = &p->configs[idx[i]];
    char cmdf[NP_CHK_PATH_MAX + 16];
    snprintf(cmdf, sizeof cmdf, "%.*s.cmd.txt", (int)strlen(r->file) - 5,
             r->file);
    if (strcmp(r->protocol, p->protocol) != 0 &&
        !np_kind_in_plan(np_kind_find(r->protocol), p->protocol))
      np_chk__problem(c, r->file, "/config/protocol",
                      "\"%s\", but the plan runs \"%s\"", r->protocol,
                      p->protocol);
    char *want = join_plan_args(cf);
    if (want == NULL) {
      c->oom = 1;
      return;
    }
    if (cf->rate_fraction > 0)
      want = resolved_rate(c, p, cf, want);
    if (want == NULL) {
      c->oom = 1;
      return;
    }
    if (r->rec_args != NULL && strcmp(r->rec_args, want) != 0) {
      char h[400], w[400];
      spaced(r->rec_args, h, sizeof h);
      spaced(want, w, sizeof w);
      np_chk__problem(c, r->file, "/config/command",
                      "runs \"%s\", but configuration %s of the plan (its "
                      "folder) is \"%s\"",
                      h, cf->id, w);
    }
    if (r->args != NULL && strcmp(r->args, want) != 0) {
      char h[400], w[400];
      spaced(r->args, h, sizeof h);
      spaced(want, w, sizeof w);
      np_chk__problem(c, cmdf, "",
                      "ran with \"%s\", but configuration %s of the plan is "
                      "\"%s\"",
                      h, cf->id, w);
    }
    free(want);
    if (r->options != NULL)
      np_chk__diff(c, r->file, "/config", r->options, cf->options,
                   "the plan's configuration", 8);
    if (bin != NULL && r->binary != NULL && strcmp(bin, r->binary) != 0 &&
        !merged_binary(c->suite, r->binary))
      np_chk__problem(c, cmdf, "",
                      "ran %s, but suite.json's bench_binary is %s", r->binary,
                      bin);
  }
}

/* The planned repetitions that have a record; the note and the problems
 * of a set that is, or claims to be, complete. */
static void check_complete(struct np_results_check *c,
                           const struct np_matrix_plan *p, const long *idx,
                           struct np_results_outcome *out) {
  size_t R = (size_t)p->repetitions, cells = p->nconfigs * R, n = 0;
  char *have = calloc(cells ? cells : 1, 1);
  size_t *planned = calloc(p->nconfigs + 1, sizeof *planned);
  if (have == NULL || planned == NULL) {
    free(have);
    free(planned);
    c->oom = 1;
    return;
  }
  np_chk__stable(c, p, idx, planned);
  for (size_t ci = 0; ci < p->nconfigs; ci++)
    n += planned[ci];
  size_t partial = 0;
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_chk_run *r = &c->runs[i];
    if (idx[i] < 0 || r->rep < 1 || (size_t)r->rep > R)
      continue;
    if (r->have_record)
      have[(size_t)idx[i] * R + (size_t)(r->rep - 1)] = 1;
    else
      partial++;
  }
  size_t done = 0, configs_missing = 0;
  for (size_t ci = 0; ci < p->nconfigs; ci++) {
    int any = 0;
    for (size_t k = 0; k < planned[ci]; k++) {
      done += have[ci * R + k];
      any |= !have[ci * R + k];
    }
    configs_missing += any;
  }
  const char *st = np_json_get_string(c->suite, "status", "");
  int complete = strcmp(st, "complete") == 0;
  out->reps_planned = n;
  out->reps_done = done;
  out->incomplete = done < n || !complete;
  if (complete && done < n) {
    size_t shown = 0;
    for (size_t k = 0; k < cells; k++) {
      if (have[k] || k % R >= planned[k / R])
        continue;
      if (shown++ < 20) {
        char f[NP_CHK_PATH_MAX];
        snprintf(f, sizeof f, "runs/%s/rep-%zu.json", p->configs[k / R].id,
                 k % R + 1);
        np_chk__problem(c, f, "",
                        "missing, but suite.json says the suite is complete "
                        "(every repetition leaves a record)");
      }
    }
    if (shown > 20)
      np_chk__problem(c, "suite.json", "/status",
                      "\"complete\", but %zu more repetitions have no record",
                      shown - 20);
  }
  if (out->incomplete) {
    char extra[96] = "";
    if (strcmp(st, "running") == 0)
      snprintf(extra, sizeof extra, "; the runner did not finish: killed, "
                                    "or still running");
    char parts[64] = "";
    if (partial)
      snprintf(parts, sizeof parts, ", %zu unfinished", partial);
    snprintf(out->note, sizeof out->note,
             "incomplete: %zu of %zu repetitions (%zu of %zu configurations "
             "lack some%s; suite.json status \"%s\"%s)",
             done, n, configs_missing, p->nconfigs, parts, st[0] ? st : "?",
             extra);
  }
  free(have);
  free(planned);
}

static int load_sessions(struct np_results_check *c, struct session **out,
                         size_t *n) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(c->suite, "sessions");
  size_t k = (size_t)cJSON_GetArraySize(list), i = 0;
  struct session *s = calloc(k ? k : 1, sizeof *s);
  if (s == NULL)
    return NP_ENOMEM;
  const cJSON *e;
  cJSON_ArrayForEach(e, list) {
    s[i].id = np_json_get_string(e, "session", NULL);
    s[i].start = np_chk__time(np_json_get_string(e, "started_at", NULL),
                              &s[i].start_whole);
    s[i].end =
        np_chk__time(np_json_get_string(e, "ended_at", NULL), &s[i].end_whole);
    s[i].run = np_json_get_number(e, "repetitions_run", -1);
    s[i].shard = np_json_get_number(e, "shard", -1);
    i++;
  }
  *out = s;
  *n = k;
  return 0;
}

static void check_session_order(struct np_results_check *c,
                                const struct session *s, size_t n) {
  char p[64];
  /* a merged set (netproof-report merge, docs/formats.md "Merged sets"):
   * its shards ran side by side, so one runner at a time holds each
   * shard's folder, the set's times span every session and its status is
   * the merge's, not a session's */
  int merged = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c->suite,
                                                               "merged"));
  for (size_t i = 0; i < n; i++) {
    size_t nx = i + 1;
    while (merged && nx < n && s[nx].shard != s[i].shard)
      nx++;
    snprintf(p, sizeof p, "/sessions/%zu/ended_at", i);
    if (s[i].end != NP_CHK_NO_TIME && s[i].start != NP_CHK_NO_TIME &&
        s[i].end < s[i].start)
      np_chk__problem(c, "suite.json", p, "before the session's started_at");
    if (nx < n && s[i].end != NP_CHK_NO_TIME && s[nx].start != NP_CHK_NO_TIME &&
        !np_chk__time_le(s[i].end, s[i].end_whole, s[nx].start,
                         s[nx].start_whole))
      np_chk__problem(c, "suite.json", p,
                      "after session %zu started (one runner at a time holds "
                      "a folder)",
                      nx);
    for (size_t j = 0; j < i && s[i].id; j++)
      if (s[j].id && strcmp(s[i].id, s[j].id) == 0) {
        snprintf(p, sizeof p, "/sessions/%zu/session", i);
        np_chk__problem(c, "suite.json", p, "the same id as session %zu", j);
      }
  }
  int w;
  int64_t st =
      np_chk__time(np_json_get_string(c->suite, "started_at", NULL), &w);
  if (n > 0 && st != NP_CHK_NO_TIME && s[0].start != NP_CHK_NO_TIME &&
      st != s[0].start)
    np_chk__problem(c, "suite.json", "/started_at",
                    "not the first session's started_at (the runner writes "
                    "both at once)");
  int64_t en = np_chk__time(np_json_get_string(c->suite, "ended_at", NULL), &w);
  size_t le = n - 1; /* merged: the session that ended last */
  for (size_t i = 0; merged && i < n; i++)
    if (s[i].end != NP_CHK_NO_TIME && s[i].end > s[le].end)
      le = i;
  if (n > 0 && en != NP_CHK_NO_TIME && s[le].end != NP_CHK_NO_TIME &&
      en != s[le].end)
    np_chk__problem(c, "suite.json", "/ended_at",
                    "not the last session's ended_at");
  const cJSON *last = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(c->suite, "sessions"), (int)n - 1);
  const char *ls = np_json_get_string(last, "status", NULL);
  const char *ss = np_json_get_string(c->suite, "status", "");
  if (!merged && ls != NULL && strcmp(ls, ss) != 0)
    np_chk__problem(c, "suite.json", "/status",
                    "\"%s\", but the last session ended \"%s\"", ss, ls);
}

/* The session a run belongs to: by id, else by its times; -1 none. */
static long session_of(struct np_results_check *c, const struct np_chk_run *r,
                       const struct session *s, size_t n, int ids) {
  if (r->session[0]) {
    for (size_t i = 0; i < n; i++)
      if (s[i].id && strcmp(s[i].id, r->session) == 0)
        return (long)i;
    np_chk__problem(c, r->file, "/runner/session",
                    "%s is not one of suite.json's sessions: the run comes "
                    "from another runner",
                    r->session);
    return -1;
  }
  if (ids) {
    np_chk__problem(c, r->file, "/runner",
                    "missing: every repetition of this suite's sessions "
                    "carries its runner session (it was not run by this "
                    "suite's runner)");
    return -1;
  }
  int64_t t = r->cmd_start != NP_CHK_NO_TIME ? r->cmd_start : r->rec_start;
  for (size_t i = 0; t != NP_CHK_NO_TIME && i < n; i++)
    if (np_chk__time_le(s[i].start, s[i].start_whole, t, r->cmd_whole) &&
        (s[i].end == NP_CHK_NO_TIME ||
         np_chk__time_le(t, r->cmd_whole, s[i].end, s[i].end_whole)))
      return (long)i;
  return -1;
}

struct order_key {
  long plan, rep;
  size_t run;
};

static int cmp_key(const void *a, const void *b) {
  const struct order_key *x = a, *y = b;
  if (x->plan != y->plan)
    return x->plan < y->plan ? -1 : 1;
  return (x->rep > y->rep) - (x->rep < y->rep);
}

static void check_timeline(struct np_results_check *c,
                           const struct np_matrix_plan *plan,
                           const long *idx) {
  int rounds = plan != NULL && plan->until_stable;
  struct session *s = NULL;
  size_t n = 0;
  if (load_sessions(c, &s, &n) != 0) {
    c->oom = 1;
    return;
  }
  check_session_order(c, s, n);
  int ids = 0;
  for (size_t i = 0; i < n; i++)
    ids |= s[i].id != NULL;
  long *of = calloc(c->nruns ? c->nruns : 1, sizeof *of);
  struct order_key *keys = calloc(c->nruns ? c->nruns : 1, sizeof *keys);
  if (of == NULL || keys == NULL) {
    c->oom = 1;
    goto cleanup_keys;
  }
  for (size_t i = 0; i < c->nruns; i++) {
    struct np_chk_run *r = &c->runs[i];
    of[i] = -1;
    if (!r->have_record)
      continue;
    of[i] = session_of(c, r, s, n, ids);
    if (of[i] < 0) {
      if (!r->session[0] && !ids)
        np_chk__problem(c, r->file, "/started_at",
                        "outside every session of suite.json "
                        "(sessions[].started_at .. ended_at): the run is not "
                        "this suite's");
      continue;
    }
    struct session *se = &s[of[i]];
    se->seen++;
    char p[64];
    snprintf(p, sizeof p, "/sessions/%ld", of[i]);
    int64_t a = r->cmd_start != NP_CHK_NO_TIME ? r->cmd_start : r->rec_start;
    int64_t b = r->cmd_end != NP_CHK_NO_TIME ? r->cmd_end : r->rec_end;
    int aw = r->cmd_start != NP_CHK_NO_TIME ? r->cmd_whole : r->rec_whole;
    if (a != NP_CHK_NO_TIME && se->start != NP_CHK_NO_TIME &&
        !np_chk__time_le(se->start, se->start_whole, a, aw))
      np_chk__problem(c, r->file, "/started_at",
                      "before its session (suite.json %s) started", p);
    if (b != NP_CHK_NO_TIME && se->end != NP_CHK_NO_TIME &&
        !np_chk__time_le(b, aw, se->end, se->end_whole))
      np_chk__problem(c, r->file, "/ended_at",
                      "after its session (suite.json %s) ended", p);
  }
  /* per session: one --output folder, the one most of its runs name
   * (counted over the distinct folders, usually one) */
  for (size_t si = 0; si < n; si++) {
    const char *cand[8];
    size_t votes[8], nc = 0, best = 0;
    for (size_t i = 0; i < c->nruns; i++) {
      const char *pf = c->runs[i].out_prefix;
      if (of[i] != (long)si || pf == NULL)
        continue;
      size_t k = 0;
      while (k < nc && strcmp(cand[k], pf) != 0)
        k++;
      if (k == nc && nc < 8) {
        cand[nc] = pf;
        votes[nc++] = 0;
      }
      if (k < nc && ++votes[k] > best) {
        best = votes[k];
        s[si].out_prefix = cand[k];
      }
    }
    for (size_t i = 0; i < c->nruns && nc > 1; i++) {
      const struct np_chk_run *r = &c->runs[i];
      if (of[i] != (long)si || r->out_prefix == NULL ||
          strcmp(r->out_prefix, s[si].out_prefix) == 0)
        continue;
      char cf[NP_CHK_PATH_MAX + 16];
      snprintf(cf, sizeof cf, "%.*s.cmd.txt", (int)strlen(r->file) - 5,
               r->file);
      np_chk__problem(c, cf, "",
                      "--output names the folder %s, but the session's other "
                      "runs name %s",
                      r->out_prefix, s[si].out_prefix);
    }
  }
  /* per session: plan order, one repetition at a time, and its count */
  for (size_t si = 0; si < n; si++) {
    size_t k = 0;
    for (size_t i = 0; i < c->nruns; i++)
      if (of[i] == (long)si && idx[i] >= 0)
        keys[k++] = rounds ? (struct order_key){c->runs[i].rep, idx[i], i}
                           : (struct order_key){idx[i], c->runs[i].rep, i};
    qsort(keys, k, sizeof *keys, cmp_key);
    for (size_t j = 1; j < k; j++) {
      const struct np_chk_run *a = &c->runs[keys[j - 1].run];
      const struct np_chk_run *b = &c->runs[keys[j].run];
      int64_t aend = a->cmd_end != NP_CHK_NO_TIME ? a->cmd_end : a->rec_end;
      int64_t bst = b->cmd_start != NP_CHK_NO_TIME ? b->cmd_start
                                                   : b->rec_start;
      int w = a->cmd_whole || b->cmd_whole || a->rec_whole || b->rec_whole;
      if (aend != NP_CHK_NO_TIME && bst != NP_CHK_NO_TIME &&
          !np_chk__time_le(aend, 0, bst + (w ? 999 : 0), 0))
        np_chk__problem(c, b->file, "/started_at",
                        "began before %s ended: a runner session runs "
                        "repetitions one at a time, in plan order%s",
                        a->file,
                        rounds ? " (until_stable: round by round)" : "");
    }
    if (s[si].run >= 0 && (double)s[si].seen != s[si].run) {
      char p[64];
      snprintf(p, sizeof p, "/sessions/%zu/repetitions_run", si);
      np_chk__problem(c, "suite.json", p,
                      "%.0f, but %zu records belong to this session", s[si].run,
                      s[si].seen);
    }
  }
  np_chk__services(c, of);
cleanup_keys:
  free(keys);
  free(of);
  free(s);
}

/* The first field where two '\x1f'-joined identities differ. */
static void first_diff(const char *a, const char *b, char *buf, size_t len) {
  while (*a && *b) {
    const char *ea = strchr(a, '\x1f'), *eb = strchr(b, '\x1f');
    size_t la = ea ? (size_t)(ea - a) : strlen(a);
    size_t lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || memcmp(a, b, la) != 0) {
      const char *eq = memchr(a, '=', la);
      size_t kl = eq ? (size_t)(eq - a) : la;
      snprintf(buf, len, "%.*s: %.*s, the suite's %.*s", (int)kl, a,
               (int)(la - kl - (eq != NULL)), eq ? eq + 1 : "",
               (int)(lb - kl - (eq != NULL)), b + kl + (eq != NULL));
      return;
    }
    a += la + (ea != NULL);
    b += lb + (eb != NULL);
  }
  snprintf(buf, len, "differs");
}

static void check_identity(struct np_results_check *c) {
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(c->suite, "tool");
  int spans = cJSON_IsTrue(
      cJSON_GetObjectItemCaseSensitive(c->suite, "spans_hosts"));
  static const char *const keys[3] = {"source_sha256", "binary_sha256",
                                      "measuring_source_sha256"};
  int ref[3];
  for (int k = 0; k < 3; k++)
    ref[k] = np_chk__intern(c, np_json_get_string(tool, keys[k], NULL));
  char *mine =
      np_chk__identity(cJSON_GetObjectItemCaseSensitive(c->suite, "machine"));
  if (mine == NULL) {
    c->oom = 1;
    return;
  }
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_chk_run *r = &c->runs[i];
    if (!r->have_record)
      continue;
    const int have[3] = {r->src_hash, r->bin_hash, r->meas_hash};
    for (int k = 0; k < 3 && !spans; k++) {
      char p[64];
      snprintf(p, sizeof p, "/tool/%s", keys[k]);
      if (have[k] >= 0 && ref[k] >= 0 && have[k] != ref[k])
        np_chk__problem(c, r->file, p,
                        "%s, but suite.json's is %s (mixed builds are not one "
                        "experiment)",
                        c->hashes[have[k]], c->hashes[ref[k]]);
      /* the measuring hash came in 0.3: one side without it is a record
       * and a runner of different builds */
      else if (k == 2 && (have[k] >= 0) != (ref[k] >= 0))
        np_chk__problem(c, r->file, p,
                        "%s, but suite.json's tool %s (mixed builds are not "
                        "one experiment)",
                        have[k] >= 0 ? c->hashes[have[k]] : "absent",
                        ref[k] >= 0 ? "has one" : "has none");
    }
    if (!spans && r->identity != NULL && strcmp(r->identity, mine) != 0) {
      char why[400];
      first_diff(r->identity, mine, why, sizeof why);
      np_chk__problem(c, r->file, "/machine",
                      "another machine than suite.json's (%s); a set that "
                      "spans hosts says so (\"spans_hosts\": true)",
                      why);
    }
  }
  free(mine);
}

/* kept/<id>/rep-N.<session>.json files and the sessions' kept_records. */
static void check_kept(struct np_results_check *c) {
  const cJSON *ses, *k;
  cJSON_ArrayForEach(ses, cJSON_GetObjectItemCaseSensitive(c->suite,
                                                           "sessions")) {
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(ses,
                                                           "kept_records")) {
      int found = 0;
      for (size_t i = 0; cJSON_IsString(k) && i < c->nkept; i++)
        found |= strcmp(c->kept[i], k->valuestring) == 0;
      if (!found && cJSON_IsString(k))
        np_chk__problem(c, k->valuestring, "",
                        "missing, but suite.json lists it among the kept "
                        "records");
    }
  }
  for (size_t i = 0; i < c->nkept; i++) {
    int listed = 0;
    cJSON_ArrayForEach(ses, cJSON_GetObjectItemCaseSensitive(c->suite,
                                                             "sessions")) {
      cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(ses,
                                                             "kept_records"))
          listed |= cJSON_IsString(k) && strcmp(k->valuestring,
                                                c->kept[i]) == 0;
    }
    if (!listed)
      np_chk__problem(c, c->kept[i], "",
                      "in kept/, but no session of suite.json lists it in "
                      "kept_records");
  }
}

void np_chk__suite(struct np_results_check *c,
                   const struct np_matrix_plan *plan,
                   struct np_results_outcome *out) {
  for (size_t i = 0; i < c->nruns; i++)
    out->runs += c->runs[i].have_record;
  if (!c->suite_seen) {
    np_chk__problem(c, "suite.json", "",
                    "missing (a result set is described by its suite.json)");
    out->incomplete = 0;
    return;
  }
  if (c->suite == NULL)
    return; /* reported: does not parse */
  snprintf(out->suite_status, sizeof out->suite_status, "%s",
           np_json_get_string(c->suite, "status", ""));
  long *idx = calloc(c->nruns ? c->nruns : 1, sizeof *idx);
  if (idx == NULL) {
    c->oom = 1;
    return;
  }
  for (size_t i = 0; i < c->nruns; i++)
    idx[i] = -1;
  if (plan != NULL) {
    check_plan_fields(c, plan);
    check_runs_against_plan(c, plan, idx);
    check_complete(c, plan, idx, out);
  }
  check_timeline(c, plan, idx);
  check_identity(c);
  check_kept(c);
  const char *st = np_json_get_string(c->suite, "status", "");
  if (!c->summary_seen && strcmp(st, "running") != 0)
    np_chk__problem(c, "summary.json", "",
                    "missing (the runner writes it whenever it stops, except "
                    "when killed)");
  free(idx);
}
