/*
 * np_matrix_services.c - start, check and stop the services of a suite
 * plan (see np_matrix_services.h).  The plan schema has already checked
 * each entry's shape; the values are read from the plan document here.
 * Every wait is bounded: readiness by ready_timeout_seconds, the stop by
 * stop_timeout_seconds after SIGTERM (then SIGKILL and at most 5 s more).
 */
#include "np_matrix_services.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np_file.h"
#include "np_json.h"
#include "np_matrix_int.h"
#include "np_procnet.h"
#include "np_time.h"
#include "np_udp_config.h"

#define NP_SVC_MAX_ARGS 128

enum np_svc_ready { NP_SVC_UDP_BOUND, NP_SVC_TCP_CONNECT, NP_SVC_UDP_ECHO };

static const char *const ready_names[] = {"udp_bound", "tcp_connect",
                                          "udp_echo"};

/* One running service. */
struct np_svc {
  const cJSON *entry;               /* its plan entry (the plan's)         */
  const char *name;                 /* entry's name                        */
  char dir[NP_MATRIX_PATH_MAX];     /* DIR/services/<name>                 */
  char *argv[NP_SVC_MAX_ARGS + 1];  /* command with placeholders replaced  */
  char *cmdline;                    /* shell-quoted for service.txt        */
  pid_t pid;                        /* 0 when not (or no longer) running   */
  double t0;                        /* monotonic start                     */
  double lifetime;                  /* seconds it may run                  */
  double stop_timeout;              /* SIGTERM -> SIGKILL                  */
  char started_at[NP_TIME_TEXT_MAX];
  char ready[160];                  /* what the readiness check saw        */
  char ended[200];                  /* how it ended                        */
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
           "lifetime_seconds: %g\nready: %s\nended: %s\n",
           v->name, v->cmdline, v->started_at, (long)v->pid, v->lifetime,
           v->ready[0] ? v->ready : "(waiting)",
           v->ended[0] ? v->ended : "(running)");
  (void)np_file_write_atomic(path, text, strlen(text), NULL);
}

/* ---- readiness -------------------------------------------------------- */

static int addr_of(const char *text, struct sockaddr_storage *ss,
                   socklen_t *len) {
  char host[64];
  int family;
  uint16_t port;
  if (np_udp_config_hostport("ready", text, 0, host, &family, &port, NULL))
    return -1;
  memset(ss, 0, sizeof *ss);
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    inet_pton(AF_INET6, host, &a->sin6_addr);
    *len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    inet_pton(AF_INET, host, &a->sin_addr);
    *len = sizeof *a;
  }
  return 0;
}

/* One try of the check; 1 when it holds. */
static int ready_once(enum np_svc_ready kind, const struct sockaddr_storage *a,
                      socklen_t alen) {
  if (kind == NP_SVC_UDP_BOUND) {
    struct np_procnet_sock *rows = NULL;
    size_t n = 0, *idx = NULL, k = 0;
    if (np_procnet_udp_read(&rows, &n, NULL) != 0)
      return 0;
    np_procnet_udp_match(rows, n, (const struct sockaddr *)a, &idx, &k);
    free(idx);
    free(rows);
    return k > 0;
  }
  int tcp = kind == NP_SVC_TCP_CONNECT;
  int fd = socket(a->ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) |
                                    SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  int ok = 0;
  if (connect(fd, (const struct sockaddr *)a, alen) == 0 || errno == EINPROGRESS) {
    static const char probe[] = "netproof-ready";
    struct pollfd p = {.fd = fd, .events = tcp ? POLLOUT : POLLIN};
    if (!tcp && send(fd, probe, sizeof probe - 1, 0) < 0)
      goto close_fd;
    if (poll(&p, 1, 100) == 1) {
      if (tcp) {
        int err = 0;
        socklen_t el = sizeof err;
        ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0;
      } else {
        char buf[64];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        ok = r == (ssize_t)(sizeof probe - 1) && memcmp(buf, probe, (size_t)r) == 0;
      }
    }
  }
close_fd:
  close(fd);
  return ok;
}

