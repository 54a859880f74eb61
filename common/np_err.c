/*
 * np_err.c - messages and names for the NP_E* codes (from NP_ERRNO_MAP),
 * errno translation and errno names (both from NP_ERRNO_TABLE).
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
#define NP_ERRNO_CODE_(e, code)                                              \
  case e:                                                                    \
    return code;
    NP_ERRNO_TABLE(NP_ERRNO_CODE_)
#undef NP_ERRNO_CODE_
  default:
    return NP_ESYS;
  }
}

const char *np_errno_name(int errnum) {
  switch (errnum) {
#define NP_ERRNO_NAME_(e, code)                                              \
  case e:                                                                    \
    return #e;
    NP_ERRNO_TABLE(NP_ERRNO_NAME_)
#undef NP_ERRNO_NAME_
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
