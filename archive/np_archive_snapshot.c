/*
 * np_archive_snapshot.c - `snapshot -o DIR`: the kernel and machine
 * snapshot netproof-bench takes around every run, for attaching to runs
 * made elsewhere.  Writes kernel.txt (np_kernel_raw, the format the matrix
 * keeps as *.kernel-*.txt), kernel.json and machine.json, each atomically.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "np_archive.h"
#include "np_file.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_sysinfo.h"

static const char *const snap_files[] = {"kernel.txt", "kernel.json",
                                         "machine.json"};

int np_archive_snapshot(const char *dir, struct np_errbuf *eb) {
  char path[4200];
  struct stat st;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                         strerror(errno));
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, snap_files[i]);
    if (lstat(path, &st) == 0)
      return np_errbuf_set(eb, NP_EEXIST, "%s: exists; refusing to overwrite",
                           path);
  }
  struct np_kernel *k = NULL;
  cJSON *kj = NULL, *mj = NULL;
  int rc = np_kernel_take(&k);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "kernel snapshot: %s", np_strerror(rc));
  size_t len = 0;
  const char *raw = np_kernel_raw(k, &len);
  snprintf(path, sizeof(path), "%s/kernel.txt", dir);
  rc = np_file_write_atomic(path, raw, len, eb);
  if (rc != 0)
    goto free_all;
  kj = np_kernel_to_json(k);
  mj = np_sysinfo_machine_json();
  if (kj == NULL || mj == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto free_all;
  }
  snprintf(path, sizeof(path), "%s/kernel.json", dir);
  rc = np_json_write_atomic(path, kj, 1, eb);
  if (rc != 0)
    goto free_all;
  snprintf(path, sizeof(path), "%s/machine.json", dir);
  rc = np_json_write_atomic(path, mj, 1, eb);
free_all:
  cJSON_Delete(mj);
  cJSON_Delete(kj);
  np_kernel_free(k);
  return rc;
}
