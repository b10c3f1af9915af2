// Bad files: each gives one clear error naming the file (and the entry where there is one), and
// the database is left exactly as it was; files an interrupted run left open are repaired.
#include <gtest/gtest.h>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

std::string gzip(const std::string& path) {
  EXPECT_EQ(std::system(("gzip -kf '" + path + "'").c_str()), 0);
  return path + ".gz";
}

// A database holding one real import, to prove a failed import leaves it unchanged.
class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = store::Store::open(db_path(), store::Store::Mode::read_write);
    import_file(db, external("kernel_tuner/test/test_cache_file.json"), {});
  }
  std::string db_path() const { return dir.file("t.db"); }
  std::string write(const std::string& name, const std::string& text) const {
    store::testing::write_bytes(dir.file(name), text);
    return dir.file(name);
  }
  // Imports `file`, expecting an InputError whose message contains every part; the database
  // must be byte-identical afterwards.
  void expect_refused(const std::string& file, const std::vector<std::string>& parts) {
    const std::string before = store::testing::file_hash(db_path());
    {
      auto db = store::Store::open(db_path(), store::Store::Mode::read_write);
      try {
        import_file(db, file, {});
        ADD_FAILURE() << file << " was imported";
      } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
      }
      EXPECT_EQ(db.measurement_count(), 15);
      EXPECT_EQ(db.runs().size(), 1u);
    }
    EXPECT_EQ(store::testing::file_hash(db_path()), before);
  }
  TempDir dir;
  const std::string small = raw_text(external("kernel_tuner/test/test_cache_file.json"));
  const std::string conv = raw_text(external("benchmark_hub/convolution_milo/A100.json.gz"));
};

TEST_F(BadInput, NotJson) {
  expect_refused(write("a.json", "this is not JSON\n"), {"a.json", "not valid JSON", "line 1, column"});
  std::string broken = conv;
  broken[broken.size() / 2] = '@';  // corrupt in the middle: not something a repair may hide
  expect_refused(write("b.json", broken), {"b.json", "not valid JSON", "line"});
}

TEST_F(BadInput, TruncatedBeyondRepair) {
  // Cut inside the header, before the cache begins.
  expect_refused(write("cut.json", conv.substr(0, conv.find("\"tune_params\""))),
                 {"cut.json", "truncated", "cannot be repaired"});
  expect_refused(write("empty.json", ""), {"empty.json"});
}

