/*
 * test_agent_allow.c - the allowlist of what a peer may start: options
 * through the command's own table (serve, relay) and the agent's rules
 * on top - an address of this host (not a wildcard), port 0 or >= 1024,
 * a lifetime within what is left, nothing that names a file, no option
 * the agent sets, a relay forwarding only to a port >= 1024 of the peer
 * or to a service of the same session (never to another port of this
 * host, loopback included), its TCP passthrough only to such a service.
 */
#include <arpa/inet.h>
#include <string.h>

#include "np_agent_int.h"
#include "np_test.h"

static struct sockaddr_in peer;
/* the session's running services: 127.0.0.1:9000 once set */
static struct sockaddr_storage own[1];
static struct np_agent_targets to = {.own = own};

static int allow(enum np_agent_kind k, const char *opts, double life,
                 const char *want) {
  cJSON *o = cJSON_Parse(opts), *argv = NULL;
  const char *listen = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_NOT_NULL(o);
  int rc =
      np_agent__allow(k, o, life, 100.0, 1ull << 30, &to, &argv, &listen, &eb);
  if (rc == 0) {
    ASSERT_NOT_NULL(argv);
    ASSERT_STR_EQ(listen, cJSON_GetObjectItem(o, "listen")->valuestring);
    if (want) {
      char *text = cJSON_PrintUnformatted(argv);
      if (strcmp(text, want) != 0)
        NP_TEST_FAIL_("%s: argv %s, want %s", opts, text, want);
      cJSON_free(text);
    }
    cJSON_Delete(argv);
  } else {
    ASSERT_EQ(rc, NP_EUSAGE);
    if (want && strstr(eb.msg, want) == NULL)
      NP_TEST_FAIL_("%s: '%s' lacks '%s'", opts, eb.msg, want);
  }
  cJSON_Delete(o);
  return rc;
}

