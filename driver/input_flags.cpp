#include "input_flags.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iomanip>
#include <stdexcept>

namespace anydnn::driver {

void InputFlags::add(const std::string& long_name, char short_name,
                     const std::string& default_value, const std::string& help, Type type) {
  flags_.push_back({long_name, short_name, default_value, help, type, false});
}

InputFlags::Flag* InputFlags::find_long(const std::string& name) {
  for (auto& f : flags_)
    if (f.long_name == name) return &f;
  return nullptr;
}

InputFlags::Flag* InputFlags::find_short(char c) {
  for (auto& f : flags_)
    if (f.short_name == c) return &f;
  return nullptr;
}

const InputFlags::Flag& InputFlags::at(const std::string& name) const {
  for (const auto& f : flags_)
    if (f.long_name == name) return f;
  throw std::logic_error("driver flag '" + name + "' is not defined");
}

std::optional<std::string> InputFlags::parse(int argc, const char* const* argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "-?") {
      help_ = true;
      return std::nullopt;
    }
    Flag* f = nullptr;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      f = find_long(arg.substr(2));
    } else if (arg.size() == 2 && arg[0] == '-') {
      f = find_short(arg[1]);
    }
    if (f == nullptr) return "unknown flag '" + arg + "' (-h lists the flags)";
    if (i + 1 >= argc) return "flag '" + arg + "' needs a value";
    const std::string value = argv[++i];
    if (f->type == Type::Int) {
      errno = 0;
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return "flag '" + arg + "' needs an integer, got '" + value + "'";
    }
    f->value = value;
    f->given = true;
  }
  return std::nullopt;
}

int InputFlags::get_int(const std::string& long_name) const {
  const Flag& f = at(long_name);
  return f.value.empty() ? 0 : static_cast<int>(std::strtol(f.value.c_str(), nullptr, 10));
}

const std::string& InputFlags::get_str(const std::string& long_name) const {
  return at(long_name).value;
}

bool InputFlags::given(const std::string& long_name) const {
  return at(long_name).given;
}

void InputFlags::set(const std::string& long_name, const std::string& value) {
  for (auto& f : flags_)
    if (f.long_name == long_name) f.value = value;
}

void InputFlags::print_usage(std::ostream& os, const std::string& base) const {
  os << "Usage: MIOpenDriver " << base << " [flags]\n";
  for (const auto& f : flags_) {
    os << "  -" << f.short_name << ", --" << std::left << std::setw(22) << f.long_name
       << " default '" << f.value << "'  " << f.help << "\n";
  }
}

std::optional<std::string> spatial_tensor_from_flags(const InputFlags& f, std::vector<int>& lens,
                                                     std::string& layout) {
  const int n = f.get_int("batchsize"), c = f.get_int("in_channels"), h = f.get_int("in_h"),
            w = f.get_int("in_w"), d = f.get_int("in_d");
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0 || d < 0) return "sizes must be positive";
  lens = d > 0 ? std::vector<int>{n, c, d, h, w} : std::vector<int>{n, c, h, w};
  layout = f.get_str("layout");
  if (layout.empty()) layout = d > 0 ? "NCDHW" : "NCHW";
  const bool ok_layout =
      d > 0 ? (layout == "NCDHW" || layout == "NDHWC") : (layout == "NCHW" || layout == "NHWC");
  if (!ok_layout)
    return "layout " + layout + " does not fit a " + (d > 0 ? "5" : "4") + "-D tensor";
  return std::nullopt;
}

}  // namespace anydnn::driver
