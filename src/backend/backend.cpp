// The out-of-line part of the backend interface (backend.hpp).
#include "backend/backend.hpp"

#include "core/errors.hpp"

namespace anydnn {

void Primitives::missing(const char* type) {
  ANYDNN_THROW(miopenStatusNotImplemented, "this backend has no " << type);
}

}  // namespace anydnn
