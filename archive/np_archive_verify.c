/*
 * np_archive_verify.c - verify and list: the signature (when a public key
 * is given), then one streaming read whose files go through the content
 * checks as they pass, then the end-of-stream checks; every problem
 * through one collector (np_archive_problems.c), the signature's under the
 * signature file's own name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_archive_int.h"
#include "np_archive_sign.h"

void np_archive_limits_default(struct np_archive_limits *lim) {
  lim->max_entries = NP_ARCHIVE_DEFAULT_MAX_ENTRIES;
  lim->max_file_bytes = NP_ARCHIVE_DEFAULT_MAX_FILE_BYTES;
  lim->max_total_bytes = NP_ARCHIVE_DEFAULT_MAX_TOTAL_BYTES;
  lim->max_ratio = NP_ARCHIVE_DEFAULT_MAX_RATIO;
}

/* The signed bag and tag-manifest digest against the bundle just read. */
static void sig_compare(struct np_problems *sp, const struct np_sigfile *sf,
                        const struct np_verified *v) {
  if (sf->message_len == 0)
    return; /* the file did not parse: already a problem */
  if (strcmp(sf->bag, v->top) != 0)
    np_problem(sp, NULL, "signs bag '%s', but the bundle holds '%s'", sf->bag,
               v->top);
  else if (v->tagmanifest_sha256[0] == '\0')
    np_problem(sp, NULL, "the bundle has no tagmanifest-sha256.txt to match");
  else if (strcmp(sf->tagmanifest_sha256, v->tagmanifest_sha256) != 0)
    np_problem(sp, NULL, "signs tagmanifest-sha256.txt with sha256 %.16s..., "
               "but the bundle's has %.16s... (the bundle changed after it "
               "was signed)", sf->tagmanifest_sha256, v->tagmanifest_sha256);
  else if (sf->version >= 2 && v->bundle_sha256[0] == '\0')
    np_problem(sp, NULL, "the bundle file could not be hashed to its end");
  else if (sf->version >= 2 &&
           strcmp(sf->bundle_sha256, v->bundle_sha256) != 0)
    np_problem(sp, NULL, "signs the bundle file with sha256 %.16s..., but "
               "the file has %.16s... (the bundle changed after it was "
               "signed)", sf->bundle_sha256, v->bundle_sha256);
}

int np_archive__verify_run(const char *path,
                           const struct np_archive_limits *lim,
                           const struct np_archive_sigcheck *sc,
                           const struct np_read_sink *also,
                           np_archive_problem_fn fn, void *ctx,
                           struct np_verified *out, struct np_errbuf *eb) {
  struct np_archive_limits dl;
  if (lim == NULL) {
    np_archive_limits_default(&dl);
    lim = &dl;
  }
  char sigpath[4200], signer[NP_SHA256_HEX_SIZE] = "";
  struct np_problems p, sp;
  struct np_sigfile sf;
  struct np_read_result res;
  struct np_verified v;
  struct np_check *chk = NULL;
  memset(&sf, 0, sizeof sf);
  memset(&v, 0, sizeof v);
  np_problems_init(&p, path, fn, ctx);
  if (sc != NULL)
    np_archive_sig_path(path, sc->sig, sigpath, sizeof sigpath);
  np_problems_init(&sp, sc != NULL ? sigpath : path, fn, ctx);
  int rc = 0;
  if (sc != NULL &&
      (rc = np_archive_sig_check(sigpath, sc->pubkey, &sp, &sf, signer, eb)) !=
          0)
    goto free_problems;
  if ((rc = np_archive__check_new(&p, also, &chk)) != 0) {
    np_errbuf_set(eb, rc, "out of memory");
    goto free_problems;
  }
  struct np_read_sink sink = np_archive__check_sink(chk);
  rc = np_archive__read(path, lim, &p, &sink, &res, eb);
  if (rc != 0)
    goto free_check;
  np_archive__check_finish(chk, &res, &v);
  memcpy(v.bundle_sha256, res.file_sha256, sizeof v.bundle_sha256);
  /* never valid unless read to the end */
  if (!res.complete && p.count == 0)
    np_problem(&p, NULL, "archive could not be read to the end");
  if (sc != NULL)
    sig_compare(&sp, &sf, &v);
  rc = p.count + sp.count > 0 ? NP_ECORRUPT : 0;
  if (rc != 0)
    np_errbuf_set(eb, rc, "%s: %zu problem(s)", path, p.count + sp.count);
  memcpy(v.signer_sha256, signer, sizeof signer);
  v.sig_version = signer[0] != '\0' ? sf.version : 0;
  if (rc == 0 && out != NULL) {
    *out = v;
    memset(&v, 0, sizeof v);
  }
  np_verified__free(&v);
free_check:
  np_archive__check_free(chk);
free_problems:
  np_problems_free(&sp);
  np_problems_free(&p);
  return rc;
}

int np_archive_verify(const char *path, const struct np_archive_limits *lim,
                      np_archive_problem_fn on_problem, void *ctx,
                      struct np_errbuf *eb) {
  return np_archive__verify_run(path, lim, NULL, NULL, on_problem, ctx, NULL,
                                eb);
}

int np_archive_verify_ex(const char *path, const struct np_archive_limits *lim,
                         const struct np_archive_sigcheck *sc,
                         np_archive_problem_fn on_problem, void *ctx,
                         struct np_archive_verdict *verdict,
                         struct np_errbuf *eb) {
  struct np_verified v;
  int rc = np_archive__verify_run(path, lim, sc, NULL, on_problem, ctx, &v, eb);
  if (rc != 0)
    return rc;
  if (verdict != NULL) {
    memcpy(verdict->signer_sha256, v.signer_sha256, sizeof v.signer_sha256);
    verdict->sig_version = v.sig_version;
    verdict->suites = v.suites;
    verdict->incomplete = v.incomplete;
    memcpy(verdict->incomplete_note, v.incomplete_note,
           sizeof verdict->incomplete_note);
  }
  np_verified__free(&v);
  return 0;
}

int np_archive_list(const char *path, const struct np_archive_limits *lim,
                    const struct np_archive_sigcheck *sc,
                    np_archive_problem_fn on_problem, void *ctx,
                    struct np_errbuf *eb) {
  struct np_verified v;
  int rc = np_archive__verify_run(path, lim, sc, NULL, on_problem, ctx, &v, eb);
  if (rc != 0)
    return rc;
  const struct np_bag_files *lists[2] = {&v.tags, &v.payload};
  for (int w = 0; w < 2; w++)
    for (size_t i = 0; i < lists[w]->n; i++)
      printf("%s  %10zu  %s/%s\n", lists[w]->v[i].sha256, lists[w]->v[i].len,
             v.top, lists[w]->v[i].path);
  np_verified__free(&v);
  return 0;
}
