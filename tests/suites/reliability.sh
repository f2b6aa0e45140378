# reliability.sh -- sourced by tests/run.sh: training that survives being killed, files that cannot
# be half-written, models used from many threads (issue 31; docs/training.md, docs/runtime.md).
#
#   reliability/api/...        tests/runtime/t_ckpt.c: gnn_train_state_save/load round trips (Adam,
#                              SGD); a checkpoint cut at every length or with any one byte changed,
#                              another version, model, config, optimiser or shape is refused with
#                              file, expectation and finding, the caller's arrays untouched; a
#                              failed save keeps the old file; tensor text files' checksum line
#                              (old files without it load, damaged ones are refused); under valgrind
#   reliability/resume/...     gnn-train --checkpoint then --resume ends at the parameters of the
#                              uninterrupted run, byte for byte, with the same epoch and accuracy
#                              lines: Adam, SGD, in the middle of an early-stopping streak, and
#                              from a finished run
#   reliability/kill/...       20 SIGKILLs at random points (a test hook slows each commit, so
#                              some land in the middle of a checkpoint write), a resume
#                              after each: every checkpoint left behind is readable, the final
#                              parameters and every printed line equal the uninterrupted run's
#   reliability/disk-full/...  a file-size limit (ulimit -f) below the checkpoint's size: a clear
#                              error naming the file, exit 1, the previous checkpoint intact
#   reliability/corrupt/...    gnn-train and gnnc run refuse damaged checkpoints and parameter files
#                              (truncated, a changed byte, another model or program, other settings)
#   reliability/threads/...    tests/runtime/t_threads.c: 8 examples, each in its own thread with its
#                              own context, 50 training steps, equal to the bit to the sequential
#                              run; then the same under ThreadSanitizer (runtime and libraries
#                              built with -fsanitize=thread, OMP_NUM_THREADS=1: libgomp is not
#                              instrumented and its barriers read as races otherwise)
#   reliability/concurrent/... builds of one model from several processes at once (the ranks of a
#                              data-parallel job): gnnc, 4 runs at once with the same -o (a library,
#                              and --emit=c sources), 3 rounds: all succeed, the library runs, no
#                              temporary left (each run writes under its own name, then renames);
#                              gnnc-cuda-keep: 4 CUDA builds at once with -S (sources and object in
#                              the library's folder), 2 rounds;
#                              tests/python/concurrent_build.py: the mini-batch example's
#                              build_library from 4 processes at once compiles once and all get it
# Under make test-asan (RT_SANITIZED=1) t_ckpt is the ASan+UBSan build; the ThreadSanitizer part
# is skipped there (it needs its own build of the runtime, and the plain run already has it).
rl_bin=$ROOT/build/bin
rl_rt=${RT_BIN:-build/rt}
rl=$TMP/reliability
mkdir -p "$rl"
rl_tail() { printf '%s\n' "$1" | tail -n 3 | tr '\n' ' '; }
# rl_epochs LOG...: the epoch and accuracy lines, without the timing
rl_epochs() { grep -hE '^(epoch |accuracy:)' "$@" | sed 's/  [0-9.]* ms$//'; }

# ---------------------------------------------------------------- the C API
mkdir -p "$rl/api"
if [ -x "$rl_rt/t_ckpt" ]; then
  out=$("$rl_rt/t_ckpt" "$rl/api" 2>&1); report_lines reliability/api $? "$out"
  # every refusal path under valgrind too (the sanitizer build watches by itself)
  if [ -z "${RT_SANITIZED:-}" ] && command -v valgrind > /dev/null; then
    if out=$(valgrind -q --error-exitcode=1 --leak-check=full --suppressions=tests/runtime/valgrind.supp "$rl_rt/t_ckpt" "$rl/api" 2>&1)
    then pass reliability/api/valgrind
    else fail reliability/api/valgrind "$(grep -m3 -E '==[0-9]+==|FAIL' <<< "$out" | tr '\n' ' ')"; fi
  fi
else
  fail reliability/api/built "$rl_rt/t_ckpt is missing (make runtime-tests builds it)"
fi

# Use after free (tests/runtime/t_freed.c with generated/gcn.c, against the plain build: it reads
# freed memory on purpose, so neither valgrind nor the sanitizers watch it): a graph freed twice,
# a model destroyed twice, a forward, backward or set_graph on a model whose graph was freed, the
# runtime's entry points on a freed graph: GNN_ERR_INVALID, where they aborted or read freed memory.
if out=$(cc -std=c11 -O1 -fopenmp -D_DEFAULT_SOURCE -Iruntime -Igenerated tests/runtime/t_freed.c generated/gcn.c \
    -Lbuild/lib -lgnnrt_host -lopenblas -lm -Wl,-rpath,"$PWD/build/lib" -o "$rl/api/t_freed" 2>&1); then
  for rl_case in graph graphcheck model graphfirst; do
    out=$("$rl/api/t_freed" $rl_case 2>&1); report_lines reliability/freed/$rl_case $? "$out"
  done
