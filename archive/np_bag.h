/*
 * np_bag.h - the in-memory model of a bundle shared by pack, verify and
 * extract: a top-folder name, the tag files at the top of the bag and one
 * np_ftree per suite under data/.  Paths handed out by np_bag_files are
 * relative to the top folder ("bagit.txt", "data/<suite>/runs/...").
 */
#ifndef NP_BAG_H
#define NP_BAG_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_sha256.h"

struct np_bag_suite {
  char *name;            /* folder name under data/                 */
  struct np_ftree *tree; /* its files, paths relative to the suite  */
};

struct np_bag {
  char *name;                  /* top folder                        */
  struct np_ftree *tags;       /* files directly in the top folder  */
  struct np_bag_suite *suites; /* sorted by name                    */
  size_t nsuites;
  size_t cap;
};

/* One file of the bag, for manifests and writing. */
struct np_bag_file {
  char *path;        /* relative to the top folder (owned)                */
  const char *data;  /* bytes, owned by the bag's trees                   */
  size_t len;
  char sha256[NP_SHA256_HEX_SIZE];
};

/* A file list sorted bytewise by path; free with np_bag_files_free. */
struct np_bag_files {
  struct np_bag_file *v;
  size_t n;
  uint64_t bytes; /* sum of len */
};

int np_bag_new(const char *name, struct np_bag **out);
void np_bag_free(struct np_bag *b); /* accepts NULL */

/* The suite named name, created empty when absent (tree owned by the bag).
 * NP_EINVAL for a name np_bag_name_ok refuses. */
int np_bag_suite(struct np_bag *b, const char *name, struct np_ftree **out);

/* Take ownership of tree as suite name.  NP_EEXIST if present. */
int np_bag_suite_adopt(struct np_bag *b, const char *name,
                       struct np_ftree *tree);

/* 1 when s is a safe folder name: [A-Za-z0-9._-]+, not starting with '.',
 * at most 200 bytes. */
int np_bag_name_ok(const char *s);

/* The payload (with_tags == 0: every file under data/) or the tag files
 * (with_tags != 0: files in b->tags), sorted, each hashed with SHA-256. */
int np_bag_files_list(const struct np_bag *b, int with_tags,
                      struct np_bag_files *out);
void np_bag_files_free(struct np_bag_files *f);

/* Binary search in a sorted list; NULL when absent. */
const struct np_bag_file *np_bag_files_find(const struct np_bag_files *f,
                                            const char *path);

#endif /* NP_BAG_H */
