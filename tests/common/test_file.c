/* test_file.c - np_file: bounded whole-file reads (limits, folders, special
 * files, /proc files that report size 0) and atomic writes (no temp file
 * left behind, the old file untouched on failure). */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_file.h"
#include "np_test.h"

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ASSERT_NOT_NULL(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      n++;
  closedir(d);
  return n;
}

static void test_read(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/a.txt", dir);
  struct np_errbuf eb;
  ASSERT_OK(np_file_write_atomic(path, "hello\n", 6, &eb));
  char *buf = NULL;
  size_t len = 0;
  ASSERT_OK(np_file_read_all(path, 0, &buf, &len, &eb));
  ASSERT_EQ(len, 6);
  ASSERT_STR_EQ(buf, "hello\n");
  free(buf);

  /* the limit is inclusive: 6 bytes fit in 6, not in 5 */
  buf = NULL;
  ASSERT_OK(np_file_read_all(path, 6, &buf, &len, &eb));
  free(buf);
  buf = NULL;
  ASSERT_EQ(np_file_read_all(path, 5, &buf, &len, &eb), NP_ETOOBIG);
  ASSERT_TRUE(buf == NULL);
  ASSERT_TRUE(strncmp(eb.msg, path, strlen(path)) == 0);

  /* errors name the path and say what the file is */
  ASSERT_EQ(np_file_read_all(dir, 0, &buf, &len, &eb), NP_EISDIR);
  ASSERT_TRUE(strstr(eb.msg, "is a directory") != NULL);
  ASSERT_EQ(np_file_read_all("/dev/null", 0, &buf, &len, &eb), NP_EIO);
  ASSERT_STR_EQ(eb.msg, "/dev/null: not a regular file");
  snprintf(path, sizeof path, "%s/missing.txt", dir);
  ASSERT_EQ(np_file_read_all(path, 0, &buf, &len, &eb), NP_ENOENT);
  ASSERT_TRUE(buf == NULL);

  /* /proc files report size 0 and are read to their end anyway */
  ASSERT_OK(np_file_read_all("/proc/self/status", 0, &buf, &len, &eb));
  ASSERT_GT(len, 0);
  ASSERT_EQ(strlen(buf), len);
  ASSERT_TRUE(strstr(buf, "Name:") != NULL);
  free(buf);
  buf = NULL;
  ASSERT_EQ(np_file_read_all("/proc/self/status", 16, &buf, &len, &eb),
            NP_ETOOBIG);
  ASSERT_TRUE(buf == NULL);
}

static void test_write(const char *dir) {
  char path[512], sub[512];
  snprintf(path, sizeof path, "%s/b.txt", dir);
  snprintf(sub, sizeof sub, "%s/missing/b.txt", dir);
  struct np_errbuf eb;
  int before = count_entries(dir);
  ASSERT_OK(np_file_write_atomic(path, "one", 3, &eb));
  ASSERT_OK(np_file_write_atomic(path, "two!", 4, &eb));
  ASSERT_EQ(count_entries(dir), before + 1); /* no temp file left */
  struct stat st;
  ASSERT_OK(stat(path, &st));
  ASSERT_EQ(st.st_size, 4);
  ASSERT_EQ(st.st_mode & 0777, 0644);

  ASSERT_EQ(np_file_write_atomic(sub, "x", 1, &eb), NP_ENOENT);
  ASSERT_TRUE(strncmp(eb.msg, sub, strlen(sub)) == 0);
  /* a folder in the way of the rename: the folder stays, no temp file */
  char folder[512];
  snprintf(folder, sizeof folder, "%s/folder", dir);
  ASSERT_OK(mkdir(folder, 0755));
  before = count_entries(dir);
  ASSERT_EQ(np_file_write_atomic(folder, "x", 1, &eb), NP_EISDIR);
  ASSERT_EQ(count_entries(dir), before);
  rmdir(folder);

  ASSERT_OK(np_file_fsync_parent(path, &eb));
  ASSERT_EQ(np_file_fsync_parent(sub, &eb), NP_ENOENT);
  ASSERT_TRUE(strstr(eb.msg, "fsync of folder") != NULL);
  unlink(path);
}

int main(void) {
  char dir[] = "/tmp/np_file_testXXXXXX";
  ASSERT_NOT_NULL(mkdtemp(dir));
  test_read(dir);
  test_write(dir);
  char path[512];
  snprintf(path, sizeof path, "%s/a.txt", dir);
  unlink(path);
  ASSERT_OK(rmdir(dir));
  puts("test_file: ok");
  return 0;
}
