/* test_sha256.c - known-answer tests (FIPS 180-2 vectors), streaming in
 * odd-sized pieces equals one-shot, files equal buffers. */
#include <stdlib.h>
#include <unistd.h>

#include "np_sha256.h"
#include "np_test.h"

static void test_vectors(void) {
  char hex[NP_SHA256_HEX_SIZE];
  ASSERT_OK(np_sha256_buf("", 0, hex));
  ASSERT_STR_EQ(hex,
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  ASSERT_OK(np_sha256_buf("abc", 3, hex));
  ASSERT_STR_EQ(hex,
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  ASSERT_OK(np_sha256_buf(m, strlen(m), hex));
  ASSERT_STR_EQ(hex,
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_stream_and_file(void) {
  size_t n = 1000003;
  unsigned char *buf = malloc(n);
  ASSERT_NOT_NULL(buf);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    buf[i] = (unsigned char)x;
  }
  char one[NP_SHA256_HEX_SIZE], streamed[NP_SHA256_HEX_SIZE],
      filed[NP_SHA256_HEX_SIZE];
  ASSERT_OK(np_sha256_buf(buf, n, one));
  struct np_sha256 *s = NULL;
  ASSERT_OK(np_sha256_new(&s));
  for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 + 1) {
    size_t len = step < n - off ? step : n - off;
    ASSERT_OK(np_sha256_update(s, buf + off, len));
  }
  ASSERT_OK(np_sha256_final(s, streamed));
  np_sha256_free(s);
  np_sha256_free(NULL);
  ASSERT_STR_EQ(one, streamed);

  char path[] = "/tmp/np_sha256_testXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, buf, n), (ssize_t)n);
  close(fd);
  uint64_t size = 0;
  ASSERT_OK(np_sha256_file(path, filed, &size, NULL));
  ASSERT_STR_EQ(one, filed);
  ASSERT_UINT_EQ(size, n);
  unlink(path);
  struct np_errbuf eb;
  ASSERT_EQ(np_sha256_file(path, filed, NULL, &eb), NP_ENOENT);
  ASSERT_TRUE(strstr(eb.msg, path) != NULL);
  free(buf);
}

int main(void) {
  test_vectors();
  test_stream_and_file();
  puts("test_sha256: ok");
  return 0;
}
