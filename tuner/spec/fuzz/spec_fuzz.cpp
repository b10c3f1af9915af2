// libFuzzer target for T1 spec loading and space construction: any byte string is parsed as a
// T1 file (spec::parse: JSON, the expression language in Values and Conditions, the kernel
// specification, the Tune extensions) and, when it loads and its space is small enough to
// enumerate quickly under the sanitizers (at most 2^16 points before conditions), the space is
// built. Only tune::Error (InputError, expr::Error) may escape; anything else (another
// exception, a crash, a sanitizer report, a hang, runaway memory) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/error.h"
#include "expr/expr.h"
#include "expr/ops.h"
#include "space/space.h"
#include "spec/spec.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "spec_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tune::expr::detail::set_default_budget(std::uint64_t{1} << 18);  // keeps each input fast
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tune::spec::Spec spec = tune::spec::parse(text, "fuzz/spec.json");
    std::uint64_t points = 1;
    for (const auto& p : spec.parameters) {
      points *= p.values.size();
      if (points > (std::uint64_t{1} << 16)) return 0;
    }
    const tune::space::Space space = tune::space::Space::build(spec);
    if (space.size() > space.cartesian()) fail("more valid configurations than points");
  } catch (const tune::Error&) {
    return 0;  // a clear refusal
  } catch (const std::exception& e) {
    fail(std::string("escaped std::exception: ") + e.what());
  }
  return 0;
}
