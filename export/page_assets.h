// The page's stylesheet (export/page/page.css) and script (export/page/*.js,
// joined in one function), compiled in by export/CMakeLists.txt so a page
// needs nothing but the kprof binary.
#pragma once

namespace kprof {

extern const char* const kPageCss;
extern const char* const kPageJs;

}  // namespace kprof
