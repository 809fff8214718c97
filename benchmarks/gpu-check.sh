#!/bin/sh
# benchmarks/gpu-check.sh: on a GPU machine, in one call: install what is
# missing and build (scripts/setup.sh; CUDA is on wherever nvcc is), run the
# full test suite (test_field_cuda must run, not skip), benchmark the field
# on the GPU and the CPU, and print a short table last. Logs and the table go
# to $OUT (or benchmarks/results/ when OUT is unset).
#   usage: sh benchmarks/gpu-check.sh [points...]     (lugre3d at 1e5 1e6 1e7 1e8 by default;
#          every other friction law at 1e6 points; the CuPy peer at 1e5 1e6 1e7 where python3 has CuPy;
#          GPU_CHECK_BENCH=study: the study checks of benchmarks/study-gpu.sh instead;
#          GPU_CHECK_BENCH=structure: the batched structure step only, `bristle bench structure`;
#          GPU_CHECK_BENCH=sweep: S5b study throughput from 1e2 to 1e5 variants, GPU and CPU, and phases;
#          GPU_CHECK_BENCH=host: the host's share of a GPU study's step (benchmarks/gpu-host-threads.sh);
#          GPU_CHECK_PREBUILT=1: no build; the binaries benchmarks/gpu-pack.sh packed elsewhere
#          (build-gpu/carry, .deps/rt) and the CUDA test programs among them instead of ctest)
set -u
cd "$(dirname "$0")/.."
OUTDIR="${OUT:-benchmarks/results}"
mkdir -p "$OUTDIR"
POINTS="${*:-100000 1000000 10000000 100000000}"
dev="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
t0=$(date +%s)
commit="${BRISTLE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

