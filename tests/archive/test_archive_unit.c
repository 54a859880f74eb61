/*
 * test_archive_unit.c - np_archive's pure pieces: RFC 3339 parsing, name
 * and path rules, manifest checking, evidence diff, the signature file's
 * form, the record scanner; and the inputs verify cannot read at all (a
 * folder, a missing file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_archive.h"
#include "np_bag.h"
#include "np_bagit.h"
#include "np_evidence.h"
#include "np_jscan.h"
#include "np_sigfile.h"
#include "np_test.h"

static void test_parse_time(void) {
  int64_t t = 0;
  ASSERT_OK(np_evidence_parse_time("1970-01-01T00:00:00Z", &t));
  ASSERT_EQ(t, 0);
  ASSERT_OK(np_evidence_parse_time("2023-11-14T22:13:20.123456Z", &t));
  ASSERT_EQ(t, 1700000000);
  ASSERT_OK(np_evidence_parse_time("2023-11-15T00:13:20+02:00", &t));
  ASSERT_EQ(t, 1700000000);
  ASSERT_EQ(np_evidence_parse_time("2023-11-14 22:13:20Z", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time("2023-11-14T22:13:20", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time("2023-13-14T22:13:20Z", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time(NULL, &t), NP_EPARSE);
}

static void test_names(void) {
  ASSERT_TRUE(np_bag_name_ok("quick"));
  ASSERT_TRUE(np_bag_name_ok("udp-p1024_c16.w1"));
  ASSERT_TRUE(!np_bag_name_ok(""));
  ASSERT_TRUE(!np_bag_name_ok(".."));
  ASSERT_TRUE(!np_bag_name_ok(".hidden"));
  ASSERT_TRUE(!np_bag_name_ok("a/b"));
  ASSERT_TRUE(!np_bag_name_ok("a b"));
  ASSERT_TRUE(np_bagit_path_ok("runs/x/rep-1.json"));
  ASSERT_TRUE(!np_bagit_path_ok("a%20b"));
  ASSERT_TRUE(!np_bagit_path_ok("a\\b"));
  ASSERT_TRUE(!np_bagit_path_ok("a\nb"));
}

static int n_problems;
static void count_cb(void *ctx, const char *file, const char *reason) {
  (void)ctx;
  (void)file;
  (void)reason;
  n_problems++;
}

static void test_manifest(void) {
  struct np_bag *b = NULL;
  struct np_ftree *t = NULL;
  struct np_bag_files f = {0};
  ASSERT_OK(np_bag_new("bag", &b));
  ASSERT_OK(np_bag_suite(b, "s", &t));
  ASSERT_OK(np_ftree_add(t, "a.txt", "abc", 3));
  ASSERT_OK(np_ftree_add(t, "b.txt", "", 0));
  ASSERT_OK(np_bag_files_list(b, 0, &f));
  ASSERT_EQ(f.n, 2);
  ASSERT_STR_EQ(f.v[0].path, "data/s/a.txt");
  ASSERT_STR_EQ(f.v[0].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  char *m = np_bagit_manifest(&f);
  ASSERT_NOT_NULL(m);
  n_problems = 0;
  ASSERT_EQ(np_bagit_check_manifest("manifest", m, strlen(m), &f, count_cb, NULL), 0);
  /* wrong hash */
  m[0] = m[0] == '0' ? '1' : '0';
  ASSERT_EQ(np_bagit_check_manifest("manifest", m, strlen(m), &f, count_cb, NULL), 1);
  /* a line dropped: the file is unlisted */
  char *second = strchr(m, '\n') + 1;
  ASSERT_EQ(np_bagit_check_manifest("manifest", second, strlen(second), &f,
                                    count_cb, NULL), 1);
  /* a malformed line and a line for a file that is not there */
  const char *bad = "xyz\n"
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  data/s/zz\n";
  ASSERT_EQ(np_bagit_check_manifest("manifest", bad, strlen(bad), &f, count_cb,
                                    NULL), 4);
  free(m);
  np_bag_files_free(&f);
  np_bag_free(b);
}

