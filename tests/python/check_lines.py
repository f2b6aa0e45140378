"""tests/python/check_lines.py -- the verdict lines every Python test prints: "ok NAME" or
"FAIL NAME: detail", which tests/suites/python.sh counts (report_lines), and the count of
failures a test's exit status comes from (`return 1 if check_lines.failures else 0`)."""

failures = 0


def check(ok, name, detail=""):
    """One verdict line, flushed: a test that dies later (a crash in the library under test) still
    shows every line before it."""
    global failures
    print(("ok %s" % name) if ok else ("FAIL %s: %s" % (name, detail)), flush=True)
    failures += 0 if ok else 1
