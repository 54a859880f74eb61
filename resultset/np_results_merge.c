/*
 * np_results_merge.c - `netproof-report merge DIR... --output SET` (see
 * np_results_merge.h): shard folders checked (each self-checks clean but
 * for being a slice; same plan, same N, the cut recomputed, no slice twice,
 * none missing, every repetition present), joined in memory into one tree
 * (runs/ and kept/ verbatim, kernel-snapshots/ once, services/ renamed
 * per shard, a merged suite.json, summary.json rebuilt by np_results'
 * summary builder), written to SET only then, and the written set
 * self-checked.
 */
#include "np_results_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "np_bench_opt.h"
#include "np_file.h"
#include "np_outdir.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_ksnap.h"
#include "np_matrix_plan.h"
#include "np_matrix_shard.h"
#include "np_results.h"
#include "np_results_check_int.h"
#include "np_results_selfcheck.h"
#include "np_results_stats.h"
#include "np_results_summary.h"

#define MERGE_RULE                                                             \
  "the N slices of one plan (same plan_sha256, the cut of "                    \
  "np_matrix_shard.h recomputed), each once, every repetition present; "       \
  "sessions from every shard, machine and tool of the lowest shard, "          \
  "spans_hosts when the shards' machines or builds differ"

static int in_list(const cJSON *arr, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
      return 1;
  }
  return 0;
}

int np_results_shard_load(const char *dir, struct np_results_shard *out,
                          struct np_errbuf *eb) {
  struct np_results_shard s = {.dir = dir};
  int rc = np_ftree_load_dir(dir, 0, &s.tree, eb);
  if (rc != 0)
    return rc == NP_ENOMEM ? rc : NP_EUSAGE;
  size_t len = 0;
  const char *js = np_ftree_get(s.tree, "suite.json", &len);
  if (js == NULL) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s: no suite.json (not a matrix "
                                      "result folder)", dir);
    goto cleanup_tree;
  }
  if (np_ftree_get(s.tree, ".netproof-matrix.lock", NULL) != NULL) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s: .netproof-matrix.lock: a runner "
                                      "holds it (or was killed); finish it "
                                      "with matrix --resume first", dir);
    goto cleanup_tree;
  }
  struct np_errbuf jeb = {{0}};
  if (np_json_parse(js, len, NULL, &s.suite, &jeb) != 0) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s/suite.json: %s", dir, jeb.msg);
    goto cleanup_tree;
  }
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(s.suite, "shard");
  if (!cJSON_IsObject(sh)) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s/suite.json: /shard: missing (the "
                                      "folder was not run with matrix "
                                      "--shard K/N)", dir);
    goto cleanup_suite;
  }
  const char *st = np_json_get_string(s.suite, "status", "");
  if (strcmp(st, "partial") != 0) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s/suite.json: /status: \"%s\", not "
                                      "\"partial\" (a shard that finished; "
                                      "resume it with the same --shard)",
                       dir, st);
    goto cleanup_suite;
  }
  struct np_errbuf seb = {{0}};
  if (np_matrix_shard_read(sh, &s.index, &s.count, &seb) != 0) {
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s/suite.json: %s", dir, seb.msg);
    goto cleanup_suite;
  }
  *out = s;
  return 0;
cleanup_suite:
  cJSON_Delete(s.suite);
cleanup_tree:
  np_ftree_free(s.tree);
  return rc;
}

void np_results_shard_free(struct np_results_shard *s) {
  if (s == NULL)
    return;
  cJSON_Delete(s->suite);
  np_ftree_free(s->tree);
  s->suite = NULL;
  s->tree = NULL;
}

/* The first problem of a check, for the refusal line. */
static void first_problem(void *ctx, const char *file, const char *ptr,
                          const char *reason) {
  char *buf = ctx;
  if (buf[0] == '\0')
    snprintf(buf, 240, "%s%s%s: %s", file, ptr[0] ? " " : "", ptr, reason);
}

/* Shard a alone: its self-check clean except for being a slice, every
 * repetition of its slice present, no run outside its slice. */
