#include "core/shared_library.h"

#include <dlfcn.h>

#include "core/error.h"

namespace kprof {

SharedLibrary::SharedLibrary(const std::string& soname, const std::string& fix)
    : handle_(::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)), soname_(soname) {
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    throw Error("cannot load " + soname + " (" + (why ? why : "unknown reason") + "): " + fix);
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* SharedLibrary::address(const char* name) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name);
  if (p == nullptr) {
    throw Error(soname_ + " has no " + name + ": another version than kprof was built with");
  }
  return p;
}

}  // namespace kprof
