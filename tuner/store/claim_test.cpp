#include "store/claim.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "store/test_util.h"

namespace fs = std::filesystem;
using tune::store::Claim;
using tune::store::testing::TempDir;

// Only the creator removes, and only while no other writer holds a claim: a second first writer
// that opened the same new path keeps its file.
TEST(Claim, TheCreatorRemovesOnlyWhileNoOtherWriterHoldsTheFile) {
  TempDir t;
  const std::string db = t.file("sub/new.db");
  Claim first(db);
  EXPECT_TRUE(first.created());
  EXPECT_TRUE(fs::exists(db));
  std::optional<Claim> second(std::in_place, db);
  EXPECT_FALSE(second->created());
  EXPECT_FALSE(second->remove_if_unused([] { return true; }));  // not its file to remove
  EXPECT_FALSE(first.remove_if_unused([] { return true; }));    // the second holds it
  EXPECT_TRUE(fs::exists(db));
  second.reset();
  EXPECT_FALSE(first.remove_if_unused([] { return false; }));  // it holds something
  EXPECT_TRUE(fs::exists(db));
  EXPECT_TRUE(first.remove_if_unused([] { return true; }));
  EXPECT_FALSE(fs::exists(db));
}

// A writer whose file was removed before it took its claim opens the path again: it never holds a
// file that no path names.
TEST(Claim, AClaimIsAlwaysOnTheFileThePathNames) {
  TempDir t;
  const std::string db = t.file("x.db");
  std::optional<Claim> a(std::in_place, db);
  ASSERT_TRUE(a->remove_if_unused([] { return true; }));
  Claim b(db);
  EXPECT_TRUE(b.created());
  EXPECT_TRUE(fs::exists(db));
}

// One piece of work is claimed by one claim at a time; another key, or the same once released, is
// free.
TEST(Claim, WorkIsClaimedOnceAtATime) {
  TempDir t;
  const std::string db = t.file("w.db");
  std::optional<Claim> a(std::in_place, db);
  Claim b(db);
  ASSERT_TRUE(a->lock_work("kernel=k\nsize=1024"));
  EXPECT_FALSE(b.lock_work("kernel=k\nsize=1024"));
  EXPECT_TRUE(b.lock_work("kernel=k\nsize=2048"));
  a.reset();
  EXPECT_TRUE(b.lock_work("kernel=k\nsize=1024"));
}
