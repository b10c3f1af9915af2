#include "common/ready.h"

#include <gtest/gtest.h>

#include <future>

using namespace tune;

TEST(Ready, AFutureIsReadyOnceItsWorkEndedOrWhenItHoldsNone) {
  std::promise<int> p;
  std::future<int> f = p.get_future();
  EXPECT_FALSE(ready(f));  // its work has not ended
  p.set_value(3);
  EXPECT_TRUE(ready(f));
  EXPECT_EQ(f.get(), 3);
  EXPECT_TRUE(ready(f));  // taken: nothing to wait for
  EXPECT_TRUE(ready(std::future<void>{}));
}
