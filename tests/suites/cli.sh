# cli.sh -- the driver's options: pass listing, dumps, timing, stats, switches, emitters, errors.
ex=dsl-examples/gat.gnn
check() { # NAME CONDITION-COMMAND...
  local n=$1; shift
  if "$@"; then pass "cli/$n"; else fail "cli/$n" "$*"; fi
}
"$GNNC" --list-passes > "$TMP/passes" 2>&1
check list-passes grep -q '^sema ' "$TMP/passes"
check list-passes-order bash -c "awk '{print \$1}' '$TMP/passes' | tr '\n' ' ' | grep -qx 'sema canonicalize reorg autodiff compose checkpoint fuse hoist lower '"
check list-passes-autodiff-kept grep -q '^autodiff .*-O0 keeps it' "$TMP/passes"
"$GNNC" --help > "$TMP/help"; check help grep -q -- '--print-ir-after' "$TMP/help"

"$GNNC" $ex --print-ir-after-all > "$TMP/all"
check after-all-count bash -c "[ \$(grep -c '^// -----// IR after' '$TMP/all') -eq 9 ]"
"$GNNC" $ex --print-ir-before=canonicalize > "$TMP/before"
"$GNNC" $ex --print-ir-after=sema > "$TMP/after-sema"
check before-equals-after-sema bash -c "[ -s '$TMP/before' ] && diff <(sed 1d '$TMP/before') <(sed 1d '$TMP/after-sema') >/dev/null"
"$GNNC" dsl-examples/edgeconv.gnn --print-ir-after=compose > "$TMP/unch"
check unchanged-marker grep -q 'IR after compose (unchanged)' "$TMP/unch"
"$GNNC" tests/ir/reorg_no_relu.gnn --print-ir-after=reorg > "$TMP/unch"
check unchanged-marker-reorg grep -q 'IR after reorg (unchanged)' "$TMP/unch"
"$GNNC" $ex -fno-reorg --print-ir-after-all > "$TMP/noreorg"
check fno-reorg bash -c "! grep -q 'after reorg' '$TMP/noreorg' && grep -q 'after compose' '$TMP/noreorg'"

"$GNNC" $ex -fno-canonicalize --print-ir-after-all > "$TMP/nocanon"
check fno-pass bash -c "! grep -q 'after canonicalize' '$TMP/nocanon' && grep -q 'after compose' '$TMP/nocanon'"
"$GNNC" $ex -O0 > "$TMP/o0"
"$GNNC" $ex > "$TMP/default"
# -O0 switches the optimisations off, not autodiff: sema's module plus the backward pass.
"$GNNC" $ex -O0 -fno-autodiff > "$TMP/o0-inference"
check O0-fno-autodiff-is-sema bash -c "diff <(sed 1d '$TMP/after-sema') '$TMP/o0-inference' >/dev/null"
"$GNNC" $ex -O0 --print-ir-after=autodiff > "$TMP/o0-after-autodiff"
check O0-keeps-autodiff bash -c "diff <(sed 1d '$TMP/o0-after-autodiff') '$TMP/o0' >/dev/null && grep -q 'output \"grad.gatconv0.W\"' '$TMP/o0'"
"$GNNC" $ex -O0 --print-ir-after-all > "$TMP/o0-all"
check O0-after-all bash -c "[ \"\$(grep '^// -----// IR after' '$TMP/o0-all' | tr '\n' ' ')\" = '// -----// IR after sema //----- // // -----// IR after autodiff //----- // // -----// IR after lower //----- // ' ]"
# -fno-autodiff: an inference module (no backward value, no gradient output, no seed).
"$GNNC" $ex -fno-autodiff > "$TMP/inference"
check fno-autodiff bash -c "! grep -q 'backward\|grad\.' '$TMP/inference' && grep -q '# backward' '$TMP/default' && grep -q 'output \"grad.gatconv1.a\"' '$TMP/default'"
"$GNNC" $ex -fno-nosuchpass > /dev/null 2> "$TMP/err"; rc=$?
check fno-unknown bash -c "[ $rc -eq 2 ] && grep -q \"no optional pass named 'nosuchpass'\" '$TMP/err'"
# options that printed or ran nothing, exit 0: a dump before sema or around a pass switched off,
# gnnc run --backward without autodiff; the subcommand after an option ("more than one input")
"$GNNC" $ex --print-ir-before=sema > "$TMP/out" 2> "$TMP/err"; rc=$?
"$GNNC" $ex -fno-reorg --print-ir-after=reorg > /dev/null 2>> "$TMP/err"; rc2=$?
"$GNNC" $ex -O0 --print-ir-before=fuse > /dev/null 2>> "$TMP/err"; rc3=$?
"$GNNC" run $ex --graph tests/interp/graphs/random --backward -fno-autodiff > /dev/null 2>> "$TMP/err"; rc4=$?
"$GNNC" --model GAT run $ex > /dev/null 2>> "$TMP/err"; rc5=$?
check dumps-of-nothing-refused bash -c "[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] && [ $rc4 -eq 2 ] && [ $rc5 -eq 2 ] && [ ! -s '$TMP/out' ] &&
  grep -qF 'gnnc: error: --print-ir-before=sema: there is no IR before sema' '$TMP/err' &&
  grep -qxF 'gnnc: error: --print-ir-after=reorg: reorg does not run here (-fno-reorg), so there is no IR after it' '$TMP/err' &&
  grep -qxF 'gnnc: error: --print-ir-before=fuse: fuse does not run here (-O0), so there is no IR before it' '$TMP/err' &&
  grep -qxF 'gnnc: error: --backward evaluates the backward, which -fno-autodiff switches off' '$TMP/err' &&
  grep -qF 'gnnc run and gnnc gradcheck take their word first' '$TMP/err'"
"$GNNC" $ex -O0 --print-ir-after=autodiff > "$TMP/out" 2>&1; rc=$?
check dump-of-kept-pass-at-O0 bash -c "[ $rc -eq 0 ] && head -1 '$TMP/out' | grep -q 'IR after autodiff'"
# the dumps go to standard error when standard output carries code (they were written in front
# of the C, which then did not compile); with the operator IR, or code sent to -o, to stdout
"$GNNC" $ex --print-ir-after=fuse --emit=c > "$TMP/dump.c" 2> "$TMP/dump.err"; rc=$?
"$GNNC" $ex --print-ir-after=fuse --emit=c -o "$TMP/dump2.c" > "$TMP/dump2.out" 2>&1; rc2=$?
check dumps-beside-code bash -c "[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && ! grep -q 'IR after' '$TMP/dump.c' && head -1 '$TMP/dump.c' | grep -q '^/\*' &&
  head -1 '$TMP/dump.err' | grep -q 'IR after fuse' && head -1 '$TMP/dump2.out' | grep -q 'IR after fuse' && ! grep -q 'IR after' '$TMP/dump2.c'"
unset rc2 rc3 rc4 rc5
for np in sema lower; do  # not optional: the IR needs the one, the code the other (-fno-lower was accepted and did nothing)
  "$GNNC" $ex -fno-$np > /dev/null 2> "$TMP/err"; rc=$?
  check fno-$np-refused bash -c "[ $rc -eq 2 ] && grep -q \"no optional pass named '$np'\" '$TMP/err'"
done
# -o never destroys what it does not own (a tester's find: a failed compile removed whatever -o
# named, /dev/null included, and -o m.gnn overwrote or deleted the source): the input is refused;
# after an error an old output stays as it was; a device or FIFO is written in place, not
# replaced by a file; a symlink stays a link; write errors (a full disk) are errors
mkdir -p "$TMP/o"
printf 'model M(x: vertex[2]) -> vertex[2] {\n  return y\n}\n' > "$TMP/o/bad.gnn"
cp "$ROOT/dsl-examples/gcn.gnn" "$TMP/o/good.gnn"
"$GNNC" "$TMP/o/good.gnn" -o "$TMP/o/good.gnn" > /dev/null 2> "$TMP/err"; rc=$?
check o-input-refused bash -c "[ $rc -eq 2 ] && grep -q \"is the input file\" '$TMP/err' && cmp -s '$TMP/o/good.gnn' '$ROOT/dsl-examples/gcn.gnn'"
cp "$TMP/o/bad.gnn" "$TMP/o/bad2.gnn"
"$GNNC" "$TMP/o/bad2.gnn" -o "$TMP/o/bad2.gnn" > /dev/null 2>&1
check o-input-kept-after-error bash -c "cmp -s '$TMP/o/bad.gnn' '$TMP/o/bad2.gnn'"
echo "old output" > "$TMP/o/old.ir"
"$GNNC" "$TMP/o/bad.gnn" -o "$TMP/o/old.ir" > /dev/null 2>&1; rc=$?
check o-old-kept-after-error bash -c "[ $rc -eq 1 ] && [ \"\$(cat '$TMP/o/old.ir')\" = 'old output' ] && [ -z \"\$(ls '$TMP/o' | grep tmp)\" ]"
mkfifo "$TMP/o/fifo"
cat "$TMP/o/fifo" > "$TMP/o/fifo.out" &
"$GNNC" "$TMP/o/good.gnn" --emit=kir -o "$TMP/o/fifo" 2> "$TMP/err"; rc=$?
wait
check o-fifo-in-place bash -c "[ $rc -eq 0 ] && [ -p '$TMP/o/fifo' ] && grep -q '^program GCN' '$TMP/o/fifo.out'"
"$GNNC" "$TMP/o/bad.gnn" -o "$TMP/o/fifo" > /dev/null 2>&1
check o-fifo-kept-after-error bash -c "[ -p '$TMP/o/fifo' ]"
"$GNNC" "$TMP/o/good.gnn" -o /dev/null > /dev/null 2>&1; rc=$?
check o-dev-null bash -c "[ $rc -eq 0 ] && [ -c /dev/null ]"
# -o - is standard output, as without -o (it wrote files named "-" and "-.h" in the current
# folder); gnn run's files need names, its summary being on stdout
( cd "$TMP" && "$GNNC" "$ROOT/dsl-examples/gcn.gnn" --emit=c -o - > "$TMP/dash.c" 2> "$TMP/err" ); rc=$?
"$GNNC" dsl-examples/gcn.gnn --emit=c 2> /dev/null | sed "s|$ROOT/||" > "$TMP/nodash.c"
check o-dash-stdout bash -c "[ $rc -eq 0 ] && [ ! -e '$TMP/-' ] && [ ! -e '$TMP/-.h' ] && [ -s '$TMP/dash.c' ] && cmp -s <(sed 's|$ROOT/||' '$TMP/dash.c') '$TMP/nodash.c'"
"$GNNC" run tests/interp/models/gcn.gnn --graph tests/interp/graphs/random --output - > /dev/null 2> "$TMP/err"; rc=$?
check run-output-dash-refused bash -c "[ $rc -eq 2 ] && grep -qF \"gnnc: --output -: gnnc run prints its summary on standard output, so its files need a name (./- for a file named '-')\" '$TMP/err'"
ln -sf target.ir "$TMP/o/link.ir"
"$GNNC" "$TMP/o/good.gnn" -o "$TMP/o/link.ir" 2> "$TMP/err"; rc=$?
check o-symlink-kept bash -c "[ $rc -eq 0 ] && [ -L '$TMP/o/link.ir' ] && head -1 '$TMP/o/target.ir' | grep -q '^model GCN {'"
"$GNNC" "$TMP/o/good.gnn" --emit=c -o "$TMP/o/dir/" > /dev/null 2> "$TMP/err"; rc=$?
check o-folder-refused bash -c "[ $rc -eq 2 ] && grep -q 'names a folder' '$TMP/err'"
"$GNNC" "$TMP/o/good.gnn" --emit=c -o "$TMP/o/a\"b.c" > /dev/null 2> "$TMP/err"; rc=$?
check o-quote-refused bash -c "[ $rc -eq 2 ] && grep -q 'cannot hold' '$TMP/err' && [ ! -e '$TMP/o/a\"b.c' ]"
# --emit=c|cu write the source to -o and the header beside it (.h for the extension): a name
# without the extension wrote NAME.c and NAME.h instead (-o /dev/null made /dev/null.c, rc 0);
# now refused, nothing written. --emit=h writes its one file to -o as named (-o d.c made d.c.h).
mkdir -p "$TMP/o/ext"
for oe in "c src.txt" "cu a.c" "c lib.so" "cu .cu" "c null"; do
  set -- $oe
  "$GNNC" "$TMP/o/good.gnn" --emit=$1 -o "$TMP/o/ext/$2" > /dev/null 2> "$TMP/err"; rc=$?
  check "o-extension-refused/$1-$2" bash -c "[ $rc -eq 2 ] && grep -qF \"with --emit=$1 must name a .$1 file\" '$TMP/err' && [ -z \"\$(ls -A '$TMP/o/ext')\" ]"
done
"$GNNC" "$TMP/o/good.gnn" --emit=h -o "$TMP/o/ext/d.c" > /dev/null 2> "$TMP/err"; rc=$?
"$GNNC" "$TMP/o/good.gnn" --emit=h > "$TMP/o/stdout-h" 2> /dev/null
check o-header-as-named bash -c "[ $rc -eq 0 ] && [ \"\$(ls -A '$TMP/o/ext')\" = d.c ] && cmp -s '$TMP/o/ext/d.c' '$TMP/o/stdout-h'"
if [ -w /dev/full ]; then
  "$GNNC" "$TMP/o/good.gnn" --emit=h -o /dev/full > /dev/null 2> "$TMP/err"; rc=$?
  check o-header-dev-full bash -c "[ $rc -eq 1 ] && grep -qF \"cannot write '/dev/full'\" '$TMP/err'"
fi
if [ -w /dev/full ]; then
  for em in ir kir dot c; do
    "$GNNC" "$TMP/o/good.gnn" --emit=$em --target=host > /dev/full 2> "$TMP/err"; rc=$?
    check "stdout-full/$em" bash -c "[ $rc -eq 1 ] && grep -q 'cannot write to standard output' '$TMP/err'"
  done
fi
# Every file gnnc writes is refused when it is a file the run reads, and two outputs of one run
# may not be one file (a tester's find: gnnc run m.gnn --output m.gnn, -o, --save-params ...
# overwrote the source with rc 0; --emit=c -o hx.c overwrote the source hx.h with the header
# derived from -o's name, -S -o sx.so the source sx.c with the kept C source)
printf '0 1\n1 2\n2 0\n' > "$TMP/o/el.txt"
for opt in --output -o --save-params --save-inputs --save-outputs; do
  "$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" $opt "$TMP/o/good.gnn" > /dev/null 2> "$TMP/err"; rc=$?
  check "run-input-refused/$opt" bash -c "[ $rc -eq 2 ] && grep -q \"^gnnc: error: $opt '.*' is the input file\" '$TMP/err' && cmp -s '$TMP/o/good.gnn' '$ROOT/dsl-examples/gcn.gnn'"
done
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/el.txt" > /dev/null 2> "$TMP/err"; rc=$?
check run-graph-refused bash -c "[ $rc -eq 2 ] && grep -q 'is the file --graph reads' '$TMP/err' && [ \"\$(head -1 '$TMP/o/el.txt')\" = '0 1' ]"
(cd "$TMP/o" && "$GNNC" run good.gnn --graph el.txt --output twice.txt --save-params ./twice.txt > /dev/null 2> "$TMP/err"); rc=$?
check run-two-outputs-refused bash -c "[ $rc -eq 2 ] && grep -q 'are the same file' '$TMP/err' && [ ! -e '$TMP/o/twice.txt' ]"
# two outputs to one device are fine, and a device is written in place: gnnc run renamed its
# --output (and --save-params, --save-inputs) temporary over the path, which as root replaced
# /dev/null itself with a file (links to it here, so that a gnnc with that bug replaces links)
for k in 1 2 3 4; do ln -sf /dev/null "$TMP/o/null$k"; done
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/null1" --save-params "$TMP/o/null2" \
  --save-inputs "$TMP/o/null3" --save-outputs "$TMP/o/null4" > /dev/null 2> "$TMP/err"; rc=$?
