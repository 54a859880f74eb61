/*
 * np_archive_check.c - content checks on a bag read from a bundle:
 * the tag files, BagIt manifests, JSON schemas, evidence.json and
 * bag-info.txt against the payload, and the result-set self-check per suite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_archive_int.h"
#include "np_bagit.h"
#include "np_evidence.h"
#include "np_json.h"
#include "np_schema.h"

static const char *const required_tags[] = {
    "bag-info.txt", "bagit.txt", "evidence.json", "manifest-sha256.txt",
    "tagmanifest-sha256.txt"};
#define NREQ (sizeof(required_tags) / sizeof(required_tags[0]))

/* Context for problem callbacks that name files relative to the top. */
struct chk {
  struct np_problems *p;
  const char *top;
  const char *file; /* the JSON file being validated */
  /* compiled schemas by tag, compiled once per verify */
  struct {
    char *tag;
    struct np_schema *s;
  } cache[16];
  size_t ncache;
};

static void chk_bagit_cb(void *ctx, const char *file, const char *reason) {
  struct chk *c = ctx;
  char where[4400];
  snprintf(where, sizeof(where), "%s/%s", c->top, file);
  np_problem(c->p, where, "%s", reason);
}

static void chk_schema_cb(void *ctx, const char *pointer, const char *keyword,
                          const char *reason) {
  struct chk *c = ctx;
  np_problem(c->p, c->file, "%s: %s (%s)", pointer[0] ? pointer : "/",
             reason, keyword);
}

static const struct np_schema *chk_schema(struct chk *c, const char *tag,
                                          struct np_errbuf *eb) {
  for (size_t i = 0; i < c->ncache; i++)
    if (strcmp(c->cache[i].tag, tag) == 0)
      return c->cache[i].s;
  struct np_schema *s = NULL;
  if (c->ncache == 16 || np_schema_builtin(tag, &s, eb) != 0)
    return NULL;
  c->cache[c->ncache].tag = strdup(tag);
  c->cache[c->ncache++].s = s;
  return s;
}

/* Parse and schema-check one JSON file; returns the tree (caller frees)
 * or NULL after reporting the problem. */
static cJSON *chk_json(struct chk *c, const char *file, const char *data,
                       size_t len) {
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  if (np_json_parse(data, len, NULL, &doc, &eb) != 0) {
    np_problem(c->p, file, "invalid JSON: %s", eb.msg);
    return NULL;
  }
  const char *tag = np_json_get_string(doc, "schema", NULL);
  if (tag == NULL) {
    np_problem(c->p, file, "/schema: missing (cannot pick a schema)");
    return doc;
  }
  const struct np_schema *s = chk_schema(c, tag, &eb);
  if (s == NULL) {
    np_problem(c->p, file, "/schema: no shipped schema for '%.100s'", tag);
    return doc;
  }
  c->file = file;
  int rc = np_schema_validate(s, doc, chk_schema_cb, c);
  if (rc != 0 && rc != NP_ESCHEMA)
    np_problem(c->p, file, "schema validation failed: %s", np_strerror(rc));
  return doc;
}

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Compare two texts line by line; report the first differing line. */
static void chk_text(struct chk *c, const char *file, const char *have,
                     size_t hlen, const char *want) {
  size_t wlen = strlen(want);
  if (hlen == wlen && memcmp(have, want, wlen) == 0)
    return;
  size_t line = 1, i = 0;
  while (i < hlen && i < wlen && have[i] == want[i])
    line += have[i++] == '\n';
  size_t ws = i, we;
  while (ws > 0 && want[ws - 1] != '\n')
    ws--;
  for (we = ws; we < wlen && want[we] != '\n'; we++)
    ;
  np_problem(c->p, file,
             "line %zu does not match the payload (expected '%.*s')", line,
             (int)(we - ws > 200 ? 200 : we - ws), want + ws);
}

static void chk_tags(struct chk *c, const struct np_bag *b) {
  char where[512];
  size_t n = np_ftree_count(b->tags);
  for (size_t i = 0; i < n; i++) {
    const char *t = np_ftree_path_at(b->tags, i);
    int known = 0;
    for (size_t k = 0; k < NREQ; k++)
      known |= strcmp(t, required_tags[k]) == 0;
    if (!known) {
      snprintf(where, sizeof(where), "%s/%s", c->top, t);
      np_problem(c->p, where, "unexpected file at the top of the bag");
    }
  }
  for (size_t k = 0; k < NREQ; k++) {
    if (np_ftree_get(b->tags, required_tags[k], NULL) == NULL) {
      snprintf(where, sizeof(where), "%s/%s", c->top, required_tags[k]);
      np_problem(c->p, where, "missing");
    }
  }
  if (b->nsuites == 0) {
    snprintf(where, sizeof(where), "%s/data", c->top);
    np_problem(c->p, where, "no suite folders in the payload");
  }
  size_t len;
  const char *bt = np_ftree_get(b->tags, "bagit.txt", &len);
  snprintf(where, sizeof(where), "%s/bagit.txt", c->top);
  if (bt != NULL)
    chk_text(c, where, bt, len, NP_BAGIT_TXT);
}

