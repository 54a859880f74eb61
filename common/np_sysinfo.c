/*
 * np_sysinfo.c - the record's `machine` object (see np_sysinfo.h).
 *
 * Every field is read from one documented place; when that place is missing
 * or does not hold what we expect, the field is JSON null rather than a
 * guess, so a record never claims something the machine did not say.
 */
#include "np_sysinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "np_file.h"

#define NP_SYSINFO_MAX_FILE (8u << 20) /* cpuinfo: ~1.5 KiB per CPU */

/* Read a small text file into a malloc'd NUL-terminated string; NULL when
 * it cannot be read (the caller reports null). */
static char *np_sysinfo_read(const char *path) {
  char *buf = NULL;
  size_t len = 0;
  if (np_file_read_all(path, NP_SYSINFO_MAX_FILE, &buf, &len, NULL) != 0)
    return NULL;
  return buf;
}

/* The first line of path without surrounding whitespace, or NULL. */
static char *np_sysinfo_read_line(const char *path) {
  char *s = np_sysinfo_read(path);
  if (s == NULL)
    return NULL;
  size_t start = strspn(s, " \t"), n = strcspn(s + start, "\n");
  while (n > 0 && isspace((unsigned char)s[start + n - 1]))
    n--;
  memmove(s, s + start, n);
  s[n] = '\0';
  return s;
}

/* Value of the first "key<spaces/tabs>: value" line in text (cpuinfo,
 * meminfo style), malloc'd, or NULL. */
static char *np_sysinfo_field(const char *text, const char *key) {
  size_t klen = strlen(key);
  for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
    const char *q = p + klen;
    if (strncmp(p, key, klen) != 0 || q[strspn(q, " \t")] != ':')
      continue;
    q += strspn(q, " \t") + 1;
    q += strspn(q, " \t");
    size_t n = strcspn(q, "\n");
    while (n > 0 && isspace((unsigned char)q[n - 1]))
      n--;
    return strndup(q, n);
  }
  return NULL;
}

/* Add string s (may be NULL -> null) and free it. 0 or NP_ENOMEM. */
static int np_sysinfo_add_str(cJSON *o, const char *key, char *s) {
  cJSON *v =
      s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key);
  free(s);
  return v ? 0 : NP_ENOMEM;
}

/* hypervisor: the "hypervisor" word among /proc/cpuinfo's flags; null
 * when cpuinfo or its flags line cannot be read (e.g. non-x86). */
static int np_sysinfo_add_hypervisor(cJSON *o, const char *cpuinfo) {
  char *flags = cpuinfo ? np_sysinfo_field(cpuinfo, "flags") : NULL;
  char *save = NULL;
  int hv = 0;
  if (flags == NULL)
    return cJSON_AddNullToObject(o, "hypervisor") ? 0 : NP_ENOMEM;
  for (char *t = strtok_r(flags, " \t", &save); t != NULL;
       t = strtok_r(NULL, " \t", &save))
    hv |= strcmp(t, "hypervisor") == 0;
  free(flags);
  return cJSON_AddBoolToObject(o, "hypervisor", hv) ? 0 : NP_ENOMEM;
}

/* mem_total_bytes from /proc/meminfo's "MemTotal: N kB". */
static int np_sysinfo_add_memtotal(cJSON *o) {
  char *info = np_sysinfo_read("/proc/meminfo");
  char *v = info ? np_sysinfo_field(info, "MemTotal") : NULL;
  char *end = NULL;
  long long kb = v ? strtoll(v, &end, 10) : 0;
  int ok = v != NULL && end != v && strcmp(end, " kB") == 0 && kb > 0;
  free(v);
  free(info);
  return (ok ? cJSON_AddNumberToObject(o, "mem_total_bytes", (double)kb * 1024)
             : cJSON_AddNullToObject(o, "mem_total_bytes"))
             ? 0
             : NP_ENOMEM;
}

/* os_pretty_name: PRETTY_NAME from /etc/os-release, quotes removed. */
static int np_sysinfo_add_os(cJSON *o) {
  char *text = np_sysinfo_read("/etc/os-release");
  char *name = NULL;
  for (char *p = text; p != NULL && *p;) {
    size_t n = strcspn(p, "\n");
    if (strncmp(p, "PRETTY_NAME=", 12) == 0) {
      char *v = p + 12;
      size_t vn = n - 12;
      if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0]) {
        v++;
        vn -= 2;
      }
      name = strndup(v, vn);
      break;
    }
    p += n + (p[n] == '\n');
  }
  free(text);
  return np_sysinfo_add_str(o, "os_pretty_name", name);
}

/* turbo: {"intel_no_turbo": n} or {"cpufreq_boost": n}, else null. */
static int np_sysinfo_add_turbo(cJSON *o) {
  static const char *const keys[] = {"intel_no_turbo", "cpufreq_boost"};
  static const char *const paths[] = {
      "/sys/devices/system/cpu/intel_pstate/no_turbo",
      "/sys/devices/system/cpu/cpufreq/boost"};
  for (int i = 0; i < 2; i++) {
    char *s = np_sysinfo_read_line(paths[i]);
    char *end = NULL;
    long v = s ? strtol(s, &end, 10) : 0;
    int ok = s != NULL && end != s && *end == '\0';
    free(s);
    if (!ok)
      continue;
    cJSON *t = cJSON_AddObjectToObject(o, "turbo");
    return t && cJSON_AddNumberToObject(t, keys[i], (double)v) ? 0 : NP_ENOMEM;
  }
  return cJSON_AddNullToObject(o, "turbo") ? 0 : NP_ENOMEM;
}

