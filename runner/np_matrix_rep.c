/*
 * np_matrix_rep.c - one repetition as one child process, and its files.
 *
 * Order of work, chosen so a crash of the runner at any point leaves
 * either a complete repetition or one --resume recognises as partial:
 *   the kernel snapshot before (into the set's kernel-snapshots/, by its
 *   SHA-256: np_ksnap.h), rep-N.cmd.txt (command, the snapshot's hash),
 *   spawn the child (stdout+stderr -> rep-N.stderr.txt, record ->
 *   rep-N.json.tmp), wait, the snapshot after, rep-N.cmd.txt (rewritten
 *   with the outcome and both hashes), rep-N.json last.  The runner's files are written atomically.
 * The child's record is renamed into place, never copied: the child wrote
 * it into the same folder, so the rename needs no space and cannot half
 * succeed on a full disk.  Whatever fails after the child left a complete
 * record, the runner keeps rep-N.json.tmp and says where it is; a later
 * --resume moves such a record to kept/ before it redoes the repetition.
 * The child runs in its own process group (so a timeout kills all of it
 * and a terminal's Ctrl-C reaches only the runner) with PR_SET_PDEATHSIG,
 * so a runner killed with SIGKILL does not leave a benchmark running, and
 * with NETPROOF_RUNNER_SESSION set to the runner's session id.
 */
#include "np_matrix_int.h"
#include "np_matrix_services.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np_file.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_ksnap.h"
#include "np_sysinfo.h"
#include "np_time.h"

int np_matrix__mkdir_p(const char *path, struct np_errbuf *eb) {
  char tmp[NP_MATRIX_PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *s = tmp + 1;; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                             strerror(errno));
      if (c == '\0')
        break;
      *s = c;
    }
  }
  return 0;
}

/* fsync a file or (folder = 1) a folder by path. */
static int fsync_path(const char *path, int folder, struct np_errbuf *eb) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | (folder ? O_DIRECTORY : 0));
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", path,
                         strerror(errno));
  int rc = 0;
  if (fsync(fd) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: fsync: %s", path,
                       strerror(errno));
  close(fd);
  return rc;
}

/* *rec = the record in path when it parses and has a status; 1 if so. */
static int load_record(const char *path, cJSON **rec) {
  char *buf = NULL;
  size_t len = 0;
  cJSON *doc = NULL;
  int ok = np_file_read_all(path, 0, &buf, &len, NULL) == 0 &&
           np_json_parse(buf, len, NULL, &doc, NULL) == 0 &&
           cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "status"));
  free(buf);
  if (!ok) {
    cJSON_Delete(doc);
    return 0;
  }
  *rec = doc;
  return 1;
}

/* Append to eb's line where the child's complete record stays. */
static int say_kept(struct np_errbuf *eb, int rc, const char *tmp) {
  char why[sizeof eb->msg];
  snprintf(why, sizeof why, "%s", eb ? eb->msg : np_strerror(rc));
  return np_errbuf_set(eb, rc, "%s; the child's complete record is kept at %s",
                       why, tmp);
}

int np_matrix__rep_paths(struct np_matrix_rep *r, const char *out_dir) {
  r->out_dir = out_dir;
  int a = snprintf(r->dir, sizeof r->dir, "%s/runs/%s", out_dir, r->cf->id);
  int b = snprintf(r->base, sizeof r->base, "%s/rep-%d", r->dir, r->n);
  if (a < 0 || b < 0 || (size_t)b + 32 >= sizeof r->base)
    return NP_ERANGE;
  return 0;
}

/* base + suffix into buf, truncated to fit (np_matrix__rep_paths leaves
 * 32 bytes of room after base, more than any suffix needs).  Written with
 * memcpy because gcc -O2's -Wformat-truncation cannot see that bound. */
void np_matrix__rep_file(const struct np_matrix_rep *r, const char *suffix,
                         char *buf, size_t len) {
  if (len == 0)
    return;
  size_t nb = strnlen(r->base, len - 1);
  size_t ns = strnlen(suffix, len - 1 - nb);
  memcpy(buf, r->base, nb);
  memcpy(buf + nb, suffix, ns);
  buf[nb + ns] = '\0';
}

int np_matrix__rep_complete(const struct np_matrix_rep *r) {
  char p[NP_MATRIX_PATH_MAX];
  cJSON *doc = NULL;
  np_matrix__rep_file(r, ".json", p, sizeof p);
  if (np_json_load_file(p, NULL, &doc, NULL) != 0)
    return 0;
  int ok = cJSON_IsObject(doc);
  cJSON_Delete(doc);
  return ok;
}

