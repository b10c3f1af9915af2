// Further CUDA contexts on a session's device, in one process. Why: a kernel of a few
// microseconds takes a time per launch that depends on the hardware channel behind its stream,
// which the driver draws per context, and the draw moves configurations differently (timing.h,
// "the floor"): one configuration's time can differ by several percent between two processes at
// small sizes while others move less, so two runs that each decided in one context can choose
// configurations several percent apart (bench/bench_repro.sh). A decision that measures its
// contenders in several contexts (tuning/decider.h) averages the draws.
//
// The runtime API works in whatever context is current on the calling thread; these contexts come
// from the driver API, reached through cudaGetDriverEntryPointByVersion (no link against
// libcuda, so that CPU-only commands run without a driver). Kernels loaded as cudaLibrary
// (kernel.h) are context-independent: the same LoadedKernel launches in any of them.
#pragma once

namespace tune::run {

// A CUDA context of its own on device `ordinal` (not the primary one). Throws CudaError when the
// driver lacks the entry points or refuses the context. Destroyed with its object: everything
// allocated in it must be gone by then.
class Context {
 public:
  explicit Context(int ordinal);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void* handle() const { return ctx_; }

 private:
  void* ctx_ = nullptr;
};

// Makes `context` current on this thread for its lifetime, then restores the context that was
// current before (the runtime's primary context, usually).
class ContextScope {
 public:
  explicit ContextScope(const Context& context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  void* previous_ = nullptr;
};

}  // namespace tune::run