else fail reliability/freed/built "$(rl_tail "$out")"; fi

# One thread for OpenMP and OpenBLAS: the results do not depend on it, and on a loaded machine
# spinning teams make an epoch ten times slower.
rl_train() { OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$rl_bin/gnn-train" "$rl/libgcn.so" --data data/cora "$@"; }
if [ ! -x "$rl_bin/gnn-train" ]; then
  fail reliability/setup "build/bin/gnn-train is missing (make tools)"
elif ! out=$("$GNNC" dsl-examples/gcn.gnn --target=host -o "$rl/libgcn.so" 2>&1); then
  fail reliability/setup "gnnc could not build dsl-examples/gcn.gnn: $(rl_tail "$out")"
else
  # ---------------------------------------------------------------- resume = uninterrupted
  # rl_resume NAME STOP ARGS...: ARGS uninterrupted, against ARGS stopped after epoch STOP and resumed.
  rl_resume() {
    local name=$1 stop=$2 d=$rl/$1
    shift 2
    mkdir -p "$d"
    rl_train "$@" --save-params "$d/ref.p" > "$d/ref.log" 2>&1
    rl_train "$@" --epochs "$stop" --checkpoint "$d/ck" > "$d/a.log" 2>&1
    local rc1=$?
    rl_train "$@" --resume "$d/ck" --checkpoint "$d/ck" --save-params "$d/res.p" > "$d/b.log" 2>&1
    local rc2=$?
    if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then fail "reliability/resume/$name" "exit $rc1, $rc2: $(tail -2 "$d/b.log" | tr '\n' ' ')"
    elif ! cmp -s "$d/ref.p" "$d/res.p"; then fail "reliability/resume/$name" "the final parameters differ from the uninterrupted run's"
    elif [ "$(rl_epochs "$d/a.log" "$d/b.log" | grep -v '^accuracy' ; rl_epochs "$d/b.log" | grep '^accuracy')" != "$(rl_epochs "$d/ref.log")" ]; then
      fail "reliability/resume/$name" "the printed lines differ: $(diff <(rl_epochs "$d/a.log" "$d/b.log" | grep -v '^accuracy'; rl_epochs "$d/b.log" | grep '^accuracy') <(rl_epochs "$d/ref.log") | head -4 | tr '\n' ' ')"
    else pass "reliability/resume/$name"; fi
  }
  rl_resume adam 11 --epochs 30 --patience 100 --seed 3
  # the resumed run counts the epochs in all and its own (it printed min(epoch, --epochs))
  if grep -q '^trained 30 epochs in all, 19 in this run (' "$rl/adam/b.log" && grep -q '^trained 11 epochs (' "$rl/adam/a.log"
  then pass reliability/resume/trained-count
  else fail reliability/resume/trained-count "$(grep '^trained' "$rl/adam/a.log" "$rl/adam/b.log" | tr '\n' ' ')"; fi
  rl_resume sgd 4 --epochs 10 --optimizer sgd --lr 0.5 --seed 2
  # In the middle of an early-stopping streak: the counter and the best epoch travel too.
  rl_train --epochs 200 --patience 3 --lr 0.05 --seed 1 > "$rl/es.log" 2>&1
  rl_stop=$(sed -n 's/^early stop at epoch \([0-9]*\):.*/\1/p' "$rl/es.log")
  if [ -n "$rl_stop" ] && [ "$rl_stop" -gt 3 ]; then
    rl_resume early-stop $((rl_stop - 2)) --epochs 200 --patience 3 --lr 0.05 --seed 1
    # resuming a finished run trains nothing and reports the same accuracy
    rl_train --epochs 200 --patience 3 --lr 0.05 --seed 1 --resume "$rl/early-stop/ck" > "$rl/fin.log" 2>&1
    if grep -q "training had ended" "$rl/fin.log" && ! grep -q '^epoch ' "$rl/fin.log" &&
       grep -q "^trained $rl_stop epochs in all, 0 in this run (" "$rl/fin.log" &&
       [ "$(grep '^accuracy' "$rl/fin.log")" = "$(grep '^accuracy' "$rl/es.log")" ]; then pass reliability/resume/finished
    else fail reliability/resume/finished "$(tail -3 "$rl/fin.log" | tr '\n' ' ')"; fi
  else
    fail reliability/resume/early-stop "no early stop with patience 3 in 200 epochs: $(tail -2 "$rl/es.log" | tr '\n' ' ')"
  fi

  # ---------------------------------------------------------------- kill -9 at 20 points
  # Each commit sleeps 40 ms between the written data and the rename (GNNRT_TEST_COMMIT_DELAY_MS),
  # so a share of the kills land in the middle of a checkpoint write. RANDOM is seeded: the same
  # points on every run.
  rl_k=$rl/kill
  mkdir -p "$rl_k"
  rl_kargs=(--epochs 150 --patience 1000 --seed 4)
  # The kill points are spread over a start-up and about three epochs, measured on this machine
  # (an --epochs 0 run is the start-up), so that each run advances an epoch or two and twenty kills
  # fall well inside the 150 epochs however fast or loaded the machine is.
  rl_t0=$(date +%s%N)
  rl_train "${rl_kargs[@]}" --epochs 0 > /dev/null 2>&1
  rl_t1=$(date +%s%N)
  rl_train "${rl_kargs[@]}" --save-params "$rl_k/ref.p" > "$rl_k/ref.log" 2>&1
  rl_t2=$(date +%s%N)
  rl_start=$(( (rl_t1 - rl_t0) / 1000000 )) rl_epoch=$(( (rl_t2 - rl_t1 - (rl_t1 - rl_t0)) / 150000000 ))
  [ $rl_epoch -lt 1 ] && rl_epoch=1
  rl_span=$(( rl_start + 3 * (rl_epoch + 45) ))
  RANDOM=31
  rl_kills=0 rl_mid=0 rl_bad="" rl_iter=0
  : > "$rl_k/all.log"
  while [ $rl_kills -lt 20 ] && [ $rl_iter -lt 60 ]; do
    rl_iter=$((rl_iter + 1))
    rl_res=()
    [ -f "$rl_k/ck" ] && rl_res=(--resume "$rl_k/ck")
    GNNRT_TEST_COMMIT_DELAY_MS=40 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$rl_bin/gnn-train" "$rl/libgcn.so" --data data/cora "${rl_kargs[@]}" "${rl_res[@]}" \
      --checkpoint "$rl_k/ck" > "$rl_k/run.log" 2>&1 &
    rl_pid=$!
    rl_ms=$(( 20 + (RANDOM * 32768 + RANDOM) % rl_span ))
    sleep "$(printf '%d.%03d' $((rl_ms / 1000)) $((rl_ms % 1000)))"
    if kill -9 $rl_pid 2> /dev/null; then
      wait $rl_pid 2> /dev/null
      rl_kills=$((rl_kills + 1))
      ls "$rl_k"/ck.?????? > /dev/null 2>&1 && rl_mid=$((rl_mid + 1))
      rm -f "$rl_k"/ck.??????
    else
      wait $rl_pid
      rl_rc=$?
      [ $rl_rc -ne 0 ] && rl_bad="a resumed run failed on its own (exit $rl_rc): $(tail -2 "$rl_k/run.log" | tr '\n' ' ')"
    fi
    cat "$rl_k/run.log" >> "$rl_k/all.log"
    if [ -f "$rl_k/ck" ] && ! out=$("$rl_rt/t_ckpt" check "$rl_k/ck" 2>&1); then
      rl_bad="after kill $rl_kills the checkpoint is unreadable: $out"
    fi
    [ -n "$rl_bad" ] && break
  done
  rl_train "${rl_kargs[@]}" --resume "$rl_k/ck" --checkpoint "$rl_k/ck" --save-params "$rl_k/final.p" > "$rl_k/final.log" 2>&1
  rl_rc=$?
  cat "$rl_k/final.log" >> "$rl_k/all.log"
  if [ -n "$rl_bad" ]; then fail reliability/kill/checkpoints-readable "$rl_bad"
  elif [ $rl_kills -lt 20 ] || [ $rl_mid -lt 1 ]; then
    fail reliability/kill/checkpoints-readable "$rl_kills kills ($rl_mid during a checkpoint write) in $rl_iter runs: want 20, one or more mid-write (start-up $rl_start ms, epoch $rl_epoch ms)"
  else pass reliability/kill/checkpoints-readable; fi
  [ -n "${VERBOSE:-}" ] && echo "  kill: $rl_kills kills, $rl_mid during a checkpoint write, $rl_iter runs; start-up $rl_start ms, epoch $rl_epoch ms, kills within $rl_span ms"
  if [ $rl_rc -eq 0 ] && cmp -s "$rl_k/ref.p" "$rl_k/final.p"; then pass reliability/kill/final-params
  else fail reliability/kill/final-params "exit $rl_rc, parameters $(cmp "$rl_k/ref.p" "$rl_k/final.p" 2>&1 | head -1): $(tail -2 "$rl_k/final.log" | tr '\n' ' ')"; fi
  # every epoch line any of the runs printed is the uninterrupted run's line for that epoch, all epochs seen
  rl_extra=$(comm -23 <(rl_epochs "$rl_k/all.log" | sort -u) <(rl_epochs "$rl_k/ref.log" | sort -u))
  if [ -z "$rl_extra" ] && [ "$(rl_epochs "$rl_k/all.log" | sort -u | wc -l)" = "$(rl_epochs "$rl_k/ref.log" | wc -l)" ]; then
    pass reliability/kill/printed-lines
  else fail reliability/kill/printed-lines "lines the uninterrupted run did not print: $(head -3 <<< "$rl_extra" | tr '\n' ' ')"; fi

  # ---------------------------------------------------------------- a full disk
  # ulimit -f (1024-byte blocks) below the checkpoint's size: the write fails with EFBIG (gnn-train
  # ignores SIGXFSZ), the previous checkpoint stays, no temporary file is left behind.
  rl_d=$rl/full
  mkdir -p "$rl_d"
  if rl_train --epochs 3 --seed 1 --quiet --checkpoint "$rl_d/ck" > /dev/null 2>&1; then
    cp "$rl_d/ck" "$rl_d/before"
    (ulimit -f 64; export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; exec "$rl_bin/gnn-train" "$rl/libgcn.so" --data data/cora --epochs 6 --seed 1 --quiet --resume "$rl_d/ck" \
      --checkpoint "$rl_d/ck") > /dev/null 2> "$rl_d/err"
    rl_rc=$?
    if [ $rl_rc -eq 1 ] && grep -qF "$rl_d/ck: error: write failed: File too large" "$rl_d/err" && cmp -s "$rl_d/ck" "$rl_d/before" &&
       ! ls "$rl_d"/ck.?????? > /dev/null 2>&1 && "$rl_rt/t_ckpt" check "$rl_d/ck" > /dev/null; then
      pass reliability/disk-full/checkpoint
    else fail reliability/disk-full/checkpoint "exit $rl_rc: $(head -c 300 "$rl_d/err"); files: $(ls "$rl_d" | tr '\n' ' ')"; fi
    (ulimit -f 16; export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; exec "$rl_bin/gnn-train" "$rl/libgcn.so" --data data/cora --epochs 2 --seed 1 --quiet --save-params "$rl_d/p") \
      > /dev/null 2> "$rl_d/err2"
    rl_rc=$?
    if [ $rl_rc -eq 1 ] && grep -qF "$rl_d/p: error: write failed: File too large" "$rl_d/err2" && [ ! -e "$rl_d/p" ] &&
       ! ls "$rl_d"/p.?????? > /dev/null 2>&1; then pass reliability/disk-full/params
    else fail reliability/disk-full/params "exit $rl_rc: $(head -c 300 "$rl_d/err2")"; fi
  else
    fail reliability/disk-full/setup "the first checkpoint could not be written"
  fi

  # ---------------------------------------------------------------- damaged files
  # rl_refuse NAME TEXT CMD...: exit 1 (RL_RC), TEXT on stderr, no epoch or accuracy line
  rl_refuse() {
    local name=$1 want=$2 rc wrc=${RL_RC:-1}
    shift 2
    "$@" > "$rl/refuse.out" 2> "$rl/refuse.err"
    rc=$?
    if [ $rc -eq "$wrc" ] && grep -qF -- "$want" "$rl/refuse.err" && ! grep -qE '^(epoch|accuracy)' "$rl/refuse.out"; then
      pass "reliability/corrupt/$name"
    else fail "reliability/corrupt/$name" "exit $rc, stderr '$(head -c 300 "$rl/refuse.err")', want $wrc and '$want'"; fi
  }
  rl_ck=$rl/adam/ck # GCN, Adam, lr 0.01, seed 3, after 30 epochs
  if [ -f "$rl_ck" ]; then
    rl_size=$(stat -c %s "$rl_ck")
    head -c $((rl_size / 2)) "$rl_ck" > "$rl/cut.ckpt"
    rl_refuse ckpt-truncated "$rl/cut.ckpt: error: truncated checkpoint: $((rl_size / 2)) bytes, the header announces $rl_size" \
      rl_train --seed 3 --resume "$rl/cut.ckpt"
    cp "$rl_ck" "$rl/flip.ckpt"
    printf '\x55' | dd of="$rl/flip.ckpt" bs=1 seek=$((rl_size - 100)) conv=notrunc 2> /dev/null
    rl_refuse ckpt-corrupted "$rl/flip.ckpt: error: checksum mismatch: expected fnv1a64" rl_train --seed 3 --resume "$rl/flip.ckpt"
    rl_refuse ckpt-other-settings "the checkpoint was written for 'adam lr 0.01 weight-decay 0.0005 seed 3" \
      rl_train --seed 3 --lr 0.02 --resume "$rl_ck"
    # scalars a resumed run cannot use, written with the checksum remade (another writer, or an
    # edit): refused naming the field; an Adam step that is not the epoch restarts no bias correction
    rl_ckedit() { # IN OUT FIELD-OFFSET FORMAT VALUE: the scalar after the strings and thread word
      python3 - "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
at = 64
for _ in range(3):  # model, config, program: uint32 length, then the bytes
    at += 4 + struct.unpack_from('<I', b, at)[0]
at += 4  # the thread count (version 3)
v = float(sys.argv[5]) if sys.argv[4] == '<d' else int(sys.argv[5])
struct.pack_into(sys.argv[4], b, at + int(sys.argv[3]), v)
h = 1469598103934665603
for x in b[64:]:
    h = ((h ^ x) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
struct.pack_into('<Q', b, 24, h)
open(sys.argv[2], 'wb').write(b)
PY
    }
    if rl_ckedit "$rl_ck" "$rl/nanacc.ckpt" 48 '<d' nan && rl_ckedit "$rl_ck" "$rl/step.ckpt" 8 '<q' 1 &&
       rl_ckedit "$rl_ck" "$rl/negepoch.ckpt" 0 '<q' -5; then
      rl_refuse ckpt-nan-best-acc "$rl/nanacc.ckpt: error: corrupted checkpoint: best_val_acc is nan (a finite number)" \
        rl_train --seed 3 --resume "$rl/nanacc.ckpt"
      rl_refuse ckpt-negative-epoch "$rl/negepoch.ckpt: error: corrupted checkpoint: epoch is -5 (at least 0)" \
        rl_train --seed 3 --resume "$rl/negepoch.ckpt"
      rl_refuse ckpt-adam-step "gnn-train: $rl/step.ckpt: Adam's step is 1 at epoch 30: gnn-train takes one Adam step per epoch" \
        rl_train --seed 3 --patience 100 --epochs 31 --resume "$rl/step.ckpt"
    else fail reliability/corrupt/ckpt-edit "could not rewrite $rl_ck's scalars"; fi
    # a checkpoint name longer than NAME_MAX: refused before the run (it failed after training)
    rl_long=$(printf 'c%.0s' $(seq 300))
    RL_RC=2 rl_refuse ckpt-name-too-long "cannot write it: its name is 300 bytes, more than the 255 a file name may have" \
      rl_train --seed 3 --epochs 1 --checkpoint "$rl/$rl_long"
    # a parameter file is named as one before the run, exit 2 (train/bad/resume-params)
    RL_RC=2 rl_refuse ckpt-not-a-checkpoint "--resume $rl/adam/ref.p: this is a parameter file (written by --save-params), not a training checkpoint" \
      rl_train --seed 3 --resume "$rl/adam/ref.p"
    printf 'model Lin(x: vertex[1433]) -> vertex[7] {\n  param W: [1433, 7]\n  return W @ x\n}\n' > "$rl/lin.gnn"
    if "$GNNC" "$rl/lin.gnn" --target=host -o "$rl/liblin.so" > /dev/null 2>&1; then
      rl_refuse ckpt-other-model "$rl_ck: error: a checkpoint of model 'GCN', expected model 'Lin'" \
        env OMP_NUM_THREADS=1 "$rl_bin/gnn-train" "$rl/liblin.so" --data data/cora --seed 3 --resume "$rl_ck"
    else fail reliability/corrupt/ckpt-other-model "gnnc could not build a one-layer model"; fi
    # The same model name and parameters, another computation (relu -> tanh): refused by its program.
    sed 's/relu(/tanh(/g' dsl-examples/gcn.gnn > "$rl/gcn_tanh.gnn"
    if ! grep -q 'tanh(' "$rl/gcn_tanh.gnn"; then fail reliability/corrupt/ckpt-other-program "dsl-examples/gcn.gnn has no relu( to change"
    elif "$GNNC" "$rl/gcn_tanh.gnn" --target=host -o "$rl/libgcn_tanh.so" > /dev/null 2>&1; then
      rl_refuse ckpt-other-program "$rl_ck: error: the checkpoint was written by another program of model 'GCN' (program" \
        env OMP_NUM_THREADS=1 "$rl_bin/gnn-train" "$rl/libgcn_tanh.so" --data data/cora --seed 3 --resume "$rl_ck"
    else fail reliability/corrupt/ckpt-other-program "gnnc could not build GCN with tanh"; fi
    if rl_train --resume "$rl_ck" --eval-only > /dev/null 2> "$rl/refuse.err"; [ $? -eq 2 ] &&
       grep -qF -- "--resume continues a training run: it cannot go with --eval-only" "$rl/refuse.err"; then
      pass reliability/corrupt/resume-eval-only
    else fail reliability/corrupt/resume-eval-only "$(head -c 300 "$rl/refuse.err")"; fi
  else
    fail reliability/corrupt/setup "no checkpoint from reliability/resume/adam"
  fi
  # Parameter files: the checksum line; the same file without it (the old format) still loads.
  rl_p=$rl/adam/ref.p
  if [ -f "$rl_p" ] && head -1 "$rl_p" | grep -q '^#gnn-tensors version 2 bytes [0-9]* fnv1a64 [0-9a-f]*$'; then
    rl_train --eval-only --load-params "$rl_p" > "$rl/v2.log" 2>&1
    tail -n +2 "$rl_p" > "$rl/old.p"
    rl_train --eval-only --load-params "$rl/old.p" > "$rl/v1.log" 2>&1
    if [ -n "$(grep '^accuracy' "$rl/v2.log")" ] && [ "$(grep '^accuracy' "$rl/v1.log")" = "$(grep '^accuracy' "$rl/v2.log")" ]; then
      pass reliability/corrupt/params-old-format-loads
    else fail reliability/corrupt/params-old-format-loads "$(tail -1 "$rl/v1.log") / $(tail -1 "$rl/v2.log")"; fi
    # a changed digit keeps the text well formed: only the checksum can tell
    awk 'NR == 3 { sub(/[0-9]/, "7") } 1' "$rl_p" > "$rl/digit.p"
    if cmp -s "$rl_p" "$rl/digit.p"; then awk 'NR == 3 { sub(/[0-9]/, "3") } 1' "$rl_p" > "$rl/digit.p"; fi
    rl_refuse params-corrupted "$rl/digit.p: error: checksum mismatch: expected fnv1a64" rl_train --eval-only --load-params "$rl/digit.p"
    head -c 5000 "$rl_p" > "$rl/cut.p"
    rl_refuse params-truncated "$rl/cut.p: error: truncated file:" rl_train --eval-only --load-params "$rl/cut.p"
    # the interpreter reads the same files with the same checks
    if out=$("$GNNC" run dsl-examples/gcn.gnn --graph data/cora --params "$rl_p" 2>&1); then pass reliability/corrupt/gnnc-run-reads-v2
    else fail reliability/corrupt/gnnc-run-reads-v2 "$(rl_tail "$out")"; fi
    if ! out=$("$GNNC" run dsl-examples/gcn.gnn --graph data/cora --params "$rl/digit.p" 2>&1) && grep -qF "checksum mismatch" <<< "$out"; then
      pass reliability/corrupt/gnnc-run-refuses
    else fail reliability/corrupt/gnnc-run-refuses "$(rl_tail "$out")"; fi
  else
    fail reliability/corrupt/params-setup "$rl_p is missing or has no checksum line"
  fi
fi

# ---------------------------------------------------------------- threads
# Eight examples, each its own library, context, graph and model in its own thread.
rl_t=$rl/threads
mkdir -p "$rl_t/tsan"
rl_models="gcn gat appnp gin monet sage edgeconv rgcn"
rl_libs=()
for m in $rl_models; do
  if GNNC_HOST_CFLAGS=-O1 "$GNNC" "dsl-examples/$m.gnn" --target=host -o "$rl_t/lib$m.so" > "$rl_t/$m.build" 2>&1; then
    rl_libs+=("$rl_t/lib$m.so")
  else fail "reliability/threads/build-$m" "$(tail -2 "$rl_t/$m.build" | tr '\n' ' ')"; fi
done
if [ ! -x build/rt/t_threads ]; then
  fail reliability/threads/built "build/rt/t_threads is missing (make runtime-tests builds it)"
elif [ ${#rl_libs[@]} -eq 8 ]; then
  # passive waiting: eight OpenMP teams on a shared machine would otherwise spin against each other
  out=$(OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 build/rt/t_threads tests/interp/graphs/random 50 "${rl_libs[@]}" 2>&1)
  report_lines reliability/threads $? "$out"
fi
# An absurd OMP_NUM_THREADS: libgomp segfaulted inside GOMP_parallel at 100000 (gnn-run, gnn-train,
# gnnc run, gnnc gradcheck: exit 139), "Out of memory allocating 224000001344 bytes" at 10^9. They
# refuse more than 4096 (any level of a list), exit 2, before the first parallel region (the
# drivers before loading the library); 4096 itself runs. (A count past 2^64 is libgomp's
# "Invalid value", ignored: left to it.)
if [ -f "$rl_t/libgcn.so" ]; then
  for rl_n in 100000 4097 "2, 100000"; do
    for rl_drv in gnn-run gnn-train "gnnc run" "gnnc gradcheck"; do
      case $rl_drv in
        gnn-run) rl_cmd=("$rl_bin/gnn-run" "$rl_t/libgcn.so" --graph tests/interp/graphs/random --repeat 1 --warmup 0) ;;
        gnn-train) rl_cmd=("$rl_bin/gnn-train" "$rl_t/libgcn.so" --data data/cora --epochs 1 --quiet) ;;
        "gnnc run") rl_cmd=("$GNNC" run dsl-examples/gcn.gnn --graph tests/interp/graphs/random) ;;
        *) rl_cmd=("$GNNC" gradcheck dsl-examples/gcn.gnn --graph tests/interp/graphs/random) ;;
      esac
      rl_name="reliability/threads/omp-refused/${rl_drv// /-}/${rl_n// /}"
      OMP_NUM_THREADS=$rl_n "${rl_cmd[@]}" > "$rl_t/omp.out" 2> "$rl_t/omp.err"
      rl_rc=$?
      rl_prog=${rl_drv/gnnc run/gnnc}
      if [ $rl_rc -eq 2 ] && [ ! -s "$rl_t/omp.out" ] &&
        grep -qF "$rl_prog: OMP_NUM_THREADS=$rl_n asks for more than 4096 OpenMP threads (libgomp fails or crashes far above that)" "$rl_t/omp.err"
      then pass "$rl_name"
      else fail "$rl_name" "exit $rl_rc, stderr '$(head -c 300 "$rl_t/omp.err")'"; fi
    done
  done
  if out=$(OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4096 "$rl_bin/gnn-run" "$rl_t/libgcn.so" --graph tests/interp/graphs/random --repeat 1 --warmup 0 2>&1) &&
    grep -q '^checksum' <<< "$out"; then pass reliability/threads/omp-4096-runs
  else fail reliability/threads/omp-4096-runs "$(rl_tail "$out")"; fi
  if out=$(OMP_WAIT_POLICY=passive OMP_NUM_THREADS=4096 "$GNNC" run dsl-examples/gcn.gnn --graph tests/interp/graphs/random 2>&1); then
    pass reliability/threads/omp-4096-runs-gnnc
  else fail reliability/threads/omp-4096-runs-gnnc "$(rl_tail "$out")"; fi
