#include "common/hash.h"

#include <gtest/gtest.h>

using tune::Hasher;

TEST(Hash, StableAcrossCallsAndHex) {
  std::string h = tune::content_hash("transpose");
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h, tune::content_hash("transpose"));
  EXPECT_NE(h, tune::content_hash("transposf"));
}

TEST(Hash, FieldsAreSeparated) {
  EXPECT_NE(Hasher().field("ab").field("c").hex(), Hasher().field("a").field("bc").hex());
  EXPECT_NE(Hasher().field("").hex(), Hasher().hex());
}
