// SharedLibrary (core/shared_library.h): a library loaded on demand, its
// functions by name, and one clear error for a library or symbol missing.
#include "core/shared_library.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.h"

namespace kprof {
namespace {

TEST(SharedLibrary, FindsAFunctionOfALoadedLibrary) {
  const SharedLibrary libc("libc.so.6", "it is libc");
  auto* abs_fn = libc.symbol<int(int)>("abs");
  ASSERT_NE(abs_fn, nullptr);
  EXPECT_EQ(abs_fn(-7), 7);
  SharedLibrary moved = SharedLibrary("libc.so.6", "it is libc");
  EXPECT_EQ(moved.symbol<int(int)>("abs")(-3), 3) << "a moved library stays loaded";
}

TEST(SharedLibrary, AMissingLibraryOrSymbolIsOneClearError) {
  try {
    const SharedLibrary missing("libkprof-no-such-library.so.9", "apt-get install it");
    FAIL() << "loaded a library that does not exist";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot load libkprof-no-such-library.so.9"), std::string::npos) << what;
    EXPECT_NE(what.find("apt-get install it"), std::string::npos) << what;
  }
  const SharedLibrary libc("libc.so.6", "it is libc");
  try {
    libc.symbol<void()>("kprof_no_such_function");
    FAIL() << "found a function that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libc.so.6 has no kprof_no_such_function"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kprof
