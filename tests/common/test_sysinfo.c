/*
 * test_sysinfo.c - np_sysinfo: the machine object has every documented key
 * with the documented type (or null), and the short name is [a-z0-9-]+.
 */
#include "np_sysinfo.h"
#include "np_test.h"

/* key must exist and be null or satisfy is_type. */
static void expect_key(const cJSON *o, const char *key,
                       cJSON_bool (*is_type)(const cJSON *)) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (v == NULL)
    NP_TEST_FAIL_("machine object lacks \"%s\"", key);
  if (!cJSON_IsNull(v) && !is_type(v))
    NP_TEST_FAIL_("machine.%s has the wrong type", key);
}

static void test_machine_json(void) {
  static const char *const order[] = {
      "hostname",       "cpu_model",      "logical_cores", "mem_total_bytes",
      "kernel_release", "os_pretty_name", "arch",          "hypervisor",
      "clocksource",    "cpu_governor",   "turbo",         "loadavg",
      "vmstat"};
  cJSON *o = np_sysinfo_machine_json();
  ASSERT_NOT_NULL(o);
  char *text = cJSON_Print(o);
  ASSERT_NOT_NULL(text);
  printf("%s\n", text);
  free(text);

  /* every documented key, in the documented order, nothing else */
  ASSERT_EQ(cJSON_GetArraySize(o), sizeof order / sizeof order[0]);
  const cJSON *item = o->child;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++, item = item->next)
    ASSERT_STR_EQ(item->string, order[i]);

  expect_key(o, "hostname", cJSON_IsString);
  expect_key(o, "cpu_model", cJSON_IsString);
  expect_key(o, "mem_total_bytes", cJSON_IsNumber);
  expect_key(o, "kernel_release", cJSON_IsString);
  expect_key(o, "os_pretty_name", cJSON_IsString);
  expect_key(o, "arch", cJSON_IsString);
  expect_key(o, "hypervisor", cJSON_IsBool);
  expect_key(o, "clocksource", cJSON_IsString);
  expect_key(o, "cpu_governor", cJSON_IsString);
  expect_key(o, "turbo", cJSON_IsObject);
  expect_key(o, "loadavg", cJSON_IsArray);
  expect_key(o, "vmstat", cJSON_IsObject);

  const cJSON *cores = cJSON_GetObjectItemCaseSensitive(o, "logical_cores");
  ASSERT_TRUE(cJSON_IsNumber(cores));
  ASSERT_GT(cores->valuedouble, 0);

#ifdef __linux__
  /* On Linux these come from files that always exist. */
  ASSERT_TRUE(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "hostname")));
  ASSERT_TRUE(
      cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "kernel_release")));
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(o, "mem_total_bytes");
  ASSERT_TRUE(cJSON_IsNumber(mem));
  ASSERT_GT(mem->valuedouble, 1 << 20);
  const cJSON *load = cJSON_GetObjectItemCaseSensitive(o, "loadavg");
  ASSERT_TRUE(cJSON_IsArray(load));
  ASSERT_EQ(cJSON_GetArraySize(load), 3);
  const cJSON *vm = cJSON_GetObjectItemCaseSensitive(o, "vmstat");
  ASSERT_TRUE(cJSON_IsObject(vm));
  ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(vm, "pswpin") != NULL);
  ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(vm, "pswpout") != NULL);
#endif

  const cJSON *turbo = cJSON_GetObjectItemCaseSensitive(o, "turbo");
  if (cJSON_IsObject(turbo)) {
    ASSERT_EQ(cJSON_GetArraySize(turbo), 1);
    ASSERT_TRUE(
        cJSON_GetObjectItemCaseSensitive(turbo, "intel_no_turbo") != NULL ||
        cJSON_GetObjectItemCaseSensitive(turbo, "cpufreq_boost") != NULL);
  }
  cJSON_Delete(o);
}

static void test_short_name(void) {
  char name[256];
  ASSERT_OK(np_sysinfo_short_name(name, sizeof name));
  printf("short name: %s\n", name);
  ASSERT_GT(strlen(name), 0);
  ASSERT_EQ(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-"),
            strlen(name));
  ASSERT_TRUE(strchr(name, '.') == NULL);

  char tiny[1];
  ASSERT_EQ(np_sysinfo_short_name(tiny, sizeof tiny), NP_ERANGE);
  ASSERT_EQ(np_sysinfo_short_name(NULL, 8), NP_EINVAL);
}

int main(void) {
  test_machine_json();
  test_short_name();
  puts("test_sysinfo: ok");
  return 0;
}
