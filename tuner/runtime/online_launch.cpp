// Online tuning's launches: the rotation of runtime/online.h driven by CUDA events that are read
// once they have completed (cudaEventQuery). The one wait on the host is the cut between the
// rounds (wait_for_cut: polling, at most kCutWaitMs), never a synchronisation of the stream.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <system_error>
#include <thread>
#include <utility>

#include "runtime/impl.h"
#include "spec/bind.h"

namespace tune::runtime {

void Kernel::Impl::EventDestroy::operator()(cudaEvent_t e) const noexcept { (void)cudaEventDestroy(e); }

bool Kernel::Impl::Events::create() {
  for (auto& x : e) {
    cudaEvent_t ev = nullptr;
    if (cudaEventCreate(&ev) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    x.reset(ev);
  }
  return true;
}

namespace {

// The elapsed time between two completed events, < 0 when it cannot be read.
double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = -1;
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return ms;
}

}  // namespace

std::unique_ptr<Kernel::Impl::Online> Kernel::Impl::start_online(const DeviceId& id, const detail::Pick& pick,
                                                                 Size size, const std::vector<std::uint64_t>& counts) {
  detail::OnlineRule rule = detail::online_rule(options.online, pick.expected_ms);  // checked by the constructor
  // The one place that ranks the candidates.
  const auto variants = detail::online_candidates(table, id.name, id.major, id.minor, pick, {size.x, size.y, size.z},
                                                  static_cast<std::size_t>(rule.candidates));
  if (variants.size() < 2) return nullptr;
  Placements scratch;
  if (rule.held()) {
    scratch = allocate_scratch(counts);
    if (scratch.size() == 0) {
      rule.batch = 1;
      rule.held_single = false;
    }
  }
  L2Reset l2;
  if (rule.held()) l2 = make_l2_reset(id);
  auto online = std::make_unique<Online>(variants.size(), rule);
  online->scratch = std::move(scratch);
  online->l2 = std::move(l2);
  online->arch = id.arch;
  online->cc_major = id.major;
  online->cc_minor = id.minor;
  for (std::size_t c = 0; c < online->rotation.size(); ++c) {
    detail::Pick p = pick;
    p.variant = variants[c];
    online->candidates.push_back({make_selection(p, size), &compiled_slot(id.arch, variants[c])});
  }
  return online;
}

void Kernel::Impl::poll(Online& o) {
  const int batch = o.rotation.rule().batch;
  const bool held = o.rotation.rule().held();
  for (auto it = o.pending.begin(); it != o.pending.end();) {
    const Events& ev = it->second;
    const cudaError_t q = cudaEventQuery(ev.e[1].get());
    if (q == cudaErrorNotReady) {
      ++it;
      continue;
    }
    double ms = -1, lead_ms = -1;
    if (q != cudaSuccess) {
      (void)cudaGetLastError();
    } else {
      ms = elapsed_ms(ev.e[0].get(), ev.e[1].get());
      if (held) lead_ms = elapsed_ms(ev.e[2].get(), ev.e[0].get());
    }
    o.rotation.sample(it->first, ms >= 0 ? ms / batch : ms, lead_ms);
    o.spare.push_back(std::move(it->second));
    it = o.pending.erase(it);
  }
}

void Kernel::Impl::wait_for_cut(Online& o) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto deadline = start + std::chrono::milliseconds(detail::kCutWaitMs);
  while (o.rotation.cut_pending() && clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    poll(o);
  }
  o.cut_wait_ms += std::chrono::duration<double, std::milli>(clock::now() - start).count();
}

