// import -> export kt-cache -> import is lossless for every real cache in data/: the
// export, parsed independently, holds the same header and the same entries field by field (same
// keys, same order, same values and JSON types), and importing it again changes nothing.
#include <gtest/gtest.h>

#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

// Same JSON: numbers equal as doubles and of the same kind (integer or float), object keys in
// the same order. Records the first difference in `why`.
bool same(const ojson& a, const ojson& b, const std::string& at, std::string& why) {
  auto integral = [](const ojson& v) { return v.is_number_integer(); };
  if (a.is_number() && b.is_number()) {
    if (integral(a) != integral(b))
      return why = at + ": " + a.dump() + " vs " + b.dump() + " (integer vs float)", false;
    if (a.get<double>() != b.get<double>()) return why = at + ": " + a.dump() + " vs " + b.dump(), false;
    return true;
  }
  if (a.type() != b.type()) return why = at + ": " + a.dump() + " vs " + b.dump(), false;
  if (a.is_object()) {
    if (a.size() != b.size())
      return why = at + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " fields", false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia.key() != ib.key()) return why = at + ": field " + ia.key() + " vs " + ib.key(), false;
      if (!same(ia.value(), ib.value(), at + "." + ia.key(), why)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return why = at + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " items", false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i], at + "[" + std::to_string(i) + "]", why)) return false;
    return true;
  }
  if (a != b) return why = at + ": " + a.dump() + " vs " + b.dump(), false;
  return true;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, ExportEqualsOriginalAndReimportChangesNothing) {
  const std::string file = external(GetParam());
  const ojson original = raw_json(file);
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  ImportResult r = import_file(db, file, {});
  ASSERT_EQ(r.entries, original["cache"].size());
  ASSERT_EQ(r.added, r.entries);

  const std::string out = dir.file("export.json");
  ExportResult e = export_file(db, {.format = ExportFormat::kt_cache, .kernel = r.kernel, .device = r.device}, out);
  EXPECT_EQ(e.rows, r.entries);
  const ojson exported = ojson::parse(store::testing::read_bytes(out));

  // The header, key by key, in order; "cache" last.
  std::string why;
  ojson h1 = original, h2 = exported;
  h1.erase("cache");
  h2.erase("cache");
  EXPECT_TRUE(same(h1, h2, "header", why)) << why;
  EXPECT_EQ(exported.items().begin() == exported.items().end() ? "" : std::prev(exported.end()).key(), "cache");

  // Every entry: same key, same fields in the same order, same values and types.
  const ojson& c1 = original["cache"];
  const ojson& c2 = exported["cache"];
  ASSERT_EQ(c1.size(), c2.size());
  std::size_t checked = 0;
  for (auto i1 = c1.begin(), i2 = c2.begin(); i1 != c1.end(); ++i1, ++i2) {
    ASSERT_EQ(i1.key(), i2.key()) << "entry order";
    ASSERT_TRUE(same(i1.value(), i2.value(), "cache[\"" + i1.key() + "\"]", why)) << why;
    ++checked;
  }
  EXPECT_EQ(checked, r.entries);

  // Importing the export again adds nothing, changes nothing, starts no run.
  const auto runs = db.runs().size();
  const auto count = db.measurement_count();
  ImportResult again = import_file(db, out, {});
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.replaced, 0u);
  EXPECT_EQ(again.unchanged, r.entries);
  EXPECT_FALSE(again.run_id.has_value());
  EXPECT_EQ(db.runs().size(), runs);
  EXPECT_EQ(db.measurement_count(), count);
}

INSTANTIATE_TEST_SUITE_P(EveryCache, RoundTrip, ::testing::ValuesIn(kCaches), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
});

// Kernel Tuner's own writer (json.dumps(indent="") header, one entry per line) reproduced byte
// for byte for the benchmark_hub caches, which that writer produced.
TEST(RoundTripBytes, BenchmarkHubCachesExportByteIdentical) {
  for (const char* rel :
       {"benchmark_hub/convolution_milo/A100.json.gz", "benchmark_hub/dedispersion_milo/MI250X.json.gz"}) {
    const std::string file = external(rel);
    TempDir dir;
    auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
    ImportResult r = import_file(db, file, {});
    std::string text = export_text(db, {.format = ExportFormat::kt_cache, .kernel = r.kernel, .device = r.device});
    EXPECT_TRUE(text == raw_text(file)) << rel << ": export differs from the original bytes";
  }
}

}  // namespace
}  // namespace tune::interop
