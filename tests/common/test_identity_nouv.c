/* test_identity_nouv.c - a program that does not load libuv (linked with
 * np_common only, like netproof-report, -archive and -validate) names no
 * libuv version: not in the tool object, not in --version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_identity.h"
#include "np_test.h"

int main(void) {
  cJSON *tool = np_identity_tool_json("test_identity_nouv");
  ASSERT_NOT_NULL(tool);
  cJSON *libs = cJSON_GetObjectItem(tool, "libraries");
  ASSERT_NOT_NULL(libs);
  ASSERT_TRUE(cJSON_GetObjectItem(libs, "libuv") == NULL);
  ASSERT_NOT_NULL(cJSON_GetObjectItem(libs, "openssl"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(libs, "cjson"));
  cJSON_Delete(tool);

  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  ASSERT_NOT_NULL(fp);
  np_identity_print_version(fp, "test_identity_nouv");
  ASSERT_EQ(fclose(fp), 0);
  ASSERT_TRUE(strstr(text, "libuv") == NULL);
  ASSERT_NOT_NULL(strstr(text, "\nopenssl: "));
  ASSERT_NOT_NULL(strstr(text, "\ncjson: "));
  free(text);
  puts("test_identity_nouv: ok");
  return 0;
}
