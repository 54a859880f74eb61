/*
 * np_matrix_session.c - who is running this suite: the runner session id
 * and the exclusive lock on the output folder.
 *
 * Session: 128 bits from getrandom(2), printed as 32 lowercase hex
 * characters, new for every invocation.  suite.json's session entry, the
 * NETPROOF_RUNNER_SESSION variable of every child and every runner-written
 * record carry it, so a set says which invocation produced each record.
 *
 * Lock: flock(LOCK_EX | LOCK_NB) on DIR/.netproof-matrix.lock, taken before
 * the runner writes anything else, so two runners (fresh or --resume) can
 * never measure side by side into one folder.  The file holds the holder's
 * pid and session as text for the refusal message.  The runner removes the
 * file while it still holds the lock, so a finished set carries no lock
 * file for the self-check or the archive to see; because a second runner
 * may have opened the old file just before it was removed, a runner that
 * gets the lock checks that the path still names the file it locked and
 * otherwise tries again.  flock locks die with their process: a file left
 * by a killed runner is stale and simply taken over.
 */
#include "np_matrix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct np_matrix_lock {
  int fd;                          /* the locked file, open               */
  char path[NP_MATRIX_PATH_MAX];   /* DIR/.netproof-matrix.lock           */
};

int np_matrix__session_new(char *id, struct np_errbuf *eb) {
  unsigned char raw[NP_MATRIX_SESSION_LEN / 2];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return np_errbuf_set(eb, np_err_from_errno(n < 0 ? errno : EIO),
                           "session id: getrandom: %s",
                           strerror(n < 0 ? errno : EIO));
    got += (size_t)n;
  }
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < sizeof raw; i++) {
    id[2 * i] = hex[raw[i] >> 4];
    id[2 * i + 1] = hex[raw[i] & 15];
  }
  id[NP_MATRIX_SESSION_LEN] = '\0';
  return 0;
}

int np_matrix__session_ok(const char *s) {
  if (s == NULL || strlen(s) != NP_MATRIX_SESSION_LEN)
    return 0;
  return strspn(s, "0123456789abcdef") == NP_MATRIX_SESSION_LEN;
}

/* The holder's "pid N" from the lock file; it writes it right after
 * locking, so an empty file is re-read a few times (bounded: 20 x 5 ms). */
static long holder_pid(int fd) {
  for (int i = 0; i < 20; i++) {
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid = 0;
    if (n > 0) {
      buf[n] = '\0';
      if (sscanf(buf, "pid %ld", &pid) == 1 && pid > 0)
        return pid;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return -1;
}

/* 1 when path still names the file open as fd. */
static int same_file(int fd, const char *path) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

/* "pid N\nsession S\n" over whatever a stale file held. */
static int write_holder(int fd, const char *path, const char *session,
                        struct np_errbuf *eb) {
  char text[128];
  int len = snprintf(text, sizeof text, "pid %ld\nsession %s\n",
                     (long)getpid(), session);
  int e = 0;
  if (ftruncate(fd, 0) != 0) {
    e = errno;
  } else {
    ssize_t w = pwrite(fd, text, (size_t)len, 0);
    if (w != len)
      e = w < 0 ? errno : ENOSPC; /* a short write: the disk filled */
  }
  if (e != 0)
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
  return 0;
}

int np_matrix__lock_take(const char *dir, const char *session,
                         struct np_matrix_lock **out, struct np_errbuf *eb) {
  struct np_matrix_lock *l = calloc(1, sizeof *l);
  if (l == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int n = snprintf(l->path, sizeof l->path, "%s/%s", dir, NP_MATRIX_LOCK_FILE);
  int rc = 0;
  if (n < 0 || (size_t)n >= sizeof l->path) {
    rc = np_errbuf_set(eb, NP_ERANGE, "%s: path too long", dir);
    goto fail_alloc;
  }
  /* bounded: each retry means another runner removed the file meanwhile */
  for (int attempt = 0; attempt < 8; attempt++) {
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", l->path,
                         strerror(errno));
      goto fail_alloc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      if (e == EWOULDBLOCK) {
        long pid = holder_pid(fd);
        char who[48] = "pid unknown";
        if (pid > 0)
          snprintf(who, sizeof who, "pid %ld", pid);
        rc = np_errbuf_set(eb, NP_EAGAIN,
                           "%s: another matrix runner (%s) is writing this "
                           "folder; wait for it to end (lock %s)",
                           dir, who, l->path);
      } else {
        rc = np_errbuf_set(eb, np_err_from_errno(e), "%s: flock: %s", l->path,
                           strerror(e));
      }
      close(fd);
      goto fail_alloc;
    }
    if (!same_file(fd, l->path)) {
      close(fd); /* locked a file its holder had just removed */
      continue;
    }
    l->fd = fd;
    if ((rc = write_holder(fd, l->path, session, eb)) != 0) {
      np_matrix__lock_release(l);
      return rc;
    }
    *out = l;
    return 0;
  }
  rc = np_errbuf_set(eb, NP_EAGAIN, "%s: lock file keeps being replaced",
                     l->path);
fail_alloc:
  free(l);
  return rc;
}

void np_matrix__lock_release(struct np_matrix_lock *l) {
  if (l == NULL)
    return;
  unlink(l->path); /* while still locked: see the file comment */
  close(l->fd);
  free(l);
}
