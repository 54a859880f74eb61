/*
 * np_relay_link.c - the last line of a relay's stats lines file, and the
 * routes of given clients in it (see np_relay_link.h).  The file is only
 * appended to, one write(2) per line, so the last '\n'-terminated line is
 * complete; a line still being written has no '\n' yet and is skipped.
 */
#include "np_relay_link.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_addr.h"
#include "np_json.h"
#include "np_relay.h"
#include "np_schema.h"

void np_relay_link_line_free(struct np_relay_link_line *l) {
  if (l == NULL)
    return;
  cJSON_Delete(l->doc);
  memset(l, 0, sizeof *l);
}

/* Up to the last NP_RELAY_LINK_MAX_LINE + 1 bytes of fd into *buf. */
static int read_tail(int fd, char **buf, size_t *len) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return np_err_from_errno(errno);
  size_t want = (size_t)st.st_size;
  off_t off = 0;
  if (want > NP_RELAY_LINK_MAX_LINE + 1) {
    off = st.st_size - (off_t)(NP_RELAY_LINK_MAX_LINE + 1);
    want = NP_RELAY_LINK_MAX_LINE + 1;
  }
  char *b = malloc(want + 1);
  if (b == NULL)
    return NP_ENOMEM;
  size_t got = 0;
  while (got < want) {
    ssize_t n = pread(fd, b + got, want - got, off + (off_t)got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  *buf = b;
  *len = got;
  return 0;
}

int np_relay_link_last(const char *path, struct np_relay_link_line *out,
                       struct np_errbuf *eb) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
  }
  char *buf = NULL;
  size_t len = 0;
  int rc = read_tail(fd, &buf, &len);
  close(fd);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "%s: %s", path, np_strerror(rc));
  size_t end = len;
  while (end > 0 && buf[end - 1] != '\n')
    end--; /* drop a line still being written */
  if (end == 0) {
    free(buf);
    return np_errbuf_set(eb, NP_EAGAIN, "%s: no complete line yet", path);
  }
  size_t start = end - 1;
  while (start > 0 && buf[start - 1] != '\n')
    start--;
  if (start == 0 && len > NP_RELAY_LINK_MAX_LINE) {
    free(buf);
    return np_errbuf_set(eb, NP_ETOOBIG, "%s: last line over %zu bytes",
                         path, NP_RELAY_LINK_MAX_LINE);
  }
  struct np_relay_link_line l;
  memset(&l, 0, sizeof l);
  struct np_errbuf inner = {{0}};
  rc = np_sha256_buf(buf + start, end - 1 - start, l.sha256);
  if (rc == 0)
    rc = np_json_parse(buf + start, end - 1 - start, NULL, &l.doc, &inner);
  free(buf);
  if (rc == 0 && (rc = np_schema_validate_tagged(l.doc, &inner)) == 0 &&
      (!cJSON_IsNumber(cJSON_GetObjectItem(l.doc, "seq")) ||
       !cJSON_IsNumber(cJSON_GetObjectItem(l.doc, "mono_ns"))))
    rc = np_errbuf_set(&inner, NP_ESCHEMA, "no seq and mono_ns: not a "
                                           "stats line");
  if (rc != 0) {
    cJSON_Delete(l.doc);
    return np_errbuf_set(eb, rc, "%s: last line: %s", path,
                         inner.msg[0] ? inner.msg : np_strerror(rc));
  }
  l.seq = (uint64_t)np_json_get_number(l.doc, "seq", 0);
  l.mono_ns = (uint64_t)np_json_get_number(l.doc, "mono_ns", 0);
  *out = l;
  return 0;
}

static void counts_from(const cJSON *o, struct np_relay_counts *acc) {
#define F(name) acc->name += (uint64_t)np_json_get_number(o, #name, 0);
  NP_RELAY_COUNT_FIELDS(F)
#undef F
}

unsigned np_relay_link_routes(const cJSON *doc,
                              const struct sockaddr_storage *clients,
                              unsigned n,
                              struct np_relay_counts out[NP_RELAY_DIRS],
                              uint64_t *peak_bytes, uint64_t *peak_packets,
                              cJSON **routes) {
  static const char *const dname[NP_RELAY_DIRS] = {"c2s", "s2c"};
  unsigned found = 0;
  memset(out, 0, NP_RELAY_DIRS * sizeof *out);
  *peak_bytes = *peak_packets = 0;
  cJSON *keep = routes ? cJSON_CreateArray() : NULL;
  const cJSON *ro;
  cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(doc, "routes")) {
    const char *client = np_json_get_string(ro, "client", NULL);
    struct np_addr a;
    if (client == NULL || np_addr_parse("client", client, 0, &a, NULL) != 0)
      continue;
    unsigned k = 0;
    while (k < n && !np_addr_sa_equal((const struct sockaddr *)&a.ss,
                                         (const struct sockaddr *)&clients[k]))
      k++;
    if (k == n)
      continue;
    found++;
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      counts_from(cJSON_GetObjectItemCaseSensitive(ro, dname[d]), &out[d]);
    *peak_bytes += (uint64_t)np_json_get_number(ro, "peak_queue_bytes", 0);
    *peak_packets += (uint64_t)np_json_get_number(ro, "peak_queue_packets", 0);
    if (keep)
      cJSON_AddItemToArray(keep, cJSON_Duplicate(ro, 1));
  }
  if (routes)
    *routes = keep;
  return found;
}