/* Remove every file of r->dir whose name starts with prefix. */
static int remove_prefixed(const struct np_matrix_rep *r, const char *prefix,
                           struct np_errbuf *eb) {
  DIR *d = opendir(r->dir);
  if (d == NULL)
    return errno == ENOENT ? 0
                           : np_errbuf_set(eb, np_err_from_errno(errno),
                                           "%s: %s", r->dir, strerror(errno));
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    char p[NP_MATRIX_PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", r->dir, e->d_name);
    if (unlink(p) != 0 && errno != ENOENT)
      rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", p,
                         strerror(errno));
  }
  closedir(d);
  return rc;
}

int np_matrix__rep_discard(const struct np_matrix_rep *r,
                           struct np_errbuf *eb) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "rep-%d.", r->n);
  return remove_prefixed(r, prefix, eb);
}

/* A benchmark opens its output's temporary file (rep-N.json.tmp.tmp.<pid>,
 * bench/core/np_bench_output.c) before it measures; a child killed by a
 * signal never removes it, so the runner does. */
static void remove_child_temp(const struct np_matrix_rep *r, pid_t pid) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "rep-%d.json.tmp.tmp.%ld", r->n, (long)pid);
  (void)remove_prefixed(r, prefix, NULL);
}

/* An argument the shell takes as it is, unquoted. */
static int plain_arg(const char *a) {
  return a[0] != '\0' &&
         strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789_./:=+-,") == strlen(a);
}

void np_matrix__fput_arg(FILE *out, const char *a) {
  if (plain_arg(a)) {
    fputs(a, out);
    return;
  }
  fputc('\'', out);
  for (; *a; a++) {
    if (*a == '\'')
      fputs("'\\''", out);
    else
      fputc(*a, out);
  }
  fputc('\'', out);
}

/* Shell-quoted command line (copy-pasteable) into a malloc'd string. */
static char *command_text(char *const *argv) {
  size_t len = 1;
  for (size_t i = 0; argv[i] != NULL; i++)
    len += 4 * strlen(argv[i]) + 3;
  char *s = malloc(len), *w = s;
  if (s == NULL)
    return NULL;
  for (size_t i = 0; argv[i] != NULL; i++) {
    const char *a = argv[i];
    int plain = plain_arg(a);
    if (i)
      *w++ = ' ';
    if (plain) {
      w += sprintf(w, "%s", a);
      continue;
    }
    *w++ = '\'';
    for (; *a; a++) {
      if (*a == '\'')
        w += sprintf(w, "'\\''");
      else
        *w++ = *a;
    }
    *w++ = '\'';
  }
  *w = '\0';
  return s;
}

static int write_text(const char *path, const char *text,
                      struct np_errbuf *eb) {
  return np_file_write_atomic(path, text, strlen(text), eb);
}

/* A kernel snapshot now, into the set's content-addressed store
 * (np_ksnap.h); its hash into hex. */
static int write_kernel(const struct np_matrix_rep *r,
                        char hex[NP_SHA256_HEX_SIZE], struct np_errbuf *eb) {
  struct np_kernel *k = NULL;
  char dir[NP_MATRIX_PATH_MAX];
  int rc = np_kernel_take(&k);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "kernel snapshot: %s", np_strerror(rc));
  size_t len = 0;
  const char *raw = np_kernel_raw(k, &len);
  snprintf(dir, sizeof dir, "%s/%s", r->out_dir, NP_KSNAP_DIR);
  rc = np_ksnap_put(dir, raw, len, hex, eb);
  np_kernel_free(k);
  return rc;
}

/* The session's environment with NP_KSNAP_BASE_ENV set to hex, the
 * runner's snapshot before this child, which the child's record refers to
 * (np_ksnap.h); kv is its storage.  The array is malloc'd, its strings
 * borrowed; NULL: out of memory. */
