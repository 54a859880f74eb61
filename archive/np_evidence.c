/*
 * np_evidence.c - build evidence.json and bag-info.txt from a bag's file
 * list.
 *
 * Every payload file is listed exactly once: run files
 * (runs/<config-id>/rep-<n>.{json,stderr.txt,cmd.txt,kernel-before.txt,
 * kernel-after.txt}) under their run, anything else in the suite's
 * "files".  Of a record only started_at, status and tool identity are
 * used, of suite.json its tool and machine: those are the file's "facts",
 * taken when pack loads it or when verify streams past it; their validity
 * is the schema check's and the self-check's job.
 */
#include "np_evidence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "np_identity.h"
#include "np_json.h"
#include "np_jscan.h"

/* The run-file kinds, in the order evidence lists them. */
static const struct {
  const char *suffix; /* after "rep-<n>." */
  const char *key;    /* key under the run's "files" */
} run_kinds[] = {
    {"json", "record"},
    {"stderr.txt", "stderr"},
    {"cmd.txt", "command"},
    {"kernel-before.txt", "kernel_before"},
    {"kernel-after.txt", "kernel_after"},
};
#define RUN_KINDS (sizeof(run_kinds) / sizeof(run_kinds[0]))

int np_evidence_parse_time(const char *s, int64_t *out) {
  int y, mo, d, h, mi, se, n = 0;
  if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
                          &se, &n) != 6 || n != 19)
    return NP_EPARSE;
  const char *p = s + n;
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9')
      return NP_EPARSE;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  long off = 0;
  if (*p == 'Z' || *p == 'z') {
    p++;
  } else if (*p == '+' || *p == '-') {
    int oh, om, m = 0;
    if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &m) != 2 || m != 5)
      return NP_EPARSE;
    off = (oh * 3600L + om * 60L) * (*p == '-' ? -1 : 1);
    p += 6;
  } else {
    return NP_EPARSE;
  }
  if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
      mi > 59 || se > 60)
    return NP_EPARSE;
  struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                  .tm_hour = h, .tm_min = mi, .tm_sec = se};
  *out = (int64_t)timegm(&tm) - off;
  return 0;
}

/* Split a suite-relative path into run config id and rep number and kind
 * index; 0 when it is a run file. */
static int run_file_parse(const char *p, char *cfg, size_t cfglen,
                          long *rep, size_t *kind) {
  if (strncmp(p, "runs/", 5) != 0)
    return -1;
  const char *c = p + 5, *slash = strchr(c, '/');
  if (slash == NULL || slash == c || (size_t)(slash - c) >= cfglen)
    return -1;
  const char *f = slash + 1;
  if (strchr(f, '/') != NULL || strncmp(f, "rep-", 4) != 0)
    return -1;
  char *end;
  const char *digits = f + 4;
  if (*digits < '0' || *digits > '9')
    return -1;
  long r = strtol(digits, &end, 10);
  if (*end != '.' || r < 0)
    return -1;
  for (size_t k = 0; k < RUN_KINDS; k++) {
    if (strcmp(end + 1, run_kinds[k].suffix) == 0) {
      memcpy(cfg, c, (size_t)(slash - c));
      cfg[slash - c] = '\0';
      *rep = r;
      *kind = k;
      return 0;
    }
  }
  return -1;
}

/* data/<suite>/<rest>: the suite name into suite and *rest; 0 when path
 * has another shape. */
static int payload_split(const char *path, char *suite, size_t len,
                         const char **rest) {
  if (strncmp(path, "data/", 5) != 0)
    return 0;
  const char *s = path + 5, *slash = strchr(s, '/');
  if (slash == NULL || slash == s || (size_t)(slash - s) >= len)
    return 0;
  memcpy(suite, s, (size_t)(slash - s));
  suite[slash - s] = '\0';
  *rest = slash + 1;
  return 1;
}

static cJSON *str_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* The tool identity subset evidence keeps: name, version and hashes. */
static cJSON *tool_subset(const cJSON *tool) {
  static const char *const keys[] = {"name", "version", "source_sha256",
                                     "binary_sha256"};
  if (!cJSON_IsObject(tool))
    return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; o != NULL && i < 4; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(tool, keys[i]);
    if (v != NULL)
      cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(v, 1));
  }
  return o;
}

