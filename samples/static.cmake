# Included right after project() (cmake -DCMAKE_PROJECT_INCLUDE=samples/static.cmake)
# by the two-kernel demo's static kprof build: find the .a of every library
# (libpfm, and libdw/libelf/libzstd through pkg-config's imported targets)
# and name libdw's own dependencies, which its pkg-config --libs leaves out.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(CMAKE_CXX_STANDARD_LIBRARIES "-lelf -lzstd -llzma -lbz2 -lz -lpthread")
# A static executable cannot dlopen libpfm4 and Capstone: link them in.
set(KPROF_DLOPEN OFF CACHE BOOL "" FORCE)
# Debian ships no libisal.a: zlib's CRC-32 (the same CRC) instead of ISA-L's.
set(KPROF_ISAL OFF CACHE BOOL "" FORCE)
