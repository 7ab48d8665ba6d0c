// The log decoder (`MIOpenDriver decode`): the bytes are log text, fed whole and line by line in
// both source modes; every decoded command must be one the driver's own parsers read (the
// decoder's promise: a replayable MIOpenDriver command), and the replay-output reader takes the
// bytes as a child's output. Nothing is executed.
#include <string>
#include <string_view>

#include "bn_spec.hpp"
#include "conv_spec.hpp"
#include "fuzz_common.hpp"
#include "log_decoder.hpp"
#include "log_replay.hpp"

namespace drv = anydnn::driver;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto source : {drv::LogSource::Auto, drv::LogSource::MIOpen, drv::LogSource::Anydnn}) {
    drv::LogDecoder decoder(source);
    decoder.feed_text(text);
    const drv::DecodeResult r = decoder.finish();
    for (const auto& c : r.commands) {
      // Each command re-parses with the driver's flag tables (conv and bnorm families).
      drv::ConvSpec conv;
      drv::BnSpec bn;
      if (drv::conv_base_type(c.command.substr(0, c.command.find(' '))))
        drv::parse_conv_line(c.command, conv);
      else
        drv::parse_bn_line(c.command, bn);
    }
    if (source == drv::LogSource::Auto) {
      // Line by line, as the decoder sees interleaved threads.
      drv::LogDecoder lines;
      size_t start = 0;
      while (start <= text.size()) {
        const size_t nl = text.find('\n', start);
        const size_t end = nl == std::string_view::npos ? text.size() : nl;
        lines.feed_line(text.substr(start, end - start));
        std::string err;
        drv::decode_command_line(text.substr(start, end - start), (end - start) % 2 == 0, &err);
        if (nl == std::string_view::npos) break;
        start = nl + 1;
      }
      lines.finish();
    }
  }
  drv::read_replay_output(std::string(text), static_cast<int>(size % 3));
  return 0;
}
