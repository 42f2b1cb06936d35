// The format strings of asc.printf: C printf conversions as Ascend C's printf
// accepts them (%d %i %u %x %X %o %f %F %e %E %g %G %c %%, with flags, width,
// precision and the l/ll/h/hh length modifiers; %s and %p of a GM address). The verifier checks each
// conversion against its argument; the Model formats with them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace asc {

struct FormatPiece {
  std::string text;  // literal text (with %% already turned into %), or the conversion spec
  char conversion;   // 0 for literal text; otherwise d, u, x, f, c, ... (the spec's last character)
};

// Splits `format` into literal text and conversions; a malformed or
// unsupported conversion throws asc::Error (ASC_ERR_TYPE) naming it.
std::vector<FormatPiece> parse_printf_format(std::string_view format);

// Conversions taking a GM address: %s (the NUL-terminated bytes there) and %p (the address).
inline bool conversion_is_address(char c) { return c == 's' || c == 'p'; }

// Conversions taking an integer argument (the rest but the address ones take a floating-point one).
inline bool conversion_is_integer(char c) {
  return c == 'd' || c == 'i' || c == 'u' || c == 'x' || c == 'X' || c == 'o' || c == 'c';
}

}  // namespace asc
