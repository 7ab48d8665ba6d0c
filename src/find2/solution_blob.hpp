// The saved form of a Find 2.0 solution (miopenSaveSolution / miopenLoadSolution): a versioned
// binary blob, little-endian, laid out as docs/find-and-heuristics.md ("Find 2.0") describes:
//   "ANYDNNS\0", format version (u32), flags (u32, 0), total size (u64),
//   the library that wrote it, the backend and device it was found on, the solver (id, name),
//   its time and workspace, the problem (every operator, direction and tensor descriptor),
//   and an FNV-1a 64 checksum of everything before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace anydnn::find2 {

class Solution;

// The format this library writes and reads; a blob of another version is refused with
// miopenStatusVersionMismatch.
constexpr uint32_t kSolutionBlobVersion = 1;

std::vector<char> save_solution_blob(const Solution& solution);
// BadParm with the reason for anything that is not an intact blob of this format (too short,
// wrong magic, size or checksum, a field out of range, a descriptor that does not validate).
Solution load_solution_blob(const char* data, size_t size);

}  // namespace anydnn::find2
