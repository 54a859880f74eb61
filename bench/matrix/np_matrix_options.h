/*
 * np_matrix_options.h - the options a plan may set for each protocol, with
 * their types, ranges, defaults and the short tag each contributes to a
 * configuration id.  The tables mirror `netproof-bench udp --help` and
 * `netproof-bench rudp --help` (checked by test matrix_rudp_options); an
 * option missing here is an "unknown option" in a plan, so a typo never
 * silently runs the default.
 */
#ifndef NP_MATRIX_OPTIONS_H
#define NP_MATRIX_OPTIONS_H

#include <stddef.h>

#include <cjson/cJSON.h>

enum np_matrix_opt_type { NP_MATRIX_OPT_INT, NP_MATRIX_OPT_NUM,
                          NP_MATRIX_OPT_STR };

struct np_matrix_option {
  const char *name;        /* command-line name without "--"            */
  enum np_matrix_opt_type type;
  double min, max;         /* inclusive range for INT/NUM               */
  const char *const *choices; /* NULL-terminated enum for STR, or NULL  */
  const char *tag;         /* id prefix ("p" -> p1024); "" = value only */
  int core;                /* always in the id and argv (default below) */
  const char *dflt;        /* the command's default, as text, or NULL   */
  int size_units;          /* id shows 4194304 as 4m, 65536 as 64k      */
};

/* Table for protocol ("udp" or "rudp"); NULL for any other protocol.
 * *n receives the number of entries, which are in canonical order. */
const struct np_matrix_option *np_matrix_options_for(const char *protocol,
                                                     size_t *n);

/* Index of name in the table, or -1. */
int np_matrix_option_index(const struct np_matrix_option *tab, size_t n,
                           const char *name);

/* 0 when v is an acceptable value for o; otherwise writes a short reason
 * ("expected an integer in 1..65527") into why and returns -1. */
int np_matrix_option_check(const struct np_matrix_option *o, const cJSON *v,
                           char *why, size_t whylen);

/* Text of v as it goes on the command line ("1024", "0.25", "uv"). */
void np_matrix_option_text(const cJSON *v, char *buf, size_t len);

#endif /* NP_MATRIX_OPTIONS_H */