check run-outputs-devices bash -c "[ $rc -eq 0 ] && [ -L '$TMP/o/null1' ] && [ -L '$TMP/o/null2' ] && [ -L '$TMP/o/null3' ] && [ -L '$TMP/o/null4' ] && [ -c /dev/null ]"
# no file of the dataset folder --graph names is written (--output features.svm replaced the
# features, rc 0), through ../ as well, nor one the loaders would read if it were there (a
# split); another file in the folder is the user's (a scratch folder of a graph and its results)
cp -r tests/interp/graphs/random "$TMP/o/gdata"; mkdir -p "$TMP/o/gdata/raw"
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/gdata" --output "$TMP/o/gdata/features.svm" > /dev/null 2> "$TMP/err"; rc=$?
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/gdata" --save-params "$TMP/o/gdata/../gdata/train.idx" > /dev/null 2> "$TMP/err2"; rc2=$?
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/gdata" --save-params "$TMP/o/gdata/raw/x.csv" > /dev/null 2> "$TMP/err4"; rc3=$?
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/gdata" --output "$TMP/o/gdata/out.txt" > /dev/null 2> "$TMP/err3"; rc4=$?
check run-graph-folder-refused bash -c "[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] && [ $rc4 -eq 0 ] &&
  grep -qxF \"gnnc: error: --output '$TMP/o/gdata/features.svm' is a file of the dataset folder --graph '$TMP/o/gdata': writing it would destroy the dataset; give another path\" '$TMP/err' &&
  grep -qF 'train.idx' '$TMP/err2' && grep -qF 'is a file of the dataset folder --graph' '$TMP/err2' && grep -qF 'raw/x.csv' '$TMP/err4' &&
  cmp -s tests/interp/graphs/random/features.svm '$TMP/o/gdata/features.svm' && [ ! -e '$TMP/o/gdata/train.idx' ] && [ ! -e '$TMP/o/gdata/raw/x.csv' ] && [ -s '$TMP/o/gdata/out.txt' ]"
