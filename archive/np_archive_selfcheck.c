/*
 * np_archive_selfcheck.c - every suite in a bundle is checked exactly as
 * `netproof-report --self-check` checks a folder, fed file by file as the
 * tar streams past (np_archive_int.h: np_archive_sc_*).
 *
 * This is the one place that knows how resultset/ takes its input: its
 * streaming check (np_results_check_*), which keeps one repetition's files
 * and a compact summary per run, so a suite costs no more memory than its
 * largest repetition plus its run count, whatever its size.
 *
 * The check runs on a thread of its own, so that checking the files
 * overlaps inflating, parsing the tar and hashing them (verify) or reading
 * and hashing them (pack): np_archive__sc_file copies the file into a queue
 * bounded by NP_ARCHIVE_SC_QUEUE_BYTES (the reader waits when it is full)
 * and the thread feeds the queue to np_results_check_file in the order
 * given.  The check's problems are kept and handed to the caller's
 * function by np_archive__sc_finish, on the caller's thread, in the order
 * the check found them, so the caller's collector needs no lock and the
 * report does not depend on how the two threads were scheduled.
 */
#include "np_archive_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of file copies waiting for the check thread at most (one file
 * larger than this still passes, alone). */
#define NP_ARCHIVE_SC_QUEUE_BYTES ((size_t)8 << 20)

/* A file waiting to be checked, or a problem waiting to be reported. */
struct sc_item {
  struct sc_item *next;
  char *a;    /* file: path;  problem: file                */
  char *b;    /* file: bytes; problem: pointer (or NULL)   */
  char *c;    /* problem: reason                           */
  size_t len; /* file: bytes in b                          */
};

struct sc_list {
  struct sc_item *head, *tail;
};

struct np_archive_sc {
  struct np_results_check *c;  /* resultset's streaming check (thread's) */
  np_results_problem_fn fn;    /* the caller's, called by finish         */
  void *ctx;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t more;         /* a file was queued, or the end          */
  pthread_cond_t room;         /* the queue shrank                       */
  struct sc_list files;        /* waiting, in order                      */
  size_t queued;               /* bytes in files                         */
  int closed;                  /* no more files (finish or free)         */
  int failed;                  /* np_results_check_file's error, or 0    */
  struct sc_list problems;     /* found by the thread, in order          */
  int started;                 /* the thread runs                        */
};

static void list_push(struct sc_list *l, struct sc_item *it) {
  it->next = NULL;
  if (l->tail != NULL)
    l->tail->next = it;
  else
    l->head = it;
  l->tail = it;
}

static void item_free(struct sc_item *it) {
  free(it->a);
  free(it->b);
  free(it->c);
  free(it);
}

static void list_free(struct sc_list *l) {
  for (struct sc_item *it = l->head, *n; it != NULL; it = n) {
    n = it->next;
    item_free(it);
  }
  l->head = l->tail = NULL;
}

/* The check's problem function (on the thread): kept for finish.  A
 * problem that cannot be kept (out of memory) ends the check with
 * NP_ENOMEM rather than vanishing. */
static void sc_keep_problem(void *ctx, const char *file, const char *pointer,
                            const char *reason) {
  struct np_archive_sc *s = ctx;
  struct sc_item *it = calloc(1, sizeof(*it));
  if (it != NULL) {
    it->a = strdup(file ? file : "");
    it->b = pointer ? strdup(pointer) : NULL;
    it->c = strdup(reason ? reason : "");
  }
  if (it == NULL || it->a == NULL || it->c == NULL ||
      (pointer != NULL && it->b == NULL)) {
    if (it != NULL)
      item_free(it);
    s->failed = s->failed ? s->failed : NP_ENOMEM; /* the thread's own */
    return;
  }
  list_push(&s->problems, it); /* the thread's until it is joined */
}

static void *sc_thread(void *arg) {
  struct np_archive_sc *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->files.head == NULL && !s->closed)
      pthread_cond_wait(&s->more, &s->mu);
    struct sc_item *it = s->files.head;
    if (it == NULL)
      break; /* closed and drained */
    s->files.head = it->next;
    if (s->files.head == NULL)
      s->files.tail = NULL;
    s->queued -= it->len;
    pthread_cond_signal(&s->room);
    int failed = s->failed;
    pthread_mutex_unlock(&s->mu);
    int rc = failed ? 0 : np_results_check_file(s->c, it->a, it->b, it->len);
    item_free(it);
    pthread_mutex_lock(&s->mu);
    if (rc != 0 && s->failed == 0)
      s->failed = rc;
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

int np_archive__sc_new(const char *label, np_results_problem_fn fn, void *ctx,
                       struct np_archive_sc **out) {
  struct np_archive_sc *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return NP_ENOMEM;
  s->fn = fn;
  s->ctx = ctx;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->more, NULL);
  pthread_cond_init(&s->room, NULL);
  if (np_results_check_new(label, sc_keep_problem, s, &s->c) != 0 ||
      pthread_create(&s->thread, NULL, sc_thread, s) != 0) {
    np_archive__sc_free(s);
    return NP_ENOMEM;
  }
  s->started = 1;
  *out = s;
  return 0;
}

int np_archive__sc_file(struct np_archive_sc *s, const char *path,
                        const char *data, size_t len) {
  struct sc_item *it = calloc(1, sizeof(*it));
  if (it == NULL || (it->a = strdup(path)) == NULL ||
      (it->b = malloc(len + 1)) == NULL) {
    if (it != NULL)
      item_free(it);
    return NP_ENOMEM;
  }
  memcpy(it->b, data, len);
  it->b[len] = '\0';
  it->len = len;
  pthread_mutex_lock(&s->mu);
  while (s->queued > 0 && s->queued + len > NP_ARCHIVE_SC_QUEUE_BYTES)
    pthread_cond_wait(&s->room, &s->mu);
  list_push(&s->files, it);
  s->queued += len;
  pthread_cond_signal(&s->more);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

/* Close the queue and wait for the thread (idempotent). */
static void sc_join(struct np_archive_sc *s) {
  if (!s->started)
    return;
  pthread_mutex_lock(&s->mu);
  s->closed = 1;
  pthread_cond_signal(&s->more);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  s->started = 0;
}

int np_archive__sc_finish(struct np_archive_sc *s,
                          struct np_results_outcome *out) {
  sc_join(s);
  int rc = s->failed;
  if (rc == 0) /* reports the suite-wide problems, on this thread */
    rc = np_results_check_finish(s->c, out);
  if (rc == 0 && s->failed) /* one of those could not be kept */
    rc = s->failed;
  for (struct sc_item *it = s->problems.head; it != NULL; it = it->next)
    if (s->fn != NULL)
      s->fn(s->ctx, it->a, it->b, it->c);
  np_archive__sc_free(s);
  return rc;
}

int np_archive__sc_validates(const char *path) {
  size_t n = strlen(path);
  return strcmp(path, "suite.json") == 0 || strcmp(path, "summary.json") == 0 ||
         (strncmp(path, "runs/", 5) == 0 && n > 5 &&
          strcmp(path + n - 5, ".json") == 0);
}

void np_archive__sc_free(struct np_archive_sc *s) {
  if (s == NULL)
    return;
  sc_join(s);
  list_free(&s->files);
  list_free(&s->problems);
  np_results_check_free(s->c);
  pthread_cond_destroy(&s->room);
  pthread_cond_destroy(&s->more);
  pthread_mutex_destroy(&s->mu);
  free(s);
}
