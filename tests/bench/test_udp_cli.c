/* Every usage error of `netproof-bench udp`: exit 2 and one clear line. */
#include <stdio.h>
#include <string.h>

#include "np_test.h"
#include "np_udp_cli.h"

static int parse(const char *const *args, struct np_udp_config *cfg,
                 struct np_errbuf *eb) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)"udp";
  for (; *args; args++)
    argv[argc++] = (char *)*args;
  int help = 0;
  return np_udp_cli_parse(argc, argv, cfg, &help, eb);
}

/* args must fail with NP_EUSAGE and a message containing want. */
static void expect_usage(const char *want, const char *const *args) {
  struct np_udp_config cfg;
  struct np_errbuf eb = {{0}};
  int rc = parse(args, &cfg, &eb);
  if (rc != NP_EUSAGE || !strstr(eb.msg, want)) {
    fprintf(stderr, "args starting %s: rc %d, message '%s', want '%s'\n",
            args[0], rc, eb.msg, want);
    ASSERT_EQ(rc, NP_EUSAGE);
    ASSERT_TRUE(strstr(eb.msg, want) != NULL);
  }
  ASSERT_TRUE(strchr(eb.msg, '\n') == NULL); /* one line */
}

#define USAGE(want, ...)                                                    \
  do {                                                                      \
    const char *const a_[] = {__VA_ARGS__, NULL};                           \
    expect_usage(want, a_);                                                 \
  } while (0)

static void test_defaults(void) {
  struct np_udp_config cfg;
  struct np_errbuf eb = {{0}};
  const char *const none[] = {NULL};
  ASSERT_OK(parse(none, &cfg, &eb));
  ASSERT_EQ(cfg.payload, 1024);
  ASSERT_EQ(cfg.clients, 16);
  ASSERT_EQ(cfg.window, 1);
  ASSERT_EQ(cfg.io_model, NP_UDP_IO_SINGLE);
  ASSERT_EQ(cfg.backend, NP_UDP_BACKEND_UV);
  ASSERT_DBL_NEAR(cfg.warmup, 0.25, 0);
  ASSERT_DBL_NEAR(cfg.seconds, 1.0, 0);
  ASSERT_EQ(cfg.send_buffer, 65536);
  ASSERT_EQ(cfg.receive_buffer, 4194304);
  ASSERT_EQ(cfg.server_receive_buffer, 4194304);
  ASSERT_STR_EQ(cfg.output, "-");
  const char *const ok[] = {"--payload=65507", "--udp-receive-buffer", "1000",
                            "--io-model", "reuseport", "--io-threads", "2",
                            "--address", "::1", "--payload", "65527", NULL};
  ASSERT_OK(parse(ok, &cfg, &eb));
  ASSERT_EQ(cfg.family, AF_INET6);
  ASSERT_EQ(cfg.payload, 65527);
  ASSERT_EQ(cfg.server_receive_buffer, 1000); /* follows --udp-receive-buffer */
  ASSERT_EQ(np_udp_config_lanes(&cfg), 2);
}

static void test_usage_errors(void) {
  USAGE("65,535 - 20 - 8 = 65,507", "--payload", "65508");
  USAGE("65,535 - 8 = 65,527", "--payload", "65528", "--address", "::1");
  USAGE("out of range", "--payload", "0");
  USAGE("out of range 1..65507", "--payload", "99999999999");
  USAGE("expected an integer", "--payload", "12x");
  USAGE("expected an integer", "--payload", "-5");
  USAGE("out of range", "--clients", "0");
  USAGE("out of range", "--clients", "4097");
  USAGE("out of range", "--window", "0");
  USAGE("out of range", "--io-threads", "65");
  USAGE("expected single, split, pool, reuseport or connected", "--io-model",
        "shared");
  USAGE("expected uv, raw or uring", "--backend", "asio");
  USAGE("expected seconds", "--seconds", "abc");
  USAGE("out of range", "--seconds", "0");
  USAGE("expected seconds", "--seconds", "nan");
  USAGE("out of range", "--warmup", "-1");
  USAGE("out of range", "--udp-send-buffer", "0");
  USAGE("out of range", "--udp-receive-buffer", "3000000000");
  USAGE("out of range", "--udp-server-receive-buffer", "0");
  USAGE("expected a literal IPv4 or IPv6", "--address", "localhost");
  USAGE("expected an integer", "--seed", "x");
  USAGE("expected an integer", "--work", "");
  USAGE("empty path", "--output", "");
  USAGE("needs a value", "--payload");
  USAGE("unknown option '--bogus'", "--bogus");
  USAGE("unexpected argument 'extra'", "extra");
  USAGE("use pool, reuseport or connected", "--io-threads", "2");
  USAGE("use pool, reuseport or connected", "--io-model", "split",
        "--io-threads", "3");
  USAGE("window must be <= 256", "--payload", "1", "--window", "257");
  USAGE("--quiet takes no value", "--quiet=1");
  USAGE("--io-threads 65: out of range 1..64", "--io-threads=65");
  USAGE("--io-model connected: places our own server", "--connect",
        "127.0.0.1:9", "--io-model", "connected");
  USAGE("--count-syscalls: not with --connect", "--connect", "127.0.0.1:9",
        "--count-syscalls");
  USAGE("--count-syscalls takes no value", "--count-syscalls=1");
}

/* The connected model and the uring backend parse; --count-syscalls sets
 * its flag. */
static void test_new_models(void) {
  struct np_udp_config cfg;
  struct np_errbuf eb = {{0}};
  const char *const a[] = {"--io-model", "connected", "--io-threads", "2",
                           "--backend", "uring", "--count-syscalls", NULL};
  ASSERT_OK(parse(a, &cfg, &eb));
  ASSERT_EQ(cfg.io_model, NP_UDP_IO_CONNECTED);
  ASSERT_EQ(cfg.backend, NP_UDP_BACKEND_URING);
  ASSERT_EQ(cfg.count_syscalls, 1);
  ASSERT_EQ(np_udp_config_lanes(&cfg), 2);
  ASSERT_STR_EQ(np_udp_io_model_name(cfg.io_model), "connected");
  ASSERT_STR_EQ(np_udp_backend_name(cfg.backend), "uring");
}

static void test_main_exit_codes(void) {
  char *bad[] = {(char *)"udp", (char *)"--payload", (char *)"70000", NULL};
  ASSERT_EQ(np_udp_cli_main(3, bad), 2);
  char *help[] = {(char *)"udp", (char *)"--help", NULL};
  ASSERT_EQ(np_udp_cli_main(2, help), 0);
}

int main(void) {
  test_defaults();
  test_usage_errors();
  test_new_models();
  test_main_exit_codes();
  return 0;
}