int main(void) {
  peer.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.9", &peer.sin_addr);
  to.peer = (const struct sockaddr *)&peer;
  /* allowed: the argv the child runs (the agent adds its own options) */
  ASSERT_OK(allow(NP_AGENT_SERVE,
                  "{\"listen\":\"127.0.0.1:0\",\"backend\":\"raw\","
                  "\"work\":2,\"udp-receive-buffer\":1048576}",
                  5,
                  "[\"serve\",\"--listen\",\"127.0.0.1:0\",\"--backend\","
                  "\"raw\",\"--work\",\"2\",\"--udp-receive-buffer\","
                  "\"1048576\"]"));
  ASSERT_OK(allow(NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:1024\"}", 100,
                  NULL));
  ASSERT_OK(allow(NP_AGENT_SERVE, "{\"listen\":\"[::1]:0\"}", 1, NULL));
  /* a relay to the peer (any port >= 1024), without TCP passthrough */
  ASSERT_OK(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9000\","
                  "\"loss-percent\":1,\"tcp-passthrough\":false}",
                  5,
                  "[\"relay\",\"--listen\",\"127.0.0.1:0\",\"--forward\","
                  "\"127.0.0.9:9000\",\"--loss-percent\",\"1\"]"));
  /* a relay's worst-case memory within the agent's bound (1 GiB here):
   * the default relay fits; the audit's 1 GiB x 4096 routes does not, nor
   * does 0 (the 64 MiB ceiling) x 64 routes */
  ASSERT_EQ(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9000\","
                  "\"relay-capacity-bytes\":1073741824,\"max-routes\":4096}",
                  5, "over the agent's --max-service-memory-bytes 1073741824"),
            NP_EUSAGE);
  ASSERT_EQ(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9000\","
                  "\"relay-capacity-bytes\":0}",
                  5, "max-routes 64 x (relay-capacity-bytes 67108864"),
            NP_EUSAGE);
  ASSERT_OK(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9000\","
                  "\"relay-capacity-bytes\":536870912,\"max-routes\":1}",
                  5, NULL));
  /* to one of the session's services, TCP passthrough included */
  struct sockaddr_in *svc = (struct sockaddr_in *)&own[0];
  svc->sin_family = AF_INET;
  svc->sin_port = htons(9000);
  inet_pton(AF_INET, "127.0.0.1", &svc->sin_addr);
  to.nown = 1;
  ASSERT_OK(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.1:9000\","
                  "\"tcp-passthrough\":true}",
                  5, "[\"relay\",\"--listen\",\"127.0.0.1:0\",\"--forward\","
                     "\"127.0.0.1:9000\",\"--tcp-passthrough\"]"));
  /* ... its address and port, not another port of it */
  ASSERT_EQ(allow(NP_AGENT_RELAY,
                  "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.1:9001\"}",
                  5, "neither the session's own address nor a service"),
            NP_EUSAGE);
  to.nown = 0;
  /* refused, each with its rule */
  static const struct {
    enum np_agent_kind kind;
    const char *opts;
    double life;
    const char *why;
  } bad[] = {
      {NP_AGENT_SERVE, "{\"listen\":\"192.0.2.1:9000\"}", 5,
       "not an address of this host"},
      {NP_AGENT_SERVE, "{\"listen\":\"0.0.0.0:9000\"}", 5, "wildcard"},
      {NP_AGENT_SERVE, "{\"listen\":\"[::]:9000\"}", 5, "wildcard"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:1023\"}", 5, "privileged"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\"}", 100.5,
       "over the agent's bound"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\"}", 0, "over the agent"},
      {NP_AGENT_SERVE, "{}", 5, "options/listen: required"},
      {NP_AGENT_SERVE, "{\"listen\":\"localhost:9000\"}", 5, "listen"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"record\":\"/x\"}", 5,
       "set by the agent"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"max-seconds\":1}", 5,
       "set by the agent"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"quiet\":true}", 5,
       "set by the agent"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"help\":true}", 5,
       "not for a service"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"exec\":\"sh\"}", 5,
       "not an option of serve"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"backend\":\"x\"}", 5,
       "options/backend"},
      {NP_AGENT_SERVE, "{\"listen\":\"127.0.0.1:0\",\"work\":true}", 5,
       "takes a value"},
      {NP_AGENT_SERVE,
       "{\"listen\":\"127.0.0.1:0\",\"io-model\":\"single\","
       "\"io-threads\":2}",
       5, "options: --io-threads 2"},
      {NP_AGENT_RELAY, "{\"listen\":\"127.0.0.1:0\"}", 5,
       "options/forward: required"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"192.0.2.7:9000\"}", 5,
       "neither the session's own address"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9\","
       "\"stats-lines\":\"/tmp/x\"}",
       5, "set by the agent"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9\","
       "\"tcp-passthrough\":1}",
       5, "a flag"},
      /* this host's loopback-only services are no relay targets */
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.1:22\"}", 5,
       "options/forward '127.0.0.1:22': port 22 is privileged"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.1:5432\"}", 5,
       "neither the session's own address nor a service"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"[::1]:5432\"}", 5,
       "neither the session's own address nor a service"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.1:9000\","
       "\"tcp-passthrough\":true}",
       5, "neither the session's own address nor a service"},
      /* the peer, but a privileged port, or with TCP passthrough */
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:1023\"}", 5,
       "privileged"},
      {NP_AGENT_RELAY,
       "{\"listen\":\"127.0.0.1:0\",\"forward\":\"127.0.0.9:9000\","
       "\"tcp-passthrough\":true}",
       5, "options/tcp-passthrough: only to a service of this session"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (allow(bad[i].kind, bad[i].opts, bad[i].life, bad[i].why) == 0)
      NP_TEST_FAIL_("allowed: %s", bad[i].opts);
  /* this host's addresses: loopback yes, a wildcard or a stranger no */
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ASSERT_TRUE(np_agent__addr_local((struct sockaddr *)&a));
  inet_pton(AF_INET, "0.0.0.0", &a.sin_addr);
  ASSERT_TRUE(!np_agent__addr_local((struct sockaddr *)&a));
  inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
  ASSERT_TRUE(!np_agent__addr_local((struct sockaddr *)&a));
  cJSON *list = np_agent__addresses_json();
  ASSERT_TRUE(cJSON_GetArraySize(list) >= 1);
  cJSON_Delete(list);
  return 0;
}
