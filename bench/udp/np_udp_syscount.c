/*
 * np_udp_syscount.c - context switches of the lane threads from
 * /proc/self/task/TID/status (see np_udp_syscount.h).  Read only at the
 * phase boundaries, while the lanes wait, so reading costs the
 * measurement nothing.
 */
#include "np_udp_syscount.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "np_err.h"

/* The two counters of one task's status file. */
static int task_ctxsw(const char *tid, uint64_t *vol, uint64_t *invol) {
  char path[300], line[128];
  int seen = 0;
  snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
  FILE *f = fopen(path, "r");
  if (!f)
    return errno == ENOENT ? 0 : np_err_from_errno(errno); /* it exited */
  while (fgets(line, sizeof line, f)) {
    uint64_t v;
    if (sscanf(line, "voluntary_ctxt_switches: %" SCNu64, &v) == 1) {
      *vol += v;
      seen++;
    } else if (sscanf(line, "nonvoluntary_ctxt_switches: %" SCNu64, &v) == 1) {
      *invol += v;
      seen++;
    }
  }
  fclose(f);
  return seen == 2 ? 0 : NP_ENOTSUP;
}

int np_udp_syscount_ctxsw(uint64_t *voluntary, uint64_t *involuntary) {
  char self[32];
  uint64_t vol = 0, invol = 0;
  int rc = 0;
  snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return np_err_from_errno(errno);
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && strcmp(e->d_name, self) != 0)
      rc = task_ctxsw(e->d_name, &vol, &invol);
  closedir(d);
  if (rc)
    return rc;
  *voluntary = vol;
  *involuntary = invol;
  return 0;
}
