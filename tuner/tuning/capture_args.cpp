#include "tuning/capture_args.h"

#include <set>

#include "common/error.h"
#include "run/dtype.h"
#include "spec/bind.h"

namespace tune::tuning {

sizes::Size capture_size(const spec::Spec& spec, const capture::Capture& c) {
  sizes::Size s;
  s.dims = c.size;
  s.rank = spec::problem_rank(spec);
  return s;
}

std::vector<capture::Capture> load_captures(const spec::Spec& spec, const std::vector<std::string>& paths) {
  std::vector<capture::Capture> out;
  std::set<std::array<std::int64_t, 3>> sizes_seen;
  for (const auto& path : paths) {
    auto bad = [&](const std::string& why) {
      return InputError(path + ": does not fit " + spec.path.string() + ": " + why);
    };
    // Checked on the header, before the data blocks are read (a file may claim gigabytes).
    auto fits = [&](const capture::Capture& c) {
      if (c.kernel != spec.kernel.name)
        throw bad("captured kernel '" + c.kernel + "', the spec's is '" + spec.kernel.name + "'");
      const int rank = spec::problem_rank(spec);
      for (int d = rank; d < 3; ++d)
        if (c.size[d] != 1)
          throw bad("the size has more dimensions than the spec's ProblemSize (" + std::to_string(rank) + ")");
      if (sizes_seen.count(c.size) != 0) throw bad("another capture file has the same problem size");
      const auto plan = spec::arguments(spec, capture_size(spec, c));
      if (plan.size() != c.arguments.size())
        throw bad(std::to_string(c.arguments.size()) + " arguments captured, the spec declares " +
                  std::to_string(plan.size()));
      for (std::size_t i = 0; i < plan.size(); ++i) {
        const capture::Argument& a = c.arguments[i];
        const std::string what = "argument " + std::to_string(i) + " ('" + plan[i].name + "')";
        if (a.name != plan[i].name) throw bad(what + " is called '" + a.name + "' in the capture");
        if (a.scalar != plan[i].scalar)
          throw bad(what + " is " + (plan[i].scalar ? "a scalar" : "a buffer") + " in the spec");
        const run::DType want = run::parse_dtype(plan[i].type);
        if (!(run::parse_dtype(a.type) == want) || a.element_bytes != want.size())
          throw bad(what + " has type " + want.name() + " in the spec, " + a.type + " in the capture");
        if (!a.scalar && a.count != plan[i].count)
          throw bad(what + " has " + std::to_string(a.count) + " elements in the capture, the spec's Size gives " +
                    std::to_string(plan[i].count));
        if (a.output != (plan[i].output && !plan[i].scalar))
          throw bad(what + (a.output ? " is an output in the capture, not in the spec"
                                     : " is an output in the spec, not in the capture"));
      }
    };
    capture::Capture c = capture::read(path, capture::kMaxFileBytes, fits);
    sizes_seen.insert(c.size);
    out.push_back(std::move(c));
  }
  return out;
}

void use_captured_inputs(const capture::Capture& c, std::vector<run::ArgSpec>& args) {
  for (std::size_t i = 0; i < args.size() && i < c.arguments.size(); ++i) {
    if (args[i].tensor_map) continue;  // encoded at each launch from the (captured) buffer it describes
    args[i].data = std::make_shared<const std::vector<std::byte>>(c.arguments[i].input);
    args[i].fill = run::FillKind::constant;
    args[i].fill_value = 0;
  }
}

void upload_captured_outputs(const capture::Capture& c, run::ArgSet& args, const std::vector<std::size_t>& outputs) {
  for (std::size_t a : outputs) args.buffer(a).upload(std::span<const std::byte>(c.arguments.at(a).result));
}

}  // namespace tune::tuning
