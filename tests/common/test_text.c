/* test_text.c - terminal-safe text: controls (C0, DEL, C1) and bytes that
 * are not UTF-8 shown as \xNN, UTF-8 kept, truncation at whole escapes. */
#include <stdlib.h>
#include <unistd.h>

#include "np_text.h"
#include "np_test.h"

static void test_safe(void) {
  char out[128];
  np_text_safe("a\x1b[2J\nnetproof-report: self-check clean", out, sizeof out);
  ASSERT_STR_EQ(out, "a\\x1b[2J\\x0anetproof-report: self-check clean");
  np_text_safe("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", out, sizeof out);
  ASSERT_STR_EQ(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e");
  /* DEL, a C1 CSI (U+009B), a stray continuation byte, an overlong '/' */
  np_text_safe("\x7f|\xc2\x9b" "2J|\x80|\xc0\xaf|\r", out, sizeof out);
  ASSERT_STR_EQ(out, "\\x7f|\\xc2\\x9b2J|\\x80|\\xc0\\xaf|\\x0d");
  /* U+00A0 is text, not a control */
  np_text_safe("\xc2\xa0", out, sizeof out);
  ASSERT_STR_EQ(out, "\xc2\xa0");
  /* whole escapes only */
  ASSERT_EQ(np_text_safe("ab\x1b", out, 5), 2);
  ASSERT_STR_EQ(out, "ab");
  ASSERT_EQ(np_text_safe("ab", out, 1), 0);
}

static void test_printf(void) {
  char path[] = "/tmp/np_test_text_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_TRUE(fd >= 0);
  FILE *fp = fdopen(fd, "w+");
  ASSERT_NOT_NULL(fp);
  np_text_printf(fp, "%s: %s\n", "f\x1b]0;x\x07", "two\nlines");
  rewind(fp);
  char line[256];
  ASSERT_NOT_NULL(fgets(line, sizeof line, fp));
  ASSERT_STR_EQ(line, "f\\x1b]0;x\\x07: two\\x0alines\n");
  ASSERT_TRUE(fgets(line, sizeof line, fp) == NULL);
  fclose(fp);
  unlink(path);
}

int main(void) {
  test_safe();
  test_printf();
  puts("test_text: ok");
  return 0;
}