/* A run record's facts, by the scanner (np_jscan.h). */
static int record_facts(const char *data, size_t len, cJSON *f) {
  static const char *const keys[] = {"status", "started_at",
                                     "tool/source_sha256",
                                     "tool/binary_sha256"};
  char *v[4];
  int rc = np_jscan_strings(data, len, keys, 4, v);
  if (rc == NP_ENOMEM)
    return rc;
  cJSON_AddItemToObject(f, "status", str_or_null(v[0]));
  cJSON_AddItemToObject(f, "started_at", str_or_null(v[1]));
  cJSON *tool = cJSON_AddObjectToObject(f, "tool");
  if (v[2] != NULL)
    cJSON_AddStringToObject(tool, "source_sha256", v[2]);
  if (v[3] != NULL)
    cJSON_AddStringToObject(tool, "binary_sha256", v[3]);
  for (int i = 0; i < 4; i++)
    free(v[i]);
  return 0;
}

int np_evidence_facts(const char *path, const char *data, size_t len,
                      cJSON **out) {
  char suite[256], cfg[256];
  const char *rest;
  long rep;
  size_t kind;
  *out = NULL;
  if (!payload_split(path, suite, sizeof suite, &rest))
    return 0;
  int is_suite = strcmp(rest, "suite.json") == 0;
  int is_record = run_file_parse(rest, cfg, sizeof cfg, &rep, &kind) == 0 &&
                  kind == 0;
  if (!is_suite && !is_record)
    return 0;
  cJSON *f = cJSON_CreateObject();
  if (f == NULL)
    return NP_ENOMEM;
  if (is_record) {
    if (record_facts(data, len, f) != 0) {
      cJSON_Delete(f);
      return NP_ENOMEM;
    }
  } else {
    cJSON *doc = NULL;
    if (np_json_parse(data, len, NULL, &doc, NULL) != 0)
      doc = NULL;
    const cJSON *mach = cJSON_GetObjectItemCaseSensitive(doc, "machine");
    cJSON_AddItemToObject(f, "machine", cJSON_IsObject(mach)
                                            ? cJSON_Duplicate(mach, 1)
                                            : cJSON_CreateNull());
    cJSON_AddItemToObject(
        f, "tool", tool_subset(cJSON_GetObjectItemCaseSensitive(doc, "tool")));
    cJSON_Delete(doc);
  }
  char *probe = cJSON_PrintUnformatted(f); /* a failed allocation above */
  if (probe == NULL) {                     /* leaves a child missing    */
    cJSON_Delete(f);
    return NP_ENOMEM;
  }
  free(probe);
  *out = f;
  return 0;
}

int np_evidence_add_facts(struct np_bag_files *payload) {
  for (size_t i = 0; i < payload->n; i++) {
    struct np_bag_file *f = &payload->v[i];
    cJSON_Delete(f->facts);
    f->facts = NULL;
    int rc = np_evidence_facts(f->path, f->data, f->len, &f->facts);
    if (rc != 0)
      return rc;
  }
  return 0;
}

void np_evidence_newest_start(const struct np_bag_files *payload,
                              int64_t *epoch, int *found) {
  int64_t best = 0;
  int any = 0;
  for (size_t i = 0; i < payload->n; i++) {
    const cJSON *f = payload->v[i].facts;
    int64_t e;
    if (cJSON_GetObjectItemCaseSensitive(f, "status") != NULL &&
        np_evidence_parse_time(np_json_get_string(f, "started_at", NULL),
                               &e) == 0 &&
        (!any || e > best)) {
      best = e;
      any = 1;
    }
  }
  *epoch = best;
  *found = any;
}

/* A file entry.  Its strings are references into the payload list (no
 * copy per file: the tree lives no longer than the list, in pack and in
 * verify alike), its keys constants. */
static cJSON *file_obj(const struct np_bag_file *f) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return o;
  cJSON_AddItemToObjectCS(o, "path", cJSON_CreateStringReference(f->path));
  cJSON_AddItemToObjectCS(o, "sha256",
                          cJSON_CreateStringReference(f->sha256));
  cJSON_AddItemToObjectCS(o, "bytes", cJSON_CreateNumber((double)f->len));
  return o;
}

/* Add the string s to the sorted, distinct string array arr. */
static void str_set_add(cJSON *arr, const char *s) {
  if (s == NULL)
    return;
  int i = 0;
  cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    int c = strcmp(it->valuestring, s);
    if (c == 0)
      return;
    if (c > 0)
      break;
    i++;
  }
  cJSON_InsertItemInArray(arr, i, cJSON_CreateString(s));
}

