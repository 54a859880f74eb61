/*
 * np_results_check_run.c - one repetition's files checked together: the
 * record (schema, then the protocol's checks), its evidence files present,
 * the runner's kernel snapshots read back (np_kernel), rep-N.cmd.txt
 * against the record (command line, --output, outcome, times), and the
 * compact summary the end of the check keeps (np_chk_run).
 *
 * cmd.txt is the runner's word and the record the child's: the command
 * the runner wrote must be the one the record says it ran, with this
 * repetition's own --output; the outcome must be the exit code the
 * record's status implies (0 passed, 1 failed, 128 + signal interrupted)
 * or, for a record the runner wrote itself, the failure it describes; and
 * the record's started_at / ended_at lie inside cmd.txt's window.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_check_int.h"
#include "np_results_hist.h"
#include "np_results_summary.h"

/* FNV-1a over a string, chained. */
static uint64_t fnv(uint64_t h, const char *s) {
  for (; s && *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;
}

static uint64_t fnv_num(uint64_t h, const cJSON *doc, const char *ptr) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", np_results_num(doc, ptr));
  return fnv(h, buf);
}

/* A runner snapshot read back, or NULL (problem reported when broken). */
static struct np_kernel *kernel_of(struct np_results_check *c,
                                   const struct np_chk_cur *cur, int which) {
  struct np_kernel *k = NULL;
  struct np_errbuf eb = {{0}};
  if (cur->data[which] == NULL)
    return NULL;
  if (np_kernel_parse_raw(cur->data[which], cur->len[which], &k, &eb) != 0) {
    np_chk__problem(c, cur->kfile[which], "", "%s", eb.msg);
    return NULL;
  }
  return k;
}

/* The exit code a benchmark's record implies: 0, 1, 128 + the signal its
 * first reason names; -1 for an interrupted record that names none. */
static int expected_exit(const cJSON *doc) {
  const char *st = np_json_get_string(doc, "status", "");
  if (strcmp(st, "passed") == 0)
    return 0;
  if (strcmp(st, "failed") == 0)
    return 1;
  const cJSON *r0 =
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "reasons"), 0);
  const char *why = cJSON_IsString(r0) ? r0->valuestring : "";
  return strcmp(why, "interrupted by SIGINT") == 0    ? 130
         : strcmp(why, "interrupted by SIGTERM") == 0 ? 143
                                                      : -1;
}

/* The outcome a runner-written record implies, checked against cmd.txt. */
static void check_failure_outcome(struct np_results_check *c, const char *f,
                                  const char *cf, const cJSON *doc,
                                  const char *outcome) {
  const cJSON *fl = cJSON_GetObjectItemCaseSensitive(doc, "failure");
  const char *kind = np_json_get_string(fl, "kind", "");
  const char *reason = np_json_get_string(fl, "reason", "");
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(fl, "exit_code");
  const char *sig = np_json_get_string(fl, "signal", NULL);
  char want[128] = "";
  if (strcmp(kind, "timeout") == 0) {
    if (strncmp(outcome, "timeout: killed after ", 22) != 0)
      np_chk__problem(c, cf, "",
                      "outcome \"%s\", but %s says the child timed out",
                      outcome, f);
    return;
  }
  if (strcmp(kind, "signal") == 0 && sig != NULL) {
    const char *paren = strchr(outcome, '(');
    if (strncmp(outcome, "signal ", 7) != 0 || paren == NULL ||
        strncmp(paren + 1, sig + 3, strlen(sig + 3)) != 0)
      np_chk__problem(c, cf, "",
                      "outcome \"%s\", but %s says the child was killed by %s",
                      outcome, f, sig);
  } else if (cJSON_IsNumber(code)) {
    snprintf(want, sizeof want, "exit %.0f", code->valuedouble);
    if (strcmp(outcome, want) != 0)
      np_chk__problem(c, cf, "", "outcome \"%s\", but %s says \"%s\"", outcome,
                      f, want);
  }
  if (outcome[0] && strncmp(reason, outcome, strlen(outcome)) != 0)
    np_chk__problem(c, f, "/failure/reason",
                    "\"%s\" does not start with the outcome rep-N.cmd.txt "
                    "records (\"%s\")",
                    reason, outcome);
}

/* Join argv[from..to) by '\x1f' (malloc'd), without the runner's
 * per-repetition "--output X" and "--keep X" (exec's kept output) before
 * a "--" that starts an exec record's program. */
