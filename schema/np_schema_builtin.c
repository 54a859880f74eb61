/*
 * np_schema_builtin.c - loading schemas: from a file, or one of the shipped
 * schemas embedded at build time (looked up by name "run" or by document
 * tag "netproof/run/1"), and validation of a document against the shipped
 * schema its own "schema" field names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_schema_int.h"

int np_schema_load_file(const char *path, struct np_schema **out,
                        struct np_errbuf *eb) {
  cJSON *doc = NULL;
  int rc = np_json_load_file(path, NULL, &doc, eb);
  if (rc != 0)
    return rc;
  struct np_errbuf local;
  rc = np_schema_compile(doc, out, &local);
  if (rc != 0)
    np_errbuf_set(eb, rc, "%s: %s", path, local.msg);
  cJSON_Delete(doc);
  return rc;
}

/* "netproof/<name>/1" -> name into buf; plain names are copied. */
static int tag_to_name(const char *tag, char *buf, size_t n) {
  const char *pre = "netproof/", *suf = "/1";
  size_t tl = strlen(tag), pl = strlen(pre), sl = strlen(suf);
  if (tl > pl + sl && strncmp(tag, pre, pl) == 0 &&
      strcmp(tag + tl - sl, suf) == 0) {
    if (tl - pl - sl >= n)
      return NP_ENOENT;
    memcpy(buf, tag + pl, tl - pl - sl);
    buf[tl - pl - sl] = '\0';
    return 0;
  }
  if (tl >= n || strchr(tag, '/'))
    return NP_ENOENT;
  memcpy(buf, tag, tl + 1);
  return 0;
}

int np_schema_builtin(const char *name_or_tag, struct np_schema **out,
                      struct np_errbuf *eb) {
  char name[128];
  if (!name_or_tag || tag_to_name(name_or_tag, name, sizeof(name)) != 0)
    return np_errbuf_set(eb, NP_ENOENT, "no shipped schema for \"%s\"",
                         name_or_tag ? name_or_tag : "(null)");
  for (const struct np_schema_embedded *e = np_schema__embedded; e->name;
       e++) {
    if (strcmp(e->name, name) != 0)
      continue;
    cJSON *doc = NULL;
    int rc = np_json_parse((const char *)e->text, e->len, NULL, &doc, eb);
    if (rc != 0)
      return rc;
    struct np_errbuf local;
    rc = np_schema_compile(doc, out, &local);
    if (rc != 0)
      np_errbuf_set(eb, rc, "%s.schema.json: %s", name, local.msg);
    cJSON_Delete(doc);
    return rc;
  }
  return np_errbuf_set(eb, NP_ENOENT, "no shipped schema for \"%s\"",
                       name_or_tag);
}

/* Keeps the first validation error and counts the rest. */
struct first_error {
  struct np_errbuf *eb;
  int count;
};

static void keep_first(void *ctx, const char *pointer, const char *keyword,
                       const char *reason) {
  struct first_error *fe = ctx;
  if (fe->count++ == 0)
    np_errbuf_set(fe->eb, NP_ESCHEMA, "%s: %s: %s",
                  *pointer ? pointer : "(root)", keyword, reason);
}

int np_schema_validate_tagged(const cJSON *instance, struct np_errbuf *eb) {
  const cJSON *tag = cJSON_GetObjectItemCaseSensitive(instance, "schema");
  if (!cJSON_IsString(tag))
    return np_errbuf_set(eb, NP_ENOENT,
                         "/schema: document has no \"schema\" string naming "
                         "its schema");
  struct np_schema *s = NULL;
  int rc = np_schema_builtin(tag->valuestring, &s, eb);
  if (rc != 0)
    return rc;
  struct first_error fe = {eb, 0};
  rc = np_schema_validate(s, instance, keep_first, &fe);
  np_schema_free(s);
  if (rc != 0 && fe.count == 0)
    np_errbuf_set(eb, rc, "(root): schema: %s", np_strerror(rc));
  return rc;
}