TEST_F(BadInput, CorruptAndTruncatedGzip) {
  std::string gz = store::testing::read_bytes(external("benchmark_hub/convolution_milo/A100.json.gz"));
  std::string corrupt = gz;
  for (std::size_t i = 1000; i < 1100; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  expect_refused(write("corrupt.json.gz", corrupt), {"corrupt.json.gz", "corrupt gzip data"});
  expect_refused(write("short.json.gz", gz.substr(0, gz.size() / 2)), {"short.json.gz", "truncated gzip data"});
}

TEST_F(BadInput, ParametersNotMatching) {
  // An entry lacking a parameter of tune_params_keys, in the middle of an otherwise good file.
  ojson c = raw_json(external("benchmark_hub/convolution_milo/A100.json.gz"));
  auto it = std::next(c["cache"].begin(), 2000);
  const std::string& key = it.key();
  it.value().erase("tile_size_y");
  expect_refused(write("missing.json", c.dump()), {"missing.json", "entry \"" + key + "\"", "tile_size_y"});
  // A value outside tune_params.
  ojson d = raw_json(external("kernel_tuner/test/test_cache_file.json"));
  d["cache"]["192"]["block_size_x"] = 193;
  expect_refused(write("value.json", d.dump()), {"value.json", "entry \"192\"", "block_size_x = 193"});
}

TEST_F(BadInput, T4ViolatingItsSchema) {
  ojson t4 = raw_json(external("benchmark_hub/convolution_milo/A100_T4.json.gz"));
  t4["results"][7]["invalidity"] = "exploded";
  expect_refused(write("inv.json", t4.dump()), {"inv.json", "T4", "$.results[7].invalidity"});
  t4 = raw_json(external("benchmark_hub/convolution_milo/A100_T4.json.gz"));
  t4["results"][3].erase("configuration");
  expect_refused(write("cfg.json", t4.dump()), {"cfg.json", "$.results[3]", "configuration"});
  t4 = raw_json(external("benchmark_hub/convolution_milo/A100_T4.json.gz"));
  t4["schema_version"] = "one";
  expect_refused(write("ver.json", t4.dump()), {"ver.json", "schema_version"});
}

TEST_F(BadInput, NeitherCacheNorT4) {
  expect_refused(write("other.json", R"({"hello": 1})"), {"other.json", "neither a Kernel Tuner cache"});
  expect_refused(write("list.json", "[1, 2]"), {"list.json", "not an object"});
}

// Kernel Tuner writes the header, then appends "\n<entry>," per configuration; a killed run
// leaves the file like that, possibly with half an entry at the end.
TEST(OpenCache, RepairedByDroppingAPartialEntry) {
  const ojson closed = raw_json(external("benchmark_hub/convolution_milo/A100.json.gz"));
  const std::string text = raw_text(external("benchmark_hub/convolution_milo/A100.json.gz"));
  ASSERT_EQ(text.substr(text.size() - 3), "}\n}");
  const std::string open = text.substr(0, text.size() - 3) + ",";  // what close_cache would fix
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);

  store::testing::write_bytes(dir.file("open.json"), open);
  CacheFile a = read_cache(dir.file("open.json"));
  EXPECT_TRUE(a.repaired);
  EXPECT_EQ(a.entries.size(), closed["cache"].size());
  EXPECT_EQ(a.dropped_bytes, 0u);

  // Half of the last entry written: that entry is dropped, the others kept.
  const std::size_t last = open.rfind("\n\"");
  const std::string partial = open.substr(0, last + (open.size() - last) / 2);
  store::testing::write_bytes(dir.file("partial.json"), partial);
  CacheFile b = read_cache(gzip(dir.file("partial.json")));  // also through gzip
  EXPECT_TRUE(b.repaired);
  ASSERT_EQ(b.entries.size(), closed["cache"].size() - 1);
  EXPECT_GT(b.dropped_bytes, 0u);
  auto ref = closed["cache"].begin();
  for (const auto& e : b.entries) {
    EXPECT_EQ(e.key, ref.key());
    EXPECT_EQ(e.value, ref.value());
    ++ref;
  }
  ImportResult r = import_file(db, dir.file("partial.json.gz"), {});
  EXPECT_TRUE(r.repaired);
  EXPECT_EQ(r.added, closed["cache"].size() - 1);
  // The complete file later adds the missing entry only.
  ImportResult full = import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {});
  EXPECT_EQ(full.added, 1u);
  EXPECT_EQ(full.unchanged, closed["cache"].size() - 1);

  // A header with no entry yet ("cache": { and nothing more) is an empty cache.
  store::testing::write_bytes(dir.file("fresh.json"), text.substr(0, text.find("\"cache\": {") + 10));
  CacheFile c = read_cache(dir.file("fresh.json"));
  EXPECT_TRUE(c.repaired);
  EXPECT_TRUE(c.entries.empty());
  EXPECT_EQ(c.header["kernel_name"], "convolution_kernel");
}

TEST(Gzip, DetectedByMagicNotByName) {
  TempDir dir;
  const std::string gz = store::testing::read_bytes(external("benchmark_hub/convolution_milo/A4000.json.gz"));
  store::testing::write_bytes(dir.file("plain_name.json"), gz);
  CacheFile c = read_cache(dir.file("plain_name.json"));
  EXPECT_EQ(c.entries.size(), 4362u);
  EXPECT_FALSE(c.repaired);
}

}  // namespace
}  // namespace tune::interop
