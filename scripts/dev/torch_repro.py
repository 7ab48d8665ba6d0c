# The report of issue [gpu-truth] 2, as small as it gets: PyTorch's CUDA context first, then
# libMIOpen through ctypes, then miopenConvolutionForwardGetWorkSpaceSize on NCHW fp32.
# python3 torch_repro.py LIB [--no-torch] [--no-argtypes]
import ctypes as C
import sys

lib_path = sys.argv[1]
if "--no-torch" not in sys.argv:
    import torch
    torch.zeros(1, device="cuda")
    print("torch", torch.__version__, torch.version.cuda, flush=True)
lib = C.CDLL(lib_path)
typed = "--no-argtypes" not in sys.argv
P = C.c_void_p
if typed:
    for name, args in {
        "miopenCreate": [C.POINTER(P)],
        "miopenCreateTensorDescriptor": [C.POINTER(P)],
        "miopenSet4dTensorDescriptor": [P, C.c_int, C.c_int, C.c_int, C.c_int, C.c_int],
        "miopenCreateConvolutionDescriptor": [C.POINTER(P)],
        "miopenInitConvolutionDescriptor": [P, C.c_int] + [C.c_int] * 6,
        "miopenConvolutionForwardGetWorkSpaceSize": [P, P, P, P, P, C.POINTER(C.c_size_t)],
    }.items():
        getattr(lib, name).argtypes = args
        getattr(lib, name).restype = C.c_int
h = P()
print("create", lib.miopenCreate(C.byref(h)), hex(h.value or 0), flush=True)
x, w, y, conv = P(), P(), P(), P()
for d in (x, w, y):
    lib.miopenCreateTensorDescriptor(C.byref(d))
print("descs", [hex(d.value) for d in (x, w, y)], flush=True)
lib.miopenSet4dTensorDescriptor(x, 1, 2, 8, 9, 9)
lib.miopenSet4dTensorDescriptor(w, 1, 16, 8, 3, 3)
lib.miopenSet4dTensorDescriptor(y, 1, 2, 16, 9, 9)
lib.miopenCreateConvolutionDescriptor(C.byref(conv))
lib.miopenInitConvolutionDescriptor(conv, 0, 1, 1, 1, 1, 1, 1)
ws = C.c_size_t(0)
rc = lib.miopenConvolutionForwardGetWorkSpaceSize(h, w, x, conv, y, C.byref(ws))
print("GetWorkSpaceSize rc", rc, "size", ws.value, flush=True)
