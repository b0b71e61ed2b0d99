// The sanitizer build's default options (docs/development.md), linked into every program of that
// build: the tests, the command line and the fuzz targets. The sanitizer runtimes call these
// functions at start-up; the environment (ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS) is applied
// after them and overrides them.
//
// - Halt at the first report, by abort(): a test that runs the command line sees a signal, never
//   an exit code it might expect (1 or 2), and libFuzzer keeps the input as a crash.
// - Leaks are reported; the suppressions (lsan.supp, beside this file) name only third-party
//   allocations that are kept for the life of the process.

extern "C" {

// The runtime's hooks: declared here (the sanitizer interface headers declare them too) so that
// this file builds without them and -Wmissing-declarations has nothing to say.
const char* __asan_default_options();
const char* __ubsan_default_options();
const char* __lsan_default_options();

const char* __asan_default_options() {
  return "halt_on_error=1:abort_on_error=1:detect_leaks=1:"
         "strict_init_order=1:check_initialization_order=1:print_summary=1";
}

const char* __ubsan_default_options() {
  return "halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1";
}

// print_suppressions=0: the table of suppressions used would follow every program's own output.
const char* __lsan_default_options() {
  return "print_suppressions=0:suppressions=" APPELL_LSAN_SUPPRESSIONS;
}

}  // extern "C"