rm -rf "$TMP/o/gdata/out.txt" "$TMP/o/gdata/raw"
# a dataset whose files are links (cp -rs): the file a link names is the dataset's too (the write
# follows the link: it replaced the shared file)
mkdir -p "$TMP/o/shared-data" "$TMP/o/linked-data"; cp tests/interp/graphs/random/* "$TMP/o/shared-data/"
for f in "$TMP/o/shared-data/"*; do ln -sf "$f" "$TMP/o/linked-data/$(basename "$f")"; done
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/linked-data" --output "$TMP/o/linked-data/features.svm" > /dev/null 2> "$TMP/err"; rc=$?
check run-graph-folder-links-refused bash -c "[ $rc -eq 2 ] && grep -qF 'is a file of the dataset folder --graph' '$TMP/err' &&
  cmp -s tests/interp/graphs/random/features.svm '$TMP/o/shared-data/features.svm' && [ -L '$TMP/o/linked-data/features.svm' ]"
# --save-outputs without autodiff writes the output alone, as documented (refused for a moment)
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" -fno-autodiff --save-outputs "$TMP/o/noad.out" > /dev/null 2> "$TMP/err"; rc=$?
check run-save-outputs-without-autodiff bash -c "[ $rc -eq 0 ] && grep -q '^tensor out ' '$TMP/o/noad.out' && ! grep -q '^tensor grad' '$TMP/o/noad.out'"
unset rc3 rc4
# gnn-run: the same refusals (it wrote --output over its own --params, over the dataset's
# features.svm, over the model library, rc 0), and devices written in place: its temporary
# renamed over --output /dev/null made /dev/null a regular file when run as root (links to it
# here, so that a gnn-run with that bug replaces links, not /dev/null) -- a FIFO too
if "$GNNC" "$TMP/o/good.gnn" --target=host --input-grads=all -o "$TMP/o/libgood.so" > /dev/null 2>&1 &&
   "$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/gdata" --save-params "$TMP/o/good.params" > /dev/null 2>&1; then
  gr() { "$ROOT/build/bin/gnn-run" "$TMP/o/libgood.so" --graph "$TMP/o/gdata" --repeat 1 --warmup 0 "$@" > /dev/null 2> "$TMP/err"; }
  cp "$TMP/o/good.params" "$TMP/o/good.params.orig"
  gr --params "$TMP/o/good.params" --output "$TMP/o/./good.params"; rc=$?
  check gnn-run-params-refused bash -c "[ $rc -eq 2 ] && grep -qF 'gnn-run: --output $TMP/o/./good.params is the file --params reads: writing it would destroy it' '$TMP/err' && cmp -s '$TMP/o/good.params' '$TMP/o/good.params.orig'"
  gr --save-grads "$TMP/o/gdata/features.svm"; rc=$?
  check gnn-run-graph-folder-refused bash -c "[ $rc -eq 2 ] && grep -qxF 'gnn-run: --save-grads $TMP/o/gdata/features.svm is a file of the dataset folder --graph $TMP/o/gdata: writing it would destroy the dataset; give another path' '$TMP/err' && cmp -s tests/interp/graphs/random/features.svm '$TMP/o/gdata/features.svm'"
  gr --output "$TMP/o/libgood.so"; rc=$?
  check gnn-run-library-refused bash -c "[ $rc -eq 2 ] && grep -qF 'is the file the model library reads' '$TMP/err' && [ -s '$TMP/o/libgood.so' ] && ! grep -q '^tensor' '$TMP/o/libgood.so'"
  gr --output "$TMP/o/twice.out" --save-inputs "$TMP/o/./twice.out"; rc=$?
  check gnn-run-two-outputs-refused bash -c "[ $rc -eq 2 ] && grep -qF 'gnn-run: --output and --save-inputs are the same file' '$TMP/err' && [ ! -e '$TMP/o/twice.out' ]"
  # an output that could only fail at the write (a missing folder, a file for a folder, a
  # directory, a path ending in '/', a link into a missing folder): gnn-run met it after the whole
  # run, exit 1; refused before it, exit 2, in gnn-train's words (gnn_output_unwritable), for
  # each of its outputs. A read-only folder too, when not root (root may write there).
  mkdir -p "$TMP/o/outdir"; ln -sfn nope2/o.txt "$TMP/o/dangling"
  gr_unwritable() { # NAME WANT ARGS...: exit 2, nothing run (no report), the line WANT after 'gnn-run: '
    local n=$1 want=$2 rc; shift 2
    "$ROOT/build/bin/gnn-run" "$TMP/o/libgood.so" --graph "$TMP/o/gdata" --repeat 1 --warmup 0 "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && grep -qxF -- "gnn-run: $want" "$TMP/err"; then pass "cli/gnn-run-unwritable/$n"
    else fail "cli/gnn-run-unwritable/$n" "exit $rc, stderr '$(head -c 300 "$TMP/err")', want 2 and 'gnn-run: $want'"; fi
  }
  gr_unwritable missing-folder "--output $TMP/o/nope/o.txt: cannot write into '$TMP/o/nope': No such file or directory" --output "$TMP/o/nope/o.txt"
  gr_unwritable directory "--save-grads '$TMP/o/outdir': it is a directory: give a file name in it" --save-grads "$TMP/o/outdir"
  gr_unwritable ends-in-slash "--save-input-grads '$TMP/o/outdir/': it names a folder (it ends in '/'): give a file name in it" --save-input-grads "$TMP/o/outdir/"
  gr_unwritable file-as-folder "--save-inputs $TMP/o/libgood.so/x: cannot write into '$TMP/o/libgood.so': not a directory" --save-inputs "$TMP/o/libgood.so/x"
  gr_unwritable link-into-missing-folder "--output $TMP/o/dangling: cannot write into '$TMP/o/nope2': No such file or directory" --output "$TMP/o/dangling"
  if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$TMP/o/ro" && chmod 555 "$TMP/o/ro"
    gr_unwritable read-only-folder "--output $TMP/o/ro/o.txt: cannot write into '$TMP/o/ro': Permission denied" --output "$TMP/o/ro/o.txt"
  fi
  unset -f gr_unwritable
  for k in 5 6 7 8; do ln -sf /dev/null "$TMP/o/null$k"; done
  gr --output "$TMP/o/null5" --save-grads "$TMP/o/null6" --save-inputs "$TMP/o/null7" --save-input-grads "$TMP/o/null8"; rc=$?
  check gnn-run-outputs-devices bash -c "[ $rc -eq 0 ] && [ -L '$TMP/o/null5' ] && [ -L '$TMP/o/null6' ] && [ -L '$TMP/o/null7' ] && [ -L '$TMP/o/null8' ] && [ -c /dev/null ]"
  rm -f "$TMP/o/run.fifo"; mkfifo "$TMP/o/run.fifo"
  timeout 60 cat "$TMP/o/run.fifo" > "$TMP/o/run.fifo.out" & gr_reader=$!
  timeout 60 "$ROOT/build/bin/gnn-run" "$TMP/o/libgood.so" --graph "$TMP/o/gdata" --repeat 1 --warmup 0 --output "$TMP/o/run.fifo" > /dev/null 2> "$TMP/err"; rc=$?
  # (a gnn-run that renames over the FIFO never opens it: the reader waits until the timeout)
  [ -p "$TMP/o/run.fifo" ] || rm -f "$TMP/o/run.fifo"
  wait $gr_reader
  check gnn-run-output-fifo-in-place bash -c "[ $rc -eq 0 ] && [ -p '$TMP/o/run.fifo' ] && sed -n 2p '$TMP/o/run.fifo.out' | grep -q '^tensor output '"
  unset -f gr; unset gr_reader rc2
else
  fail cli/gnn-run-files-build "gnnc could not build $TMP/o/libgood.so or run $TMP/o/good.gnn on $TMP/o/gdata"
fi
# gnnc run's outputs (and gradcheck's --save-grads), as gnn-run's above: what could only fail at
# the write after the whole run (exit 1) is refused before it, exit 2, in gnn-train's words
rm -f "$TMP/o/out-ok.txt"
run_unwritable() { # NAME WANT ARGS...: exit 2, no summary, the line WANT after 'gnnc: error: '
  local n=$1 want=$2 rc; shift 2
  "$GNNC" "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && grep -qxF -- "gnnc: error: $want" "$TMP/err" && [ ! -e "$TMP/o/out-ok.txt" ]; then
    pass "cli/run-unwritable/$n"
  else fail "cli/run-unwritable/$n" "exit $rc, stderr '$(head -c 300 "$TMP/err")', want 2 and 'gnnc: error: $want'"; fi
}
mkdir -p "$TMP/o/outdir"; ln -sfn nope2/o.txt "$TMP/o/dangling"
run_unwritable missing-folder "--save-params $TMP/o/nope/p.txt: cannot write into '$TMP/o/nope': No such file or directory" \
  run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/out-ok.txt" --save-params "$TMP/o/nope/p.txt"
run_unwritable directory "--output '$TMP/o/outdir': it is a directory: give a file name in it" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/outdir"
run_unwritable o-directory "-o '$TMP/o/outdir': it is a directory: give a file name in it" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" -o "$TMP/o/outdir"
run_unwritable ends-in-slash "--save-inputs '$TMP/o/outdir/': it names a folder (it ends in '/'): give a file name in it" \
  run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --save-inputs "$TMP/o/outdir/"
run_unwritable file-as-folder "--save-outputs $TMP/o/el.txt/x: cannot write into '$TMP/o/el.txt': not a directory" \
  run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --save-outputs "$TMP/o/el.txt/x"
run_unwritable link-into-missing-folder "--output $TMP/o/dangling: cannot write into '$TMP/o/nope2': No such file or directory" \
  run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/dangling"
run_unwritable gradcheck "--save-grads $TMP/o/nope/g.txt: cannot write into '$TMP/o/nope': No such file or directory" \
  gradcheck "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --save-grads "$TMP/o/nope/g.txt"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$TMP/o/ro" && chmod 555 "$TMP/o/ro"
  run_unwritable read-only-folder "--output $TMP/o/ro/o.txt: cannot write into '$TMP/o/ro': Permission denied" \
    run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --output "$TMP/o/ro/o.txt"
fi
unset -f run_unwritable
# a file-size limit (ulimit -f, as a full disk): a write error with the file's name, nothing left
# behind -- SIGXFSZ killed gnnc and gnn-run mid-write (status 153, F.PID.tmp left), and --emit=c
# left the new header beside no source
mkdir -p "$TMP/o/fsz"
(ulimit -f 4; "$GNNC" "$TMP/o/good.gnn" --emit=c -o "$TMP/o/fsz/m.c") > /dev/null 2> "$TMP/err"; rc=$?
(ulimit -f 4; "$GNNC" run "$TMP/o/good.gnn" --graph data/cora --output "$TMP/o/fsz/out.txt") > /dev/null 2>> "$TMP/err"; rc2=$?
rc3=1
if [ -f "$TMP/o/libgood.so" ]; then
  (ulimit -f 4; "$ROOT/build/bin/gnn-run" "$TMP/o/libgood.so" --graph data/cora --repeat 1 --warmup 0 --output "$TMP/o/fsz/got.txt") > /dev/null 2>> "$TMP/err"; rc3=$?
fi
check file-size-limit bash -c "[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && [ $rc3 -eq 1 ] && [ \$(grep -c 'File too large' '$TMP/err') -eq 3 ] &&
  grep -q \"gnnc: cannot write '.*/m[.][ch]': File too large\" '$TMP/err' && grep -q 'gnn-run: .*got.txt: cannot write: File too large' '$TMP/err' &&
  [ -z \"\$(ls -A '$TMP/o/fsz')\" ]"
# gnn-nvrtc: its PTX over its own source is refused (it wrote it, rc 0)
if [ -x "$ROOT/build/bin/gnn-nvrtc" ]; then
  printf '__global__ void k(float *x) { x[0] = 1; }\n' > "$TMP/o/k.cu"; cp "$TMP/o/k.cu" "$TMP/o/k.orig"
  "$ROOT/build/bin/gnn-nvrtc" "$TMP/o/k.cu" compute_80 "$TMP/o/./k.cu" > /dev/null 2> "$TMP/err"; rc=$?
  check nvrtc-source-refused bash -c "[ $rc -eq 2 ] && grep -qF 'is the source file: writing the PTX there would destroy it' '$TMP/err' && cmp -s '$TMP/o/k.cu' '$TMP/o/k.orig'"
fi
unset rc2 rc3
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" -o "$TMP/o/run-o.txt" > /dev/null 2> "$TMP/err"; rc=$?
check run-o-is-output bash -c "[ $rc -eq 0 ] && head -1 '$TMP/o/run-o.txt' | grep -q '^tensor output 3 1 '"
"$GNNC" gradcheck "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" --save-grads "$TMP/o/good.gnn" > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-input-refused bash -c "[ $rc -eq 2 ] && grep -q 'is the input file' '$TMP/err' && cmp -s '$TMP/o/good.gnn' '$ROOT/dsl-examples/gcn.gnn'"
cp "$ROOT/dsl-examples/gcn.gnn" "$TMP/o/hx.h"
"$GNNC" "$TMP/o/hx.h" --emit=c -o "$TMP/o/hx.c" > /dev/null 2> "$TMP/err"; rc=$?
check emit-c-header-input-refused bash -c "[ $rc -eq 2 ] && grep -q \"the header '.*hx.h' that -o '.*hx.c' writes beside it is the input file\" '$TMP/err' && cmp -s '$TMP/o/hx.h' '$ROOT/dsl-examples/gcn.gnn' && [ ! -e '$TMP/o/hx.c' ]"
cp "$ROOT/dsl-examples/gcn.gnn" "$TMP/o/sx.c"
"$GNNC" "$TMP/o/sx.c" --target=host -S -o "$TMP/o/sx.so" > /dev/null 2> "$TMP/err"; rc=$?
check library-kept-source-input-refused bash -c "[ $rc -eq 2 ] && grep -q \"the source '.*sx.c' that -o '.*sx.so' writes beside it is the input file\" '$TMP/err' && cmp -s '$TMP/o/sx.c' '$ROOT/dsl-examples/gcn.gnn'"
# options of the other mode: refused, naming the option (gnnc run ignored --emit=c and wrote no C)
for opt in --emit=c --target=host --arch=sm_90 --host-march=portable -S -v --tune-mapping=x; do
  "$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" $opt > /dev/null 2> "$TMP/err"; rc=$?
  check "run-compile-option-refused/$opt" bash -c "[ $rc -eq 2 ] && grep -qF -- 'gnnc: error: $opt is an option for compiling' '$TMP/err'"
done
# options that shape only the generated kernels: refused too (gnnc run took --mapping=edge and
# printed the interpreter's numbers as if it had run edge-balanced kernels); the op-IR passes'
# options (-fno-fuse, --recompute, -O0) still apply to what gnnc run evaluates
for opt in --mapping=edge --edge-balanced=12 --split-hubs --tile-columns=4 --gemm-precision=tf32 --spmm=cusparse --dots=serial --vector-loads=4; do
  "$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" $opt > /dev/null 2> "$TMP/err"; rc=$?
  check "run-kernel-option-refused/$opt" bash -c "[ $rc -eq 2 ] && grep -qF -- 'gnnc: error: $opt shapes the generated kernels: gnnc run evaluates' '$TMP/err'"
done
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/el.txt" -fno-fuse --recompute=all -O0 > /dev/null 2> "$TMP/err"; rc=$?
check run-pass-options-accepted bash -c "[ $rc -eq 0 ]"
for opt in --save-params=p.txt --train --rows=2; do
  "$GNNC" "$TMP/o/good.gnn" $opt > /dev/null 2> "$TMP/err"; rc=$?
  check "compile-run-option-refused/$opt" bash -c "[ $rc -eq 2 ] && grep -qF -- 'gnnc: error: ${opt%%=*} is an option of gnnc run' '$TMP/err'"
done
# --num-vertices with a dataset folder: the folder's files give the count (was "read failed")
mkdir -p "$TMP/o/ds" && cp "$TMP/o/el.txt" "$TMP/o/ds/graph.edges"
"$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/o/ds" --num-vertices 50 > /dev/null 2> "$TMP/err"; rc=$?
check num-vertices-folder-refused bash -c "[ $rc -eq 2 ] && grep -q -- '--num-vertices is for a bare edge list; the folder' '$TMP/err'"

"$GNNC" $ex --print-ir-after=nosuch > /dev/null 2> "$TMP/err"; rc=$?
check print-unknown-pass bash -c "[ $rc -eq 2 ] && grep -q \"no pass named 'nosuch'; the passes: sema, canonicalize\" '$TMP/err'"
# an empty name was skipped silently (strtok): refused, with the names
for list in "" "sema,,fuse" "sema," ",fuse"; do
  "$GNNC" $ex "--print-ir-after=$list" > /dev/null 2> "$TMP/err"; rc=$?
  check "print-empty-pass/'$list'" bash -c "[ $rc -eq 2 ] && grep -q \"^gnnc: error: --print-ir-after='$list' has .*; the passes: sema, \" '$TMP/err'"
done
"$GNNC" $ex --print-ir-before=sema,,fuse > /dev/null 2> "$TMP/err"; rc=$?
check print-before-empty-pass bash -c "[ $rc -eq 2 ] && grep -q 'has an empty pass name' '$TMP/err'"
"$GNNC" $ex --frobnicate > /dev/null 2> "$TMP/err"; rc=$?
check unknown-option bash -c "[ $rc -eq 2 ] && grep -q 'unknown option' '$TMP/err'"
"$GNNC" > /dev/null 2>&1; rc=$?
check no-input bash -c "[ $rc -eq 2 ]"
"$GNNC" no/such/file.gnn > /dev/null 2> "$TMP/err"; rc=$?
check missing-file bash -c "[ $rc -eq 1 ] && grep -q \"cannot read 'no/such/file.gnn'\" '$TMP/err'"

"$GNNC" $ex --time-passes > /dev/null 2> "$TMP/time"
check time-passes bash -c "grep -q 'pass execution timing report' '$TMP/time' && grep -q ' sema$' '$TMP/time' && grep -q ' canonicalize$' '$TMP/time' && grep -q ' autodiff$' '$TMP/time'"
"$GNNC" $ex --emit=dot > "$TMP/dot"
check emit-dot bash -c "head -1 '$TMP/dot' | grep -q '^digraph \"GAT\"' && tail -1 '$TMP/dot' | grep -q '^}'"
"$GNNC" $ex --emit=ir -o "$TMP/out.ir"
check emit-to-file bash -c "head -1 '$TMP/out.ir' | grep -q '^model GAT {'"
"$GNNC" $ex --emit=cuda > /dev/null 2>&1; rc=$?
check emit-unsupported bash -c "[ $rc -eq 2 ]"
"$GNNC" $ex --stats V=19717,E=88651 > "$TMP/stats"
check stats-lines bash -c "[ \$(grep -c '^stats after' '$TMP/stats') -eq 8 ]"
"$GNNC" $ex --stats V=1 > /dev/null 2>&1; rc=$?
check stats-bad bash -c "[ $rc -eq 2 ]"
"$GNNC" tests/ir/canon_mean.gnn --model=M > /dev/null; rc=$?
check model-select bash -c "[ $rc -eq 0 ]"
"$GNNC" tests/ir/canon_mean.gnn --model=Nope > /dev/null 2> "$TMP/err"; rc=$?
check model-missing bash -c "[ $rc -eq 1 ] && grep -q \"no model named 'Nope'\" '$TMP/err'"

# The cost model's totals on a tiny program, checked against closed forms:
# sum(W @ x[src]) with x: vertex[4], W: [4, 2]:
#   scatter.copy_u: 0 flops, reads 16E, writes 16E; linear: 2*4*2 = 16 flops per edge, reads 16E + 32, writes 8E;
#   gather.sum: 2E flops, reads 8E, writes 8V.   -O0 so nothing is rewritten.
printf 'model M(x: vertex[4]) -> vertex[2] {\n  param W: [4, 2]\n  return sum(W @ x[src])\n}\n' > "$TMP/cost.gnn"
"$GNNC" "$TMP/cost.gnn" -O0 --stats V=10,E=100 > "$TMP/cost"
# flops = 16E + 2E = 1800; bytes = 16E+16E + 16E+32+8E + 8E+8V = 64E + 8V + 32 = 6512
check cost-closed-form grep -q 'stats after sema          flops 1800  bytes 6512 ' "$TMP/cost"
# The same totals as polynomials (--stats=symbolic): 18E flops; 64E + 8V + 32 bytes; the peak
# is at %3 (x: 16V, W: 32, %2: 16E, %3: 8E).
"$GNNC" "$TMP/cost.gnn" -O0 --stats=symbolic > "$TMP/cost-sym"
check cost-symbolic grep -qx 'stats after sema          flops 18\*E  bytes 64\*E + 8\*V + 32  peak-live 24\*E + 16\*V + 32' "$TMP/cost-sym"
# The kernels' arithmetic (--stats' ops column, kstats.c expr_ops), counted by hand on a GCN layer at
# V=10, E=30 (forward only), from its kernel IR (--print-ir-after=lower):
#   step 0 k0_m_c_edge (once per graph), per edge: rsqrt(out_deg * in_deg), 2 ops: 2E = 60;
#   step 1 the GEMM x . W, M=V, N=2, K=4: 2MNK = 160;
#   step 2 k1_sum_u_mul_e_vertex, group 2, its walk in chunks of 2 edges: per edge and lane,
#     x = t7 * c and part + x: 2*2E = 120; per chunk (a row of the average degree, 3 edges, has
#     ceil(3 / 2) = 2: 20 in all) and lane, the flush acc + f64(part), an add and a conversion:
#     2*2*20 = 80; per vertex and lane, f32(deg > 0 ? acc : 0) (the integer compare not counted):
#     2*2V = 40, and relu(sum + b) as (s + b > 0) ? s + b : 0, an add (one node read twice: once,
#     as the C compiler does it), a compare, a select: 3*2V = 60; in all 300. A pass's kernels: 300
#     (step 0 runs once per graph: labelled "graph", its bytes apart in the total line, and not in
#     a pass's arithmetic; the unfused program computes it in every forward).
#   Unfused (-fno-fuse), per step: deg product E = 30, rsqrt E = 30, the GEMM 160, the aggregate
#   (mul and add per edge and lane, no flush; the select per vertex and lane) 4E + 2V = 140,
#   + b 2V = 20, relu (compare, select) 4V = 40; kernels 260.
printf 'model M(x: vertex[4]) -> vertex[2] {\n  param W: [4, 2]\n  param b: [2]\n  c = rsqrt(out_deg[src] * in_deg[dst])\n  return relu(sum(c * (W @ x[src])) + b)\n}\n' > "$TMP/ops.gnn"
"$GNNC" "$TMP/ops.gnn" -fno-autodiff --stats V=10,E=30 > "$TMP/ops" 2> "$TMP/ops-err"
check ops-fused bash -c "[ \"\$(sed -n 's/^  step \([0-9]*\) .* ops \(.*\)$/\1:\2/p' '$TMP/ops' | tr '\n' ' ')\" = '0:60 1:160 2:300 ' ] &&
  grep -q '^  step 0   graph     k0_m_c_edge ' '$TMP/ops' &&
  grep -q '^  total: 3 steps (2 kernels and fills), reads 632 B, writes 160 B (+ 1 step once per graph: reads 240 B, writes 120 B); ' '$TMP/ops' &&
  grep -qx '  arithmetic: forward 300 ops in kernels + 160 in GEMMs; unfused: forward 260 + 160 (x0.913)' '$TMP/ops' && [ ! -s '$TMP/ops-err' ]"
"$GNNC" "$TMP/ops.gnn" -fno-autodiff -fno-fuse --stats V=10,E=30 > "$TMP/ops-unfused"
check ops-unfused bash -c "[ \"\$(sed -n 's/^  step \([0-9]*\) .* ops \(.*\)$/\1:\2/p' '$TMP/ops-unfused' | tr '\n' ' ')\" = '0:30 1:30 2:160 3:140 4:20 5:40 ' ]"
# log_softmax's row max and sum once per row, not per element (lower_op.c, log_softmax_elem),
# fused and unfused, at V=10 (step 1; the GEMM, step 0, 2MNK = 2*10*24*24 = 11520): per row of 24,
# the max loop 24 max, the sum loop 24 * (sub, exp, add) = 72, the elements 24 * (sub, sub, log)
# = 72: 168 a row, 1680 in all. With the two loops at each element it was 24 * (96 + 3) a row, 23760.
printf 'model M(x: vertex[24]) -> vertex[24] {\n  param W: [24, 24]\n  return log_softmax(W @ x)\n}\n' > "$TMP/lsm.gnn"
"$GNNC" "$TMP/lsm.gnn" -fno-autodiff --stats V=10,E=30 > "$TMP/lsm" 2>&1
"$GNNC" "$TMP/lsm.gnn" -fno-autodiff -fno-fuse --stats V=10,E=30 > "$TMP/lsm-unfused" 2>&1
check ops-log-softmax-per-row bash -c "[ \"\$(sed -n 's/^  step \([0-9]*\) .* ops \(.*\)$/\1:\2/p' '$TMP/lsm' '$TMP/lsm-unfused' | tr '\n' ' ')\" = '0:11.52 k 1:1.68 k 0:11.52 k 1:1.68 k ' ]"
# The same for a value of several rows ([4, 6]: four heads of 6): a lane loop over the rows computes
# each row's max and log of its sum into shared arrays before the lane loop over the elements, and a
# dot's row loop over a row of it has the row's two loops before it. Per vertex, per row of 6: the
# max loop 6, the sum loop 6 * 3 = 18, the log 1; the elements 24 * (sub, sub) = 48: 4 * 25 + 48 =
# 148, 1.48 k at V=10. The dot fused: the row's loops before its row loop, 4 * 24 + 24 * 3 (sub,
# sub, log) + 24 * (mul, add) = 216, 2.16 k; unfused the log_softmax's 1.48 k and the dot's 480.
# With the loops at each element: 24 * (6 + 18 + 3) = 648 a vertex, 6.48 k (the dot fused: 6.96 k).
printf 'model M(x: vertex[24]) -> vertex[4, 6] {\n  param W: [24, 4, 6]\n  return log_softmax(W @ x)\n}\n' > "$TMP/lsmh.gnn"
printf 'model M(x: vertex[24]) -> vertex[4] {\n  param W: [24, 4, 6]\n  param c: [4, 6]\n  return dot(log_softmax(W @ x), c)\n}\n' > "$TMP/lsmd.gnn"
for lsm_m in lsmh lsmd; do
  "$GNNC" "$TMP/$lsm_m.gnn" -fno-autodiff --stats V=10,E=30 > "$TMP/$lsm_m" 2>&1
  "$GNNC" "$TMP/$lsm_m.gnn" -fno-autodiff -fno-fuse --stats V=10,E=30 > "$TMP/$lsm_m-unfused" 2>&1
done
unset lsm_m
check ops-log-softmax-per-head bash -c "[ \"\$(sed -n 's/^  step \([0-9]*\) .* ops \(.*\)$/\1:\2/p' '$TMP/lsmh' '$TMP/lsmh-unfused' '$TMP/lsmd' '$TMP/lsmd-unfused' | tr '\n' ' ')\" = '0:11.52 k 1:1.48 k 0:11.52 k 1:1.48 k 0:11.52 k 1:2.16 k 0:11.52 k 1:1.48 k 2:480 ' ]"
# What an inference forward (training = 0) moves, beside the training forward: the same layer on
# dropout(x), an input's dropout, which runs only when training (step 1, labelled "training": x
# read and written, 160 B each); the GEMM then reads x itself (192 B with W, 80 B written) and the
# aggregate 440 B (80 B written), the totals above. With a backward, the aggregate also stores the
# ReLU's operand for it (80 B more) under `if training`: the training forward writes it, the
# inference one does not.
printf 'model M(x: vertex[4]) -> vertex[2] {\n  param W: [4, 2]\n  param b: [2]\n  c = rsqrt(out_deg[src] * in_deg[dst])\n  return relu(sum(c * (W @ dropout(x, 0.5)[src])) + b)\n}\n' > "$TMP/dops.gnn"
"$GNNC" "$TMP/dops.gnn" -fno-autodiff --stats V=10,E=30 > "$TMP/dops" 2>&1
"$GNNC" "$TMP/dops.gnn" --stats V=10,E=30 > "$TMP/dops-train" 2>&1
check stats-inference-forward bash -c "grep -q '^  step 1   training  k1_dropout_vertex  *reads 160 B  *writes 160 B ' '$TMP/dops' &&
  grep -qx '  inference forward (training = 0): 2 steps (1 kernels and fills), reads 632 B, writes 160 B; training forward: 3 steps (2 kernels and fills), reads 792 B, writes 320 B' '$TMP/dops' &&
  grep -qx '  inference forward (training = 0): 2 steps (1 kernels and fills), reads 632 B, writes 160 B; training forward: 3 steps (2 kernels and fills), reads 792 B, writes 400 B' '$TMP/dops-train'"
# --stats counts a row's distinct elements and one far end per edge (kstats.c: elem_enum, same_row).
# GAT (dsl-examples/gat.gnn, host) at V=2708, E=13264, counted by hand from its --emit=kir:
#   k11 (one group per vertex) reads t60 1, gatconv1_x_W elements 0..6 (two loops over the same
#     7 of its 9 floats), t59 1, t96 8, gatconv0_x_W 64, t95 8: 89 floats, 356 B a vertex,
#     x 2708 = 964,048 B = 964.05 kB (was 985.71 kB: 9 of gatconv1_x_W, min(7 + 7, 9));
#   k7 (walk over out-edges) reads at its row gatconv1_x_W 0..7 (8), t60 1, p_gatconv1_a 0..13
#     (14): 23 floats x 4 x 2708 = 249,136 B; per edge, at the far end: gatconv1_x_W element 8
#     (read by two loops: 1), the softmax's max and sum 1 + 1, in_grad_out 0..6 (7), t54 one
#     float64 (8 B): 48 B x 13264 = 636,672 B; 885,808 B = 885.81 kB (was 949.70 kB);
#   k10 (walk over out-edges) reads at its row t7 8, gatconv0_x_W 64, t96 8, p_gatconv0_a 128:
#     832 B x 2708 = 2,253,056 B; per edge, at the far end (the stage's su and the chunk loop's u,
#     both sh_u: one row an edge): t8 8, the softmax's max and sum 8 + 8, t77 64, t90 8 float64
#     (64 B): 416 B x 13264 = 5,517,824 B; 7,770,880 B = 7.77 MB (was 8.20 MB: t8 counted twice).
"$GNNC" dsl-examples/gat.gnn --target=host --stats V=2708,E=13264 > "$TMP/gatk" 2>&1
check stats-distinct-elements bash -c "grep -q '^  step 19  backward  k11_reduce_rows4_sum_vertex  *reads 964.05 kB ' '$TMP/gatk' &&
  grep -q '^  step 9   backward  k7_sum_sum_vertex  *reads 885.81 kB ' '$TMP/gatk' &&
  grep -q '^  step 14  backward  k10_sum_sum_vertex  *reads 7.77 MB ' '$TMP/gatk'"
"$GNNC" "$TMP/cost.gnn" --stats=symbolc > /dev/null 2>&1; rc=$?
check stats-symbolic-bad bash -c "[ $rc -eq 2 ]"
# u_dot_v reduces the last dim of the longer operand: dot(a[src], b[dst]) with a: [2], b: [2, 3]
# broadcasts a over b's last dim and sums 3 products per head: 2 * 3 * 2 = 12 flops per edge,
# the same as apply_edge.dot before canonicalize turns it into scatter.u_dot_v.
printf 'model M(a: vertex[2], b: vertex[2, 3]) -> edge[2] {\n  return dot(a[src], b[dst])\n}\n' > "$TMP/udot.gnn"
"$GNNC" "$TMP/udot.gnn" --stats=symbolic > "$TMP/udot"
check cost-u-dot-v bash -c "grep -q 'after sema  *flops 12\*E ' '$TMP/udot' && grep -q 'after canonicalize  *flops 12\*E ' '$TMP/udot'"

# gnnc gradcheck's command line (its checks are in grad.sh).
"$GNNC" gradcheck --help > "$TMP/gc-help"; rc=$?
check gradcheck-help bash -c "[ $rc -eq 0 ] && grep -q -- '--samples N' '$TMP/gc-help'"
"$GNNC" gradcheck $ex > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-no-graph bash -c "[ $rc -eq 2 ] && grep -q -- '--graph PATH is required' '$TMP/err'"
"$GNNC" gradcheck $ex --graph data/cora -fno-autodiff > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-fno-autodiff bash -c "[ $rc -eq 2 ] && grep -q 'it cannot be off' '$TMP/err'"
# a bad value: the option, what it wants and what it got ("bad value for --samples" said none)
"$GNNC" gradcheck $ex --graph data/cora --samples 0 > /dev/null 2> "$TMP/err"; rc=$?
"$GNNC" gradcheck $ex --graph data/cora --tol=nan > /dev/null 2>> "$TMP/err"; rc2=$?
"$GNNC" gradcheck $ex --graph data/cora --seed -1 > /dev/null 2>> "$TMP/err"; rc3=$?
check gradcheck-bad-value bash -c "[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] &&
  grep -qxF \"gnnc gradcheck: --samples wants a whole number above 0 (without it: every entry), got '0'\" '$TMP/err' &&
  grep -qxF \"gnnc gradcheck: --tol wants a finite number at least 0, got 'nan'\" '$TMP/err' &&
  grep -qxF \"gnnc gradcheck: --seed wants a whole number from 0 to 2^64 - 1, got '-1'\" '$TMP/err'"
unset rc2 rc3
"$GNNC" gradcheck $ex --graph data/cora --frobnicate > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-unknown-option bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '--frobnicate'\" '$TMP/err'"
"$GNNC" gradcheck $ex --graph --samples 3 > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-value-is-next-option bash -c "[ $rc -eq 2 ] && grep -qF \"option '--graph' needs a value, and the next word '--samples' is an option\" '$TMP/err'"
printf 'model M(x: vertex[2]) -> vertex[2] {\n  return nope\n}\n' > "$TMP/bad.gnn"
"$GNNC" gradcheck "$TMP/bad.gnn" --graph data/cora > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-compile-error bash -c "[ $rc -eq 1 ] && grep -q 'error generated' '$TMP/err'"
"$GNNC" gradcheck $ex --graph no/such/graph > /dev/null 2> "$TMP/err"; rc=$?
check gradcheck-graph-error bash -c "[ $rc -eq 1 ] && grep -q 'no/such/graph' '$TMP/err'"

# Numeric options: anything but a whole number in range is exit 2 with a message naming the
# option and its range, before any work is done.
printf 'model M(x: vertex[2]) -> vertex[2] {\n  return sum(x[src])\n}\n' > "$TMP/num.gnn"
bad_num() { # NAME EXPECTED-MESSAGE ARGS... -- gnnc [run] ARGS must exit 2 with the message
  local n=$1 want=$2; shift 2
  "$GNNC" "$@" > /dev/null 2> "$TMP/err"; local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$want" "$TMP/err"; then pass "cli/$n"; else fail "cli/$n" "exit $rc, stderr '$(head -c 200 "$TMP/err")', want 2 and '$want'"; fi
}
runargs=(run "$TMP/num.gnn" --graph tests/graph/ok.edges)
seedmsg="--seed wants an integer from 0 to 18446744073709551615, got"
bad_num seed-word "$seedmsg 'abc'" "${runargs[@]}" --seed abc
bad_num seed-negative "$seedmsg '-1'" "${runargs[@]}" --seed -1
bad_num seed-overflow "$seedmsg '18446744073709551616'" "${runargs[@]}" --seed 18446744073709551616
bad_num seed-suffix "$seedmsg '12abc'" "${runargs[@]}" --seed=12abc
bad_num seed-empty "$seedmsg ''" "${runargs[@]}" --seed=
bad_num seed-missing "option '--seed' needs a value" "${runargs[@]}" --seed
rowsmsg="--rows wants an integer from 0 to 2147483647, got"
bad_num rows-negative "$rowsmsg '-1'" "${runargs[@]}" --rows -1
bad_num rows-word "$rowsmsg 'all'" "${runargs[@]}" --rows all
bad_num rows-overflow "$rowsmsg '2147483648'" "${runargs[@]}" --rows 2147483648
nvmsg="--num-vertices wants an integer from 1 to 1099511627776, got"
bad_num nv-zero "$nvmsg '0'" "${runargs[@]}" --num-vertices 0
bad_num nv-suffix "$nvmsg '3x'" "${runargs[@]}" --num-vertices 3x
bad_num nv-too-many "$nvmsg '1099511627777'" "${runargs[@]}" --num-vertices 1099511627777
bad_num init-word "--init wants glorot or uniform, got 'foo'" "${runargs[@]}" --init=foo
# a file option given twice is refused: the last one was taken silently (helper-40)
bad_num graph-twice "--graph given twice ('tests/graph/ok.edges', then '$TMP/other.edges'): give it once" "${runargs[@]}" --graph "$TMP/other.edges"
bad_num output-twice "--output given twice ('$TMP/a.out' as -o, then '$TMP/b.out'): give it once" "${runargs[@]}" -o "$TMP/a.out" --output="$TMP/b.out"
bad_num params-twice "--params given twice ('$TMP/p1', then '$TMP/p2')" "${runargs[@]}" --params "$TMP/p1" --params "$TMP/p2"
bad_num tune-mapping-twice "--tune-mapping given twice ('tests/graph/ok.edges', then '$TMP/other.edges')" "$TMP/num.gnn" --tune-mapping tests/graph/ok.edges --tune-mapping "$TMP/other.edges" -o "$TMP/t.so"
bad_num compile-output-twice "-o given twice ('$TMP/a.c', then '$TMP/b.c')" "$TMP/num.gnn" -o "$TMP/a.c" -o "$TMP/b.c"
[ ! -e "$TMP/a.c" ] && [ ! -e "$TMP/b.c" ] && [ ! -e "$TMP/a.out" ] && pass cli/file-twice-writes-nothing || fail cli/file-twice-writes-nothing "a file was written"
# a folder given as the source: said so (was "Input/output error")
"$GNNC" "$TMP" > /dev/null 2> "$TMP/err"; rc=$?
check source-is-a-folder bash -c "[ $rc -eq 1 ] && grep -qF \"cannot read '$TMP': Is a directory\" '$TMP/err'"
statsmsg="--stats wants V=N,E=N (whole numbers up to 2^31 - 1, the runtime's limit) or symbolic, got"
bad_num stats-nan "$statsmsg 'V=nan,E=1'" "$TMP/num.gnn" --stats V=nan,E=1
bad_num stats-inf "$statsmsg 'V=1,E=1e999'" "$TMP/num.gnn" --stats V=1,E=1e999
# past the runtime's int32 ids the plan's byte counts wrapped (V=4e15 printed a smaller arena than 1e15)
bad_num stats-too-many "$statsmsg 'V=2147483648,E=1'" "$TMP/num.gnn" --stats V=2147483648,E=1
bad_num plan-too-many "--print-memory-plan wants V=N,E=N (whole numbers up to 2^31 - 1, the runtime's limit), got 'V=4e15,E=1'" \
  "$TMP/num.gnn" --print-memory-plan V=4e15,E=1
bad_num plan-fraction "--print-memory-plan wants V=N,E=N (whole numbers up to 2^31 - 1, the runtime's limit), got 'V=2.5,E=1'" \
  "$TMP/num.gnn" --print-memory-plan V=2.5,E=1
archmsg="want sm_NN[,sm_NN...] (at most 7; e.g. sm_80,sm_90 or sm_90a)"
bad_num arch-word "--arch=foo: $archmsg" "$TMP/num.gnn" --emit=cu --arch=foo
bad_num arch-empty "--arch=: $archmsg" "$TMP/num.gnn" --emit=cu --arch=
bad_num arch-trailing-comma "--arch=sm_80,: $archmsg" "$TMP/num.gnn" --emit=cu --arch=sm_80,
bad_num arch-one-digit "--arch=sm_8: $archmsg" "$TMP/num.gnn" --emit=cu --arch=sm_8
bad_num arch-eight "--arch=sm_80,sm_80,sm_80,sm_80,sm_80,sm_80,sm_80,sm_80: $archmsg" "$TMP/num.gnn" --emit=cu \
  --arch=sm_80,sm_80,sm_80,sm_80,sm_80,sm_80,sm_80,sm_80
check arch-feature-letter "$GNNC" "$TMP/num.gnn" --emit=cu --arch=sm_90a,sm_100f -o "$TMP/arch.cu"
# --host-march: the host library's cc line (-v), native by default, none for portable; a value
# that is not a CPU name is refused before anything runs
marchmsg="want native, portable or a CPU name for cc's -march"
bad_num host-march-space "--host-march=a b: $marchmsg" "$TMP/num.gnn" --target=host --host-march="a b" -o "$TMP/m.so"
bad_num host-march-empty "--host-march=: $marchmsg" "$TMP/num.gnn" --target=host --host-march= -o "$TMP/m.so"
bad_num host-march-flag "--host-march=;rm: $marchmsg" "$TMP/num.gnn" --target=host "--host-march=;rm" -o "$TMP/m.so"
"$GNNC" "$TMP/num.gnn" --target=host -v -o "$TMP/m-native.so" > "$TMP/m-native.log" 2>&1
check host-march-native grep -q -- ' -O3 -march=native -ffp-contract=off ' "$TMP/m-native.log"
# GCC 12 builds without gathers (its vectoriser clobbered a gather's mask on Zen 3: wrong
# gradients in codegen's backward/edge-lanes there); other compilers get no such flag
if ${CC:-cc} -dM -E -x c /dev/null 2>/dev/null | grep -q '^#define __GNUC__ 12$' && ! ${CC:-cc} -dM -E -x c /dev/null | grep -q __clang__; then
  check host-gcc12-no-gathers grep -q -- ' -mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather ' "$TMP/m-native.log"
else
  check host-no-gather-flag bash -c "! grep -q -- '-mtune-ctrl' '$TMP/m-native.log'"
fi
"$GNNC" "$TMP/num.gnn" --target=host --host-march=portable -v -o "$TMP/m-portable.so" > "$TMP/m-portable.log" 2>&1
check host-march-portable bash -c "[ -f '$TMP/m-portable.so' ] && ! grep -q -- '-march' '$TMP/m-portable.log'"
"$GNNC" "$TMP/num.gnn" --target=host --host-march=x86-64-v2 -v -o "$TMP/m-v2.so" > "$TMP/m-v2.log" 2>&1
check host-march-named bash -c "[ -f '$TMP/m-v2.so' ] && grep -q -- ' -march=x86-64-v2 ' '$TMP/m-v2.log'"
# a flag for the other target's compiler is named, not dropped in silence (a mistaken --target)
"$GNNC" "$TMP/num.gnn" --target=host --arch=sm_90 --emit=c -o "$TMP/w.c" > /dev/null 2> "$TMP/err"; rc=$?
check arch-on-host-warns bash -c "[ $rc -eq 0 ] && grep -qF 'warning: --arch=sm_90 is for the CUDA target: a host library ignores it' '$TMP/err'"
"$GNNC" "$TMP/num.gnn" --host-march=native --emit=cu -o "$TMP/w.cu" > /dev/null 2> "$TMP/err"; rc=$?
check host-march-on-cuda-warns bash -c "[ $rc -eq 0 ] && grep -qF 'warning: --host-march=native is for the host target: a CUDA library ignores it' '$TMP/err'"
"$GNNC" "$TMP/num.gnn" --target=host --host-march=native --emit=c -o "$TMP/w.c" > /dev/null 2> "$TMP/err"; rc=$?
check host-march-on-host-quiet bash -c "[ $rc -eq 0 ] && [ ! -s '$TMP/err' ]"
bad_num stats-empty "$statsmsg 'V=,E=1'" "$TMP/num.gnn" --stats V=,E=1
bad_num o-missing "option '-o' needs a value" "$TMP/num.gnn" -o
# an option's value is never the next option (a reviewer's --tune-mapping --target=host compiled for
# cuda with '--target=host' as its graph; --target=host --tune-mapping -o x.so took -o as the graph)
bad_num value-is-next-option "option '--tune-mapping' needs a value, and the next word '--target=host' is an option" \
  "$TMP/num.gnn" --tune-mapping --target=host -o "$TMP/tm.so"
bad_num value-is-next-o "option '--tune-mapping' needs a value, and the next word '-o' is an option" \
  "$TMP/num.gnn" --target=host --tune-mapping -o "$TMP/tm.so"
bad_num o-value-is-next-option "option '-o' needs a value, and the next word '--emit=ir' is an option (a file name that begins with '-': -o ./NAME)" \
  "$TMP/num.gnn" -o --emit=ir
bad_num run-value-is-next-option "option '--graph' needs a value, and the next word '--seed' is an option" run "$TMP/num.gnn" --graph --seed 3
# the extremes of the ranges are accepted
if "$GNNC" "${runargs[@]}" --seed 18446744073709551615 --rows 0 --num-vertices 3 > "$TMP/out" 2>&1 &&
   grep -q '^checksum:' "$TMP/out" && ! grep -q '^row ' "$TMP/out"; then pass cli/numeric-extremes
else fail cli/numeric-extremes "$(head -3 "$TMP/out")"; fi
unset -f bad_num

# u_dot_v reduces the last dim of the broadcast shape, not of its first operand: with
# x: vertex[2] and y: vertex[2, 3], dot(x[src], y[dst]) becomes scatter.u_dot_v x, y : edge[2]
# (canonicalize), each output element a length-3 dot product:
#   u_dot_v: 2 * 3 * 2 = 12 flops per edge, reads 4 * (2 + 6) = 32E, writes 8E;
#   gather.sum: 2E flops, reads 8E, writes 8V.   flops = 14E = 1400; bytes = 48E + 8V = 4880
# (the first operand's last dim gave 10E). With a scalar u (x: vertex[], y: vertex[3]) it read
# past the shape: now 6E + 1E = 700 flops, bytes 16E + 4E + 4E + 4V = 2440.
printf 'model M(x: vertex[2], y: vertex[2, 3]) -> vertex[2] {\n  return sum(dot(x[src], y[dst]))\n}\n' > "$TMP/udotv.gnn"
"$GNNC" "$TMP/udotv.gnn" --print-ir-after=canonicalize --stats V=10,E=100 > "$TMP/udotv" 2>&1
check u-dot-v-formed grep -q 'scatter.u_dot_v %0, %1 : edge\[2\]' "$TMP/udotv"
check u-dot-v-cost grep -q 'stats after canonicalize  flops 1400  bytes 4880 ' "$TMP/udotv"
check u-dot-v-same-as-dot grep -q 'stats after sema          flops 1400 ' "$TMP/udotv" # apply_edge.dot before
printf 'model M(x: vertex[], y: vertex[3]) -> vertex[] {\n  return sum(dot(x[src], y[dst]))\n}\n' > "$TMP/udotv0.gnn"
"$GNNC" "$TMP/udotv0.gnn" --print-ir-after=canonicalize --stats V=10,E=100 > "$TMP/udotv0" 2>&1
check u-dot-v-scalar-formed grep -q 'scatter.u_dot_v %0, %1 : edge\[\]' "$TMP/udotv0"
check u-dot-v-scalar-cost grep -q 'stats after canonicalize  flops 700  bytes 2440 ' "$TMP/udotv0"

# A layer may have any number of inputs (there was an unexplained limit of 64: "too many arguments").
{
  printf 'layer L(x0: vertex[2]'; printf ', x%d: vertex[2]' $(seq 1 69)
  printf ') -> vertex[2] {\n  return x0 + x69\n}\nmodel M(x: vertex[2]) -> vertex[2] {\n  return L(x'
  for k in $(seq 1 69); do printf ', x'; done
  printf ')\n}\n'
} > "$TMP/wide.gnn"
"$GNNC" "$TMP/wide.gnn" > /dev/null 2> "$TMP/err"; rc=$?
check layer-70-inputs bash -c "[ $rc -eq 0 ]"

# ---- issue 15: the smaller defects
"$GNNC" --version > "$TMP/ver" 2>&1; rc=$?
check version bash -c "[ $rc -eq 0 ] && grep -qx 'gnnc [0-9][0-9.]*' '$TMP/ver'"
# the man page describes every option --help lists (and renders without warnings)
"$GNNC" --help | grep -o -- '--[a-z][a-z-]*' | sort -u > "$TMP/help-opts"
sed 's/\\-/-/g; s/\\f[BIR]//g' docs/gnnc.1 | grep -o -- '--[a-z][a-z-]*' | sort -u > "$TMP/man-opts"
check man-page-has-every-option bash -c "[ -s '$TMP/help-opts' ] && [ -z \"\$(comm -23 '$TMP/help-opts' '$TMP/man-opts')\" ]"
check man-page-renders bash -c "[ -z \"\$(LC_ALL=C.UTF-8 MANROFFSEQ='' man --warnings -E UTF-8 -l docs/gnnc.1 2>&1 >/dev/null)\" ]"
# --emit=c|cu without -o: stdout, one self-contained file; nothing written in the current folder
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$GNNC" "$ROOT/dsl-examples/gcn.gnn" --emit=c > "$TMP/stdout.c" && "$GNNC" "$ROOT/dsl-examples/gcn.gnn" --emit=cu > "$TMP/stdout.cu" &&
  "$GNNC" "$ROOT/dsl-examples/gcn.gnn" --emit=h > "$TMP/stdout.h")
