// C source compiled by the system's C compiler into a shared object, cached on disk and loaded
// with dlopen: the facility behind in-process evaluation at the speed of generated code (JIT).
//
// The shared object is named by a key, the SHA-256 of the compiler's identity (its resolved path
// and its `--version` output), the flags and either the source itself or, when its generator can
// say it without writing the code, what determines the source (its content: for a model, a
// canonical description of it, the values that become code and the generator's version; see
// jit::compile_dynamics). So the same code compiled by the same compiler is compiled once per
// machine and loaded from the cache afterwards, by a key of its content without generating it.
//
// A cached object is code that runs as whoever loads it, so the cache is private and checked
// before anything in it runs (docs/security.md, "The JIT cache"): the cache folder and its jit/
// are created 0700 and refused when another user owns them or group or others may write in them;
// files are created with O_CREAT | O_EXCL | O_NOFOLLOW under temporary names that carry the pid
// and renamed into place (rename is atomic within a folder: two processes compiling the same key
// at once both succeed and nobody ever loads a half-written file); beside each `<key>.so` its
// `<key>.sha256` records the key and the object's SHA-256, and an object is loaded only when
// it is a regular file of ours, not writable by others, whose bytes have that hash (read
// through a descriptor opened without following a link and without blocking, before dlopen()).
// The compiled unit also carries its key (a function `appell_native_key`), compared after
// loading. An entry that fails any of this is compiled again and replaced.
//
// The compiler runs by fork and exec with an argument vector (never a shell command line built
// from text), in its own process group, so that a timeout or SIGINT/SIGTERM (recorded by
// num::install_interruption_handlers: then num::Interrupted is thrown) kills it and whatever it
// started; on Linux it is also killed when appell dies (PR_SET_PDEATHSIG), and the temporary
// files of processes that no longer exist are removed by the next load.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace appell::num {

/// Compiling or loading failed: no compiler, a compile error (what() holds the compiler's
/// messages), a timeout, an unwritable cache or one that is not private (another user's, or
/// writable by others), a symbol missing. Callers fall back to the tape.
class NativeCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How native code is compiled and where it is kept.
struct NativeCompilerOptions {
  /// The compiler command, split at blanks into program and leading arguments ("ccache cc");
  /// empty: $CC, else "cc". The program is looked up on PATH unless it contains a '/'.
  std::string compiler;
  /// Flags before the output and the source; the key depends on them.
  std::vector<std::string> flags{"-O2", "-fPIC", "-shared"};
  /// Where the shared objects are kept; empty: default_cache_directory().
  std::filesystem::path cache_directory;
  /// The compiler is killed (with its process group) after this long.
  std::chrono::seconds timeout{300};
};

/// $APPELL_CACHE_DIR, else $XDG_CACHE_HOME/appell, else $HOME/.cache/appell (shared objects go to
/// its subfolder jit/). Throws NativeCompileError when none of these variables is set.
std::filesystem::path default_cache_directory();

/// A loaded shared object; copies share the handle, which is closed with the last copy (keep one
/// as long as any symbol taken from it is called).
class NativeLibrary {
 public:
  /// The address of an exported function or object; throws NativeCompileError when absent.
  void* symbol(const std::string& name) const;
  const std::filesystem::path& path() const { return path_; }
  const std::string& key() const { return key_; }
  /// True when this load compiled the source; false when the cached object was loaded.
  bool compiled_now() const { return compiled_now_; }

 private:
  friend NativeLibrary load_native_library(const std::string&, const NativeCompilerOptions&);
  friend NativeLibrary load_native_library(const std::string&, const std::function<std::string()>&,
                                           const NativeCompilerOptions&);
  std::shared_ptr<void> handle_;
  std::filesystem::path path_;
  std::string key_;
  bool compiled_now_ = false;
};

/// The key of `c_source` compiled with `options` (64 hex digits). Runs `COMPILER --version`;
/// throws NativeCompileError when the compiler is not found.
std::string native_library_key(const std::string& c_source, const NativeCompilerOptions& options);

/// Loads the shared object of `c_source` from the cache, compiling it first when it is absent,
/// fails its checks (see above), does not load, or is not the one for this key. The source is C
/// (compiled with -lm), and must not define `appell_native_key`. Throws NativeCompileError (see
/// there), and Interrupted when SIGINT or SIGTERM is recorded while the compiler runs (the
/// compiler is killed and the temporary files removed first).
NativeLibrary load_native_library(const std::string& c_source,
                                  const NativeCompilerOptions& options = {});

/// The key of the code described by `content` compiled with `options` (64 hex digits, never
/// equal to a key of native_library_key()). `content` must determine the code completely: two
/// contents that are equal must always generate the same code. Throws as native_library_key().
std::string native_content_key(const std::string& content, const NativeCompilerOptions& options);

/// The shared object of the code that `generate()` returns, cached under the key of `content`
/// (native_content_key): loaded from the cache, with every check above, without calling
/// `generate` when it is there; otherwise `generate` is called, and its code compiled, stored and
/// loaded as load_native_library(c_source) does. Throws as that, and whatever `generate` throws.
NativeLibrary load_native_library(const std::string& content,
                                  const std::function<std::string()>& generate,
                                  const NativeCompilerOptions& options = {});

/// SHA-256 of `data` as 64 lowercase hex digits (FIPS 180-4).
std::string sha256_hex(const std::string& data);

}  // namespace appell::num
