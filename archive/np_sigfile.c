/*
 * np_sigfile.c - render and parse BUNDLE.sig (format in np_sigfile.h).
 * Base64 through OpenSSL's EVP block coder; a signature whose text is not
 * the canonical encoding of 64 bytes is refused, so one signature has one
 * spelling.
 */
#include "np_sigfile.h"

#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "np_bag.h"

#define SIG_B64_LEN 88 /* 4 * ceil(64 / 3) */

/* The keys of the six lines, in order. */
static const char *const sig_keys[] = {"netproof-signature", "algorithm",
                                       "bag", "tagmanifest-sha256",
                                       "key-sha256", "signature"};
#define SIG_LINES (sizeof(sig_keys) / sizeof(sig_keys[0]))

static int is_hex64(const char *s, size_t n) {
  if (n != 64)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

int np_sigfile_message(struct np_sigfile *s) {
  if (!np_bag_name_ok(s->bag) ||
      !is_hex64(s->tagmanifest_sha256, strlen(s->tagmanifest_sha256)) ||
      !is_hex64(s->key_sha256, strlen(s->key_sha256)))
    return NP_EINVAL;
  int n = snprintf(s->message, sizeof s->message,
                   "%s: %s\n%s: %s\n%s: %s\n%s: %s\n%s: %s\n", sig_keys[0],
                   NP_SIGFILE_VERSION, sig_keys[1], NP_SIGFILE_ALG,
                   sig_keys[2], s->bag, sig_keys[3], s->tagmanifest_sha256,
                   sig_keys[4], s->key_sha256);
  if (n < 0 || (size_t)n >= sizeof s->message)
    return NP_EINVAL;
  s->message_len = (size_t)n;
  return 0;
}

int np_sigfile_render(const struct np_sigfile *s, char *out, size_t *len) {
  unsigned char b64[SIG_B64_LEN + 1];
  if (EVP_EncodeBlock(b64, s->sig, NP_SIGFILE_SIG_BYTES) != SIG_B64_LEN)
    return NP_ECRYPTO;
  int n = snprintf(out, NP_SIGFILE_MAX, "%.*s%s: %s\n", (int)s->message_len,
                   s->message, sig_keys[5], (const char *)b64);
  if (n < 0 || n >= NP_SIGFILE_MAX)
    return NP_EINVAL;
  *len = (size_t)n;
  return 0;
}

/* The signature line's value into sig: canonical base64 of 64 bytes. */
static int parse_sig(const char *v, size_t n, unsigned char *sig) {
  unsigned char raw[SIG_B64_LEN], again[SIG_B64_LEN + 1];
  if (n != SIG_B64_LEN || v[n - 1] != '=' || v[n - 2] != '=')
    return NP_EPARSE;
  if (EVP_DecodeBlock(raw, (const unsigned char *)v, (int)n) != 66)
    return NP_EPARSE; /* 64 bytes and the two padding zeros */
  if (EVP_EncodeBlock(again, raw, NP_SIGFILE_SIG_BYTES) != SIG_B64_LEN ||
      memcmp(again, v, n) != 0)
    return NP_EPARSE;
  memcpy(sig, raw, NP_SIGFILE_SIG_BYTES);
  return 0;
}

static int why_set(char *why, size_t whylen, size_t line, const char *msg) {
  snprintf(why, whylen, "line %zu: %s", line, msg);
  return NP_EPARSE;
}

/* Check one value against its line's form; 0 or a reason. */
static const char *check_value(size_t i, const char *v, size_t n,
                               struct np_sigfile *s) {
  switch (i) {
  case 0:
    return n == 1 && v[0] == NP_SIGFILE_VERSION[0]
               ? NULL
               : "unsupported signature format version (this program "
                 "reads version 1)";
  case 1:
    return n == strlen(NP_SIGFILE_ALG) && memcmp(v, NP_SIGFILE_ALG, n) == 0
               ? NULL
               : "unsupported algorithm (only ed25519)";
  case 2:
    if (n >= sizeof s->bag)
      return "bag name too long";
    memcpy(s->bag, v, n);
    s->bag[n] = '\0';
    return np_bag_name_ok(s->bag) ? NULL
                                  : "bag name is not [A-Za-z0-9._-]+";
  case 3:
  case 4: {
    char *dst = i == 3 ? s->tagmanifest_sha256 : s->key_sha256;
    if (!is_hex64(v, n))
      return "expected 64 lowercase hex digits";
    memcpy(dst, v, n);
    dst[n] = '\0';
    return NULL;
  }
  default:
    return parse_sig(v, n, s->sig) == 0
               ? NULL
               : "not the base64 of a 64-byte signature (truncated or "
                 "altered)";
  }
}

int np_sigfile_parse(const char *text, size_t len, struct np_sigfile *out,
                     char *why, size_t whylen) {
  struct np_sigfile s;
  memset(&s, 0, sizeof s);
  if (len > NP_SIGFILE_MAX)
    return why_set(why, whylen, 1, "file larger than a signature can be");
  if (memchr(text, '\0', len) != NULL)
    return why_set(why, whylen, 1, "NUL byte in a text file");
  const char *p = text, *end = text + len;
  for (size_t i = 0; i < SIG_LINES; i++) {
    if (p == end)
      return why_set(why, whylen, i + 1,
                     "missing (the file ends early: truncated?)");
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL)
      return why_set(why, whylen, i + 1,
                     "no line end (the file ends early: truncated?)");
    size_t kl = strlen(sig_keys[i]);
    if ((size_t)(nl - p) < kl + 2 || memcmp(p, sig_keys[i], kl) != 0 ||
        p[kl] != ':' || p[kl + 1] != ' ') {
      char m[96];
      snprintf(m, sizeof m, "expected '%s: ...'", sig_keys[i]);
      return why_set(why, whylen, i + 1, m);
    }
    const char *v = p + kl + 2;
    size_t vn = (size_t)(nl - v);
    if (memchr(v, '\r', vn) != NULL)
      return why_set(why, whylen, i + 1, "carriage return (LF line ends only)");
    const char *bad = check_value(i, v, vn, &s);
    if (bad != NULL)
      return why_set(why, whylen, i + 1, bad);
    if (i == SIG_LINES - 2) {
      s.message_len = (size_t)(nl + 1 - text);
      memcpy(s.message, text, s.message_len);
    }
    p = nl + 1;
  }
  if (p != end)
    return why_set(why, whylen, SIG_LINES + 1,
                   "unexpected text after the signature line");
  *out = s;
  return 0;
}