check emit-stdout-writes-no-files bash -c "[ -z \"\$(ls -A '$TMP/cwd')\" ]"
check emit-c-stdout-compiles bash -c "grep -q '^gnn_status gcn_forward' '$TMP/stdout.c' && ! grep -q '#include \"gcn.h\"' '$TMP/stdout.c' && cc -std=c11 -fopenmp -Wall -Wextra -Werror -I'$ROOT/runtime' -c '$TMP/stdout.c' -o '$TMP/stdout.o'"
check emit-cu-stdout bash -c "grep -q '^gnn_status gcn_forward' '$TMP/stdout.cu' && grep -q '__global__' '$TMP/stdout.cu' && grep -q '^gnn_status gcn_forward(gcn_model' '$TMP/stdout.h' && ! grep -q '__global__' '$TMP/stdout.h'"
# the README's drawing: --emit=dot | dot -Tsvg
if command -v dot > /dev/null; then
  "$GNNC" $ex --emit=dot | dot -Tsvg > "$TMP/gat.svg" 2> "$TMP/err"
  check emit-dot-svg bash -c "grep -q '<svg' '$TMP/gat.svg' && [ ! -s '$TMP/err' ]"
  # every example, graph-level values too (gin_graph: their colour was read past the table's end)
  for dot_ex in "$ROOT"/dsl-examples/*.gnn; do
    dot_name=$(basename "$dot_ex" .gnn)
    "$GNNC" "$dot_ex" --emit=dot > "$TMP/$dot_name.dot" 2>&1 && dot -Tsvg "$TMP/$dot_name.dot" > /dev/null 2> "$TMP/err"
    check "emit-dot-valid/$dot_name" bash -c "[ ! -s '$TMP/err' ] && grep -c 'fillcolor=' '$TMP/$dot_name.dot' > /dev/null && ! grep 'fillcolor=' '$TMP/$dot_name.dot' | grep -vqE 'fillcolor=(lightblue|lightsalmon|khaki|lightgrey|palegreen),'"
  done
else
  fail cli/emit-dot-svg "graphviz's dot is not installed (make setup installs it)"
fi
# a kernel of 8,000 fused values: its description ("fused %1 %2 ...") was rebuilt per value in the
# arena, quadratic (20,000 statements: 45 s and 5.2 GB; a tester's find); now 35 MB, within 400 MB
"$PY" -c "print('model M(x: vertex[2]) -> vertex[2] {\n  h0 = x'); [print('  h%d = relu(h%d) * 0.5' % (i, i - 1)) for i in range(1, 8001)]; print('  return h8000\n}')" > "$TMP/long8k.gnn"
# (under ASan, whose shadow memory reserves terabytes of address space, without the limit)
if [ -n "${RT_SANITIZED:-}" ]; then "$GNNC" "$TMP/long8k.gnn" --emit=kir > "$TMP/long8k.kir" 2> "$TMP/err"; rc=$?
else (ulimit -v 400000; "$GNNC" "$TMP/long8k.gnn" --emit=kir > "$TMP/long8k.kir" 2> "$TMP/err"); rc=$?; fi
check long-kernel-memory bash -c "[ $rc -eq 0 ] && grep -q '^kernel ' '$TMP/long8k.kir'"
# inputs over the size limit are refused, not read until memory runs out
timeout 20 "$GNNC" /dev/zero > /dev/null 2> "$TMP/err"; rc=$?
check source-size-limit bash -c "[ $rc -eq 1 ] && grep -qx \"gnnc: cannot read '/dev/zero': larger than 64 MiB, the limit for a source file\" '$TMP/err'"
# diagnostics show a window of a long line: a 1 MB identifier, 5 MB of NULs
"$PY" -c "print('model M(x: vertex[1]) -> vertex[1] {\n  return ' + 'a' * 1000000 + '\n}')" > "$TMP/longid.gnn"
"$GNNC" "$TMP/longid.gnn" > /dev/null 2> "$TMP/err"; rc=$?
check diag-window-long-identifier bash -c "[ $rc -eq 1 ] && [ \$(wc -c < '$TMP/err') -lt 2000 ] && grep -q 'identifier longer than 128 characters' '$TMP/err' && grep -q 'aaa\.\.\.$' '$TMP/err'"
head -c 5000000 /dev/zero > "$TMP/nul.gnn"
"$GNNC" "$TMP/nul.gnn" > /dev/null 2> "$TMP/err"; rc=$?
check diag-window-nul-file bash -c "[ $rc -eq 1 ] && [ \$(wc -c < '$TMP/err') -lt 20000 ] && grep -q 'stray byte .x00' '$TMP/err' && grep -qx '5000000 errors generated.' '$TMP/err'"
# the caret still points at the error inside the window, far along a long line
"$PY" -c "print('model M(x: vertex[1]) -> vertex[1] {\n  return ' + ' ' * 5000 + 'nope\n}')" > "$TMP/far.gnn"
"$GNNC" "$TMP/far.gnn" > /dev/null 2> "$TMP/err"
check diag-window-caret bash -c "[ \$(wc -c < '$TMP/err') -lt 1000 ] && awk 'NR==2 { i = index(\$0, \"nope\") } NR==3 { j = index(\$0, \"^\") } END { exit !(i > 0 && i == j) }' '$TMP/err'"
# A model with nothing to differentiate (no parameter, no --input-grads) has no backward in the
# library and, since 87eb1af, no seed grad.out in the interpreter's training module either: what
# gnnc run --backward --save-inputs writes, gnn-run reads; gnn-run --backward says why there is no
# backward (--backward said "compiled without autodiff", which was not so).
printf 'model M(x: vertex[5]) -> vertex[5] {\n  return relu(x)\n}\n' > "$TMP/nograd.gnn"
if "$GNNC" "$TMP/nograd.gnn" --target=host -o "$TMP/libnograd.so" > /dev/null 2>&1 &&
   "$GNNC" run "$TMP/nograd.gnn" --graph tests/interp/graphs/random --backward --save-inputs "$TMP/nograd.in" > /dev/null 2>&1; then
  "$ROOT/build/bin/gnn-run" "$TMP/libnograd.so" --graph tests/interp/graphs/random --inputs "$TMP/nograd.in" --repeat 1 --warmup 0 > /dev/null 2> "$TMP/err"; rc=$?
  check no-gradients-inputs-read bash -c "[ $rc -eq 0 ] && ! grep -q grad.out '$TMP/nograd.in'"
  "$ROOT/build/bin/gnn-run" "$TMP/libnograd.so" --graph tests/interp/graphs/random --backward > /dev/null 2> "$TMP/err"; rc=$?
  check no-gradients-train-says-why bash -c "[ $rc -ne 0 ] && grep -qF 'has no backward: it has no parameters and was built without --input-grads' '$TMP/err'"
else
  fail cli/no-gradients-build "gnnc could not build or run $TMP/nograd.gnn"
fi
# gnn-run --inputs goes through the runtime's checked reader (NaN, values beyond float32, dims overflow)
printf 'model M(x: vertex[5], w: edge[2]) -> vertex[2] {\n  param W: [5, 2]\n  return sum(w * (W @ x[src]))\n}\n' > "$TMP/inputs.gnn"
if "$GNNC" "$TMP/inputs.gnn" --target=host -o "$TMP/libudotv.so" > /dev/null 2>&1 &&
   "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --save-inputs "$TMP/in.saved" > /dev/null 2>&1; then
  # gnnc run saves behind the runtime's checksum line: one changed value and the file is refused
  # whole; the cases below edit the body alone (a version 1 file, no checksum) to reach each check
  check save-inputs-checksum-line bash -c "head -1 '$TMP/in.saved' | grep -q '^#gnn-tensors version 2 bytes [0-9]* fnv1a64 [0-9a-f]*\$'"
  sed '3s/^./9/' "$TMP/in.saved" > "$TMP/in.bad"
  "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --inputs "$TMP/in.bad" > /dev/null 2> "$TMP/err"; rc=$?
  check gnn-run-inputs-checksum bash -c "[ $rc -eq 1 ] && grep -qF 'checksum mismatch' '$TMP/err'"
  "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --inputs "$TMP/in.bad" > /dev/null 2> "$TMP/err"; rc=$?
  check run-inputs-checksum bash -c "[ $rc -eq 1 ] && grep -qF 'checksum mismatch' '$TMP/err'"
  sed 1d "$TMP/in.saved" > "$TMP/in.ok"
  for ci_case in "nan|2s/^[^ ]*/nan/|value 0 'nan' is not a finite float32 number" \
              "float32|2s/^[^ ]*/1e39/|value 0 '1e39' is not a finite float32 number" \
              "overflow|1s/^tensor x \([0-9]*\) 1 5/tensor x \1 2 4611686018427387904 5/|tensor 'x': too many elements" \
              "rows|1s/^tensor x 40 /tensor x 5 /;7,41d|tensor 'x' has 5 rows, expected 40" \
              "shape|1s/^tensor x \([0-9]*\) 1 5/tensor x \1 2 5 1/|tensor 'x' has shape [5, 1], expected [5]"; do
    ci_name=${ci_case%%|*} ci_rest=${ci_case#*|}
    sed "${ci_rest%%|*}" "$TMP/in.ok" > "$TMP/in.bad"
    "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --inputs "$TMP/in.bad" > /dev/null 2> "$TMP/err"; rc=$?
    check "gnn-run-inputs-$ci_name" bash -c "[ $rc -eq 1 ] && grep -qF -- \"${ci_rest#*|}\" '$TMP/err'"
  done
  "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --inputs "$TMP/in.ok" --repeat 1 --warmup 0 > /dev/null 2> "$TMP/err"; rc=$?
  check gnn-run-inputs-ok bash -c "[ $rc -eq 0 ]"
  # an inputs file past 64 MiB (gnnc run --save-inputs writes 200 MB for PubMed) is read by both:
  # gnnc run refused it as "larger than 64 MiB, the limit for a source file" (here: the same
  # tensors, then 65 MiB of blank lines)
  { cat "$TMP/in.ok"; head -c $((65 << 20)) /dev/zero | tr '\0' '\n'; } > "$TMP/in.big"
  "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --inputs "$TMP/in.ok" > "$TMP/in.small.out" 2>&1
  "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --inputs "$TMP/in.big" > "$TMP/in.big.out" 2> "$TMP/err"; rc=$?
  "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --inputs "$TMP/in.big" --repeat 1 --warmup 0 > /dev/null 2>> "$TMP/err"; rc2=$?
  check inputs-beyond-64MiB bash -c "[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '^checksum:' '$TMP/in.big.out' && cmp -s <(grep -v '^interpreter time' '$TMP/in.small.out') <(grep -v '^interpreter time' '$TMP/in.big.out')"
  rm -f "$TMP/in.big"
  # an endless stream of NUL bytes is refused at once (it was read until memory ran out)
  timeout 20 "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --inputs /dev/zero > /dev/null 2> "$TMP/err"; rc=$?
  timeout 20 "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --params /dev/zero > /dev/null 2> "$TMP/err2"; rc2=$?
  timeout 20 "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --params /dev/zero > /dev/null 2> "$TMP/err3"; rc3=$?
  check tensors-from-dev-zero bash -c "[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && [ $rc3 -eq 1 ] && grep -qF '/dev/zero: error: cannot read: it is a device, not a file' '$TMP/err' &&
    grep -qF '/dev/zero: error: cannot read: it is a device, not a file' '$TMP/err2' && grep -qF 'GNN_ERR_IO: /dev/zero: error: cannot read: it is a device, not a file' '$TMP/err3'"
  # a stream of NUL bytes through a pipe (not a device): refused at the first block
  head -c 100000000 /dev/zero | timeout 20 "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --inputs /dev/stdin > /dev/null 2> "$TMP/err"; rc=$?
  check tensors-from-nul-pipe bash -c "[ $rc -eq 1 ] && grep -qF 'error: NUL byte in a text file' '$TMP/err'"
  # a graph, features or tensors from a device: refused before reading (a line from /dev/zero
  # never ends: every reader grew until memory ran out)
  timeout 20 "$GNNC" run "$TMP/inputs.gnn" --graph /dev/zero > /dev/null 2> "$TMP/err"; rc=$?
  timeout 20 "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --features /dev/zero > /dev/null 2>> "$TMP/err"; rc2=$?
  timeout 20 "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph /dev/zero > /dev/null 2>> "$TMP/err"; rc3=$?
  timeout 20 "$ROOT/build/bin/gnn-compare" /dev/zero "$TMP/in.ok" > /dev/null 2>> "$TMP/err"; rc4=$?
  check graph-from-device bash -c "[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && [ $rc3 -eq 1 ] && [ $rc4 -eq 2 ] &&
    [ \$(grep -c '/dev/zero: error: cannot read: it is a device, not a file' '$TMP/err') -eq 3 ] && grep -qF '/dev/zero: a NUL byte' '$TMP/err'"
  unset rc4
  # edge values of the graph that no input reads: a note, not silence (9 values an edge were dropped)
  printf '0 1 0.5 2\n1 2 0.25 1\n2 0 1 1\n' > "$TMP/ev.edges"
  "$GNNC" run "$TMP/o/good.gnn" --graph "$TMP/ev.edges" > /dev/null 2> "$TMP/err"; rc=$?
  "$ROOT/build/bin/gnn-run" "$TMP/o/libgood.so" --graph "$TMP/ev.edges" --repeat 1 --warmup 0 > /dev/null 2>> "$TMP/err"; rc2=$?
  "$GNNC" run "$TMP/inputs.gnn" --graph "$TMP/ev.edges" > /dev/null 2>> "$TMP/err"; rc3=$?
  # gnn-run --num-vertices, as gnnc run's: the same graph (isolated vertices past the largest id),
  # the same output; with a folder refused as gnnc run refuses it
  "$GNNC" run tests/interp/models/gcn.gnn --graph tests/interp/graphs/random/graph.edges --num-vertices 50 --seed 3 --output "$TMP/nv.ref" > /dev/null 2>&1
  "$GNNC" tests/interp/models/gcn.gnn --target=host -o "$TMP/libnv.so" > /dev/null 2>&1
  "$ROOT/build/bin/gnn-run" "$TMP/libnv.so" --graph tests/interp/graphs/random/graph.edges --num-vertices 50 --seed 3 \
    --output "$TMP/nv.got" --repeat 1 --warmup 0 > "$TMP/nv.out" 2>&1; rc4=$?
  "$ROOT/build/bin/gnn-run" "$TMP/libnv.so" --graph tests/interp/graphs/random --num-vertices 50 > /dev/null 2> "$TMP/nv.err"; rc5=$?
  check gnn-run-num-vertices bash -c "[ $rc4 -eq 0 ] && grep -q ': 50 vertices, 160 edges' '$TMP/nv.out' && head -2 '$TMP/nv.got' | grep -q '^tensor output 50 ' &&
    '$ROOT/build/bin/gnn-compare' '$TMP/nv.got' '$TMP/nv.ref' > /dev/null && [ $rc5 -eq 2 ] && grep -qF 'is for a bare edge list' '$TMP/nv.err'"
  unset rc4 rc5
  # a file option given twice: refused, as gnnc refuses it (the second --graph was read)
  "$ROOT/build/bin/gnn-run" "$TMP/libnv.so" --graph tests/interp/graphs/random/graph.edges --graph "$TMP/ev.edges" > /dev/null 2> "$TMP/twice.err"; rc4=$?
  "$ROOT/build/bin/gnn-run" "$TMP/libnv.so" --graph "$TMP/ev.edges" --output "$TMP/t1" --output "$TMP/t2" > /dev/null 2>> "$TMP/twice.err"; rc5=$?
  check gnn-run-file-option-twice bash -c "[ $rc4 -eq 2 ] && [ $rc5 -eq 2 ] && [ ! -e '$TMP/t1' ] && [ ! -e '$TMP/t2' ] &&
    grep -qxF \"gnn-run: --graph given twice ('tests/interp/graphs/random/graph.edges', then '$TMP/ev.edges'): give it once\" '$TMP/twice.err' &&
    grep -qxF \"gnn-run: --output given twice ('$TMP/t1', then '$TMP/t2'): give it once\" '$TMP/twice.err'"
  unset rc4 rc5
  check edge-values-unread-note bash -c "[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && [ \$(wc -l < '$TMP/err') -eq 2 ] &&
    grep -qxF 'gnnc run: note: the 2 values per edge of $TMP/ev.edges are not read: model GCN has no edge input' '$TMP/err' &&
    grep -qxF 'gnn-run: note: the 2 values per edge of $TMP/ev.edges are not read: model GCN has no edge input' '$TMP/err'"
  unset rc2 rc3
  # a tensor that is no input of the model is refused, as gnnc run refuses it (it was skipped: a
  # misspelt input went unread while the input it meant was generated)
  { cat "$TMP/in.ok"; printf 'tensor bogus 1 1 2\n1 2\n'; } > "$TMP/in.bogus"
  "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --inputs "$TMP/in.bogus" --repeat 1 --warmup 0 > /dev/null 2> "$TMP/err"; rc=$?
  check gnn-run-inputs-unknown bash -c "[ $rc -eq 1 ] && grep -qF \"in.bogus: tensor 'bogus' is not an input of M (its inputs: x, w; and grad.out, the backward's seed)\" '$TMP/err'"
  # the backward's seed: taken from the file when there, drawn from --seed when not (as gnnc run
  # --inputs), unread by a forward; both ways the gradients equal the interpreter's
  gr() { "$ROOT/build/bin/gnn-run" "$TMP/libudotv.so" --graph tests/interp/graphs/random --params "$TMP/bw.p" --repeat 1 --warmup 0 "$@" > /dev/null; }
  if "$GNNC" run "$TMP/inputs.gnn" --graph tests/interp/graphs/random --backward --save-inputs "$TMP/bw.in" \
       --save-params "$TMP/bw.p" --save-outputs "$TMP/bw.ref" > /dev/null 2> "$TMP/err" &&
     sed 1d "$TMP/bw.in" | awk '/^tensor /{skip = ($2 == "grad.out")} !skip' > "$TMP/bw.noseed" &&
     gr --inputs "$TMP/bw.in" --backward --save-grads "$TMP/bw.g1" 2>> "$TMP/err" &&
     gr --inputs "$TMP/bw.noseed" --backward --save-grads "$TMP/bw.g2" 2>> "$TMP/err" &&
     gr --inputs "$TMP/bw.in" 2>> "$TMP/err"; then
    awk '/^tensor /{skip = ($2 == "out")} !skip' "$TMP/bw.ref" > "$TMP/bw.refgrads"
    check gnn-run-inputs-seed bash -c "! grep -q grad.out '$TMP/bw.noseed' && cmp -s '$TMP/bw.g1' '$TMP/bw.g2' &&
      grep -q '^tensor grad.W ' '$TMP/bw.refgrads' && '$ROOT/build/bin/gnn-compare' '$TMP/bw.g1' '$TMP/bw.refgrads' --tol 1e-5 > /dev/null"
  else
    fail cli/gnn-run-inputs-seed "$(head -2 "$TMP/err")"
  fi
  unset -f gr
  # a library cut short (an interrupted build or copy): a message, not SIGBUS in the loader; a file
  # cut only in what no segment maps (debug sections) still loads
  ci_size=$(stat -c %s "$TMP/libudotv.so")
  for ci_cut in 4096 $((ci_size / 2)); do
    head -c "$ci_cut" "$TMP/libudotv.so" > "$TMP/libcut.so"
    "$ROOT/build/bin/gnn-run" "$TMP/libcut.so" --graph tests/interp/graphs/random --repeat 1 --warmup 0 > /dev/null 2> "$TMP/err"; rc=$?
    check "gnn-run-library-cut-$ci_cut" bash -c "[ $rc -eq 1 ] && grep -qF 'libcut.so: the file is cut short (' '$TMP/err'"
  done
  "$ROOT/build/bin/gnn-train" "$TMP/libcut.so" --data data/cora > /dev/null 2> "$TMP/err"; rc=$?
  check gnn-train-library-cut bash -c "[ $rc -eq 1 ] && grep -qF 'libcut.so: the file is cut short (' '$TMP/err'"
  head -c $((ci_size - 64)) "$TMP/libudotv.so" > "$TMP/libcut.so" # the section headers' end: no segment
  "$ROOT/build/bin/gnn-run" "$TMP/libcut.so" --graph tests/interp/graphs/random --repeat 1 --warmup 0 > /dev/null 2> "$TMP/err"; rc=$?
  check gnn-run-library-cut-unmapped bash -c "[ $rc -eq 0 ]"
  unset ci_size ci_cut
else
  fail cli/gnn-run-inputs "could not build the library or the inputs"
fi
unset ci_case ci_name ci_rest

# gnnc run --inputs reads back what --save-inputs wrote after a backward: the seed grad.out is
# taken when the file has it (as gnn-run --backward takes it), drawn from --seed when not, and
# left unread by a forward alone; a module without autodiff names why it refuses it
ci_run() { "$GNNC" run dsl-examples/gcn.gnn --graph data/cora --seed 3 "$@" > /dev/null; }
if ci_run --backward --save-inputs "$TMP/bw.in" --save-params "$TMP/bw.p" --save-outputs "$TMP/bw.ref" 2> "$TMP/err" &&
   grep -q '^tensor grad.out 2708 1 7$' "$TMP/bw.in"; then
  sed 1d "$TMP/bw.in" | awk '/^tensor /{zero = ($2 == "grad.out")} zero && !/^tensor /{gsub(/[^ ]+/, "0.5")} 1' > "$TMP/bw.half"
  sed 1d "$TMP/bw.in" | awk '/^tensor /{skip = ($2 == "grad.out")} !skip' > "$TMP/bw.noseed"
  ci_run --backward --inputs "$TMP/bw.in" --params "$TMP/bw.p" --save-outputs "$TMP/bw.same" 2> "$TMP/err"; rc=$?
  check run-inputs-seed-taken bash -c "[ $rc -eq 0 ] && cmp -s '$TMP/bw.ref' '$TMP/bw.same'"
  ci_run --backward --inputs "$TMP/bw.half" --params "$TMP/bw.p" --save-outputs "$TMP/bw.h" 2> "$TMP/err"; rc=$?
  ci_run --backward --inputs "$TMP/bw.half" --params "$TMP/bw.p" --seed 4 --save-outputs "$TMP/bw.h4" 2>> "$TMP/err"
  # grad.out all 0.5: d b2 (the last bias) is 0.5 times the vertex count in every column,
  # whatever --seed draws
  check run-inputs-seed-used bash -c "[ $rc -eq 0 ] && ! cmp -s '$TMP/bw.ref' '$TMP/bw.h' &&
    awk '/^tensor grad.gcnconv1.b /{getline; { for (i = 1; i <= NF; i++) if (\$i != 1354) bad = 1; seen = 1 } } END { exit bad || !seen }' '$TMP/bw.h' &&
    diff <(grep -A1 '^tensor grad.gcnconv1.b ' '$TMP/bw.h') <(grep -A1 '^tensor grad.gcnconv1.b ' '$TMP/bw.h4') > /dev/null"
  ci_run --backward --inputs "$TMP/bw.noseed" --params "$TMP/bw.p" --save-outputs "$TMP/bw.drawn" 2> "$TMP/err"; rc=$?
  check run-inputs-seed-drawn bash -c "[ $rc -eq 0 ] && cmp -s '$TMP/bw.ref' '$TMP/bw.drawn'"
  ci_run --inputs "$TMP/bw.in" --params "$TMP/bw.p" --output "$TMP/fw.a" 2> "$TMP/err"; rc=$?
  ci_run --inputs "$TMP/bw.noseed" --params "$TMP/bw.p" --output "$TMP/fw.b" 2>> "$TMP/err"
  check run-inputs-seed-forward bash -c "[ $rc -eq 0 ] && [ -s '$TMP/fw.a' ] && cmp -s '$TMP/fw.a' '$TMP/fw.b'"
  ci_run -fno-autodiff --inputs "$TMP/bw.in" --params "$TMP/bw.p" 2> "$TMP/err"; rc=$?
  check run-inputs-seed-no-autodiff bash -c "[ $rc -eq 1 ] && grep -qF \"tensor 'grad.out' is not an input of the model (a gradient's name: this module has no backward\" '$TMP/err'"
else
  fail cli/run-inputs-seed "could not save the inputs of a backward: $(head -2 "$TMP/err")"
fi
unset -f ci_run

# A model of 70 inputs (more than the 64 a fixed array in emit_model.c once held: gnnc hung
# writing past it): the host library builds and its output equals the interpreter's
"$PY" -c "
n = 70
print('model M(' + ', '.join('x%d: vertex[5]' % i for i in range(n)) + ') -> vertex[5] {')
print('  return ' + ' + '.join('sum(x%d[src])' % i for i in range(n)))
print('}')" > "$TMP/many.gnn"
if timeout 120 "$GNNC" "$TMP/many.gnn" --target=host -o "$TMP/libmany.so" > /dev/null 2> "$TMP/err" &&
   "$GNNC" run "$TMP/many.gnn" --graph tests/interp/graphs/random --seed 2 --save-inputs "$TMP/many.in" --output "$TMP/many.ref" > /dev/null 2>> "$TMP/err" &&
   "$ROOT/build/bin/gnn-run" "$TMP/libmany.so" --graph tests/interp/graphs/random --inputs "$TMP/many.in" --output "$TMP/many.out" \
     --repeat 1 --warmup 0 > /dev/null 2>> "$TMP/err" &&
   "$ROOT/build/bin/gnn-compare" "$TMP/many.out" "$TMP/many.ref" --tol 1e-5 > /dev/null 2>> "$TMP/err"; then pass cli/many-inputs
else fail cli/many-inputs "$(head -2 "$TMP/err")"; fi

# --gpu=NAME --graph FILE: the GPU estimate (compiler/gpucost.c). On Cora every gathered kernel of
# GCN reads each source's row once from DRAM (the rows fit the L2): its miss rate is the distinct
# sources over the edges, counted here from the file; a .gcsr of the same graph (gen_graph convert)
# gives the same table; bad uses exit 2, an unreadable graph 1.
ci_want=$("$PY" -c "
import sys
e = [l.split() for l in open('data/cora/graph.edges') if l.strip() and not l.startswith('#')]
print('%.1f%%' % (100.0 * len({a for a, b in e}) / len(e)))")
"$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph data/cora > "$TMP/gpu.txt" 2> "$TMP/err"; rc=$?
check gpu-estimate-report bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^  [0-9]' '$TMP/gpu.txt') -eq 16 ] &&
  grep -q '^  inference forward [0-9.]* ms; training forward [0-9.]* ms, step' '$TMP/gpu.txt' &&
  [ \"\$(grep _vertex '$TMP/gpu.txt' | grep -c ' $ci_want ')\" -eq 4 ] && ! grep -q ' [0-9.]*% ' <(grep -v ' $ci_want ' '$TMP/gpu.txt')"
# A graph with as many edges as vertices (a permutation: every source distinct) still has gathered
# rows, all missing the L2 once: kstats tells a walk's scope by what it is, not by |E| != |V|.
"$PY" -c "
print('# 1000 vertices, 1000 edges')
for i in range(1000): print(i, (7 * i + 1) % 1000)" > "$TMP/perm.edges"
"$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph "$TMP/perm.edges" > "$TMP/gpu-perm.txt" 2> "$TMP/err"; rc=$?
check gpu-estimate-e-equals-v bash -c "[ $rc -eq 0 ] && [ \$(grep _vertex '$TMP/gpu-perm.txt' | grep -c ' 100.0% ') -eq 4 ]"
if "$ROOT/build/bench/gen_graph" convert data/cora -o "$TMP/cora.gcsr" > /dev/null 2>&1; then
  "$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph "$TMP/cora.gcsr" > "$TMP/gpu2.txt" 2>&1
  check gpu-estimate-gcsr bash -c "cmp -s <(tail -n +2 '$TMP/gpu.txt') <(tail -n +2 '$TMP/gpu2.txt')"
  head -c 100 "$TMP/cora.gcsr" > "$TMP/cut.gcsr"
  "$GNNC" dsl-examples/gcn.gnn --gpu=h100 --graph "$TMP/cut.gcsr" > /dev/null 2> "$TMP/err"; rc=$?
  check gpu-estimate-truncated bash -c "[ $rc -eq 1 ] && grep -q 'cut.gcsr: truncated graph cache' '$TMP/err'"
else
  fail cli/gpu-estimate-gcsr "build/bench/gen_graph convert failed$([ -x "$ROOT/build/bench/gen_graph" ] || echo ": build/bench/gen_graph is missing (make test builds it; make build/bench/gen_graph alone)")"
fi
# --tile-columns=auto: the estimate chooses each walk's column tiles on the graph. 250,000 vertices
# and 1.25 M edges (gen_graph powerlaw): GAT's 256 gathered columns (1 KB rows, 256 MB) overflow the
# L2, and both its 256-wide walks go to 4 tiles of 64 (a note each); the 41-wide ones stay whole,
# without a note. The kernel IR is then what --tile-columns=64 gives; the report prices the tiled
# kernels as compiled. Without --gpu and --graph, and with a bad count: exit 2.
if "$ROOT/build/bench/gen_graph" powerlaw --vertices 250000 --edges 1000000 --max-degree 100 --seed 1 -o "$TMP/pl250k.gcsr" > /dev/null 2>&1; then
  "$GNNC" bench/peers/gat_reddit.gnn --tile-columns=auto --gpu=h200 --graph "$TMP/pl250k.gcsr" --emit=kir -o "$TMP/auto.kir" \
    > "$TMP/auto.txt" 2> "$TMP/auto.err"; rc=$?
  "$GNNC" bench/peers/gat_reddit.gnn --tile-columns=64 --emit=kir -o "$TMP/t64.kir" > /dev/null 2>&1
  "$GNNC" bench/peers/gat_reddit.gnn --gpu=h200 --graph "$TMP/pl250k.gcsr" > "$TMP/whole.txt" 2> /dev/null
  check tile-columns-auto bash -c "[ $rc -eq 0 ] && [ \$(grep -c 'note: kernel k[0-9]*_[a-z0-9_]* in 4 column tiles of 64 (--tile-columns=auto): the h200 estimate on ' '$TMP/auto.err') -eq 2 ] &&
    ! grep -q 'whole although' '$TMP/auto.err' && [ \$(grep -c ' 4, compiled\$' '$TMP/auto.txt') -eq 2 ] && cmp -s '$TMP/auto.kir' '$TMP/t64.kir'"
  # every kernel it cut is faster, as compiled, than the same step whole (est. ms: field 13 of a
  # row with a miss rate)
  check tile-columns-auto-faster awk 'FNR == NR { if ($1 ~ /^[0-9]+$/ && $8 ~ /%$/) whole[$1] = $13; next }
    $1 ~ /^[0-9]+$/ && $NF == "compiled" { n++; if (!($13 < 0.95 * whole[$1])) bad++ } END { exit !(n == 2 && !bad) }' \
    "$TMP/whole.txt" "$TMP/auto.txt"
else
  fail cli/tile-columns-auto "build/bench/gen_graph powerlaw failed$([ -x "$ROOT/build/bench/gen_graph" ] || echo ": build/bench/gen_graph is missing (make test builds it; make build/bench/gen_graph alone)")"
fi
"$GNNC" dsl-examples/gat.gnn --tile-columns=auto -o "$TMP/x.so" > /dev/null 2> "$TMP/err"; rc=$?
"$GNNC" dsl-examples/gat.gnn --tile-columns=0 > /dev/null 2> "$TMP/err2"; rc2=$?
check tile-columns-bad bash -c "[ $rc -eq 2 ] && grep -q 'tile-columns=auto chooses by the GPU estimate on a graph: add --gpu' '$TMP/err' &&
  [ $rc2 -eq 2 ] && grep -q 'tile-columns wants a column count from 1 to 4096, or auto' '$TMP/err2'"
# --gemm-precision: fp32 (default) or tf32; the GPU estimate prices a TF32 GEMM at the tensor cores'
# rate (gpucost.c): GAT's first GEMM on Cora (2,708 x 1,433 x 80, the folded dots beside W) is
# FLOP-bound in float32, so faster in TF32, and no step is slower
"$GNNC" dsl-examples/gcn.gnn --gemm-precision=bf16 > /dev/null 2> "$TMP/err"; rc=$?
check gemm-precision-bad bash -c "[ $rc -eq 2 ] && grep -q \"gnnc: --gemm-precision wants fp32 or tf32, got 'bf16'\" '$TMP/err'"
"$GNNC" dsl-examples/gat.gnn --gpu=h200 --graph data/cora > "$TMP/est32.txt" 2>&1
"$GNNC" dsl-examples/gat.gnn --gemm-precision=tf32 --gpu=h200 --graph data/cora > "$TMP/esttf.txt" 2>&1
check gemm-precision-estimate bash -c "paste -d'|' <(grep -E '^  [0-9]+ ' '$TMP/est32.txt') <(grep -E '^  [0-9]+ ' '$TMP/esttf.txt') |
  awk -F'|' '{ split(\$1, a, \" +\"); split(\$2, b, \" +\"); if (b[length(b)] > a[length(a)] + 1e-9) bad = 1; if (a[4] == \"gemm\" && a[length(a)] > b[length(b)] + 1e-9) faster = 1; n++ }
    END { exit !(n > 5 && !bad && faster) }'"
# --dots: spread (the CUDA default) or serial (the host's); anything else is refused
"$GNNC" dsl-examples/gat.gnn --dots=warp > /dev/null 2> "$TMP/err"; rc=$?
check dots-bad bash -c "[ $rc -eq 2 ] && grep -q \"gnnc: --dots wants spread or serial, got 'warp'\" '$TMP/err'"
# --vector-loads: 4 or off; a vector of 8 floats (256 bits) is refused: CUDA loads at most 128
"$GNNC" dsl-examples/gcn.gnn --vector-loads=8 > /dev/null 2> "$TMP/err"; rc=$?
check vector-loads-bad bash -c "[ $rc -eq 2 ] && grep -q \"gnnc: --vector-loads wants off or 4, got '8'\" '$TMP/err'"
# --spmm: fused (default) or cusparse; anything else is refused. The estimate prices an SpMM step
# at its bytes (the gathered rows through the simulated L2) and its launches: GCN on Cora has four
# (two forward over in-edges, two backward over out-edges), each named spmm in the table
"$GNNC" dsl-examples/gcn.gnn --spmm=csr > /dev/null 2> "$TMP/err"; rc=$?
check spmm-bad bash -c "[ $rc -eq 2 ] && grep -q \"gnnc: --spmm wants fused or cusparse, got 'csr'\" '$TMP/err'"
# unfused (-fno-fuse), the flag has nothing to choose from: a note says so, and no step is an SpMM
"$GNNC" dsl-examples/gcn.gnn --spmm=cusparse -fno-fuse --emit=kir > "$TMP/unf.kir" 2> "$TMP/err"; rc=$?
check spmm-unfused bash -c "[ $rc -eq 0 ] && grep -q 'note: --spmm=cusparse: the module is not fused (-fno-fuse, -O0, or graph-level values), so its sums stay kernels of their own' '$TMP/err' &&
  ! grep -q ' spmm ' '$TMP/unf.kir' && ! \"$GNNC\" dsl-examples/gcn.gnn --spmm=cusparse --emit=kir 2>&1 >/dev/null | grep -q 'not fused'"
"$GNNC" dsl-examples/gcn.gnn --spmm=cusparse --gpu=h200 --graph data/cora > "$TMP/estsp.txt" 2>&1
check spmm-estimate bash -c "[ \$(grep -cE '^  [0-9]+ +forward +spmm ' '$TMP/estsp.txt') -eq 2 ] && [ \$(grep -cE '^  [0-9]+ +backward +spmm ' '$TMP/estsp.txt') -eq 2 ] &&
  grep -E '^  [0-9]+ +forward +spmm ' '$TMP/estsp.txt' | awk '{ if (\$NF <= 0.005) bad = 1 } END { exit bad }'"
# The estimate's terms (compiler/gpucost.c, docs/benchmarks.md "GPU estimate"). The whole table
# is a golden: any change of a term, a constant or a column shows (UPDATE=1 rewrites it, with the
# benchmark table in docs/benchmarks.md to redo). A second run gives the same bytes.
sed "s|$TMP/|TMP/|g" "$TMP/gpu.txt" > "$TMP/gpu-golden.txt"
expect_same cli/gpu-estimate-golden tests/cli/gpu_gcn_cora.h200.txt "$TMP/gpu-golden.txt"
"$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph data/cora > "$TMP/gpu-again.txt" 2>&1
check gpu-estimate-deterministic cmp -s "$TMP/gpu.txt" "$TMP/gpu-again.txt"
# Every step is a launch (5 us) plus the larger of its bytes' time and its chains' latency, so the
# forward costs at least its launches; the terms line adds up to the forward.
check gpu-estimate-step-terms awk '$1 ~ /^[0-9]+$/ && ($2 == "forward" || $2 == "backward") {
    n++; b = $(NF - 4 - ($NF ~ /\)$/ ? 3 : 0)); l = $(NF - 3 - ($NF ~ /\)$/ ? 3 : 0)); t = $(NF - ($NF ~ /\)$/ ? 3 : 0))
    m = b > l ? b : l; if (t < 0.005 || t - 0.005 - m > 0.0015 || t - 0.005 - m < -0.0015) bad++ }
  END { exit !(n == 15 && bad == 0) }' "$TMP/gpu.txt"