/* Wait for the check; 0, or NP_ECHILD (exited) / NP_ETIMEDOUT. */
static int wait_ready(struct np_svc *v, struct np_errbuf *eb) {
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(v->entry, "ready");
  const cJSON *c = r ? r->child : NULL;
  double limit = np_json_get_number(v->entry, "ready_timeout_seconds", 10);
  double t0 = np_time_mono_s();
  if (c == NULL) { /* no check: started is ready */
    snprintf(v->ready, sizeof v->ready, "no check: ready once started");
    return 0;
  }
  enum np_svc_ready kind = NP_SVC_UDP_BOUND;
  for (int i = 0; i < 3; i++)
    if (strcmp(c->string, ready_names[i]) == 0)
      kind = (enum np_svc_ready)i;
  struct sockaddr_storage a;
  socklen_t alen;
  if (!cJSON_IsString(c) || addr_of(c->valuestring, &a, &alen) != 0)
    return np_errbuf_set(eb, NP_ESCHEMA,
                         "service %s: /ready/%s: expected ADDR:PORT", v->name,
                         c->string);
  for (;;) {
    int st;
    if (waitpid(v->pid, &st, WNOHANG) == v->pid) {
      snprintf(v->ended, sizeof v->ended, "exited before it was ready (%s %d)",
               WIFEXITED(st) ? "exit" : "signal",
               WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      v->pid = 0;
      return np_errbuf_set(eb, NP_ECHILD,
                           "service %s %s; its output: %s/output.txt", v->name,
                           v->ended, v->dir);
    }
    if (ready_once(kind, &a, alen)) {
      snprintf(v->ready, sizeof v->ready, "%s %s after %.3f s", c->string,
               c->valuestring, np_time_mono_s() - t0);
      return 0;
    }
    if (np_time_mono_s() - t0 > limit)
      return np_errbuf_set(eb, NP_ETIMEDOUT,
                           "service %s: not ready after %g s (%s %s); its "
                           "output: %s/output.txt",
                           v->name, limit, c->string, c->valuestring, v->dir);
    sleep_ms(20);
  }
}

/* ---- start and stop --------------------------------------------------- */

static int spawn(struct np_svc *v, char *const *envp, const sigset_t *oldmask,
                 struct np_errbuf *eb) {
  char out[NP_MATRIX_PATH_MAX + 16];
  snprintf(out, sizeof out, "%s/output.txt", v->dir);
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", out,
                         strerror(errno));
  pid_t parent = getpid();
  np_time_utc_now(v->started_at, sizeof v->started_at);
  v->t0 = np_time_mono_s();
  pid_t pid = fork();
  if (pid < 0) {
    close(fd);
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
    static const char msg[] = "netproof-bench matrix: service exec failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(fd);
  setpgid(pid, pid);
  v->pid = pid;
  write_status(v);
  return 0;
}

/* SIGTERM to the group, wait, SIGKILL; why goes into ended. */
static void stop_one(struct np_svc *v, const char *why) {
  if (v->pid <= 0)
    return;
  double t0 = np_time_mono_s();
  int st = 0, killed = 0;
  kill(-v->pid, SIGTERM);
  for (;;) {
    pid_t w = waitpid(v->pid, &st, WNOHANG);
    if (w == v->pid || (w < 0 && errno != EINTR))
      break;
    double waited = np_time_mono_s() - t0;
    if (!killed && waited > v->stop_timeout) {
      kill(-v->pid, SIGKILL);
      killed = 1;
    }
    if (waited > v->stop_timeout + 5)
      break; /* cannot be reaped: leave it to PR_SET_PDEATHSIG */
    sleep_ms(10);
  }
  char end[NP_TIME_TEXT_MAX];
  np_time_utc_now(end, sizeof end);
  snprintf(v->ended, sizeof v->ended,
           "%s: SIGTERM%s at %s, after %.3f s %s %d", why,
           killed ? " then SIGKILL" : "", end, np_time_mono_s() - v->t0,
           WIFEXITED(st) ? "exit" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  kill(-v->pid, SIGKILL); /* anything its group left behind */
  v->pid = 0;
  write_status(v);
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
    if ((rc = np_matrix_mkdir_p(v->dir, eb)) != 0 ||
        (rc = spawn(v, envp, oldmask, eb)) != 0 ||
        (rc = wait_ready(v, eb)) != 0) {
      if (v->ended[0] == '\0')
        stop_one(v, "not ready");
      write_status(v);
      goto fail_stop;
    }
    write_status(v);
  }
  *out = s;
  return 0;
fail_stop:
  np_matrix_services_stop(s);
  return rc;
}

void np_matrix_services_check(struct np_matrix_services *s) {
  for (size_t i = 0; s && i < s->n; i++) {
    struct np_svc *v = &s->svc[i];
    int st;
    if (v->pid <= 0)
      continue;
    if (waitpid(v->pid, &st, WNOHANG) == v->pid) {
      snprintf(v->ended, sizeof v->ended,
               "ended by itself during the suite after %.3f s (%s %d)",
               np_time_mono_s() - v->t0, WIFEXITED(st) ? "exit" : "signal",
               WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      kill(-v->pid, SIGKILL);
      v->pid = 0;
      write_status(v);
    } else if (np_time_mono_s() - v->t0 > v->lifetime) {
      stop_one(v, "lifetime_seconds reached");
    }
  }
}

void np_matrix_services_stop(struct np_matrix_services *s) {
  if (s == NULL)
    return;
  for (size_t i = s->n; i-- > 0;) {
    stop_one(&s->svc[i], "the suite ended");
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
