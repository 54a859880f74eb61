/*
 * np_time.c - RFC 3339 UTC timestamps with milliseconds, and the monotonic
 * clock (see np_time.h).
 */
#include "np_time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "np_err.h"

void np_time_utc_format(int64_t ms, char *buf, size_t len) {
  if (len < 25) {
    if (len)
      buf[0] = '\0';
    return;
  }
  int64_t sec = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int frac = (int)(ms - sec * 1000);
  time_t t = (time_t)sec;
  struct tm tm;
  char whole[24];
  if (gmtime_r(&t, &tm) == NULL ||
      strftime(whole, sizeof whole, "%Y-%m-%dT%H:%M:%S", &tm) != 19) {
    buf[0] = '\0';
    return;
  }
  snprintf(buf, len, "%s.%03dZ", whole, frac);
}

void np_time_utc_now(char *buf, size_t len) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  np_time_utc_format((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, buf,
                     len);
}

/* n decimal digits at s into *v; 0 on success. */
static int digits(const char *s, int n, int *v) {
  *v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    *v = *v * 10 + (s[i] - '0');
  }
  return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m) {
  static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : dm[m - 1];
}

int np_time_parse(const char *s, int64_t *ms) {
  int y, mo, d, h, mi, se, frac = 0;
  if (s == NULL || strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' ||
      digits(s + 5, 2, &mo) || s[7] != '-' || digits(s + 8, 2, &d) ||
      s[10] != 'T' || digits(s + 11, 2, &h) || s[13] != ':' ||
      digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &se))
    return NP_EPARSE;
  const char *p = s + 19;
  if (*p == '.') {
    int n = 0;
    for (p++; *p >= '0' && *p <= '9'; p++, n++)
      if (n < 3)
        frac = frac * 10 + (*p - '0');
    if (n == 0 || n > 9)
      return NP_EPARSE;
    for (; n < 3; n++)
      frac *= 10;
  }
  if (p[0] != 'Z' || p[1] != '\0')
    return NP_EPARSE;
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
      mi > 59 || se > 60)
    return NP_EPARSE;
  int64_t days = days_from_civil(y, mo, d);
  *ms = ((days * 24 + h) * 60 + mi) * 60000 + (int64_t)se * 1000 + frac;
  return 0;
}

uint64_t np_time_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double np_time_mono_s(void) { return (double)np_time_mono_ns() / 1e9; }