static int check_one(const struct np_results_shard *a,
                     const struct np_matrix_plan *p, struct np_errbuf *eb) {
  struct np_results_outcome o;
  char first[240] = "";
  int rc = np_results_check_tree(a->tree, "", first_problem, first, &o);
  const cJSON *ids = np_json_pointer(a->suite, "/shard/configurations");
  size_t want = (size_t)cJSON_GetArraySize(ids) * (size_t)p->repetitions;
  /* an until_stable plan's count depends on its records: the joined
   * tree's check (run_merge) says whether it is complete */
  if (rc != NP_ENOMEM && !p->until_stable && o.reps_done != want)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s: %zu of its slice's %zu repetitions (finish it "
                         "with matrix --resume and the same --shard)",
                         a->dir, o.reps_done, want);
  if (rc != 0 && rc != NP_EINCOMPLETE)
    return np_errbuf_set(eb, rc == NP_ENOMEM ? rc : NP_EUSAGE,
                         "%s: fails its self-check (%zu problem%s, the "
                         "first: %s)",
                         a->dir, o.problems, o.problems == 1 ? "" : "s",
                         first);
  for (size_t i = 0; i < np_ftree_count(a->tree); i++) {
    const char *path = np_ftree_path_at(a->tree, i);
    char cid[NP_RESULTS_ID_MAX];
    if (strncmp(path, "runs/", 5) != 0 && strncmp(path, "kept/", 5) != 0)
      continue;
    size_t n = strcspn(path + 5, "/");
    snprintf(cid, sizeof cid, "%.*s", (int)n, path + 5);
    if (!in_list(ids, cid))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s: %.5s%s is outside shard %u/%u's slice",
                           a->dir, path, cid, a->index, a->count);
  }
  return 0;
}

/* The slices against each other and against the cut of the plan. */
static int check_set(const struct np_results_shard *sh, size_t n,
                     const struct np_matrix_plan *p, struct np_errbuf *eb) {
  const char *h0 = np_json_get_string(sh[0].suite, "plan_sha256", "");
  unsigned cnt = sh[0].count;
  for (size_t i = 1; i < n; i++) {
    const char *h = np_json_get_string(sh[i].suite, "plan_sha256", "");
    if (strcmp(h, h0) != 0)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s: plan_sha256 %.12s..., but %s ran %.12s... "
                           "(shards of different plans)",
                           sh[i].dir, h, sh[0].dir, h0);
    if (sh[i].count != cnt)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s: shard %u/%u, but %s is one of %u slices",
                           sh[i].dir, sh[i].index, sh[i].count, sh[0].dir,
                           cnt);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (sh[i].index == sh[j].index)
        return np_errbuf_set(eb, NP_EUSAGE,
                             "%s: shard %u/%u again (also %s): the slices "
                             "overlap",
                             sh[i].dir, sh[i].index, cnt, sh[j].dir);
  for (unsigned k = 0; k < cnt; k++) {
    size_t i = 0;
    while (i < n && sh[i].index != k)
      i++;
    if (i == n)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "shard %u/%u missing: merge needs the folders of "
                           "all %u slices",
                           k, cnt, cnt);
  }
  unsigned *of = calloc(p->nconfigs ? p->nconfigs : 1, sizeof *of);
  if (of == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int rc = np_matrix_shard_assign(p, cnt, of, NULL, eb);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const cJSON *ids = np_json_pointer(sh[i].suite, "/shard/configurations");
    size_t have = 0;
    for (size_t c = 0; c < p->nconfigs; c++) {
      int listed = in_list(ids, p->configs[c].id);
      have += listed;
      if (listed != (of[c] == sh[i].index))
        rc = np_errbuf_set(eb, NP_EUSAGE,
                           "%s/suite.json: /shard/configurations: %s %s, "
                           "but the cut of the plan puts it in shard %u",
                           sh[i].dir, listed ? "lists" : "lacks",
                           p->configs[c].id, of[c]);
    }
    if (rc == 0 && have != (size_t)cJSON_GetArraySize(ids))
      rc = np_errbuf_set(eb, NP_EUSAGE,
                         "%s/suite.json: /shard/configurations: an id the "
                         "plan does not have",
                         sh[i].dir);
    if (rc == 0)
      rc = check_one(&sh[i], p, eb);
  }
  free(of);
  return rc;
}