/* loadavg [1, 5, 15] from /proc/loadavg. */
static int np_sysinfo_add_loadavg(cJSON *o) {
  char *s = np_sysinfo_read_line("/proc/loadavg");
  double v[3];
  int ok = s != NULL && sscanf(s, "%lf %lf %lf", &v[0], &v[1], &v[2]) == 3;
  free(s);
  if (!ok)
    return cJSON_AddNullToObject(o, "loadavg") ? 0 : NP_ENOMEM;
  cJSON *a = cJSON_CreateDoubleArray(v, 3);
  if (a == NULL)
    return NP_ENOMEM;
  return cJSON_AddItemToObject(o, "loadavg", a) ? 0 : NP_ENOMEM;
}

/* vmstat {pswpin, pswpout} from /proc/vmstat; null when unreadable, a field
 * null when missing. */
static int np_sysinfo_add_vmstat(cJSON *o) {
  static const char *const keys[] = {"pswpin", "pswpout"};
  char *text = np_sysinfo_read("/proc/vmstat");
  if (text == NULL)
    return cJSON_AddNullToObject(o, "vmstat") ? 0 : NP_ENOMEM;
  cJSON *vm = cJSON_AddObjectToObject(o, "vmstat");
  int rc = vm ? 0 : NP_ENOMEM;
  for (int i = 0; rc == 0 && i < 2; i++) {
    size_t kl = strlen(keys[i]);
    cJSON *v = NULL;
    for (const char *p = text; *p;) {
      size_t n = strcspn(p, "\n");
      long long x;
      char sep;
      if (n > kl && strncmp(p, keys[i], kl) == 0 && p[kl] == ' ' &&
          sscanf(p + kl, " %lld%c", &x, &sep) == 2 && sep == '\n') {
        v = cJSON_AddNumberToObject(vm, keys[i], (double)x);
        break;
      }
      p += n + (p[n] == '\n');
    }
    if (v == NULL)
      v = cJSON_AddNullToObject(vm, keys[i]);
    rc = v ? 0 : NP_ENOMEM;
  }
  free(text);
  return rc;
}

cJSON *np_sysinfo_machine_json(void) {
  cJSON *o = cJSON_CreateObject();
  char *cpuinfo = np_sysinfo_read("/proc/cpuinfo");
  struct utsname u;
  char host[256];
  int have_uname = uname(&u) == 0;
  int have_host = gethostname(host, sizeof host) == 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int rc = o ? 0 : NP_ENOMEM;
  host[sizeof host - 1] = '\0';
  /* keys in the documented order */
  rc = rc ? rc
          : np_sysinfo_add_str(o, "hostname", have_host ? strdup(host) : NULL);
  rc = rc ? rc
          : np_sysinfo_add_str(o, "cpu_model",
                               cpuinfo ? np_sysinfo_field(cpuinfo, "model name")
                                       : NULL);
  if (rc == 0)
    rc = (cores > 0 ? cJSON_AddNumberToObject(o, "logical_cores", (double)cores)
                    : cJSON_AddNullToObject(o, "logical_cores"))
             ? 0
             : NP_ENOMEM;
  rc = rc ? rc : np_sysinfo_add_memtotal(o);
  rc = rc ? rc
          : np_sysinfo_add_str(o, "kernel_release",
                               have_uname ? strdup(u.release) : NULL);
  rc = rc ? rc : np_sysinfo_add_os(o);
  rc =
      rc ? rc
         : np_sysinfo_add_str(o, "arch", have_uname ? strdup(u.machine) : NULL);
  rc = rc ? rc : np_sysinfo_add_hypervisor(o, cpuinfo);
  rc = rc ? rc
          : np_sysinfo_add_str(
                o, "clocksource",
                np_sysinfo_read_line("/sys/devices/system/clocksource/"
                                     "clocksource0/current_clocksource"));
  rc = rc ? rc
          : np_sysinfo_add_str(
                o, "cpu_governor",
                np_sysinfo_read_line(
                    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  rc = rc ? rc : np_sysinfo_add_turbo(o);
  rc = rc ? rc : np_sysinfo_add_loadavg(o);
  rc = rc ? rc : np_sysinfo_add_vmstat(o);
  free(cpuinfo);
  if (rc != 0) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int np_sysinfo_short_name(char *buf, size_t len) {
  char host[256];
  if (buf == NULL || len == 0)
    return NP_EINVAL;
  if (gethostname(host, sizeof host) != 0)
    return np_err_from_errno(errno);
  host[sizeof host - 1] = '\0';
  size_t n = strcspn(host, ".");
  if (n == 0)
    return NP_ENOENT; /* no hostname to shorten */
  if (n + 1 > len)
    return NP_ERANGE;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)tolower((unsigned char)host[i]);
    buf[i] =
        (char)(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
                   ? c
                   : '-');
  }
  buf[n] = '\0';
  return 0;
}
