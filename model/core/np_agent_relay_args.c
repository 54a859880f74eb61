/*
 * np_agent_relay_args.c - the --agent-relay LIST parser (see
 * np_agent_relay_args.h).
 */
#include "np_agent_relay_args.h"

#include <string.h>

#include "np_json.h"

#define ITEM_MAX 128      /* one NAME=VALUE of the list               */

/* One NAME=VALUE (or NAME) of the list into opts. */
static int add_item(cJSON *opts, const char *item, size_t n,
                    struct np_errbuf *eb) {
  char buf[ITEM_MAX];
  if (n == 0 || n >= sizeof buf)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent-relay: %s item (expected NAME=VALUE, "
                         "comma-separated: loss-percent=5,delay-ms=20)",
                         n == 0 ? "an empty" : "an over-long");
  memcpy(buf, item, n);
  buf[n] = '\0';
  char *eq = strchr(buf, '=');
  if (eq)
    *eq = '\0';
  if (buf[0] == '\0' || (eq && eq[1] == '\0'))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent-relay '%s': expected NAME=VALUE (a relay "
                         "option without its --)", item);
  if (strcmp(buf, "listen") == 0 || strcmp(buf, "forward") == 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent-relay %s: set by udp (the relay listens "
                         "on the agent's address and forwards to its "
                         "serve)", buf);
  if (cJSON_GetObjectItemCaseSensitive(opts, buf))
    return np_errbuf_set(eb, NP_EUSAGE, "--agent-relay %s: given twice",
                         buf);
  cJSON *v = eq ? cJSON_CreateString(eq + 1) : cJSON_CreateTrue();
  if (!cJSON_AddItemToObject(opts, buf, v)) {
    cJSON_Delete(v);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  return 0;
}

int np_agent_udp_relay_args(const char *list, const char *listen,
                            const char *forward, double lifetime,
                            cJSON **args, struct np_errbuf *eb) {
  cJSON *a = cJSON_CreateObject(), *o;
  if (a == NULL || !cJSON_AddStringToObject(a, "service", "relay") ||
      (o = cJSON_AddObjectToObject(a, "options")) == NULL ||
      !cJSON_AddStringToObject(o, "listen", listen) ||
      !cJSON_AddStringToObject(o, "forward", forward) ||
      !np_json_add_number(a, "lifetime_seconds", lifetime)) {
    cJSON_Delete(a);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  for (const char *p = list;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    int rc = add_item(o, p, n, eb);
    if (rc) {
      cJSON_Delete(a);
      return rc;
    }
    if (comma == NULL)
      break;
    p = comma + 1;
  }
  *args = a;
  return 0;
}

int np_agent_udp_relay_opt_set(void *sec, const struct np_bench_opt *o,
                               const struct np_bench_val *v,
                               struct np_errbuf *eb) {
  cJSON *args = NULL;
  int rc = np_agent_udp_relay_args(v->text, "127.0.0.1:0", "127.0.0.1:1",
                                   1.0, &args, eb);
  cJSON_Delete(args);
  return rc == 0 ? np_bench_opt_put(o, sec, v, eb) : rc;
}
