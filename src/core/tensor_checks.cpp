#include "core/tensor_checks.hpp"

#include <sstream>

#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn {

std::string lens_text(const std::vector<size_t>& lens) {
  std::ostringstream ss;
  for (size_t i = 0; i < lens.size(); ++i)
    ss << (i ? "x" : "") << lens[i];
  return ss.str();
}

void check_same_lens_and_type(const TensorDescriptor& d, const char* name,
                              const TensorDescriptor& like, const char* like_name) {
  ANYDNN_CHECK_BADPARM(d.lens() == like.lens(), name << " is " << lens_text(d.lens()) << " but "
                                                     << like_name << " is "
                                                     << lens_text(like.lens()));
  ANYDNN_CHECK_BADPARM(d.type() == like.type(), name << " is " << data_type_name(d.type())
                                                     << " but " << like_name << " is "
                                                     << data_type_name(like.type()));
}

const TensorDescriptor& checked_4d(const TensorDescriptor* d, const char* name,
                                   const TensorDescriptor* like, const char* like_name,
                                   const char* family) {
  ANYDNN_CHECK_BADPARM(d != nullptr && d->is_set(), name << " has not been set");
  ANYDNN_CHECK_BADPARM(d->num_dims() == 4, name << " has " << d->num_dims() << " dimensions; "
                                                << family << " takes 4-D (NCHW) tensors");
  if (like != nullptr) check_same_lens_and_type(*d, name, *like, like_name);
  return *d;
}

}  // namespace anydnn
