/* Unit tests of the given-up / late accounting shared by the benchmark
 * and the self-check (model/udp/np_udp_late.h, np_udp_checks.h): late is
 * not lost, the timeout-dominated rule at its 20 % edge, records before
 * these counters get neither check, and the section read back from a
 * record gives the input it was written from. */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "np_test.h"
#include "np_udp_checks.h"
#include "np_udp_late.h"

static const struct np_udp_check *find(const struct np_udp_checks *cs,
                                       const char *name) {
  for (unsigned i = 0; i < cs->n; i++)
    if (strcmp(cs->item[i].name, name) == 0)
      return &cs->item[i];
  return NULL;
}

/* loopback arithmetic: a late reply leaves lost and the reply leg */
static void test_loss_without_late(void) {
  struct np_udp_check_input in = {.sent = 100, .server_received = 100,
                                  .server_replied = 100, .received = 90,
                                  .late = 7};
  struct np_udp_loss l;
  np_udp_loss_compute(&in, &l);
  ASSERT_EQ(l.lost, 3);
  ASSERT_EQ(l.reply_leg, 3);
  ASSERT_EQ(l.request_leg + l.server + l.reply_leg, l.lost);
  struct np_udp_checks cs = {0};
  np_udp_checks_eval(&in, &l, &cs);
  const struct np_udp_check *c = find(&cs, "loss_attributed");
  ASSERT_NOT_NULL(c);
  ASSERT_TRUE(c->passed);
  ASSERT_TRUE(strstr(c->detail, "(server_replied - received - late)") != NULL);
  in.late = 0; /* a 0.2 record: its detail text stays what it was */
  np_udp_loss_compute(&in, &l);
  ASSERT_EQ(l.lost, 10);
  np_udp_checks_eval(&in, &l, &cs);
  ASSERT_TRUE(strstr(find(&cs, "loss_attributed")->detail,
                     "(server_replied - received)") != NULL);
}

static void test_checks(void) {
  struct np_udp_late_input in = {.known = 1, .closed_loop = 1, .sent = 1000,
                                 .received = 950, .late = 0, .timed_out = 50,
                                 .late_max_us = NAN, .timeout_min_ms = 200,
                                 .timeout_max_ms = 200,
                                 .waiting_seconds = 2.0, .slot_seconds = 10.0};
  struct np_udp_checks cs = {0};
  np_udp_late_checks(&in, &cs);
  ASSERT_EQ(cs.n, 2);
  ASSERT_TRUE(find(&cs, "no_late_replies")->passed);
  ASSERT_TRUE(find(&cs, "timeouts_not_dominant")->passed); /* 20 %: at it */
  in.waiting_seconds = 2.01;
  cs = (struct np_udp_checks){0};
  np_udp_late_checks(&in, &cs);
  const struct np_udp_check *d = find(&cs, "timeouts_not_dominant");
  ASSERT_TRUE(!d->passed);
  ASSERT_TRUE(strstr(d->detail, "20.1 %") != NULL);
  ASSERT_TRUE(strstr(d->detail, "lost 5.00 % of 1000 sent") != NULL);
  ASSERT_TRUE(strstr(d->detail, "the rate measures the timeout") != NULL);
  in.late = 4; /* 4 of the given-up ones came back: not lost */
  in.late_max_us = 250500;
  cs = (struct np_udp_checks){0};
  np_udp_late_checks(&in, &cs);
  const struct np_udp_check *l = find(&cs, "no_late_replies");
  ASSERT_TRUE(!l->passed);
  ASSERT_TRUE(strstr(l->detail, "4 replies came after") != NULL);
  ASSERT_TRUE(strstr(l->detail, "250.5 ms") != NULL);
  ASSERT_TRUE(strstr(find(&cs, "timeouts_not_dominant")->detail,
                     "lost 4.60 %") != NULL);
  char buf[100];
  np_udp_late_summary(&in, buf, sizeof buf);
  ASSERT_STR_EQ(buf, ", late 4 (latest 250.5 ms after its send)");
  /* open loop: no reply timeout, so no dominance check */
  in.closed_loop = 0;
  cs = (struct np_udp_checks){0};
  np_udp_late_checks(&in, &cs);
  ASSERT_EQ(cs.n, 1);
  /* a record before these counters: nothing derived, nothing printed */
  in.known = 0;
  cs = (struct np_udp_checks){0};
  np_udp_late_checks(&in, &cs);
  ASSERT_EQ(cs.n, 0);
  np_udp_late_summary(&in, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "");
}

/* written, then read back as the self-check reads it */
static void test_round_trip(void) {
  struct np_udp_late_input in = {.known = 1, .closed_loop = 1, .sent = 500,
                                 .received = 480, .late = 6, .timed_out = 9,
                                 .expired = 3, .late_max_us = 1234.5,
                                 .timeout_min_ms = 200, .timeout_max_ms = 310,
                                 .waiting_seconds = 1.5, .slot_seconds = 8};
  cJSON *doc = cJSON_CreateObject();
  cJSON *c = cJSON_AddObjectToObject(doc, "counters");
  cJSON_AddNumberToObject(c, "sent", 500);
  cJSON_AddNumberToObject(c, "received", 480);
  cJSON_AddNumberToObject(c, "late", 6);
  cJSON_AddItemToObject(doc, "timeouts", np_udp_late_json(&in));
  struct np_udp_late_input out;
  np_udp_late_input_json(doc, &out);
  ASSERT_EQ(out.known, 1);
  ASSERT_EQ(out.closed_loop, 1);
  ASSERT_UINT_EQ(out.late, 6);
  ASSERT_UINT_EQ(out.timed_out, 9);
  ASSERT_UINT_EQ(out.expired, 3);
  ASSERT_DBL_NEAR(out.late_max_us, 1234.5, 1e-9);
  ASSERT_DBL_NEAR(out.timeout_max_ms, 310, 1e-9);
  ASSERT_DBL_NEAR(np_udp_late_waiting_fraction(&out), 1.5 / 8, 1e-12);
  cJSON_DeleteItemFromObject(doc, "timeouts");
  np_udp_late_input_json(doc, &out);
  ASSERT_EQ(out.known, 0);
  cJSON_Delete(doc);
}

int main(void) {
  test_loss_without_late();
  test_checks();
  test_round_trip();
  return 0;
}
