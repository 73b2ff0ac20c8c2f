// Replays fuzz inputs through LLVMFuzzerTestOneInput without libFuzzer (any compiler), for the
// corpus replay test: every regular file named on the command line, or inside a directory named
// there (sorted, not recursive), is run once. A failed check in the target traps; the last
// "replay:" line names the input. With --require-execution the run also fails unless the
// inputs made the target execute plans of every dtype (fp32, bf16, int8), so that a corpus
// made stale by a format change cannot pass without checking anything.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" void adaptcore_plan_fuzz_counts(std::uint64_t* out);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  bool require = false;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-execution") == 0) {
      require = true;
      continue;
    }
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s: not a file or directory\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 2;
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
      return 2;
    }
    std::printf("replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::uint64_t c[12] = {};
  adaptcore_plan_fuzz_counts(c);
  const char* names[3] = {"f32", "bf16", "int8"};
  std::printf("replay: %zu inputs, %llu plan files parsed, %llu accepted\n", files.size(),
              static_cast<unsigned long long>(c[0]), static_cast<unsigned long long>(c[1]));
  bool ok = true;
  for (int d = 0; d < 3; ++d) {
    const std::uint64_t* e = c + 2 + 3 * d;
    std::printf("replay: %-4s plans executed: %llu packed B, %llu B in place, %llu dot\n", names[d],
                static_cast<unsigned long long>(e[0]), static_cast<unsigned long long>(e[1]),
                static_cast<unsigned long long>(e[2]));
    if (require && e[0] + e[1] + e[2] == 0) {
      std::printf("replay: FAIL: no %s plan was executed\n", names[d]);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
