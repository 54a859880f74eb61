/*
 * np_archive_check.c - the content checks of a bundle, as a sink of the
 * streaming reader.
 *
 * While the tar streams past, each file is hashed and listed (path,
 * SHA-256, size, evidence facts), every payload *.json is parsed and
 * validated against the shipped schema its "schema" field names, and each
 * suite's files are fed to the result-set self-check, which is finished
 * when the stream leaves the suite's folder.  The bag's tag files come
 * after data/ in path order, so their checks run at the end of the stream
 * against the lists: the five tag files present and nothing else at the
 * top, bagit.txt exact, both manifests, evidence.json and bag-info.txt as
 * pack would make them.  Only those five small files are kept whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_archive_int.h"
#include "np_bagit.h"
#include "np_evidence.h"
#include "np_jscan.h"
#include "np_json.h"
#include "np_schema.h"

static const char *const required_tags[] = {
    "bag-info.txt", "bagit.txt", "evidence.json", "manifest-sha256.txt",
    "tagmanifest-sha256.txt"};
#define NREQ (sizeof(required_tags) / sizeof(required_tags[0]))
#define NCACHE 16

/* A PEM private key of any kind ("-----BEGIN [EC |RSA |ENCRYPTED ]PRIVATE
 * KEY-----") ends with this. */
#define PEM_PRIVATE_TAIL "PRIVATE KEY-----"

struct np_check {
  struct np_problems *p;           /* where problems go                   */
  const struct np_read_sink *also; /* extract's writer, or NULL           */
  char top[256];                   /* the bag's top folder                */
  const char *file;                /* the JSON file being validated       */
  struct {
    char *tag;                     /* schema tag                          */
    struct np_schema *s;           /* compiled once per verify            */
  } cache[NCACHE];                 /* compiled schemas                    */
  size_t ncache;                   /* entries in cache                    */
  struct np_ftree *tags;           /* bytes of the five tag files         */
  struct np_bag_files tagfiles;    /* every file at the top               */
  struct np_bag_files payload;     /* every file under data/              */
  struct np_archive_sc *sc;        /* self-check of the suite being read  */
  char sc_suite[256];              /* its name                            */
  char **incomplete;               /* suites found incomplete             */
  size_t nincomplete;              /* names in incomplete                 */
  char incomplete_note[600];       /* the first one's label and note      */
  size_t nsuites;                  /* suite folders seen                  */
};

static void chk_bagit_cb(void *ctx, const char *file, const char *reason) {
  struct np_check *c = ctx;
  char where[4400];
  snprintf(where, sizeof(where), "%s/%s", c->top, file);
  np_problem(c->p, where, "%s", reason);
}

static void chk_schema_cb(void *ctx, const char *pointer, const char *keyword,
                          const char *reason) {
  struct np_check *c = ctx;
  np_problem(c->p, c->file, "%s: %s (%s)", pointer[0] ? pointer : "/",
             reason, keyword);
}

static void chk_selfcheck_cb(void *ctx, const char *file, const char *pointer,
                             const char *reason) {
  struct np_check *c = ctx;
  if (pointer != NULL && pointer[0] != '\0')
    np_problem(c->p, file, "%s: %s", pointer, reason);
  else
    np_problem(c->p, file, "%s", reason);
}

static const struct np_schema *chk_schema(struct np_check *c, const char *tag,
                                          struct np_errbuf *eb) {
  for (size_t i = 0; i < c->ncache; i++)
    if (strcmp(c->cache[i].tag, tag) == 0)
      return c->cache[i].s;
  struct np_schema *s = NULL;
  if (c->ncache == NCACHE || np_schema_builtin(tag, &s, eb) != 0)
    return NULL;
  if ((c->cache[c->ncache].tag = strdup(tag)) == NULL) {
    np_schema_free(s);
    return NULL;
  }
  c->cache[c->ncache++].s = s;
  return s;
}

/* Parse and schema-check one JSON file; returns the tree (caller frees)
 * or NULL after reporting the problem. */
