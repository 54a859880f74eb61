/*
 * np_report_measuring.c - which measuring code a page's evidence came
 * from (issue 33).
 *
 * Every page says which tool.measuring_source_sha256 its sets' suite.json
 * carries (scripts/source-hash.sh --measuring), or that a set predates
 * the field (its tool.source_sha256 named instead).  The report knows no
 * git; scripts/regen-pages.sh does, and hands it --measuring-changes FILE:
 *     tree <the measuring hash of the tree the pages are made from>
 *     <a set's hash> <a measuring file changed since that hash's commit>
 *     <a set's hash> ?        (no commit of the history has that hash)
 * With it, a page whose sets were measured by other code than the tree's
 * opens with a banner that lists the measuring files changed since.
 */
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_report_int.h"

/* The hash a set is known by: its measuring hash, else (a set from
 * before 0.3) its source hash; *measuring says which. */
static const char *set_hash(const struct np_results_set *s, int *measuring) {
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(s->suite, "tool");
  const char *h = np_json_get_string(tool, "measuring_source_sha256", NULL);
  *measuring = h != NULL;
  return h ? h : np_json_get_string(tool, "source_sha256", "unknown");
}

/* The value of the "tree <hex>" line of text, into tree (65 bytes). */
static int tree_hash(const char *text, char *tree) {
  const char *t = strstr(text, "tree ");
  if (t == NULL || (t != text && t[-1] != '\n') ||
      strspn(t + 5, "0123456789abcdef") != 64)
    return 0;
  memcpy(tree, t + 5, 64);
  tree[64] = '\0';
  return 1;
}

/* The banner of hash h: every "<h> <path>" line of text, in order. */
static void banner(struct np_report_ctx *ctx, const char *h, const char *tree,
                   int measuring) {
  size_t n = 0, hl = strlen(h);
  int unknown = 0;
  for (const char *l = ctx->measuring_changes; *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (len > hl + 1 && strncmp(l, h, hl) == 0 && l[hl] == ' ') {
      if (len == hl + 2 && l[hl + 1] == '?')
        unknown = 1;
      else
        n++;
    }
    l += len + (e != NULL);
  }
  fprintf(ctx->md, "> **Measured by other code than this tree's.** Sets "
          "with %s `%s` were not measured by this tree's measuring code "
          "(`%s`, scripts/source-hash.sh --measuring)", measuring ?
          "measuring source hash" : "no measuring source hash, source hash",
          h, tree);
  if (unknown || n == 0) {
    fprintf(ctx->md, "; no commit of this history has %s hash, so the "
            "changes since are not known.\n\n", measuring ? "that" : "their");
    return;
  }
  fprintf(ctx->md, "; %zu measuring %s changed since the commit with that "
          "hash:", n, n == 1 ? "file" : "files");
  size_t k = 0;
  for (const char *l = ctx->measuring_changes; *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (len > hl + 1 && strncmp(l, h, hl) == 0 && l[hl] == ' ')
      fprintf(ctx->md, "%s `%.*s`", k++ ? "," : "", (int)(len - hl - 1),
              l + hl + 1);
    l += len + (e != NULL);
  }
  fprintf(ctx->md, ".\n\n");
}

void np_report__measuring(struct np_report_ctx *ctx) {
  char tree[65] = "";
  int have_tree = ctx->measuring_changes != NULL &&
                  tree_hash(ctx->measuring_changes, tree);
  fprintf(ctx->md, "Measuring code:");
  for (size_t i = 0; i < ctx->nsets; i++) {
    int m, seen = 0;
    const char *h = set_hash(ctx->sets[i], &m);
    for (size_t j = 0; j < i && !seen; j++) {
      int mj;
      seen = strcmp(set_hash(ctx->sets[j], &mj), h) == 0;
    }
    if (seen)
      continue;
    size_t nsets = 0;
    for (size_t j = 0; j < ctx->nsets; j++) {
      int mj;
      nsets += strcmp(set_hash(ctx->sets[j], &mj), h) == 0;
    }
    fprintf(ctx->md, "%s %zu %s with %s `%s`", i ? ";" : "", nsets,
            np_report__plural(nsets, "set", "sets"),
            m ? "measuring source hash"
              : "no measuring source hash (written before 0.3), source hash",
            h);
  }
  fprintf(ctx->md, ".\n\n");
  if (!have_tree)
    return;
  for (size_t i = 0; i < ctx->nsets; i++) {
    int m, seen = 0;
    const char *h = set_hash(ctx->sets[i], &m);
    for (size_t j = 0; j < i && !seen; j++) {
      int mj;
      seen = strcmp(set_hash(ctx->sets[j], &mj), h) == 0;
    }
    if (!seen && !(m && strcmp(h, tree) == 0))
      banner(ctx, h, tree, m);
  }
}
