/*
 * np_report_mdx.h - a Markdown page as an MDX page (np_report_mdx.c):
 * front matter, an MDX comment, and text escaped so that nothing outside
 * code can start a JSX expression or element.
 */
#ifndef NP_REPORT_MDX_H
#define NP_REPORT_MDX_H

#include <stddef.h>

#include "np_err.h"

/* md[0..len) as MDX: "---\ntitle: <title as a JSON string>\n---", then
 * {/\* comment *\/} (when not NULL), then the escaped text.  *out is
 * malloc'd (caller frees).  NP_ENOMEM. */
int np_report_mdx_page(const char *md, size_t len, const char *title,
                       const char *comment, char **out, size_t *out_len);

#endif /* NP_REPORT_MDX_H */
