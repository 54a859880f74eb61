/*
 * np_matrix_services.c - start, check and stop the services of a suite
 * plan (see np_matrix_services.h).  The plan schema has already checked
 * each entry's shape; the values are read from the plan document here.
 * Every wait is bounded: readiness by ready_timeout_seconds, the stop by
 * stop_timeout_seconds after SIGTERM (then SIGKILL and at most 5 s more).
 */
#include "np_matrix_services.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np_file.h"
#include "np_json.h"
#include "np_matrix_int.h"
#include "np_matrix_services_int.h"
#include "np_procnet.h"
#include "np_time.h"
#include "np_sha256.h"

#define NP_SVC_MAX_ARGS 128

/* One service, from its start to its record in suite.json. */
struct np_svc {
  const cJSON *entry;               /* its plan entry (the plan's)         */
  const char *name;                 /* entry's name                        */
  char dir[NP_MATRIX_PATH_MAX];     /* DIR/services/<name>                 */
  char *argv[NP_SVC_MAX_ARGS + 1];  /* command with placeholders replaced  */
  char *cmdline;                    /* shell-quoted for service.txt        */
  pid_t pid;                        /* 0 when not (or no longer) running   */
  pid_t spawned;                    /* the pid it had (kept after its end) */
  double t0;                        /* monotonic start                     */
  double lifetime;                  /* seconds it may run                  */
  double stop_timeout;              /* SIGTERM -> SIGKILL                  */
  int has_check;                    /* ck holds its readiness check        */
  struct np_svc_check ck;
  char started_at[NP_TIME_TEXT_MAX];
  char ready_at[NP_TIME_TEXT_MAX];  /* "" until ready                      */
  double ready_after;               /* seconds from start to ready         */
  struct np_svc_seen seen;          /* the look that made it ready         */
  char ready[160];                  /* what the readiness check saw        */
  char exe[4096], exe_sha256[NP_SHA256_HEX_SIZE], exe_error[160];
  char ended_at[NP_TIME_TEXT_MAX];  /* "" while it runs                    */
  const char *end_by;               /* "runner" or "itself"                */
  char end_reason[64];              /* "the suite ended", ...              */
  int exit_code, signo, killed;     /* -1 / 0 when not that way; SIGKILL
                                       after the stop timeout              */
  char ended[240];                  /* how it ended, in words              */
  int lost;                         /* ended or lost its port mid-suite    */
  char lost_why[NP_MATRIX_PATH_MAX + 400]; /* ... said so                */
};

struct np_matrix_services {
  struct np_svc *svc; /* n entries */
  size_t n;
};

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* "{bench}" and "{dir}" replaced in one word; malloc'd. */
static char *expand(const char *w, const char *binary, const char *dir) {
  size_t len = strlen(w) + 1;
  for (const char *p = w; (p = strchr(p, '{')) != NULL; p++)
    len += strlen(binary) + strlen(dir);
  char *out = malloc(len), *o = out;
  if (out == NULL)
    return NULL;
  while (*w) {
    if (strncmp(w, "{bench}", 7) == 0) {
      o += sprintf(o, "%s", binary);
      w += 7;
    } else if (strncmp(w, "{dir}", 5) == 0) {
      o += sprintf(o, "%s", dir);
      w += 5;
    } else {
      *o++ = *w++;
    }
  }
  *o = '\0';
  return out;
}

static char *quote_argv(char *const *argv) {
  size_t len = 1;
  for (size_t i = 0; argv[i]; i++)
    len += 4 * strlen(argv[i]) + 3;
  char *s = malloc(len), *w = s;
  if (s == NULL)
    return NULL;
  for (size_t i = 0; argv[i]; i++) {
    if (i)
      *w++ = ' ';
    *w++ = '\'';
    for (const char *a = argv[i]; *a; a++)
      w += *a == '\'' ? sprintf(w, "'\\''") : sprintf(w, "%c", *a);
    *w++ = '\'';
  }
  *w = '\0';
  return s;
}

/* service.txt, rewritten at each step. */
static void write_status(const struct np_svc *v) {
  char path[NP_MATRIX_PATH_MAX + 16], text[8192];
  snprintf(path, sizeof path, "%s/service.txt", v->dir);
  snprintf(text, sizeof text,
           "name: %s\ncommand: %.6000s\nstarted_at: %s\npid: %ld\n"
           "exe_sha256: %s\nlifetime_seconds: %g\nready: %s\nended: %s\n",
           v->name, v->cmdline, v->started_at, (long)v->spawned,
           v->exe_sha256[0] ? v->exe_sha256 : "(unknown)", v->lifetime,
           v->ready[0] ? v->ready : "(waiting)",
           v->ended[0] ? v->ended : "(running)");
  (void)np_file_write_atomic(path, text, strlen(text), NULL);
}