static char **rep_env(char *const *envp, const char *hex, char *kv,
                      size_t kv_len) {
  static const char key[] = NP_KSNAP_BASE_ENV "=";
  size_t n = 0, k = 0;
  while (envp != NULL && envp[n] != NULL)
    n++;
  char **env = calloc(n + 2, sizeof *env);
  if (env == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (strncmp(envp[i], key, sizeof key - 1) != 0)
      env[k++] = envp[i];
  snprintf(kv, kv_len, "%s%s", key, hex);
  env[k++] = kv;
  env[k] = NULL;
  return env;
}

/* In the forked child: only async-signal-safe calls until exec. */
static void child_exec(const struct np_matrix_rep *r, char *const *argv,
                       char *const *envp, const char *errpath,
                       pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(fd, 1) < 0 ||
      dup2(fd, 2) < 0)
    _exit(127);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL); /* the runner ignores it; the child decides */
  sigprocmask(SIG_SETMASK, r->oldmask, NULL);
  execve(r->binary, argv, envp);
  static const char msg[] = "netproof-bench matrix: exec failed\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(127);
}

/* Wait for pid, killing its group at the deadline or on SIGINT/SIGTERM. */
static void wait_child(const struct np_matrix_rep *r, pid_t pid, double t0,
                       struct np_matrix_outcome *oc) {
  int st = 0;
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      /* the child can no longer be waited for (reaped behind our back):
       * its end is unknown, which counts as a failure, never a hang */
      oc->lost = 1;
      oc->wall = np_time_mono_s() - t0;
      return;
    }
    double left = t0 + r->cf->timeout_seconds - np_time_mono_s();
    if (left <= 0 && !oc->timed_out) {
      oc->timed_out = 1;
      kill(-pid, SIGKILL);
      continue;
    }
    struct timespec ts = {0, 50 * 1000 * 1000};
    if (left > 0 && left < 0.05)
      ts.tv_nsec = (long)(left * 1e9);
    int sig = sigtimedwait(r->blocked, NULL, &ts);
    if ((sig == SIGINT || sig == SIGTERM) && !oc->interrupted) {
      oc->interrupted = sig;
      kill(-pid, SIGKILL);
    }
  }
  oc->wall = np_time_mono_s() - t0;
  if (WIFEXITED(st)) {
    oc->exited = 1;
    oc->exit_code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    oc->signo = WTERMSIG(st);
  }
}

static void outcome_text(const struct np_matrix_rep *r,
                         const struct np_matrix_outcome *oc, char *buf,
                         size_t len) {
  if (oc->lost)
    snprintf(buf, len, "exit status lost (child reaped elsewhere)");
  else if (oc->timed_out)
    snprintf(buf, len, "timeout: killed after %.3g s", r->cf->timeout_seconds);
  else if (oc->exited)
    snprintf(buf, len, "exit %d", oc->exit_code);
  else
    snprintf(buf, len, "signal %d (%s)", oc->signo, sigabbrev_np(oc->signo)
                                                       ? sigabbrev_np(oc->signo)
                                                       : "?");
}

/* The configuration as the run schema names it (io_model, warmup_seconds),
 * with the protocol and the exact command. */
static cJSON *record_config(const struct np_matrix_rep *r) {
  cJSON *c = cJSON_CreateObject(), *cmd = NULL;
  if (c == NULL || !cJSON_AddStringToObject(c, "protocol", r->protocol))
    goto fail_cfg;
  const cJSON *it;
  cJSON_ArrayForEach(it, r->cf->options) {
    char key[64];
    snprintf(key, sizeof key, "%s",
             strcmp(it->string, "warmup") == 0 ? "warmup_seconds" : it->string);
    for (char *k = key; *k; k++)
      if (*k == '-')
        *k = '_';
    cJSON *v = cJSON_Duplicate(it, 1);
    if (v == NULL || !cJSON_AddItemToObject(c, key, v)) {
      cJSON_Delete(v);
      goto fail_cfg;
    }
  }
  if ((cmd = cJSON_AddArrayToObject(c, "command")) == NULL)
    goto fail_cfg;
  cJSON_AddItemToArray(cmd, cJSON_CreateString(r->binary));
  cJSON_AddItemToArray(cmd, cJSON_CreateString(r->protocol));
  for (size_t i = 0; i < r->cf->argc; i++)
    cJSON_AddItemToArray(cmd, cJSON_CreateString(r->cf->argv[i]));
  return c;
fail_cfg:
  cJSON_Delete(c);
  return NULL;
}

