#!/usr/bin/env bash
# Search-strategy benchmark by the FGCS 2024 methodology (tune evaluate): every registered strategy
# on the six brute-forced benchmark_hub caches of shared/external (convolution_milo and
# dedispersion_milo on A100, A4000 and MI250X), REPEATS runs each (default 50), in one invocation.
#   bench/bench_strategies.sh                      (from anywhere; uses build/tune)
#   REPEATS=100 SEED=1 STRATEGIES=all TUNE=build/tune HUB=../shared/external/benchmark_hub bench/bench_strategies.sh
# Prints the command, date, CPU and wall time, then Markdown tables for bench/journal.md (the caches'
# statistics and budgets, then the score per strategy per cache and the mean). Keeps the raw
# outputs in out/: strategies.json (tune evaluate --json), strategies.txt (this script's output),
# strategies_curves.csv (every curve: time, random baseline, strategy, score).
set -euo pipefail
cd "$(dirname "$0")/.."
tune="${TUNE:-build/tune}"
repeats="${REPEATS:-50}"
seed="${SEED:-1}"
strategies="${STRATEGIES:-all}"
hub="${HUB:-../shared/external/benchmark_hub}"
[[ -x "$tune" ]] || { echo "bench_strategies: $tune is not built (cmake --build build --target tune)" >&2; exit 2; }
mkdir -p out

args=(evaluate --space "$hub/convolution_milo.json" --space "$hub/dedispersion_milo.json"
      --replay "$hub/convolution_milo/A100.json.gz" "$hub/convolution_milo/A4000.json.gz"
      "$hub/convolution_milo/MI250X.json.gz" "$hub/dedispersion_milo/A100.json.gz"
      "$hub/dedispersion_milo/A4000.json.gz" "$hub/dedispersion_milo/MI250X.json.gz"
      --strategy "$strategies" --repeats "$repeats" --seed "$seed")

start=$(date +%s.%N)
"$tune" "${args[@]}" --json --curves out/strategies_curves.csv > out/strategies.json
end=$(date +%s.%N)
python3 - "$start" "$end" "$tune ${args[*]}" > out/strategies.txt <<'EOF'
import datetime, json, os, sys
start, end, command = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
j = json.load(open("out/strategies.json"))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
print(f"command: {command.replace(os.environ.get('HUB', '../shared/external/benchmark_hub'), '$HUB')}")
print(f"date: {datetime.date.today().isoformat()}; machine: {cpu}, {os.cpu_count()} hardware threads; "
      f"wall {end - start:.0f} s ({j['seconds']:.0f} s of strategy runs)")
print(f"repeats {j['repeats']} per strategy and cache, seeds {j['seed']}..{j['seed'] + j['repeats'] - 1}; "
      f"settings {json.dumps(j['settings'])}")
print()
print("| cache | configs | failed | optimum | median | s per eval | fevals range | time range s | time limit s |")
print("|---|---|---|---|---|---|---|---|---|")
for c in j["caches"]:
    print(f"| {c['cache']} | {c['configs']} | {c['failed']} | {c['optimum_time_ms']:.4g} | {c['median_time_ms']:.4g} | "
          f"{c['time_per_feval_s']:.2f} | {c['fevals_start']}..{c['fevals_end']} | "
          f"{c['time_start_s']:.0f}..{c['time_end_s']:.0f} | {c['time_limit_s']:.0f} |")
print()
caches = [c["cache"] for c in j["caches"]]
print("| strategy | " + " | ".join(caches) + " | mean |")
print("|---|" + "---|" * (len(caches) + 1))
def fmt(s, c):
    e = next(x for x in s["caches"] if x["cache"] == c)
    v = e["score"]
    return f"{v:.3f}" if v is not None else "error" if e["error"] is not None else "n/a"
for s in j["strategies"]:
    mean = "-" if s["mean"] is None else f"{s['mean']:.3f}"
    print(f"| {s['strategy']} | " + " | ".join(fmt(s, c) for c in caches) + f" | {mean} |")
errors = [f"error: {s['strategy']} on {c['cache']}: {c['error']}" for s in j["strategies"] for c in s["caches"]
          if c["error"] is not None]
if errors:
    print("\n" + "\n".join(errors))
EOF
cat out/strategies.txt