BR=./build/bristle
if [ -n "${GPU_CHECK_PREBUILT:-}" ]; then
    # benchmarks/gpu-pack.sh's binaries and runtime packages, unpacked here
    rm -rf build-gpu/bin && mkdir -p build-gpu/bin && tar xzf build-gpu/carry/carry.tgz -C build-gpu/bin ||
        { echo "gpu-check: no build-gpu/carry/carry.tgz: run benchmarks/gpu-pack.sh where nvcc is, and carry it"; exit 1; }
    R="$PWD/.deps/rt-root"
    rm -rf "$R" && mkdir -p "$R"
    for d in .deps/rt/*.deb; do dpkg -x "$d" "$R" || exit 1; done
    L="$R/usr/lib/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$L:$L/openblas-pthread:$L/blas:$L/lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    commit="${BRISTLE_COMMIT:-$(cat build-gpu/bin/commit)}"
    src=$(cat build-gpu/bin/source-dir) # the test programs read the scenarios there
    [ "$src" = "$PWD" ] || [ -e "$src" ] || { mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; } ||
        echo "gpu-check: $src (the tests' scenario path) missing and not linkable"
    BR=build-gpu/bin/bristle
    "$BR" info || exit 1
    t1=$(date +%s)
    trc=0
    # GPU_CHECK_FIELD_TESTS=0: not test_field_cuda (a call whose field kernels an earlier call ran)
    for t in "test_field_cuda" "test_beam_batch --jobs 1 --filter=beam_batch_cuda/*" "test_ga_batch --jobs 1"; do
        [ "${GPU_CHECK_FIELD_TESTS:-1}" = 0 ] && [ "$t" = test_field_cuda ] && continue
        # shellcheck disable=SC2086
        (build-gpu/bin/$t --verbose || echo "FAILED: $t") >>"$OUTDIR/gpu-tests.log" 2>&1
    done
    echo "tests ran in $(($(date +%s) - t1)) s"
    grep -E "cuda vs cpu|against|SKIP|Synthesis|FAILED" "$OUTDIR/gpu-tests.log"
    if grep -qE "SKIP test_|FAILED|Failing: [1-9]|Crashing: [1-9]" "$OUTDIR/gpu-tests.log"; then
        echo "gpu-check: a CUDA test failed or was skipped on a GPU machine"
        trc=1
    fi
fi

# The project's own dependencies: from the system where pkg-config finds them (scripts/setup.sh
# installs what is missing), else from the .deb files scripts/fetch-deps.sh left in .deps/debs,
# unpacked into .deps/root with pkg-config, the compiler, the linker and the loader pointed there.
# BRISTLE_DEPS=debs forces the second way (to try it on a machine that has the packages).
if [ -n "${GPU_CHECK_PREBUILT:-}" ]; then
    :
elif [ "${BRISTLE_DEPS:-}" != debs ] && pkg-config --exists yaml-0.1 libcjson cairo libpng lapacke openblas assimp criterion 2>/dev/null; then
    sh scripts/setup.sh >"$OUTDIR/gpu-build.log" 2>&1 || { echo "build failed"; tail -30 "$OUTDIR/gpu-build.log"; exit 1; }
else
    ls .deps/debs/*.deb >/dev/null 2>&1 ||
        { echo "gpu-check: dependencies missing and no .deps/debs: run scripts/fetch-deps.sh where the Debian archive is reachable"; exit 1; }
    R="$PWD/.deps/root"
    L="$R/usr/lib/x86_64-linux-gnu"
    rm -rf "$R" && mkdir -p "$R"
    for d in .deps/debs/*.deb; do dpkg -x "$d" "$R" || exit 1; done
    # Debian's alternatives pick the LAPACK and BLAS that lapacke.pc requires; dpkg -x makes no alternatives.
    ln -sf ../openblas-pthread/pkgconfig/lapack-openblas.pc "$L/pkgconfig/lapack.pc"
    ln -sf ../openblas-pthread/pkgconfig/blas-openblas.pc "$L/pkgconfig/blas.pc"
    export PKG_CONFIG_LIBDIR="$L/pkgconfig:$R/usr/share/pkgconfig:$L/openblas-pthread/pkgconfig"
    export PKG_CONFIG_SYSROOT_DIR="$R" PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
    export CPATH="$R/usr/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$L:$L/openblas-pthread${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LDFLAGS="-Wl,-rpath-link,$L:$L/openblas-pthread"
    pc=pkg-config
    command -v pkg-config >/dev/null || pc="$R/usr/bin/pkgconf"
    # this GPU's architecture only (one nvcc pass instead of two)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
    { LD_LIBRARY_PATH="$L" cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPKG_CONFIG_EXECUTABLE="$pc" \
        ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch} &&
        LD_LIBRARY_PATH="$L" cmake --build build -j "$(nproc)"; } >"$OUTDIR/gpu-build.log" 2>&1 ||
        { echo "build failed"; tail -40 "$OUTDIR/gpu-build.log"; exit 1; }
    # the tests and benchmarks load the unpacked libraries (and their own dependencies) from there
    export LD_LIBRARY_PATH="$L:$L/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # no Python packages there (VTK, h5py, pandas, the .venv of scripts/setup.sh): the tests of the
    # output files' clients and of the Python package are left out, and said so
    PY_EXCLUDE="-E test_output_clients|test_python"
    echo "gpu-check: test_output_clients and test_python left out (no Python packages on this machine)"
fi
if [ -z "${GPU_CHECK_PREBUILT:-}" ]; then
    ./build/bristle info || exit 1
    # --verbose keeps every test's output, so the CUDA-vs-CPU figures are in the log.
    echo "built in $(($(date +%s) - t0)) s"
    # GPU_CHECK_CTEST: extra ctest arguments (for example "-R cuda" to re-run only the GPU tests)
    t1=$(date +%s)
    # shellcheck disable=SC2086
    (cd build && ctest --verbose -j "$(nproc)" ${GPU_CHECK_CTEST:-} ${PY_EXCLUDE:-}) >"$OUTDIR/gpu-tests.log" 2>&1
    trc=$?
    echo "tests ran in $(($(date +%s) - t1)) s"
    grep -E "cuda vs cpu|SKIP|tests passed|Failed|\*\*\*" "$OUTDIR/gpu-tests.log"
    # On this machine the CUDA tests must run: a skip is a failure here.
    if grep -q "SKIP test_" "$OUTDIR/gpu-tests.log"; then
        echo "gpu-check: CUDA tests were skipped on a GPU machine"
        trc=1
    fi
fi

# GPU_CHECK_BENCH=0: the build and tests only
if [ "${GPU_CHECK_BENCH:-1}" = 0 ]; then
    echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   tests exit: $trc"
    exit $trc
fi
# GPU_CHECK_BENCH=study: the studies of issue 16 instead of the field benchmarks (a call of their
# own: several minutes; with GPU_CHECK_CTEST="-R cuda" the tests take seconds on a warm build):
# CPU/GPU agreement on S2 and a 65-variant S5b study, and study throughput (variant-steps/s) at
# 1e2 to 1e4 variants on both (benchmarks/study-gpu.sh, its outputs under runs/study-gpu;
# STUDY_GPU_COUNTS="100 1000 10000 100000" adds 1e5).
# GPU_CHECK_BENCH=structure (and before the studies): the generalized-alpha step of 1e2 to 1e5
# variants of the S2 bundle, each variant's own on the host's cores, the CPU batch and the GPU
# batch (inputs copied each step, and resident), against the copy bandwidths of the same run
# (host/cli/bench_structure.c); a failed size is a FAILED row
structure_table() {
    echo "| variants | own steps, host cores [variant-steps/s] | GPU, inputs copied | GPU, resident | GPU GB/s | GPU copy GB/s | bytes/variant-step | device |"
    echo "|---|---|---|---|---|---|---|---|"
    for nv in ${STRUCTURE_VARIANTS:-100 1000 10000 100000}; do
        line=$("$BR" bench structure --variants "$nv" --steps 100 --backend all 2>>"$OUTDIR/gpu-structure.log" | grep '^RESULT')
        if [ -z "$line" ]; then echo "| $nv | FAILED | | | | | | |"; trc=1; continue; fi
        echo "$line" >>"$OUTDIR/gpu-structure.log"
        g() { echo "$line" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
        case "$(g gpu_resident_vsteps_per_s)" in 0.0000e+00 | "") echo "| $nv | $(g own_vsteps_per_s) | FAILED (no GPU run) | | | | | |"; trc=1; continue ;; esac
        echo "| $nv | $(g own_vsteps_per_s) | $(g gpu_vsteps_per_s) | $(g gpu_resident_vsteps_per_s) | $(g gpu_resident_GBs) | $(g gpu_copy_GBs) | $(g bytes_per_vstep) | $(echo "$line" | sed -n 's/.*device="\([^"]*\)".*/\1/p') |"
    done
}
if [ "${GPU_CHECK_BENCH:-1}" = structure ]; then
    structure_table >"$OUTDIR/gpu-structure.md"
    echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   exit: $trc"
    cat "$OUTDIR/gpu-structure.md"
    exit $trc
