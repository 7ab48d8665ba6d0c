#include "conv_spec.hpp"

#include <algorithm>
#include <sstream>

namespace anydnn::driver {

std::optional<miopenDataType_t> conv_base_type(const std::string& base) {
  if (base == "conv") return miopenFloat;
  if (base == "convfp16") return miopenHalf;
  if (base == "convbfp16") return miopenBFloat16;
  if (base == "convint8") return miopenInt8;
  return std::nullopt;
}

std::optional<miopenTensorLayout_t> layout_enum(const std::string& s) {
  if (s == "NCHW") return miopenTensorNCHW;
  if (s == "NHWC") return miopenTensorNHWC;
  if (s == "CHWN") return miopenTensorCHWN;
  if (s == "NCDHW") return miopenTensorNCDHW;
  if (s == "NDHWC") return miopenTensorNDHWC;
  return std::nullopt;
}

void add_conv_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("in_layout", 'I', "", "Input layout: NCHW, NHWC (NCDHW, NDHWC for 3-D)", T::String);
  f.add("out_layout", 'O', "", "Output layout", T::String);
  f.add("fil_layout", 'f', "", "Filter layout", T::String);
  f.add("spatial_dim", '_', "2", "Convolution spatial dimension: 2 or 3");
  f.add("forw", 'F', "0", "0 fwd+bwd+wrw, 1 fwd, 2 bwd, 4 wrw, 3 fwd+bwd, 5 fwd+wrw, 6 bwd+wrw");
  f.add("batchsize", 'n', "100", "Mini-batch size");
  f.add("in_channels", 'c', "3", "Number of input channels");
  f.add("in_d", '!', "32", "Input depth");
  f.add("in_h", 'H', "32", "Input height");
  f.add("in_w", 'W', "32", "Input width");
  f.add("out_channels", 'k', "32", "Number of output channels");
  f.add("fil_d", '@', "3", "Filter depth");
  f.add("fil_h", 'y', "3", "Filter height");
  f.add("fil_w", 'x', "3", "Filter width");
  f.add("conv_stride_d", '#', "1", "Convolution stride for depth");
  f.add("conv_stride_h", 'u', "1", "Convolution stride for height");
  f.add("conv_stride_w", 'v', "1", "Convolution stride for width");
  f.add("pad_d", '$', "0", "Zero padding for depth");
  f.add("pad_h", 'p', "0", "Zero padding for height");
  f.add("pad_w", 'q', "0", "Zero padding for width");
  f.add("pad_val", 'r', "0", "Padding value (only 0 is supported)");
  f.add("trans_output_pad_d", '%', "0", "Transpose output padding for depth");
  f.add("trans_output_pad_h", 'Y', "0", "Transpose output padding for height");
  f.add("trans_output_pad_w", 'X', "0", "Transpose output padding for width");
  f.add("iter", 'i', "10", "Number of iterations");
  f.add("verify", 'V', "1", "Verify each direction against the CPU reference");
  f.add("verification_cache", 'C', "", "Verification cache directory (not supported)", T::String);
  f.add("time", 't', "0", "Time each direction");
  f.add("wall", 'w', "0", "Wall-clock time each direction (needs --time 1)");
  f.add("search", 's', "0", "Exhaustive search in Find");
  f.add("printconv", 'P', "1", "Print convolution dimensions (unused)");
  f.add("dump_output", 'o', "0", "Dump input and output buffers to dump_*.bin");
  f.add("in_data", 'd', "", "Input data file name", T::String);
  f.add("weights", 'e', "", "Input weights file name", T::String);
  f.add("bias", 'b', "", "Use bias");
  f.add("mode", 'm', "conv", "Convolution mode: conv or trans", T::String);
  f.add("pad_mode", 'z', "default", "Padding mode: default, same or valid", T::String);
  f.add("tensor_vect", 'Z', "0", "Tensor vectorization (only 0 is supported)");
  f.add("vector_length", 'L', "1", "Tensor vectorization length (only 1 is supported)");
  f.add("dilation_d", '^', "1", "Dilation of filter depth");
  f.add("dilation_h", 'l', "1", "Dilation of filter height");
  f.add("dilation_w", 'j', "1", "Dilation of filter width");
  f.add("in_bias", 'a', "", "Input bias file name", T::String);
  f.add("group_count", 'g', "1", "Number of groups");
  f.add("dout_data", 'D', "", "dy data file name for backward computations", T::String);
  f.add("solution", 'S', "-1",
        "<0 Find API; 0 immediate mode, fastest solution; >0 immediate mode, that solution id; "
        "or a solver name",
        T::String);
  f.add("find2", 'A', "0",
        "0 Find() or immediate mode (-S); 1 Find 2.0 API: miopenFindSolutions, then "
        "miopenRunSolution on the fastest solution, or on solver -S when Find returned it; 2 as 1, "
        "through miopenSaveSolution / miopenLoadSolution");
  f.add("gpualloc", 'G', "0", "Device-side init (ignored: inputs are drawn on the host)");
  f.add("in_cast_type", 'U', "-1", "Input cast type (not supported)", T::String);
  f.add("out_cast_type", 'T', "-1", "Output cast type (not supported)", T::String);
  f.add("wei_cast_type", 'R', "-1", "Weight cast type (not supported)", T::String);
}

