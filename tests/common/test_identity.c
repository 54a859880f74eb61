/* test_identity.c - the embedded source hash and measuring source hash
 * equal what scripts/source-hash.sh (and --measuring) computes with
 * coreutils over the same tree (argv[1] = source root), and differ from
 * each other; the tool object carries the three hashes and, the
 * test being linked with libuv, libuv's version (test_identity_nouv: a
 * program without libuv names none). */
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "np_identity.h"
#include "np_test.h"

/* What scripts/source-hash.sh [--measuring] prints for root, into line. */
static int script_hash(const char *root, const char *flag, char *line,
                       size_t len) {
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "'%s/scripts/source-hash.sh' %s '%s'", root,
           flag, root);
  FILE *p = popen(cmd, "r");
  if (p == NULL)
    return -1;
  line[0] = '\0';
  char *got = fgets(line, (int)len, p);
  if (pclose(p) != 0 || got == NULL)
    return -1;
  line[strcspn(line, "\n")] = '\0';
  return 0;
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char line[128] = "", meas[128] = "";
  ASSERT_OK(script_hash(argv[1], "", line, sizeof line));
  ASSERT_STR_EQ(np_identity_source_sha256(), line);
  ASSERT_OK(script_hash(argv[1], "--measuring", meas, sizeof meas));
  ASSERT_STR_EQ(np_identity_measuring_sha256(), meas);
  ASSERT_EQ(strlen(meas), 64);
  ASSERT_TRUE(strcmp(meas, line) != 0);

  char bin[NP_SHA256_HEX_SIZE];
  ASSERT_OK(np_identity_binary_sha256(bin));
  ASSERT_EQ(strlen(bin), 64);
  cJSON *tool = np_identity_tool_json("test_identity");
  ASSERT_NOT_NULL(tool);
  ASSERT_STR_EQ(cJSON_GetObjectItem(tool, "binary_sha256")->valuestring, bin);
  ASSERT_STR_EQ(cJSON_GetObjectItem(tool, "source_sha256")->valuestring,
                line);
  ASSERT_STR_EQ(
      cJSON_GetObjectItem(tool, "measuring_source_sha256")->valuestring, meas);
  /* linked with libuv (as netproof-bench is): its run-time version */
  cJSON *uv = cJSON_GetObjectItem(cJSON_GetObjectItem(tool, "libraries"),
                                  "libuv");
  ASSERT_NOT_NULL(uv);
  ASSERT_STR_EQ(uv->valuestring, uv_version_string());
  cJSON_Delete(tool);
  puts("test_identity: ok");
  return 0;
}