fi
# ThreadSanitizer: the runtime and four of the libraries rebuilt with -fsanitize=thread, two threads
# per library (eight in all), ten steps each; any report fails.
if [ -n "${RT_SANITIZED:-}" ]; then
  echo "  reliability/threads/tsan skipped: the sanitizer run (RT_SANITIZED=1) builds no ThreadSanitizer runtime; make test runs it"
elif ! echo 'int main(void){return 0;}' | cc -fsanitize=thread -x c -o "$rl_t/tsan/probe" - > /dev/null 2>&1; then
  echo "  reliability/threads/tsan skipped: this compiler cannot build with -fsanitize=thread"
else
  rl_tsan=(-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iruntime -O1 -g -fsanitize=thread)
  rl_libs=()
  if ! out=$(cc "${rl_tsan[@]}" -fPIC -shared -fopenmp -fvisibility=hidden -o "$rl_t/tsan/libgnnrt_host.so" \
       runtime/core.c runtime/text.c runtime/graph.c runtime/edgelist.c runtime/cache.c runtime/tables.c runtime/dataset.c \
       runtime/ogb.c runtime/npz.c runtime/load.c runtime/params.c runtime/profile.c runtime/checkpoint.c runtime/device_host.c \
       runtime/train_host.c runtime/csr_host.c -lopenblas -lz -lm 2>&1) ||
     ! out=$(cc "${rl_tsan[@]}" -o "$rl_t/tsan/t_threads" tests/runtime/t_threads.c -ldl -lpthread -lm 2>&1); then
    fail reliability/threads/tsan-build "$(rl_tail "$out")"
  else
    for m in gcn gat edgeconv rgcn; do
      if GNNC_RUNTIME_INCLUDE=$ROOT/runtime GNNC_RUNTIME_LIB=$rl_t/tsan GNNC_HOST_CFLAGS="-fsanitize=thread -O1" \
           "$GNNC" "dsl-examples/$m.gnn" --target=host -o "$rl_t/tsan/lib$m.so" > "$rl_t/tsan/$m.build" 2>&1; then
        rl_libs+=("$rl_t/tsan/lib$m.so" "$rl_t/tsan/lib$m.so")
      else fail "reliability/threads/tsan-build-$m" "$(tail -2 "$rl_t/tsan/$m.build" | tr '\n' ' ')"; fi
    done
    if [ ${#rl_libs[@]} -eq 8 ]; then
      OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$rl_t/tsan/t_threads" tests/interp/graphs/random 10 \
        "${rl_libs[@]}" > "$rl_t/tsan.out" 2>&1
      rl_rc=$?
      if [ $rl_rc -eq 0 ] && ! grep -q "ThreadSanitizer" "$rl_t/tsan.out" && [ "$(grep -c '^ok ' "$rl_t/tsan.out")" = 8 ]; then
        pass reliability/threads/tsan
      else
        fail reliability/threads/tsan "exit $rl_rc: $(grep -m1 -A4 'WARNING: ThreadSanitizer' "$rl_t/tsan.out" | tr '\n' ' ')$(grep -m2 '^FAIL' "$rl_t/tsan.out" | tr '\n' ' ')"
      fi
    fi
  fi
fi

# ---------------------------------------------------------------- concurrent builds
# A shared temporary name (out.tmp) made one of two gnnc runs with the same output fail with
# "cannot write" when the other renamed it first.
rl_c=$rl/concurrent
mkdir -p "$rl_c"
rl_bad=
for rl_r in 1 2 3; do
  rm -f "$rl_c"/*
  for rl_i in 1 2 3 4; do
    "$GNNC" dsl-examples/gcn.gnn --target=host -o "$rl_c/libgcn.so" > "$rl_c/lib$rl_i.log" 2>&1 || echo "round $rl_r, library $rl_i: $(tail -1 "$rl_c/lib$rl_i.log")" > "$rl_c/bad.lib$rl_i" &
    "$GNNC" dsl-examples/gcn.gnn --emit=c -o "$rl_c/gcn.c" > "$rl_c/c$rl_i.log" 2>&1 || echo "round $rl_r, --emit=c $rl_i: $(tail -1 "$rl_c/c$rl_i.log")" > "$rl_c/bad.c$rl_i" &
  done
  wait
  rl_bad+=$(cat "$rl_c"/bad.* 2> /dev/null | tr '\n' ' ')
  rl_left=$(cd "$rl_c" && ls | grep -v -x -e libgcn.so -e gcn.c -e gcn.h -e '.*\.log' -e 'bad\..*' | tr '\n' ' ')
  [ -z "$rl_left" ] || rl_bad+="round $rl_r left $rl_left"
done
if [ -n "$rl_bad" ]; then
  fail reliability/concurrent/gnnc "$rl_bad"
elif ! out=$("$rl_bin/gnn-run" "$rl_c/libgcn.so" --graph data/cora --repeat 1 --warmup 0 2>&1) || ! grep -q '^checksum' <<< "$out"; then
  fail reliability/concurrent/gnnc "the library built last does not run: $(rl_tail "$out")"
else
  pass reliability/concurrent/gnnc
fi
# gnnc run --output: the same, for the interpreter's output file (OUT.PID.tmp, renamed over OUT)
rl_bad=
for rl_r in 1 2 3; do
  rm -f "$rl_c"/run* "$rl_c"/bad.*
  for rl_i in 1 2 3 4; do
    "$GNNC" run dsl-examples/gcn.gnn --graph data/cora --output "$rl_c/run-out.txt" > "$rl_c/run$rl_i.log" 2>&1 ||
      echo "round $rl_r, run $rl_i: $(tail -1 "$rl_c/run$rl_i.log")" > "$rl_c/bad.run$rl_i" &
  done
  wait
  rl_bad+=$(cat "$rl_c"/bad.run* 2> /dev/null | tr '\n' ' ')
  rl_left=$(cd "$rl_c" && ls | grep '^run-out' | grep -v -x run-out.txt | tr '\n' ' ')
  [ -z "$rl_left" ] || rl_bad+="round $rl_r left $rl_left"
  head -1 "$rl_c/run-out.txt" 2> /dev/null | grep -q '^tensor output 2708 1 7$' || rl_bad+="round $rl_r: run-out.txt is not the output "
  [ "$(wc -l < "$rl_c/run-out.txt" 2> /dev/null)" = 2709 ] || rl_bad+="round $rl_r: run-out.txt has $(wc -l < "$rl_c/run-out.txt" 2> /dev/null) lines "
done
if [ -n "$rl_bad" ]; then fail reliability/concurrent/gnnc-run-output "$rl_bad"; else pass reliability/concurrent/gnnc-run-output; fi
rm -f "$rl_c"/bad.*
# With -S the sources and the CUDA object are in the library's folder, which all the runs share:
# the object (removed after each link) is named by the process too. The object comes from a warm
# GNNC_CUDA_CACHE, so the 4 runs at once are 4 links, not 4 nvcc compiles.
if command -v nvcc > /dev/null; then
  mkdir -p "$rl_c/cu"
  rl_bad=
  if ! out=$(GNNC_CUDA_CACHE=$rl_c/cu-cache "$GNNC" dsl-examples/gcn.gnn --target=cuda -o "$rl_c/cu-warm.so" 2>&1); then
    rl_bad="the first build failed: $(rl_tail "$out")"
  else
    for rl_r in 1 2; do
      for rl_i in 1 2 3 4; do
        GNNC_CUDA_CACHE=$rl_c/cu-cache "$GNNC" dsl-examples/gcn.gnn --target=cuda -S -o "$rl_c/cu/libgcn.so" > "$rl_c/cu$rl_i.log" 2>&1 ||
          echo "round $rl_r, run $rl_i: $(tail -1 "$rl_c/cu$rl_i.log")" > "$rl_c/bad.cu$rl_i" &
      done
      wait
      rl_bad+=$(cat "$rl_c"/bad.cu* 2> /dev/null | tr '\n' ' ')
      rm -f "$rl_c"/bad.cu*
    done
    rl_left=$(cd "$rl_c/cu" && ls | grep -v -x -e libgcn.so -e gcn.cu -e gcn.h | tr '\n' ' ')
    [ -z "$rl_left" ] || rl_bad+="left $rl_left"
  fi
  if [ -z "$rl_bad" ]; then pass reliability/concurrent/gnnc-cuda-keep
  else fail reliability/concurrent/gnnc-cuda-keep "$rl_bad"; fi
else
  need_tool reliability/concurrent/gnnc-cuda-keep nvcc
fi
if "$PY" -c 'import numpy, torch' 2> /dev/null; then
  out=$(timeout 300 "$PY" -W ignore tests/python/concurrent_build.py "$GNNC" "$rl_c/example" 4 3 2>&1)
  report_lines reliability/concurrent "$?" "$out"
else
  fail reliability/concurrent/example "$PY cannot import numpy and torch (make setup installs them)"
fi

unset -f rl_tail rl_epochs rl_train rl_resume rl_refuse
unset rl_bin rl_rt rl rl_k rl_d rl_t rl_p rl_ck rl_libs rl_kargs rl_res rl_models rl_tsan rl_c rl_bad rl_r rl_i rl_left