fi
# GPU_CHECK_BENCH=sweep: S5b studies (benchmarks/gpu-profile.sh) at GPU_CHECK_COUNTS variants (default
# 100 1000 10000 100000) on the beam batch and on the CPU's cores, each at two step counts (100 and
# 300; 20 and 60 from 1e5 variants on the CPU): the per-step cost is the difference of the studies'
# wall times (setup excluded), the rate variant-steps/s; first the beam batch's phases at 1e4 and 1e5
# variants (BRISTLE_BEAM_TIMING=1, every launch waited for; with the setup's stages)
sweep_table() {
    echo "| variants | path | steps | study wall [s] | steps | study wall [s] | per step [ms] | variant-steps/s |"
    echo "|---|---|---|---|---|---|---|---|"
    for nv in ${GPU_CHECK_COUNTS:-100 1000 10000 100000}; do
        # beams-full (at GPU_CHECK_FULL_AT variants, default 1e4): the beam batch with whole samples
        # (BRISTLE_STUDY_SAMPLE=full, as before the lean samples of 2b913e8), in the same call
        full=""
        [ "$nv" = "${GPU_CHECK_FULL_AT:-10000}" ] && full=beams-full
        for path in beams $full cpu; do
            s1=100 s2=300
            [ "$path" = cpu ] && [ "$nv" -ge 100000 ] && s1=20 s2=60
            p=$path smp="" o="$OUTDIR/profile"
            [ "$path" = beams-full ] && p=beams smp=full o="$OUTDIR/profile-full"
            w=""
            for st in $s1 $s2; do
                line=$(OUT="$o" BRISTLE_STUDY_SAMPLE=$smp GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=$st \
                    GPU_PROFILE_PATHS=$p sh benchmarks/gpu-profile.sh "$BR" 2>&1 | grep "^$nv variants")
                echo "$line" >>"$OUTDIR/gpu-sweep.log"
                w="$w $(echo "$line" | sed -n 's/.*"wall_time_s":\([0-9.e+-]*\).*/\1/p')"
            done
            # shellcheck disable=SC2086
            set -- $w
            if [ $# -ne 2 ]; then echo "| $nv | $path | $s1 | FAILED | $s2 | | | |"; trc=1; continue; fi
            python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); d = (b - a) / ($s2 - $s1)
print('| $nv | $path | $s1 | %.3f | $s2 | %.3f | %.3f | %.3g |' % (a, b, 1e3 * d, $nv / d if d > 0 else 0))" "$1" "$2"
            # lean and whole samples give the same study.csv, bitwise (the 300-step studies)
            if [ "$path" = beams-full ]; then
                if cmp -s "$OUTDIR/profile/r-$nv-beams/study.csv" "$OUTDIR/profile-full/r-$nv-beams/study.csv"; then
                    echo "| $nv | lean and whole samples: study.csv bitwise equal | | | | | | |"
                else
                    echo "| $nv | lean and whole samples: study.csv DIFFERS | | | | | | |"
                    trc=1
                fi
            fi
        done
    done
}
if [ "${GPU_CHECK_BENCH:-1}" = sweep ]; then
    # the phases (and the setup's) at GPU_CHECK_PHASES variants (default 1e4 and 1e5)
    for nv in ${GPU_CHECK_PHASES:-10000 100000}; do
        OUT="$OUTDIR/phases" BRISTLE_BEAM_TIMING=1 GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=100 GPU_PROFILE_PATHS=beams \
            sh benchmarks/gpu-profile.sh "$BR" | grep "^$nv"
        python3 -c "import json, sys; print(json.dumps(json.load(open(sys.argv[1])).get('beam_batch_seconds')))" \
            "$OUTDIR/phases/r-$nv-beams/summary.json"
    done
    sweep_table >"$OUTDIR/gpu-sweep.md"
    cat "$OUTDIR/gpu-sweep.md"
    echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   exit: $trc"
    exit $trc
