// Design-guidance microbenchmark for kernels_src/transpose.cu and copy.cu on one GPU: compiles
// configurations with the tuner's own NVRTC module (tuner/compile), checks every one at every
// size against the definition (bit-exact, outputs poisoned first), times them with CUDA events
// (median), and compares with cudaMemcpy device-to-device and cublasSgeam measured the same way.
// Not the product's benchmark (the tuner does that); see bench/journal.md ("Kernel notes").
//
// Build (here): nvcc -O3 -std=c++20 -arch=sm_90 -Ituner -o .gpu/bench bench/kernels/bench.cu
//   tuner/compile/compile.cpp tuner/compile/resources.cpp tuner/compile/pool.cpp
//   tuner/common/hash.cpp -lnvrtc -lcuda -lcublas   (experiment.sh runs it as .gpu/bench_tp; --dry
//   runs here without libcuda.so.1 when LD_LIBRARY_PATH has a libcuda.so.1 link to the CUDA stub)
// Run: .gpu/bench <out-dir> <repo-root> [<config-list> | --dry [<config-list>]]
//   (writes results.csv, prints a summary) without a list: a broad exploration in two stages; with
//   a list (lines "<file> <kernel> name=value ...", e.g. every configuration of spaces/*.json):
//   exactly those. --dry compiles (the list, or the exploration's sets) and launches nothing.
//   BENCH_SIZES="2048,4096,1000x4097,..." (N or RxC, rows x cols) replaces the default sizes.
//   Bench-only parameters in a list (passed to the compiler too, where nothing reads them):
//   persist_grid=1 launches occupancy x SMs blocks (for persist=1: one resident wave looping over
//   all tiles) instead of the spec's grid; rep=N only tells repeated entries apart.
#include <chrono>

#include "bench_gpu.cuh"

