// A main() for the harnesses where libFuzzer is not available (GCC: the GPU machine has no
// clang): runs every corpus input once, then mutates them at random (bit flips, byte changes,
// inserts, erases, splices, truncations) until the time is up. No coverage feedback, so the
// corpus does not grow; what it keeps of libFuzzer is the contract of the harness and the
// reproducer: each input is written to the artifact file before it runs, so when a sanitizer or a
// device fault aborts the process the input that did it is on disk.
//
//   fuzz_compute_cuda_standalone [-seconds=N] [-seed=S] [-artifact=PATH] CORPUS_DIR_OR_FILE...
//
// Exit status 0 when every execution returned; a crash ends the process with the sanitizer's
// status and leaves PATH (default ./crash-input).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

Input read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Input(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const Input& in) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return;
  if (!in.empty()) std::fwrite(in.data(), 1, in.size(), f);
  std::fclose(f);
}

// One to eight of libFuzzer's simplest mutations, applied to a copy of `base`.
Input mutate(const Input& base, const std::vector<Input>& corpus, std::mt19937_64& rng) {
  Input in = base;
  const auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const size_t steps = 1 + pick(8);
  for (size_t s = 0; s < steps; ++s) {
    switch (pick(7)) {
      case 0:  // flip a bit
        if (!in.empty()) in[pick(in.size())] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1:  // any byte value
        if (!in.empty()) in[pick(in.size())] = static_cast<uint8_t>(rng());
        break;
      case 2:  // an interesting value: the ends of the ranges the harness draws from
        if (!in.empty()) {
          static constexpr uint8_t kValues[] = {0, 1, 2, 7, 8, 15, 16, 127, 128, 254, 255};
          in[pick(in.size())] = kValues[pick(sizeof(kValues))];
        }
        break;
      case 3:  // insert bytes
        if (in.size() < 4096) {
          const size_t at = pick(in.size() + 1), n = 1 + pick(8);
          for (size_t i = 0; i < n; ++i)
            in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng()));
        }
        break;
      case 4:  // erase bytes
        if (in.size() > 1) {
          const size_t at = pick(in.size()), n = 1 + pick(std::min<size_t>(8, in.size() - at));
          in.erase(in.begin() + static_cast<std::ptrdiff_t>(at),
                   in.begin() + static_cast<std::ptrdiff_t>(at + n));
        }
        break;
      case 5: {  // splice a piece of another input in
        const Input& other = corpus[pick(corpus.size())];
        if (!other.empty() && in.size() < 4096) {
          const size_t from = pick(other.size()), n = 1 + pick(other.size() - from);
          const size_t at = pick(in.size() + 1);
          in.insert(in.begin() + static_cast<std::ptrdiff_t>(at),
                    other.begin() + static_cast<std::ptrdiff_t>(from),
                    other.begin() + static_cast<std::ptrdiff_t>(from + n));
        }
        break;
      }
      default:  // truncate
        if (!in.empty()) in.resize(pick(in.size() + 1));
        break;
    }
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 60;
  uint64_t seed = 1;
  std::string artifact = "crash-input";
  std::vector<Input> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("-seconds=", 0) == 0) {
      seconds = std::atof(a.c_str() + 9);
    } else if (a.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(a.c_str() + 6, nullptr, 10);
    } else if (a.rfind("-artifact=", 0) == 0) {
      artifact = a.substr(10);
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) corpus.push_back(read_file(e.path()));
    } else if (std::filesystem::is_regular_file(a)) {
      corpus.push_back(read_file(a));
    } else {
      std::fprintf(stderr, "standalone fuzz: no such corpus or flag: %s\n", a.c_str());
      return 2;
    }
  }
  if (corpus.empty()) corpus.emplace_back();
  LLVMFuzzerInitialize(&argc, &argv);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  unsigned long long execs = 0;
  const auto run = [&](const Input& in) {
    write_file(artifact, in);
    LLVMFuzzerTestOneInput(in.empty() ? nullptr : in.data(), in.size());
    ++execs;
  };
  for (const Input& in : corpus)
    run(in);
  std::printf("standalone fuzz: %zu corpus inputs ran, seed %llu\n", corpus.size(),
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  auto next_report = start + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    run(mutate(corpus[rng() % corpus.size()], corpus, rng));
    if (Clock::now() >= next_report) {
      std::printf("standalone fuzz: %llu executions\n", execs);
      std::fflush(stdout);
      next_report += std::chrono::seconds(30);
    }
  }
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("standalone fuzz: done, %llu executions in %.0f s, no crash\n", execs, took);
  std::remove(artifact.c_str());
  return 0;
}
