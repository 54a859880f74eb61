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

/* The fields a signature file can hold. */
enum sig_field { F_VERSION, F_ALG, F_BAG, F_TAGM, F_BUNDLE, F_KEY, F_SIG };

static const char *const field_key[] = {
    [F_VERSION] = "netproof-signature", [F_ALG] = "algorithm",
    [F_BAG] = "bag",                    [F_TAGM] = "tagmanifest-sha256",
    [F_BUNDLE] = "bundle-sha256",       [F_KEY] = "key-sha256",
    [F_SIG] = "signature"};

/* The lines of each version, in order; the last is the signature. */
static const enum sig_field v1_lines[] = {F_VERSION, F_ALG, F_BAG,
                                          F_TAGM,    F_KEY, F_SIG};
static const enum sig_field v2_lines[] = {F_VERSION, F_ALG,    F_BAG, F_TAGM,
                                          F_BUNDLE,  F_KEY, F_SIG};

static const enum sig_field *lines_of(int version, size_t *n) {
  if (version == 1) {
    *n = sizeof(v1_lines) / sizeof(v1_lines[0]);
    return v1_lines;
  }
  *n = sizeof(v2_lines) / sizeof(v2_lines[0]);
  return v2_lines;
}

static int is_hex64(const char *s, size_t n) {
  if (n != 64)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

int np_sigfile_message(struct np_sigfile *s) {
  if (s->version == 0)
    s->version = NP_SIGFILE_VERSION_CURRENT;
  if ((s->version != 1 && s->version != 2) || !np_bag_name_ok(s->bag) ||
      !is_hex64(s->tagmanifest_sha256, strlen(s->tagmanifest_sha256)) ||
      !is_hex64(s->key_sha256, strlen(s->key_sha256)) ||
      (s->version == 2 &&
       !is_hex64(s->bundle_sha256, strlen(s->bundle_sha256))))
    return NP_EINVAL;
  size_t nl, used = 0;
  const enum sig_field *lines = lines_of(s->version, &nl);
  for (size_t i = 0; i + 1 < nl; i++) {
    char ver[4];
    const char *v = NULL;
    switch (lines[i]) {
    case F_VERSION:
      snprintf(ver, sizeof ver, "%d", s->version);
      v = ver;
      break;
    case F_ALG:
      v = NP_SIGFILE_ALG;
      break;
    case F_BAG:
      v = s->bag;
      break;
    case F_TAGM:
      v = s->tagmanifest_sha256;
      break;
    case F_BUNDLE:
      v = s->bundle_sha256;
      break;
    case F_KEY:
      v = s->key_sha256;
      break;
    case F_SIG:
      break;
    }
    int n = snprintf(s->message + used, sizeof s->message - used, "%s: %s\n",
                     field_key[lines[i]], v ? v : "");
    if (n < 0 || (size_t)n >= sizeof s->message - used)
      return NP_EINVAL;
    used += (size_t)n;
  }
  s->message_len = used;
  return 0;
}

int np_sigfile_render(const struct np_sigfile *s, char *out, size_t *len) {
  unsigned char b64[SIG_B64_LEN + 1];
  if (EVP_EncodeBlock(b64, s->sig, NP_SIGFILE_SIG_BYTES) != SIG_B64_LEN)
    return NP_ECRYPTO;
  int n = snprintf(out, NP_SIGFILE_MAX, "%.*s%s: %s\n", (int)s->message_len,
                   s->message, field_key[F_SIG], (const char *)b64);
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
static const char *check_value(enum sig_field f, const char *v, size_t n,
                               struct np_sigfile *s) {
  switch (f) {
  case F_VERSION:
    if (n == 1 && (v[0] == '1' || v[0] == '2')) {
      s->version = v[0] - '0';
      return NULL;
    }
    return "unsupported signature format version (this program reads "
           "versions 1 and 2)";
  case F_ALG:
    return n == strlen(NP_SIGFILE_ALG) && memcmp(v, NP_SIGFILE_ALG, n) == 0
               ? NULL
               : "unsupported algorithm (only ed25519)";
  case F_BAG:
    if (n >= sizeof s->bag)
      return "bag name too long";
    memcpy(s->bag, v, n);
    s->bag[n] = '\0';
    return np_bag_name_ok(s->bag) ? NULL
                                  : "bag name is not [A-Za-z0-9._-]+";
  case F_TAGM:
  case F_BUNDLE:
  case F_KEY: {
    char *dst = f == F_TAGM     ? s->tagmanifest_sha256
                : f == F_BUNDLE ? s->bundle_sha256
                                : s->key_sha256;
    if (!is_hex64(v, n))
      return "expected 64 lowercase hex digits";
    memcpy(dst, v, n);
    dst[n] = '\0';
    return NULL;
  }
  case F_SIG:
    break;
  }
  return parse_sig(v, n, s->sig) == 0
             ? NULL
             : "not the base64 of a 64-byte signature (truncated or "
               "altered)";
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
  /* the first line says the version, and so which lines follow */
  size_t nlines = 7;
  const enum sig_field *lines = v2_lines;
  for (size_t i = 0; i < nlines; i++) {
    if (p == end)
      return why_set(why, whylen, i + 1,
                     "missing (the file ends early: truncated?)");
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL)
      return why_set(why, whylen, i + 1,
                     "no line end (the file ends early: truncated?)");
    const char *key = field_key[lines[i]];
    size_t kl = strlen(key);
    if ((size_t)(nl - p) < kl + 2 || memcmp(p, key, kl) != 0 ||
        p[kl] != ':' || p[kl + 1] != ' ') {
      char m[96];
      snprintf(m, sizeof m, "expected '%s: ...'", key);
      return why_set(why, whylen, i + 1, m);
    }
    const char *v = p + kl + 2;
    size_t vn = (size_t)(nl - v);
    if (memchr(v, '\r', vn) != NULL)
      return why_set(why, whylen, i + 1, "carriage return (LF line ends only)");
    const char *bad = check_value(lines[i], v, vn, &s);
    if (bad != NULL)
      return why_set(why, whylen, i + 1, bad);
    if (i == 0)
      lines = lines_of(s.version, &nlines);
    if (i == nlines - 2) {
      s.message_len = (size_t)(nl + 1 - text);
      memcpy(s.message, text, s.message_len);
    }
    p = nl + 1;
  }
  if (p != end)
    return why_set(why, whylen, nlines + 1,
                   "unexpected text after the signature line");
  *out = s;
  return 0;
}