check gpu-estimate-launch-floor awk '/^  inference forward / { f = $3 }
  /^  the inference forward.s terms: / { n = $5; l = $7; lat = $11; span = $17; by = $21 }
  END { exit !(n >= 1 && f >= n * 0.005 - 1e-9 && (l - n * 0.005) ^ 2 < 1e-9 && ((l + lat + by) - f) ^ 2 < 4e-6 && span <= lat + 1e-9) }' "$TMP/gpu.txt"
# One hub row against the same edges spread: 1,001 vertices, 1,000 edges, every source distinct
# in both (the same bytes and L2 misses), but in the first all 1,000 edges enter vertex 0, which
# one group walks alone: its span sets the walks' time (bound "row"), over 50 times the spread
# graph's (whose longest chain is a few loads), and twice the hub's edges take about twice that
# span (the edges of a row are walked one after another).
for n in 1000 2000; do
  "$PY" -c "
import sys
n = int(sys.argv[1])
print('# %d vertices, %d edges: one hub' % (n + 1, n))
for i in range(1, n + 1): print(i, 0)" $n > "$TMP/hub$n.edges"
done
"$PY" -c "
print('# 1001 vertices, 1000 edges, in-degree 1')
for i in range(1, 1001): print(i, i - 1)" > "$TMP/spread.edges"
for g in hub1000 hub2000 spread; do
  "$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph "$TMP/$g.edges" > "$TMP/gpu-$g.txt" 2> "$TMP/err"
  # the forward's walks over in-edges (those with gathered rows): DRAM bytes, latency ms, bound
  awk '$2 == "forward" && $3 ~ /_vertex$/ && $8 ~ /%$/ { print $4 $5, $10, $11 }' "$TMP/gpu-$g.txt" > "$TMP/walks-$g.txt"
  sed -n 's/^  inference forward \([0-9.]*\) ms;.*/\1/p' "$TMP/gpu-$g.txt" > "$TMP/fwd-$g.txt"
