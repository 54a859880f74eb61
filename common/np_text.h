/*
 * np_text.h - text that is safe to show: UTF-8 well-formedness, and lines
 * for a terminal in which no byte from a file can act.
 *
 * Member names, file names and labels come from files a reader does not
 * trust; printed raw, "\x1b[2J" clears the screen and a newline forges a
 * line ("self-check clean").  Every byte that a terminal could take as a
 * control - C0 controls (newline included: one message, one line), DEL,
 * the C1 controls U+0080..U+009F, and bytes that are not well-formed
 * UTF-8 - is shown as \xNN, the form the agent's logs use.  Well-formed
 * UTF-8 text ("é") stays as it is.
 */
#ifndef NP_TEXT_H
#define NP_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF; p < end), or 0. */
size_t np_utf8_seq_len(const unsigned char *p, const unsigned char *end);

/* in (NUL-terminated) into out as above, truncated at a whole character
 * or escape to fit out_len (including the NUL; out_len >= 1).  Returns
 * strlen(out). */
size_t np_text_safe(const char *in, char *out, size_t out_len);

/* printf to fp through np_text_safe; a '\n' that ends the formatted text
 * is written as a newline, every other one escaped.  Lines longer than
 * 8 KiB are cut. */
void np_text_printf(FILE *fp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* NP_TEXT_H */
