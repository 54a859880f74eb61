/*
 * np_time.h - the one timestamp format of every netproof file, and the
 * monotonic clock.
 *
 * Wall-clock times in records, suite files and command files are RFC 3339
 * UTC with milliseconds, "2026-12-01T09:27:49.123Z" (always 24 characters).
 * Sets written before 0.2 hold whole seconds ("2026-11-30T05:49:31Z");
 * np_time_parse reads both, so old sets keep passing their self-check.
 * Durations are measured on CLOCK_MONOTONIC, never on the wall clock.
 */
#ifndef NP_TIME_H
#define NP_TIME_H

#include <stddef.h>
#include <stdint.h>

/* Room for a timestamp and its NUL, with slack. */
#define NP_TIME_TEXT_MAX 32

/* Now, as "YYYY-MM-DDTHH:MM:SS.mmmZ" into buf (len >= 25; shorter buffers
 * get an empty string). */
void np_time_utc_now(char *buf, size_t len);

/* The wall-clock instant ms (milliseconds since the Unix epoch) in the
 * same format. */
void np_time_utc_format(int64_t ms, char *buf, size_t len);

/* Parse "YYYY-MM-DDTHH:MM:SSZ" or "YYYY-MM-DDTHH:MM:SS.fffZ" (1-9
 * fraction digits, truncated to milliseconds) into milliseconds since
 * the epoch.  Nothing else is accepted: no offsets, no lower-case 't'/'z',
 * no trailing text.  NP_EPARSE when s is not such a timestamp; *ms is
 * written on success only. */
int np_time_parse(const char *s, int64_t *ms);

/* CLOCK_MONOTONIC in nanoseconds and in seconds. */
uint64_t np_time_mono_ns(void);
double np_time_mono_s(void);

#endif /* NP_TIME_H */