fi
# GPU_CHECK_BENCH=host: the host's share of a 1e4-variant S5b step by host threads and OpenMP wait
# policy (benchmarks/gpu-host-threads.sh; GPU_HOST_COUNT, GPU_HOST_THREADS)
if [ "${GPU_CHECK_BENCH:-1}" = host ]; then
    OUT="$OUTDIR/host" sh benchmarks/gpu-host-threads.sh "$BR" >"$OUTDIR/gpu-host-threads.md" 2>"$OUTDIR/gpu-host-threads.log" || trc=1
    grep -q FAILED "$OUTDIR/gpu-host-threads.md" && trc=1
    echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   exit: $trc"
    cat "$OUTDIR/gpu-host-threads.md"
    exit $trc
fi
if [ "${GPU_CHECK_BENCH:-1}" = study ]; then
    structure_table >"$OUTDIR/gpu-structure.md"
    cat "$OUTDIR/gpu-structure.md"
    t2=$(date +%s)
    sh benchmarks/study-gpu.sh "$BR" >"$OUTDIR/gpu-study.md" 2>"$OUTDIR/gpu-study.log" || trc=1
    echo "studies ran in $(($(date +%s) - t2)) s"
    echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   exit: $trc"
    cat "$OUTDIR/gpu-study.md" "$OUTDIR/gpu-study.log"
    exit $trc
