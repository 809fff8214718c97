#!/bin/sh
# benchmarks/gpu-profile.sh [BRISTLE]: where a GPU study's step goes (issue 16): S5b studies of
# GPU_PROFILE_COUNTS variants (default 1000 10000) for GPU_PROFILE_STEPS steps (default 200), on the
# paths GPU_PROFILE_PATHS (default "field beams"; on GPU_PROFILE_THREADS host threads, default all; field: --backend cuda with BRISTLE_STUDY_BEAMS=host,
# beams: --backend cuda, the beam batch, cpu: --backend cpu), each timed alone (run it at two step counts: the
# difference is the cost of the steps without the setup)
# and then under Nsight Systems when nsys is found: the kernel, CUDA API and memory-copy summaries go to
# $OUT/<count>-<path>-*.csv, the wall times to stdout. For a GPU machine without the project's packages
# it runs a prebuilt binary (default build-gpu/bristle) with the libraries of .deps/rt unpacked there.
set -u
BR=${1:-build-gpu/bristle}
OUT=${OUT:-runs/gpu-profile}
mkdir -p "$OUT"
if [ -d .deps/rt ] && ! "$BR" info >/dev/null 2>&1; then
    R="$PWD/.deps/rt-root"
    rm -rf "$R" && mkdir -p "$R"
    for d in .deps/rt/*.deb; do dpkg -x "$d" "$R"; done
    L="$R/usr/lib/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$L:$L/openblas-pthread:$L/blas:$L/lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
"$BR" info || exit 1
nvidia-smi --query-gpu=name,memory.total,clocks.max.mem --format=csv,noheader
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys \
    /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-not found}; gdb: $(command -v gdb || echo none); perf: $(command -v perf || echo none)"
STEPS=${GPU_PROFILE_STEPS:-200}
for n in ${GPU_PROFILE_COUNTS:-1000 10000}; do
    end=$(python3 -c "print($STEPS * 1e-5)")
    sed "s|^scenario: ../scenarios/|scenario: $PWD/scenarios/|; s|count: 64|count: $n|" studies/mistuning_lugre.yaml |
        sed "s|^random:|set: {time.end: $end}\nrandom:|" >"$OUT/s5b-$n.yaml"
    for path in ${GPU_PROFILE_PATHS:-field beams}; do
        beams=host; [ $path = beams ] && beams=cuda
        be=cuda; [ $path = cpu ] && be=cpu
        rm -rf "$OUT/r-$n-$path" # a failed study leaves no summary of an earlier run to be read as its own
        t0=$(date +%s.%N)
        BRISTLE_STUDY_BEAMS=$beams "$BR" study "$OUT/s5b-$n.yaml" --backend $be --threads "${GPU_PROFILE_THREADS:-$(nproc)}" --quiet \
            --out "$OUT/r-$n-$path" >"$OUT/r-$n-$path.log" 2>&1 &
        pid=$!
        # without nsys: the host stacks sampled by gdb every GPU_PROFILE_SAMPLE seconds (a poor man's profiler)
        if [ -n "${GPU_PROFILE_SAMPLE:-}" ] && command -v gdb >/dev/null; then
            while kill -0 $pid 2>/dev/null; do
                sleep "$GPU_PROFILE_SAMPLE"
                gdb -p $pid -batch -ex "thread apply all bt 12" 2>/dev/null | grep '^#' | awk '{print $4}' |
                    sort | uniq -c | sort -rn | head -12 >>"$OUT/stacks-$n-$path.txt"
                echo -- >>"$OUT/stacks-$n-$path.txt"
            done
        fi
        wait $pid
        rc=$?
        t1=$(date +%s.%N)
        echo "$n variants, $path, $STEPS steps: rc $rc, $(python3 -c "print('%.3f s' % ($t1 - $t0))") in all," \
            "$(grep -oE '"(wall|setup)_time_s":[^,]*' "$OUT/r-$n-$path/summary.json" 2>/dev/null | tr -d '\t\n') in the study"
        [ -n "$NSYS" ] || continue
        BRISTLE_STUDY_BEAMS=$beams "$NSYS" profile -o "$OUT/p-$n-$path" --force-overwrite true -t cuda,osrt \
            "$BR" study "$OUT/s5b-$n.yaml" --backend cuda --threads "${GPU_PROFILE_THREADS:-$(nproc)}" --quiet --out "$OUT/q-$n-$path" \
            >"$OUT/p-$n-$path.log" 2>&1
        "$NSYS" stats --report cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,osrt_sum --format csv \
            -o "$OUT/$n-$path" "$OUT/p-$n-$path.nsys-rep" >/dev/null 2>&1
        for f in "$OUT/$n-$path"_*.csv; do
            echo "== $f"
            head -8 "$f" | cut -c1-220
        done
        rm -rf "$OUT/q-$n-$path" "$OUT/r-$n-$path/variants" "$OUT/p-$n-$path.sqlite"
    done
    rm -rf "$OUT/r-$n-"*/variants
done