done
check gpu-estimate-hub-costs-more bash -c "[ -s '$TMP/walks-hub1000.txt' ] &&
  cmp -s <(cut -d' ' -f1 '$TMP/walks-hub1000.txt') <(cut -d' ' -f1 '$TMP/walks-spread.txt') &&
  ! grep -qv ' row\$' '$TMP/walks-hub1000.txt' &&
  paste -d' ' '$TMP/walks-hub1000.txt' '$TMP/walks-spread.txt' | awk '{ n++; if (!(\$2 > 50 * \$5)) bad++ } END { exit !(n >= 1 && bad == 0) }' &&
  awk -v h=\$(cat '$TMP/fwd-hub1000.txt') -v s=\$(cat '$TMP/fwd-spread.txt') 'BEGIN { exit !(h > s + 0.1) }'"
check gpu-estimate-hub-span-linear bash -c "paste -d' ' '$TMP/walks-hub1000.txt' '$TMP/walks-hub2000.txt' |
  awk '{ n++; r = \$5 / \$2; if (r < 1.9 || r > 2.05) bad++ } END { exit !(n >= 1 && bad == 0) }'"
# Many short rows and no hub (50,000 vertices of in-degree 4): the chains summed over the rows,
# over the groups the GPU holds at once, outlast any one row's chain: the walks are work-bound.
"$PY" -c "
n = 50000
print('# %d vertices, %d edges: in-degree 4 each' % (n, 4 * n))
for v in range(n):
  for k in (1, 7, 31, 127): print((v * 7919 + k * 104729) % n, v)" > "$TMP/regular.edges"