static int by_index(const void *a, const void *b) {
  const struct np_results_shard *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

static int by_start(const void *a, const void *b) {
  const char *x = np_json_get_string(*(cJSON *const *)a, "started_at", "");
  const char *y = np_json_get_string(*(cJSON *const *)b, "started_at", "");
  return strcmp(x, y);
}

/* One entry of merged.from[] for shard s. */
static cJSON *from_entry(const struct np_results_shard *s) {
  cJSON *e = cJSON_CreateObject(), *ses = cJSON_CreateArray(), *x;
  if (e == NULL || ses == NULL) {
    cJSON_Delete(e);
    cJSON_Delete(ses);
    return NULL;
  }
  cJSON_AddNumberToObject(e, "shard", s->index);
  cJSON_AddStringToObject(e, "folder", s->dir);
  static const char *const keep[] = {"plan_file", "bench_binary",
                                     "started_at", "ended_at", "status"};
  for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
    if ((x = cJSON_GetObjectItemCaseSensitive(s->suite, keep[i])) != NULL)
      cJSON_AddItemToObject(e, keep[i], cJSON_Duplicate(x, 1));
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s->suite,
                                                         "sessions")) {
    cJSON_AddItemToArray(ses, cJSON_CreateString(
                                  np_json_get_string(x, "session", "")));
  }
  cJSON_AddItemToObject(e, "sessions", ses);
  cJSON_AddItemToObject(e, "configurations",
                        cJSON_Duplicate(np_json_pointer(
                                            s->suite, "/shard/configurations"),
                                        1));
  cJSON_AddItemToObject(e, "tool", cJSON_Duplicate(cJSON_GetObjectItem(
                                                       s->suite, "tool"), 1));
  cJSON_AddItemToObject(e, "machine",
                        cJSON_Duplicate(cJSON_GetObjectItem(s->suite,
                                                            "machine"), 1));
  return e;
}

/* Machine identity or build of b differs from a's. */
static int differs(const cJSON *a, const cJSON *b) {
  char *ia = np_chk__identity(cJSON_GetObjectItemCaseSensitive(a, "machine"));
  char *ib = np_chk__identity(cJSON_GetObjectItemCaseSensitive(b, "machine"));
  int d = ia == NULL || ib == NULL || strcmp(ia, ib) != 0;
  free(ia);
  free(ib);
  static const char *const h[] = {"/tool/source_sha256", "/tool/binary_sha256"};
  for (size_t i = 0; i < 2; i++) {
    const cJSON *x = np_json_pointer(a, h[i]), *y = np_json_pointer(b, h[i]);
    d |= !cJSON_IsString(x) || !cJSON_IsString(y) ||
         strcmp(x->valuestring, y->valuestring) != 0;
  }
  return d;
}

