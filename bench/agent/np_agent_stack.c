/*
 * np_agent_stack.c - which network stack this process runs in (see
 * np_agent_stack_json in np_agent_client.h): the boot of the kernel and
 * the network namespace.  A cross-host record carries both ends', so "two
 * hosts" is a fact the self-check can test, not a claim - two network
 * namespaces on one machine are two stacks, one namespace reached twice
 * is not.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "np_agent_client.h"

static void add_text_or_null(cJSON *o, const char *key, const char *v) {
  if (v && v[0])
    cJSON_AddStringToObject(o, key, v);
  else
    cJSON_AddNullToObject(o, key);
}

cJSON *np_agent_stack_json(void) {
  char boot[64] = "", ns[64] = "", host[256] = "";
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (fgets(boot, sizeof boot, f) == NULL)
      boot[0] = '\0';
    boot[strcspn(boot, "\n")] = '\0';
    fclose(f);
  }
  ssize_t n = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
  ns[n > 0 ? n : 0] = '\0';
  if (gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  add_text_or_null(o, "boot_id", boot);
  add_text_or_null(o, "netns", ns);
  add_text_or_null(o, "hostname", host);
  if (cJSON_GetArraySize(o) != 3) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
