/*
 * test_agent_auth.c - the token file's rules (owner-only, ours, regular -
 * a FIFO refused at once, not waited on - 64..1024 hex digits; every
 * refusal names the file and never shows its content) and the handshake
 * MACs against values computed independently (Python's hmac,
 * docs/agent.md's recipe), both sides' labels apart, the constant-time
 * check refusing any difference.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_agent_auth.h"
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

static void test_mac(void) {
  struct np_agent_token t;
  for (int i = 0; i < 32; i++)
    t.key[i] = (unsigned char)i;
  t.len = 32;
  unsigned char sn[32], cn[32], mac[32];
  memset(sn, 0x11, sizeof sn);
  memset(cn, 0x22, sizeof cn);
  cJSON *p = cJSON_Parse("{\"client\":\"c\",\"agent\":\"a:1\","
                         "\"purpose\":\"p\"}");
  char hex[65];
  ASSERT_OK(np_agent_auth_mac(&t, NP_AGENT_SIDE_CLIENT, sn, cn, p, mac));
  np_agent_hex(mac, 32, hex);
  ASSERT_STR_EQ(hex, "386100ec4a4f0a2cd23aeea01a8a0abc"
                     "0259904d06c80ab11a5379ec1f8d0943");
  ASSERT_TRUE(np_agent_auth_equal(hex, mac));
  hex[63] = hex[63] == '3' ? '4' : '3';
  ASSERT_TRUE(!np_agent_auth_equal(hex, mac));
  ASSERT_TRUE(!np_agent_auth_equal("xyz", mac));
  ASSERT_TRUE(!np_agent_auth_equal(NULL, mac));
  ASSERT_OK(np_agent_auth_mac(&t, NP_AGENT_SIDE_AGENT, sn, cn, p, mac));
  np_agent_hex(mac, 32, hex);
  ASSERT_STR_EQ(hex, "e1907d72de3882cda970b3d32ab58238"
                     "175c1ac04c91d2e830ae07cfd6e54c22");
  /* any input changes the MAC: the nonces and the parameters */
  unsigned char other[32];
  cn[0] ^= 1;
  ASSERT_OK(np_agent_auth_mac(&t, NP_AGENT_SIDE_AGENT, sn, cn, p, other));
  ASSERT_TRUE(memcmp(other, mac, 32) != 0);
  cn[0] ^= 1;
  cJSON_ReplaceItemInObject(p, "purpose", cJSON_CreateString("q"));
  ASSERT_OK(np_agent_auth_mac(&t, NP_AGENT_SIDE_AGENT, sn, cn, p, other));
  ASSERT_TRUE(memcmp(other, mac, 32) != 0);
  cJSON_Delete(p);
  unsigned char r1[32], r2[32];
  ASSERT_OK(np_agent_random(r1, 32));
  ASSERT_OK(np_agent_random(r2, 32));
  ASSERT_TRUE(memcmp(r1, r2, 32) != 0);
}

int main(void) {
  ASSERT_NOT_NULL(mkdtemp(dir));
  test_token_file();
  test_mac();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
  return 0;
}
