/*
 * test_matrix_capacity.c - the --rate of a rate-fraction configuration
 * (model/plan/np_matrix_capacity.h): round(fraction x median), at least
 * 1; above --rate's maximum it is refused with NP_ERANGE, never clamped to
 * the maximum (a run would then offer less than its id names); no
 * capacity value is NP_ECHECK.  Nothing is written on a refusal.
 */
#include <math.h>
#include <string.h>

#include "np_matrix_capacity.h"
#include "np_test.h"

int main(void) {
  char buf[32];
  double cap = -1;
  const double caps[] = {1000, 3000, 2000};
  ASSERT_OK(np_matrix_capacity_rate_text(0.5, caps, 3, buf, sizeof buf,
                                         &cap));
  ASSERT_STR_EQ(buf, "1000");
  ASSERT_DBL_NEAR(cap, 2000, 1e-9);
  ASSERT_OK(np_matrix_capacity_rate_text(1e-6, caps, 3, buf, sizeof buf,
                                         NULL));
  ASSERT_STR_EQ(buf, "1"); /* at least 1 */
  /* exactly the maximum passes; above it is refused */
  const double big[] = {1e6};
  ASSERT_OK(np_matrix_capacity_rate_text(10, big, 1, buf, sizeof buf, NULL));
  ASSERT_STR_EQ(buf, "10000000");
  const double bigger[] = {2e6};
  strcpy(buf, "untouched");
  cap = -1;
  ASSERT_EQ(np_matrix_capacity_rate_text(10, bigger, 1, buf, sizeof buf,
                                         &cap),
            NP_ERANGE);
  ASSERT_STR_EQ(buf, "untouched");
  ASSERT_DBL_NEAR(cap, -1, 0);
  ASSERT_EQ(np_matrix_capacity_rate_text(0.5, caps, 0, buf, sizeof buf, &cap),
            NP_ECHECK);
  ASSERT_STR_EQ(buf, "untouched");
  return 0;
}