/* "exit 1" / "signal SIGKILL" of a wait status. */
static void status_text(int exit_code, int signo, char *buf, size_t len) {
  char sig[32];
  if (signo)
    snprintf(buf, len, "signal %s",
             np_matrix__svc_signame(signo, sig, sizeof sig));
  else
    snprintf(buf, len, "exit %d", exit_code);
}

/* The service ended with wait status st (known = 0: not reaped): by whom
 * and why, into its fields and its words. */
static void note_end(struct np_svc *v, int st, int known, const char *by,
                     const char *reason) {
  char how[48];
  np_time_utc_now(v->ended_at, sizeof v->ended_at);
  v->end_by = by;
  snprintf(v->end_reason, sizeof v->end_reason, "%s", reason);
  v->exit_code = known && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  v->signo = known && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  if (known)
    status_text(v->exit_code, v->signo, how, sizeof how);
  else
    snprintf(how, sizeof how, "not reaped");
  snprintf(v->ended, sizeof v->ended, "%s: %s%s at %s, after %.3f s %s",
           reason, strcmp(by, "runner") == 0 ? "SIGTERM" : "by itself",
           v->killed ? " then SIGKILL" : "", v->ended_at,
           np_time_mono_s() - v->t0, how);
  v->pid = 0;
}

/* ---- readiness -------------------------------------------------------- */

static void note_exe(struct np_svc *v);

/* Wait for the check, proved for the service's own process; 0, or
 * NP_ECHILD (exited) / NP_ETIMEDOUT. */
static int wait_ready(struct np_svc *v, struct np_errbuf *eb) {
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(v->entry, "ready");
  const cJSON *c = r ? r->child : NULL;
  double limit = np_json_get_number(v->entry, "ready_timeout_seconds", 10);
  double t0 = np_time_mono_s();
  struct np_svc_seen seen;
  if (c == NULL) { /* no check: started is ready */
    snprintf(v->ready, sizeof v->ready, "no check: ready once started");
    np_time_utc_now(v->ready_at, sizeof v->ready_at);
    v->ready_after = 0;
    return 0;
  }
  if (!cJSON_IsString(c) ||
      np_matrix__svc_check_parse(c->string, c->valuestring, &v->ck) != 0)
    return np_errbuf_set(eb, NP_ESCHEMA,
                         "service %s: /ready/%s: expected ADDR:PORT", v->name,
                         c->string);
  v->has_check = 1;
  memset(&seen, 0, sizeof seen);
  for (;;) {
    int st;
    if (waitpid(v->pid, &st, WNOHANG) == v->pid) {
      note_end(v, st, 1, "itself", "exited before it was ready");
      if (seen.foreign[0] == '\0') /* who has the address it wanted */
        np_matrix__svc_check_once(&v->ck, v->spawned, 0, &seen);
      char how[48];
      status_text(v->exit_code, v->signo, how, sizeof how);
      return np_errbuf_set(eb, NP_ECHILD,
                           "service %s exited before it was ready (%s)%s%s; "
                           "its output: %s/output.txt",
                           v->name, how, seen.foreign[0] ? ": " : "",
                           seen.foreign, v->dir);
    }
    np_matrix__svc_check_once(&v->ck, v->pid, 1, &seen);
    if (seen.ready) {
      np_time_utc_now(v->ready_at, sizeof v->ready_at);
      v->ready_after = np_time_mono_s() - t0;
      v->seen = seen;
      note_exe(v); /* again: a wrapper (sh -c 'exec ...') has exec'd by now */
      snprintf(v->ready, sizeof v->ready, "%s %s after %.3f s, held by pid %ld",
               v->ck.name, v->ck.text, v->ready_after,
               (long)seen.owners[0]);
      return 0;
    }
    if (np_time_mono_s() - t0 > limit)
      return np_errbuf_set(eb, NP_ETIMEDOUT,
                           "service %s: not ready after %g s (%s %s)%s%s; its "
                           "output: %s/output.txt",
                           v->name, limit, v->ck.name, v->ck.text,
                           seen.foreign[0] ? ": " : "", seen.foreign, v->dir);
    sleep_ms(20);
  }
}

/* ---- start and stop --------------------------------------------------- */

