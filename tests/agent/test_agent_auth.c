/*
 * test_agent_auth.c - the token file's rules (owner-only, ours, regular -
 * a FIFO refused at once, not waited on - 64..1024 hex digits; every
 * refusal names the file and never shows its content), the TLS PSK and key
 * id derived from it against values computed independently, and the PSK
 * identity's one form.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_agent_auth.h"
#include "np_agent_tls.h"
#include "np_agent_wire.h"
#include "np_test.h"

static char dir[] = "/tmp/np-agent-auth-XXXXXX";

static const char *put(const char *name, const char *content, mode_t mode) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ASSERT_NOT_NULL(f);
  fputs(content, f);
  fclose(f);
  ASSERT_OK(chmod(path, mode));
  return path;
}

static int load(const char *path, struct np_agent_token *t,
                struct np_errbuf *eb) {
  memset(eb, 0, sizeof *eb);
  return np_agent_token_load(path, "--token-file", t, eb);
}

#define GOOD "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void test_token_file(void) {
  struct np_agent_token t;
  struct np_errbuf eb;
  ASSERT_OK(load(put("good", GOOD "\n", 0600), &t, &eb));
  ASSERT_EQ(t.len, 32);
  for (int i = 0; i < 32; i++)
    ASSERT_EQ(t.key[i], i);
  ASSERT_OK(load(put("upper", "000102030405060708090A0B0C0D0E0F"
                              "101112131415161718191A1B1C1D1E1F",
                     0400),
                 &t, &eb));
  static const struct {
    const char *name, *content;
    mode_t mode;
    int code;
  } bad[] = {
      {"open", GOOD "\n", 0644, NP_EACCES},
      {"group", GOOD "\n", 0640, NP_EACCES},
      {"other-write", GOOD "\n", 0602, NP_EACCES},
      {"short", "000102030405060708090a0b0c0d0e0f\n", 0600, NP_EPARSE},
      {"odd", GOOD "0\n", 0600, NP_EPARSE},
      {"words", "correct horse battery staple correct horse battery staple "
                "correct horse\n",
       0600, NP_EPARSE},
      {"trailing", GOOD " \n", 0600, NP_EPARSE},
      {"two-lines", GOOD "\n" GOOD "\n", 0600, NP_EPARSE},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *p = put(bad[i].name, bad[i].content, bad[i].mode);
    int rc = load(p, &t, &eb);
    if (rc != bad[i].code)
      NP_TEST_FAIL_("%s: %d (%s), want %d", bad[i].name, rc, eb.msg,
                    bad[i].code);
    ASSERT_TRUE(strstr(eb.msg, p) != NULL);
    ASSERT_TRUE(strstr(eb.msg, "0001020304") == NULL);
  }
  char link[300], missing[300];
  snprintf(link, sizeof link, "%s/link", dir);
  snprintf(missing, sizeof missing, "%s/missing", dir);
  ASSERT_OK(symlink(put("target", GOOD, 0600), link));
  ASSERT_EQ(load(link, &t, &eb), NP_EACCES);
  ASSERT_EQ(load(missing, &t, &eb), NP_ENOENT);
  ASSERT_EQ(load(dir, &t, &eb), NP_EACCES);
  /* a FIFO: refused at once, not an open that waits for a writer */
  char fifo[300];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  ASSERT_OK(mkfifo(fifo, 0600));
  ASSERT_EQ(load(fifo, &t, &eb), NP_EACCES);
  ASSERT_TRUE(strstr(eb.msg, "not a regular file") != NULL);
  ASSERT_TRUE(strstr(eb.msg, fifo) != NULL);
  unlink(fifo);
  if (geteuid() == 0) {
    const char *p = put("theirs", GOOD, 0600);
    ASSERT_OK(chown(p, 65534, 65534));
    ASSERT_EQ(load(p, &t, &eb), NP_EACCES);
    ASSERT_TRUE(strstr(eb.msg, "owned by uid 65534") != NULL);
  }
  np_agent_token_wipe(&t);
  ASSERT_EQ(t.len, 0);
}

/* The PSK and key id against HKDF-SHA256 computed independently
 * (Python's hmac, RFC 5869 with an empty salt, docs/agent.md's recipe);
 * the PSK identity's form, and every other form refused. */
static void test_derive(void) {
  struct np_agent_token t;
  for (int i = 0; i < 32; i++)
    t.key[i] = (unsigned char)i;
  t.len = 32;
  unsigned char psk[NP_AGENT_PSK_LEN];
  char hex[65], kid[NP_AGENT_KEYID_HEX + 1];
  ASSERT_OK(np_agent_tls_derive(&t, psk, kid));
  np_agent_hex(psk, 32, hex);
  ASSERT_STR_EQ(hex, "623b1b1daf9178052fb6bf99520ec33e"
                     "3c022116f625fd22c02a4c87a2696c54");
  ASSERT_STR_EQ(kid, "921645f03fa22f8b");
  /* another token, another key id */
  for (int i = 0; i < 32; i++)
    t.key[i] = (unsigned char)(i + 1);
  ASSERT_OK(np_agent_tls_derive(&t, psk, kid));
  ASSERT_STR_EQ(kid, "a930a1148de98435");
  /* identities */
  char got[NP_AGENT_KEYID_HEX + 1] = "unchanged";
  const char *ok = "netproof/agent/2 key 921645f03fa22f8b";
  ASSERT_EQ(strlen(ok), NP_AGENT_IDENTITY_LEN);
  ASSERT_OK(np_agent_tls_identity_parse((const unsigned char *)ok,
                                        strlen(ok), got));
  ASSERT_STR_EQ(got, "921645f03fa22f8b");
  static const char *const bad[] = {
      "netproof/agent/2 key 921645F03FA22F8B", /* upper case   */
      "netproof/agent/2 key 921645f03fa22f8",  /* short        */
      "netproof/agent/2 key 921645f03fa22f8bb", /* long        */
      "netproof/agent/1 key 921645f03fa22f8b", /* 0.2's       */
      "netproof/agent/2 key 921645f03fa22f8g", /* not hex      */
      "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    strcpy(got, "unchanged");
    ASSERT_EQ(np_agent_tls_identity_parse((const unsigned char *)bad[i],
                                          strlen(bad[i]), got),
              NP_EPARSE);
    ASSERT_STR_EQ(got, "unchanged");
  }
  /* a NUL inside the identity */
  ASSERT_EQ(np_agent_tls_identity_parse(
                (const unsigned char *)"netproof/agent/2 key 921645f0\0fa22f8b",
                NP_AGENT_IDENTITY_LEN, got),
            NP_EPARSE);
  ASSERT_EQ(np_agent_tls_identity_parse(NULL, 0, got), NP_EPARSE);
  unsigned char r1[32], r2[32];
  ASSERT_OK(np_agent_random(r1, 32));
  ASSERT_OK(np_agent_random(r2, 32));
  ASSERT_TRUE(memcmp(r1, r2, 32) != 0);
}

int main(void) {
  ASSERT_NOT_NULL(mkdtemp(dir));
  test_token_file();
  test_derive();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
  return 0;
}