/* Last 2 KiB of the child's stderr, cut at a line start when possible. */
static void add_stderr_tail(const struct np_matrix_rep *r, cJSON *f) {
  char p[NP_MATRIX_PATH_MAX], *buf = NULL;
  size_t len = 0;
  np_matrix__rep_file(r, ".stderr.txt", p, sizeof p);
  if (np_file_read_all(p, 0, &buf, &len, NULL) != 0)
    return;
  const char *tail = len > 2048 ? buf + len - 2048 : buf;
  const char *nl = tail != buf ? strchr(tail, '\n') : NULL;
  if (nl != NULL && nl[1] != '\0')
    tail = nl + 1;
  cJSON *s = cJSON_CreateString(tail);
  if (s != NULL && cJSON_IsString(s))
    cJSON_AddItemToObject(f, "stderr_tail", s);
  else
    cJSON_Delete(s);
  free(buf);
}

/* The record a crashed, hung or record-less child gets from the runner. */
static cJSON *failed_record(const struct np_matrix_rep *r,
                            const struct np_matrix_outcome *oc,
                            const char *started, const char *why) {
  cJSON *rec = cJSON_CreateObject(), *f = NULL;
  char reason[256];
  snprintf(reason, sizeof reason, "%s (record written by the matrix runner)",
           why);
  if (rec == NULL || !cJSON_AddStringToObject(rec, "schema", "netproof/run/1") ||
      !cJSON_AddStringToObject(rec, "status", "failed") ||
      (f = cJSON_AddObjectToObject(rec, "failure")) == NULL ||
      !cJSON_AddStringToObject(f, "reason", reason) ||
      !cJSON_AddStringToObject(f, "kind", oc->timed_out ? "timeout"
                                          : oc->exited || oc->lost
                                              ? "no-record"
                                              : "signal") ||
      !np_json_add_number(f, "wall_seconds", oc->wall))
    goto fail_rec;
  if (!(oc->exited ? cJSON_AddNumberToObject(f, "exit_code", oc->exit_code)
                   : cJSON_AddNullToObject(f, "exit_code")))
    goto fail_rec;
  char sig[32];
  snprintf(sig, sizeof sig, "SIG%s",
           sigabbrev_np(oc->signo) ? sigabbrev_np(oc->signo) : "?");
  if (!(oc->signo ? cJSON_AddStringToObject(f, "signal", sig)
                  : cJSON_AddNullToObject(f, "signal")))
    goto fail_rec;
  add_stderr_tail(r, f);
  cJSON *tool = np_identity_tool_json("netproof-bench");
  cJSON *mach = np_sysinfo_machine_json();
  cJSON *cfg = record_config(r);
  if (tool == NULL || mach == NULL || cfg == NULL) {
    cJSON_Delete(tool);
    cJSON_Delete(mach);
    cJSON_Delete(cfg);
    goto fail_rec;
  }
  cJSON_AddItemToObject(rec, "tool", tool);
  cJSON_AddItemToObject(rec, "machine", mach);
  cJSON_AddStringToObject(rec, "started_at", started);
  cJSON *runner = cJSON_AddObjectToObject(rec, "runner");
  if (runner == NULL ||
      !cJSON_AddStringToObject(runner, "session", r->session))
    goto fail_rec;
  cJSON_AddItemToObject(rec, "config", cfg);
  return rec;
fail_rec:
  cJSON_Delete(rec);
  return NULL;
}

/* What the record says, on one line, for the progress line. */
static void fill_end(const cJSON *rec, struct np_matrix_rep_end *end) {
  snprintf(end->status, sizeof end->status, "%s",
           np_json_get_string(rec, "status", "?"));
  end->headline = np_json_get_number(
      cJSON_GetObjectItemCaseSensitive(rec, "measurement"),
      "roundtrips_per_sec", -1);
  const cJSON *first = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(rec, "reasons"), 0);
  const char *why =
      cJSON_IsString(first)
          ? first->valuestring
          : np_json_get_string(cJSON_GetObjectItemCaseSensitive(rec, "failure"),
                               "reason", "");
  snprintf(end->reason, sizeof end->reason, "%s", why);
  for (char *c = end->reason; *c; c++)
    if ((unsigned char)*c < 0x20)
      *c = ' ';
}

/* The child's complete record into place: fsync, rename, fsync folder. */
static int commit_child(const struct np_matrix_rep *r, const char *tmp,
                        const char *fin, struct np_errbuf *eb) {
  int rc = fsync_path(tmp, 0, eb);
  if (rc != 0)
    return say_kept(eb, rc, tmp);
  if (rename(tmp, fin) != 0) {
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: rename to %s: %s",
                       tmp, fin, strerror(errno));
    return say_kept(eb, rc, tmp);
  }
  if ((rc = fsync_path(r->dir, 1, eb)) != 0) {
    char why[sizeof eb->msg];
    snprintf(why, sizeof why, "%s", eb ? eb->msg : np_strerror(rc));
    return np_errbuf_set(eb, rc,
                         "%s; the record is in place as %s but may not "
                         "survive a crash of the machine",
                         why, fin);
  }
  return 0;
}

