/*
 * np_err.c - messages and names for the NP_E* codes, errno translation.
 */
#include "np_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

const char *np_strerror(int code) {
  switch (code) {
  case 0:
    return "success";
#define NP_ERR_MSG_(name, val, msg)                                          \
  case NP_##name:                                                            \
    return msg;
    NP_ERRNO_MAP(NP_ERR_MSG_)
#undef NP_ERR_MSG_
  default:
    return "unknown error";
  }
}

const char *np_err_name(int code) {
  switch (code) {
  case 0:
    return "NP_OK";
#define NP_ERR_NAME_(name, val, msg)                                         \
  case NP_##name:                                                            \
    return "NP_" #name;
    NP_ERRNO_MAP(NP_ERR_NAME_)
#undef NP_ERR_NAME_
  default:
    return "NP_UNKNOWN";
  }
}

int np_err_from_errno(int errnum) {
  switch (errnum) {
  case 0:
    return 0;
  case EINVAL:
    return NP_EINVAL;
  case ENOMEM:
    return NP_ENOMEM;
  case EIO:
    return NP_EIO;
  case ENOENT:
    return NP_ENOENT;
  case EACCES:
  case EPERM:
    return NP_EACCES;
  case EEXIST:
    return NP_EEXIST;
  case ERANGE:
    return NP_ERANGE;
  case EAGAIN:
    return NP_EAGAIN;
  case EINTR:
    return NP_EINTR;
  case EADDRINUSE:
    return NP_EADDRINUSE;
  case EADDRNOTAVAIL:
    return NP_EADDRNOTAVAIL;
  case EMSGSIZE:
    return NP_EMSGSIZE;
  case ENOBUFS:
    return NP_ENOBUFS;
  case ECONNREFUSED:
    return NP_ECONNREFUSED;
  case ETIMEDOUT:
    return NP_ETIMEDOUT;
  case ENOTSUP:
    return NP_ENOTSUP;
  case EAFNOSUPPORT:
    return NP_EAFNOSUPPORT;
  case ECHILD:
    return NP_ECHILD;
  case ENOSPC:
    return NP_ENOSPC;
  case EISDIR:
    return NP_EISDIR;
  case ENOTDIR:
    return NP_ENOTDIR;
  case EFBIG:
    return NP_ETOOBIG;
  default:
    return NP_ESYS;
  }
}

const char *np_errno_name(int errnum) {
  switch (errnum) {
#define NP_ERRNO_CASE_(e)                                                    \
  case e:                                                                    \
    return #e;
    NP_ERRNO_CASE_(EINVAL)
    NP_ERRNO_CASE_(ENOMEM)
    NP_ERRNO_CASE_(EIO)
    NP_ERRNO_CASE_(ENOENT)
    NP_ERRNO_CASE_(EACCES)
    NP_ERRNO_CASE_(EPERM)
    NP_ERRNO_CASE_(EEXIST)
    NP_ERRNO_CASE_(ERANGE)
    NP_ERRNO_CASE_(EAGAIN)
    NP_ERRNO_CASE_(EINTR)
    NP_ERRNO_CASE_(EADDRINUSE)
    NP_ERRNO_CASE_(EADDRNOTAVAIL)
    NP_ERRNO_CASE_(EMSGSIZE)
    NP_ERRNO_CASE_(ENOBUFS)
    NP_ERRNO_CASE_(ECONNREFUSED)
    NP_ERRNO_CASE_(ETIMEDOUT)
    NP_ERRNO_CASE_(ENOTSUP)
    NP_ERRNO_CASE_(EAFNOSUPPORT)
    NP_ERRNO_CASE_(ECHILD)
    NP_ERRNO_CASE_(ENOSPC)
    NP_ERRNO_CASE_(EHOSTUNREACH)
    NP_ERRNO_CASE_(ENETUNREACH)
    NP_ERRNO_CASE_(EBADF)
    NP_ERRNO_CASE_(EPIPE)
#undef NP_ERRNO_CASE_
  default:
    return "EOTHER";
  }
}

int np_errbuf_set(struct np_errbuf *eb, int code, const char *fmt, ...) {
  if (eb != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
    va_end(ap);
  }
  return code;
}
