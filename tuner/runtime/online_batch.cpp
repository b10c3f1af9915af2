// Online tuning's batched samples: the L2 reset of tune's timing (run/l2_reset.h), untimed launches
// of a candidate (online.h: untimed_launches), then `batch` timed between two events, on scratch
// buffers (outputs of their own, copies of the inputs; online.h: scratch_use), queued behind a host
// function that holds the stream until they are all queued. The reset makes each sample start as
// tune's primed batches start: near the L2's capacity, what the rotation's previous launches left
// there (the application's output among it) moved the candidates' times against each other,
// evict-first ones most. Launched one by one from the host, launches of 2 us run no faster than
// the host issues them: the events would time the host. Held, the GPU runs them back to back from
// its queue, as tune's own batches run behind their blocker (run/timing.h); the untimed launches
// take the first launches' ramp after the hold.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "common/error.h"
#include "compile/compile.h"
#include "run/l2_reset.h"
#include "runtime/impl.h"

namespace tune::runtime {

namespace {

// The stream waits in wait_for_release until release(); at most kHoldLimit, so that a host that
// never releases it cannot stall the application's stream.
constexpr auto kHoldLimit = std::chrono::milliseconds(100);

struct Hold {
  std::mutex m;
  std::condition_variable cv;
  bool released = false;
  void release() {
    {
      std::lock_guard lock(m);
      released = true;
    }
    cv.notify_all();
  }
};

// A host function on the stream (a CUDA thread runs it): waits for the release. It owns one
// reference to the hold.
void CUDART_CB wait_for_release(void* p) {
  const std::unique_ptr<std::shared_ptr<Hold>> token(static_cast<std::shared_ptr<Hold>*>(p));
  Hold& h = **token;
  std::unique_lock lock(h.m);
  h.cv.wait_for(lock, kHoldLimit, [&] { return h.released; });
}

// Releases the stream when the batch is queued, or when queuing it failed.
struct Releaser {
  std::shared_ptr<Hold> hold;
  ~Releaser() { hold->release(); }
};

}  // namespace

void Kernel::Impl::CudaFree::operator()(void* p) const noexcept { (void)cudaFree(p); }

bool Kernel::Impl::Placements::copies_inputs() const noexcept {
  return std::any_of(copy_bytes.begin(), copy_bytes.end(), [](std::uint64_t b) { return b != 0; });
}

Kernel::Impl::Placements Kernel::Impl::allocate_scratch(const std::vector<std::uint64_t>& counts) const {
  std::size_t free = 0, total = 0;
  const bool known = cudaMemGetInfo(&free, &total) == cudaSuccess;
  if (!known) (void)cudaGetLastError();
  bool copies = true;  // whether the plan before copied inputs: without, a plan without them is the same
  for (const bool copy_inputs : {true, false}) {
    if (!copies) break;
    std::vector<std::uint64_t> bytes(args.size(), 0);  // per argument in one placement (0: none)
    std::vector<std::uint64_t> copy_bytes(args.size(), 0);
    std::uint64_t all = 0;
    for (std::size_t i = 0; i < args.size() && i < counts.size(); ++i) {
      const auto use = detail::scratch_use(args[i].scalar, args[i].output, args[i].tensor_map, counts[i], copy_inputs);
      if (use == detail::ScratchUse::none) continue;
      bytes[i] = counts[i] * args[i].dtype.size();
      if (use == detail::ScratchUse::input_copy) copy_bytes[i] = bytes[i];
      all += bytes[i] * detail::kPlacements;
    }
    Placements p;
    p.copy_bytes = std::move(copy_bytes);
    copies = p.copies_inputs();
    if (known && !detail::scratch_fits(all, free)) continue;
    p.sets.resize(detail::kPlacements);
    p.copied.assign(detail::kPlacements, false);
    bool allocated = true;
    for (auto& set : p.sets) {
      set.resize(args.size());
      for (std::size_t i = 0; i < args.size() && allocated; ++i) {
        void* ptr = nullptr;
        if (bytes[i] == 0) continue;
        allocated = cudaMalloc(&ptr, bytes[i]) == cudaSuccess;
        if (allocated) set[i].reset(ptr);
      }
    }
    if (allocated) return p;
    (void)cudaGetLastError();  // what was allocated is freed with `p`
  }
  return {};
}

Kernel::Impl::L2Reset Kernel::Impl::make_l2_reset(const DeviceId& id) {
  Compiled* c = nullptr;
  {
    std::lock_guard lock(mu);
    auto& slot = discard_kernels[id.arch];
    if (!slot) slot = std::make_unique<Compiled>();
    c = slot.get();
  }
  std::call_once(c->once, [&] {
    compile::CompileRequest req;
    req.source = std::string(run::l2_reset::kSource);
    req.source_name = "tune_discard_l2.cu";
    req.kernel_name = std::string(run::l2_reset::kKernelName);
    req.arch = id.arch;
    compile::CompileResult r;
    try {
      r = compile::compile(req);
    } catch (const tune::Error&) {
      return;  // no reset: the samples run as before
    }
    if (r.ok()) (void)c->load(r.cubin, r.lowered_name);  // on failure no reset: the samples run as before
  });
  L2Reset reset;
  if (c->kernel == nullptr || id.l2_bytes == 0) return reset;
  void* p = nullptr;
  const std::uint64_t bytes = run::l2_reset::bytes(id.l2_bytes);
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return reset;
  }
  reset.buffer.reset(p);
  reset.bytes = bytes;
  reset.discard = c;
  reset.blocks = run::l2_reset::blocks(id.sm_count);
  return reset;
}

