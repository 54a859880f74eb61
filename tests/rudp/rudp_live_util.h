/*
 * rudp_live_util.h - helpers shared by the live `netproof-bench rudp`
 * tests: run the command in-process, load its record, read values by a
 * slash path, check a named check passed, validate against the schemas.
 * Every helper aborts the test (np_test.h) on failure.
 */
#ifndef RUDP_LIVE_UTIL_H
#define RUDP_LIVE_UTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* np_rudp_cli_main with argv[0] = "rudp"; returns its exit code. */
int rl_run(const char *const *args, int n);
/* The record at path (caller deletes). */
cJSON *rl_load(const char *path);
/* "a/b/0/c": object keys and array indexes. */
const cJSON *rl_get(const cJSON *o, const char *path);
double rl_num(const cJSON *o, const char *path);
void rl_check_passed(const cJSON *doc, const char *name);
/* The whole record against the shipped run schema (schema_dir unused). */
void rl_validate(const cJSON *doc, const char *schema_dir);
void rl_tmp_path(char *buf, size_t len, const char *tag);

#endif /* RUDP_LIVE_UTIL_H */
