/*
 * np_agent_service.c - the agent's services: an echo server (`serve`) or
 * a relay started for a session, as a forked copy of this process that
 * calls the command's own entry point with an argv the allowlist built
 * (np_agent_allow.c).  No program is executed: the child is this binary's
 * code, so its record's binary hash is the agent's.
 *
 * The child gets /dev/null on stdin, a pipe on stdout and stderr (its
 * "listening on" / "ready:" line says where it bound; the rest is kept as
 * a tail for error messages), every other descriptor closed, the signal
 * mask and dispositions of a fresh process, and the token wiped from its
 * copy of memory.  Its record goes to a file in the agent's private
 * folder; the agent reads it when the service stops.  A service lives at
 * most its lifetime (its own --max-seconds) and is also stopped when its
 * session ends, and at the agent's end.  A stopped service keeps its slot
 * - record, argv, pipe, files - until its own session has fetched the
 * whole record or ended (np_agent__service_release); a new service only
 * ever takes an unused slot, so no session's record is lost to another's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np_agent_client.h"
#include "np_agent_int.h"
#include "np_file.h"
#include "np_relay_cmd.h"
#include "np_time.h"
#include "np_rudp_serve.h"
#include "np_udp_serve.h"

#define READY_SECONDS 5.0  /* from fork to the service's ready line */
#define STOP_SECONDS 5.0   /* from SIGTERM to SIGKILL               */
#define RECORD_MAX (16u << 20)

const char *const np_agent__kind_names[NP_AGENT_KINDS] = {
    [NP_AGENT_SERVE] = "serve", [NP_AGENT_RELAY] = "relay",
    [NP_AGENT_RUDP_SERVE] = "rudp-serve"};

enum np_agent_kind np_agent__kind_of(const char *name) {
  int k = 0;
  while (k < NP_AGENT_KINDS && strcmp(np_agent__kind_names[k], name) != 0)
    k++;
  return (enum np_agent_kind)k;
}

/* Append what the pipe holds now to the tail (keeping the last bytes). */
static void drain(struct np_agent_service *s) {
  char buf[2048];
  while (s->out_fd >= 0) {
    ssize_t n = read(s->out_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    if (n <= 0) {
      close(s->out_fd);
      s->out_fd = -1;
      return;
    }
    /* buf is smaller than the tail: drop the oldest bytes to make room */
    _Static_assert(sizeof buf < NP_AGENT_TAIL, "tail holds a whole read");
    size_t k = (size_t)n;
    if (s->tail_len + k > NP_AGENT_TAIL - 1) {
      size_t drop = s->tail_len + k - (NP_AGENT_TAIL - 1);
      memmove(s->tail, s->tail + drop, s->tail_len - drop);
      s->tail_len -= drop;
    }
    memcpy(s->tail + s->tail_len, buf, k);
    s->tail_len += k;
    s->tail[s->tail_len] = '\0';
  }
}

/* The address of the service's ready line, or 0 when not there yet. */
static int ready_line(struct np_agent_service *s) {
  static const char *const keys[NP_AGENT_KINDS] = {
      [NP_AGENT_SERVE] = "netproof-bench serve: listening on ",
      [NP_AGENT_RELAY] = "netproof-bench relay: ready: udp",
      [NP_AGENT_RUDP_SERVE] = "netproof-bench rudp-serve: listening on "};
  const char *key = keys[s->kind];
  const char *p = strstr(s->tail, key);
  if (p == NULL)
    return 0;
  p += strlen(key);
  if (s->kind == NP_AGENT_RELAY) {
    while (*p && *p != ' ')
      p++; /* "+tcp" */
    while (*p == ' ')
      p++;
  }
  size_t n = strcspn(p, " \n");
  if (n == 0 || n >= sizeof s->listening || p[n] == '\0')
    return 0; /* the line is not complete yet */
  memcpy(s->listening, p, n);
  s->listening[n] = '\0';
  struct np_addr a;
  if (np_addr_parse("listening", s->listening, 0, &a, NULL) != 0)
    return -1;
  s->addr = a.ss;
  return 1;
}

/* The child: a fresh process's signals and descriptors, then the
 * command's main.  Never returns. */
static void child(struct np_agent *a, struct np_agent_service *s, int wfd,
                  char **argv, int argc) {
  np_agent_token_wipe(&a->token);
  sigset_t none;
  sigemptyset(&none);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(wfd, 1) < 0 ||
      dup2(wfd, 2) < 0)
    _exit(3);
  if (close_range(3, ~0u, 0) != 0)
    for (int fd = 3; fd < 4096; fd++)
      close(fd);
  if (chdir(a->folder) != 0)
    _exit(3);
  fflush(NULL);
  int rc = s->kind == NP_AGENT_SERVE        ? np_udp_serve_main(argc, argv)
           : s->kind == NP_AGENT_RUDP_SERVE ? np_rudp_serve_main(argc, argv)
                                            : np_relay_cli_main(argc, argv);
  fflush(NULL);
  _exit(rc & 0xff);
}

