/*
 * fuzz_json - libFuzzer target for np_json_parse: any input must either be
 * rejected with an NP_E* code and a message, or parse into a tree that
 * prints and parses again (round trip).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct np_json_limits lim = {1u << 20, 64};
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  int rc = np_json_parse((const char *)data, size, &lim, &doc, &eb);
  if (rc != 0) {
    if (rc >= 0 || eb.msg[0] == '\0' || doc != NULL)
      abort(); /* errors must be negative codes with a message */
    return 0;
  }
  char *text = np_json_print(doc, 0);
  if (text) {
    cJSON *again = NULL;
    if (np_json_parse(text, strlen(text), &lim, &again, &eb) != 0)
      abort(); /* what we print we must be able to read back */
    cJSON_Delete(again);
    free(text);
  }
  cJSON_Delete(doc);
  return 0;
}