static void chk_manifests(struct chk *c, const struct np_bag *b,
                          const struct np_bag_files *payload) {
  struct np_bag_files tags = {0};
  size_t len;
  const char *m = np_ftree_get(b->tags, "manifest-sha256.txt", &len);
  if (m != NULL)
    np_bagit_check_manifest("manifest-sha256.txt", m, len, payload,
                            chk_bagit_cb, c);
  if (np_bag_files_list(b, 1, &tags) != 0) {
    np_problem(c->p, NULL, "out of memory");
    return;
  }
  /* tagmanifest covers every tag file but itself. */
  size_t w = 0;
  for (size_t i = 0; i < tags.n; i++) {
    if (strcmp(tags.v[i].path, "tagmanifest-sha256.txt") == 0)
      free(tags.v[i].path);
    else
      tags.v[w++] = tags.v[i];
  }
  tags.n = w;
  m = np_ftree_get(b->tags, "tagmanifest-sha256.txt", &len);
  if (m != NULL)
    np_bagit_check_manifest("tagmanifest-sha256.txt", m, len, &tags,
                            chk_bagit_cb, c);
  np_bag_files_free(&tags);
}

/* evidence.json and bag-info.txt must be what pack makes of the payload. */
static void chk_evidence(struct chk *c, const struct np_read_result *res,
                         const cJSON *ev, const struct np_bag_files *payload) {
  const struct np_bag *b = res->bag;
  char where[512], ptr[1024] = "";
  snprintf(where, sizeof(where), "%s/evidence.json", c->top);
  const cJSON *bag = cJSON_GetObjectItem(ev, "bagging");
  const char *src = np_json_get_string(bag, "mtime_source", "");
  int64_t mtime = (int64_t)np_json_get_number(bag, "mtime", 0);
  if (strcmp(src, NP_EVIDENCE_SRC_ENV) != 0) {
    int found;
    np_evidence_newest_start(b, &mtime, &found);
    src = found ? NP_EVIDENCE_SRC_RUNS : NP_EVIDENCE_SRC_NONE;
  }
  if (res->mtime_mixed || res->mtime != mtime)
    np_problem(c->p, NULL, "tar entry mtimes are not all %lld (the bag's "
               "mtime)", (long long)mtime);
  cJSON *want = NULL;
  if (np_evidence_build(b, payload, mtime, src, &want) != 0) {
    np_problem(c->p, where, "out of memory");
    return;
  }
  if (np_evidence_diff(want, ev, ptr, sizeof(ptr)))
    np_problem(c->p, where, "%s: does not match the payload",
               ptr[0] ? ptr : "/");
  size_t len;
  const char *info = np_ftree_get(b->tags, "bag-info.txt", &len);
  char *winfo = np_evidence_bag_info(want);
  snprintf(where, sizeof(where), "%s/bag-info.txt", c->top);
  if (info != NULL && winfo != NULL)
    chk_text(c, where, info, len, winfo);
  free(winfo);
  cJSON_Delete(want);
}

/* Schema-check every JSON file of the payload. */
static void chk_payload_json(struct chk *c, const struct np_bag_files *pl) {
  char where[4400];
  for (size_t i = 0; i < pl->n; i++) {
    if (!ends_with(pl->v[i].path, ".json"))
      continue;
    snprintf(where, sizeof(where), "%s/%s", c->top, pl->v[i].path);
    cJSON_Delete(chk_json(c, where, pl->v[i].data, pl->v[i].len));
  }
}

void np_archive_check_bag(const struct np_read_result *res,
                          struct np_problems *p) {
  const struct np_bag *b = res->bag;
  if (b == NULL) {
    np_problem(p, NULL, "no bag in the archive");
    return;
  }
  struct chk c = {.p = p, .top = b->name};
  struct np_bag_files payload = {0};
  chk_tags(&c, b);
  if (np_bag_files_list(b, 0, &payload) != 0) {
    np_problem(p, NULL, "out of memory");
    return;
  }
  chk_manifests(&c, b, &payload);
  chk_payload_json(&c, &payload);
  size_t len;
  const char *evt = np_ftree_get(b->tags, "evidence.json", &len);
  if (evt != NULL) {
    char where[512];
    snprintf(where, sizeof(where), "%s/evidence.json", c.top);
    cJSON *ev = chk_json(&c, where, evt, len);
    const char *name = np_json_get_string(ev, "name", NULL);
    if (name != NULL && strcmp(name, b->name) != 0)
      np_problem(p, where, "/name: '%.100s' but the top folder is '%s'",
                 name, b->name);
    if (ev != NULL)
      chk_evidence(&c, res, ev, &payload);
    cJSON_Delete(ev);
  }
  for (size_t i = 0; i < b->nsuites; i++) {
    char label[512];
    snprintf(label, sizeof(label), "%s/data/%s", b->name, b->suites[i].name);
    np_archive_selfcheck_suite(b->suites[i].tree, label, p);
  }
  np_bag_files_free(&payload);
  for (size_t i = 0; i < c.ncache; i++) {
    free(c.cache[i].tag);
    np_schema_free(c.cache[i].s);
  }
}