static char *join_args(char **argv, int from, int to) {
  size_t n = 1;
  for (int i = from; i < to; i++)
    n += strlen(argv[i]) + 1;
  char *s = malloc(n), *w = s;
  if (s == NULL)
    return NULL;
  *w = '\0';
  int program = 0;
  for (int i = from; i < to; i++) {
    program |= strcmp(argv[i], "--") == 0;
    if (!program && i + 1 < to &&
        (strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "--keep") == 0)) {
      i++;
      continue;
    }
    w += sprintf(w, "%s%s", w == s ? "" : "\x1f", argv[i]);
  }
  return s;
}

/* cmd.txt against the record: command, --output, outcome, times. */
static void check_cmd(struct np_results_check *c, const struct np_chk_cur *cur,
                      const cJSON *doc, struct np_chk_run *run) {
  char cf[NP_CHK_PATH_MAX + 16];
  snprintf(cf, sizeof cf, "%s.cmd.txt", cur->stem);
  if (cur->data[NP_CHK_CMD] == NULL)
    return; /* reported as a missing file */
  struct np_chk_cmd cmd;
  np_chk__cmd_parse(cur->data[NP_CHK_CMD], cur->len[NP_CHK_CMD], &cmd);
  run->cmd_start = cmd.start;
  run->cmd_end = cmd.end;
  run->cmd_whole = cmd.start_whole || cmd.end_whole;
  if (!cmd.ok || cmd.argc < 2) {
    np_chk__problem(c, cf, "", "no \"command: \" line the runner writes");
    np_chk__cmd_free(&cmd);
    return;
  }
  run->binary = strdup(cmd.argv[0]);
  /* the command a record's kind runs: `udp --connect` writes udp-external */
  const struct np_kind *kind = np_kind_find(run->protocol);
  const char *want_cmd = kind ? kind->command : run->protocol;
  if (strcmp(cmd.argv[1], want_cmd) != 0)
    np_chk__problem(c, cf, "", "runs \"%s\", but %s is a %s record",
                    cmd.argv[1], run->file, run->protocol);
  /* --output: this repetition's own file, under one folder */
  char want[NP_CHK_PATH_MAX + 32];
  snprintf(want, sizeof want, "%s.json.tmp", cur->stem);
  const char *out = NULL;
  for (int i = 2; i + 1 < cmd.argc; i++)
    if (strcmp(cmd.argv[i], "--output") == 0)
      out = cmd.argv[i + 1];
  size_t ol = out ? strlen(out) : 0, wl = strlen(want);
  if (out == NULL)
    np_chk__problem(c, cf, "",
                    "the command has no --output (the runner "
                    "always names the repetition's file)");
  else if (ol < wl || strcmp(out + ol - wl, want) != 0 ||
           (ol > wl && out[ol - wl - 1] != '/'))
    np_chk__problem(c, cf, "",
                    "--output %s is not this repetition's file (%s of the "
                    "set's folder)",
                    out, want);
  else
    run->out_prefix = strndup(out, ol > wl ? ol - wl - 1 : 0);
  run->args = join_args(cmd.argv, 2, cmd.argc);
  /* the record's command: the bench's argv from the subcommand on, or the
   * runner's [binary, protocol, options] */
  char **rv = NULL;
  int rc_argc = 0;
  if (np_chk__record_argv(doc, &rv, &rc_argc) == 0) {
    /* bench: [protocol, options..., --output X]; runner: [binary,
     * protocol, options...] */
    int from = run->runner_written ? 2 : 1;
    if (rc_argc >= from)
      run->rec_args = join_args(rv, from, rc_argc);
    char *want_args = run->runner_written ? join_args(cmd.argv, 0, cmd.argc)
                                          : NULL;
    char *have = run->runner_written ? join_args(rv, 0, rc_argc) : NULL;
    int same = 1;
    if (run->runner_written)
      same = want_args && have && strcmp(want_args, have) == 0;
    else if (rc_argc != cmd.argc - 1)
      same = 0;
    else
      for (int i = 0; i < rc_argc && same; i++)
        same = strcmp(rv[i], cmd.argv[i + 1]) == 0;
    if (!same) {
      char line[600];
      size_t o = 0;
      for (int i = 1; i < cmd.argc && o < sizeof line - 2; i++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i > 1 ? " " : "",
                              cmd.argv[i]);
      np_chk__problem(c, cf, "",
                      "the command (%.400s) is not the one %s ran "
                      "(/config/command)",
                      line, run->file);
    }
    free(want_args);
    free(have);
    np_chk__argv_free(rv, rc_argc);
  }
  /* outcome */
  if (cmd.outcome[0] == '\0' || cmd.end == NP_CHK_NO_TIME)
    np_chk__problem(c, cf, "",
                    "no outcome or ended_at: the runner rewrites this file "
                    "when the child ends, before the record is in place");
  else if (run->runner_written)
    check_failure_outcome(c, run->file, cf, doc, cmd.outcome);
  else {
    int code = expected_exit(doc);
    char w[32];
    snprintf(w, sizeof w, "exit %d", code);
    if (code >= 0 && strcmp(cmd.outcome, w) != 0)
      np_chk__problem(c, cf, "",
                      "outcome \"%s\", but %s is %s, which exits with %d",
                      cmd.outcome, run->file, run->status, code);
  }
  /* times: wall_seconds and the record inside the window */
  if (cmd.start != NP_CHK_NO_TIME && cmd.end != NP_CHK_NO_TIME) {
    double span = (double)(cmd.end - cmd.start) / 1e3;
    double slack = run->cmd_whole ? 1.0 : 0.01;
    if (cmd.end < cmd.start)
      np_chk__problem(c, cf, "", "ended_at is before started_at");
    else if (!isnan(cmd.wall) &&
             (cmd.wall > span + slack || span - cmd.wall > 2.0 + slack))
      np_chk__problem(c, cf, "",
                      "wall_seconds %.3f, but started_at to ended_at is "
                      "%.3f s",
                      cmd.wall, span);
  }
  if (run->rec_start != NP_CHK_NO_TIME && cmd.start != NP_CHK_NO_TIME &&
      !np_chk__time_le(cmd.start, cmd.start_whole, run->rec_start,
                       run->rec_whole))
    np_chk__problem(c, run->file, "/started_at",
                    "before the runner started the repetition (%s "
                    "started_at)",
                    cf);
  int64_t rend = run->rec_end != NP_CHK_NO_TIME ? run->rec_end : run->rec_start;
  if (rend != NP_CHK_NO_TIME && cmd.end != NP_CHK_NO_TIME &&
      !np_chk__time_le(rend, run->rec_whole, cmd.end, cmd.end_whole))
    np_chk__problem(
        c, run->file,
        run->rec_end != NP_CHK_NO_TIME ? "/ended_at" : "/started_at",
        "after the runner saw the repetition end (%s ended_at)", cf);
  np_chk__cmd_free(&cmd);
}

