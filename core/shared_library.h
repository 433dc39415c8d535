// The one owner of a dlopen()ed library: closes it when it goes (RAII),
// moves, never copies. For the libraries only some commands need (Capstone
// for annotate, libpfm4 for record and events): linked at build time, their
// load-time relocations (~120,000 between them) cost every kprof process
// ~6 ms before main, more than a report of a complete profile takes.
#pragma once

#include <string>
#include <utility>

// A function of such a library: `name` looked up in `lib` (a SharedLibrary),
// or, in a build that links the libraries in (KPROF_DLOPEN=OFF: the demo's
// static kprof, samples/static.cmake, which cannot dlopen), `name` itself;
// there the SharedLibrary member is left out (#ifndef KPROF_LINKED_LIBS).
#ifdef KPROF_LINKED_LIBS
#define KPROF_LIBRARY_FUNCTION(lib, name) (&name)
#else
#define KPROF_LIBRARY_FUNCTION(lib, name) ((lib).symbol<decltype(name)>(#name))
#endif

namespace kprof {

class SharedLibrary {
 public:
  // dlopen(soname) now; throws kprof::Error naming the library, dlerror()
  // and `fix` (how to install it) when it cannot be loaded.
  SharedLibrary(const std::string& soname, const std::string& fix);
  SharedLibrary(SharedLibrary&& o) noexcept
      : handle_(std::exchange(o.handle_, nullptr)), soname_(std::move(o.soname_)) {}
  SharedLibrary& operator=(SharedLibrary&&) = delete;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // The function `name` as `F` (declared by the library's header:
  // symbol<decltype(cs_open)>("cs_open")); throws kprof::Error when the
  // library has no such symbol (another version than the one built against).
  template <class F>
  F* symbol(const char* name) const {
    return reinterpret_cast<F*>(address(name));
  }

 private:
  void* address(const char* name) const;
  void* handle_ = nullptr;
  std::string soname_;
};

}  // namespace kprof