/* What ran: /proc/PID/exe and its SHA-256, read once the exec is done. */
static void note_exe(struct np_svc *v) {
  struct np_procnet_proc *pr = calloc(1, sizeof *pr);
  if (pr == NULL) {
    snprintf(v->exe_error, sizeof v->exe_error, "out of memory");
    return;
  }
  if (np_procnet_process(v->pid, pr) != 0)
    snprintf(v->exe_error, sizeof v->exe_error, "pid %ld is gone",
             (long)v->pid);
  else
    snprintf(v->exe_error, sizeof v->exe_error, "%s", pr->exe_error);
  snprintf(v->exe, sizeof v->exe, "%s", pr->exe);
  snprintf(v->exe_sha256, sizeof v->exe_sha256, "%s", pr->exe_sha256);
  free(pr);
}

static int spawn(struct np_svc *v, char *const *envp, const sigset_t *oldmask,
                 struct np_errbuf *eb) {
  char out[NP_MATRIX_PATH_MAX + 16];
  int ex[2]; /* close-on-exec: EOF once the command runs, errno if not */
  snprintf(out, sizeof out, "%s/output.txt", v->dir);
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", out,
                         strerror(errno));
  if (pipe2(ex, O_CLOEXEC) != 0) {
    close(fd);
    return np_errbuf_set(eb, NP_ECHILD, "service %s: pipe: %s", v->name,
                         strerror(errno));
  }
  pid_t parent = getpid();
  np_time_utc_now(v->started_at, sizeof v->started_at);
  v->t0 = np_time_mono_s();
  pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    close(ex[0]);
    close(ex[1]);
    return np_errbuf_set(eb, NP_ECHILD, "service %s: fork: %s", v->name,
                         strerror(errno));
  }
  if (pid == 0) { /* only async-signal-safe calls until exec */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(127);
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (nul < 0 || dup2(nul, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
      _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL); /* the runner ignores it; the service must not */
    sigprocmask(SIG_SETMASK, oldmask, NULL);
    execve(v->argv[0], v->argv, envp);
    execvpe(v->argv[0], v->argv, envp); /* a bare name: search PATH */
    int err = errno;
    ssize_t ignored = write(ex[1], &err, sizeof err);
    static const char msg[] = "netproof-bench matrix: service exec failed\n";
    ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(fd);
  close(ex[1]);
  setpgid(pid, pid);
  v->pid = v->spawned = pid;
  int err = 0;
  ssize_t r;
  while ((r = read(ex[0], &err, sizeof err)) < 0 && errno == EINTR)
    ;
  close(ex[0]);
  if (r == (ssize_t)sizeof err)
    snprintf(v->exe_error, sizeof v->exe_error, "exec %s: %s", v->argv[0],
             strerror(err));
  else
    note_exe(v);
  write_status(v);
  return 0;
}

/* SIGTERM to the group, wait, SIGKILL; why goes into ended. */
static void stop_one(struct np_svc *v, const char *why) {
  if (v->pid <= 0)
    return;
  double t0 = np_time_mono_s();
  int st = 0, reaped = 0;
  kill(-v->pid, SIGTERM);
  for (;;) {
    pid_t w = waitpid(v->pid, &st, WNOHANG);
    if (w == v->pid) {
      reaped = 1;
      break;
    }
    if (w < 0 && errno != EINTR)
      break;
    double waited = np_time_mono_s() - t0;
    if (!v->killed && waited > v->stop_timeout) {
      kill(-v->pid, SIGKILL);
      v->killed = 1;
    }
    if (waited > v->stop_timeout + 5)
      break; /* cannot be reaped: leave it to PR_SET_PDEATHSIG */
    sleep_ms(10);
  }
  pid_t group = v->pid;
  note_end(v, st, reaped, "runner", why);
  kill(-group, SIGKILL); /* anything its group left behind */
  write_status(v);
}

/* The ended service's record in suite.json's session (schema
 * suite.schema.json#/$defs/service). */
static cJSON *svc_json(const struct np_svc *v) {
  cJSON *o = cJSON_CreateObject(), *cmd, *rd, *en;
  char sig[32];
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "name", v->name);
  cmd = cJSON_AddArrayToObject(o, "command");
  for (size_t i = 0; cmd && v->argv[i]; i++)
    cJSON_AddItemToArray(cmd, cJSON_CreateString(v->argv[i]));
  cJSON_AddNumberToObject(o, "pid", (double)v->spawned);
  if (v->exe_sha256[0]) {
    cJSON_AddStringToObject(o, "exe", v->exe);
    cJSON_AddStringToObject(o, "exe_sha256", v->exe_sha256);
  } else {
    cJSON_AddStringToObject(o, "exe_error", v->exe_error[0] ? v->exe_error
                                                            : "not read");
  }
  cJSON_AddStringToObject(o, "started_at", v->started_at);
  if (v->has_check) {
    rd = cJSON_AddObjectToObject(o, "ready");
    cJSON_AddStringToObject(rd, "check", v->ck.name);
    cJSON_AddStringToObject(rd, "address", v->ck.text);
    cJSON *ow = cJSON_AddArrayToObject(rd, "owner_pids");
    for (size_t i = 0; ow && v->ready_at[0] && i < v->seen.nowners; i++)
      cJSON_AddItemToArray(ow, cJSON_CreateNumber(v->seen.owners[i]));
  }
  if (v->ready_at[0]) {
    cJSON_AddStringToObject(o, "ready_at", v->ready_at);
    np_json_add_number(o, "ready_after_seconds", v->ready_after);
  }
  if (v->ended_at[0]) {
    cJSON_AddStringToObject(o, "ended_at", v->ended_at);
    en = cJSON_AddObjectToObject(o, "ended");
    cJSON_AddStringToObject(en, "by", v->end_by);
    cJSON_AddStringToObject(en, "reason", v->end_reason);
    if (v->exit_code >= 0)
      cJSON_AddNumberToObject(en, "exit_code", v->exit_code);
    else
      cJSON_AddNullToObject(en, "exit_code");
    if (v->signo)
      cJSON_AddStringToObject(
          en, "signal", np_matrix__svc_signame(v->signo, sig, sizeof sig));
    else
      cJSON_AddNullToObject(en, "signal");
    cJSON_AddBoolToObject(en, "sigkill_after_timeout", v->killed);
  }
  cJSON_AddBoolToObject(o, "lost_during_suite", v->lost);
  return o;
}

