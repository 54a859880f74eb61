/*
 * np_bag.h - the model of a bundle shared by pack, verify and extract.
 *
 * Pack holds a bag's outline: a top-folder name, the tag files at the top
 * (their bytes) and one np_ftree per suite under data/ (listed: paths and
 * sizes, no bytes; np_archive_pack_stream.c reads the files one at a
 * time).  Verify keeps only a file list (struct np_bag_files: path, SHA-256, size and the
 * few facts evidence.json needs), built as the tar streams past.  Both
 * sides derive the manifests and evidence.json from that list, so the two
 * cannot disagree on what they mean.  Paths in np_bag_files are relative
 * to the top folder ("bagit.txt", "data/<suite>/runs/...").
 */
#ifndef NP_BAG_H
#define NP_BAG_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

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

/* One file of the bag, for manifests, evidence and writing. */
struct np_bag_file {
  char *path;        /* relative to the top folder (owned)                */
  const char *data;  /* a tag file's bytes (owned by the bag's tree); NULL
                        for payload files and in verify                  */
  size_t len;        /* bytes                                             */
  char sha256[NP_SHA256_HEX_SIZE]; /* lowercase hex                       */
  cJSON *facts;      /* what evidence.json takes from a run record or a
                        suite.json (np_evidence_facts), else NULL (owned) */
};

/* A file list, sorted bytewise by path once complete; free with
 * np_bag_files_free. */
struct np_bag_files {
  struct np_bag_file *v; /* the files                                    */
  size_t n;              /* files in v                                   */
  size_t cap;            /* slots allocated in v                         */
  uint64_t bytes;        /* sum of len                                   */
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

/* Append a file already hashed (verify's stream); path is copied, facts
 * is taken over (also on failure).  NP_ENOMEM. */
int np_bag_files_push(struct np_bag_files *f, const char *path, size_t len,
                      const char sha256[NP_SHA256_HEX_SIZE], cJSON *facts);

/* Sort bytewise by path (after the last push). */
void np_bag_files_sort(struct np_bag_files *f);

/* Binary search in a sorted list; NULL when absent. */
const struct np_bag_file *np_bag_files_find(const struct np_bag_files *f,
                                            const char *path);

#endif /* NP_BAG_H */