"$GNNC" dsl-examples/gcn.gnn --gpu=h200 --graph "$TMP/regular.edges" > "$TMP/gpu-regular.txt" 2> "$TMP/err"
awk '$2 == "forward" && $3 ~ /_vertex$/ && $8 ~ /%$/ { print $4 $5, $10, $11 }' "$TMP/gpu-regular.txt" > "$TMP/walks-regular.txt"
check gpu-estimate-work-bound bash -c "[ \$(wc -l < '$TMP/walks-regular.txt') -eq 2 ] && ! grep -qv ' groups\$' '$TMP/walks-regular.txt'"
"$GNNC" dsl-examples/gcn.gnn --gpu=h300 --graph data/cora > /dev/null 2> "$TMP/err"; rc=$?
check gpu-estimate-unknown bash -c "[ $rc -eq 2 ] && grep -q -- '--gpu wants one of h100, h200' '$TMP/err'"
"$GNNC" dsl-examples/gcn.gnn --gpu=h100 > /dev/null 2> "$TMP/err"; rc=$?
check gpu-estimate-no-graph bash -c "[ $rc -eq 2 ] && grep -q -- 'add --graph FILE' '$TMP/err'"
"$GNNC" dsl-examples/gcn.gnn --graph data/cora > /dev/null 2> "$TMP/err"; rc=$?
check gpu-estimate-graph-alone bash -c "[ $rc -eq 2 ] && grep -q -- 'is for --gpu' '$TMP/err'"
"$GNNC" dsl-examples/gcn.gnn --gpu=h100 --graph "$TMP/no-such-graph" > /dev/null 2> "$TMP/err"; rc=$?
check gpu-estimate-bad-graph bash -c "[ $rc -eq 1 ] && grep -q 'no-such-graph' '$TMP/err'"
unset ci_want