/* Plan names of a runner-written record's config (the runner wrote
 * "warmup" as "warmup_seconds" and '-' as '_'): restored, for comparison
 * with the plan's options. */
static cJSON *runner_options(const cJSON *doc) {
  cJSON *o = cJSON_CreateObject();
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "config")) {
    if (o == NULL || strcmp(it->string, "protocol") == 0 ||
        strcmp(it->string, "command") == 0)
      continue;
    char key[64];
    snprintf(key, sizeof key, "%s",
             strcmp(it->string, "warmup_seconds") == 0 ? "warmup"
                                                       : it->string);
    for (char *k = key; *k; k++)
      if (*k == '_')
        *k = '-';
    cJSON_AddItemToObject(o, key, cJSON_Duplicate(it, 1));
  }
  return o;
}

/* The evidence files every repetition keeps. */
static void check_siblings(struct np_results_check *c,
                           const struct np_chk_cur *cur) {
  for (int i = 0; i < NP_CHK_NFILES; i++) {
    if (i == NP_CHK_JSON || cur->data[i] != NULL || cur->kref[i])
      continue; /* a referenced snapshot: np_chk__snap_resolve's */
    char f[NP_CHK_PATH_MAX + 32];
    snprintf(f, sizeof f, "%s%s", cur->stem, np_chk__suffix[i]);
    np_chk__problem(c, f, "", "missing (every run keeps its %s file)",
                    np_chk__suffix[i] + 1);
  }
}

/* Files of the repetition no record named. */
static void check_others(struct np_results_check *c,
                         const struct np_chk_cur *cur) {
  for (size_t i = 0; i < cur->nother; i++)
    if (!cur->other[i].used) {
      char f[NP_CHK_PATH_MAX + 80];
      snprintf(f, sizeof f, "%s%s", cur->stem, cur->other[i].suffix);
      np_chk__problem(c, f, "",
                      "not a file of a repetition (rep-N.json, .cmd.txt, "
                      ".stderr.txt, .kernel-before.txt, .kernel-after.txt, "
                      "or output its record names)");
    }
}

/* The histogram rule's problems (np_results_hist.h), as this record's. */
struct hist_ctx {
  struct np_results_check *c; /* the check in progress */
  const char *file;           /* the record            */
};

static void on_hist_problem(void *ctx, const char *ptr, const char *reason) {
  struct hist_ctx *h = ctx;
  np_chk__problem(h->c, h->file, ptr, "%s", reason);
}