static void test_diff(void) {
  cJSON *a = cJSON_Parse("{\"x\":[1,{\"y\":2}],\"z\":\"q\"}");
  cJSON *b = cJSON_Parse("{\"x\":[1,{\"y\":3}],\"z\":\"q\"}");
  char ptr[256] = "";
  ASSERT_EQ(np_evidence_diff(a, a, ptr, sizeof(ptr)), 0);
  ASSERT_EQ(np_evidence_diff(a, b, ptr, sizeof(ptr)), 1);
  ASSERT_STR_EQ(ptr, "/x/1/y");
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void count_ctx_cb(void *ctx, const char *file, const char *reason) {
  (void)file;
  (void)reason;
  (*(int *)ctx)++;
}

/* Inputs that cannot be read as a bundle at all: each its own code and a
 * message naming the path and what it is, nothing reported as a problem. */
static void test_unreadable(void) {
  char dir[] = "/tmp/np_archive_unitXXXXXX";
  ASSERT_NOT_NULL(mkdtemp(dir));
  struct np_errbuf eb = {{0}};
  int problems = 0;
  ASSERT_EQ(np_archive_verify(dir, NULL, count_ctx_cb, &problems, &eb),
            NP_EISDIR);
  ASSERT_TRUE(strncmp(eb.msg, dir, strlen(dir)) == 0);
  ASSERT_TRUE(strstr(eb.msg, "is a folder") != NULL);
  char missing[512];
  snprintf(missing, sizeof missing, "%s/missing.tar.gz", dir);
  ASSERT_EQ(np_archive_verify(missing, NULL, count_ctx_cb, &problems, &eb),
            NP_ENOENT);
  ASSERT_TRUE(strncmp(eb.msg, missing, strlen(missing)) == 0);
  ASSERT_EQ(problems, 0);
  /* readable but not a bundle: a problem, not an error */
  ASSERT_EQ(np_archive_verify("/dev/null", NULL, count_ctx_cb, &problems, &eb),
            NP_ECORRUPT);
  ASSERT_GT(problems, 0);
  ASSERT_OK(rmdir(dir));
}

static const char HEX_A[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const char HEX_B[] =
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

/* Version 2 (what sign writes): the bundle digest is a signed line, and
 * a version 2 file needs it. */
static void test_sigfile_v2(void) {
  struct np_sigfile s, t;
  memset(&s, 0, sizeof s);
  snprintf(s.bag, sizeof s.bag, "quick");
  memcpy(s.tagmanifest_sha256, HEX_A, 65);
  memcpy(s.key_sha256, HEX_B, 65);
  ASSERT_EQ(np_sigfile_message(&s), NP_EINVAL); /* no bundle digest */
  memcpy(s.bundle_sha256, HEX_B, 65);
  s.bundle_sha256[0] = 'a';
  ASSERT_OK(np_sigfile_message(&s));
  ASSERT_EQ(s.version, 2);
  char want[600];
  snprintf(want, sizeof want,
           "netproof-signature: 2\nalgorithm: ed25519\nbag: quick\n"
           "tagmanifest-sha256: %s\nbundle-sha256: %s\nkey-sha256: %s\n",
           HEX_A, s.bundle_sha256, HEX_B);
  ASSERT_STR_EQ(s.message, want);
  char text[NP_SIGFILE_MAX], why[256];
  size_t len;
  ASSERT_OK(np_sigfile_render(&s, text, &len));
  ASSERT_OK(np_sigfile_parse(text, len, &t, why, sizeof why));
  ASSERT_EQ(t.version, 2);
  ASSERT_STR_EQ(t.bundle_sha256, s.bundle_sha256);
  ASSERT_EQ(t.message_len, s.message_len);
  /* a version 2 file without its bundle line */
  char cut[NP_SIGFILE_MAX];
  const char *at = strstr(text, "bundle-sha256: ");
  ASSERT_NOT_NULL(at);
  const char *nl = strchr(at, '\n');
  snprintf(cut, sizeof cut, "%.*s%s", (int)(at - text), text, nl + 1);
  ASSERT_EQ(np_sigfile_parse(cut, strlen(cut), &t, why, sizeof why),
            NP_EPARSE);
  ASSERT_STR_EQ(why, "line 5: expected 'bundle-sha256: ...'");
}

/* A rendered signature parses back to the same fields; each way a file
 * can be damaged is refused with the line it is on. */
static void test_sigfile(void) {
  struct np_sigfile s, t;
  memset(&s, 0, sizeof s);
  s.version = 1; /* the 0.2 rule: still read and rendered */
  snprintf(s.bag, sizeof s.bag, "quick");
  memcpy(s.tagmanifest_sha256, HEX_A, 65);
  memcpy(s.key_sha256, HEX_B, 65);
  for (int i = 0; i < NP_SIGFILE_SIG_BYTES; i++)
    s.sig[i] = (unsigned char)(i * 7);
  ASSERT_OK(np_sigfile_message(&s));
  const char *want_msg = "netproof-signature: 1\nalgorithm: ed25519\n"
                         "bag: quick\ntagmanifest-sha256: ";
  ASSERT_TRUE(strncmp(s.message, want_msg, strlen(want_msg)) == 0);
  char text[NP_SIGFILE_MAX], why[256];
  size_t len;
  ASSERT_OK(np_sigfile_render(&s, text, &len));
  ASSERT_OK(np_sigfile_parse(text, len, &t, why, sizeof why));
  ASSERT_STR_EQ(t.bag, "quick");
  ASSERT_STR_EQ(t.tagmanifest_sha256, HEX_A);
  ASSERT_STR_EQ(t.key_sha256, HEX_B);
  ASSERT_EQ(memcmp(t.sig, s.sig, sizeof s.sig), 0);
  ASSERT_EQ(t.message_len, s.message_len);
  ASSERT_EQ(memcmp(t.message, s.message, s.message_len), 0);
  /* bad fields are refused when forming the message */
  struct np_sigfile bad = s;
  bad.key_sha256[3] = 'G';
  ASSERT_EQ(np_sigfile_message(&bad), NP_EINVAL);
  snprintf(bad.bag, sizeof bad.bag, "../x");
  ASSERT_EQ(np_sigfile_message(&bad), NP_EINVAL);
  /* damage, one kind at a time: (edit, line named in the reason) */
  struct {
    const char *from, *to;
    const char *why;
  } cases[] = {
      {"algorithm: ed25519", "algorithm: rsa", "line 2: unsupported algorithm"},
      {"bag: quick", "bag: qu ick", "line 3: bag name"},
      {"tagmanifest-sha256: 0", "tagmanifest-sha256: X", "line 4: expected 64"},
      {"key-sha256: f", "key-sha256: F", "line 5: expected 64"},
      {"key-sha256", "key_sha256", "line 5: expected 'key-sha256: ...'"},
      {"\nsignature: ", "\nsignature:", "line 6: expected 'signature: ...'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char copy[NP_SIGFILE_MAX + 8];
    const char *at = strstr(text, cases[i].from);
    ASSERT_NOT_NULL(at);
    snprintf(copy, sizeof copy, "%.*s%s%s", (int)(at - text), text,
             cases[i].to, at + strlen(cases[i].from));
    ASSERT_EQ(np_sigfile_parse(copy, strlen(copy), &t, why, sizeof why),
              NP_EPARSE);
    ASSERT_TRUE(strncmp(why, cases[i].why, strlen(cases[i].why)) == 0);
  }
  /* a signature one character short, or not canonical base64 */
  char shorter[NP_SIGFILE_MAX];
  memcpy(shorter, text, len);
  memmove(shorter + len - 4, shorter + len - 3, 3); /* drop one before "==\n" */
  ASSERT_EQ(np_sigfile_parse(shorter, len - 1, &t, why, sizeof why), NP_EPARSE);
  ASSERT_TRUE(strncmp(why, "line 6: not the base64", 22) == 0);
  /* 64 bytes end in one byte: two characters and "==", the second
   * carrying 4 padding bits; setting one decodes to the same bytes but is
   * another spelling, refused */
  static const char b64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char noncanon[NP_SIGFILE_MAX];
  memcpy(noncanon, text, len);
  size_t idx = (size_t)(strchr(b64, noncanon[len - 4]) - b64);
  noncanon[len - 4] = b64[idx ^ 1];
  ASSERT_EQ(np_sigfile_parse(noncanon, len, &t, why, sizeof why), NP_EPARSE);
  ASSERT_TRUE(strncmp(why, "line 6: not the base64", 22) == 0);
  /* the file ends early; carries a NUL; is too large */
  ASSERT_EQ(np_sigfile_parse(text, s.message_len - 1, &t, why, sizeof why),
            NP_EPARSE);
  ASSERT_TRUE(strncmp(why, "line 5: no line end", 19) == 0);
  ASSERT_EQ(np_sigfile_parse(text, 0, &t, why, sizeof why), NP_EPARSE);
  ASSERT_TRUE(strncmp(why, "line 1: missing", 15) == 0);
  char nul[NP_SIGFILE_MAX];
  memcpy(nul, text, len);
  nul[5] = '\0';
  ASSERT_EQ(np_sigfile_parse(nul, len, &t, why, sizeof why), NP_EPARSE);
  ASSERT_EQ(np_sigfile_parse(text, NP_SIGFILE_MAX + 1, &t, why, sizeof why),
            NP_EPARSE);
}

/* The scanner reads what cJSON would and skips everything else. */
static void test_jscan(void) {
  static const char *const keys[] = {"status", "started_at",
                                     "tool/source_sha256", "tool/x"};
  char *v[4];
  const char *doc =
      "{\"a\": [1, {\"status\": \"inner\"}, \"}\\\"{\"], \"tool\": "
      "{\"source_sha256\": \"abc\", \"x\": 5}, \"status\": \"pa\\u0073sed\","
      " \"status\": \"second\", \"started_at\": \"t\\\\\"}";
  ASSERT_OK(np_jscan_strings(doc, strlen(doc), keys, 4, v));
  ASSERT_STR_EQ(v[0], "passed"); /* the first top-level one, decoded */
  ASSERT_STR_EQ(v[1], "t\\");
  ASSERT_STR_EQ(v[2], "abc");
  ASSERT_TRUE(v[3] == NULL); /* a number is not a string */
  for (int i = 0; i < 4; i++)
    free(v[i]);
  const char *bad[] = {"", "[]", "{\"status\": \"x\"", "{\"status\" \"x\"}",
                       "{\"status\": \"x\"} trailing", "{\"a\": [1, 2}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ASSERT_EQ(np_jscan_strings(bad[i], strlen(bad[i]), keys, 4, v), NP_EPARSE);
    ASSERT_TRUE(v[0] == NULL && v[1] == NULL && v[2] == NULL);
  }
}

int main(void) {
  test_parse_time();
  test_names();
  test_manifest();
  test_diff();
  test_sigfile();
  test_sigfile_v2();
  test_jscan();
  test_unreadable();
  return 0;
}