static int spawn(struct np_agent *a, struct np_agent_service *s,
                 struct np_errbuf *eb) {
  char *argv[NP_AGENT_ARGS_MAX + 1];
  int argc = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, s->argv) {
    if (argc == NP_AGENT_ARGS_MAX)
      return np_errbuf_set(eb, NP_EUSAGE, "options: too many");
    argv[argc++] = x->valuestring;
  }
  argv[argc] = NULL;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "pipe: %s",
                         strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    return np_errbuf_set(eb, np_err_from_errno(e), "fork: %s", strerror(e));
  }
  if (pid == 0)
    child(a, s, p[1], argv, argc);
  close(p[1]);
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  s->pid = pid;
  s->out_fd = p[0];
  s->started = np_time_mono_s();
  return 0;
}

/* Reap s if it exited (non-blocking). */
static void reap(struct np_agent_service *s) {
  int st;
  if (s->exited || s->pid <= 0)
    return;
  pid_t r = waitpid(s->pid, &st, WNOHANG);
  if (r == s->pid) {
    s->exited = 1;
    s->wait_status = st;
  }
}

/* Wait for the ready line, the child's end or the deadline. */
static int wait_ready(struct np_agent_service *s, struct np_errbuf *eb) {
  double deadline = np_time_mono_s() + READY_SECONDS;
  for (;;) {
    drain(s);
    int r = ready_line(s);
    if (r > 0)
      return 0;
    reap(s);
    if (r < 0 || s->exited || s->out_fd < 0 ||
        np_time_mono_s() >= deadline) {
      /* its own last line says why (bind: Address already in use ...) */
      char why[400] = "";
      const char *t = s->tail;
      size_t n = s->tail_len;
      while (n > 0 && (t[n - 1] == '\n' || t[n - 1] == ' '))
        n--;
      size_t b = n;
      while (b > 0 && t[b - 1] != '\n')
        b--;
      snprintf(why, sizeof why, "%.*s", (int)(n - b), t + b);
      return np_errbuf_set(eb, s->exited ? NP_ESYS : NP_ETIMEDOUT,
                           "%s did not come up: %s", s->id,
                           why[0] ? why
                           : s->exited ? "it exited without a word"
                                       : "no ready line within 5 s");
    }
    struct pollfd pf = {.fd = s->out_fd, .events = POLLIN};
    poll(&pf, 1, 20);
  }
}

/* An unused slot while fewer than --max-services run, else NULL; the
 * running count in *running.  A stopped service still holds its slot (its
 * record, argv, pipe and files) until np_agent__service_release: its own
 * session fetched the whole record, or ended. */
static struct np_agent_service *slot(struct np_agent *a, unsigned *running) {
  struct np_agent_service *free_slot = NULL;
  *running = 0;
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    if (a->services[i].used)
      *running += !a->services[i].exited;
    else if (free_slot == NULL)
      free_slot = &a->services[i];
  }
  return *running < a->cfg->max_services ? free_slot : NULL;
}

int np_agent__service_start(struct np_agent *a, const char *session,
                            const struct sockaddr *peer, const cJSON *args,
                            struct np_agent_service **out,
                            struct np_errbuf *eb) {
  const char *svc = cJSON_GetObjectItemCaseSensitive(args, "service")
                        ->valuestring;
  enum np_agent_kind kind = np_agent__kind_of(svc);
  if (kind == NP_AGENT_KINDS) /* the message schema allows no other */
    return np_errbuf_set(eb, NP_EUSAGE, "service '%s': not one the agent "
                         "starts", svc);
  double lifetime = cJSON_GetObjectItemCaseSensitive(args, "lifetime_seconds")
                        ->valuedouble;
  cJSON *argv = NULL;
  const char *listen = NULL;
  /* a relay may forward to the session's peer or its running services */
  np_agent__service_poll(a);
  struct sockaddr_storage own[NP_AGENT_SERVICES_MAX];
  struct np_agent_targets to = {.peer = peer, .own = own};
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    const struct np_agent_service *o = &a->services[i];
    if (o->used && !o->exited && o->listening[0] &&
        strcmp(o->session, session) == 0)
      own[to.nown++] = o->addr;
  }
  int rc = np_agent__allow(
      kind, cJSON_GetObjectItemCaseSensitive(args, "options"), lifetime,
      np_agent__remaining(a), a->cfg->max_service_memory_bytes, &to, &argv,
      &listen, eb);
  if (rc)
    return rc;
  unsigned running = 0;
  struct np_agent_service *s = slot(a, &running);
  if (s == NULL) {
    cJSON_Delete(argv);
    if (running >= a->cfg->max_services)
      return np_errbuf_set(eb, NP_ENOSPC,
                           "%u services are running (--max-services)",
                           a->cfg->max_services);
    return np_errbuf_set(eb, NP_ENOSPC,
                         "all %d service slots hold stopped services whose "
                         "records were not fetched yet (fetch them, or end "
                         "their sessions)",
                         NP_AGENT_SERVICES_MAX);
  }
  memset(s, 0, sizeof *s);
  s->used = 1;
  s->out_fd = -1;
  s->kind = kind;
  s->lifetime = lifetime;
  s->argv = argv;
  snprintf(s->id, sizeof s->id, "s%u", ++a->next_service);
  snprintf(s->session, sizeof s->session, "%s", session);
  snprintf(s->record_path, sizeof s->record_path, "%s/%s.record.json",
           a->folder, s->id);
  char ms[32];
  snprintf(ms, sizeof ms, "%.3f", lifetime);
  cJSON_AddItemToArray(argv, cJSON_CreateString("--max-seconds"));
  cJSON_AddItemToArray(argv, cJSON_CreateString(ms));
  cJSON_AddItemToArray(argv, cJSON_CreateString("--record"));
  cJSON_AddItemToArray(argv, cJSON_CreateString(s->record_path));
  if (kind == NP_AGENT_RELAY) {
    snprintf(s->stats_path, sizeof s->stats_path, "%s/%s.stats.jsonl",
             a->folder, s->id);
    cJSON_AddItemToArray(argv, cJSON_CreateString("--stats-lines"));
    cJSON_AddItemToArray(argv, cJSON_CreateString(s->stats_path));
  }
  if ((rc = spawn(a, s, eb)) != 0 || (rc = wait_ready(s, eb)) != 0) {
    np_agent__service_stop(a, s);
    np_agent__service_release(a, s);
    return rc;
  }
  uint16_t port = ntohs(((struct sockaddr_in *)&s->addr)->sin_port);
  if (port < 1024) {
    np_agent__service_stop(a, s);
    np_agent__service_release(a, s);
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/listen '%s': the kernel "
                         "chose port %u, a privileged one; name a port",
                         listen, (unsigned)port);
  }
  np_agent__log(a,
                "session %.8s: started %s %s on %s (pid %ld, lifetime "
                "%g s)",
                session, svc, s->id, s->listening, (long)s->pid, lifetime);
  *out = s;
  return 0;
}

