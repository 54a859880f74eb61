/*
 * test_addr_options.c - every ADDR:PORT option of every command goes
 * through the one parser (common/np_addr.h) by its row's type, with the
 * port-0 rule: a row that binds (--listen) takes port 0 (any), a row that
 * names a peer (--connect, --agent, --forward, --relay) refuses it.
 *   - the tables: each row whose placeholder is ADDR:PORT / HOST:PORT is a
 *     NP_BENCH_OPT_HOSTPORT row, ANYPORT exactly on --listen;
 *   - the commands: one line per bad address in np_addr's words, the same
 *     for every command (the relay used to say "expected ADDR:PORT with a
 *     literal address ..." for everything, and took --forward :0; rudp
 *     took --relay :0 and then waited for its statistics);
 *   - the parsed address reaches the configuration (serve, relay, agent,
 *     udp --connect) without a second parse.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "np_agent.h"
#include "np_relay_cmd.h"
#include "np_rudp_options.h"
#include "np_test.h"
#include "np_udp_options.h"
#include "np_udp_serve.h"

static const struct np_bench_optset *const sets[] = {
    &np_udp_optset, &np_udp_serve_optset, &np_relay_cmd_optset,
    &np_rudp_optset, &np_agent_optset, &np_rudp_serve_optset};

static void test_tables(void) {
  size_t rows = 0;
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
    const struct np_bench_optset *s = sets[k];
    for (size_t i = 0; i < np_bench_opt_count(s); i++) {
      const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
      const char *mv = np_bench_opt_metavar(o);
      int hostport = strcmp(mv, "ADDR:PORT") == 0 ||
                     strcmp(mv, "HOST:PORT") == 0;
      if (hostport != (o->type == NP_BENCH_OPT_HOSTPORT))
        NP_TEST_FAIL_("%s --%s: placeholder %s but type %d", s->command,
                      o->name, mv, (int)o->type);
      if (!hostport)
        continue;
      rows++;
      int binds = strcmp(o->name, "listen") == 0;
      if (binds != ((o->flags & NP_BENCH_OPT_ANYPORT) != 0))
        NP_TEST_FAIL_("%s --%s: port 0 %s", s->command, o->name,
                      binds ? "refused where it binds" : "taken for a peer");
    }
  }
  /* udp --connect --agent, serve/relay/agent --listen, relay --forward,
   * rudp --relay --connect --agent, rudp-serve --listen */
  ASSERT_EQ(rows, 10);
}

/* argv (NULL-terminated, after the command) refused by s with msg. */
static void refused(const struct np_bench_optset *s, const char *msg,
                    const char *const *args) {
  char *argv[16] = {(char *)s->command};
  int argc = 1;
  while (args[argc - 1] != NULL && argc < 15) {
    argv[argc] = (char *)args[argc - 1];
    argc++;
  }
  argv[argc] = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_bench_opt_check(s, argc, argv, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, msg);
}

#define REFUSED(set, msg, ...)                                              \
  refused(&(set), msg, (const char *const[]){__VA_ARGS__, NULL})

static void test_messages(void) {
  REFUSED(np_relay_cmd_optset,
          "--listen '::1:9': expected ADDR:PORT such as 127.0.0.1:9000 or "
          "[::1]:9000 (IPv6 in brackets)",
          "--listen", "::1:9", "--forward", "127.0.0.1:9");
  REFUSED(np_relay_cmd_optset,
          "--listen '[::1': expected [IPv6]:PORT such as [::1]:9000",
          "--listen", "[::1", "--forward", "127.0.0.1:9");
  REFUSED(np_relay_cmd_optset,
          "--forward '127.0.0.1:0': port out of range 1..65535", "--listen",
          "127.0.0.1:0", "--forward", "127.0.0.1:0");
  REFUSED(np_rudp_optset, "--relay '127.0.0.1:0': port out of range 1..65535",
          "--relay", "127.0.0.1:0", "--relay-stats", "s.jsonl");
  REFUSED(np_rudp_optset,
          "--relay 'relay:9000': 'relay' is not a literal IPv4 address or a "
          "bracketed IPv6 one (names are not looked up)",
          "--relay", "relay:9000", "--relay-stats", "s.jsonl");
  REFUSED(np_udp_serve_optset,
          "--listen '127.0.0.1:70000': port out of range 0..65535",
          "--listen", "127.0.0.1:70000");
  REFUSED(np_udp_optset,
          "--connect '127.0.0.1': expected ADDR:PORT such as 127.0.0.1:9000 "
          "or [::1]:9000",
          "--connect", "127.0.0.1");
  REFUSED(np_udp_optset, "--connect '[::1]:0': port out of range 1..65535",
          "--connect", "[::1]:0");
  REFUSED(np_udp_optset, "--agent ':7000': no address before the port",
          "--agent", ":7000", "--token-file", "t");
  /* the agent's --listen takes port 0, so its range says 0 */
  REFUSED(np_agent_optset,
          "--listen '127.0.0.1:x': port out of range 0..65535", "--listen",
          "127.0.0.1:x", "--token-file", "t", "--max-seconds", "1");
  REFUSED(np_agent_optset,
          "--listen '127.0.0.1:': no port after the address", "--listen",
          "127.0.0.1:", "--token-file", "t", "--max-seconds", "1");
}

static void test_stored(void) {
  struct np_errbuf eb = {{0}};
  int help = 0;
  struct np_udp_config u;
  char *serve[] = {"serve", "--listen", "[::1]:0", NULL};
  ASSERT_OK(np_bench_opt_parse(&np_udp_serve_optset, 3, serve, &u, &help,
                               &eb));
  ASSERT_STR_EQ(u.address, "::1");
  ASSERT_EQ(u.family, AF_INET6);
  ASSERT_EQ(u.port, 0);
  ASSERT_STR_EQ(u.listen, "[::1]:0");
  char *udp[] = {"udp", "--connect", "127.0.0.2:9001", NULL};
  ASSERT_OK(np_bench_opt_parse(&np_udp_optset, 3, udp, &u, &help, &eb));
  ASSERT_STR_EQ(u.address, "127.0.0.2");
  ASSERT_EQ(u.family, AF_INET);
  ASSERT_EQ(u.port, 9001);
  struct np_relay_cmd_config r;
  char *relay[] = {"relay", "--listen", "127.0.0.1:0", "--forward",
                   "127.0.0.1:9000", NULL};
  ASSERT_OK(np_relay_cmd_parse(5, relay, &r, &help, &eb));
  ASSERT_STR_EQ(r.listen_text, "127.0.0.1:0");
  ASSERT_STR_EQ(r.forward_text, "127.0.0.1:9000");
  char buf[NP_ADDR_TEXT];
  np_addr_sa_format((const struct sockaddr *)&r.net.forward, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "127.0.0.1:9000");
  np_addr_sa_format((const struct sockaddr *)&r.net.listen, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "127.0.0.1:0");
  struct np_agent_config a;
  char *agent[] = {"agent", "--listen", "[::1]:0", "--token-file", "t",
                   "--max-seconds", "1", NULL};
  ASSERT_OK(np_bench_opt_parse(&np_agent_optset, 7, agent, &a, &help, &eb));
  np_addr_format(&a.listen_addr, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "[::1]:0");
  ASSERT_EQ(a.listen_addr.len, (socklen_t)sizeof(struct sockaddr_in6));
}

int main(void) {
  test_tables();
  test_messages();
  test_stored();
  return 0;
}
