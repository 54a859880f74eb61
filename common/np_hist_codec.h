/*
 * np_hist_codec.h - a histogram (np_hist.h) as text that anyone can decode,
 * so a run record keeps the whole latency distribution, not five numbers.
 *
 * The counts travel in HdrHistogram's V2 compressed encoding, base64: the
 * payload of one line of HdrHistogram's log format ("HISTFAAA..."), which
 * every HdrHistogram implementation (Java, C, Go, Rust, JS, Python) reads.
 * Layout, all integers big-endian:
 *
 *   compressed: cookie 0x1c849314 (int32), length of what follows (int32),
 *               zlib stream of the encoding below
 *   encoding:   cookie 0x1c849313, payload length, normalizing index
 *               offset (0), significant digits (int32 each), lowest and
 *               highest trackable value (int64 each), integer-to-double
 *               ratio (IEEE 754 bits, 1.0), then counts[0 .. index of max]
 *               as ZigZag LEB128 varints (at most 9 bytes each), where a
 *               negative value -n stands for n empty counters in a row
 *
 * The encoding keeps counts per bucket, not the exact minimum, maximum,
 * sum and overflow count np_hist tracks beside them; the JSON object of a
 * record carries those four next to the text, so decoding gives back a
 * histogram whose every percentile, min, max and mean equal the
 * original's (np_hist_percentile clamps into the exact [min, max]).
 *
 * Size bound: at most np_hist_encoded_bound(h) characters; for the
 * records' histograms (1 ns ... 60 s, 3 digits: 27,648 counters) that is
 * 331,960, while a real latency distribution takes a few hundred bytes to
 * a few KiB (runs of empty counters collapse to one varint, and zlib
 * compresses the rest).  Decoding refuses configurations above
 * NP_HIST_CODEC_MAX_COUNTERS counters (computed from the header's lowest,
 * highest and digits, inflated first and alone, before anything is
 * allocated for them), text longer than their bound, and a zlib stream
 * inflating past the bound of the encoding its header names (9 bytes a
 * counter: 249 KB for the records' layout, ~9 MiB at most): hostile input
 * costs at most that much memory.
 */
#ifndef NP_HIST_CODEC_H
#define NP_HIST_CODEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_hist.h"

#define NP_HIST_CODEC_MAX_COUNTERS (1 << 20) /* refused above (hostile input) */

/* Characters np_hist_encode can produce for h's configuration (excluding
 * the NUL). */
size_t np_hist_encoded_bound(const struct np_hist *h);

/* h's counts as NUL-terminated base64 text in *out (malloc'd; the caller
 * frees it).  0, NP_ENOMEM, or NP_EIO when zlib fails. */
int np_hist_encode(const struct np_hist *h, char **out);

/* Decode text (len bytes; any HdrHistogram V2 compressed encoding whose
 * normalizing offset is 0) into a new histogram of the configuration its
 * header names.  Min and max become the lowest value of the first
 * non-empty counter and the highest of the last, the sum is counted at
 * each counter's lowest value and overflows are 0 (the text has none of
 * these; np_hist_from_json restores them).  NP_ECORRUPT (or NP_ETOOBIG,
 * NP_ENOMEM) with one line in eb. */
int np_hist_decode(const char *text, size_t len, struct np_hist **out,
                   struct np_errbuf *eb);

/* Overwrite h's exact statistics after np_hist_decode: they must agree
 * with its counts (min in the first non-empty counter, max in the last,
 * count * min <= sum <= count * max, overflows at most the count and only
 * when max is the highest trackable value), else NP_ECORRUPT.  sum is a
 * decimal string (it may exceed 64 bits). */
int np_hist_set_exact(struct np_hist *h, int64_t min, int64_t max,
                      const char *sum, uint64_t overflows,
                      struct np_errbuf *eb);

/* The sum of recorded values as a decimal string into buf (40 bytes hold
 * any 128-bit value). */
void np_hist_sum_text(const struct np_hist *h, char buf[40]);

/* The record's object: {"encoding", "unit", "lowest", "highest",
 * "significant_digits", "count", "overflows", "min", "max", "sum",
 * "data"} (schema run.schema.json $defs/histogram).  unit names what the
 * values count ("ns").  NULL on no memory or a zlib failure. */
cJSON *np_hist_to_json(const struct np_hist *h, const char *unit);

/* The summary records show beside a histogram: {"count", "min", "p50",
 * "p90", "p99", "p999", "max", "mean"}, values divided by per_unit (1000:
 * ns shown in microseconds); what the sample count cannot support is null
 * (np_hist_percentile refuses it), never invented.  The benchmarks write
 * it and the self-check recomputes it from the decoded histogram with
 * this one function.  NULL on no memory. */
cJSON *np_hist_summary_json(const struct np_hist *h, double per_unit);

/* Back from that object: the data decoded, its header checked against
 * lowest/highest/significant_digits, count against the counts, and the
 * exact statistics restored (np_hist_set_exact).  NP_ECORRUPT or
 * NP_EPARSE with "/member: reason" in eb. */
int np_hist_from_json(const cJSON *o, struct np_hist **out,
                      struct np_errbuf *eb);

#endif /* NP_HIST_CODEC_H */
