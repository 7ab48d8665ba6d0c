// Bodies for API functions whose issue has not landed: they return miopenStatusNotImplemented
// and log which piece of work will bring them (docs/api-status.md keeps the list).
#pragma once

#include "api/api_guard.hpp"

#define ANYDNN_NOT_IMPLEMENTED(handle, issue)                                               \
  return ::anydnn::api::guard(::anydnn::api::config_of(handle), __func__, [fn = __func__] { \
    ::anydnn::api::throw_not_implemented(fn, issue);                                        \
  })
