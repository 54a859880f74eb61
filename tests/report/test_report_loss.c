/*
 * test_report_loss.c - loss in the report's tables is a count and a
 * percentage of what was sent (issue 28): the per-run percentage rule
 * (counters.lost / counters.sent, 0 for nothing sent, failed runs in or
 * out), median / min / max over runs, and the cell text with its
 * denominator ("of sent").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_report_loss.h"
#include "np_test.h"

static cJSON *record(double sent, double lost) {
  cJSON *d = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(d, "counters");
  cJSON_AddNumberToObject(k, "sent", sent);
  cJSON_AddNumberToObject(k, "lost", lost);
  return d;
}

int main(void) {
  struct np_results_run runs[4] = {{.passed = 1}, {.passed = 1},
                                   {.passed = 0}, {.passed = 1}};
  runs[0].doc = record(1000, 10);  /* 1 %    */
  runs[1].doc = record(2000, 0);   /* 0 %    */
  runs[2].doc = record(400, 100);  /* 25 %, failed */
  runs[3].doc = cJSON_CreateObject(); /* no counters: left out */
  struct np_results_config c = {.runs = runs, .nruns = 4, .npassed = 3};
  double med, mn, mx;
  ASSERT_EQ(np_report_loss_pct(&c, 0, &med, &mn, &mx), 3);
  ASSERT_TRUE(med == 1 && mn == 0 && mx == 25);
  ASSERT_EQ(np_report_loss_pct(&c, 1, &med, &mn, &mx), 2);
  ASSERT_TRUE(med == 0.5 && mn == 0 && mx == 1);
  cJSON_Delete(runs[1].doc);
  runs[1].doc = record(0, 0); /* nothing sent: nothing lost, 0 % */
  ASSERT_EQ(np_report_loss_pct(&c, 1, &med, &mn, &mx), 2);
  ASSERT_TRUE(mn == 0 && med == 0.5 && mx == 1);

  char b[160];
  np_report_loss_cell(b, sizeof b, (const double[3]){64, 0, 148},
                      (const double[3]){0.1311, 0, 0.3032});
  ASSERT_STR_EQ(b, "64 (0-148); 0.13 % (0-0.30 %) of sent");
  np_report_loss_cell(b, sizeof b, (const double[3]){0, 0, 0},
                      (const double[3]){0, 0, 0});
  ASSERT_STR_EQ(b, "0; 0 % of sent");
  np_report_loss_cell(b, sizeof b, (const double[3]){928, 912, 1024},
                      (const double[3]){23.42, 21.2, 100});
  ASSERT_STR_EQ(b, "928 (912-1,024); 23.4 % (21.2-100.0 %) of sent");
  np_report_loss_cell(b, sizeof b, (const double[3]){3, 3, 3},
                      (const double[3]){0.0004, 0.0004, 0.0004});
  ASSERT_STR_EQ(b, "3; < 0.01 % of sent"); /* a loss, however small */
  np_report_loss_cell(b, sizeof b, (const double[3]){NAN, NAN, NAN},
                      (const double[3]){NAN, NAN, NAN});
  ASSERT_STR_EQ(b, "-");
  for (size_t i = 0; i < 4; i++)
    cJSON_Delete(runs[i].doc);
  puts("test_report_loss: ok");
  return 0;
}