/* A crashed, hung or record-less child: the runner's failed record. */
static int write_failed(const struct np_matrix_rep *r,
                        const struct np_matrix_outcome *oc,
                        const char *started, const char *tmp, const char *fin,
                        cJSON **out, struct np_errbuf *eb) {
  char why[200];
  outcome_text(r, oc, why, sizeof why);
  if (oc->exited && !oc->timed_out)
    snprintf(why + strlen(why), sizeof why - strlen(why),
             " without a valid record");
  cJSON *rec = failed_record(r, oc, started, why);
  if (rec == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", fin);
  int rc = np_json_write_atomic(fin, rec, 1, eb);
  if (rc != 0) {
    char msg[sizeof eb->msg];
    snprintf(msg, sizeof msg, "%s", eb ? eb->msg : np_strerror(rc));
    cJSON_Delete(rec);
    return np_errbuf_set(eb, rc,
                         "%s; the repetition (%s) has no record and is "
                         "incomplete: --resume redoes it",
                         msg, why);
  }
  unlink(tmp); /* whatever the child left is not a record */
  *out = rec;
  return 0;
}

int np_matrix__rep_keep(const struct np_matrix_rep *r, char *rel,
                        size_t rel_len, struct np_errbuf *eb) {
  char tmp[NP_MATRIX_PATH_MAX], dir[NP_MATRIX_PATH_MAX];
  char dst[2 * NP_MATRIX_PATH_MAX];
  cJSON *rec = NULL;
  np_matrix__rep_file(r, ".json.tmp", tmp, sizeof tmp);
  if (!load_record(tmp, &rec))
    return 0;
  const char *s = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(rec, "runner"), "session", NULL);
  if (!np_matrix__session_ok(s))
    s = r->session;
  snprintf(dir, sizeof dir, "%s/kept/%s", r->out_dir, r->cf->id);
  snprintf(rel, rel_len, "kept/%s/rep-%d.%s.json", r->cf->id, r->n, s);
  snprintf(dst, sizeof dst, "%s/%s", r->out_dir, rel);
  cJSON_Delete(rec);
  int rc = np_matrix__mkdir_p(dir, eb);
  if (rc == 0 && rename(tmp, dst) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: rename to %s: %s",
                       tmp, dst, strerror(errno));
  if (rc == 0 && (rc = fsync_path(dir, 1, eb)) == 0)
    rc = fsync_path(r->dir, 1, eb);
  if (rc != 0) {
    char why[sizeof eb->msg];
    snprintf(why, sizeof why, "%s", eb ? eb->msg : np_strerror(rc));
    return np_errbuf_set(eb, rc,
                         "%s; the complete record %s stays where it is and "
                         "its repetition is not redone",
                         why, access(tmp, F_OK) == 0 ? tmp : dst);
  }
  return 1;
}

