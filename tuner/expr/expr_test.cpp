#include <gtest/gtest.h>
#include "expr/expr.h"
using namespace tune::expr;
TEST(Smoke, Basic) { EXPECT_EQ(evaluate("1+2", {}).repr(), "3"); }
