/*
 * np_err.h - netproof's one error vocabulary.
 *
 * Every function in netproof that can fail returns int: 0 on success or a
 * negative NP_E* code from the list below.  errno values, OpenSSL, cJSON,
 * libarchive and plplot failures are translated to these codes at the edge
 * of the module that called them (libuv's UV_ERRNO_MAP is the model).
 * There is no global error variable; detail text travels in the caller's
 * own buffers (see np_errbuf).
 */
#ifndef NP_ERR_H
#define NP_ERR_H

#include <stddef.h>

/* X(name, value, message) - values are stable; never renumber. */
#define NP_ERRNO_MAP(X)                                                     \
  X(EINVAL, -1, "invalid argument")                                         \
  X(ENOMEM, -2, "out of memory")                                            \
  X(EIO, -3, "input/output error")                                          \
  X(ENOENT, -4, "no such file or directory")                                \
  X(EACCES, -5, "permission denied")                                        \
  X(EEXIST, -6, "file exists")                                              \
  X(EPARSE, -7, "malformed input")                                          \
  X(ETOOBIG, -8, "input exceeds size limit")                                \
  X(ETOODEEP, -9, "input exceeds nesting-depth limit")                      \
  X(ENONFINITE, -10, "non-finite number (NaN or Infinity)")                 \
  X(ESCHEMA, -11, "document does not match its schema")                    \
  X(EUNSUPPORTED, -12, "unsupported feature")                               \
  X(EREF, -13, "reference does not resolve")                                \
  X(ECRYPTO, -14, "cryptographic library error")                            \
  X(ERANGE, -15, "value out of range")                                      \
  X(EUSAGE, -16, "usage error")                                             \
  X(EAGAIN, -17, "resource temporarily unavailable")                        \
  X(EINTR, -18, "interrupted")                                              \
  X(EADDRINUSE, -19, "address already in use")                              \
  X(EADDRNOTAVAIL, -20, "address not available")                            \
  X(EMSGSIZE, -21, "message too long")                                      \
  X(ENOBUFS, -22, "no buffer space available")                              \
  X(ECONNREFUSED, -23, "connection refused")                                \
  X(ETIMEDOUT, -24, "timed out")                                            \
  X(ENOTSUP, -25, "operation not supported")                                \
  X(EAFNOSUPPORT, -26, "address family not supported")                      \
  X(ECHILD, -27, "child process failed")                                    \
  X(EARCHIVE, -28, "archive library error")                                 \
  X(EPLOT, -29, "plotting library error")                                   \
  X(ECHECK, -30, "a data check failed")                                     \
  X(ELOOP, -31, "event loop error")                                         \
  X(ENOSPC, -32, "no space left on device")                                 \
  X(EISDIR, -33, "is a directory")                                          \
  X(ENOTDIR, -34, "not a directory")                                        \
  X(ECORRUPT, -35, "data is corrupt or was tampered with")                  \
  X(ESYS, -36, "system error")                                              \
  X(EINCOMPLETE, -37, "result set is incomplete")

enum np_err {
#define NP_ERR_ENUM_(name, val, msg) NP_##name = (val),
  NP_ERRNO_MAP(NP_ERR_ENUM_)
#undef NP_ERR_ENUM_
  NP_ERR_MIN_ = -37
};

/* X(errno, NP code) - every errno value netproof names and translates, one
 * line each.  np_err_from_errno and np_errno_name are both generated from
 * it (np_err.c), so a value is named exactly when it is translated.
 * Values not listed become NP_ESYS and "EOTHER".  Expanding it needs
 * <errno.h>.  An errno that is an alias of one listed (EWOULDBLOCK ==
 * EAGAIN, EOPNOTSUPP == ENOTSUP on Linux) must not be listed again. */
#define NP_ERRNO_TABLE(X)                                                   \
  X(EINVAL, NP_EINVAL)                                                      \
  X(ENOMEM, NP_ENOMEM)                                                      \
  X(EIO, NP_EIO)                                                            \
  X(ENOENT, NP_ENOENT)                                                      \
  X(EACCES, NP_EACCES)                                                      \
  X(EPERM, NP_EACCES)                                                       \
  X(EEXIST, NP_EEXIST)                                                      \
  X(ERANGE, NP_ERANGE)                                                      \
  X(EAGAIN, NP_EAGAIN)                                                      \
  X(EINTR, NP_EINTR)                                                        \
  X(EADDRINUSE, NP_EADDRINUSE)                                              \
  X(EADDRNOTAVAIL, NP_EADDRNOTAVAIL)                                        \
  X(EMSGSIZE, NP_EMSGSIZE)                                                  \
  X(ENOBUFS, NP_ENOBUFS)                                                    \
  X(ECONNREFUSED, NP_ECONNREFUSED)                                          \
  X(ETIMEDOUT, NP_ETIMEDOUT)                                                \
  X(ENOTSUP, NP_ENOTSUP)                                                    \
  X(EAFNOSUPPORT, NP_EAFNOSUPPORT)                                          \
  X(ECHILD, NP_ECHILD)                                                      \
  X(ENOSPC, NP_ENOSPC)                                                      \
  X(EISDIR, NP_EISDIR)                                                      \
  X(ENOTDIR, NP_ENOTDIR)                                                    \
  X(EFBIG, NP_ETOOBIG)                                                      \
  X(EHOSTUNREACH, NP_ESYS)                                                  \
  X(ENETUNREACH, NP_ESYS)                                                   \
  X(EBADF, NP_ESYS)                                                         \
  X(EPIPE, NP_ESYS)

/* Process exit codes shared by every netproof program (documented in README). */
enum np_exit {
  NP_EXIT_OK = 0,      /* everything passed / valid                    */
  NP_EXIT_FAIL = 1,    /* a data check failed, a document is invalid   */
  NP_EXIT_USAGE = 2,   /* bad command line or unreadable input         */
  NP_EXIT_RUNTIME = 3, /* environment or run-time error                */
  NP_EXIT_INCOMPLETE = 4, /* a result set is consistent but incomplete:
                            repetitions missing (interrupted, killed,
                            --only), and nothing else is wrong       */
  NP_EXIT_INCONCLUSIVE = 5 /* a comparison found no regression but had
                              too few runs a side to show one at alpha
                              (netproof-report compare)               */
};

/* Human message for code; "unknown error" for anything not in the map. */
const char *np_strerror(int code);

/* Symbolic name ("NP_EINVAL"); "NP_UNKNOWN" for anything not in the map. */
const char *np_err_name(int code);

/* Translate a positive errno value (e.g. errno after a failed syscall) into
 * an NP_E* code by NP_ERRNO_TABLE; 0 stays 0, unlisted values become
 * NP_ESYS. */
int np_err_from_errno(int errnum);

/* Name of a positive errno value ("ENOBUFS") listed in NP_ERRNO_TABLE, for
 * records; "EOTHER" for any other value; never NULL. */
const char *np_errno_name(int errnum);

/* A caller-owned buffer that carries a one-line detail message alongside a
 * returned code, e.g. "results/x.json: /measurement/seconds: expected number".
 * Functions that take a struct np_errbuf * may pass NULL to skip detail. */
struct np_errbuf {
  char msg[512];
};

/* printf-style write into eb (if non-NULL); returns code unchanged so it can
 * be used as `return np_errbuf_set(eb, NP_EPARSE, "...")`. */
int np_errbuf_set(struct np_errbuf *eb, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* NP_ERR_H */
