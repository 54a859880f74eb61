/*
 * np_kernel.c - kernel counter snapshots (see np_kernel.h for the sources,
 * the raw-text format and the counter names).
 *
 * Design: a snapshot owns one raw text buffer holding every section exactly
 * as it will be written to disk; each source remembers where its content
 * lies inside that buffer, and the counters are parsed from there.  Taking a
 * snapshot and re-parsing a saved one therefore share every parser, which
 * is what makes np_kernel_parse_raw() reproduce a snapshot exactly.
 *
 * Counters live in a small growable array of (name, int64) pairs in source
 * order, with a hash index built once the snapshot is complete (a
 * self-check looks up a few hundred counters in four snapshots per run,
 * thousands of runs).
 *
 * One liberty with "verbatim": a present source whose content does not end
 * in '\n' gets one appended, so every section header starts a line.  /proc
 * and /sys files always end in '\n', so in practice nothing changes.
 */
#include "np_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Turns one source's content [p, end) into counters; name is the counter
 * name for single-value sources.  0 or NP_ENOMEM: content that does not
 * parse yields fewer counters, never an error. */
typedef int np_kernel_parse_fn(struct np_kernel *k, const char *name,
                               const char *p, const char *end);
static np_kernel_parse_fn np_kernel_parse_table, np_kernel_parse_snmp6,
    np_kernel_parse_softnet, np_kernel_parse_scalar, np_kernel_parse_triple;