static void svc_free(struct np_svc *v) {
  for (size_t i = 0; v->argv[i]; i++)
    free(v->argv[i]);
  free(v->cmdline);
}

int np_matrix_services_start(const struct np_matrix_plan *p,
                             const char *out_dir, const char *binary,
                             char *const *envp, const sigset_t *oldmask,
                             struct np_matrix_services **out,
                             struct np_errbuf *eb) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(p->doc, "services");
  int n = cJSON_GetArraySize(list), rc = 0;
  *out = NULL;
  if (n <= 0)
    return 0;
  struct np_matrix_services *s = calloc(1, sizeof *s);
  if (s == NULL || (s->svc = calloc((size_t)n, sizeof *s->svc)) == NULL) {
    free(s);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  *out = s; /* from here on: stopped and recorded by the caller */
  double est = 0;
  for (size_t i = 0; i < p->nconfigs; i++)
    est += p->configs[i].est_seconds * p->repetitions;
  const cJSON *e;
  cJSON_ArrayForEach(e, list) {
    struct np_svc *v = &s->svc[s->n++];
    v->entry = e;
    v->name = np_json_get_string(e, "name", "service");
    v->lifetime = np_json_get_number(e, "lifetime_seconds", 2 * est + 60);
    v->stop_timeout = np_json_get_number(e, "stop_timeout_seconds", 5);
    v->exit_code = -1;
    snprintf(v->dir, sizeof v->dir, "%s/services/%s", out_dir, v->name);
    const cJSON *w;
    size_t k = 0;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(e, "command")) {
      if (k == NP_SVC_MAX_ARGS ||
          (v->argv[k++] = expand(w->valuestring, binary, v->dir)) == NULL) {
        rc = np_errbuf_set(eb, NP_ENOMEM, "service %s: out of memory",
                           v->name);
        goto fail_stop;
      }
    }
    if ((v->cmdline = quote_argv(v->argv)) == NULL) {
      rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      goto fail_stop;
    }
    if ((rc = np_matrix__mkdir_p(v->dir, eb)) != 0 ||
        (rc = spawn(v, envp, oldmask, eb)) != 0 ||
        (rc = wait_ready(v, eb)) != 0) {
      if (v->ended[0] == '\0')
        stop_one(v, "not ready");
      write_status(v);
      goto fail_stop;
    }
    write_status(v);
  }
  return 0;
fail_stop:
  for (size_t i = s->n; i-- > 0;)
    stop_one(&s->svc[i], "another service was not ready");
  return rc;
}

/* v ended by itself (reaped now): lost, said in v->lost_why. */
static int reap_ended(struct np_svc *v) {
  int st;
  char how[48];
  if (v->lost || v->pid <= 0 || waitpid(v->pid, &st, WNOHANG) != v->pid)
    return v->lost;
  note_end(v, st, 1, "itself", "ended during the suite");
  kill(-v->spawned, SIGKILL); /* what its group left behind */
  status_text(v->exit_code, v->signo, how, sizeof how);
  v->lost = 1;
  snprintf(v->lost_why, sizeof v->lost_why,
           "service %s ended during the suite (%s) after %.3f s; its "
           "output: %.200s/output.txt",
           v->name, how, np_time_mono_s() - v->t0, v->dir);
  write_status(v);
  return 1;
}