int np_matrix__rep_run(const struct np_matrix_rep *r,
                       struct np_matrix_outcome *oc,
                       struct np_matrix_rep_end *end, struct np_errbuf *eb) {
  char p[NP_MATRIX_PATH_MAX], tmp[NP_MATRIX_PATH_MAX], errp[NP_MATRIX_PATH_MAX];
  char fin[NP_MATRIX_PATH_MAX];
  char started[NP_TIME_TEXT_MAX], ended[NP_TIME_TEXT_MAX], how[128];
  char kbefore[NP_SHA256_HEX_SIZE], kafter[NP_SHA256_HEX_SIZE];
  memset(oc, 0, sizeof *oc);
  np_matrix__rep_file(r, ".json.tmp", tmp, sizeof tmp);
  np_matrix__rep_file(r, ".json", fin, sizeof fin);
  np_matrix__rep_file(r, ".stderr.txt", errp, sizeof errp);
  size_t n = 0;
  char keep[NP_MATRIX_PATH_MAX];
  char **argv = calloc(r->cf->argc + r->cf->ntail + 8, sizeof *argv);
  if (argv == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  argv[n++] = (char *)r->binary;
  argv[n++] = (char *)r->protocol;
  for (size_t i = 0; i < r->cf->argc; i++)
    argv[n++] = r->cf->argv[i];
  argv[n++] = "--output";
  argv[n++] = tmp;
  if (r->cf->ntail > 0) { /* exec: its kept output, then -- PROGRAM ... */
    np_matrix__rep_file(r, ".program", keep, sizeof keep);
    argv[n++] = "--keep";
    argv[n++] = keep;
    for (size_t i = 0; i < r->cf->ntail; i++)
      argv[n++] = r->cf->tail[i];
  }
  char *cmd = command_text(argv);
  char *text = NULL, **envp = NULL;
  cJSON *rec = NULL;
  int rc = 0, have = 0;
  if (cmd == NULL || (text = malloc(strlen(cmd) + 768)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_argv;
  }
  np_time_utc_now(started, sizeof started);
  np_matrix__rep_file(r, ".cmd.txt", p, sizeof p);
  if ((rc = write_kernel(r, kbefore, eb)) != 0)
    goto cleanup_argv;
  sprintf(text, "command: %s\nstarted_at: %s\n" NP_KSNAP_BEFORE ": %s\n",
          cmd, started, kbefore);
  if ((rc = write_text(p, text, eb)) != 0)
    goto cleanup_argv;
  char base_kv[sizeof NP_KSNAP_BASE_ENV + NP_SHA256_HEX_SIZE + 1];
  if ((envp = rep_env(r->envp, kbefore, base_kv, sizeof base_kv)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_argv;
  }
  pid_t parent = getpid();
  double t0 = np_time_mono_s();
  pid_t pid = fork();
  if (pid < 0) {
    rc = np_errbuf_set(eb, NP_ECHILD, "fork: %s", strerror(errno));
    goto cleanup_argv;
  }
  if (pid == 0)
    child_exec(r, argv, envp, errp, parent);
  setpgid(pid, pid);
  wait_child(r, pid, t0, oc);
  if (!oc->exited)
    remove_child_temp(r, pid);
  if (oc->interrupted) {
    /* a child killed after it had renamed its record into rep-N.json.tmp
     * leaves a complete record: keep the partial repetition for --resume
     * (which moves the record to kept/); otherwise remove it */
    if (load_record(tmp, &rec) == 0)
      np_matrix__rep_discard(r, NULL);
    rc = NP_EINTR;
    goto cleanup_argv;
  }
  /* from here on a complete child record is never deleted */
  have = !oc->timed_out && !oc->lost && oc->exited && load_record(tmp, &rec);
  np_time_utc_now(ended, sizeof ended);
  outcome_text(r, oc, how, sizeof how);
  if ((rc = write_kernel(r, kafter, eb)) == 0) {
    sprintf(text, "command: %s\nstarted_at: %s\nended_at: %s\n"
                  "wall_seconds: %.3f\noutcome: %s\n" NP_KSNAP_BEFORE
                  ": %s\n" NP_KSNAP_AFTER ": %s\n",
            cmd, started, ended, oc->wall, how, kbefore, kafter);
    rc = write_text(p, text, eb);
  }
  if (rc != 0) {
    if (have)
      rc = say_kept(eb, rc, tmp);
    goto cleanup_argv;
  }
  end->kept[0] = '\0';
  end->lost[0] = '\0';
  if (np_matrix_services_lost(r->services, end->lost, sizeof end->lost)) {
    /* the service it measured ended or lost its port during the run: the
     * record (the child's, or none when it wrote none - a client that got
     * no reply exits 3) is set aside, never counted; no rep-N.json, not
     * even a runner-written failed one (incomplete) */
    rc = np_matrix__rep_keep(r, end->kept, sizeof end->kept, eb);
    if (rc >= 0) {
      snprintf(end->status, sizeof end->status, "not counted");
      snprintf(end->reason, sizeof end->reason, "%.190s", end->lost);
      end->headline = -1;
      rc = 0;
    }
    goto cleanup_argv;
  }
  if (have) {
    rc = commit_child(r, tmp, fin, eb);
  } else {
    /* a child that timed out (or whose end is unknown) may still have
     * written a complete record: the repetition failed, the record stays */
    rc = np_matrix__rep_keep(r, end->kept, sizeof end->kept, eb);
    if (rc >= 0)
      rc = write_failed(r, oc, started, tmp, fin, &rec, eb);
  }
  if (rc == 0)
    fill_end(rec, end);
cleanup_argv:
  cJSON_Delete(rec);
  free(envp);
  free(text);
  free(cmd);
  free(argv);
  return rc;
}
