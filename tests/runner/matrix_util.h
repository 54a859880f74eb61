/*
 * matrix_util.h - helpers for the matrix runner's tests: scratch folders,
 * running `netproof-bench matrix` (np_matrix_cli_main) in a child process
 * with its output captured, and small file checks.
 */
#ifndef MATRIX_UTIL_H
#define MATRIX_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdtemp under /tmp; aborts on failure. */
void mx_tmpdir(char *buf, size_t len);

/* Remove a tree (ignores errors). */
void mx_rm_rf(const char *path);

/* Write text to path; aborts on failure. */
void mx_write(const char *path, const char *text);

/* Malloc'd contents of path ("" if unreadable). */
char *mx_read(const char *path);

int mx_exists(const char *path);

/* Copy the fake bench script into dir as an executable; path into out. */
void mx_install_fake(const char *script, const char *dir, char *out,
                     size_t len);

/* Fork; in the child send stdout/stderr to out_file/err_file (NULL =
 * /dev/null) and exit with np_matrix_cli_main(argv).  Returns the child
 * pid without waiting. */
pid_t mx_spawn(char *const *argv, const char *out_file, const char *err_file);

/* Wait for pid: exit code, or 128 + signal. */
int mx_wait(pid_t pid);

/* mx_spawn + mx_wait. */
int mx_run(char *const *argv, const char *out_file, const char *err_file);

/* Files under dir (recursively) whose name contains needle. */
int mx_count(const char *dir, const char *needle);

/* 1 when dir does not exist or is empty. */
int mx_empty_or_absent(const char *dir);

/* The runner's kernel snapshot of repetition stem ("OUT/runs/ID/rep-N"),
 * before (after = 0) or after the child: the file of OUT/kernel-snapshots/
 * its rep-N.cmd.txt refers to, path into buf.  1 when the reference is
 * there, the file exists and its SHA-256 is its name; 0 otherwise. */
int mx_snapshot(const char *out, const char *stem, int after, char *buf,
                size_t len);

/* Problems the self-check finds in OUT about its kernel snapshots (a
 * snapshot no cmd.txt refers to, a reference that resolves to none, a
 * hash that does not match), each printed; the fake bench's records fail
 * other rules, which are not counted. */
int mx_snapshot_problems(const char *out);

#endif /* MATRIX_UTIL_H */