static void note_tool(cJSON *ev, const cJSON *tool) {
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(tool, "source_sha256");
  const cJSON *bin = cJSON_GetObjectItemCaseSensitive(tool, "binary_sha256");
  if (cJSON_IsString(src))
    str_set_add(cJSON_GetObjectItem(ev, "source_sha256"), src->valuestring);
  if (cJSON_IsString(bin))
    str_set_add(cJSON_GetObjectItem(ev, "binary_sha256"), bin->valuestring);
}

/* One suite's entry: its tool/machine, other files and runs.  Its files
 * are payload->v[lo..hi), every path "data/<suite>/...". */
static cJSON *suite_obj(cJSON *ev, const char *suite,
                        const struct np_bag_files *payload, size_t lo,
                        size_t hi, int incomplete) {
  cJSON *o = cJSON_CreateObject();
  char prefix[256];
  snprintf(prefix, sizeof(prefix), "data/%s", suite);
  cJSON_AddStringToObject(o, "name", suite);
  cJSON_AddStringToObject(o, "path", prefix);
  char sp[300];
  snprintf(sp, sizeof sp, "%s/suite.json", prefix);
  const struct np_bag_file *sf = np_bag_files_find(payload, sp);
  const cJSON *tool = sf ? cJSON_GetObjectItemCaseSensitive(sf->facts, "tool")
                         : NULL;
  const cJSON *mach =
      sf ? cJSON_GetObjectItemCaseSensitive(sf->facts, "machine") : NULL;
  note_tool(ev, tool);
  cJSON_AddItemToObject(o, "tool", cJSON_IsObject(tool)
                                       ? cJSON_Duplicate(tool, 1)
                                       : cJSON_CreateNull());
  cJSON_AddItemToObject(o, "machine", cJSON_IsObject(mach)
                                          ? cJSON_Duplicate(mach, 1)
                                          : cJSON_CreateNull());
  cJSON_AddStringToObject(o, "self_check", incomplete ? "incomplete" : "clean");
  cJSON *files = cJSON_AddArrayToObject(o, "files");
  cJSON *runs = cJSON_AddArrayToObject(o, "runs");
  cJSON *run = NULL, *rfiles = NULL;
  char cur_cfg[256] = "";
  long cur_rep = -1;
  for (size_t i = lo; i < hi; i++) {
    const struct np_bag_file *pf = &payload->v[i];
    const char *p = pf->path + strlen(prefix) + 1;
    char cfg[256];
    long rep;
    size_t kind;
    if (run_file_parse(p, cfg, sizeof(cfg), &rep, &kind) != 0) {
      cJSON_AddItemToArray(files, file_obj(pf));
      continue;
    }
    if (run == NULL || rep != cur_rep || strcmp(cfg, cur_cfg) != 0) {
      run = cJSON_CreateObject();
      cJSON_AddItemToArray(runs, run);
      cJSON_AddStringToObject(run, "config_id", cfg);
      cJSON_AddNumberToObject(run, "rep", (double)rep);
      cJSON_AddNullToObject(run, "status");
      cJSON_AddNullToObject(run, "started_at");
      rfiles = cJSON_AddObjectToObject(run, "files");
      snprintf(cur_cfg, sizeof(cur_cfg), "%s", cfg);
      cur_rep = rep;
    }
    cJSON_AddItemToObject(rfiles, run_kinds[kind].key, file_obj(pf));
    if (kind == 0) {
      const cJSON *f = pf->facts;
      cJSON_ReplaceItemInObject(
          run, "status", str_or_null(np_json_get_string(f, "status", NULL)));
      cJSON_ReplaceItemInObject(
          run, "started_at",
          str_or_null(np_json_get_string(f, "started_at", NULL)));
      note_tool(ev, cJSON_GetObjectItemCaseSensitive(f, "tool"));
    }
  }
  return o;
}

