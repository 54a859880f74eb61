/*
 * test_report_fmt.c - locale-free number formatting for tables and charts.
 */
#include <math.h>

#include "np_report_fmt.h"
#include "np_test.h"

int main(void) {
  char b[64];
  np_fmt_num(b, sizeof b, 92515.4, 0);
  ASSERT_STR_EQ(b, "92,515");
  np_fmt_num(b, sizeof b, 1234567.891, 2);
  ASSERT_STR_EQ(b, "1,234,567.89");
  np_fmt_num(b, sizeof b, 207.79, 2);
  ASSERT_STR_EQ(b, "207.79");
  np_fmt_num(b, sizeof b, -12411, 0);
  ASSERT_STR_EQ(b, "-12,411");
  np_fmt_num(b, sizeof b, -0.001, 2);
  ASSERT_STR_EQ(b, "0.00");
  np_fmt_num(b, sizeof b, NAN, 1);
  ASSERT_STR_EQ(b, "-");
  np_fmt_num(b, sizeof b, 100, 0);
  ASSERT_STR_EQ(b, "100");
  np_fmt_bytes(b, sizeof b, 16777216);
  ASSERT_STR_EQ(b, "16 MiB");
  np_fmt_bytes(b, sizeof b, 262144);
  ASSERT_STR_EQ(b, "256 KiB");
  np_fmt_bytes(b, sizeof b, 1472.0 * 64 * 16);
  ASSERT_STR_EQ(b, "1.44 MiB");
  np_fmt_bytes(b, sizeof b, 512);
  ASSERT_STR_EQ(b, "512 B");
  np_fmt_range(b, sizeof b, 767, 767, 767, 0);
  ASSERT_STR_EQ(b, "767");
  np_fmt_range(b, sizeof b, 895, 800, 959, 0);
  ASSERT_STR_EQ(b, "895 (800-959)");
  /* one spelling of the microsecond, bit rates in Mbit/s (issue 28) */
  double k = 0;
  ASSERT_STR_EQ(np_fmt_unit("us", &k), "\xce\xbcs");
  ASSERT_TRUE(k == 1);
  ASSERT_STR_EQ(np_fmt_unit("\xc2\xb5s", &k), "\xce\xbcs");
  ASSERT_STR_EQ(np_fmt_unit("bit/s", &k), "Mbit/s");
  ASSERT_TRUE(k == 1e-6);
  ASSERT_STR_EQ(np_fmt_unit("datagrams", &k), "datagrams");
  ASSERT_TRUE(k == 1);
  ASSERT_STR_EQ(np_fmt_unit(NULL, &k), "");
  puts("test_report_fmt: ok");
  return 0;
}
