// The arguments of a launch against the spec's Arguments.
#include "runtime/impl.h"

namespace tune::runtime {

namespace {

std::string element_text(Element e, int lanes) {
  run::DType t;
  t.scalar = static_cast<run::Scalar>(e);  // Element and run::Scalar list the same types in the same order
  t.lanes = lanes;
  return t.name();
}

}  // namespace

void Kernel::Impl::check(const Selection* s, const std::vector<std::uint64_t>& counts, Size size,
                         std::initializer_list<Arg> given) const {
  if (given.size() != args.size()) {
    std::string names;
    for (const auto& a : args) names += (names.empty() ? "" : ", ") + a.name;
    fail(s, size,
         std::to_string(given.size()) + " arguments given, the spec declares " + std::to_string(args.size()) + " (" +
             names + ")");
  }
  std::size_t i = 0;
  for (const Arg& a : given) {
    const ArgInfo& want = args[i];
    const std::string what = "argument " + std::to_string(i) + " '" + want.name + "' ";
    if (a.is_tensor_map() != want.tensor_map)
      fail(s, size,
           what + (want.tensor_map ? "is a tensor map in the spec: pass Arg::tensor_map()"
                                   : "is no tensor map in the spec, Arg::tensor_map() was given"));
    if (want.tensor_map) {
      ++i;
      continue;
    }
    if (a.is_scalar() != want.scalar)
      fail(s, size,
           what + "is a " + (want.scalar ? "scalar" : "buffer") + " in the spec, a " +
               (a.is_scalar() ? "scalar" : "buffer") + " was given");
    if (static_cast<int>(a.element()) != static_cast<int>(want.dtype.scalar) || a.lanes() != want.dtype.lanes)
      fail(s, size,
           what + "has type " + want.dtype.name() + " in the spec, " + element_text(a.element(), a.lanes()) +
               " was given");
    if (a.is_scalar()) {
      if (a.value_bytes() != want.dtype.size())
        fail(s, size,
             what + "has " + std::to_string(a.value_bytes()) + " bytes, the spec's type " +
                 std::to_string(want.dtype.size()));
    } else {
      if (a.device_pointer() == nullptr) fail(s, size, what + "is a null pointer");
      if (a.count() < counts[i])
        fail(s, size,
             what + "holds " + std::to_string(a.count()) + " elements, the spec's Size at this problem size is " +
                 std::to_string(counts[i]));
      if (want.output && a.is_const())
        fail(s, size, what + "is written by the kernel but was given as a const pointer");
    }
    ++i;
  }
}

void Kernel::check_arguments(Size size, std::initializer_list<Arg> args) const {
  impl_->check(nullptr, impl_->counts(nullptr, size), size, args);
}

}  // namespace tune::runtime