static cJSON *chk_json(struct np_check *c, const char *file, const char *data,
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

/* Finish the self-check of the suite being read, if any: an incomplete
 * suite (and nothing else wrong) is noted for evidence.json, which must
 * say so, and for the verdict. */
static int chk_suite_end(struct np_check *c) {
  if (c->sc == NULL)
    return 0;
  char label[600];
  struct np_results_outcome o;
  snprintf(label, sizeof label, "%s/data/%s", c->top, c->sc_suite);
  int rc = np_archive__sc_finish(c->sc, &o);
  c->sc = NULL;
  if (rc == NP_EINCOMPLETE) {
    char **v = realloc(c->incomplete, (c->nincomplete + 1) * sizeof(*v));
    if (v == NULL || (v[c->nincomplete] = strdup(c->sc_suite)) == NULL) {
      if (v != NULL)
        c->incomplete = v;
      return NP_ENOMEM;
    }
    c->incomplete = v;
    if (c->nincomplete++ == 0)
      snprintf(c->incomplete_note, sizeof c->incomplete_note, "%.300s: %.280s",
               label, o.note[0] ? o.note : "incomplete");
  } else if (rc != 0 && rc != NP_ECHECK) {
    np_problem(c->p, label, "self-check could not run: %s", np_strerror(rc));
  }
  return 0;
}

/* Feed one payload file of suite to the self-check, starting the suite's
 * check when the stream enters its folder.  0 or NP_ENOMEM. */
static int chk_selfcheck_feed(struct np_check *c, const char *suite,
                              const char *sub, const char *data, size_t len) {
  if (c->sc == NULL || strcmp(c->sc_suite, suite) != 0) {
    int rc = chk_suite_end(c);
    if (rc != 0)
      return rc;
    char label[600];
    snprintf(label, sizeof label, "%s/data/%s", c->top, suite);
    snprintf(c->sc_suite, sizeof c->sc_suite, "%s", suite);
    c->nsuites++;
    rc = np_archive__sc_new(label, chk_selfcheck_cb, c, &c->sc);
    if (rc != 0)
      return rc;
  }
  return np_archive__sc_file(c->sc, sub, data, len);
}

/* A payload file data/<suite>/<sub>: listed, JSON checked, self-checked. */
static int chk_payload(struct np_check *c, const char *where, const char *rel,
                       const char *data, size_t len, const char *hex,
                       int in_order) {
  const char *s = strchr(rel + 5, '/');
  char suite[256];
  if (s == NULL || (size_t)(s - rel - 5) >= sizeof(suite)) {
    np_problem(c->p, where, "payload file outside any suite folder");
    return 0;
  }
  memcpy(suite, rel + 5, (size_t)(s - rel - 5));
  suite[s - rel - 5] = '\0';
  if (!np_bag_name_ok(suite)) {
    np_problem(c->p, where, "suite folder name is not [A-Za-z0-9._-]+");
    return 0;
  }
  /* JSON the self-check parses and validates is not validated twice */
  if (ends_with(rel, ".json") && !np_archive__sc_validates(s + 1))
    cJSON_Delete(chk_json(c, where, data, len));
  cJSON *facts = NULL;
  int rc = np_evidence_facts(rel, data, len, &facts);
  if (rc == 0)
    rc = np_bag_files_push(&c->payload, rel, len, hex, facts);
  if (rc == 0 && in_order)
    rc = chk_selfcheck_feed(c, suite, s + 1, data, len);
  return rc;
}

static int chk_file(void *ctx, const struct np_read_result *res,
                    const char *rel, const char *data, size_t len,
                    int in_order) {
  struct np_check *c = ctx;
  char where[4400], hex[NP_SHA256_HEX_SIZE];
  snprintf(c->top, sizeof c->top, "%s", res->top);
  snprintf(where, sizeof(where), "%s/%s", c->top, rel);
  int rc = np_sha256_buf(data, len, hex);
  if (rc != 0)
    return rc;
  if (memmem(data, len, PEM_PRIVATE_TAIL, strlen(PEM_PRIVATE_TAIL)) != NULL &&
      memmem(data, len, "-----BEGIN ", 11) != NULL)
    np_problem(c->p, where, "holds a PEM private key; keys never belong in "
               "a bundle");
  if (strchr(rel, '/') == NULL) {
    rc = chk_suite_end(c); /* the stream has left data/ */
    if (rc == 0)
      rc = np_bag_files_push(&c->tagfiles, rel, len, hex, NULL);
    for (size_t k = 0; rc == 0 && k < NREQ; k++)
      if (strcmp(rel, required_tags[k]) == 0) {
        rc = np_ftree_add(c->tags, rel, data, len);
        rc = rc == NP_EEXIST ? 0 : rc;
      }
  } else if (strncmp(rel, "data/", 5) == 0) {
    rc = chk_payload(c, where, rel, data, len, hex, in_order);
  } else {
    np_problem(c->p, where, "unexpected folder outside data/");
  }
  if (rc == 0 && c->also != NULL)
    rc = c->also->file(c->also->ctx, res, rel, data, len, in_order);
  return rc;
}

int np_archive__check_new(struct np_problems *p,
                          const struct np_read_sink *also,
                          struct np_check **out) {
  struct np_check *c = calloc(1, sizeof(*c));
  if (c == NULL || np_ftree_new(&c->tags) != 0) {
    free(c);
    return NP_ENOMEM;
  }
  c->p = p;
  c->also = also;
  *out = c;
  return 0;
}

struct np_read_sink np_archive__check_sink(struct np_check *c) {
  return (struct np_read_sink){.file = chk_file, .ctx = c};
}

/* Compare two texts line by line; report the first differing line. */
static void chk_text(struct np_check *c, const char *file, const char *have,
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

static void chk_tags(struct np_check *c) {
  char where[512];
  for (size_t i = 0; i < c->tagfiles.n; i++) {
    const char *t = c->tagfiles.v[i].path;
    int known = 0;
    for (size_t k = 0; k < NREQ; k++)
      known |= strcmp(t, required_tags[k]) == 0;
    if (!known) {
      snprintf(where, sizeof(where), "%s/%s", c->top, t);
      np_problem(c->p, where, "unexpected file at the top of the bag");
    }
  }
  for (size_t k = 0; k < NREQ; k++) {
    if (np_ftree_get(c->tags, required_tags[k], NULL) == NULL) {
      snprintf(where, sizeof(where), "%s/%s", c->top, required_tags[k]);
      np_problem(c->p, where, "missing");
    }
  }
  if (c->payload.n == 0) {
    snprintf(where, sizeof(where), "%s/data", c->top);
    np_problem(c->p, where, "no suite folders in the payload");
  }
  size_t len;
  const char *bt = np_ftree_get(c->tags, "bagit.txt", &len);
  snprintf(where, sizeof(where), "%s/bagit.txt", c->top);
  if (bt != NULL)
    chk_text(c, where, bt, len, NP_BAGIT_TXT);
}

static void chk_manifests(struct np_check *c) {
  size_t len;
  const char *m = np_ftree_get(c->tags, "manifest-sha256.txt", &len);
  if (m != NULL)
    np_bagit_check_manifest("manifest-sha256.txt", m, len, &c->payload,
                            chk_bagit_cb, c);
  /* tagmanifest covers every tag file but itself: a view of tagfiles
   * without that entry (the list stays sorted) */
  struct np_bag_files view = {0};
  view.v = malloc((c->tagfiles.n ? c->tagfiles.n : 1) * sizeof(*view.v));
  if (view.v == NULL) {
    np_problem(c->p, NULL, "out of memory");
    return;
  }
  for (size_t i = 0; i < c->tagfiles.n; i++)
    if (strcmp(c->tagfiles.v[i].path, "tagmanifest-sha256.txt") != 0)
      view.v[view.n++] = c->tagfiles.v[i];
  m = np_ftree_get(c->tags, "tagmanifest-sha256.txt", &len);
  if (m != NULL)
    np_bagit_check_manifest("tagmanifest-sha256.txt", m, len, &view,
                            chk_bagit_cb, c);
  free(view.v); /* the entries belong to tagfiles */
}

static int chk_is_incomplete(void *ctx, const char *suite) {
  struct np_check *c = ctx;
  for (size_t i = 0; i < c->nincomplete; i++)
    if (strcmp(c->incomplete[i], suite) == 0)
      return 1;
  return 0;
}

/* The mtime evidence.json claims and where it says it came from: read
 * without parsing the file (the common case never parses it). */
static void chk_claimed_mtime(const char *evt, size_t len, int64_t *mtime,
                              char *src, size_t srclen) {
  static const char *const keys[] = {"bagging/mtime", "bagging/mtime_source"};
  char *v[2];
  *mtime = 0;
  src[0] = '\0';
  if (np_jscan_scalars(evt, len, keys, 2, v) != 0)
    return;
  if (v[0] != NULL)
    *mtime = strtoll(v[0], NULL, 10);
  if (v[1] != NULL)
    snprintf(src, srclen, "%s", v[1]);
  free(v[0]);
  free(v[1]);
}

/* evidence.json and bag-info.txt must be what pack makes of the payload.
 * Pack writes evidence.json as np_json_print of the tree built here, so a
 * bag's file normally equals the rebuilt text byte for byte; only when it
 * does not is the file parsed (and validated) to find where it differs
 * (the same content spelled otherwise passes).  That keeps one evidence
 * tree in memory, not two, in the common case. */
static void chk_evidence(struct np_check *c, const struct np_read_result *res,
                         const char *evt, size_t evlen) {
  char where[512], ptr[1024] = "", src_claim[64];
  snprintf(where, sizeof(where), "%s/evidence.json", c->top);
  int64_t mtime;
  chk_claimed_mtime(evt, evlen, &mtime, src_claim, sizeof src_claim);
  const char *src = NP_EVIDENCE_SRC_ENV;
  if (strcmp(src_claim, NP_EVIDENCE_SRC_ENV) != 0) {
    int found;
    np_evidence_newest_start(&c->payload, &mtime, &found);
    src = found ? NP_EVIDENCE_SRC_RUNS : NP_EVIDENCE_SRC_NONE;
  }
  if (res->mtime_mixed || res->mtime != mtime)
    np_problem(c->p, NULL, "tar entry mtimes are not all %lld (the bag's "
               "mtime)", (long long)mtime);
  cJSON *want = NULL;
  char *wtext = NULL;
  if (np_evidence_build(c->top, &c->payload, mtime, src, chk_is_incomplete, c,
                        &want) != 0 ||
      (wtext = np_json_print(want, 1)) == NULL) {
    np_problem(c->p, where, "out of memory");
    cJSON_Delete(want);
    return;
  }
  if (strlen(wtext) == evlen && memcmp(wtext, evt, evlen) == 0) {
    free(wtext);
    c->file = where; /* what pack wrote: check the schema on our tree */
    const struct np_schema *s = chk_schema(c, NP_EVIDENCE_TAG, NULL);
    int rc = s != NULL ? np_schema_validate(s, want, chk_schema_cb, c)
                       : NP_ENOMEM;
    if (rc != 0 && rc != NP_ESCHEMA)
      np_problem(c->p, where, "schema validation could not run: %s",
                 np_strerror(rc));
  } else {
    free(wtext);
    cJSON *ev = chk_json(c, where, evt, evlen);
    const char *name = np_json_get_string(ev, "name", NULL);
    if (name != NULL && strcmp(name, c->top) != 0)
      np_problem(c->p, where, "/name: '%.100s' but the top folder is '%s'",
                 name, c->top);
    if (ev != NULL && np_evidence_diff(want, ev, ptr, sizeof(ptr)))
      np_problem(c->p, where, "%s: does not match the payload",
                 ptr[0] ? ptr : "/");
    cJSON_Delete(ev); /* the same content spelled otherwise is fine */
  }
  size_t len;
  const char *info = np_ftree_get(c->tags, "bag-info.txt", &len);
  char *winfo = np_evidence_bag_info(want);
  snprintf(where, sizeof(where), "%s/bag-info.txt", c->top);
  if (info != NULL && winfo != NULL)
    chk_text(c, where, info, len, winfo);
  free(winfo);
  cJSON_Delete(want);
}

void np_archive__check_finish(struct np_check *c,
                              const struct np_read_result *res,
                              struct np_verified *out) {
  memset(out, 0, sizeof(*out));
  if (!res->complete) { /* a broken stream: the suite is not all there */
    np_archive__sc_free(c->sc);
    c->sc = NULL;
  }
  if (chk_suite_end(c) != 0)
    np_problem(c->p, NULL, "out of memory");
  np_bag_files_sort(&c->tagfiles);
  np_bag_files_sort(&c->payload);
  if (res->complete && res->top[0] == '\0') {
    np_problem(c->p, NULL, "no bag in the archive");
  } else if (res->complete) {
    chk_tags(c);
    chk_manifests(c);
    size_t len;
    const char *evt = np_ftree_get(c->tags, "evidence.json", &len);
    if (evt != NULL)
      chk_evidence(c, res, evt, len);
  }
  snprintf(out->top, sizeof out->top, "%s", c->top);
  const struct np_bag_file *tm =
      np_bag_files_find(&c->tagfiles, "tagmanifest-sha256.txt");
  if (tm != NULL)
    memcpy(out->tagmanifest_sha256, tm->sha256, NP_SHA256_HEX_SIZE);
  out->tags = c->tagfiles;
  out->payload = c->payload;
  out->suites = c->nsuites;
  out->incomplete = c->nincomplete;
  memcpy(out->incomplete_note, c->incomplete_note, sizeof out->incomplete_note);
  memset(&c->tagfiles, 0, sizeof c->tagfiles);
  memset(&c->payload, 0, sizeof c->payload);
}

void np_archive__check_free(struct np_check *c) {
  if (c == NULL)
    return;
  np_archive__sc_free(c->sc);
  np_ftree_free(c->tags);
  np_bag_files_free(&c->tagfiles);
  np_bag_files_free(&c->payload);
  for (size_t i = 0; i < c->nincomplete; i++)
    free(c->incomplete[i]);
  free(c->incomplete);
  for (size_t i = 0; i < c->ncache; i++) {
    free(c->cache[i].tag);
    np_schema_free(c->cache[i].s);
  }
  free(c);
}

void np_verified__free(struct np_verified *v) {
  if (v == NULL)
    return;
  np_bag_files_free(&v->tags);
  np_bag_files_free(&v->payload);
}
