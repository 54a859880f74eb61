/*
 * np_gzsink.c - ISA-L gzip writer (see np_gzsink.h).  Input is gathered in
 * 1 MiB chunks so igzip works on large buffers whatever block size the
 * tar writer uses.
 */
#include "np_gzsink.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>

#include "np_err.h"

#define SINK_IN (1u << 20)
#define SINK_OUT (1u << 20)

struct np_gzsink {
  int fd;
  struct isal_zstream zs;
  uint8_t *lvl;  /* level-1 working memory */
  uint8_t *in;   /* SINK_IN bytes of pending input */
  size_t nin;
  uint8_t *out;  /* SINK_OUT bytes of compressed output */
};

int np_gzsink_new(int fd, struct np_gzsink **out) {
  struct np_gzsink *g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NP_ENOMEM;
  g->fd = fd;
  g->lvl = malloc(ISAL_DEF_LVL1_DEFAULT);
  g->in = malloc(SINK_IN);
  g->out = malloc(SINK_OUT);
  if (g->lvl == NULL || g->in == NULL || g->out == NULL) {
    np_gzsink_free(g);
    return NP_ENOMEM;
  }
  isal_deflate_init(&g->zs);
  g->zs.level = 1;
  g->zs.level_buf = g->lvl;
  g->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
  g->zs.gzip_flag = IGZIP_GZIP;
  *out = g;
  return 0;
}

void np_gzsink_free(struct np_gzsink *g) {
  if (g == NULL)
    return;
  free(g->lvl);
  free(g->in);
  free(g->out);
  free(g);
}

static int sink_write_all(int fd, const uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return np_err_from_errno(errno);
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Compress the pending input; with last, finish the stream. */
static int sink_deflate(struct np_gzsink *g, int last) {
  struct isal_zstream *zs = &g->zs;
  zs->next_in = g->in;
  zs->avail_in = (uint32_t)g->nin;
  zs->end_of_stream = (uint16_t)(last != 0);
  do {
    zs->next_out = g->out;
    zs->avail_out = SINK_OUT;
    if (isal_deflate(zs) != COMP_OK)
      return NP_EIO;
    int rc = sink_write_all(g->fd, g->out, SINK_OUT - zs->avail_out);
    if (rc != 0)
      return rc;
  } while (zs->avail_in > 0 ||
           (last && zs->internal_state.state != ZSTATE_END));
  g->nin = 0;
  return 0;
}

int np_gzsink_write(struct np_gzsink *g, const void *buf, size_t len) {
  const uint8_t *p = buf;
  while (len > 0) {
    size_t take = SINK_IN - g->nin < len ? SINK_IN - g->nin : len;
    memcpy(g->in + g->nin, p, take);
    g->nin += take;
    p += take;
    len -= take;
    if (g->nin == SINK_IN) {
      int rc = sink_deflate(g, 0);
      if (rc != 0)
        return rc;
    }
  }
  return 0;
}

int np_gzsink_finish(struct np_gzsink *g) { return sink_deflate(g, 1); }
