#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "common/error.h"
#include "compile/compile.h"
#include "compile/source.h"
#include "runtime/impl.h"
#include "spec/bind.h"
#include "spec/launch.h"

namespace tune::runtime {

namespace {

std::string size_text(Size s) { return std::to_string(s.x) + "x" + std::to_string(s.y) + "x" + std::to_string(s.z); }

}  // namespace

sizes::Size detail::spec_size(const spec::Spec& spec, Size s) {
  const int rank = spec::problem_rank(spec);
  if (s.x < 1 || s.y < 1 || s.z < 1) throw InputError("a problem size must be positive in every dimension");
  if ((rank < 2 && s.y != 1) || (rank < 3 && s.z != 1))
    throw InputError("the spec's ProblemSize has " + std::to_string(rank) + " dimensions, the size given more");
  sizes::Size out;
  out.dims = {s.x, s.y, s.z};
  out.rank = rank;
  return out;
}

const char* match_name(Match m) noexcept {
  switch (m) {
    case Match::exact:
      return "exact";
    case Match::predicted:
      return "predicted";
    case Match::extrapolated:
      return "extrapolated";
    case Match::other_device:
      return "other device";
    case Match::default_config:
      return "default";
  }
  return "?";
}

Arg Arg::raw_buffer(Element element, int lanes, void* device_pointer, std::size_t count, bool is_const) noexcept {
  Arg a(element, lanes, false, is_const, count);
  a.pointer_ = device_pointer;
  return a;
}

Arg Arg::raw_scalar(Element element, int lanes, const void* value, std::size_t bytes) noexcept {
  Arg a(element, lanes, true, true, 1);
  a.bytes_ = bytes <= sizeof a.value_ ? bytes : sizeof a.value_;
  std::memcpy(a.value_, value, a.bytes_);
  return a;
}

std::string Kernel::Impl::where(const Selection* s, Size size) const {
  return "tune::runtime: kernel '" + spec.kernel.name + "'" + (s ? " (" + s->config + ")" : std::string()) + " at " +
         size_text(size) + ": ";
}

void Kernel::Impl::fail(const Selection* s, Size size, const std::string& cause) const {
  throw Error(where(s, size) + cause);
}

Kernel::Kernel(const std::filesystem::path& spec_path, const std::filesystem::path& table_path, Options options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  try {
    m.spec = spec::load(spec_path);
    m.source = compile::read_kernel_source(m.spec.kernel.file_path, spec_path.string() + ": KernelFile",
                                           {.name = m.spec.kernel.file})
                   .text;
    m.table = detail::load_table(table_path, m.spec);
    if (m.spec.kernel.arguments.size() > kMaxArguments)
      throw InputError(spec_path.string() + ": more than 64 arguments");
    for (const auto& a : m.spec.kernel.arguments) {
      const bool map = a.type == spec::kTensorMapType;
      Impl::ArgInfo info{a.name, a.type, map ? run::DType{} : run::parse_dtype(a.type), a.scalar(), false, map};
      info.output = !info.scalar && a.written();
      m.args.push_back(std::move(info));
    }
    for (const auto& values : m.table.variants) {
      std::string text;
      std::vector<std::string> opts;
      for (const auto& [name, value] : spec::defines(m.spec, values)) {
        text += (text.empty() ? "" : " ") + name + "=" + value;
        opts.push_back("-D" + name + "=" + value);
      }
      m.config_text.push_back(std::move(text));
      m.variant_options.push_back(std::move(opts));
    }
    m.nvrtc_version = compile::nvrtc_version();
  } catch (const tune::Error& e) {
    throw Error(std::string("tune::runtime: ") + e.what());
  }
  if (m.options.disk_cache) {
    m.cache = std::make_unique<detail::DiskCache>(m.options.cache_dir.empty() ? detail::DiskCache::default_dir()
                                                                              : m.options.cache_dir);
    m.stats.cache_dir = m.cache->enabled() ? m.cache->dir().string() : "";
    m.stats.cache_note = m.cache->note();
  } else {
    m.stats.cache_note = "turned off by Options::disk_cache";
  }
  m.capture_dir = m.options.capture_dir;
  if (m.capture_dir.empty())
    if (const char* c = std::getenv("TUNE_CAPTURE"); c != nullptr && *c != 0) m.capture_dir = c;
  if (const char* c = std::getenv("TUNE_CAPTURE_MAX_BYTES"); c != nullptr && *c != 0)
    m.capture_max_bytes = std::strtoull(c, nullptr, 10);
  const char* online = std::getenv("TUNE_ONLINE");
  m.online = m.options.online.enabled || (online != nullptr && std::string(online) == "1");
  if (m.online) try {
      detail::check(m.options.online);
    } catch (const std::invalid_argument& e) {
      throw Error(std::string("tune::runtime: kernel '") + m.spec.kernel.name + "': Options::online: " + e.what());
    }
  m.online_dir = m.options.online.dir;
  if (m.online_dir.empty())
    if (const char* c = std::getenv("TUNE_ONLINE_DIR"); c != nullptr && *c != 0) m.online_dir = c;
}

Kernel::~Kernel() = default;

Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;

const std::string& Kernel::name() const noexcept { return impl_->spec.kernel.name; }

Stats Kernel::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

Selection Kernel::Impl::make_selection(const detail::Pick& pick, Size size) const {
  Selection s;
  s.match = pick.match;
  s.device = pick.device >= 0 ? table.devices[static_cast<std::size_t>(pick.device)].name : "";
  s.measured = {pick.measured[0], pick.measured[1], pick.measured[2]};
  s.regret = pick.regret;
  for (const auto& e : pick.evidence) s.evidence.push_back({e[0], e[1], e[2]});
  s.variant = pick.variant;
  s.config = config_text[pick.variant];
  s.options = variant_options[pick.variant];
  try {
    const auto g =
        spec::geometry(spec, spec::bind_config(spec, table.variants[pick.variant], detail::spec_size(spec, size)));
    s.grid = {g.grid[0], g.grid[1], g.grid[2]};
    s.block = {g.block[0], g.block[1], g.block[2]};
    s.cluster = {g.cluster[0], g.cluster[1], g.cluster[2]};
    s.dynamic_smem = g.dynamic_smem;
  } catch (const tune::Error& e) {
    fail(&s, size, e.what());
  }
  return s;
}

Selection Kernel::select(Size size, const std::string& device_name, int cc_major, int cc_minor) const {
  const auto pick = detail::select(impl_->table, device_name, cc_major, cc_minor, {size.x, size.y, size.z});
  return impl_->make_selection(pick, size);
}

const Kernel::Impl::DeviceId& Kernel::Impl::device_id(int device) {
  {
    std::lock_guard lock(mu);
    if (auto it = devices.find(device); it != devices.end()) return it->second;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
    throw Error("tune::runtime: kernel '" + spec.kernel.name + "': cannot read device " + std::to_string(device) +
                ": " + cudaGetErrorString(e));
  DeviceId id{prop.name,
              "sm_" + std::to_string(prop.major) + std::to_string(prop.minor),
              prop.major,
              prop.minor,
              static_cast<std::uint64_t>(prop.l2CacheSize),
              prop.multiProcessorCount};
  std::lock_guard lock(mu);
  return devices.emplace(device, std::move(id)).first->second;
}

void Kernel::Impl::LibraryUnload::operator()(cudaLibrary_t l) const noexcept { (void)cudaLibraryUnload(l); }

cudaError_t Kernel::Impl::Compiled::load(const std::string& cubin, const std::string& lowered_name) {
  cudaLibrary_t l = nullptr;
  cudaError_t e = cudaLibraryLoadData(&l, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e == cudaSuccess) {
    library.reset(l);
    e = cudaLibraryGetKernel(&kernel, l, lowered_name.c_str());
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    library.reset();
    kernel = nullptr;
  }
  return e;
}

void Kernel::Impl::load(Compiled& c, const std::string& arch, std::size_t variant, const Selection& s, Size size) {
  compile::CompileRequest req;
  req.source = source;
  req.source_name = spec.kernel.file;
  req.kernel_name = spec.kernel.name;
  req.defines = spec::defines(spec, table.variants[variant]);
  req.options = spec.kernel.compiler_options;
  req.options.insert(req.options.end(), options.compiler_options.begin(), options.compiler_options.end());
  try {
    req.arch = spec::target_arch(spec, arch);  // Tune.arch (sm_90a), in the cache key with the other options
  } catch (const tune::Error& e) {
    fail(&s, size, e.what());
  }
  const std::string key = compile::cache_key(req, nvrtc_version);

  if (cache) {
    bool refused = false;
    if (auto hit = cache->load(key, refused); hit && c.load(hit->cubin, hit->lowered_name) == cudaSuccess) {
      std::lock_guard lock(mu);
      ++stats.from_disk;
      return;
    } else if (refused || hit) {
      std::lock_guard lock(mu);
      ++stats.disk_refused;
    }
  }
  compile::CompileResult r;
  try {
    r = compile::compile(req);
  } catch (const tune::Error& e) {
    fail(&s, size, std::string("NVRTC: ") + e.what());
  }
  {
    std::lock_guard lock(mu);
    ++stats.compiled;
    stats.compile_ms += r.wall_ms;
  }
  if (!r.ok()) fail(&s, size, "does not compile for " + arch + ":\n" + r.log);
  if (const cudaError_t e = c.load(r.cubin, r.lowered_name); e != cudaSuccess)
    fail(&s, size, std::string("the driver does not load the compiled cubin: ") + cudaGetErrorString(e));
  if (cache) cache->store(key, {r.lowered_name, r.cubin});
}

std::vector<std::uint64_t> Kernel::Impl::counts(const Selection* s, Size size) const {
  std::vector<std::uint64_t> out;
  try {
    for (const auto& plan : spec::arguments(spec, detail::spec_size(spec, size))) out.push_back(plan.count);
  } catch (const tune::Error& e) {
    fail(s, size, e.what());
  }
  return out;
}

Kernel::Impl::Compiled& Kernel::Impl::compiled_slot(const std::string& arch, std::size_t variant) {
  std::lock_guard lock(mu);
  auto& slot = compiled[{arch, variant}];
  if (!slot) slot = std::make_unique<Compiled>();
  return *slot;
}

Kernel::Impl::Resolved& Kernel::Impl::resolve(int device, Size size) {
  const auto key = std::make_tuple(device, size.x, size.y, size.z);
  {
    std::lock_guard lock(mu);
    if (auto it = resolved.find(key); it != resolved.end()) return *it->second;
  }
  const DeviceId& id = device_id(device);
  auto r = std::make_unique<Resolved>();
  r->device_name = id.name;
  const detail::Pick pick = detail::select(table, id.name, id.major, id.minor, {size.x, size.y, size.z});
  r->selection = make_selection(pick, size);
  r->counts = counts(&r->selection, size);
  r->compiled = &compiled_slot(id.arch, r->selection.variant);
  if (online && r->selection.match != Match::exact) r->online = start_online(id, pick, size, r->counts);
  Compiled& c = *r->compiled;
  std::call_once(c.once, [&] { load(c, id.arch, r->selection.variant, r->selection, size); });
  std::lock_guard lock(mu);
  return *resolved.emplace(key, std::move(r)).first->second;  // another thread's, if it came first
}

const Selection& Kernel::prepare(Size size) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    impl_->fail(nullptr, size, std::string("no current CUDA device: ") + cudaGetErrorString(e));
  return impl_->resolve(device, size).selection;
}

const Selection& Kernel::launch(cudaStream_t stream, Size size, std::initializer_list<Arg> args) {
  Impl& m = *impl_;
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    m.fail(nullptr, size, std::string("no current CUDA device: ") + cudaGetErrorString(e));
  Impl::Resolved& r = m.resolve(device, size);
  m.check(&r.selection, r.counts, size, args);
  void* slots[kMaxArguments];
  std::size_t i = 0;
  for (const Arg& a : args) slots[i++] = a.slot();
  if (!m.capture_dir.empty() && !r.captured.exchange(true) && m.capture(r, stream, size, args, slots))
    return r.selection;
  if (r.online) return m.launch_online(r, stream, size, slots);
  m.launch_variant(r.selection, *r.compiled, stream, size, slots);
  return r.selection;
}

void Kernel::Impl::launch_variant(const Selection& s, const Compiled& c, cudaStream_t stream, Size size,
                                  void** slots) const {
  if (s.dynamic_smem > 0 || !spec.launch.tensor_maps.empty() || s.cluster != std::array<unsigned, 3>{1, 1, 1}) {
    launch_hopper(s, c, stream, size, slots);
    return;
  }
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(c.kernel), dim3(s.grid[0], s.grid[1], s.grid[2]),
                                         dim3(s.block[0], s.block[1], s.block[2]), slots, 0, stream);
  if (e != cudaSuccess)
    fail(&s, size,
         "cudaLaunchKernel with grid (" + std::to_string(s.grid[0]) + "," + std::to_string(s.grid[1]) + "," +
             std::to_string(s.grid[2]) + ") block (" + std::to_string(s.block[0]) + "," + std::to_string(s.block[1]) +
             "," + std::to_string(s.block[2]) + "): " + cudaGetErrorString(e));
}

}  // namespace tune::runtime