int main(int argc, char** argv) {
  const std::string outdir = argc > 1 ? argv[1] : ".";
  const std::string root = argc > 2 ? argv[2] : ".";
  const std::string list_file = argc > 3 && std::string(argv[3]) != "--dry" ? argv[3] : "";
  const std::string tsrc = read_file(root + "/kernels_src/transpose.cu");
  const std::string csrc = read_file(root + "/kernels_src/copy.cu");

  auto read_list = [](const std::string& path) {  // lines "<file> <kernel> name=value ..."
    std::ifstream f(path);
    if (!f) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      std::exit(1);
    }
    std::string line;
    std::vector<Config> cfgs;
    while (std::getline(f, line)) {
      std::istringstream ss(line);
      std::string file, kv;
      Config c;
      if (!(ss >> file >> c.kernel)) continue;
      while (ss >> kv) {
        const auto eq = kv.find('=');
        c.p.emplace_back(kv.substr(0, eq), std::stoi(kv.substr(eq + 1)));
      }
      cfgs.push_back(c);
    }
    return cfgs;
  };
  if (argc > 3 && std::string(argv[3]) == "--dry") {  // compile everything, no GPU needed
    std::vector<Config> all = argc > 4 ? read_list(argv[4]) : transpose_core();
    if (argc <= 4)
    for (Config c : transpose_core()) {  // every variant knob once per core configuration
      for (auto& [k, v] : c.p) {
        if (k == "group") v = 16;
        if (k == "tiles") v = 4;
        if (k == "streaming") v = 1;
      }
      all.push_back(c);
    }
    if (argc <= 4)
      for (const Config& c : copy_configs()) all.push_back(c);
    tune::compile::CompilePool pool(0);
    for (size_t i = 0; i < all.size(); ++i) {
      CompileRequest r;
      const bool t = all[i].kernel == "transpose";
      r.source = t ? tsrc : csrc;
      r.source_name = t ? "transpose.cu" : "copy.cu";
      r.kernel_name = all[i].kernel;
      for (auto& [k, v] : all[i].p) r.defines.emplace_back(k, std::to_string(v));
      r.tag = i;
      pool.submit(std::move(r));
    }
    int bad = 0, spills = 0, maxregs = 0;
    while (auto res = pool.next()) {
      const Config& c = all[res->tag];
      const int threads = c.get("block_size_x", 1) * c.get("block_size_y", 1);
      const std::string why = res->ok() ? tune::compile::check_launch(res->resources, threads, 0) : "compile failed";
      if (!why.empty() && bad++ < 10) std::printf("%s %s: %s\n%s\n", c.kernel.c_str(), c.str().c_str(), why.c_str(), res->log.c_str());
      if (res->ok() && res->resources.spill_stores > 0)
        std::printf("spills: %s %s (%d registers)\n", c.kernel.c_str(), c.str().c_str(), res->resources.registers);
      spills += res->resources.spill_stores > 0;
      maxregs = std::max(maxregs, res->resources.registers);
    }
    std::printf("%zu configurations, %d unusable, %d spilling, max %d registers\n", all.size(), bad, spills, maxregs);
    return bad == 0 ? 0 : 2;
  }
  CK(cudaFree(nullptr));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MB, NVRTC %s\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, tune::compile::nvrtc_version().c_str());

  g_sms = prop.multiProcessorCount;
  std::vector<Size> sizes2d = {{128, 128},   {512, 512},   {1000, 1000}, {1023, 1023}, {1024, 1024},
                               {2048, 2048}, {4096, 4096}, {4097, 4097}, {8192, 8192}, {16384, 16384},
                               {1000, 4097}, {4097, 1000}};
  if (const char* env = std::getenv("BENCH_SIZES")) {  // "N" or "RxC" (rows x cols), comma-separated
    sizes2d.clear();
    std::istringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto x = item.find('x');
      const int r = std::stoi(item.substr(0, x)), c = x == std::string::npos ? r : std::stoi(item.substr(x + 1));
      if (size_t(r) * c > size_t(16384) * 16384) {
        std::fprintf(stderr, "size %s exceeds 16384 x 16384\n", item.c_str());
        return 1;
      }
      sizes2d.push_back({r, c});
    }
  }
  const std::vector<Size> sizes1d = {{1, 1 << 24}, {1, 1 << 26}};
  size_t maxn = size_t(1) << 26;  // the 1-D kernels' n; the matrices' largest size otherwise
  for (Size s : sizes2d) maxn = std::max(maxn, size_t(s.rows) * s.cols);
  Gpu g;
  CK(cudaMalloc(&g.in, maxn * 4));
  CK(cudaMalloc(&g.out, maxn * 4));
  CK(cudaMalloc(&g.orig, (size_t(1) << 26) * 4));
  CK(cudaMalloc(&g.bad, 8));
  CK(cudaEventCreate(&g.e0));
  CK(cudaEventCreate(&g.e1));
  if (cublasCreate(&g.blas) != CUBLAS_STATUS_SUCCESS) return 1;
  fill<<<4096, 256>>>(g.in, maxn, 12345u);
  fill<<<4096, 256>>>(g.orig, size_t(1) << 26, 777u);
  CK(cudaDeviceSynchronize());

  std::vector<Row> rows;
  std::ofstream csv(outdir + "/results.csv");
  csv << "kernel,params,rows,cols,ok,median_ms,gbs\n";
  auto add = [&](const Row& r) {
    rows.push_back(r);
    csv << r.kernel << ",\"" << r.params << "\"," << r.rows << "," << r.cols << "," << r.ok << "," << r.ms << ","
        << r.gbs << "\n";
  };
  // Baselines.
  std::map<std::pair<int, int>, double> memcpy_gbs, sgeam_gbs;
  for (Size s : sizes2d) {
    const size_t n = size_t(s.rows) * s.cols;
    double ms = time_ms(g, [&] { CK(cudaMemcpyAsync(g.out, g.in, n * 4, cudaMemcpyDeviceToDevice)); });
    memcpy_gbs[{s.rows, s.cols}] = 2.0 * n * 4 / (ms * 1e6);
    add({"cudaMemcpy", "", s.rows, s.cols, true, ms, 2.0 * n * 4 / (ms * 1e6)});
    const float one = 1.0f, zero = 0.0f;
    auto geam = [&] {
      cublasSgeam(g.blas, CUBLAS_OP_T, CUBLAS_OP_N, s.rows, s.cols, &one, g.in, s.cols, &zero, g.out, s.rows, g.out, s.rows);
    };
    CK(cudaMemset(g.out, 0xff, n * 4));
    CK(cudaMemset(g.bad, 0, 8));
    geam();
    check_transpose<<<1024, 256>>>(g.out, g.in, s.rows, s.cols, g.bad);
    CK(cudaDeviceSynchronize());
    const bool ok = read_bad(g) == 0;
    ms = time_ms(g, geam);
    sgeam_gbs[{s.rows, s.cols}] = 2.0 * n * 4 / (ms * 1e6);
    add({"cublasSgeam", "", s.rows, s.cols, ok, ms, 2.0 * n * 4 / (ms * 1e6)});
  }

  // Compile a batch in parallel, then measure each at every size of its kind.
  auto run_batch = [&](const std::vector<Config>& cfgs, std::vector<Loaded>& loaded) {
    const auto t0 = std::chrono::steady_clock::now();
    tune::compile::CompilePool pool(0);
    for (size_t i = 0; i < cfgs.size(); ++i) {
      CompileRequest r;
      const bool t = cfgs[i].kernel == "transpose";
      r.source = t ? tsrc : csrc;
      r.source_name = t ? "transpose.cu" : "copy.cu";
      r.kernel_name = cfgs[i].kernel;
      for (auto& [k, v] : cfgs[i].p) r.defines.emplace_back(k, std::to_string(v));
      r.tag = i;
      pool.submit(std::move(r));
    }
    loaded.assign(cfgs.size(), {});
    double compile_ms = 0;
    while (auto res = pool.next()) {
      Loaded& L = loaded[res->tag];
      L.cfg = cfgs[res->tag];
      compile_ms += res->wall_ms;
      L.regs = res->resources.registers;
      L.smem = res->resources.static_shared;
      if (!res->ok()) {
        L.why = "compile failed";
        continue;
      }
      const int threads = L.cfg.get("block_size_x", 1) * L.cfg.get("block_size_y", 1);
      L.why = tune::compile::check_launch(res->resources, threads, 0);
      if (!L.why.empty()) continue;
      CKD(cuModuleLoadData(&L.mod, res->cubin.data()));
      CKD(cuModuleGetFunction(&L.fn, L.mod, res->lowered_name.c_str()));
      CKD(cuOccupancyMaxActiveBlocksPerMultiprocessor(&L.occupancy, L.fn, threads, 0));
      L.ok = true;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("compiled %zu configurations in %.1f s wall (%.0f ms each on average)\n", cfgs.size(), wall,
                compile_ms / std::max<size_t>(1, cfgs.size()));
    for (Loaded& L : loaded) {
      if (!L.ok) {
        std::printf("skipped %s %s: %s\n", L.cfg.kernel.c_str(), L.cfg.str().c_str(), L.why.c_str());
        continue;
      }
      for (Size s : (L.cfg.one_d() ? sizes1d : sizes2d)) add(measure(g, L, s));
      csv.flush();
    }
  };

  auto t_start = std::chrono::steady_clock::now();
  std::vector<Loaded> core, variants, copies;
  auto score = [&](const std::string& params) {  // worst ratio to cudaMemcpy, square 2048..16384
    double worst = 1e9;
    for (const Row& r : rows)
      if (r.kernel == "transpose" && r.params == params && r.rows == r.cols && r.rows >= 2048 && r.rows % 128 == 0)
        worst = std::min(worst, r.ok ? r.gbs / memcpy_gbs[{r.rows, r.cols}] : 0.0);
    return worst == 1e9 ? 0.0 : worst;
  };
  if (!list_file.empty()) {
    // Every configuration of a list, e.g. of the shipped spaces.
    run_batch(read_list(list_file), core);
  } else {
    run_batch(transpose_core(), core);
    std::printf("stage 1 done after %.0f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
    // Stage 2 varies the top 24 of stage 1.
    std::vector<std::pair<double, Config>> ranked;
    for (const Loaded& L : core)
      if (L.ok) ranked.push_back({score(L.cfg.str()), L.cfg});
    std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
    std::vector<Config> stage2;
    for (size_t i = 0; i < std::min<size_t>(24, ranked.size()); ++i)
      for (int map : {0, 1, 2, 3})  // 0 row order, 1 diagonal, 2 group of 4, 3 group of 16
        for (int tiles : {1, 2, 4})
          for (int st : {0, 1}) {
            if (!map && tiles == 1 && !st) continue;
            Config c = ranked[i].second;
            for (auto& [k, v] : c.p) {
              if (k == "diagonal") v = map == 1;
              if (k == "group") v = map == 2 ? 4 : map == 3 ? 16 : 1;
              if (k == "tiles") v = tiles;
              if (k == "streaming") v = st;
            }
            stage2.push_back(c);
          }
    run_batch(stage2, variants);
    std::printf("stage 2 done after %.0f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
    run_batch(copy_configs(), copies);
  }
  std::printf("measured after %.0f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
  // cudaMemcpy again: how far the ceiling drifted while the configurations ran.
  std::printf("cudaMemcpy GB/s at the start / at the end:");
  for (Size s : sizes2d) {
    const size_t n = size_t(s.rows) * s.cols;
    const double ms = time_ms(g, [&] { CK(cudaMemcpyAsync(g.out, g.in, n * 4, cudaMemcpyDeviceToDevice)); });
    add({"cudaMemcpy_end", "", s.rows, s.cols, true, ms, 2.0 * n * 4 / (ms * 1e6)});
    std::printf(" %dx%d %.0f/%.0f", s.rows, s.cols, memcpy_gbs[{s.rows, s.cols}], 2.0 * n * 4 / (ms * 1e6));
  }
  std::printf("\n");
  csv.close();
  int failures = 0;
  for (const Row& r : rows)
    if (!r.ok) {
      if (failures++ < 10) std::printf("WRONG: %s %s at %dx%d\n", r.kernel.c_str(), r.params.c_str(), r.rows, r.cols);
    }
  std::printf("verification failures: %d of %zu measurements\n", failures, rows.size());

  // Summary: per size, the best of each kernel next to the baselines.
  std::printf("\n%-11s %8s %8s | %8s %5s %5s | %8s %8s %8s\n", "rows x cols", "memcpy", "sgeam", "transp", "/mcpy",
              "/geam", "copy", "copy_vec", "copy_sh");
  std::map<std::string, std::pair<double, std::string>> best_at;
  for (Size s : sizes2d) {
    std::map<std::string, std::pair<double, std::string>> best;
    for (const Row& r : rows)
      if (r.rows == s.rows && r.cols == s.cols && r.ok && r.gbs > best[r.kernel].first) best[r.kernel] = {r.gbs, r.params};
    const double m = memcpy_gbs[{s.rows, s.cols}], ge = sgeam_gbs[{s.rows, s.cols}];
    std::printf("%5dx%-5d %8.0f %8.0f | %8.0f %5.3f %5.3f | %8.0f %8.0f %8.0f  [%s]\n", s.rows, s.cols, m, ge,
                best["transpose"].first, best["transpose"].first / m, best["transpose"].first / ge, best["copy"].first,
                best["copy_vec"].first, best["copy_shared"].first, best["transpose"].second.c_str());
  }
  // The single best transpose configuration (worst ratio to memcpy, 2048..16384) over all sizes.
  std::vector<std::pair<double, Config>> ranked;
  for (const auto* set : {&core, &variants})
    for (const Loaded& L : *set)
      if (L.ok) ranked.push_back({score(L.cfg.str()), L.cfg});
  std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
  const size_t top = std::getenv("BENCH_TOP") ? std::stoul(std::getenv("BENCH_TOP")) : 15;
  std::printf("\ntop transpose configurations by worst ratio to memcpy over square 2048..16384 (size:GB/s):\n");
  for (size_t i = 0; i < std::min(top, ranked.size()); ++i) {
    std::printf("%.3f  %s |", ranked[i].first, ranked[i].second.str().c_str());
    for (const Row& r : rows)
      if (r.kernel == "transpose" && r.params == ranked[i].second.str() && r.rows == r.cols && r.rows % 1024 == 0)
        std::printf(" %d:%.0f", r.rows, r.gbs);
    std::printf("\n");
  }
  // Marginals: the best GB/s at 16384 and 2048 for each parameter value.
  std::printf("\nbest transpose GB/s per parameter value at 16384 / 4096 / 1024:\n");
  std::map<std::string, std::map<int, std::array<double, 3>>> marg;
  for (const Row& r : rows) {
    if (r.kernel != "transpose" || !r.ok || r.rows != r.cols) continue;
    const int slot = r.rows == 16384 ? 0 : r.rows == 4096 ? 1 : r.rows == 1024 ? 2 : -1;
    if (slot < 0) continue;
    std::istringstream ss(r.params);
    std::string kv;
    while (ss >> kv) {
      const auto eq = kv.find('=');
      auto& cell = marg[kv.substr(0, eq)][std::stoi(kv.substr(eq + 1))];
      cell[slot] = std::max(cell[slot], r.gbs);
    }
  }
  for (auto& [k, vals] : marg) {
    std::printf("%-13s", k.c_str());
    for (auto& [v, b] : vals) std::printf("  %d: %.0f/%.0f/%.0f", v, b[0], b[1], b[2]);
    std::printf("\n");
  }
  std::printf("\noffset_access / stride_access GB/s at n = 2^26 (value: GB/s):\n");
  for (const char* k : {"offset_access", "stride_access"}) {
    std::printf("%s:", k);
    for (const Row& r : rows)
      if (r.kernel == k && r.cols == (1 << 26)) std::printf(" %s:%.0f", r.params.substr(r.params.rfind('=') + 1).c_str(), r.gbs);
    std::printf("\n");
  }
  std::printf("total %.0f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
  return failures == 0 ? 0 : 2;
}