/* The sources, in snapshot and raw-text order. */
static const struct np_kernel_source_def {
  const char *path;          /* file read; the section header's path */
  const char *name;          /* counter name (single values) or NULL  */
  np_kernel_parse_fn *parse; /* content -> counters                   */
} np_kernel_sources_[] = {
    {"/proc/net/snmp", NULL, np_kernel_parse_table},
    {"/proc/net/snmp6", NULL, np_kernel_parse_snmp6},
    {"/proc/net/netstat", NULL, np_kernel_parse_table},
    {"/proc/net/softnet_stat", NULL, np_kernel_parse_softnet},
#define NP_KERNEL_SYSCTL_(dir, f, fn)                                          \
  { "/proc/sys/net/" dir "/" f, "sysctl.net." dir "." f, np_kernel_parse_##fn }
    NP_KERNEL_SYSCTL_("core", "rmem_max", scalar),
    NP_KERNEL_SYSCTL_("core", "rmem_default", scalar),
    NP_KERNEL_SYSCTL_("core", "wmem_max", scalar),
    NP_KERNEL_SYSCTL_("core", "wmem_default", scalar),
    NP_KERNEL_SYSCTL_("core", "netdev_max_backlog", scalar),
    NP_KERNEL_SYSCTL_("ipv4", "udp_mem", triple),
    NP_KERNEL_SYSCTL_("ipv4", "udp_rmem_min", scalar),
#undef NP_KERNEL_SYSCTL_
    {"/sys/class/net/lo/mtu", "lo.mtu", np_kernel_parse_scalar},
};
#define NP_KERNEL_NSRC                                                         \
  (sizeof np_kernel_sources_ / sizeof np_kernel_sources_[0])

/* The counters whose change the run records carry (np_kernel_delta_json). */
/* clang-format off */
static const char *const np_kernel_delta_names_[] = {
    "Udp.InDatagrams", "Udp.OutDatagrams", "Udp.RcvbufErrors",
    "Udp.SndbufErrors", "Udp.InErrors", "Udp.NoPorts", "Udp.InCsumErrors",
    "Udp.MemErrors",
    "Udp6.Udp6InDatagrams", "Udp6.Udp6OutDatagrams", "Udp6.Udp6RcvbufErrors",
    "Udp6.Udp6SndbufErrors", "Udp6.Udp6InErrors", "Udp6.Udp6NoPorts",
    "Ip.ReasmReqds", "Ip.ReasmOKs", "Ip.ReasmFails", "Ip.FragCreates",
    "Ip.FragOKs", "Ip.FragFails",
    "Ip6.Ip6ReasmReqds", "Ip6.Ip6ReasmOKs", "Ip6.Ip6ReasmFails",
    "Ip6.Ip6FragCreates", "Ip6.Ip6FragOKs",
    "softnet.processed", "softnet.dropped", "softnet.time_squeeze",
};
/* clang-format on */

#define NP_KERNEL_MAX_FILE (4u << 20) /* no source comes near 4 MiB */
#define NP_KERNEL_HDR "==> "
#define NP_KERNEL_HDR_END " <=="
#define NP_KERNEL_ABSENT " (absent: "

struct np_kernel_src {
  int present;  /* 1 when the content below is the source's text     */
  char *reason; /* why absent (malloc'd), NULL when present          */
  size_t off;   /* content offset within np_kernel.raw               */
  size_t len;   /* content length in bytes                           */
};

struct np_kernel_ctr {
  char *name;    /* "Udp.RcvbufErrors" (in the names arena) */
  size_t len;    /* strlen(name)                            */
  int64_t value; /* as read                                  */
};

/* Counter names live in chunks allocated together (a snapshot has a few
 * hundred short names; one malloc each was most of re-reading one). */
struct np_kernel_chunk {
  struct np_kernel_chunk *next; /* the previous chunk               */
  size_t used, cap;             /* bytes of text[] used / available */
  char text[];                  /* NUL-terminated names             */
};

struct np_kernel {
  char *raw;      /* raw text, NUL-terminated (not counted in raw_len) */
  size_t raw_len; /* bytes of raw text                                 */
  struct np_kernel_src src[NP_KERNEL_NSRC]; /* one per source, in order */
  struct np_kernel_ctr *ctr;                /* counters in source order  */
  size_t n_ctr, cap_ctr;                    /* used / allocated entries  */
  size_t *by_name;    /* hash table of ctr indices + 1 (np_kernel_index);
                         NULL: look up linearly                     */
  size_t by_name_cap; /* its size, a power of two                     */
  struct np_kernel_chunk *names; /* the names arena, newest chunk first */
};

/* A hash of the n bytes of s, eight at a time. */
static uint64_t np_kernel_hash(const char *s, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (; n >= 8; s += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

/* Build k->by_name, an open-addressing table of ctr indices + 1 (0 =
 * empty) with a power-of-two size (left NULL on no memory: lookups stay
 * linear).  A name seen twice keeps its first position, as np_kernel_get
 * always did. */
static void np_kernel_index(struct np_kernel *k) {
  free(k->by_name);
  k->by_name = NULL;
  size_t cap = 16;
  while (cap < 2 * k->n_ctr)
    cap *= 2;
  size_t *t = calloc(cap, sizeof *t);
  if (t == NULL)
    return;
  for (size_t i = 0; i < k->n_ctr; i++) {
    size_t j =
        (size_t)np_kernel_hash(k->ctr[i].name, k->ctr[i].len) & (cap - 1);
    while (t[j] != 0 && strcmp(k->ctr[t[j] - 1].name, k->ctr[i].name) != 0)
      j = (j + 1) & (cap - 1);
    if (t[j] == 0)
      t[j] = i + 1;
  }
  k->by_name = t;
  k->by_name_cap = cap;
}

/* A growable byte buffer for building the raw text. */
struct np_kernel_buf {
  char *p;
  size_t len, cap;
};

static int np_kernel_buf_add(struct np_kernel_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + n + 1 > cap)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
      return NP_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
  return 0;
}

static int np_kernel_buf_str(struct np_kernel_buf *b, const char *s) {
  return np_kernel_buf_add(b, s, strlen(s));
}

/* Append a counter named prefix + name (either may be empty). */
static int np_kernel_add(struct np_kernel *k, const char *prefix,
                         size_t prefix_len, const char *name, size_t name_len,
                         int64_t value) {
  if (k->n_ctr == k->cap_ctr) {
    size_t cap = k->cap_ctr ? 2 * k->cap_ctr : 256;
    struct np_kernel_ctr *c = realloc(k->ctr, cap * sizeof *c);
    if (c == NULL)
      return NP_ENOMEM;
    k->ctr = c;
    k->cap_ctr = cap;
  }
  size_t need = prefix_len + name_len + 1;
  struct np_kernel_chunk *ch = k->names;
  if (ch == NULL || ch->cap - ch->used < need) {
    size_t cap = need > 8192 ? need : 8192;
    if ((ch = malloc(sizeof *ch + cap)) == NULL)
      return NP_ENOMEM;
    ch->next = k->names;
    ch->used = 0;
    ch->cap = cap;
    k->names = ch;
  }
  char *s = ch->text + ch->used;
  ch->used += need;
  memcpy(s, prefix, prefix_len);
  memcpy(s + prefix_len, name, name_len);
  s[prefix_len + name_len] = '\0';
  k->ctr[k->n_ctr].name = s;
  k->ctr[k->n_ctr].len = need - 1;
  k->ctr[k->n_ctr].value = value;
  k->n_ctr++;
  return 0;
}

/* Parse s[0..n) as one integer in base (10 or 16); 0 or NP_EPARSE.  A
 * value outside int64 is NP_EPARSE too (no /proc counter comes close). */
static int np_kernel_int(const char *s, size_t n, int base, int64_t *out) {
  char tmp[32], *end = NULL;
  if (n == 0 || n >= sizeof tmp || s[0] == '+')
    return NP_EPARSE;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  errno = 0;
  long long v = strtoll(tmp, &end, base);
  if (errno != 0 || *end != '\0')
    return NP_EPARSE;
  *out = v;
  return 0;
}

static int np_kernel_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Next whitespace-separated token in [*p, end); 0 when none is left. */
static int np_kernel_token(const char **p, const char *end, const char **tok,
                           size_t *tok_len) {
  const char *s = *p;
  while (s < end && np_kernel_space(*s))
    s++;
  const char *t = s;
  while (s < end && !np_kernel_space(*s))
    s++;
  *p = s;
  *tok = t;
  *tok_len = (size_t)(s - t);
  return s > t;
}

/* The line starting at p (without '\n'); returns where the next one starts. */
static const char *np_kernel_line(const char *p, const char *end,
                                  const char **line_end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *line_end = nl ? nl : end;
  return nl ? nl + 1 : end;
}

/* "Group: a b c\nGroup: 1 2 3\n" pairs (/proc/net/snmp, /proc/net/netstat).
 * A header without a matching value line is skipped; a truncated value line
 * yields the fields it has; a value that is not an integer is skipped. */
static int np_kernel_parse_table(struct np_kernel *k, const char *name0,
                                 const char *p, const char *end) {
  (void)name0;
  while (p < end) {
    const char *h_end, *v_end;
    const char *v = np_kernel_line(p, end, &h_end);
    const char *colon = memchr(p, ':', (size_t)(h_end - p));
    if (colon == NULL || v >= end) {
      p = v;
      continue;
    }
    size_t glen = (size_t)(colon - p) + 1; /* "Group:" */
    const char *next = np_kernel_line(v, end, &v_end);
    if ((size_t)(v_end - v) < glen || memcmp(v, p, glen) != 0) {
      p = v; /* unpaired header: try the next line as a header */
      continue;
    }
    const char *hp = colon + 1, *vp = v + glen, *name, *val;
    size_t name_len, val_len;
    char group[64]; /* "Group." */
    p = next;
    if (glen >= sizeof group)
      continue;
    memcpy(group, v, glen - 1);
    group[glen - 1] = '.';
    while (np_kernel_token(&hp, h_end, &name, &name_len) &&
           np_kernel_token(&vp, v_end, &val, &val_len)) {
      int64_t x;
      int rc = np_kernel_int(val, val_len, 10, &x) == 0
                   ? np_kernel_add(k, group, glen, name, name_len, x)
                   : 0; /* not an integer: no counter */
      if (rc != 0)
        return rc;
    }
  }
  return 0;
}

/* "Ip6InReceives   1" lines (/proc/net/snmp6): the group is the name up to
 * the end of its first run of digits ("Ip6", "Icmp6", "UdpLite6"). */
static int np_kernel_parse_snmp6(struct np_kernel *k, const char *name0,
                                 const char *p, const char *end) {
  (void)name0;
  while (p < end) {
    const char *l_end, *name, *val, *extra;
    size_t name_len, val_len, extra_len;
    const char *next = np_kernel_line(p, end, &l_end);
    const char *lp = p;
    int64_t x;
    p = next;
    if (!np_kernel_token(&lp, l_end, &name, &name_len) ||
        !np_kernel_token(&lp, l_end, &val, &val_len) ||
        np_kernel_token(&lp, l_end, &extra, &extra_len) ||
        np_kernel_int(val, val_len, 10, &x) != 0)
      continue;
    size_t g = 0;
    while (g < name_len && (name[g] < '0' || name[g] > '9'))
      g++;
    while (g < name_len && name[g] >= '0' && name[g] <= '9')
      g++;
    char group[64];
    if (g == name_len || g == 0 || g + 1 > sizeof group) {
      memcpy(group, "snmp6.", 6); /* no digit: keep it, under "snmp6." */
      g = 6;
    } else {
      memcpy(group, name, g);
      group[g++] = '.';
    }
    int rc = np_kernel_add(k, group, g, name, name_len, x);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* One line per CPU of hex columns; processed, dropped, time_squeeze are the
 * first three.  Lines with fewer than three hex columns are skipped. */
static int np_kernel_parse_softnet(struct np_kernel *k, const char *name0,
                                   const char *p, const char *end) {
  static const char *const names[] = {"processed", "dropped", "time_squeeze"};
  int64_t sum[3] = {0, 0, 0};
  int cpus = 0;
  (void)name0;
  while (p < end) {
    const char *l_end, *tok;
    size_t tok_len;
    const char *next = np_kernel_line(p, end, &l_end);
    const char *lp = p;
    int64_t v[3];
    int i = 0;
    p = next;
    for (; i < 3; i++)
      if (!np_kernel_token(&lp, l_end, &tok, &tok_len) ||
          np_kernel_int(tok, tok_len, 16, &v[i]) != 0)
        break;
    if (i < 3)
      continue;
    for (i = 0; i < 3; i++)
      sum[i] += v[i];
    cpus++;
  }
  for (int i = 0; cpus > 0 && i < 3; i++) {
    int rc =
        np_kernel_add(k, "softnet.", 8, names[i], strlen(names[i]), sum[i]);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* One integer (SCALAR) or three (TRIPLE, named .min .pressure .max);
 * anything else in the content means no counter. */
static int np_kernel_parse_values(struct np_kernel *k, const char *name,
                                  int count, const char *p, const char *end) {
  static const char *const parts[] = {".min", ".pressure", ".max"};
  int64_t v[3];
  const char *tok;
  size_t tok_len;
  int i = 0;
  while (np_kernel_token(&p, end, &tok, &tok_len)) {
    if (i == count || np_kernel_int(tok, tok_len, 10, &v[i]) != 0)
      return 0;
    i++;
  }
  if (i != count)
    return 0;
  if (count == 1)
    return np_kernel_add(k, name, strlen(name), "", 0, v[0]);
  for (i = 0; i < count; i++) {
    int rc =
        np_kernel_add(k, name, strlen(name), parts[i], strlen(parts[i]), v[i]);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static int np_kernel_parse_scalar(struct np_kernel *k, const char *name,
                                  const char *p, const char *end) {
  return np_kernel_parse_values(k, name, 1, p, end);
}

static int np_kernel_parse_triple(struct np_kernel *k, const char *name,
                                  const char *p, const char *end) {
  return np_kernel_parse_values(k, name, 3, p, end);
}

/* Parse every present source's content into counters. */
static int np_kernel_parse_all(struct np_kernel *k) {
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++) {
    const char *p = k->raw + k->src[i].off;
    int rc = k->src[i].present
                 ? np_kernel_sources_[i].parse(k, np_kernel_sources_[i].name, p,
                                               p + k->src[i].len)
                 : 0;
    if (rc != 0)
      return rc;
  }
  np_kernel_index(k);
  return 0;
}

/* Append the contents of path to t: 0, a positive errno (the source is
 * absent) or NP_ENOMEM.  The caller frees t->p either way. */
static int np_kernel_read(const char *path, struct np_kernel_buf *t) {
  char chunk[8192];
  ssize_t n;
  int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  while (err == 0 && (n = read(fd, chunk, sizeof chunk)) != 0) {
    if (n < 0)
      err = errno == EINTR ? 0 : errno;
    else if (t->len + (size_t)n > NP_KERNEL_MAX_FILE)
      err = EFBIG;
    else
      err = np_kernel_buf_add(t, chunk, (size_t)n);
  }
  close(fd);
  return err;
}

int np_kernel_take(struct np_kernel **out) {
  struct np_kernel_buf b = {NULL, 0, 0};
  struct np_kernel *k = calloc(1, sizeof *k);
  if (k == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++) {
    struct np_kernel_src *s = &k->src[i];
    struct np_kernel_buf t = {NULL, 0, 0};
    char msg[128], hdr[512];
    int err = np_kernel_read(np_kernel_sources_[i].path, &t);
    int ok = err != NP_ENOMEM;
    if (ok && err != 0)
      ok = (s->reason = strdup(strerror_r(err, msg, sizeof msg))) != NULL;
    if (err == 0)
      snprintf(hdr, sizeof hdr, "==> %s <==\n", np_kernel_sources_[i].path);
    else if (ok)
      snprintf(hdr, sizeof hdr, "==> %s (absent: %s) <==\n",
               np_kernel_sources_[i].path, s->reason);
    ok = ok && np_kernel_buf_str(&b, hdr) == 0;
    s->present = err == 0;
    s->off = b.len;
    if (ok && err == 0 && t.len > 0)
      ok = np_kernel_buf_add(&b, t.p, t.len) == 0 &&
           (t.p[t.len - 1] == '\n' || np_kernel_buf_str(&b, "\n") == 0);
    s->len = b.len - s->off;
    free(t.p);
    if (!ok)
      goto fail_k;
  }
  k->raw = b.p; /* not NULL: every source wrote a header */
  k->raw_len = b.len;
  b.p = NULL;
  if (np_kernel_parse_all(k) != 0)
    goto fail_k;
  *out = k;
  return 0;
fail_k:
  free(b.p);
  np_kernel_free(k);
  return NP_ENOMEM;
}

/* Does the line [p, e) have the shape "==> ... <=="? */
static int np_kernel_is_header(const char *p, const char *e) {
  size_t hl = strlen(NP_KERNEL_HDR), el = strlen(NP_KERNEL_HDR_END);
  return (size_t)(e - p) >= hl + el && memcmp(p, NP_KERNEL_HDR, hl) == 0 &&
         memcmp(e - el, NP_KERNEL_HDR_END, el) == 0;
}

/* Between "==> " and " <==": "path" or "path (absent: reason)".  Sets the
 * source index and the reason's span (NULL when present); 0 or NP_EPARSE. */
static int np_kernel_header(const char *p, const char *e, size_t at,
                            size_t *idx, const char **reason,
                            size_t *reason_len, struct np_errbuf *eb) {
  const char *abs = p;
  size_t al = strlen(NP_KERNEL_ABSENT);
  while (abs + 1 < e && !(abs[0] == ' ' && abs[1] == '('))
    abs++;
  *reason = NULL;
  if (abs + 1 < e) {
    if ((size_t)(e - abs) < al + 1 || memcmp(abs, NP_KERNEL_ABSENT, al) != 0 ||
        e[-1] != ')')
      return np_errbuf_set(eb, NP_EPARSE,
                           "kernel raw text: offset %zu: malformed "
                           "'(absent: reason)' in section header",
                           at);
    *reason = abs + al;
    *reason_len = (size_t)(e - 1 - *reason);
    e = abs;
  }
  for (*idx = 0; *idx < NP_KERNEL_NSRC; (*idx)++)
    if (strlen(np_kernel_sources_[*idx].path) == (size_t)(e - p) &&
        memcmp(np_kernel_sources_[*idx].path, p, (size_t)(e - p)) == 0)
      return 0;
  return np_errbuf_set(eb, NP_EPARSE,
                       "kernel raw text: offset %zu: unknown source '%.*s'", at,
                       (int)(e - p), p);
}

int np_kernel_parse_raw(const char *text, size_t len, struct np_kernel **out,
                        struct np_errbuf *eb) {
  struct np_kernel *k = calloc(1, sizeof *k);
  size_t next = 0; /* first source not yet seen */
  int rc = NP_ENOMEM;
  if (k == NULL || (k->raw = malloc(len + 1)) == NULL)
    goto fail_k;
  memcpy(k->raw, text, len);
  k->raw[len] = '\0';
  k->raw_len = len;
  const char *base = k->raw, *end = k->raw + len, *p = base;
  if (len == 0) {
    rc = np_errbuf_set(eb, NP_EPARSE, "kernel raw text: empty");
    goto fail_k;
  }
  while (p < end) {
    const char *h_end, *reason = NULL, *c = np_kernel_line(p, end, &h_end),
                       *q = c;
    size_t idx = 0, reason_len = 0, at = (size_t)(p - base);
    if (!np_kernel_is_header(p, h_end))
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "kernel raw text: offset %zu: expected a section "
                         "header '==> <path> <=='",
                         at);
    else if (h_end == end)
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "kernel raw text: offset %zu: section header "
                         "without a newline",
                         at);
    else
      rc = np_kernel_header(p + strlen(NP_KERNEL_HDR),
                            h_end - strlen(NP_KERNEL_HDR_END), at, &idx,
                            &reason, &reason_len, eb);
    if (rc == 0 && idx < next)
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "kernel raw text: offset %zu: section '%s' repeated "
                         "or out of order",
                         at, np_kernel_sources_[idx].path);
    if (rc != 0)
      goto fail_k;
    next = idx + 1;
    /* the content runs to the next header line or the end of the text */
    while (q < end) {
      const char *l_end, *after = np_kernel_line(q, end, &l_end);
      if (np_kernel_is_header(q, l_end))
        break;
      q = after;
    }
    k->src[idx].off = (size_t)(c - base);
    k->src[idx].len = (size_t)(q - c);
    k->src[idx].present = reason == NULL;
    if (reason != NULL && q > c) {
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "kernel raw text: offset %zu: absent source '%s' "
                         "has content",
                         (size_t)(c - base), np_kernel_sources_[idx].path);
      goto fail_k;
    }
    rc = NP_ENOMEM;
    if (reason != NULL &&
        (k->src[idx].reason = strndup(reason, reason_len)) == NULL)
      goto fail_k;
    p = q;
  }
  rc = NP_ENOMEM;
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++) /* sections not in the text */
    if (!k->src[i].present && k->src[i].reason == NULL &&
        (k->src[i].reason = strdup("not in raw text")) == NULL)
      goto fail_k;
  rc = np_kernel_parse_all(k);
  if (rc != 0)
    goto fail_k;
  *out = k;
  return 0;
fail_k:
  np_kernel_free(k);
  return rc;
}

void np_kernel_free(struct np_kernel *k) {
  if (k == NULL)
    return;
  for (struct np_kernel_chunk *ch = k->names, *next; ch != NULL; ch = next) {
    next = ch->next;
    free(ch);
  }
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++)
    free(k->src[i].reason);
  free(k->ctr);
  free(k->by_name);
  free(k->raw);
  free(k);
}

const char *np_kernel_raw(const struct np_kernel *k, size_t *len) {
  if (len != NULL)
    *len = k->raw_len;
  return k->raw;
}

int np_kernel_get(const struct np_kernel *k, const char *name, int64_t *out) {
  if (k->by_name != NULL) {
    size_t m = k->by_name_cap - 1;
    for (size_t j = (size_t)np_kernel_hash(name, strlen(name)) & m;
         k->by_name[j] != 0; j = (j + 1) & m)
      if (strcmp(k->ctr[k->by_name[j] - 1].name, name) == 0) {
        *out = k->ctr[k->by_name[j] - 1].value;
        return 0;
      }
    return NP_ENOENT;
  }
  for (size_t i = 0; i < k->n_ctr; i++)
    if (strcmp(k->ctr[i].name, name) == 0) {
      *out = k->ctr[i].value;
      return 0;
    }
  return NP_ENOENT;
}

cJSON *np_kernel_to_json(const struct np_kernel *k) {
  cJSON *root = cJSON_CreateObject();
  cJSON *sources = cJSON_AddObjectToObject(root, "sources");
  cJSON *counters = cJSON_AddObjectToObject(root, "counters");
  char buf[600];
  if (counters == NULL) /* also covers root or sources being NULL */
    goto fail_root;
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++) {
    const char *s = "present";
    if (!k->src[i].present) {
      snprintf(buf, sizeof buf, "absent: %s",
               k->src[i].reason ? k->src[i].reason : "unknown");
      s = buf;
    }
    if (cJSON_AddStringToObject(sources, np_kernel_sources_[i].path, s) == NULL)
      goto fail_root;
  }
  for (size_t i = 0; i < k->n_ctr; i++) {
    /* a name seen twice (only in damaged text): the first wins, as in get */
    if (cJSON_GetObjectItemCaseSensitive(counters, k->ctr[i].name) != NULL)
      continue;
    if (cJSON_AddNumberToObject(counters, k->ctr[i].name,
                                (double)k->ctr[i].value) == NULL)
      goto fail_root;
  }
  return root;
fail_root:
  cJSON_Delete(root);
  return NULL;
}

