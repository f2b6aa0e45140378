# build.sh -- the compiler builds warning-free (-Wall -Wextra -Werror) with both gcc and clang.
for cc in gcc clang; do
  if ! command -v $cc > /dev/null; then fail "build/$cc" "$cc not installed (make setup installs it)"; continue; fi
  if make -s BUILD="$TMP/build-$cc" CC=$cc CFLAGS="-O1 -Werror" > "$TMP/build-$cc.log" 2>&1; then
    pass "build/$cc-werror"
  else
    fail "build/$cc-werror" "$(grep -m3 -E 'warning|error' "$TMP/build-$cc.log")"
  fi
done
