// `mpirun -n K tune evaluate ...` (ranks.h): one (strategy, cache) cell per item, scored on the
// rank (evaluate::evaluate_cell) and sent back whole, every double as its bits.
#include <chrono>

#include "mpi/bytes.h"
#include "mpi/farm.h"
#include "mpi/ranks.h"
#include "mpi/ranks_common.h"

namespace tune::mpi {

namespace {

std::string encode(const evaluate::Cell& c) {
  Writer w;
  w.u64(c.curve ? 1 : 0);
  if (c.curve) w.f64s(c.curve->random).f64s(c.curve->strategy).f64s(c.curve->score).f64(c.curve->mean);
  return w.str(c.error).f64(c.mean_fevals).f64s(c.resampled).take();
}

evaluate::Cell decode(const std::string& bytes) {
  Reader in(bytes);
  evaluate::Cell c;
  if (in.u64() != 0) {
    evaluate::Curve curve;
    curve.random = in.f64s();
    curve.strategy = in.f64s();
    curve.score = in.f64s();
    curve.mean = in.f64();
    c.curve = std::move(curve);
  }
  c.error = in.str();
  c.mean_fevals = in.f64();
  c.resampled = in.f64s();
  return c;
}

}  // namespace

std::optional<evaluate::Result> evaluate(const World& world, const std::vector<evaluate::Problem>& problems,
                                         const std::vector<evaluate::StrategySpec>& strategies,
                                         const evaluate::Options& options) {
  const evaluate::Result frame = evaluate::frame(problems, strategies, options);
  const std::size_t np = problems.size();
  auto work = [&](const std::string& payload) {
    Reader in(payload);
    const std::size_t cell = in.u64();
    return encode(evaluate::evaluate_cell(frame, problems, strategies, cell / np, cell % np));
  };
  if (world.rank() != 0) {
    serve(world, work);
    return std::nullopt;
  }
  evaluate::Result r = frame;
  FarmPlan plan;
  plan.items = strategies.size() * np;
  const auto t0 = std::chrono::steady_clock::now();
  const FarmStats stats = farm(
      world, plan, [](std::size_t cell, int) { return Writer().u64(cell).take(); }, work,
      [&](std::size_t cell, int, const std::string& bytes) { r.cells[cell / np][cell % np] = decode(bytes); });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  detail::report_ranks(stats);
  return r;
}

}  // namespace tune::mpi
