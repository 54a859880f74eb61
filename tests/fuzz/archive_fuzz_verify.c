/*
 * archive_fuzz_verify.c - libFuzzer target for `netproof-archive verify`.
 *
 * The first input byte picks the layer under attack: even - the rest is the
 * bundle file as is (gzip parsing first); odd - the rest is a tar stream the
 * harness gzips, so mutations reach the tar reader, the path and type
 * checks, the BagIt and evidence checks.  The bytes are handed over as a
 * memfd (/proc/self/fd/N), so verify's own file reading is exercised and
 * nothing touches the disk.  Limits are small so inputs stay fast.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "np_archive.h"
#include "np_gzsink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore_problem(void *ctx, const char *where, const char *reason) {
  (void)ctx;
  (void)where;
  (void)reason;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  int fd = memfd_create("bundle", MFD_CLOEXEC);
  int ok = fd >= 0;
  if (ok && (data[0] & 1)) {
    struct np_gzsink *g = NULL;
    ok = np_gzsink_new(fd, &g) == 0 && np_gzsink_write(g, data + 1, size - 1) == 0 &&
         np_gzsink_finish(g) == 0;
    np_gzsink_free(g);
  } else if (ok) {
    ok = write(fd, data + 1, size - 1) == (ssize_t)(size - 1);
  }
  if (ok) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    struct np_archive_limits lim;
    np_archive_limits_default(&lim);
    lim.max_entries = 2000;
    lim.max_file_bytes = 4u << 20;
    lim.max_total_bytes = 16u << 20;
    struct np_errbuf eb;
    np_archive_verify(path, &lim, ignore_problem, NULL, &eb);
  }
  if (fd >= 0)
    close(fd);
  return 0;
}
