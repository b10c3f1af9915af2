// Whether work started on a thread of its own (std::async) can be taken without waiting: the
// guided search does other GPU work while its ceilings' cuBLAS handle, its ceiling kernels and its
// reference kernel are still being made (tuning/sweep.h: idle_work).
#pragma once
#include <chrono>
#include <future>

namespace tune {

// True when `f` holds no work (taken already, or never started) or its work has ended.
template <typename T>
bool ready(const std::future<T>& f) {
  return !f.valid() || f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace tune
