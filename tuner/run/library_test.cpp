#include "run/library.h"

#include <gtest/gtest.h>

namespace tune::run {

TEST(Library, AMissingOneIsEmptyAndSaysWhy) {
  const Library lib = Library::open("libtune-no-such-library.so.0");
  EXPECT_FALSE(lib);
  EXPECT_NE(lib.error().find("libtune-no-such-library.so.0"), std::string::npos) << lib.error();
  EXPECT_EQ(lib.function<int (*)()>("anything"), nullptr);
}

TEST(Library, ItsFunctionsAnswerAndAMissingOneIsNull) {
  Library lib = Library::open("libm.so.6");
  ASSERT_TRUE(lib) << lib.error();
  EXPECT_TRUE(lib.error().empty());
  const auto cosine = lib.function<double (*)(double)>("cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(lib.function<double (*)(double)>("tune_no_such_function"), nullptr);
  Library moved = std::move(lib);  // the handle moves with it: one close
  EXPECT_TRUE(moved);
  EXPECT_NE(moved.function<double (*)(double)>("cos"), nullptr);
}

}  // namespace tune::run