# ---- gnn-compare (runtime/gnn_compare.c): the measure every numeric check uses. Within and
# beyond --tol; a tensor missing, misshapen or not finite (in either file) fails (exit 1, a line each); an
# unreadable file is exit 2 with its name; --names picks tensors; the checksum line is skipped.
cmp_bin=$ROOT/build/bin/gnn-compare
printf '%s\n' 'tensor a 2 1 3' '1 2 3 4 5 6' 'tensor b 1 2 2 2' '0 0 0 0' 'tensor c 3 0' '1e-17 -2e-17 0' > "$TMP/cmp.ref"
printf '%s\n' '#gnn-tensors version 2 bytes 10 fnv1a64 0000000000000000' 'tensor a 2 1 3' '1.000001 2 3 4 5 6' \
  'tensor b 1 2 2 2' '0 0 0 0' 'tensor c 3 0' '1e-17 -2e-17 0' > "$TMP/cmp.close"
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/within bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^ok   ' '$TMP/cmp.out') -eq 3 ] &&
  grep -q '^ok   a: max err 1e-06 (relative, floor 0.6), plain relative 1e-06, normwise 1.67e-07; worst element 0: got 1.000001 ref 1\$' '$TMP/cmp.out'"
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --tol 1e-7 > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/beyond bash -c "[ $rc -eq 1 ] && grep -q '^FAIL a: max err 1e-06' '$TMP/cmp.out' && grep -q '^ok   b: ' '$TMP/cmp.out'"
# (a's last element 0.12 off: 0.02 of itself; c holds a NaN)
printf '%s\n' 'tensor a 2 1 3' '1 2 3 4 5 6.12' 'tensor b 1 2 2 2' '0 0 0 0' 'tensor c 3 0' '1e-17 nan 0' > "$TMP/cmp.bad"
"$cmp_bin" "$TMP/cmp.bad" "$TMP/cmp.ref" --tol 0.1 > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/non-finite bash -c "[ $rc -eq 1 ] && grep -q '^ok   a: max err 0.02 ' '$TMP/cmp.out' && grep -q '^FAIL c: 1 non-finite values\$' '$TMP/cmp.out'"
# a NaN or infinity in the reference measures nothing: a failure (a NaN element compared false
# with everything, so it counted as agreeing whatever the library held)
printf '%s\n' 'tensor a 2 1 3' '1 nan 3 4 5 6' 'tensor b 1 2 2 2' '0 0 inf 0' > "$TMP/cmp.refnan"
printf '%s\n' 'tensor a 2 1 3' '1 1e30 3 4 5 6' 'tensor b 1 2 2 2' '0 0 1 0' > "$TMP/cmp.gotbig"
"$cmp_bin" "$TMP/cmp.gotbig" "$TMP/cmp.refnan" > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/non-finite-reference bash -c "[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/cmp.out') -eq 2 ] &&
  grep -qF 'FAIL a: 1 non-finite values in the reference ($TMP/cmp.refnan): nothing to compare them with' '$TMP/cmp.out' &&
  grep -q '^FAIL b: 1 non-finite values in the reference' '$TMP/cmp.out'"
printf '%s\n' 'tensor a 3 1 2' '1 2 3 4 5 6' > "$TMP/cmp.shape"
"$cmp_bin" "$TMP/cmp.shape" "$TMP/cmp.ref" > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/shape-and-missing bash -c "[ $rc -eq 1 ] && grep -q '^FAIL a: shape (3, (2,)), reference (2, (3,))\$' '$TMP/cmp.out' &&
  grep -q \"^FAIL b: not in $TMP/cmp.shape\\\$\" '$TMP/cmp.out' && [ \$(wc -l < '$TMP/cmp.out') -eq 3 ]"
"$cmp_bin" "$TMP/cmp.shape" "$TMP/cmp.ref" --names b > "$TMP/cmp.out" 2>&1; rc=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --names c,a > "$TMP/cmp.out2" 2>&1; rc2=$?
check gnn-compare/names bash -c "[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/cmp.out') -eq 1 ] && [ $rc2 -eq 0 ] &&
  [ \"\$(cut -c1-7 '$TMP/cmp.out2' | tr '\n' ' ')\" = 'ok   c: ok   a: ' ]"
printf '%s\n' 'tensor a 2 1 3' '1 2 3 4 5' > "$TMP/cmp.trunc"
"$cmp_bin" "$TMP/cmp.trunc" "$TMP/cmp.ref" > "$TMP/cmp.out" 2>&1; rc=$?
"$cmp_bin" "$TMP/cmp.ref" "$TMP/no-such-file" > "$TMP/cmp.out2" 2>&1; rc2=$?
"$cmp_bin" "$TMP/cmp.ref" > /dev/null 2>&1; rc3=$?
check gnn-compare/unreadable bash -c "[ $rc -eq 2 ] && grep -q 'cmp.trunc: tensor a is truncated (5 of 6 values)' '$TMP/cmp.out' &&
  [ $rc2 -eq 2 ] && grep -q 'no-such-file: No such file or directory' '$TMP/cmp.out2' && [ $rc3 -eq 2 ]"
# a NUL byte would hide what follows it (exit 2); an empty --names item is a tensor neither file
# has (a failure, not nothing compared); an option given twice is refused
{ printf 'tensor a 2 1 3\n1 2 3 4 5 6\n'; printf '\0'; printf 'tensor b 1 2 2 2\n9 9 9 9\n'; } > "$TMP/cmp.nul"
"$cmp_bin" "$TMP/cmp.ref" "$TMP/cmp.nul" > "$TMP/cmp.out" 2>&1; rc=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --names a, > "$TMP/cmp.out2" 2>&1; rc2=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --tol 1 --tol 1e-9 > /dev/null 2> "$TMP/cmp.err"; rc3=$?
check gnn-compare/refusals bash -c "[ $rc -eq 2 ] && grep -q 'cmp.nul: a NUL byte' '$TMP/cmp.out' &&
  [ $rc2 -eq 1 ] && grep -q '^ok   a: ' '$TMP/cmp.out2' && grep -q '^FAIL : not in ' '$TMP/cmp.out2' &&
  [ $rc3 -eq 2 ] && grep -q -- '--tol given twice' '$TMP/cmp.err'"
# a REF with no tensor compares nothing: a failure (exit 0 before, for /dev/null or an empty
# file); a tolerance that is not a finite number >= 0 is refused (--tol nan failed every tensor,
# --tol inf passed every one); --help is the usage on stdout
: > "$TMP/cmp.empty"
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.empty" > "$TMP/cmp.out" 2>&1; rc=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --tol nan > /dev/null 2> "$TMP/cmp.err"; rc2=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --file-floor -1 > /dev/null 2>> "$TMP/cmp.err"; rc3=$?
"$cmp_bin" "$TMP/cmp.close" "$TMP/cmp.ref" --tol inf > /dev/null 2>> "$TMP/cmp.err"; rc4=$?
"$cmp_bin" --help > "$TMP/cmp.help" 2>&1; rc5=$?
check gnn-compare/nothing-compared bash -c "[ $rc -eq 1 ] && grep -qxF 'FAIL $TMP/cmp.empty holds no tensor: nothing to compare' '$TMP/cmp.out' &&
  [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] && [ $rc4 -eq 2 ] && [ \$(grep -c 'wants a finite number at least 0' '$TMP/cmp.err') -eq 3 ] &&
  [ $rc5 -eq 0 ] && grep -q '^usage: gnn-compare GOT REF' '$TMP/cmp.help'"
# an infinity in a tensor not compared (--names) no longer makes the file's floor infinite: the
# compared tensor was then within any tolerance whatever GOT held
printf '%s\n' 'tensor a 1 1 2' '1 2' 'tensor z 1 1 1' 'inf' > "$TMP/cmp.refinf"
printf '%s\n' 'tensor a 1 1 2' '50 -70' > "$TMP/cmp.gotfar"
"$cmp_bin" "$TMP/cmp.gotfar" "$TMP/cmp.refinf" --names a --file-floor 0.1 > "$TMP/cmp.out" 2>&1; rc=$?
check gnn-compare/inf-elsewhere bash -c "[ $rc -eq 1 ] && grep -q '^FAIL a: max err ' '$TMP/cmp.out'"
unset cmp_bin rc2 rc3 rc4 rc5

# ---- gnn-run --save-inputs: the inputs it read or drew are the interpreter's (gnnc run
# --save-inputs, same seed and graph), each within float32's rounding of the float64 value
# (1e-7; a draw from another stream, or a row out of order, is O(1) off). Every numeric check of
# the codegen, lang and fuse suites leans on this draw (both sides from --seed, no files): the
# features of a folder (GCN on Cora), drawn vertex inputs (an edge list, no features), an edge
# input drawn and one from the graph's edge values (R-GCN's relations), a graph input (GIN's
# readout on a batch).
"$PY" tests/train/make_relational.py "$TMP/rel" > /dev/null 2>&1
for si_case in dsl-examples/gcn.gnn:data/cora tests/interp/models/gat.gnn:tests/interp/graphs/random/graph.edges \
               tests/grad/input_grads.gnn:tests/interp/graphs/random/graph.edges dsl-examples/rgcn.gnn:"$TMP/rel" \
               tests/grad/input_graph.gnn:tests/interp/graphs/batch; do
  si_m=${si_case%%:*} si_g=${si_case#*:}
  si_name=gnn-run-save-inputs/$(basename "$si_m" .gnn)
  if si_out=$("$GNNC" "$si_m" --target=host -o "$TMP/si.so" 2>&1) &&
     si_out=$("$GNNC" run "$si_m" --graph "$si_g" --seed 17 --save-inputs "$TMP/si.ref" 2>&1) &&
     si_out=$("$ROOT/build/bin/gnn-run" "$TMP/si.so" --graph "$si_g" --seed 17 --save-inputs "$TMP/si.got" --repeat 1 --warmup 0 2>&1) &&
     si_names=$(awk '/^tensor / && $2 != "grad.out" { printf "%s%s", n++ ? "," : "", $2 }' "$TMP/si.ref") && [ -n "$si_names" ] &&
     si_out=$("$ROOT/build/bin/gnn-compare" "$TMP/si.got" "$TMP/si.ref" --tol 1e-7 --names "$si_names" 2>&1); then
    pass "cli/$si_name"
  else
    fail "cli/$si_name" "$(printf '%s\n' "$si_out" | tail -n 3 | tr '\n' ' ')"
  fi
  rm -f "$TMP"/si.*
done
unset si_case si_m si_g si_name si_out si_names
# With --backward both write the backward's seed grad.out too (gnn-run wrote none), drawn alike:
# in [-1, 1) for an edge output as for a vertex one (the interpreter drew an edge output's in
# [0, 1), as an edge input's, so the two backwards' gradients disagreed: helper-49). The model
# returns an edge value; its gradient grad.W agrees too.
printf 'model T(x: vertex[8]) -> edge[2] {\n  param W: [8, 2]\n  h = W @ x\n  return edge_softmax(h[src] + h[dst]) * out_deg[src]\n}\n' > "$TMP/si_edge.gnn"
si_g=tests/interp/graphs/random/graph.edges
if si_out=$("$GNNC" "$TMP/si_edge.gnn" --target=host -o "$TMP/si.so" 2>&1) &&
   si_out=$("$GNNC" run "$TMP/si_edge.gnn" --graph $si_g --seed 17 --backward --save-inputs "$TMP/si.ref" --save-outputs "$TMP/si.refo" 2>&1) &&
   si_out=$("$ROOT/build/bin/gnn-run" "$TMP/si.so" --graph $si_g --seed 17 --backward --save-inputs "$TMP/si.got" --save-grads "$TMP/si.gotg" --repeat 1 --warmup 0 2>&1); then
  # the backward's two times say what they are: the first backward one cold run (it said "time of
  # one backward", and was quoted as a steady-state figure), the training step a median
  si_run=$si_out
  if grep -q '^time of the first backward: [0-9.]* ms (one cold run; the training step below is the median)$' <<< "$si_run" &&
     grep -q '^time per training step: [0-9.]* ms (.*median of 1 after 0 warm-up)$' <<< "$si_run"; then pass cli/gnn-run-backward-times-labelled
  else fail cli/gnn-run-backward-times-labelled "$(grep '^time' <<< "$si_run" | tr '\n' ' ')"; fi
  if si_out=$("$ROOT/build/bin/gnn-compare" "$TMP/si.got" "$TMP/si.ref" --tol 1e-7 --names x,grad.out 2>&1) &&
     awk '$1 == "tensor" && $2 == "grad.out" && $3 > 0 { f = 1 } END { exit !f }' "$TMP/si.got"; then pass cli/gnn-run-save-inputs/backward-seed
  else fail cli/gnn-run-save-inputs/backward-seed "$(printf '%s\n' "$si_out" | tail -n 3 | tr '\n' ' ')"; fi
  if si_out=$("$ROOT/build/bin/gnn-compare" "$TMP/si.gotg" "$TMP/si.refo" --tol 1e-4 --names grad.W 2>&1); then pass cli/backward-edge-output-agrees
  else fail cli/backward-edge-output-agrees "$(printf '%s\n' "$si_out" | tail -n 3 | tr '\n' ' ')"; fi
else
  fail cli/gnn-run-save-inputs/backward-seed "$(printf '%s\n' "$si_out" | tail -n 3 | tr '\n' ' ')"
fi
rm -f "$TMP"/si.* "$TMP/si_edge.gnn"
