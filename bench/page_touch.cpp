// What the first read of a mapped file's pages costs (the reason the
// perf.data walk has a page toucher: importer/record_order.h). Maps FILE
// with MAP_POPULATE, as MappedFile does, then walks its perf records' headers
// from the start: alone, and with a second thread reading one byte a page
// of the second half meanwhile. Each in a fresh mapping; medians of RUNS.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

double walk_ms(int fd, size_t size, bool toucher) {
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (map == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  const auto* p = static_cast<const uint8_t*>(map);
  const auto t0 = std::chrono::steady_clock::now();
  std::thread other;
  if (toucher) {
    other = std::thread([p, size] {
      const volatile uint8_t* v = p;
      for (size_t i = size / 2; i < size; i += 4096) (void)v[i];
    });
  }
  uint64_t sum = 0;
  for (size_t pos = 0; pos + 8 <= size;) {
    uint16_t rec;
    std::memcpy(&rec, p + pos + 6, 2);
    sum += p[pos];
    pos += std::max<uint16_t>(rec, 8);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (other.joinable()) other.join();
  ::munmap(map, size);
  if (sum == 1) std::puts("");  // keeps the walk
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PERF.DATA [RUNS]\n", argv[0]);
    return 2;
  }
  const int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size <= 0) {
    std::perror(argv[1]);
    return 1;
  }
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  std::vector<double> alone, with;
  for (int i = 0; i < runs; ++i) {
    alone.push_back(walk_ms(fd, static_cast<size_t>(st.st_size), false));
    with.push_back(walk_ms(fd, static_cast<size_t>(st.st_size), true));
  }
  const double pages = static_cast<double>(st.st_size) / 4096;
  std::printf(
      "%s: %.0f pages; header walk alone %.1f ms (%.2f us a page), with a toucher on "
      "the second half %.1f ms; medians of %d\n",
      argv[1], pages, median(alone), median(alone) * 1000 / pages, median(with), runs);
  ::close(fd);
}