struct np_agent_service *np_agent__service_find(struct np_agent *a,
                                                const char *session,
                                                const char *id) {
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    struct np_agent_service *s = &a->services[i];
    if (s->used && strcmp(s->id, id) == 0 && strcmp(s->session, session) == 0)
      return s;
  }
  return NULL;
}

void np_agent__service_stop(struct np_agent *a, struct np_agent_service *s) {
  (void)a;
  reap(s);
  if (!s->exited && s->pid > 0) {
    kill(s->pid, SIGTERM);
    s->stopped_by_agent = 1;
    double deadline = np_time_mono_s() + STOP_SECONDS;
    while (!s->exited && np_time_mono_s() < deadline) {
      drain(s);
      reap(s);
      if (!s->exited) {
        struct pollfd pf = {.fd = s->out_fd, .events = POLLIN};
        poll(&pf, s->out_fd >= 0 ? 1 : 0, 10);
      }
    }
    if (!s->exited) {
      kill(s->pid, SIGKILL);
      s->killed = 1;
      int st;
      if (waitpid(s->pid, &st, 0) == s->pid) {
        s->exited = 1;
        s->wait_status = st;
      }
    }
  }
  drain(s);
  if (s->record == NULL && s->record_path[0]) {
    char *text = NULL;
    size_t len = 0;
    struct np_errbuf eb;
    if (np_file_read_all(s->record_path, RECORD_MAX, &text, &len, &eb) == 0) {
      s->record = text;
      s->record_len = len;
    }
  }
}

void np_agent__service_release(struct np_agent *a, struct np_agent_service *s) {
  (void)a;
  if (!s->used)
    return;
  if (s->out_fd >= 0)
    close(s->out_fd);
  if (s->record_path[0])
    unlink(s->record_path);
  if (s->stats_path[0])
    unlink(s->stats_path);
  free(s->record);
  cJSON_Delete(s->argv);
  memset(s, 0, sizeof *s);
  s->out_fd = -1;
}

void np_agent__service_poll(struct np_agent *a) {
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    struct np_agent_service *s = &a->services[i];
    if (!s->used)
      continue;
    drain(s);
    reap(s);
    /* its own --max-seconds ends it; this is the backstop */
    if (!s->exited && np_time_mono_s() > s->started + s->lifetime + 10.0)
      np_agent__service_stop(a, s);
  }
}

void np_agent__service_stop_session(struct np_agent *a, const char *session) {
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    struct np_agent_service *s = &a->services[i];
    if (!s->used || (session && strcmp(s->session, session) != 0))
      continue;
    int was_running = !s->exited;
    np_agent__service_stop(a, s);
    if (was_running)
      np_agent__log(a, "session %.8s: stopped %s (the session ended)",
                    s->session, s->id);
    np_agent__service_release(a, s);
  }
}

int np_agent__service_busy(const struct np_agent *a, const char *session) {
  for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++) {
    const struct np_agent_service *s = &a->services[i];
    if (s->used && !s->exited && strcmp(s->session, session) == 0)
      return 1;
  }
  return 0;
}
