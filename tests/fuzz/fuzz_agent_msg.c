/*
 * fuzz_agent_msg - libFuzzer target for the agent's control-message parser
 * (bench/agent/np_agent_wire.h), the code every byte from an
 * unauthenticated peer goes through.  The input is parsed twice: as a body
 * (np_agent_msg_parse) and as a frame (4-byte length, then that many
 * bytes, np_agent_hdr_len).  A refused input must say why and leave the
 * out-parameters alone; an accepted one must carry the type it reports,
 * encode again within the size limit and parse back to an equal message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_agent_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct np_agent_schema *schema;

static void one(const char *buf, size_t len) {
  cJSON *m = NULL;
  enum np_agent_type t = (enum np_agent_type)99;
  struct np_errbuf eb = {{0}};
  int rc = np_agent_msg_parse(schema, buf, len, &m, &t, &eb);
  if (rc != 0) {
    if (m != NULL || (int)t != 99 || eb.msg[0] == '\0')
      abort();
    return;
  }
  const cJSON *ty = cJSON_GetObjectItemCaseSensitive(m, "type");
  if (!cJSON_IsString(ty) || strcmp(ty->valuestring, np_agent_type_name(t)))
    abort();
  unsigned char *wire = NULL;
  size_t wlen = 0;
  if (np_agent_msg_encode(m, &wire, &wlen, &eb) != 0 || wlen < 5 ||
      np_agent_hdr_len(wire) != wlen - 4)
    abort();
  cJSON *back = NULL;
  enum np_agent_type t2;
  if (np_agent_msg_parse(schema, (const char *)wire + 4, wlen - 4, &back, &t2,
                         &eb) != 0 ||
      t2 != t || !cJSON_Compare(m, back, 1))
    abort();
  cJSON_Delete(back);
  free(wire);
  cJSON_Delete(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema == NULL) {
    struct np_errbuf eb;
    if (np_agent_schema_new(&schema, &eb) != 0)
      abort();
  }
  one((const char *)data, size);
  if (size >= 4) {
    uint32_t n = np_agent_hdr_len(data);
    if (n > 0 && n <= size - 4)
      one((const char *)data + 4, n);
  }
  return 0;
}
