// MIOpenDriver's command-line flags: every flag has a long name (--name value) and a one-
// character short form (-c value), a default and a help line, as in MIOpen's InputFlags.
// Unlike MIOpen, an unknown flag, a missing value or a non-integer where an integer is expected
// is an error (MIOpen prints a message and exits 0).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace anydnn::driver {

class InputFlags {
 public:
  enum class Type { Int, String };

  void add(const std::string& long_name, char short_name, const std::string& default_value,
           const std::string& help, Type type = Type::Int);

  // Parses argv[first..argc). Returns an error message, or nullopt on success. "-h"/"--help"
  // sets help_requested().
  std::optional<std::string> parse(int argc, const char* const* argv, int first);
  bool help_requested() const { return help_; }

  int get_int(const std::string& long_name) const;
  const std::string& get_str(const std::string& long_name) const;
  bool given(const std::string& long_name) const;
  void set(const std::string& long_name, const std::string& value);

  void print_usage(std::ostream& os, const std::string& base) const;

 private:
  struct Flag {
    std::string long_name;
    char short_name;
    std::string value;
    std::string help;
    Type type;
    bool given = false;
  };
  Flag* find_long(const std::string& name);
  Flag* find_short(char c);
  const Flag& at(const std::string& name) const;

  std::vector<Flag> flags_;
  bool help_ = false;
};

// The tensor of the drivers that take MIOpen's -n -c -H -W (-D) flags plus --layout (bnorm,
// activ): lens {n, c, h, w} or, with -D > 0, {n, c, d, h, w}, and the layout (NCHW / NCDHW when
// not given; NHWC / NDHWC allowed). Returns an error message, or nullopt.
std::optional<std::string> spatial_tensor_from_flags(const InputFlags& f, std::vector<int>& lens,
                                                     std::string& layout);

}  // namespace anydnn::driver
