/* test_identity.c - the embedded source hash equals what
 * scripts/source-hash.sh computes with coreutils over the same tree
 * (argv[1] = source root); the tool object carries both hashes and, the
 * test being linked with libuv, libuv's version (test_identity_nouv: a
 * program without libuv names none). */
#include <stdio.h>

#include <uv.h>

#include "np_identity.h"
#include "np_test.h"

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "'%s/scripts/source-hash.sh' '%s'", argv[1],
           argv[1]);
  FILE *p = popen(cmd, "r");
  ASSERT_NOT_NULL(p);
  char line[128] = "";
  ASSERT_NOT_NULL(fgets(line, sizeof(line), p));
  ASSERT_EQ(pclose(p), 0);
  line[strcspn(line, "\n")] = '\0';
  ASSERT_STR_EQ(np_identity_source_sha256(), line);

  char bin[NP_SHA256_HEX_SIZE];
  ASSERT_OK(np_identity_binary_sha256(bin));
  ASSERT_EQ(strlen(bin), 64);
  cJSON *tool = np_identity_tool_json("test_identity");
  ASSERT_NOT_NULL(tool);
  ASSERT_STR_EQ(cJSON_GetObjectItem(tool, "binary_sha256")->valuestring, bin);
  ASSERT_STR_EQ(cJSON_GetObjectItem(tool, "source_sha256")->valuestring,
                line);
  /* linked with libuv (as netproof-bench is): its run-time version */
  cJSON *uv = cJSON_GetObjectItem(cJSON_GetObjectItem(tool, "libraries"),
                                  "libuv");
  ASSERT_NOT_NULL(uv);
  ASSERT_STR_EQ(uv->valuestring, uv_version_string());
  cJSON_Delete(tool);
  puts("test_identity: ok");
  return 0;
}
