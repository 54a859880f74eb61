/*
 * np_matrix_stability.c - was the machine quiet while the suite ran?
 *
 * Before each repetition the runner samples the 1-minute load average, the
 * swap-in/out page counters and cpu0's frequency governor (through
 * np_sysinfo_machine_json, so the same sources as every record).  At the end
 * suite.json gets the maxima and deltas and a flag for each condition that
 * makes numbers less comparable, as BenchExec and pyperf warn about: load
 * above the core count, any swap activity, a governor change.
 */
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_matrix_int.h"
#include "np_sysinfo.h"

#define NP_STAB_GOV_MAX 8

struct np_matrix_stability {
  size_t samples;        /* how many times sampled                         */
  double cores;          /* logical cores (first sample)                   */
  double load_max;       /* highest 1-minute load average seen             */
  double swap_in0, swap_out0;   /* first pswpin/pswpout (-1 unknown)       */
  double swap_in1, swap_out1;   /* last pswpin/pswpout                     */
  char governors[NP_STAB_GOV_MAX][32]; /* distinct governors in order seen */
  size_t ngov;
};

int np_matrix__stability_new(struct np_matrix_stability **out) {
  struct np_matrix_stability *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NP_ENOMEM;
  s->swap_in0 = s->swap_out0 = s->swap_in1 = s->swap_out1 = -1;
  s->load_max = -1;
  *out = s;
  return 0;
}

void np_matrix__stability_sample(struct np_matrix_stability *s) {
  cJSON *m = np_sysinfo_machine_json();
  if (m == NULL)
    return;
  if (s->samples++ == 0)
    s->cores = np_json_get_number(m, "logical_cores", 0);
  const cJSON *la = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(m, "loadavg"), 0);
  if (cJSON_IsNumber(la) && la->valuedouble > s->load_max)
    s->load_max = la->valuedouble;
  const cJSON *vm = cJSON_GetObjectItemCaseSensitive(m, "vmstat");
  double in = np_json_get_number(vm, "pswpin", -1);
  double outp = np_json_get_number(vm, "pswpout", -1);
  if (s->swap_in0 < 0) {
    s->swap_in0 = in;
    s->swap_out0 = outp;
  }
  s->swap_in1 = in;
  s->swap_out1 = outp;
  const char *g = np_json_get_string(m, "cpu_governor", "(none)");
  if (s->ngov == 0 || (strcmp(s->governors[s->ngov - 1], g) != 0 &&
                       s->ngov < NP_STAB_GOV_MAX)) {
    strncpy(s->governors[s->ngov], g, sizeof s->governors[0] - 1);
    s->ngov++;
  }
  cJSON_Delete(m);
}

cJSON *np_matrix__stability_json(const struct np_matrix_stability *s) {
  cJSON *o = cJSON_CreateObject(), *flags = NULL, *govs = NULL;
  if (o == NULL)
    return NULL;
  double din = s->swap_in0 >= 0 && s->swap_in1 >= 0 ? s->swap_in1 - s->swap_in0
                                                   : -1;
  double dout = s->swap_out0 >= 0 && s->swap_out1 >= 0
                    ? s->swap_out1 - s->swap_out0
                    : -1;
  int load_hi = s->cores > 0 && s->load_max > s->cores;
  cJSON_AddNumberToObject(o, "samples", (double)s->samples);
  cJSON_AddNumberToObject(o, "logical_cores", s->cores);
  if (s->load_max >= 0)
    cJSON_AddNumberToObject(o, "load_max", s->load_max);
  else
    cJSON_AddNullToObject(o, "load_max");
  cJSON_AddBoolToObject(o, "load_above_cores", load_hi);
  if (din >= 0 && dout >= 0) {
    cJSON_AddNumberToObject(o, "swap_in_delta", din);
    cJSON_AddNumberToObject(o, "swap_out_delta", dout);
  } else {
    cJSON_AddNullToObject(o, "swap_in_delta");
    cJSON_AddNullToObject(o, "swap_out_delta");
  }
  if ((govs = cJSON_AddArrayToObject(o, "governors")) == NULL)
    goto fail_obj;
  for (size_t i = 0; i < s->ngov; i++)
    cJSON_AddItemToArray(govs, cJSON_CreateString(s->governors[i]));
  cJSON_AddBoolToObject(o, "governor_changed", s->ngov > 1);
  if ((flags = cJSON_AddArrayToObject(o, "flags")) == NULL)
    goto fail_obj;
  if (load_hi)
    cJSON_AddItemToArray(flags, cJSON_CreateString("load-above-cores"));
  if (din > 0 || dout > 0)
    cJSON_AddItemToArray(flags, cJSON_CreateString("swap-activity"));
  if (s->ngov > 1)
    cJSON_AddItemToArray(flags, cJSON_CreateString("governor-changed"));
  return o;
fail_obj:
  cJSON_Delete(o);
  return NULL;
}

void np_matrix__stability_free(struct np_matrix_stability *s) { free(s); }
