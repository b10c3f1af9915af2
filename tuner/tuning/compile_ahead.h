// Compiling ahead of the measurements: each configuration's kernel from the binary cache, else
// compiled by the NVRTC pool (processes of this program, or threads) while the GPU measures; the
// reference and check kernels beside them. Brute force submits every configuration a size still
// needs at once and measures them as they finish; a guided search compiles what its strategy
// asks for, and what it hints it will ask for next (prefetch).
#pragma once
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compile/pool.h"
#include "compile/processes.h"
#include "tuning/gpu_run.h"

namespace tune::tuning {

// The reference or check kernel's cubin on its way: from the binary cache, or compiled on a thread
// of its own while the sweep goes on (CompileAhead::load_helpers takes it).
struct PendingHelper {
  std::string key, what, kernel_name;
  std::vector<char> cubin;                        // from the binary cache
  std::future<compile::CompileResult> compiling;  // else being compiled
};

class CompileAhead {
 public:
  // Starts the compile processes (Options::compile_server) and the pool.
  explicit CompileAhead(GpuRun& run);

  // Brute force: every configuration some size needs, from the binary cache or into the pool. A
  // guided search compiles what its strategy asks for (ensure, prefetch).
  void start_configs(bool guided);
  // The reference and check kernels (Tune.reference, Tune.check), compiled once with every
  // parameter at its default: loaded at once in brute force, at a guided search's first
  // measurement (load_helpers) so that they compile while the strategy's first configurations do.
  void start_helpers(bool guided);
  bool helpers_compiled() const;  // load_helpers would not wait for a compile
  void load_helpers();
  run::LoadedKernel* reference() const { return reference_.get(); }
  run::LoadedKernel* check_kernel() const { return check_kernel_.get(); }

  // The next configuration to measure at size `size_index`: at the first size, in the order
  // compiles finish (cache hits first); later, in space order.
  std::optional<std::size_t> next(std::size_t size_index, std::size_t& cursor);
  bool pending() const { return pending_ > 0; }

  // Compiles or loads `c` unless done; says whether it was ready, hinted (compile-ahead) but not
  // done, or not hinted. While a compile of `c` in the pool runs, `idle` is called until it returns
  // false (it does some other work each time).
  enum class Readiness { ready, hinted, not_hinted };
  Readiness ensure(std::size_t c, const std::function<bool()>& idle = {});
  // Compile-ahead for a guided search (search::Context::hint): the hinted configurations go to the
  // pool, replacing earlier guesses no worker has started.
  void prefetch(const std::vector<std::size_t>& configs);
  bool compiled_now(std::size_t c);  // its kernel loaded, or its compile failed (finished results taken first)
  void drop_guesses();               // drops the compile-ahead guesses no worker has started
  // The run's end: finished compiles into the binary cache, the rest given up rather than waited for.
  void finish();
  unsigned workers() const { return pool_.workers(); }

 private:
  compile::CompileRequest request(std::size_t c, const std::string& kernel_name,
                                  const std::vector<expr::Value>& values) const;
  bool load_cached(std::size_t c, const compile::CompileRequest& req);
  std::optional<PendingHelper> start_helper(const compile::CompileRequest& req, std::string what, std::string name);
  std::unique_ptr<run::LoadedKernel> load_helper(PendingHelper& p);
  void put_cubin(const std::string& key, const compile::CompileResult& r);
  void accept(compile::CompileResult r);
  void accept_finished();  // takes the pool's finished results without waiting

  GpuRun& run_;
  std::string nvrtc_;
  std::string arch_;  // the kernels' target (GpuRun::arch)
  std::unique_ptr<run::LoadedKernel> reference_;
  std::unique_ptr<run::LoadedKernel> check_kernel_;                 // Tune.check, compiled next to the reference
  std::optional<PendingHelper> reference_pending_, check_pending_;  // until load_helpers
  // The compile processes (Options::compile_server) the pool's threads hand their compiles to;
  // none: the threads compile themselves.
  std::shared_ptr<compile::CompileProcesses> compilers_;
  compile::CompilePool pool_;
  std::size_t pending_ = 0;
  std::vector<std::size_t> ready_;  // cached or compiled, in arrival order
  std::set<std::size_t> ahead_;     // guided: compiles submitted ahead, results not taken yet
};

}  // namespace tune::tuning
