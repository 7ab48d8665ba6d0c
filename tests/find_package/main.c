/* Links the installed libMIOpen through find_package(miopen) and makes a real call. */
#include <miopen/miopen.h>
#include <miopen/version.h>
#include <stdio.h>

int main(void) {
  size_t major, minor, patch;
  miopenHandle_t h;
  if (miopenGetVersion(&major, &minor, &patch) != miopenStatusSuccess) return 1;
  if (miopenCreate(&h) != miopenStatusSuccess) return 1;
  if (miopenDestroy(h) != miopenStatusSuccess) return 1;
  printf("found MIOpen %zu.%zu.%zu\n", major, minor, patch);
  return major == MIOPEN_VERSION_MAJOR ? 0 : 1;
}
