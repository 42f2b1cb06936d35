// A kernel's build log: the building calls made through the C ABI, as bytes.
// The Python package keeps it in its disk cache, and a later process rebuilds
// the kernel by replaying it (asc_builder_replay) instead of running the
// front end again. Replay goes through the same checked calls, so a damaged
// or hand-made log gives an error, never a kernel the builder would refuse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "asc/asc.h"

struct asc_builder;

namespace asc::capi {

class BuildLog {
 public:
  BuildLog();
  void op(std::string_view name, const asc_value_t* operands, size_t n_operands, const asc_attr_t* attrs,
          size_t n_attrs, const asc_loc_t* loc);
  void for_begin(asc_value_t lb, asc_value_t ub, asc_value_t step, const asc_loc_t* loc);
  void if_begin(asc_value_t cond, const asc_loc_t* loc);
  void mark(char tag);  // for_end, else, if_end
  void set_option(std::string_view name, int64_t value);
  const std::string& bytes() const { return out_; }

 private:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v);
  void i64(int64_t v);
  void str(std::string_view s);
  void location(const asc_loc_t* loc);

  std::string out_;
  std::string file_;  // the file of the last location written (locations repeat it rarely)
};

// Record tags.
inline constexpr char kLogOp = 'O', kLogFor = 'F', kLogForEnd = 'f', kLogIf = 'I', kLogElse = 'E', kLogIfEnd = 'e',
                      kLogOption = 'S';

// Replays `log` into `builder` (freshly created with the same name and
// parameters). Throws asc::Error: ASC_ERR_INVALID_ARGUMENT naming the byte
// offset for a log that does not parse, or what the builder says of a call.
void replay(asc_builder& builder, std::string_view log);

}  // namespace asc::capi