/* Index of the first path >= key in a sorted list. */
static size_t lower_bound(const struct np_bag_files *f, const char *key) {
  size_t lo = 0, hi = f->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(f->v[mid].path, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct suite names of the sorted payload, sorted by name (caller
 * frees the names and the array). */
static int suite_names(const struct np_bag_files *payload, char ***out,
                       size_t *n) {
  char **v = NULL, last[256] = "";
  size_t k = 0, cap = 0;
  for (size_t i = 0; i < payload->n; i++) {
    char suite[256];
    const char *rest;
    if (!payload_split(payload->v[i].path, suite, sizeof suite, &rest) ||
        strcmp(suite, last) == 0)
      continue;
    snprintf(last, sizeof last, "%s", suite); /* a suite's files are
                                                  contiguous when sorted */
    if (k == cap) {
      cap = cap ? cap * 2 : 8;
      char **nv = realloc(v, cap * sizeof(*nv));
      if (nv == NULL)
        goto fail;
      v = nv;
    }
    if ((v[k] = strdup(suite)) == NULL)
      goto fail;
    k++;
  }
  if (k > 1)
    qsort(v, k, sizeof(*v), str_cmp);
  *out = v;
  *n = k;
  return 0;
fail:
  for (size_t j = 0; j < k; j++)
    free(v[j]);
  free(v);
  return NP_ENOMEM;
}

int np_evidence_build(const char *name, const struct np_bag_files *payload,
                      int64_t mtime, const char *mtime_source,
                      np_evidence_incomplete_fn incomplete, void *ctx,
                      cJSON **out) {
  char **names = NULL;
  size_t nnames = 0;
  if (suite_names(payload, &names, &nnames) != 0)
    return NP_ENOMEM;
  cJSON *ev = cJSON_CreateObject();
  if (ev == NULL)
    goto fail_names;
  char date[32] = "1970-01-01";
  time_t t = (time_t)mtime;
  struct tm tm;
  if (gmtime_r(&t, &tm) != NULL)
    strftime(date, sizeof(date), "%Y-%m-%d", &tm);
  cJSON_AddStringToObject(ev, "schema", NP_EVIDENCE_TAG);
  cJSON_AddStringToObject(ev, "name", name);
  cJSON *bag = cJSON_AddObjectToObject(ev, "bagging");
  cJSON_AddStringToObject(bag, "date", date);
  cJSON_AddNumberToObject(bag, "mtime", (double)mtime);
  cJSON_AddStringToObject(bag, "mtime_source", mtime_source);
  cJSON *packer = cJSON_AddObjectToObject(ev, "packer");
  cJSON_AddStringToObject(packer, "name", "netproof-archive");
  cJSON_AddStringToObject(packer, "version", NP_VERSION);
  cJSON_AddArrayToObject(ev, "source_sha256");
  cJSON_AddArrayToObject(ev, "binary_sha256");
  cJSON *pl = cJSON_AddObjectToObject(ev, "payload");
  cJSON_AddNumberToObject(pl, "files", (double)payload->n);
  cJSON_AddNumberToObject(pl, "bytes", (double)payload->bytes);
  cJSON *suites = cJSON_AddArrayToObject(ev, "suites");
  for (size_t i = 0; i < nnames; i++) {
    char prefix[300];
    snprintf(prefix, sizeof prefix, "data/%s/", names[i]);
    size_t lo = lower_bound(payload, prefix), hi = lo, pl_len = strlen(prefix);
    while (hi < payload->n && strncmp(payload->v[hi].path, prefix, pl_len) == 0)
      hi++;
    int inc = incomplete != NULL && incomplete(ctx, names[i]);
    cJSON_AddItemToArray(suites,
                         suite_obj(ev, names[i], payload, lo, hi, inc));
  }
  /* Top-level tool and machine: the first suite's (suites are sorted). */
  const cJSON *first = cJSON_GetArrayItem(suites, 0);
  const cJSON *tool = cJSON_GetObjectItem(first, "tool");
  const cJSON *mach = cJSON_GetObjectItem(first, "machine");
  cJSON_AddItemToObject(ev, "tool", tool ? cJSON_Duplicate(tool, 1)
                                         : cJSON_CreateNull());
  cJSON_AddItemToObject(ev, "machine", mach ? cJSON_Duplicate(mach, 1)
                                            : cJSON_CreateNull());
  char *probe = cJSON_PrintUnformatted(ev); /* any failed allocation above */
  if (probe == NULL)                        /* leaves a NULL child: detect */
    goto fail_ev;
  free(probe);
  for (size_t i = 0; i < nnames; i++)
    free(names[i]);
  free(names);
  *out = ev;
  return 0;
fail_ev:
  cJSON_Delete(ev);
fail_names:
  for (size_t i = 0; i < nnames; i++)
    free(names[i]);
  free(names);
  return NP_ENOMEM;
}

/* Append "Label: value\n" with control characters replaced by '?'. */
static int info_line(char **buf, size_t *len, size_t *cap, const char *label,
                     const char *value) {
  size_t need = strlen(label) + strlen(value) + 4;
  if (*len + need >= *cap) {
    size_t ncap = (*cap + need) * 2;
    char *nb = realloc(*buf, ncap);
    if (nb == NULL)
      return NP_ENOMEM;
    *buf = nb;
    *cap = ncap;
  }
  int n = snprintf(*buf + *len, *cap - *len, "%s: %s\n", label, value);
  for (int i = (int)strlen(label) + 2; i < n - 1; i++) {
    unsigned char c = (unsigned char)(*buf)[*len + (size_t)i];
    if (c < 0x20 || c == 0x7f)
      (*buf)[*len + (size_t)i] = '?';
  }
  *len += (size_t)n;
  return 0;
}

char *np_evidence_bag_info(const cJSON *ev) {
  char *buf = NULL, tmp[1024];
  size_t len = 0, cap = 0;
  int rc = 0;
  const cJSON *bag = cJSON_GetObjectItem(ev, "bagging");
  const cJSON *pl = cJSON_GetObjectItem(ev, "payload");
  const cJSON *m = cJSON_GetObjectItem(ev, "machine");
  const cJSON *it;
  rc |= info_line(&buf, &len, &cap, "Bag-Software-Agent",
                  "netproof-archive " NP_VERSION);
  rc |= info_line(&buf, &len, &cap, "Bagging-Date",
                  np_json_get_string(bag, "date", "unknown"));
  rc |= info_line(&buf, &len, &cap, "External-Identifier",
                  np_json_get_string(ev, "name", ""));
  snprintf(tmp, sizeof(tmp), "%.0f.%.0f", np_json_get_number(pl, "bytes", 0),
           np_json_get_number(pl, "files", 0));
  rc |= info_line(&buf, &len, &cap, "Payload-Oxum", tmp);
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(ev, "source_sha256"))
    rc |= info_line(&buf, &len, &cap, "Source-SHA256", it->valuestring);
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(ev, "binary_sha256"))
    rc |= info_line(&buf, &len, &cap, "Binary-SHA256", it->valuestring);
  if (cJSON_IsObject(m)) {
    snprintf(tmp, sizeof(tmp), "%s; %s; %.0f logical cores; Linux %s; %s",
             np_json_get_string(m, "hostname", "?"),
             np_json_get_string(m, "cpu_model", "?"),
             np_json_get_number(m, "logical_cores", 0),
             np_json_get_string(m, "kernel_release", "?"),
             np_json_get_string(m, "os_pretty_name", "?"));
    rc |= info_line(&buf, &len, &cap, "Machine", tmp);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(ev, "suites"))
    rc |= info_line(&buf, &len, &cap, "Suite-Name",
                    np_json_get_string(it, "name", ""));
  if (rc != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

int np_evidence_diff(const cJSON *a, const cJSON *b, char *ptr, size_t len) {
  size_t base = strlen(ptr);
  if (a == NULL || b == NULL || (a->type & 0xff) != (b->type & 0xff))
    return 1;
  if (cJSON_IsObject(a)) {
    const cJSON *x = a->child, *y = b->child;
    for (; x != NULL && y != NULL; x = x->next, y = y->next) {
      snprintf(ptr + base, len - base, "/%s", x->string);
      if (strcmp(x->string, y->string) != 0 || np_evidence_diff(x, y, ptr, len))
        return 1;
      ptr[base] = '\0';
    }
    if (x != NULL || y != NULL) {
      snprintf(ptr + base, len - base, "/%s", x ? x->string : y->string);
      return 1;
    }
    return 0;
  }
  if (cJSON_IsArray(a)) {
    const cJSON *x = a->child, *y = b->child;
    int i = 0;
    for (; x != NULL && y != NULL; x = x->next, y = y->next, i++) {
      snprintf(ptr + base, len - base, "/%d", i);
      if (np_evidence_diff(x, y, ptr, len))
        return 1;
      ptr[base] = '\0';
    }
    if (x != NULL || y != NULL) {
      snprintf(ptr + base, len - base, "/%d", i);
      return 1;
    }
    return 0;
  }
  return cJSON_Compare(a, b, 1) ? 0 : 1;
}