int np_results_merge_suite(const struct np_results_shard *sh, size_t n,
                           cJSON **suite, struct np_errbuf *eb) {
  cJSON *s = cJSON_Duplicate(sh[0].suite, 1);
  cJSON *merged = cJSON_CreateObject(), *from = cJSON_CreateArray();
  cJSON *sessions = cJSON_CreateArray(), *flags = cJSON_CreateArray();
  cJSON **all = NULL;
  size_t nall = 0;
  int spans = 0;
  if (s == NULL || merged == NULL || from == NULL || sessions == NULL ||
      flags == NULL)
    goto fail;
  for (size_t i = 0; i < n; i++)
    nall += (size_t)cJSON_GetArraySize(
        cJSON_GetObjectItemCaseSensitive(sh[i].suite, "sessions"));
  all = calloc(nall ? nall : 1, sizeof *all);
  if (all == NULL)
    goto fail;
  nall = 0;
  const char *first = NULL, *last = NULL;
  for (size_t i = 0; i < n; i++) {
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sh[i].suite,
                                                           "sessions")) {
      cJSON *c = cJSON_Duplicate(x, 1);
      if (c == NULL)
        goto fail;
      cJSON_AddNumberToObject(c, "shard", sh[i].index);
      all[nall++] = c;
    }
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(
                              sh[i].suite, "stability_flags")) {
      if (cJSON_IsString(x) && !in_list(flags, x->valuestring))
        cJSON_AddItemToArray(flags, cJSON_CreateString(x->valuestring));
    }
    const char *b = np_json_get_string(sh[i].suite, "started_at", NULL);
    const char *e = np_json_get_string(sh[i].suite, "ended_at", NULL);
    if (b && (first == NULL || strcmp(b, first) < 0))
      first = b;
    if (e && (last == NULL || strcmp(e, last) > 0))
      last = e;
    spans |= differs(sh[0].suite, sh[i].suite);
    cJSON *fe = from_entry(&sh[i]);
    if (fe == NULL)
      goto fail;
    cJSON_AddItemToArray(from, fe);
  }
  qsort(all, nall, sizeof *all, by_start);
  for (size_t i = 0; i < nall; i++) {
    cJSON_AddItemToArray(sessions, all[i]);
    all[i] = NULL;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(s, "shard");
  cJSON_ReplaceItemInObjectCaseSensitive(s, "sessions", sessions);
  sessions = NULL;
  cJSON_ReplaceItemInObjectCaseSensitive(s, "stability_flags", flags);
  flags = NULL;
  cJSON_ReplaceItemInObjectCaseSensitive(s, "status",
                                         cJSON_CreateString("complete"));
  if (first)
    cJSON_ReplaceItemInObjectCaseSensitive(s, "started_at",
                                           cJSON_CreateString(first));
  if (last)
    cJSON_ReplaceItemInObjectCaseSensitive(s, "ended_at",
                                           cJSON_CreateString(last));
  cJSON_DeleteItemFromObjectCaseSensitive(s, "spans_hosts");
  if (spans)
    cJSON_AddBoolToObject(s, "spans_hosts", 1);
  cJSON_AddNumberToObject(merged, "shards", n);
  cJSON_AddItemToObject(merged, "from", from);
  from = NULL;
  cJSON_AddStringToObject(merged, "rule", MERGE_RULE);
  cJSON_AddItemToObject(s, "merged", merged);
  free(all);
  *suite = s;
  return 0;
fail:
  for (size_t i = 0; all && i < nall; i++)
    cJSON_Delete(all[i]);
  free(all);
  cJSON_Delete(s);
  cJSON_Delete(merged);
  cJSON_Delete(from);
  cJSON_Delete(sessions);
  cJSON_Delete(flags);
  return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
}

/* Every shard's files but suite.json and summary.json into t; services/
 * of shard K under services/shard-K-NAME/. */
static int join_files(const struct np_results_shard *sh, size_t n,
                      struct np_ftree *t, struct np_errbuf *eb) {
  for (size_t i = 0; i < n; i++)
    for (size_t f = 0; f < np_ftree_count(sh[i].tree); f++) {
      const char *path = np_ftree_path_at(sh[i].tree, f);
      size_t len = 0;
      const char *data = np_ftree_get(sh[i].tree, path, &len);
      char dst[1024];
      if (strcmp(path, "suite.json") == 0 || strcmp(path, "summary.json") == 0)
        continue;
      if (strncmp(path, "services/", 9) == 0)
        snprintf(dst, sizeof dst, "services/shard-%u-%s", sh[i].index,
                 path + 9);
      else
        snprintf(dst, sizeof dst, "%s", path);
      /* a kernel snapshot is named by its content (each shard's self-check
       * proved it): one in two shards is the same file, kept once */
      if (np_ksnap_name(path, NULL) && np_ftree_get(t, path, NULL) != NULL)
        continue;
      int rc = np_ftree_add(t, dst, data, len);
      if (rc != 0)
        return np_errbuf_set(eb, rc == NP_EEXIST ? NP_EUSAGE : rc,
                             "%s/%s: %s", sh[i].dir, path,
                             rc == NP_EEXIST ? "also in another shard"
                                             : "cannot be added");
    }
  return 0;
}