bool Kernel::Impl::launch_batch(Online& o, const Candidate& cand, std::size_t placement, cudaStream_t stream, Size size,
                                void** slots, const Events& ev) const {
  void* scratch_ptrs[kMaxArguments];
  void* batch_slots[kMaxArguments];
  const std::size_t at = placement % o.scratch.size();
  const std::vector<Scratch>& set = o.scratch.sets[at];
  for (std::size_t i = 0; i < args.size(); ++i) {
    batch_slots[i] = slots[i];
    if (i < set.size() && set[i]) {
      scratch_ptrs[i] = set[i].get();
      batch_slots[i] = &scratch_ptrs[i];
    }
  }
  const int batch = o.rotation.rule().batch;
  const Releaser releaser{std::make_shared<Hold>()};
  auto token = std::make_unique<std::shared_ptr<Hold>>(releaser.hold);
  if (cudaLaunchHostFunc(stream, wait_for_release, token.get()) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  (void)token.release();  // wait_for_release owns it now
  if (cudaEventRecord(ev.e[2].get(), stream) != cudaSuccess) return false;
  if (!o.scratch.copied[at]) {  // the application's inputs as they are at this launch, once per placement
    const std::vector<std::uint64_t>& bytes = o.scratch.copy_bytes;
    for (std::size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i] != 0 && cudaMemcpyAsync(set[i].get(), *static_cast<void* const*>(slots[i]), bytes[i],
                                           cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
        return false;
    o.scratch.copied[at] = true;
  }
  if (L2Reset& l2 = o.l2; l2.buffer) {
    char* p = static_cast<char*>(l2.buffer.get());
    unsigned long long n = l2.bytes;
    void* reset_args[] = {&p, &n};
    if (cudaMemsetAsync(p, static_cast<int>(l2.fill++ & 0xFFu), n, stream) != cudaSuccess ||
        cudaLaunchKernel(reinterpret_cast<const void*>(l2.discard->kernel), dim3(l2.blocks),
                         dim3(run::l2_reset::kThreads), reset_args, 0, stream) != cudaSuccess)
      return false;
  }
  for (int k = 0; k < detail::untimed_launches(batch); ++k)
    launch_variant(cand.selection, *cand.compiled, stream, size, batch_slots);
  if (cudaEventRecord(ev.e[0].get(), stream) != cudaSuccess) return false;
  for (int k = 0; k < batch; ++k) launch_variant(cand.selection, *cand.compiled, stream, size, batch_slots);
  return cudaEventRecord(ev.e[1].get(), stream) == cudaSuccess;
}

}  // namespace tune::runtime
