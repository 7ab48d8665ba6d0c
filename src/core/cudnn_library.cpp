#include "core/cudnn_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

namespace anydnn {

namespace {

constexpr const char* kSoname = "libcudnn.so.9";

std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0')
    return map->l_name;
  return fallback;
}

// Opens one candidate; an empty string on success, else why not.
std::string try_open(const std::string& name, int extra_flags, CudnnLibrary& out) {
  dlerror();
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | extra_flags);
  if (h == nullptr) {
    const char* e = dlerror();
    return e != nullptr ? e : "dlopen failed";
  }
  using GetVersion = size_t (*)();
  const auto get_version = reinterpret_cast<GetVersion>(dlsym(h, "cudnnGetVersion"));
  if (get_version == nullptr) {
    dlclose(h);
    return name + ": no cudnnGetVersion (not cuDNN)";
  }
  const size_t v = get_version();
  if (v < kMinCudnnVersion) {
    dlclose(h);
    return name + ": cuDNN " + std::to_string(v) + " is older than " +
           std::to_string(kMinCudnnVersion);
  }
  out.handle = h;
  out.version = v;
  out.path = loaded_path(h, name);
  return {};
}

}  // namespace

std::vector<std::string> cudnn_library_candidates(const std::string& requested) {
  if (!requested.empty()) return {requested};
  std::vector<std::string> out = {kSoname};
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && v[0] != '\0') {
      out.push_back(std::string(v) + "/lib64/" + kSoname);
      out.push_back(std::string(v) + "/lib/" + kSoname);
    }
  }
  out.push_back(std::string("/usr/local/cuda/lib64/") + kSoname);
  out.push_back(std::string("/usr/local/cuda/lib/") + kSoname);
  return out;
}

CudnnLibrary load_cudnn_library(const std::string& requested) {
  CudnnLibrary lib;
  // A copy the process already holds (PyTorch's) is shared rather than loaded twice.
  if (requested.empty() && try_open(kSoname, RTLD_NOLOAD, lib).empty()) return lib;
  std::string tried;
  for (const std::string& c : cudnn_library_candidates(requested)) {
    const std::string why = try_open(c, 0, lib);
    if (why.empty()) return lib;
    tried += (tried.empty() ? "" : "; ") + why;
  }
  lib.error = (requested.empty() ? "libcudnn not found (set ANYDNN_CUDNN_LIBRARY): "
                                 : "ANYDNN_CUDNN_LIBRARY: ") +
              tried;
  return lib;
}

const CudnnLibrary& process_cudnn_library(const std::string& requested) {
  static const CudnnLibrary lib = load_cudnn_library(requested);
  return lib;
}

}  // namespace anydnn