/* Another process holds v's address: lost.  No socket there at all is
 * not (a server may close and reopen its listener between tests);
 * np_matrix_services_check waits for it before the next repetition. */
static int taken_over(struct np_svc *v, struct np_svc_seen *seen) {
  if (v->lost || v->pid <= 0 || !v->has_check)
    return v->lost;
  np_matrix__svc_check_once(&v->ck, v->pid, 0, seen);
  if (seen->ready || seen->foreign[0] == '\0')
    return 0;
  v->lost = 1;
  snprintf(v->lost_why, sizeof v->lost_why,
           "service %s (pid %ld) no longer holds its address: %s", v->name,
           (long)v->pid, seen->foreign);
  return 1;
}

int np_matrix_services_lost(struct np_matrix_services *s, char *why,
                            size_t len) {
  for (size_t i = 0; s && i < s->n; i++) {
    struct np_svc *v = &s->svc[i];
    struct np_svc_seen seen;
    if (reap_ended(v) || taken_over(v, &seen)) {
      snprintf(why, len, "%s", v->lost_why);
      return 1;
    }
  }
  return 0;
}

/* Before a repetition: v's address held by v again (looked up, nothing
 * sent), within its ready_timeout_seconds; 0 or lost. */
static int ready_again(struct np_svc *v) {
  double limit = np_json_get_number(v->entry, "ready_timeout_seconds", 10);
  double t0 = np_time_mono_s();
  struct np_svc_seen seen;
  if (reap_ended(v) || !v->has_check)
    return v->lost;
  while (!reap_ended(v) && !taken_over(v, &seen)) {
    if (seen.ready)
      return 0;
    if (np_time_mono_s() - t0 > limit) {
      v->lost = 1;
      snprintf(v->lost_why, sizeof v->lost_why,
               "service %s (pid %ld) holds no socket at %s %s for %g s",
               v->name, (long)v->pid, v->ck.name, v->ck.text, limit);
      return 1;
    }
    sleep_ms(20);
  }
  return v->lost;
}

int np_matrix_services_check(struct np_matrix_services *s,
                             struct np_errbuf *eb) {
  for (size_t i = 0; s && i < s->n; i++) {
    struct np_svc *v = &s->svc[i];
    if (!v->lost && v->pid > 0 && np_time_mono_s() - v->t0 > v->lifetime) {
      stop_one(v, "lifetime_seconds reached");
      v->lost = 1;
      snprintf(v->lost_why, sizeof v->lost_why,
               "service %s: its lifetime_seconds (%g) ran out before the "
               "suite ended; stopped",
               v->name, v->lifetime);
    }
    if (v->lost || ready_again(v))
      return np_errbuf_set(eb, NP_ECHILD, "%s; the repetitions left are "
                                          "not run",
                           v->lost_why);
  }
  return 0;
}

void np_matrix_services_stop(struct np_matrix_services *s, cJSON *session) {
  if (s == NULL)
    return;
  cJSON *list = session ? cJSON_AddArrayToObject(session, "services") : NULL;
  for (size_t i = s->n; i-- > 0;)
    stop_one(&s->svc[i], "the suite ended");
  for (size_t i = 0; i < s->n; i++) {
    if (list != NULL)
      cJSON_AddItemToArray(list, svc_json(&s->svc[i]));
    svc_free(&s->svc[i]);
  }
  free(s->svc);
  free(s);
}

void np_matrix_services_describe(const struct np_matrix_plan *p,
                                 const char *binary, FILE *out) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p->doc, "services")) {
    const cJSON *w, *r = cJSON_GetObjectItemCaseSensitive(e, "ready");
    fprintf(out, "service %s:", np_json_get_string(e, "name", "?"));
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(e, "command")) {
      char *x = expand(w->valuestring, binary, "DIR/services/NAME");
      fprintf(out, " %s", x ? x : "?");
      free(x);
    }
    if (r && r->child && cJSON_IsString(r->child))
      fprintf(out, "\n  ready: %s %s within %g s", r->child->string,
              r->child->valuestring,
              np_json_get_number(e, "ready_timeout_seconds", 10));
    fprintf(out, "; stopped at the end (SIGTERM, SIGKILL after %g s)\n",
            np_json_get_number(e, "stop_timeout_seconds", 5));
  }
}