cJSON *np_kernel_delta_json(const struct np_kernel *before,
                            const struct np_kernel *after) {
  cJSON *d = cJSON_CreateObject();
  if (d == NULL)
    return NULL;
  for (size_t i = 0;
       i < sizeof np_kernel_delta_names_ / sizeof np_kernel_delta_names_[0];
       i++) {
    int64_t a, b;
    const char *name = np_kernel_delta_names_[i];
    if (np_kernel_get(before, name, &b) != 0 ||
        np_kernel_get(after, name, &a) != 0)
      continue;
    if (cJSON_AddNumberToObject(d, name, (double)(a - b)) == NULL) {
      cJSON_Delete(d);
      return NULL;
    }
  }
  return d;
}

const char *np_kernel_delta_name(size_t i) {
  return i < sizeof np_kernel_delta_names_ / sizeof np_kernel_delta_names_[0]
             ? np_kernel_delta_names_[i]
             : NULL;
}

int np_kernel_from_json(const cJSON *snapshot, struct np_kernel **out,
                        struct np_errbuf *eb) {
  const cJSON *sources = cJSON_GetObjectItemCaseSensitive(snapshot, "sources");
  const cJSON *counters =
      cJSON_GetObjectItemCaseSensitive(snapshot, "counters");
  if (!cJSON_IsObject(sources) || !cJSON_IsObject(counters))
    return np_errbuf_set(eb, NP_EPARSE,
                         "kernel snapshot: no \"sources\" and \"counters\" "
                         "objects");
  struct np_kernel *k = calloc(1, sizeof *k);
  int rc = NP_ENOMEM;
  if (k == NULL || (k->raw = strdup("")) == NULL)
    goto fail_k;
  for (size_t i = 0; i < NP_KERNEL_NSRC; i++) {
    const cJSON *s =
        cJSON_GetObjectItemCaseSensitive(sources, np_kernel_sources_[i].path);
    const char *v = cJSON_IsString(s) ? s->valuestring : "absent: not listed";
    k->src[i].present = strcmp(v, "present") == 0;
    if (!k->src[i].present) {
      if (strncmp(v, "absent: ", 8) != 0) {
        rc = np_errbuf_set(eb, NP_EPARSE,
                           "kernel snapshot: /sources/%s: \"%s\" is neither "
                           "\"present\" nor \"absent: reason\"",
                           np_kernel_sources_[i].path, v);
        goto fail_k;
      }
      rc = NP_ENOMEM;
      if ((k->src[i].reason = strdup(v + 8)) == NULL)
        goto fail_k;
    }
  }
  const cJSON *c;
  cJSON_ArrayForEach(c, counters) {
    double v = c->valuedouble;
    if (!cJSON_IsNumber(c) || !(v > -9.2e18 && v < 9.2e18) ||
        v != (double)(int64_t)v) {
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "kernel snapshot: /counters/%s: not an integer",
                         c->string);
      goto fail_k;
    }
    if ((rc = np_kernel_add(k, "", 0, c->string, strlen(c->string),
                            (int64_t)v)) != 0)
      goto fail_k;
  }
  np_kernel_index(k);
  *out = k;
  return 0;
fail_k:
  np_kernel_free(k);
  return rc;
}
