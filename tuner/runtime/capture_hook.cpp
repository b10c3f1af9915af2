// TUNE_CAPTURE: the first launch at each problem size is written to a capture file
// (capture/capture.h) with the arguments before the launch and the outputs after it.
#include <cstdio>

#include "capture/capture.h"
#include "runtime/impl.h"

namespace tune::runtime {

namespace {

void copy_from_device(std::vector<std::byte>& out, const void* device, std::size_t bytes, const std::string& what) {
  out.resize(bytes);
  if (const cudaError_t e = cudaMemcpy(out.data(), device, bytes, cudaMemcpyDeviceToHost); e != cudaSuccess)
    throw Error(what + ": " + cudaGetErrorString(e));
}

}  // namespace

bool Kernel::Impl::capture(Resolved& r, cudaStream_t stream, Size size, std::initializer_list<Arg> given,
                           void** slots) {
  const Selection& s = r.selection;
  const std::filesystem::path path = capture_dir / capture::file_name(spec.kernel.name, {size.x, size.y, size.z});
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return false;  // the first capture of a size stays
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < args.size(); ++i)
    bytes += (args[i].scalar ? 1 : r.counts[i]) * args[i].dtype.size() * (args[i].output ? 2 : 1);
  if (bytes > capture_max_bytes) {
    std::fprintf(stderr, "%snot captured: %llu bytes of data, more than TUNE_CAPTURE_MAX_BYTES=%llu\n",
                 where(&s, size).c_str(), static_cast<unsigned long long>(bytes),
                 static_cast<unsigned long long>(capture_max_bytes));
    return false;
  }

  capture::Capture c;
  c.kernel = spec.kernel.name;
  c.size = {size.x, size.y, size.z};
  c.device = r.device_name;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    c.configuration[spec.parameters[p].name] = spec::to_json(table.variants[s.variant][p]);
  const std::string where_text = where(&s, size) + "capture";
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    throw Error(where_text + ": " + cudaGetErrorString(e));
  std::size_t i = 0;
  for (const Arg& a : given) {
    const ArgInfo& info = args[i];
    capture::Argument arg;
    arg.name = info.name;
    arg.type = info.type;
    arg.scalar = info.scalar;
    arg.output = info.output;
    arg.element_bytes = static_cast<std::uint32_t>(info.dtype.size());
    arg.count = info.scalar ? 1 : r.counts[i];
    if (info.scalar) {
      const auto* v = static_cast<const std::byte*>(slots[i]);
      arg.input.assign(v, v + info.dtype.size());
    } else {
      copy_from_device(arg.input, a.device_pointer(), arg.count * arg.element_bytes,
                       where_text + " of '" + info.name + "'");
    }
    c.arguments.push_back(std::move(arg));
    ++i;
  }
  launch_variant(s, *r.compiled, stream, size, slots);  // with its cluster, shared memory and tensor maps
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    throw Error(where_text + ": the launch failed: " + cudaGetErrorString(e));
  i = 0;
  for (const Arg& a : given) {
    if (args[i].output)
      copy_from_device(c.arguments[i].result, a.device_pointer(), c.arguments[i].input.size(),
                       where_text + " of '" + args[i].name + "'");
    ++i;
  }
  try {
    std::filesystem::create_directories(capture_dir, ec);
    capture::write(path, c);
    std::lock_guard lock(mu);
    ++stats.captures;
  } catch (const std::exception& x) {  // the application's launch has run: say so, go on
    std::fprintf(stderr, "%s not written: %s\n", where_text.c_str(), x.what());
  }
  return true;
}

}  // namespace tune::runtime
