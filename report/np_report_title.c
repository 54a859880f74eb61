/*
 * np_report_title.c - the default title of a report on sets measured with
 * `udp --connect`: the server that answered, by the identity its records
 * carry (external.server.processes: executable and its SHA-256), not
 * "netproof" - the numbers are that server's.  Any other set keeps the
 * generic title.
 */
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_report_int.h"

/* "python3.11 (exe SHA-256 f1ee188b790e)" of a record, or NULL. */
static const char *server_of(const cJSON *doc, char *buf, size_t len) {
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
  const struct np_kind *k =
      np_kind_find(np_json_get_string(cfg, "protocol", ""));
  if (k == NULL || !k->external_server)
    return NULL;
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(doc, "external");
  const cJSON *procs = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(ext, "server"), "processes");
  const cJSON *p = cJSON_GetArrayItem(procs, 0);
  const char *exe = np_json_get_string(p, "exe", NULL);
  const char *sha = np_json_get_string(p, "exe_sha256", NULL);
  const char *at = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(ext, "target"), "connect", "?");
  const char *base = exe ? strrchr(exe, '/') : NULL;
  if (exe == NULL)
    snprintf(buf, len, "an unidentified server at %s", at);
  else
    snprintf(buf, len, "%s at %s (exe SHA-256 %.12s)", base ? base + 1 : exe,
             at, sha ? sha : "unknown");
  return buf;
}

int np_report__title_default(struct np_results_set *const *sets, size_t nsets,
                             char *buf, size_t len) {
  char first[256] = "", one[256];
  int mixed = 0;
  size_t n = 0;
  for (size_t i = 0; i < nsets; i++) {
    for (size_t r = 0; r < sets[i]->nruns; r++) {
      if (server_of(sets[i]->runs[r].doc, one, sizeof one) == NULL)
        return 0; /* not every run measured someone else's server */
      if (n++ == 0)
        snprintf(first, sizeof first, "%s", one);
      else if (strcmp(first, one) != 0)
        mixed = 1;
    }
  }
  if (n == 0)
    return 0;
  if (mixed)
    snprintf(buf, len, "UDP echo servers measured with netproof (first: %s)",
             first);
  else
    snprintf(buf, len, "UDP echo server %s, measured with netproof", first);
  return 1;
}
