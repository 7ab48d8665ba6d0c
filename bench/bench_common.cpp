#include "bench_common.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

namespace anydnn::bench {

void use_bundled_opencl_runtime(const std::string& onednn_root) {
  const std::string icd = onednn_root + "/lib/libintelocl.so";
  if (std::filesystem::exists(icd)) setenv("OCL_ICD_FILENAMES", icd.c_str(), 0);
}

double layer_flops(const driver::ConvSpec& s) {
  double f = 2.0 * s.in_lens[0] * (static_cast<double>(s.in_lens[1]) / s.groups) * s.wei_lens[0];
  for (size_t i = 0; i < s.pads.size(); ++i) {
    const long in = s.in_lens[2 + i], fl = s.wei_lens[2 + i];
    const long out = (in + 2 * s.pads[i] - s.dilations[i] * (fl - 1) - 1) / s.strides[i] + 1;
    f *= static_cast<double>(fl) * static_cast<double>(std::max(1L, out));
  }
  return f;
}

std::string layer_name(const driver::ConvSpec& s) {
  std::string in, f;
  for (size_t i = 2; i < s.in_lens.size(); ++i) {
    in += (i > 2 ? "x" : "") + std::to_string(s.in_lens[i]);
    f += (i > 2 ? "x" : "") + std::to_string(s.wei_lens[i]);
  }
  std::string r = "n" + std::to_string(s.in_lens[0]) + " c" + std::to_string(s.in_lens[1]) + " " +
                  in + " k" + std::to_string(s.wei_lens[0]) + " " + f + " p" +
                  std::to_string(s.pads[0]) + " s" + std::to_string(s.strides[0]);
  if (s.groups > 1) r += " g" + std::to_string(s.groups);
  return r;
}

std::vector<Layer> load_layers(const std::string& file, int batch) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << "cannot open " << file << "\n";
    return {};
  }
  std::vector<Layer> out;
  int count = 1;
  const std::regex multiplicity(R"(\) x([0-9]+),)");
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::smatch m;
      count = std::regex_search(line, m, multiplicity) ? std::stoi(m[1]) : 1;
      continue;
    }
    driver::ConvSpec s;
    if (auto err = driver::parse_conv_line(line, s)) {
      std::cerr << "skipping '" << line << "': " << *err << "\n";
      continue;
    }
    if (batch > 0) s.in_lens[0] = batch;
    out.push_back({s, count});
    count = 1;
  }
  return out;
}

std::vector<BnShape> load_bnorm_shapes(const std::string& file) {
  std::ifstream in(file);
  std::vector<BnShape> out;
  int pending = 1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) {
      // "# bn_conv1  x1  (...)": the multiplicity of the next shape.
      std::istringstream ss(line.substr(1));
      pending = 1;
      for (std::string w; ss >> w;)
        if (w.size() > 1 && w[0] == 'x' && std::isdigit(static_cast<unsigned char>(w[1])))
          pending = std::atoi(w.c_str() + 1);
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    BnShape s;
    if (driver::parse_bn_line(line, s.spec)) continue;
    s.count = pending;
    const auto& l = s.spec.lens;
    s.name = "n" + std::to_string(l[0]) + " c" + std::to_string(l[1]) + " " + std::to_string(l[2]) +
             "x" + std::to_string(l[3]) + (s.spec.mode == miopenBNSpatial ? " sp" : " pa");
    out.push_back(s);
  }
  return out;
}

}  // namespace anydnn::bench