void Kernel::Impl::settle(Online& o, const Resolved& r, Size size) {
  o.chosen = o.candidates[o.rotation.winner()];
  o.chosen.selection.online = true;
  o.winner.store(&o.chosen, std::memory_order_release);
  o.pending.clear();
  o.spare.clear();
  const int placements = static_cast<int>(o.scratch.size());  // what the result file states of the samples
  const bool inputs_copied = o.scratch.copies_inputs();
  o.scratch = {};  // cudaFree: waits for the device once per settled size
  o.l2 = {};
  std::string note;
  bool written = false;
  if (!online_dir.empty()) {
    detail::OnlineResult result;
    result.kernel = table.kernel.empty() ? spec.kernel.name : table.kernel;
    result.space_hash = spec::space_hash(spec);
    result.device = r.device_name;
    result.cc_major = o.cc_major;
    result.cc_minor = o.cc_minor;
    const long long dims[3] = {size.x, size.y, size.z};
    result.size.assign(dims, dims + spec::problem_rank(spec));
    for (const auto& p : spec.parameters) {
      result.parameters.push_back(p.name);
      result.spec_values.push_back(p.values);
    }
    for (const Candidate& c : o.candidates) result.candidates.push_back(table.variants[c.selection.variant]);
    result.rotation = &o.rotation;
    result.cut_wait_ms = o.cut_wait_ms;
    result.placements = placements;
    result.inputs_copied = inputs_copied;
    const auto path = online_dir / detail::online_file_name(result);
    const auto tmp = path.string() + ".tmp";
    std::error_code ec;
    std::filesystem::create_directories(online_dir, ec);
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << detail::online_file_text(result);
      written = static_cast<bool>(f.flush());
    }
    if (written) std::filesystem::rename(tmp, path, ec);
    if (!written || ec) {
      written = false;
      std::filesystem::remove(tmp, ec);
      note = "cannot write " + path.string();
    }
  } else {
    note = "no directory for the result (Options::online.dir or TUNE_ONLINE_DIR)";
  }
  std::lock_guard lock(mu);
  ++stats.online_settled;
  stats.online_extra_ms += o.rotation.extra_ms();
  stats.online_wait_ms += o.cut_wait_ms;
  if (written) ++stats.online_files;
  if (!note.empty()) stats.online_note = note;
}

const Selection& Kernel::Impl::launch_online(Resolved& r, cudaStream_t stream, Size size, void** slots) {
  Online& o = *r.online;
  if (const Candidate* w = o.winner.load(std::memory_order_acquire)) {
    launch_variant(w->selection, *w->compiled, stream, size, slots);
    return w->selection;
  }
  // A stream being captured into a graph cannot take timing events: the table's pick, untimed.
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
    (void)cudaGetLastError();
    launch_variant(r.selection, *r.compiled, stream, size, slots);
    return r.selection;
  }
  std::unique_lock lock(o.mu);
  poll(o);
  if (o.rotation.settled() && o.winner.load(std::memory_order_relaxed) == nullptr) settle(o, r, size);
  if (const Candidate* w = o.winner.load(std::memory_order_relaxed)) {
    lock.unlock();
    launch_variant(w->selection, *w->compiled, stream, size, slots);
    return w->selection;
  }
  if (o.rotation.cut_pending()) wait_for_cut(o);
  const std::size_t c = o.rotation.next();
  // A launch that is not timed, or throws (a compile or launch error reaches the application),
  // gives no sample, so that the candidate is launched again rather than waited on.
  struct NoSample {
    detail::Rotation& rotation;
    std::size_t candidate;
    bool armed = true;
    ~NoSample() {
      if (armed) rotation.sample(candidate, -1);
    }
  } no_sample{o.rotation, c};
  Candidate& cand = o.candidates[c];
  std::call_once(cand.compiled->once,
                 [&] { load(*cand.compiled, o.arch, cand.selection.variant, cand.selection, size); });
  Events ev;
  bool timed = true;
  if (!o.spare.empty()) {
    ev = std::move(o.spare.back());
    o.spare.pop_back();
  } else {
    timed = ev.create();
  }
  // Batched: the application's launch untimed, then the batch on the scratch buffers.
  if (o.rotation.rule().held()) {
    launch_variant(cand.selection, *cand.compiled, stream, size, slots);
    // the candidate's own launch count picks its placement: its samples alternate between them
    timed = timed && launch_batch(o, cand, o.rotation.launches_of(c) - 1, stream, size, slots, ev);
  } else {
    timed = timed && cudaEventRecord(ev.e[0].get(), stream) == cudaSuccess;
    launch_variant(cand.selection, *cand.compiled, stream, size, slots);
    timed = timed && cudaEventRecord(ev.e[1].get(), stream) == cudaSuccess;
  }
  if (timed) {
    o.pending.emplace_back(c, std::move(ev));
    no_sample.armed = false;
  } else {
    (void)cudaGetLastError();
  }
  return cand.selection;
}

}  // namespace tune::runtime
