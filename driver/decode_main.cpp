// MIOpenDriver decode: log text -> de-duplicated driver command lines, optionally replayed.
//   MIOpenDriver decode [--replay] [--source auto|miopen|anydnn] [--driver PATH] [FILE...]
// Reads stdin without files (or for "-"). Warnings go to stderr.
#include "decode_main.hpp"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "log_decoder.hpp"
#include "log_replay.hpp"

namespace anydnn::driver {

namespace {

std::string self_path() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("MIOpenDriver");
}

}  // namespace

int run_decode(int argc, char** argv) {
  bool replay = false;
  LogSource source = LogSource::Auto;
  std::string driver = self_path();
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--replay") {
      replay = true;
    } else if (a == "--source" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "miopen")
        source = LogSource::MIOpen;
      else if (v == "anydnn")
        source = LogSource::Anydnn;
      else if (v != "auto") {
        std::cerr << "MIOpenDriver decode: --source must be auto, miopen or anydnn\n";
        return 1;
      }
    } else if (a == "--driver" && i + 1 < argc) {
      driver = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::cout << "Usage: MIOpenDriver decode [--replay] [--source auto|miopen|anydnn] "
                   "[--driver PATH] [FILE...]\n"
                   "Prints the driver commands in MIOpen / anydnn log text with their counts;\n"
                   "--replay runs each with -V 1 -t 1 and prints time, solver and verification.\n";
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) files.push_back("-");
  LogDecoder decoder(source);
  for (const auto& f : files) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (f != "-") {
      file.open(f, std::ios::binary);
      if (!file) {
        std::cerr << "MIOpenDriver decode: cannot read " << f << "\n";
        return 1;
      }
      in = &file;
    }
    for (std::string line; std::getline(*in, line);)
      decoder.feed_line(line);
  }
  const DecodeResult r = decoder.finish();
  for (const auto& w : r.warnings)
    std::cerr << "warning: " << w << "\n";
  std::cerr.flush();
  if (!replay) {
    std::printf("%7s  %s\n", "count", "command");
    for (const auto& c : r.commands)
      std::printf("%7zu  %s\n", c.count, c.command.c_str());
    return 0;
  }
  std::printf("| command | count | time ms | solver | verified |\n|---|---|---|---|---|\n");
  int bad = 0;
  for (const auto& c : r.commands) {
    const ReplayResult rr = replay_command(driver, c.command);
    if (rr.verified != "yes" && rr.verified != "n/a") ++bad;
    std::printf("| %s | %zu | %.4f | %s | %s |\n", c.command.c_str(), c.count, rr.time_ms,
                rr.solvers.empty() ? "-" : rr.solvers.c_str(), rr.verified.c_str());
    std::fflush(stdout);
  }
  return bad ? 1 : 0;
}

}  // namespace anydnn::driver
