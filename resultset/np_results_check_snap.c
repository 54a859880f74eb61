/*
 * np_results_check_snap.c - the set's content-addressed kernel snapshots
 * (np_ksnap.h, docs/formats.md "Kernel snapshots"): every file of
 * kernel-snapshots/ hashes to its name, every reference of a cmd.txt or
 * of a record's kernel.before / kernel.after resolves to one of them, and
 * every one of them is referred to.  The
 * folder sorts before runs/, so each snapshot is here before the first
 * repetition that refers to it; memory: the set's distinct snapshots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ksnap.h"
#include "np_results_check_int.h"
#include "np_sha256.h"

int np_chk__snap_add(struct np_results_check *c, const char *path,
                    const void *data, size_t len) {
  char hex[NP_SHA256_HEX_SIZE], got[NP_SHA256_HEX_SIZE];
  if (!np_ksnap_name(path, hex)) {
    np_chk__problem(c, path, "",
                    "not a kernel snapshot (" NP_KSNAP_DIR "/<sha256 of the "
                    "text, 64 lowercase hex digits>.txt)");
    return 0;
  }
  if (c->nsnaps == c->capsnaps) {
    size_t cap = c->capsnaps ? 2 * c->capsnaps : 64;
    struct np_chk_snap *n = realloc(c->snaps, cap * sizeof *n);
    if (n == NULL)
      return NP_ENOMEM;
    c->snaps = n;
    c->capsnaps = cap;
  }
  struct np_chk_snap *s = &c->snaps[c->nsnaps++];
  memset(s, 0, sizeof *s);
  snprintf(s->hex, sizeof s->hex, "%s", hex);
  int rc = np_sha256_buf(data, len, got);
  if (rc != 0)
    return rc;
  if (strcmp(got, hex) != 0) {
    np_chk__problem(c, path, "",
                    "its content's SHA-256 is %s, not the one its name says "
                    "(a snapshot changed after it was stored)",
                    got);
    return 0;
  }
  if ((s->data = malloc(len + 1)) == NULL)
    return NP_ENOMEM;
  memcpy(s->data, data, len);
  s->data[len] = '\0';
  s->len = len;
  return 0;
}

static struct np_chk_snap *find(struct np_results_check *c, const char *hex) {
  for (size_t i = 0; i < c->nsnaps; i++)
    if (strcmp(c->snaps[i].hex, hex) == 0)
      return &c->snaps[i];
  return NULL;
}

void np_chk__snap_resolve(struct np_results_check *c, struct np_chk_cur *cur) {
  static const struct {
    int which;
    const char *key;
  } refs[] = {{NP_CHK_KBEFORE, NP_KSNAP_BEFORE}, {NP_CHK_KAFTER, NP_KSNAP_AFTER}};
  char cf[NP_CHK_PATH_MAX + 16];
  snprintf(cf, sizeof cf, "%s.cmd.txt", cur->stem);
  for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
    int w = refs[i].which;
    char hex[NP_SHA256_HEX_SIZE];
    snprintf(cur->kfile[w], sizeof cur->kfile[w], "%s%s", cur->stem,
             np_chk__suffix[w]);
    if (cur->data[NP_CHK_CMD] == NULL)
      continue;
    int rc = np_ksnap_ref(cur->data[NP_CHK_CMD], cur->len[NP_CHK_CMD],
                          refs[i].key, hex);
    if (rc == NP_ENOENT)
      continue; /* a 0.2 repetition: its own file, or reported missing */
    cur->kref[w] = 1;
    if (rc != 0) {
      np_chk__problem(c, cf, "",
                      "%s: not 64 lowercase hex digits (the "
                      "SHA-256 of a file of " NP_KSNAP_DIR "/)",
                      refs[i].key);
      continue;
    }
    if (cur->data[w] != NULL)
      np_chk__problem(c, cur->kfile[w], "",
                      "beside cmd.txt's %s: a repetition keeps its snapshot "
                      "either by reference or as its own file, not both",
                      refs[i].key);
    snprintf(cur->kfile[w], sizeof cur->kfile[w], "%s/%s.txt", NP_KSNAP_DIR,
             hex);
    struct np_chk_snap *s = find(c, hex);
    if (s == NULL) {
      np_chk__problem(c, cf, "", "%s %s: no %s in the set", refs[i].key, hex,
                      cur->kfile[w]);
      continue;
    }
    s->used = 1;
    if (s->data == NULL)
      continue; /* its hash is wrong: reported when fed */
    char *copy = malloc(s->len + 1);
    if (copy == NULL) {
      c->oom = 1;
      continue;
    }
    memcpy(copy, s->data, s->len + 1);
    free(cur->data[w]);
    cur->data[w] = copy;
    cur->len[w] = s->len;
  }
}

const struct np_chk_snap *np_chk__snap_use(struct np_results_check *c,
                                          const char *hex) {
  struct np_chk_snap *s = find(c, hex);
  if (s != NULL)
    s->used = 1;
  return s;
}

void np_chk__snap_finish(struct np_results_check *c) {
  for (size_t i = 0; i < c->nsnaps; i++)
    if (!c->snaps[i].used) {
      char f[NP_CHK_PATH_MAX];
      snprintf(f, sizeof f, "%s/%s.txt", NP_KSNAP_DIR, c->snaps[i].hex);
      np_chk__problem(c, f, "",
                      "no repetition's cmd.txt (%s / %s) and no record's "
                      "kernel.before / kernel.after (" NP_KSNAP_REF
                      ") refers to it",
                      NP_KSNAP_BEFORE, NP_KSNAP_AFTER);
    }
}

void np_chk__snap_free(struct np_results_check *c) {
  for (size_t i = 0; i < c->nsnaps; i++)
    free(c->snaps[i].data);
  free(c->snaps);
}
