#!/usr/bin/env bash
# Strategy-driven tuning against brute force on the GPU (GPU machine, repository root, prebuilt
# binary):   bench/bench_strategy_gpu.sh OUT_DIR [TUNE_BINARY] [STRATEGY] [SEEDS]
# For GEMM 4096^3 (spaces/gemm.json, and on Hopper spaces/gemm_wgmma.json at 4096^3 and 8192^3)
# and feature matching 16384 x 16384 x 128 (spaces/matching.json, spaces/matching_wgmma.json): a
# brute-force run (exported as a Kernel Tuner cache, OUT_DIR/<name>_bf.json.gz, which
# bench/replay_budget.sh replays over many seeds), then STRATEGY (default: tune's default strategy, as
# `tune run --help` names it) with a budget of 10% of the valid configurations (--max-fevals) at each
# seed of SEEDS (default "1 2 3"), every run into a fresh database (so nothing is compiled or
# measured once for two runs), one after the other, timed by the measurement method of `tune run`.
# Per run: the best configuration found and its time; its time in the brute-force run (the same
# configuration measured in the same run as brute force's best: the ratio without run-to-run
# drift); wall times. Targets (issue: search): within 3% of brute force's best at every seed, in
# under a fifth of brute force's wall time. The table goes to OUT_DIR/strategy.md.
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
strategy=${3:-$("$tune" run --help | tr -s ' \n' ' ' | grep -oE "else [a-z_]+\)" | head -1 | sed -E 's/else ([a-z_]+)\)/\1/')}
seeds=${4:-1 2 3}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
work=${WORK:-$(mktemp -d)}  # the databases (large): kept out of OUT_DIR
mkdir -p "$work"
[[ -n "$strategy" ]] || { echo "bench_strategy_gpu: no strategy named" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
echo "strategy: $strategy; seeds: $seeds" | tee -a "$out/runs.txt"
cases=("spaces/gemm.json 4096x4096x4096" "spaces/matching.json 16384x16384x128")
if nvidia-smi --query-gpu=compute_cap --format=csv,noheader | grep -q "^9\.0"; then  # wgmma: sm_90a
  cases+=("spaces/gemm_wgmma.json 4096x4096x4096" "spaces/gemm_wgmma.json 8192x8192x8192"
          "spaces/matching_wgmma.json 16384x16384x128")
fi
if [[ -n "${ONLY:-}" ]]; then  # ONLY="gemm matching_wgmma ...": the spaces to run
  pick=()
  for c in "${cases[@]}"; do [[ " $ONLY " == *" $(basename "${c%% *}" .json) "* ]] && pick+=("$c"); done
  cases=("${pick[@]}")
fi
for c in "${cases[@]}"; do
  read -r space size <<<"$c"
  name=$(basename "$space" .json)
  [[ $name == *_wgmma ]] && name=${name}_$size  # two sizes of one space: one name each
  valid=$("$tune" space --space "$space" 2>&1 | grep -oE "valid [0-9]+" | grep -oE "[0-9]+")
  budget=$(( (valid + 9) / 10 ))
  for run in bf $seeds; do
    db="$work/${name}_$run.db"
    rm -f "$db" "$db-wal" "$db-shm"
    if [[ $run == bf ]]; then args=(--strategy brute_force); else args=(--strategy "$strategy" --max-fevals "$budget" --seed "$run"); fi
    start=$(date +%s.%N)
    "$tune" --space "$space" --sizes "$size" "${args[@]}" --db "$db" --json > "$work/${name}_$run.json" 2> "$out/${name}_$run.log"
    rc=$?
    end=$(date +%s.%N)
    [[ $run == bf ]] && "$tune" export --format kt-cache --kernel "$(basename "$space" .json)" --size "$size" \
      --db "$db" --out "$work/${name}_bf_cache.json" > /dev/null 2>&1 &&
      gzip -9nc "$work/${name}_bf_cache.json" > "$out/${name}_bf.json.gz"
    echo "$name $run rc=$rc wall=$(python3 -c "print(f'{$end - $start:.2f}')") valid=$valid budget=$budget" | tee -a "$out/runs.txt"
  done
done
python3 - "$out" "$strategy" "$work" <<'PY' | tee "$out/strategy.md"
import json, sqlite3, sys
out, strategy, work = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {}
for line in open(f"{out}/runs.txt"):
    if "rc=" not in line:
        continue
    f = line.split()
    kv = dict(x.split("=") for x in f[2:])
    runs[(f[0], f[1])] = kv

def best(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("select c.params, m.objective from measurements m join configurations c on c.id = m.config_id "
                       "where m.status = 'ok' and m.objective is not null").fetchall()
    con.close()
    return {p: o for p, o in rows}

print(f"strategy {strategy}, budget 10% of the valid configurations; times in ms (the run's objective)\n")
print("| kernel | run | evaluated | best found ms | found / brute force best | same config in the brute-force run / its best | wall s | wall / brute force wall |")
print("|---|---|---|---|---|---|---|---|")
names = sorted({k[0] for k in runs}, key=lambda n: (["gemm", "matching"].index(n) if n in ("gemm", "matching") else 9, n))
for name in names:
    bf = best(f"{work}/{name}_bf.db")
    bf_best = min(bf.values())
    bf_wall = float(runs[(name, "bf")]["wall"])
    print(f"| {name} | brute force | {len(bf)} | {bf_best:.4f} | 1 | 1 | {bf_wall:.1f} | 1 |")
    for (n, run), kv in runs.items():
        if n != name or run == "bf":
            continue
        mine = best(f"{work}/{name}_{run}.db")
        p, o = min(mine.items(), key=lambda x: x[1])
        same = bf.get(p)
        wall = float(kv["wall"])
        print(f"| {name} | seed {run} | {len(mine)} | {o:.4f} | {o / bf_best:.3f} | "
              f"{(same / bf_best) if same else float('nan'):.3f} | {wall:.1f} | {wall / bf_wall:.3f} |")
PY