fi
table="$OUTDIR/gpu-bench.md"
{
    echo "| backend | device | law | points | updates/s | achieved GB/s | copy GB/s | B/point |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$table"
# lugre3d at every size, then every law at 1e6 points
runs=""
for n in $POINTS; do runs="$runs lugre3d:$n"; done
for law in $("$BR" info | sed -n 's/^friction laws: //p'); do
    [ "$law" = lugre3d ] || runs="$runs $law:1000000"
done
# bench_row BACKEND LAW POINTS STEPS LABEL [bench options]: one benchmark, its RESULT line logged and
# a table row appended (LABEL after the law: "" or " + tangent")
bench_row() {
    be=$1 law=$2 n=$3 steps=$4 label=$5
    shift 5
    out=$("$BR" bench field --law "$law" --points "$n" --steps "$steps" --backend "$be" --no-baseline "$@" 2>&1)
    line=$(echo "$out" | grep '^RESULT')
    echo "$out" >>"$OUTDIR/gpu-bench.log"
    if [ -z "$line" ]; then
        # no empty row: say what failed, and fail the check
        echo "| $be | - | $law$label | $n | FAILED: $(echo "$out" | tail -1) | | | |" >>"$table"
        trc=1
        return
    fi
    echo "$line" | awk -v dev="$dev" -v label="$label" '{
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "| %s | %s | %s%s | %s | %s | %s | %s | %s |\n", v["backend"], (v["backend"] == "cuda" ? dev : "host CPU"),
            v["law"], label, v["points"], v["updates_per_s"], v["bw_GBs"], v["copy_GBs"], v["mem_B_per_point"] }' >>"$table"
}
for run in $runs; do
    law=${run%%:*}
    n=${run#*:}
    for be in cuda cpu; do
        [ "$be" = cpu ] && [ "$n" -gt 1000000 ] && continue
        steps=200
        [ "$be" = cpu ] && steps=20
        bench_row "$be" "$law" "$n" "$steps" ""
    done
done
# The implicit coupling's path: lugre3d at 1e6 points with the wrench tangent reduced every step.
bench_row cuda lugre3d 1000000 200 " + tangent" --tangent
bench_row cpu lugre3d 1000000 20 " + tangent" --tangent
# The CuPy peer (benchmarks/peers/lugre3d_numpy.py --cupy: the NumPy program of the peer table on the
# GPU), in the same call as the field's rows, with the copy rate it measures itself.
if python3 -c "import cupy" 2>/dev/null; then
    for n in 100000 1000000 10000000; do
        line=$(python3 benchmarks/peers/lugre3d_numpy.py --cupy "$n" 200 2>>"$OUTDIR/gpu-bench.log" | grep '^RESULT')
        echo "$line" >>"$OUTDIR/gpu-bench.log"
        if [ -z "$line" ]; then
            echo "| cupy peer | - | lugre3d | $n | FAILED | | | |" >>"$table"
            trc=1
            continue
        fi
        echo "$line" | awk -v dev="$dev" '{
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "| cupy peer | %s | lugre3d | %s | %s | %.3f | %s | 56 |\n", dev, v["points"], v["updates_per_s"],
                v["updates_per_s"] * 88 / 1e9, v["copy_GBs"] }' >>"$table"
    done
fi
# The S1 cube run (4e5 steps, 6 points): per-step overhead of each backend (not with GPU_CHECK_PREBUILT:
# benchmarks/cube-run.sh runs ./build/bristle).
for be in cuda cpu; do
    [ -n "${GPU_CHECK_PREBUILT:-}" ] && break
    echo "cube_00 on $be:" >>"$OUTDIR/gpu-cube.log"
    OUT=/tmp sh benchmarks/cube-run.sh "$be" "${GPU_CHECK_CUBE_REPEAT:-3}" >>"$OUTDIR/gpu-cube.log" 2>&1
done
echo
echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   tests exit: $trc"
cat "$table"
echo
cat "$OUTDIR/gpu-cube.log"
exit $trc
