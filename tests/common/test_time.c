/* test_time - RFC 3339 millisecond timestamps: format, parse, both forms. */
#include "np_test.h"

#include "np_err.h"
#include "np_time.h"

static void test_format(void) {
  char b[NP_TIME_TEXT_MAX];
  np_time_utc_format(0, b, sizeof b);
  ASSERT_STR_EQ(b, "1970-01-01T00:00:00.000Z");
  np_time_utc_format(1796117269123LL, b, sizeof b);
  ASSERT_STR_EQ(b, "2026-12-01T09:27:49.123Z");
  char small[10] = "x";
  np_time_utc_format(0, small, sizeof small);
  ASSERT_STR_EQ(small, "");
  np_time_utc_now(b, sizeof b);
  ASSERT_EQ(strlen(b), 24);
}

static void test_parse(void) {
  int64_t ms = -1;
  ASSERT_EQ(np_time_parse("2026-12-01T09:27:49.123Z", &ms), 0);
  ASSERT_EQ(ms, 1796117269123LL);
  ASSERT_EQ(np_time_parse("2026-12-01T09:27:49Z", &ms), 0);
  ASSERT_EQ(ms, 1796117269000LL);
  ASSERT_EQ(np_time_parse("2026-12-01T09:27:49.5Z", &ms), 0);
  ASSERT_EQ(ms, 1796117269500LL);
  ASSERT_EQ(np_time_parse("2024-02-29T00:00:00.000Z", &ms), 0);
  static const char *const bad[] = {
      "", "2026-12-01", "2026-12-01T09:27:49", "2026-12-01T09:27:49.Z",
      "2026-12-01T09:27:49+00:00", "2026-13-01T09:27:49Z",
      "2025-02-29T00:00:00Z", "2026-12-01t09:27:49Z", "2026-12-01T09:27:49Zx",
      "2026-12-01T24:00:00Z", "2026-12-01T09:27:49.1234567890Z"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ms = 7;
    ASSERT_EQ(np_time_parse(bad[i], &ms), NP_EPARSE);
    ASSERT_EQ(ms, 7);
  }
  ASSERT_EQ(np_time_parse(NULL, &ms), NP_EPARSE);
}

static void test_roundtrip(void) {
  char b[NP_TIME_TEXT_MAX];
  int64_t v[] = {0, 1, 999, 1000, 951782400000LL, 4102444799999LL};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    int64_t back = -1;
    np_time_utc_format(v[i], b, sizeof b);
    ASSERT_EQ(np_time_parse(b, &back), 0);
    ASSERT_EQ(back, v[i]);
  }
  ASSERT_TRUE(np_time_mono_ns() > 0);
}

int main(void) {
  test_format();
  test_parse();
  test_roundtrip();
  puts("test_time: ok");
  return 0;
}