std::optional<std::string> conv_spec_from_flags(InputFlags& f, ConvSpec& spec) {
  const int dims = f.get_int("spatial_dim");
  if (dims != 2 && dims != 3) return "--spatial_dim must be 2 or 3";
  const std::string default_layout = dims == 2 ? "NCHW" : "NCDHW";
  for (const char* l : {"in_layout", "out_layout", "fil_layout"}) {
    if (f.get_str(l).empty()) f.set(l, default_layout);
    const auto& v = f.get_str(l);
    if (!layout_enum(v) || v.size() != static_cast<size_t>(dims + 2))
      return std::string("invalid --") + l + " " + v;
  }
  const std::string mode = f.get_str("mode");
  if (mode != "conv" && mode != "trans") return "--mode must be conv or trans";
  const std::string pad_mode = f.get_str("pad_mode");
  if (pad_mode != "default" && pad_mode != "same" && pad_mode != "valid")
    return "--pad_mode must be default, same or valid";
  const int forw = f.get_int("forw");
  if (forw < 0 || forw > 7) return "--forw must be 0..7";
  if (f.get_int("pad_val") != 0) return "--pad_val other than 0 is not supported";
  if (f.get_int("tensor_vect") != 0 || f.get_int("vector_length") != 1)
    return "vectorized tensors (--tensor_vect, --vector_length) are not supported";
  for (const char* c : {"in_cast_type", "out_cast_type", "wei_cast_type"})
    if (f.get_str(c) != "-1") return std::string("--") + c + " is not supported";

  spec.spatial_dims = dims;
  spec.transpose = mode == "trans";
  spec.forw = forw;
  spec.groups = std::max(f.get_int("group_count"), 1);
  spec.in_layout = f.get_str("in_layout");
  spec.fil_layout = f.get_str("fil_layout");
  spec.out_layout = f.get_str("out_layout");
  spec.pad_mode = pad_mode;
  const int c = f.get_int("in_channels");
  const int k = f.get_int("out_channels");
  spec.in_lens = {f.get_int("batchsize"), c};
  spec.wei_lens =
      spec.transpose ? std::vector<int>{c, k / spec.groups} : std::vector<int>{k, c / spec.groups};
  spec.pads.clear();
  spec.strides.clear();
  spec.dilations.clear();
  spec.trans_output_pads.clear();
  const char* sfx[3] = {"_d", "_h", "_w"};
  for (int i = 3 - dims; i < 3; ++i) {
    const std::string s = sfx[i];
    spec.in_lens.push_back(f.get_int("in" + s));
    spec.wei_lens.push_back(f.get_int("fil" + s));
    spec.pads.push_back(f.get_int("pad" + s));
    spec.strides.push_back(f.get_int("conv_stride" + s));
    spec.dilations.push_back(f.get_int("dilation" + s));
    spec.trans_output_pads.push_back(f.get_int("trans_output_pad" + s));
  }
  // -z same|valid: the driver derives the padding (MIOpen has no public padding-mode setter),
  // for plain convolutions with unit dilation or unit filters, as MIOpenDriver does.
  const auto ones = [](auto b, auto e) { return std::all_of(b, e, [](int v) { return v == 1; }); };
  if (!spec.transpose && (ones(spec.dilations.begin(), spec.dilations.end()) ||
                          ones(spec.wei_lens.begin() + 2, spec.wei_lens.end()))) {
    for (int i = 0; i < dims; ++i) {
      const int in = spec.in_lens[2 + i], fl = spec.wei_lens[2 + i], s = spec.strides[i];
      if (s <= 0) break;  // the library reports the bad stride
      if (pad_mode == "same") {
        spec.pads[i] = (in % s == 0 ? std::max(fl - s, 0) : std::max(fl - in % s, 0)) / 2;
      } else if (pad_mode == "valid") {
        spec.pads[i] = 0;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> parse_conv_line(const std::string& line, ConvSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (words.empty()) return "empty line";
  if (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver") words.erase(words.begin());
  if (words.empty()) return "no base";
  const auto type = conv_base_type(words[0]);
  if (!type) return "unsupported base " + words[0];
  spec.base = words[0];
  spec.type = *type;
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_conv_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return conv_spec_from_flags(flags, spec);
}

std::string to_driver_args(const ConvSpec& s) {
  std::ostringstream o;
  const bool d3 = s.spatial_dims == 3;
  const int c = s.in_lens[1];
  const int k = s.transpose ? s.wei_lens[1] * s.groups : s.wei_lens[0];
  o << s.base << " -n " << s.in_lens[0] << " -c " << c;
  const char* in_flags[3] = {"--in_d", "-H", "-W"};
  const char* fil_flags[3] = {"--fil_d", "-y", "-x"};
  const char* pad_flags[3] = {"--pad_d", "-p", "-q"};
  const char* stride_flags[3] = {"--conv_stride_d", "-u", "-v"};
  const char* dil_flags[3] = {"--dilation_d", "-l", "-j"};
  const char* adj_flags[3] = {"--trans_output_pad_d", "-Y", "-X"};
  const int first = d3 ? 0 : 1;
  for (int i = first; i < 3; ++i)
    o << ' ' << in_flags[i] << ' ' << s.in_lens[2 + i - first];
  o << " -k " << k;
  for (int i = first; i < 3; ++i)
    o << ' ' << fil_flags[i] << ' ' << s.wei_lens[2 + i - first];
  for (int i = first; i < 3; ++i)
    o << ' ' << pad_flags[i] << ' ' << s.pads[i - first];
  for (int i = first; i < 3; ++i)
    o << ' ' << stride_flags[i] << ' ' << s.strides[i - first];
  for (int i = first; i < 3; ++i)
    o << ' ' << dil_flags[i] << ' ' << s.dilations[i - first];
  if (s.transpose)
    for (int i = first; i < 3; ++i)
      o << ' ' << adj_flags[i] << ' ' << s.trans_output_pads[i - first];
  if (d3) o << " --spatial_dim 3";
  o << " --in_layout " << s.in_layout << " --fil_layout " << s.fil_layout << " --out_layout "
    << s.out_layout << " -m " << (s.transpose ? "trans" : "conv") << " -g " << s.groups;
  if (s.pad_mode != "default") o << " -z " << s.pad_mode;
  return o.str();
}

}  // namespace anydnn::driver
