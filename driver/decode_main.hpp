// The `decode` subcommand of MIOpenDriver (decode_main.cpp).
#pragma once

namespace anydnn::driver {

int run_decode(int argc, char** argv);

}  // namespace anydnn::driver