/* The runner's snapshot of repetition r of configuration cid, or NULL. */
static struct np_kernel *kernel_of(const struct np_ftree *t, const char *cid,
                                   int r, int after) {
  char stem[1024];
  size_t len = 0;
  snprintf(stem, sizeof stem, "runs/%s/rep-%d", cid, r);
  const char *raw = np_ksnap_tree_get(t, stem, after, &len);
  struct np_kernel *k = NULL;
  if (raw)
    np_kernel_parse_raw(raw, len, &k, NULL);
  return k;
}

/* summary.json of the joined tree, by the builder the matrix writes with. */
static int summarize(const struct np_ftree *t, const struct np_matrix_plan *p,
                     cJSON **out, struct np_errbuf *eb) {
  size_t nreps = p->nconfigs * (size_t)p->repetitions;
  cJSON **reps = calloc(nreps ? nreps : 1, sizeof *reps);
  if (reps == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  for (size_t c = 0; c < p->nconfigs; c++)
    for (int r = 1; r <= p->repetitions; r++) {
      char path[1024];
      size_t len = 0;
      snprintf(path, sizeof path, "runs/%s/rep-%d.json", p->configs[c].id, r);
      const char *js = np_ftree_get(t, path, &len);
      cJSON *rec = NULL;
      if (js)
        np_json_parse(js, len, NULL, &rec, NULL);
      struct np_kernel *kb = kernel_of(t, p->configs[c].id, r, 0);
      struct np_kernel *ka = kernel_of(t, p->configs[c].id, r, 1);
      reps[c * (size_t)p->repetitions + (size_t)(r - 1)] =
          np_results_summary_rep(p->protocol, r,
                                 cJSON_IsObject(rec) ? rec : NULL, kb, ka);
      cJSON_Delete(rec);
      np_kernel_free(kb);
      np_kernel_free(ka);
    }
  /* The builder frees every entry; the array itself stays ours. */
  int rc = np_results_summary_build(p, reps, out, eb);
  free(reps);
  return rc;
}

/* t into the empty (or new) folder out, through one folder descriptor
 * (common/np_outdir.h): a symbolic link planted under out is refused,
 * never followed. */
static int write_set(const char *out, const struct np_ftree *t,
                     struct np_errbuf *eb) {
  struct np_outdir *o = NULL;
  int rc = np_outdir_open(out, &o, eb);
  for (size_t i = 0; rc == 0 && i < np_ftree_count(t); i++) {
    const char *rel = np_ftree_path_at(t, i);
    size_t len = 0;
    const char *data = np_ftree_get(t, rel, &len);
    rc = np_outdir_write(o, rel, data, len, eb);
  }
  np_outdir_close(o);
  return rc;
}

/* 0 when out is absent (created) or an empty folder. */
static int prepare_out(const char *out, struct np_errbuf *eb) {
  if (mkdir(out, 0755) == 0)
    return 0;
  if (errno != EEXIST)
    return np_errbuf_set(eb, NP_EIO, "--output %s: %s", out, strerror(errno));
  struct np_ftree *t = NULL;
  int rc = np_ftree_load_dir(out, 1, &t, eb);
  size_t n = rc == 0 ? np_ftree_count(t) : 1;
  np_ftree_free(t);
  if (n != 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--output %s: not an empty folder (merge writes a "
                         "new set)",
                         out);
  return 0;
}

/* The interval method of the merged set: exact when every shard's
 * summary.json states it (shards of one new run), else the resampler
 * (any older shard: until-stable stops it decided stay re-derivable). */
static int merged_ci_method(const struct np_results_shard *sh, size_t n) {
  for (size_t i = 0; i < n; i++) {
    size_t len;
    const char *js = np_ftree_get(sh[i].tree, "summary.json", &len);
    cJSON *sum = NULL;
    if (js != NULL)
      np_json_parse(js, len, NULL, &sum, NULL);
    enum np_results_ci_method m = np_results_ci_method_of(sum);
    cJSON_Delete(sum);
    if (m != NP_RESULTS_CI_EXACT)
      return NP_RESULTS_CI_RESAMPLED;
  }
  return NP_RESULTS_CI_EXACT;
}

/* The merge itself: argument checks done; exit code. */
static int run_merge(struct np_results_shard *sh, size_t n, const char *out) {
  struct np_errbuf eb = {{0}};
  struct np_matrix_plan *p = NULL;
  struct np_ftree *t = NULL;
  cJSON *suite = NULL, *sum = NULL;
  int code = NP_EXIT_USAGE, rc;
  qsort(sh, n, sizeof *sh, by_index);
  rc = np_matrix_plan_from_json(cJSON_GetObjectItemCaseSensitive(sh[0].suite,
                                                                 "plan"),
                                sh[0].dir, &p, &eb);
  if (rc == 0)
    rc = check_set(sh, n, p, &eb);
  if (rc == 0)
    p->ci_method = merged_ci_method(sh, n);
  if (rc == 0)
    rc = np_results_merge_suite(sh, n, &suite, &eb);
  if (rc == 0 && (rc = np_ftree_new(&t)) != 0)
    np_errbuf_set(&eb, rc, "out of memory");
  if (rc == 0)
    rc = join_files(sh, n, t, &eb);
  char *text = NULL;
  if (rc == 0 && (text = np_json_print(suite, 1)) == NULL)
    rc = np_errbuf_set(&eb, NP_ENOMEM, "out of memory");
  if (rc == 0 && (rc = np_ftree_add(t, "suite.json", text, strlen(text))))
    np_errbuf_set(&eb, rc, "out of memory");
  free(text);
  text = NULL;
  if (rc == 0)
    rc = summarize(t, p, &sum, &eb);
  if (rc == 0 && (text = np_json_print(sum, 1)) == NULL)
    rc = np_errbuf_set(&eb, NP_ENOMEM, "out of memory");
  if (rc == 0 && (rc = np_ftree_add(t, "summary.json", text, strlen(text))))
    np_errbuf_set(&eb, rc, "out of memory");
  free(text);
  if (rc == 0) {
    /* the joined set, in memory: an incomplete one is not written */
    struct np_results_outcome jo;
    int jrc = np_results_check_tree(t, "", NULL, NULL, &jo);
    if (jrc == NP_EINCOMPLETE)
      rc = np_errbuf_set(&eb, NP_EUSAGE, "the joined slices are %s", jo.note);
    else if (jrc == NP_ENOMEM)
      rc = np_errbuf_set(&eb, NP_ENOMEM, "out of memory");
  }
  if (rc == 0)
    rc = prepare_out(out, &eb);
  if (rc == 0) {
    code = NP_EXIT_RUNTIME;
    rc = write_set(out, t, &eb);
  }
  if (rc != 0) {
    fprintf(stderr, "netproof-report merge: %s\n", eb.msg);
    if (rc == NP_ENOMEM)
      code = NP_EXIT_RUNTIME;
    goto cleanup;
  }
  struct np_results_outcome o;
  rc = np_results_check_dir(out, "", NULL, NULL, &o, &eb);
  if (rc == 0) {
    printf("merged %zu shards (%zu runs) into %s%s; self-check clean\n", n,
           o.runs, out,
           cJSON_IsTrue(cJSON_GetObjectItem(suite, "spans_hosts"))
               ? ", spans hosts"
               : "");
    code = NP_EXIT_OK;
  } else {
    fprintf(stderr, "netproof-report merge: %s: written, but its self-check "
                    "found %zu problem%s (netproof-report --self-check "
                    "--results %s)\n",
            out, o.problems, o.problems == 1 ? "" : "s", out);
    code = NP_EXIT_FAIL;
  }
cleanup:
  cJSON_Delete(sum);
  cJSON_Delete(suite);
  np_ftree_free(t);
  np_matrix_plan_free(p);
  return code;
}

/* merge's argv: the shard folders (operands, anywhere) and --output. */
struct merge_cli {
  const char *out; /* --output SET */
};

static const struct np_bench_opt merge_opts[] = {
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "SET",
     .help = "the merged result set: a new or empty folder",
     NP_BENCH_AT(struct merge_cli, out), .set = np_bench_opt_set_path},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
};

static const struct np_bench_opt_section merge_sections[] = {
    {NULL, merge_opts, sizeof merge_opts / sizeof merge_opts[0], 0},
};

static void merge_init(void *cfg) { memset(cfg, 0, sizeof(struct merge_cli)); }

const struct np_bench_optset np_results_merge_optset = {
    .program = "netproof-report",
    .command = "merge",
    .operands = "DIR DIR...",
    .interleaved = 1,
    .summary = "Joins the folders of one plan's `netproof-bench matrix "
               "--shard K/N`\nruns (all N slices, each once) into one result "
               "set SET (a new or\nempty folder), then self-checks it.\n",
    .doc = "docs/guides/fleets.md",
    .exits = "exit codes: 0 merged and clean, 1 merged but the self-check "
             "found\nproblems, 2 usage or bad shards (nothing written), 3 "
             "cannot write\n",
    .sections = merge_sections,
    .nsections = sizeof merge_sections / sizeof merge_sections[0],
    .cfg_size = sizeof(struct merge_cli),
    .init = merge_init,
};

/* The folders and --output of argv (reordered: the folders last): 0, -1
 * for --help (printed), or the exit code (one line printed). */
static int merge_args(int argc, char **argv, const char **dirs, size_t *n,
                      const char **out) {
  struct merge_cli c;
  struct np_errbuf eb = {{0}};
  int help = 0, first = argc;
  if (np_bench_opt_parse_operands(&np_results_merge_optset, argc, argv, &c,
                                  &help, &first, &eb) != 0) {
    fprintf(stderr, "netproof-report merge: %s%s\n", eb.msg,
            strstr(eb.msg, "try --help") ? "" : " (try --help)");
    return NP_EXIT_USAGE;
  }
  if (help) {
    np_bench_opt_help(&np_results_merge_optset, stdout);
    return -1;
  }
  for (int i = first; i < argc; i++) {
    if (*n == NP_MATRIX_SHARDS_MAX) {
      /* the most slices matrix --shard K/N cuts a plan into */
      fprintf(stderr, "netproof-report merge: %s: more than %d folders (a "
                      "plan has at most %d shards)\n",
              argv[i], NP_MATRIX_SHARDS_MAX, NP_MATRIX_SHARDS_MAX);
      return NP_EXIT_USAGE;
    }
    dirs[(*n)++] = argv[i];
  }
  *out = c.out;
  if (*n == 0 || *out == NULL) {
    fprintf(stderr, "netproof-report merge: %s (try --help)\n",
            *n == 0 ? "no shard folders" : "missing --output SET");
    return NP_EXIT_USAGE;
  }
  return 0;
}

int np_results_merge_main(int argc, char **argv) {
  const char **dirs = calloc(argc > 0 ? (size_t)argc : 1, sizeof *dirs);
  const char *out = NULL;
  size_t n = 0;
  if (dirs == NULL)
    return NP_EXIT_RUNTIME;
  int code = merge_args(argc, argv, dirs, &n, &out);
  if (code != 0) {
    free(dirs);
    return code < 0 ? NP_EXIT_OK : code;
  }
  struct np_results_shard *sh = calloc(n, sizeof *sh);
  if (sh == NULL) {
    free(dirs);
    return NP_EXIT_RUNTIME;
  }
  code = NP_EXIT_OK;
  for (size_t i = 0; i < n; i++) {
    struct np_errbuf eb = {{0}};
    int rc = np_results_shard_load(dirs[i], &sh[i], &eb);
    if (rc != 0) {
      fprintf(stderr, "netproof-report merge: %s\n", eb.msg);
      code = rc == NP_ENOMEM ? NP_EXIT_RUNTIME : NP_EXIT_USAGE;
      n = i;
      break;
    }
  }
  if (code == NP_EXIT_OK)
    code = run_merge(sh, n, out);
  for (size_t i = 0; i < n; i++)
    np_results_shard_free(&sh[i]);
  free(sh);
  free(dirs);
  return code;
}
