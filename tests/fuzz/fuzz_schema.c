/*
 * fuzz_schema - libFuzzer target for np_schema_compile + np_schema_validate.
 * The input is "SCHEMA\0INSTANCE"; without a NUL byte the schema is
 * validated against itself.  Compilation may fail with an NP_E* code;
 * validation must end with 0, NP_ESCHEMA or a limit code, and every
 * reported error must carry a location, keyword and reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_error(void *ctx, const char *pointer, const char *keyword,
                     const char *reason) {
  size_t *n = ctx;
  if (!pointer || !keyword || !*keyword || !reason || !*reason)
    abort();
  (*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct np_json_limits lim = {1u << 20, 64};
  struct np_errbuf eb = {{0}};
  const char *text = (const char *)data;
  const char *nul = memchr(text, '\0', size);
  size_t slen = nul ? (size_t)(nul - text) : size;
  cJSON *schema_doc = NULL, *inst = NULL;
  struct np_schema *s = NULL;
  if (np_json_parse(text, slen, &lim, &schema_doc, &eb) != 0)
    return 0;
  if (nul) {
    if (np_json_parse(nul + 1, size - slen - 1, &lim, &inst, &eb) != 0)
      goto done;
  }
  int rc = np_schema_compile(schema_doc, &s, &eb);
  if (rc != 0) {
    if (s != NULL || eb.msg[0] == '\0')
      abort();
    goto done;
  }
  size_t errors = 0;
  rc = np_schema_validate(s, inst ? inst : schema_doc, on_error, &errors);
  if (rc == 0 && errors != 0)
    abort(); /* valid with reported errors */
  if (rc == NP_ESCHEMA && errors == 0)
    abort(); /* invalid without a reason */
  if (rc != 0 && rc != NP_ESCHEMA && rc != NP_ETOODEEP && rc != NP_ERANGE)
    abort();
done:
  np_schema_free(s);
  cJSON_Delete(inst);
  cJSON_Delete(schema_doc);
  return 0;
}
