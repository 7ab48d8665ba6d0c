#include "db/find_db_text.hpp"

#include <cstdlib>
#include <map>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace anydnn {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

// The whole field as a number, or false.
template <class T>
bool parse_number(const std::string& s, T& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    out = static_cast<T>(std::strtod(s.c_str(), &end));
  } else {
    if (s[0] == '-') return false;
    out = static_cast<T>(std::strtoull(s.c_str(), &end, 10));
  }
  return end == s.c_str() + s.size();
}

}  // namespace

std::string export_find_records(FindDb& db) {
  std::ostringstream os;
  os.precision(9);
  for (const auto& [problem, entries] : db.user_records())
    for (const ConvFindEntry& e : entries)
      os << problem << '\t' << e.solver_name << '\t' << e.solver_id << '\t'
         << static_cast<int>(e.algorithm) << '\t' << e.time_ms << '\t' << e.workspace_size << '\t'
         << e.params << '\n';
  return os.str();
}

size_t import_find_records(FindDb& db, const std::string& text) {
  // Parse everything first: a malformed line stores nothing.
  std::map<std::string, std::vector<ConvFindEntry>> records;  // a problem's lines, wherever
  std::istringstream is(text);
  std::string line;
  size_t number = 0;
  while (std::getline(is, line)) {
    ++number;
    if (line.empty()) continue;
    const std::vector<std::string> f = split_tabs(line);
    ConvFindEntry e;
    int algorithm = 0;
    // The 7th field (a tuned solver's params) is new: lines of 6 fields are still read.
    ANYDNN_CHECK((f.size() == 6 || f.size() == 7) && !f[0].empty() && !f[1].empty() &&
                     parse_number(f[2], e.solver_id) && parse_number(f[3], algorithm) &&
                     parse_number(f[4], e.time_ms) && parse_number(f[5], e.workspace_size),
                 miopenStatusBadParm,
                 "find records: line " << number
                                       << " is not 'problem<TAB>solver<TAB>id<TAB>algorithm<TAB>"
                                          "time<TAB>workspace[<TAB>params]'");
    ANYDNN_CHECK(
        algorithm >= miopenConvolutionAlgoGEMM && algorithm <= miopenConvolutionAlgoImplicitGEMM &&
            algorithm != 4,
        miopenStatusBadParm,
        "find records: line " << number << ": " << algorithm << " is not a miopenConvAlgorithm_t");
    e.algorithm = static_cast<miopenConvAlgorithm_t>(algorithm);
    e.solver_name = f[1];
    if (f.size() == 7) e.params = f[6];
    records[f[0]].push_back(std::move(e));
  }
  size_t added = 0;
  for (auto& [problem, entries] : records)
    if (db.store_if_absent(problem, std::move(entries))) ++added;
  return added;
}

}  // namespace anydnn
