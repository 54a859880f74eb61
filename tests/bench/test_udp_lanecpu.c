/* Unit tests of the client-saturation flag (bench/udp/np_udp_lanecpu.h,
 * common/np_busy.h): the busiest lane decides, the 0.90 edge, unreadable
 * clocks are left out, and the record part carries what the rule used. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "np_busy.h"
#include "np_test.h"
#include "np_udp_lanecpu.h"

static void test_busiest_lane_decides(void) {
  int64_t start[2] = {0, 0}, used[2] = {300000000, 1900000000};
  struct np_udp_lanecpu lc = {.n = 2, .start_ns = start, .used_ns = used};
  double b;
  /* 1.9 s of 2 s on lane 1: 0.95, saturated although the mean is 0.55 */
  ASSERT_TRUE(np_udp_lanecpu_saturated(&lc, 2.0, &b));
  ASSERT_TRUE(fabs(b - 0.95) < 1e-12);
  used[1] = 1790000000; /* 0.895: below the edge */
  ASSERT_TRUE(!np_udp_lanecpu_saturated(&lc, 2.0, &b));
  used[1] = 1800000000; /* exactly 0.90: at the edge counts */
  ASSERT_TRUE(np_udp_lanecpu_saturated(&lc, 2.0, &b));
  ASSERT_TRUE(np_busy_saturated(NP_BUSY_SATURATED));
  ASSERT_TRUE(!np_busy_saturated(0.8999));
}

static void test_unreadable_clock_and_empty_window(void) {
  int64_t start[2] = {0, -1}, used[2] = {100000000, -1};
  struct np_udp_lanecpu lc = {.n = 2, .start_ns = start, .used_ns = used};
  double b;
  ASSERT_TRUE(!np_udp_lanecpu_saturated(&lc, 1.0, &b));
  ASSERT_TRUE(fabs(b - 0.1) < 1e-12);
  ASSERT_TRUE(!np_udp_lanecpu_saturated(&lc, 0.0, &b)); /* no window */
  ASSERT_TRUE(b == 0.0);
  cJSON *o = np_udp_lanecpu_json(&lc, 1.0);
  ASSERT_NOT_NULL(o);
  cJSON *lanes = cJSON_GetObjectItemCaseSensitive(o, "lane_cpu_seconds");
  ASSERT_EQ(cJSON_GetArraySize(lanes), 2);
  ASSERT_TRUE(cJSON_IsNull(cJSON_GetArrayItem(lanes, 1)));
  ASSERT_TRUE(cJSON_GetArrayItem(lanes, 0)->valuedouble == 0.1);
  ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "client_saturated")));
  ASSERT_TRUE(strcmp(cJSON_GetObjectItemCaseSensitive(o, "rule")->valuestring,
                     NP_BUSY_RULE) == 0);
  cJSON_Delete(o);
}

int main(void) {
  test_busiest_lane_decides();
  test_unreadable_clock_and_empty_window();
  return 0;
}
