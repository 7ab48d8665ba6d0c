// Find records as text, for handing them between processes (anydnnFindDbExport / Import, used by
// the Python package's distributed tuning): one line per timed solver,
//   problem <TAB> solver <TAB> solver id <TAB> algorithm <TAB> time (ms) <TAB> workspace (bytes)
//   <TAB> params (a tuned solver's configuration, usually empty; lines without it still import)
// a record's lines together, fastest first. The problem is the canonical key (a MIOpenDriver
// command: no tabs or newlines). Clients treat the text as opaque.
#pragma once

#include <cstddef>
#include <string>

#include "db/find_db.hpp"

namespace anydnn {

// Every record of the user find-db for the database's device.
std::string export_find_records(FindDb& db);

// Stores each record of `text` that the database does not hold yet (its own measurements win);
// returns how many records (problems) were added. A malformed line is BadParm naming it, and
// nothing of the text is stored.
size_t import_find_records(FindDb& db, const std::string& text);

}  // namespace anydnn