void np_chk__run_check(struct np_results_check *c, struct np_chk_cur *cur,
                       struct np_chk_run *run) {
  snprintf(run->cid, sizeof run->cid, "%s", cur->cid);
  run->rep = cur->rep;
  snprintf(run->file, sizeof run->file, "%s.json", cur->stem);
  run->cmd_start = run->cmd_end = NP_CHK_NO_TIME;
  run->rec_start = run->rec_end = NP_CHK_NO_TIME;
  run->src_hash = run->bin_hash = run->meas_hash = -1;
  np_chk__snap_resolve(c, cur);
  if (cur->data[NP_CHK_JSON] == NULL) {
    /* a repetition the runner did not finish (killed, interrupted): its
     * first files, no record; the end of the check counts it missing */
    run->partial = 1;
    return;
  }
  int valid;
  cJSON *doc = np_chk__json(c, run->file, cur->data[NP_CHK_JSON],
                            cur->len[NP_CHK_JSON], "netproof/run/1", &valid);
  check_siblings(c, cur);
  if (!cJSON_IsObject(doc)) {
    cJSON_Delete(doc);
    run->partial = 1;
    for (size_t i = 0; i < cur->nother; i++)
      cur->other[i].used = 1; /* its record cannot name them: unchecked */
    return;
  }
  run->have_record = 1;
  run->runner_written = cJSON_HasObjectItem(doc, "failure");
  snprintf(run->status, sizeof run->status, "%s",
           np_json_get_string(doc, "status", "invalid"));
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
  snprintf(run->protocol, sizeof run->protocol, "%s",
           np_json_get_string(cfg, "protocol", "?"));
  run->rps = np_results_num(doc, "/measurement/roundtrips_per_sec");
  snprintf(run->session, sizeof run->session, "%s",
           np_json_get_string(cJSON_GetObjectItemCaseSensitive(doc, "runner"),
                              "session", ""));
  int w1 = 0, w2 = 0;
  run->rec_start =
      np_chk__time(np_json_get_string(doc, "started_at", NULL), &w1);
  run->rec_end = np_chk__time(np_json_get_string(doc, "ended_at", NULL), &w2);
  run->rec_whole = w1 || w2;
  if (run->rec_start != NP_CHK_NO_TIME && run->rec_end != NP_CHK_NO_TIME &&
      run->rec_end < run->rec_start)
    np_chk__problem(c, run->file, "/ended_at", "before started_at");
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
  run->src_hash =
      np_chk__intern(c, np_json_get_string(tool, "source_sha256", NULL));
  run->bin_hash =
      np_chk__intern(c, np_json_get_string(tool, "binary_sha256", NULL));
  run->meas_hash = np_chk__intern(
      c, np_json_get_string(tool, "measuring_source_sha256", NULL));
  run->identity =
      np_chk__identity(cJSON_GetObjectItemCaseSensitive(doc, "machine"));
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv(h, np_json_get_string(doc, "started_at", ""));
  h = fnv(h, np_json_get_string(doc, "ended_at", ""));
  h = fnv_num(h, doc, "/measurement/roundtrips");
  h = fnv_num(h, doc, "/measurement/rtt_us/mean");
  h = fnv_num(h, doc, "/measurement/cpu_user_seconds");
  h = fnv_num(h, doc, "/measurement/cpu_sys_seconds");
  h = fnv_num(h, doc, "/failure/wall_seconds");
  run->fingerprint = h;
  struct np_kernel *kb = kernel_of(c, cur, NP_CHK_KBEFORE);
  struct np_kernel *ka = kernel_of(c, cur, NP_CHK_KAFTER);
  (void)valid; /* a record the schema refuses is still checked: every
                 problem is reported, not only the first kind */
  {
    struct np_chk_rec r = {.c = c,
                           .file = run->file,
                           .stem = cur->stem,
                           .doc = doc,
                           .kb = kb,
                           .ka = ka,
                           .kb_file = cur->kfile[NP_CHK_KBEFORE],
                           .ka_file = cur->kfile[NP_CHK_KAFTER],
                           .stderr_text = cur->data[NP_CHK_STDERR],
                           .stderr_len = cur->len[NP_CHK_STDERR],
                           .cur = cur};
    if (run->runner_written)
      run->options = runner_options(doc);
    else
      np_chk__kind_record(np_kind_find(run->protocol), &r);
    /* every record's histograms reproduce their summaries */
    struct hist_ctx hc = {.c = c, .file = run->file};
    np_results_check_hist(doc, on_hist_problem, &hc);
    if (!run->runner_written && cJSON_HasObjectItem(doc, "kernel"))
      np_chk__kernel(&r);
  }
  check_cmd(c, cur, doc, run);
  check_others(c, cur);
  run->entry = np_results_summary_rep(run->protocol, (int)run->rep, doc, kb,
                                      ka);
  if (run->entry == NULL || run->identity == NULL)
    c->oom = 1;
  np_kernel_free(kb);
  np_kernel_free(ka);
  cJSON_Delete(doc);
}
